/* cltap's OpenCL-on-AMD tests: an OpenCL program run on AMD's OpenCL runtime (ROCm 5.2.3's
 * libamdocl64.so, docs/amd-opencl.md) over Debian's ROCr on the emulated gfx906 (gpu-emu/), by
 * tests/amd_ndranges.rs and others. It uses only the OpenCL API (links -lOpenCL; the runtime is
 * picked by OCL_ICD_VENDORS).
 *
 * One context; queue A with profiling runs 12 NDRanges of two kernels (1D, 2D and 3D, with and
 * without a local size, one kernel with a __local argument) between buffer writes and reads, and
 * two fills and two copies of buffers, which ROCclr runs as its own blit kernels on the same queue
 * (__amd_rocclr_fillBufferAligned, __amd_rocclr_copyBuffer): the NDRange-to-dispatch join must
 * never take one of those for an NDRange. Queue B, made with
 * clCreateCommandQueueWithProperties, is used from a second thread for 4 more NDRanges; one more
 * runs a program made from the first one's binary. Enqueue calls that must fail are checked not to
 * dispatch (the tests count the dispatches the emulated GPU ran in its own log).
 *
 * Output: deterministic lines only (no addresses, no times); exit 0, or 1 with a FAIL line. The
 * emulated GPU runs the kernels' code: the fills' and copies' results are checked; the 2D and 3D
 * `scale` launches race on one element per column, so for x the program checks only that it
 * changed. */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../amdocl/cl_check.h"

static const char* status_name(cl_int s) {
  switch (s) {
    case CL_COMPLETE: return "CL_COMPLETE";
    case CL_RUNNING: return "CL_RUNNING";
    case CL_SUBMITTED: return "CL_SUBMITTED";
    case CL_QUEUED: return "CL_QUEUED";
    default: return err_name(s);
  }
}

/* Two kernels: scale is straight-line code (its get_global_id reads the global offset from the
 * hidden arguments), so the tests can count its instructions; tile_sum has a __local argument and
 * a barrier. */
static const char* SOURCE =
    "__kernel void scale(__global float* x, float a) {\n"
    "  x[get_global_id(0)] *= a;\n"
    "}\n"
    "__kernel void tile_sum(__global const int* in, __global int* out, __local int* tile, int width) {\n"
    "  size_t lx = get_local_id(0), ly = get_local_id(1), wx = get_local_size(0), wy = get_local_size(1);\n"
    "  tile[ly * wx + lx] = in[get_global_id(1) * width + get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (lx == 0 && ly == 0) {\n"
    "    int s = 0;\n"
    "    for (size_t i = 0; i < wx * wy; i++) s += tile[i];\n"
    "    out[get_group_id(1) * get_num_groups(0) + get_group_id(0)] = s;\n"
    "  }\n"
    "}\n";

#define X_ELEMS 4096
#define GRID_W 256
#define GRID_H 64
#define TILE_LDS 1024 /* bytes of the __local argument: 256 ints */

typedef struct ndrange {
  int tile;                    /* 0: scale, 1: tile_sum */
  cl_uint dims;
  size_t global[3];
  size_t local[3];             /* local[0] == 0: NULL */
  size_t offset;               /* global offset in dimension 0 */
} ndrange;

static const ndrange QUEUE_A[12] = {
    {0, 1, {1024}, {64}, 0},        {0, 1, {4096}, {0}, 0},        {1, 2, {64, 64}, {16, 16}, 0},
    {0, 1, {1000}, {0}, 0},         {1, 2, {128, 32}, {8, 8}, 0},  {0, 1, {256}, {256}, 0},
    {1, 2, {32, 32}, {0}, 0},       {0, 2, {64, 16}, {16, 4}, 0},  {0, 3, {16, 8, 4}, {4, 4, 2}, 0},
    {1, 2, {256, 4}, {64, 4}, 0},   {0, 1, {2048}, {128}, 1024},   {0, 3, {8, 8, 8}, {0}, 0},
};

static const char* kernel_name(int tile) { return tile ? "tile_sum" : "scale"; }

static void describe(char* out, size_t n, const ndrange* r) {
  char g[64] = "", l[64] = "";
  for (cl_uint d = 0; d < r->dims; d++) {
    size_t gl = strlen(g), ll = strlen(l);
    snprintf(g + gl, sizeof g - gl, "%s%zu", d ? "x" : "", r->global[d]);
    if (r->local[0]) snprintf(l + ll, sizeof l - ll, "%s%zu", d ? "x" : "", r->local[d]);
  }
  snprintf(out, n, "%-8s dims=%u global=%s local=%s offset=%zu", kernel_name(r->tile), r->dims, g,
           r->local[0] ? l : "NULL", r->offset);
}

/* "ordered" when the four profiling times exist and do not go backwards;
 * else the error of the first query that failed. */
