/* tracer_example.c: an OpenCL program that watches its own kernel launches
 * through cltap's tracer API (docs/tracer.md). A tool library would do the
 * same from its own initialisation.
 *
 *   gcc -std=c11 -I include docs/examples/tracer_example.c -o tracer_example -lOpenCL
 *   cltap run -- ./tracer_example
 *
 * tests/tracer.rs builds and runs this file.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

#include "cltap.h"

static cltap_tracer_api_t cltap; /* the functions of the cltap in this process */

typedef struct {
  int launches;
} my_data_t;

/* Before each clEnqueueNDRangeKernel: number the launch. The instance data
 * is this call's own slot; the epilogue receives what is left in it. */
static void launch_begins(uint32_t api_id, void* params, const void* result, void* user_data,
                          uint64_t* instance_data) {
  (void)api_id, (void)params, (void)result;
  my_data_t* data = user_data;
  *instance_data = (uint64_t)++data->launches;
}

/* After it: the parameters (through the call's parameter struct) and the result. */
static void launch_ends(uint32_t api_id, void* params, const void* result, void* user_data,
                        uint64_t* instance_data) {
  (void)user_data;
  cltap_params_clEnqueueNDRangeKernel* p = params;
  cl_int status = *(const cl_int*)result;
  printf("%s #%llu: %u dimension(s), global size %zu, %s\n", cltap.api_name(api_id),
         (unsigned long long)*instance_data, *p->work_dim, (*p->global_work_size)[0],
         status == CL_SUCCESS ? "CL_SUCCESS" : "failed");
}

#define CHECK(x)                                             \
  do {                                                       \
    if (!(x)) {                                              \
      fprintf(stderr, "line %d: %s failed\n", __LINE__, #x); \
      exit(1);                                               \
    }                                                        \
  } while (0)

static const char* SOURCE =
    "__kernel void add(__global const int* a, __global const int* b, __global int* c) {\n"
    "  size_t i = get_global_id(0);\n"
    "  c[i] = a[i] + b[i];\n"
    "}\n";

int main(void) {
  enum { N = 1024 };
  static cl_int a[N], b[N], c[N];
  for (int i = 0; i < N; i++) a[i] = i, b[i] = 2 * i;

  /* The loader loads cltap at the first OpenCL call. */
  cl_platform_id platform;
  cl_device_id device;
  cl_int err;
  CHECK(clGetPlatformIDs(1, &platform, NULL) == CL_SUCCESS);
  CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) == CL_SUCCESS);

  /* Find cltap, make a tracer, and enable it. */
  if (cltap_tracer_api_load(&cltap) != 0) {
    fprintf(stderr, "cltap is not loaded: run this program under `cltap run`\n");
    return 1;
  }
  my_data_t data = {0};
  cltap_tracer_t tracer;
  CHECK(cltap.create(&data, &tracer) == CLTAP_SUCCESS);
  CHECK(cltap.set_callback(tracer, CLTAP_API_OPENCL_clEnqueueNDRangeKernel, launch_begins, launch_ends) ==
        CLTAP_SUCCESS);
  CHECK(cltap.enable(tracer) == CLTAP_SUCCESS);

  /* The application's work, unchanged. */
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  CHECK(err == CL_SUCCESS);
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, NULL, &err);
  CHECK(err == CL_SUCCESS);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &SOURCE, NULL, &err);
  CHECK(err == CL_SUCCESS);
  CHECK(clBuildProgram(prog, 1, &device, NULL, NULL, NULL) == CL_SUCCESS);
  cl_kernel k = clCreateKernel(prog, "add", &err);
  CHECK(err == CL_SUCCESS);
  cl_mem bufs[3];
  cl_int* host[3] = {a, b, c};
  for (int i = 0; i < 3; i++) {
    bufs[i] = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof a, host[i], &err);
    CHECK(err == CL_SUCCESS);
    CHECK(clSetKernelArg(k, (cl_uint)i, sizeof(cl_mem), &bufs[i]) == CL_SUCCESS);
  }
  size_t global = N;
  for (int launch = 0; launch < 2; launch++)
    CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL) == CL_SUCCESS);
  CHECK(clEnqueueReadBuffer(q, bufs[2], CL_TRUE, 0, sizeof c, c, 0, NULL, NULL) == CL_SUCCESS);

  /* Done tracing: disable, then destroy (which waits for callbacks still running). */
  CHECK(cltap.disable(tracer) == CLTAP_SUCCESS);
  CHECK(cltap.destroy(tracer) == CLTAP_SUCCESS);
  printf("traced %d launches; c[1000] = %d\n", data.launches, c[1000]);

  for (int i = 0; i < 3; i++) clReleaseMemObject(bufs[i]);
  clReleaseKernel(k);
  clReleaseProgram(prog);
  clReleaseCommandQueue(q);
  clReleaseContext(ctx);
  return 0;
}
