/* The event checks and execution controls' test program
 * (tests/controls.rs). Prints every call's outcome by name or number, never
 * a handle or a time, so that its output with cltap can be compared with its
 * output without it. Usage: controls MODE, MODE one of:
 *   basic    a write, N kernel launches of two sizes and a read, each with an
 *            event waited on and released; the data checked ("result ...")
 *   events   broken wait lists: a NULL entry, an event of another context,
 *            a user event in an error state; and a wait on a user event that
 *            a second thread sets only once the first is blocked in the wait
 *   crash    a good launch, then one whose kernel writes through a bad
 *            pointer (the driver's worker dies, and the process with it),
 *            then a read: which call is in flight when it dies
 *   inorder  out-of-order queues made both ways; what CL_QUEUE_PROPERTIES says
 *   failing  a launch that waits on a user event a second thread sets to -1
 *            once the launch is in the driver: the launch fails as the driver
 *            fails it; then a wait on its event, and its status */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define _GNU_SOURCE
#include <CL/cl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SAY(name, v) printf("%s %d\n", name, (int)(v))

static const char *src =
    "__kernel void add(__global int *a, int b) { a[get_global_id(0)] += b; }\n";

static cl_context ctx;
static cl_device_id dev;
static cl_command_queue q;

static void setup(void) {
    cl_platform_id plat;
    cl_int err = 0;
    SAY("clGetPlatformIDs", clGetPlatformIDs(1, &plat, NULL));
    SAY("clGetDeviceIDs", clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    SAY("clCreateContext", err);
    /* The 1.2 call: Oclgrind never returns from
     * clCreateCommandQueueWithProperties under ocl-icd (without cltap too). */
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    SAY("clCreateCommandQueue", err);
}

static cl_kernel kernel(cl_mem buf, int b) {
    cl_int err = 0;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    SAY("clCreateProgramWithSource", err);
    SAY("clBuildProgram", clBuildProgram(prog, 1, &dev, "", NULL, NULL));
    cl_kernel k = clCreateKernel(prog, "add", &err);
    SAY("clCreateKernel", err);
    SAY("clSetKernelArg(0)", clSetKernelArg(k, 0, sizeof buf, &buf));
    SAY("clSetKernelArg(1)", clSetKernelArg(k, 1, sizeof b, &b));
    clReleaseProgram(prog);
    return k;
}

static void status_of(const char *what, cl_event e) {
    cl_int st = 1;
    SAY(what, clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL));
    printf("%s status %d\n", what, st);
}

static int basic(void) {
    enum { N = 256, LAUNCHES = 5 };
    int host[N];
    for (int i = 0; i < N; i++) host[i] = i;
    cl_int err = 0;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof host, NULL, &err);
    SAY("clCreateBuffer", err);
    cl_event w, e, r;
    SAY("clEnqueueWriteBuffer", clEnqueueWriteBuffer(q, buf, CL_FALSE, 0, sizeof host, host, 0, NULL, &w));
    cl_kernel k = kernel(buf, 3);
    size_t sizes[2][2] = {{N, 16}, {N / 2, 8}};
    for (int i = 0; i < LAUNCHES; i++) {
        size_t *s = sizes[i < 3 ? 0 : 1];
        SAY("clEnqueueNDRangeKernel", clEnqueueNDRangeKernel(q, k, 1, NULL, &s[0], &s[1], 1, &w, &e));
        SAY("clWaitForEvents", clWaitForEvents(1, &e));
        status_of("kernel", e);
        SAY("clReleaseEvent", clReleaseEvent(e));
    }
    /* No event asked for: the controls must not give the application one. */
    SAY("clEnqueueNDRangeKernel(no event)", clEnqueueNDRangeKernel(q, k, 1, NULL, &sizes[1][0], NULL, 0, NULL, NULL));
    SAY("clEnqueueReadBuffer", clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof host, host, 0, NULL, &r));
    status_of("read", r);
    SAY("clFinish", clFinish(q));
    long sum = 0;
    for (int i = 0; i < N; i++) sum += host[i];
    printf("result %ld\n", sum);
    clReleaseEvent(r);
    clReleaseEvent(w);
    clReleaseKernel(k);
    clReleaseMemObject(buf);
    return 0;
}