static const char* profiling(cl_event e) {
  cl_ulong t[4];
  const cl_profiling_info which[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                      CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
  for (int i = 0; i < 4; i++) {
    cl_int err = clGetEventProfilingInfo(e, which[i], sizeof t[i], &t[i], NULL);
    if (err != CL_SUCCESS) return err_name(err);
  }
  return t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3] && t[0] > 0 ? "ordered" : "OUT-OF-ORDER";
}

static cl_int event_status(cl_event e) {
  cl_int s;
  OK(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s, NULL));
  return s;
}

static cl_int enqueue(cl_command_queue q, cl_kernel k, const ndrange* r, cl_event* ev) {
  size_t offset[3] = {r->offset, 0, 0};
  return clEnqueueNDRangeKernel(q, k, r->dims, r->offset ? offset : NULL, r->global, r->local[0] ? r->local : NULL,
                                0, NULL, ev);
}

/* ---- queue B, on its own thread ---- */

typedef struct second {
  cl_context ctx;
  cl_device_id dev;
  cl_kernel scale;
  cl_mem y;
  cl_int enqueue[4];
  cl_int status[4];
  const char* profiling[4];
  int identical;
} second;

static void* second_thread(void* arg) {
  second* s = arg;
  cl_int err;
  cl_command_queue q = clCreateCommandQueueWithProperties(s->ctx, s->dev, NULL, &err);
  OK(err);
  float data[512], back[512];
  for (int i = 0; i < 512; i++) data[i] = (float)(i % 7);
  OK(clEnqueueWriteBuffer(q, s->y, CL_FALSE, 0, sizeof data, data, 0, NULL, NULL));
  const ndrange runs[4] = {{0, 1, {512}, {64}, 0}, {0, 1, {512}, {0}, 0}, {0, 2, {32, 16}, {8, 8}, 0},
                           {0, 1, {256}, {32}, 0}};
  cl_event ev[4];
  for (int i = 0; i < 4; i++) s->enqueue[i] = enqueue(q, s->scale, &runs[i], &ev[i]);
  OK(clEnqueueReadBuffer(q, s->y, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL));
  OK(clFinish(q));
  for (int i = 0; i < 4; i++) {
    s->status[i] = event_status(ev[i]);
    s->profiling[i] = profiling(ev[i]);
    OK(clReleaseEvent(ev[i]));
  }
  s->identical = memcmp(data, back, sizeof data) == 0;
  OK(clReleaseCommandQueue(q));
  return NULL;
}

/* ---- main ---- */

static void print_kernel(cl_kernel k, cl_device_id dev) {
  char name[64];
  cl_uint args;
  size_t wg, multiple;
  cl_ulong lds, priv;
  OK(clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL));
  OK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof args, &args, NULL));
  OK(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL));
  OK(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof multiple, &multiple, NULL));
  OK(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lds, &lds, NULL));
  OK(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof priv, &priv, NULL));
  printf("kernel %s: args=%u work_group_size=%zu preferred_multiple=%zu local_mem=%llu private_mem=%llu\n", name,
         args, wg, multiple, (unsigned long long)lds, (unsigned long long)priv);
}

static cl_program build(cl_context ctx, cl_device_id dev, const char* source, cl_int* build_err) {
  cl_int err;
  cl_program p = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
  OK(err);
  *build_err = clBuildProgram(p, 1, &dev, "", NULL, NULL);
  return p;
}

