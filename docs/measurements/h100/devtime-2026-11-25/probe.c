// Device-timing cost probe for NVIDIA's OpenCL driver: where do the µs go?
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
#define N 2000
static cl_context ctx; static cl_device_id dev; static cl_kernel k; static cl_mem buf;
static const char *src = "__kernel void add(__global int *a, int b) { a[get_global_id(0)] += b; }";
static size_t gws = 1024;
static cl_event evs[N];

static double enq_part, fin_part;
static double stream(cl_command_queue q, int want_ev) {
  double best = 1e30;
  for (int rep = 0; rep < 6; rep++) {
    double t0 = now();
    for (int i = 0; i < N; i++) clEnqueueNDRangeKernel(q, k, 1, NULL, &gws, NULL, 0, NULL, want_ev && i % want_ev == 0 ? &evs[i / want_ev] : NULL);
    double t1 = now();
    clFinish(q);
    double t = (now() - t0) / N / 1e3;
    if (rep > 0 && t < best) { best = t; enq_part = (t1 - t0) / N / 1e3; fin_part = (now() - t1) / N / 1e3; }
    if (want_ev && rep < 5) for (int i = 0; i < N / want_ev; i++) clReleaseEvent(evs[i]);
  }
  return best;
}

static double per(const char *what, int (*f)(cl_event)) {
  double t0 = now(); int bad = 0;
  for (int i = 0; i < N; i++) bad += f(evs[i]) != 0;
  double t = (now() - t0) / N;
  printf("  %-28s %8.1f ns/event  (%d failed)\n", what, t, bad);
  return t;
}
static int q_status(cl_event e) { cl_int s; return clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, 4, &s, NULL); }
static int q_type(cl_event e) { cl_uint s; return clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, 4, &s, NULL); }
static int q_queued(cl_event e) { cl_ulong v; return clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_QUEUED, 8, &v, NULL); }
static int q_submit(cl_event e) { cl_ulong v; return clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_SUBMIT, 8, &v, NULL); }
static int q_start(cl_event e) { cl_ulong v; return clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, 8, &v, NULL); }
static int q_end(cl_event e) { cl_ulong v; return clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, 8, &v, NULL); }
static int q_retain(cl_event e) { return clRetainEvent(e); }
static int q_release(cl_event e) { return clReleaseEvent(e); }

// A reader thread: reads events as they complete, while the main thread enqueues.
static atomic_int produced, consumed; static atomic_int stop;
static void *reader(void *arg) {
  (void)arg;
  while (atomic_load(&consumed) < N) {
    int c = atomic_load(&consumed);
    if (c >= atomic_load(&produced)) { continue; }
    cl_ulong s, e;
    if (clGetEventProfilingInfo(evs[c], CL_PROFILING_COMMAND_END, 8, &e, NULL) != CL_SUCCESS) continue;
    clGetEventProfilingInfo(evs[c], CL_PROFILING_COMMAND_START, 8, &s, NULL);
    clReleaseEvent(evs[c]);
    atomic_store(&consumed, c + 1);
  }
  return NULL;
}
static double stream_with_reader(cl_command_queue q) {
  double best = 1e30;
  for (int rep = 0; rep < 6; rep++) {
    atomic_store(&produced, 0); atomic_store(&consumed, 0);
    pthread_t th; pthread_create(&th, NULL, reader, NULL);
    double t0 = now();
    for (int i = 0; i < N; i++) { clEnqueueNDRangeKernel(q, k, 1, NULL, &gws, NULL, 0, NULL, &evs[i]); atomic_store(&produced, i + 1); }
    clFinish(q);
    double t = (now() - t0) / N / 1e3;
    pthread_join(th, NULL);
    if (rep > 0 && t < best) best = t;
  }
  return best;
}