struct waiter {
    cl_event ev;
    pid_t tid;
    volatile int started;
    cl_int result;
};

static void *wait_on(void *p) {
    struct waiter *w = p;
    w->tid = (pid_t)syscall(SYS_gettid);
    __atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
    w->result = clWaitForEvents(1, &w->ev);
    return NULL;
}

/* Whether thread `tid` is blocked (state S or D): inside the driver's wait,
 * the only place the waiter blocks. */
static int blocked(pid_t tid) {
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = 0;
    char *close = strrchr(line, ')');
    return close && (close[2] == 'S' || close[2] == 'D');
}

static int events(void) {
    cl_int err = 0;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64 * sizeof(int), NULL, &err);
    SAY("clCreateBuffer", err);
    cl_kernel k = kernel(buf, 1);
    size_t g = 64;
    cl_event good;
    SAY("clEnqueueMarkerWithWaitList", clEnqueueMarkerWithWaitList(q, 0, NULL, &good));
    SAY("clWaitForEvents(good)", clWaitForEvents(1, &good));
    /* 1: a NULL entry. */
    cl_event with_null[2] = {good, NULL};
    SAY("clEnqueueNDRangeKernel(NULL entry)", clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 2, with_null, NULL));
    /* 2: an event of another context. */
    cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    SAY("clCreateContext(other)", err);
    cl_event foreign = clCreateUserEvent(other, &err);
    SAY("clCreateUserEvent(other)", err);
    SAY("clSetUserEventStatus(other)", clSetUserEventStatus(foreign, CL_COMPLETE));
    SAY("clEnqueueNDRangeKernel(other context)", clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 1, &foreign, NULL));
    /* 3: a user event in an error state, waited on. */
    cl_event failed = clCreateUserEvent(ctx, &err);
    SAY("clCreateUserEvent(failed)", err);
    SAY("clSetUserEventStatus(-1)", clSetUserEventStatus(failed, -1));
    SAY("clWaitForEvents(failed)", clWaitForEvents(1, &failed) != CL_SUCCESS);
    /* 4: a user event not set when a thread waits on it; set once that
     * thread is blocked in the wait. */
    struct waiter w = {clCreateUserEvent(ctx, &err), 0, 0, 1};
    SAY("clCreateUserEvent(unset)", err);
    pthread_t t;
    pthread_create(&t, NULL, wait_on, &w);
    while (!__atomic_load_n(&w.started, __ATOMIC_ACQUIRE)) sched_yield();
    while (!blocked(w.tid)) sched_yield();
    SAY("clSetUserEventStatus(unset)", clSetUserEventStatus(w.ev, CL_COMPLETE));
    pthread_join(t, NULL);
    SAY("clWaitForEvents(user)", w.result);
    SAY("clFinish", clFinish(q));
    clReleaseEvent(w.ev);
    clReleaseEvent(failed);
    clReleaseEvent(foreign);
    clReleaseEvent(good);
    clReleaseContext(other);
    clReleaseKernel(k);
    clReleaseMemObject(buf);
    return 0;
}

static const char *bad_src =
    "__kernel void bad(__global int *a) { __global int *p = (__global int *)(a - (1L << 40)); p[get_global_id(0)] = 1; }\n";

