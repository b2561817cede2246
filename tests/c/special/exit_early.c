/* An OpenCL program that exits right after its last command: it fills one
 * buffer EXIT_EARLY_FILLS (default 4) times (on AMD's runtime each fill is
 * a dispatch of ROCclr's fill kernel on the application's queue), flushes
 * the queue, and returns from main without waiting, so the dispatches are
 * still in flight while the process ends. Run by tests/tool_exit.rs on
 * AMD's OpenCL runtime with a rocprofiler v1 tool under cltap. Prints one
 * line and exits with status 7. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

#define OK(call)                                                  \
  do {                                                            \
    cl_int e_ = (call);                                           \
    if (e_ != CL_SUCCESS) {                                       \
      printf("exit_early: %s returned %d\n", #call, (int)e_);     \
      return 1;                                                   \
    }                                                             \
  } while (0)

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  const char* n_env = getenv("EXIT_EARLY_FILLS");
  const unsigned n = n_env ? (unsigned)atoi(n_env) : 4;
  cl_platform_id platform;
  cl_device_id device;
  cl_int err;
  OK(clGetPlatformIDs(1, &platform, NULL));
  OK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &device, NULL));
  cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  OK(err);
  cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
  OK(err);
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
  OK(err);
  cl_event last = NULL;
  for (unsigned i = 0; i < n; i++) {
    cl_uint pattern = i;
    OK(clEnqueueFillBuffer(q, buf, &pattern, sizeof pattern, 0, 4096, 0, NULL, i + 1 == n ? &last : NULL));
  }
  OK(clFlush(q));
  /* Until the runtime's own thread has handed the last fill to the device
   * (submitted, not finished): without it the process could end before any
   * dispatch reached the GPU. */
  cl_int status = CL_QUEUED;
  while (status == CL_QUEUED)
    OK(clGetEventInfo(last, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
  printf("exit_early: %u fills\n", n);
  /* No clFinish, no release: the process ends with the fills in flight. */
  return 7;
}