// cltap-like patterns without cltap: events held, read in batches of 256
// inline, by a woken thread, or all after clFinish; full or short reads.
static int full_reads = 1;
static void read_one(cl_event e) {
  cl_int st; clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, 4, &st, NULL);
  cl_ulong t[4];
  if (full_reads) { cl_uint ty; clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, 4, &ty, NULL);
    for (int j = 0; j < 4; j++) clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_QUEUED + j, 8, &t[j], NULL); }
  else { clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, 8, &t[2], NULL); clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, 8, &t[3], NULL); }
  clReleaseEvent(e);
}
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER; static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int upto, done_to, quit;
static void *batch_reader(void *arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  for (;;) {
    while (upto == done_to && !quit) pthread_cond_wait(&cv, &mu);
    if (upto == done_to && quit) break;
    int a = done_to, b = upto; pthread_mutex_unlock(&mu);
    for (int i = a; i < b; i++) {
      cl_int st; clGetEventInfo(evs[i], CL_EVENT_COMMAND_EXECUTION_STATUS, 4, &st, NULL);
      if (st > CL_COMPLETE) { b = i; break; }
      read_one(evs[i]);
    }
    pthread_mutex_lock(&mu); done_to = b;
    if (b < upto) { pthread_mutex_unlock(&mu); sched_yield(); pthread_mutex_lock(&mu); }
  }
  pthread_mutex_unlock(&mu);
  return NULL;
}
static double pattern(cl_command_queue q, int mode) {
  double best = 1e30;
  for (int rep = 0; rep < 6; rep++) {
    pthread_t th; upto = done_to = quit = 0;
    if (mode == 1) pthread_create(&th, NULL, batch_reader, NULL);
    double t0 = now(); int last = 0;
    for (int i = 0; i < N; i++) {
      clEnqueueNDRangeKernel(q, k, 1, NULL, &gws, NULL, 0, NULL, &evs[i]);
      if ((i + 1) % 256 == 0) {
        if (mode == 0) { for (int j = last; j <= i; j++) { cl_int st; clGetEventInfo(evs[j], CL_EVENT_COMMAND_EXECUTION_STATUS, 4, &st, NULL); if (st > CL_COMPLETE) break; read_one(evs[j]); last = j + 1; } }
        if (mode == 1) { pthread_mutex_lock(&mu); upto = i + 1; pthread_cond_signal(&cv); pthread_mutex_unlock(&mu); }
      }
    }
    clFinish(q);
    if (mode == 0 || mode == 2) for (int j = last; j < N; j++) read_one(evs[j]);
    double t = (now() - t0) / N / 1e3;
    if (mode == 1) { pthread_mutex_lock(&mu); upto = N; quit = 1; pthread_cond_signal(&cv); pthread_mutex_unlock(&mu); pthread_join(th, NULL); }
    if (rep > 0 && t < best) best = t;
  }
  return best;
}

int main(void) {
  cl_platform_id ps[8]; cl_uint np = 0; clGetPlatformIDs(8, ps, &np);
  int found = 0;
  for (cl_uint i = 0; i < np && !found; i++) found = clGetDeviceIDs(ps[i], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) == CL_SUCCESS;
  if (!found) clGetDeviceIDs(ps[0], CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
  char name[256]; clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL); printf("device: %s\n", name);
  ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, NULL);
  cl_program pr = clCreateProgramWithSource(ctx, 1, &src, NULL, NULL);
  clBuildProgram(pr, 1, &dev, "", NULL, NULL);
  k = clCreateKernel(pr, "add", NULL);
  buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, gws * 4, NULL, NULL);
  int one = 1; clSetKernelArg(k, 0, sizeof buf, &buf); clSetKernelArg(k, 1, 4, &one);
  cl_command_queue plain = clCreateCommandQueue(ctx, dev, 0, NULL);
  cl_command_queue prof = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, NULL);
  for (int round = 0; round < 3; round++) {
    printf("round %d: host us per enqueue, %d kernels then clFinish (min of 5)\n", round, N);
#define ROW(label, q, w) do { double t_ = stream(q, w); printf("  %-30s %6.2f  (enqueues %5.2f, clFinish %5.2f)\n", label, t_, enq_part, fin_part); } while (0)
    ROW("plain queue, no event", plain, 0);
    ROW("plain queue, event", plain, 1);
    for (int i = 0; i < N; i++) clReleaseEvent(evs[i]);
    if (getenv("PROBE_QUICK")) continue;
    ROW("profiling queue, no event", prof, 0);
    ROW("profiling queue, event 1 in 4", prof, 4);
    for (int i = 0; i < N / 4; i++) clReleaseEvent(evs[i]);
    ROW("profiling queue, event 1 in 2", prof, 2);
    for (int i = 0; i < N / 2; i++) clReleaseEvent(evs[i]);
    ROW("profiling queue, event", prof, 1);
    for (int i = 0; i < N; i++) clReleaseEvent(evs[i]);
    for (full_reads = 1; full_reads >= 0; full_reads--) {
      printf("  %s reads: inline every 256 %6.2f | woken thread %6.2f | after clFinish %6.2f\n", full_reads ? "full " : "short",
             pattern(prof, 0), pattern(prof, 1), pattern(prof, 2));
    }
    full_reads = 1;
    stream(prof, 1);
    printf(" per completed event (profiling queue):\n");
    per("status", q_status); per("command type", q_type);
    per("QUEUED", q_queued); per("SUBMIT", q_submit); per("START", q_start); per("END", q_end);
    per("retain", q_retain); per("release (of retain)", q_release);
    per("release", q_release);
    printf("  profiling queue, event, reader thread %6.2f\n", stream_with_reader(prof));
    // Incomplete events: does END fail before completion?
    cl_event ue = clCreateUserEvent(ctx, NULL), e;
    clEnqueueNDRangeKernel(prof, k, 1, NULL, &gws, NULL, 1, &ue, &e);
    cl_ulong v; cl_int r = clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, 8, &v, NULL);
    cl_int st; clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, 4, &st, NULL);
    printf("  incomplete: END query -> %d (status %d)\n", r, st);
    clSetUserEventStatus(ue, CL_COMPLETE); clFinish(prof);
    r = clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, 8, &v, NULL);
    printf("  complete: END query -> %d\n", r);
    clReleaseEvent(e); clReleaseEvent(ue);
  }
  return 0;
}