int main(void) {
  cl_platform_id platform;
  cl_device_id dev;
  OK(clGetPlatformIDs(1, &platform, NULL));
  char text[256];
  OK(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof text, text, NULL));
  printf("platform: %s\n", text);
  OK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &dev, NULL));
  cl_uint cus;
  cl_ulong lds;
  size_t max_wg;
  OK(clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof text, text, NULL));
  OK(clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL));
  OK(clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lds, &lds, NULL));
  OK(clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL));
  printf("device: %s compute_units=%u local_mem=%llu max_work_group=%zu\n", text, cus, (unsigned long long)lds,
         max_wg);
  cl_int unknown = clGetDeviceInfo(dev, 0x7fff, sizeof text, text, NULL);
  printf("device: unknown query -> %s\n", err_name(unknown));

  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  OK(err);
  cl_command_queue qa = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
  OK(err);

  /* A source that does not compile: the build log says why. */
  cl_int bad_err;
  cl_program bad = build(ctx, dev, "__kernel void broken(__global int* p) { p[0] = undeclared; }\n", &bad_err);
  size_t log_size;
  OK(clGetProgramBuildInfo(bad, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size));
  char* log = malloc(log_size);
  OK(clGetProgramBuildInfo(bad, dev, CL_PROGRAM_BUILD_LOG, log_size, log, NULL));
  printf("bad source: %s, log names the error: %d\n", err_name(bad_err), strstr(log, "undeclared") != NULL);
  free(log);
  OK(clReleaseProgram(bad));

  cl_int build_err;
  cl_program prog = build(ctx, dev, SOURCE, &build_err);
  cl_build_status bs;
  OK(clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_STATUS, sizeof bs, &bs, NULL));
  char names[128];
  size_t nkernels;
  OK(clGetProgramInfo(prog, CL_PROGRAM_NUM_KERNELS, sizeof nkernels, &nkernels, NULL));
  OK(clGetProgramInfo(prog, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL));
  printf("build: %s status=%s kernels=%zu names=%s\n", err_name(build_err),
         bs == CL_BUILD_SUCCESS ? "CL_BUILD_SUCCESS" : "not built", nkernels, names);
  CHECK(build_err == CL_SUCCESS);

  cl_kernel scale = clCreateKernel(prog, "scale", &err);
  OK(err);
  cl_kernel tile = clCreateKernel(prog, "tile_sum", &err);
  OK(err);
  clCreateKernel(prog, "no_such_kernel", &err);
  printf("kernel no_such_kernel: %s\n", err_name(err));

  float x[X_ELEMS], x_back[X_ELEMS];
  int grid[GRID_W * GRID_H], sums[GRID_W * GRID_H], sums_back[GRID_W * GRID_H];
  for (int i = 0; i < X_ELEMS; i++) x[i] = (float)i * 0.5f;
  for (int i = 0; i < GRID_W * GRID_H; i++) {
    grid[i] = i % 13;
    sums[i] = 0;
  }
  cl_mem xbuf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof x, NULL, &err);
  OK(err);
  cl_mem in = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof grid, grid, &err);
  OK(err);
  cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY | CL_MEM_USE_HOST_PTR, sizeof sums, sums, &err);
  OK(err);
  cl_mem copy = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof grid, NULL, &err);
  OK(err);

  float a = 2.0f;
  cl_int width = GRID_W;
  OK(clSetKernelArg(scale, 0, sizeof xbuf, &xbuf));
  OK(clSetKernelArg(scale, 1, sizeof a, &a));
  printf("clSetKernelArg(scale, 1, wrong size): %s\n", err_name(clSetKernelArg(scale, 1, 2, &a)));
  /* AMD's runtime forgets an argument whose setting failed: set it again. */
  OK(clSetKernelArg(scale, 1, sizeof a, &a));
  OK(clSetKernelArg(tile, 0, sizeof in, &in));
  OK(clSetKernelArg(tile, 1, sizeof out, &out));
  OK(clSetKernelArg(tile, 2, TILE_LDS, NULL));
  OK(clSetKernelArg(tile, 3, sizeof width, &width));
  print_kernel(scale, dev);
  print_kernel(tile, dev);

  /* Enqueues that must fail, and so must not dispatch. (AMD's runtime takes a non-uniform
   * work-group, and does not check that every argument was set.) */
  const ndrange too_big = {1, 2, {64, 64}, {32, 32}, 0}, no_dims = {0, 0, {64}, {0}, 0};
  printf("tile_sum local=32x32: %s\n", err_name(enqueue(qa, tile, &too_big, NULL)));
  printf("scale work_dim=0: %s\n", err_name(enqueue(qa, scale, &no_dims, NULL)));

  /* Queue B from another thread, while queue A works. */
  second s = {ctx, dev, scale, NULL, {0}, {0}, {0}, 0};
  s.y = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 512 * sizeof(float), NULL, &err);
  OK(err);
  pthread_t thread;
  CHECK(pthread_create(&thread, NULL, second_thread, &s) == 0);

  cl_event write_ev, ev[12];
  cl_int enq[12];
  OK(clEnqueueWriteBuffer(qa, xbuf, CL_FALSE, 0, sizeof x, x, 0, NULL, &write_ev));
  for (int i = 0; i < 12; i++) {
    enq[i] = enqueue(qa, QUEUE_A[i].tile ? tile : scale, &QUEUE_A[i], &ev[i]);
    if (i == 2) OK(clEnqueueReadBuffer(qa, out, CL_TRUE, 0, sizeof sums_back, sums_back, 0, NULL, NULL));
    if (i == 5) OK(clEnqueueWriteBuffer(qa, in, CL_TRUE, 0, sizeof grid, grid, 1, &ev[i], NULL));
    if (i == 3) {
      /* A fill of the whole of x, the size of NDRange 1's grid in floats. */
      cl_float pattern = 1.5f;
      OK(clEnqueueFillBuffer(qa, xbuf, &pattern, sizeof pattern, 0, sizeof x, 0, NULL, NULL));
    }
    if (i == 6) {
      cl_int zero = 0;
      OK(clEnqueueFillBuffer(qa, copy, &zero, sizeof zero, 0, sizeof grid, 0, NULL, NULL));
      OK(clEnqueueCopyBuffer(qa, in, copy, 0, 0, sizeof grid, 0, NULL, NULL));
    }
    if (i == 8) {
      cl_event read_ev;
      OK(clEnqueueReadBuffer(qa, xbuf, CL_FALSE, 0, sizeof x_back, x_back, 0, NULL, &read_ev));
      OK(clWaitForEvents(1, &read_ev));
      printf("read after ndrange 8: %s, profiling %s\n", status_name(event_status(read_ev)), profiling(read_ev));
      OK(clReleaseEvent(read_ev));
    }
  }
  OK(clEnqueueCopyBuffer(qa, in, copy, 0, sizeof grid / 2, sizeof grid / 2, 0, NULL, NULL));
  OK(clFinish(qa));
  CHECK(pthread_join(thread, NULL) == 0);
  printf("write: %s, profiling %s\n", status_name(event_status(write_ev)), profiling(write_ev));
  OK(clReleaseEvent(write_ev));
  for (int i = 0; i < 12; i++) {
    char what[256];
    describe(what, sizeof what, &QUEUE_A[i]);
    cl_command_type type;
    cl_command_queue owner;
    OK(clGetEventInfo(ev[i], CL_EVENT_COMMAND_TYPE, sizeof type, &type, NULL));
    OK(clGetEventInfo(ev[i], CL_EVENT_COMMAND_QUEUE, sizeof owner, &owner, NULL));
    printf("queue A ndrange %2d: %s enqueue=%s event=%s type_ok=%d queue_ok=%d profiling=%s\n", i, what,
           err_name(enq[i]), status_name(event_status(ev[i])), type == CL_COMMAND_NDRANGE_KERNEL, owner == qa,
           profiling(ev[i]));
    OK(clReleaseEvent(ev[i]));
  }
  for (int i = 0; i < 4; i++)
    printf("queue B ndrange %d (second thread): enqueue=%s event=%s profiling=%s\n", i, err_name(s.enqueue[i]),
           status_name(s.status[i]), s.profiling[i]);
  printf("queue B: buffer read back unchanged=%d\n", s.identical);

  OK(clEnqueueReadBuffer(qa, xbuf, CL_TRUE, 0, sizeof x_back, x_back, 0, NULL, NULL));
  printf("x read back changed by the kernels (the emulated GPU runs their code)=%d\n", memcmp(x, x_back, sizeof x) != 0);

  /* A program from the first one's code object. */
  size_t bin_size;
  OK(clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof bin_size, &bin_size, NULL));
  unsigned char* bin = malloc(bin_size);
  OK(clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL));
  cl_int bin_status;
  cl_program from_bin =
      clCreateProgramWithBinary(ctx, 1, &dev, &bin_size, (const unsigned char**)&bin, &bin_status, &err);
  OK(err);
  free(bin);
  OK(clBuildProgram(from_bin, 1, &dev, NULL, NULL, NULL));
  cl_kernel scale2 = clCreateKernel(from_bin, "scale", &err);
  OK(err);
  OK(clSetKernelArg(scale2, 0, sizeof xbuf, &xbuf));
  OK(clSetKernelArg(scale2, 1, sizeof a, &a));
  cl_event bin_ev;
  const ndrange one = {0, 1, {128}, {0}, 0};
  OK(enqueue(qa, scale2, &one, &bin_ev));
  OK(clWaitForEvents(1, &bin_ev));
  printf("program from binary: status=%s ndrange event=%s\n", err_name(bin_status),
         status_name(event_status(bin_ev)));
  OK(clReleaseEvent(bin_ev));
  OK(clReleaseKernel(scale2));
  OK(clReleaseProgram(from_bin));

  /* The copies ran: copy holds the first half of the grid twice. */
  int* copied = malloc(sizeof grid);
  OK(clEnqueueReadBuffer(qa, copy, CL_TRUE, 0, sizeof grid, copied, 0, NULL, NULL));
  int copies_ok = memcmp(copied, grid, sizeof grid / 2) == 0 &&
                  memcmp(copied + GRID_W * GRID_H / 2, grid, sizeof grid / 2) == 0;
  free(copied);
  printf("ndranges=%d fills=2 copies=2 copied=%d\n", 12 + 4 + 1, copies_ok);
  OK(clReleaseMemObject(copy));
  OK(clReleaseMemObject(s.y));
  OK(clReleaseMemObject(xbuf));
  OK(clReleaseMemObject(in));
  OK(clReleaseMemObject(out));
  OK(clReleaseKernel(scale));
  OK(clReleaseKernel(tile));
  OK(clReleaseProgram(prog));
  OK(clReleaseCommandQueue(qa));
  OK(clReleaseContext(ctx));
  printf("done\n");
  return 0;
}