static int crash(void) {
    cl_int err = 0;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64 * sizeof(int), NULL, &err);
    SAY("clCreateBuffer", err);
    cl_kernel k = kernel(buf, 1);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &bad_src, NULL, &err);
    SAY("clBuildProgram(bad)", clBuildProgram(prog, 1, &dev, "", NULL, NULL));
    cl_kernel bad = clCreateKernel(prog, "bad", &err);
    SAY("clCreateKernel(bad)", err);
    SAY("clSetKernelArg(bad)", clSetKernelArg(bad, 0, sizeof buf, &buf));
    size_t g = 64;
    SAY("clEnqueueNDRangeKernel(good)", clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL));
    SAY("clEnqueueNDRangeKernel(bad)", clEnqueueNDRangeKernel(q, bad, 1, NULL, &g, NULL, 0, NULL, NULL));
    int host[64];
    SAY("clEnqueueReadBuffer", clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));
    return 0;
}

struct setter {
    cl_event ev;
    cl_kernel k;
    int retains;
    cl_int result;
};

/* Sets the user event to -1 once the launch that waits on it is in the
 * driver. PoCL retains the kernel of a command it holds, and a command
 * whose wait list already holds a failed event never runs there (it stays
 * queued for ever): so on PoCL, the kernel's reference count says when.
 * Intel's CPU runtime retains nothing and answers the same whether the
 * event is set before or after the launch: there it is set before. */
static void *set_failed(void *p) {
    struct setter *s = p;
    if (s->retains) {
        cl_uint refs = 1;
        while (clGetKernelInfo(s->k, CL_KERNEL_REFERENCE_COUNT, sizeof refs, &refs, NULL) == CL_SUCCESS && refs < 2)
            sched_yield();
    }
    s->result = clSetUserEventStatus(s->ev, -1);
    return NULL;
}

static int failing(void) {
    cl_int err = 0;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64 * sizeof(int), NULL, &err);
    SAY("clCreateBuffer", err);
    cl_kernel k = kernel(buf, 1);
    char platform[256] = "";
    cl_platform_id plat;
    clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof platform, platform, NULL);
    struct setter s = {clCreateUserEvent(ctx, &err), k, strstr(platform, "Portable Computing Language") != NULL, 1};
    SAY("clCreateUserEvent", err);
    pthread_t t;
    size_t g = 64;
    cl_event e;
    if (s.retains)
        pthread_create(&t, NULL, set_failed, &s);
    else
        set_failed(&s);
    SAY("clEnqueueNDRangeKernel(waits on the user event)", clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 1, &s.ev, &e));
    if (s.retains) pthread_join(t, NULL);
    SAY("clSetUserEventStatus(-1)", s.result);
    SAY("clWaitForEvents(failed command)", clWaitForEvents(1, &e));
    status_of("failed command", e);
    SAY("clFinish", clFinish(q));
    clReleaseEvent(e);
    clReleaseEvent(s.ev);
    clReleaseKernel(k);
    clReleaseMemObject(buf);
    return 0;
}

static void ooo_of(const char *what, cl_command_queue qq) {
    cl_command_queue_properties p = 0;
    SAY(what, clGetCommandQueueInfo(qq, CL_QUEUE_PROPERTIES, sizeof p, &p, NULL));
    printf("%s out of order %d\n", what, (p & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0);
}

static int inorder(void) {
    cl_command_queue_properties can = 0;
    clGetDeviceInfo(dev, CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, sizeof can, &can, NULL);
    if (!(can & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
        printf("skip: out-of-order queues (the device has none)\n");
        return 0;
    }
    cl_int err = 0;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    cl_command_queue a = clCreateCommandQueue(ctx, dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
#pragma GCC diagnostic pop
    SAY("clCreateCommandQueue", err);
    ooo_of("bits", a);
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
    cl_command_queue b = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
    SAY("clCreateCommandQueueWithProperties(ooo)", err);
    ooo_of("list", b);
    clReleaseCommandQueue(a);
    clReleaseCommandQueue(b);
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "basic";
    setup();
    int r = !strcmp(mode, "events") ? events()
          : !strcmp(mode, "crash") ? crash()
          : !strcmp(mode, "inorder") ? inorder()
          : !strcmp(mode, "failing") ? failing()
          : basic();
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return r;
}
