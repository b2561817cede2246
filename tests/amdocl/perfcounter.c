/* AMD's perf-counter extension (cl_amd_perfcounter, amdocl/cl_profile_amd.h of
 * ROCm-OpenCL-Runtime rocm-5.2.3) used on AMD's OpenCL runtime over the emulated gfx906, by
 * tests/amd_perfcounter.rs. Links -lOpenCL only; the runtime is picked by OCL_ICD_VENDORS.
 *
 * It finds the seven functions with clGetExtensionFunctionAddressForPlatform, makes two counters
 * (ROCclr's gfx9 block table, device/rocm/roccounters.cpp: block 14 is SQ, block 9 GRBM; events 4
 * SQ_WAVES and 0 GRBM_COUNT as in metrics/gfx9.xml), retains and releases one, begins them,
 * runs one NDRange of GLOBAL work-items in groups of LOCAL, ends them, and prints what
 * clGetPerfCounterInfoAMD answers. It also asks clSetDeviceClockModeAMD for the current clocks and
 * prints its status (the emulator has no clocks to set; the line shows only that the call arrives).
 *
 * Output: deterministic lines only (no addresses, no times); exit 0, or 1 with a FAIL line. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cl_check.h"

/* The extension's types and prototypes, as cl_profile_amd.h declares them. */
typedef struct _cl_perfcounter_amd* cl_perfcounter_amd;
typedef cl_ulong cl_perfcounter_property;
typedef cl_uint cl_perfcounter_info;
enum {
  CL_PERFCOUNTER_NONE = 0x0,
  CL_PERFCOUNTER_REFERENCE_COUNT = 0x1,
  CL_PERFCOUNTER_DATA = 0x2,
  CL_PERFCOUNTER_GPU_BLOCK_INDEX = 0x3,
  CL_PERFCOUNTER_GPU_COUNTER_INDEX = 0x4,
  CL_PERFCOUNTER_GPU_EVENT_INDEX = 0x5,
};
typedef struct {
  cl_uint clock_mode; /* cl_DeviceClockMode_AMD; 1 is CL_DEVICE_CLOCK_MODE_QUERY_AMD */
} cl_set_device_clock_mode_input_amd;
typedef struct {
  cl_float memory_clock_ratio_to_peak;
  cl_float engine_clock_ratio_to_peak;
} cl_set_device_clock_mode_output_amd;

typedef cl_perfcounter_amd(CL_API_CALL* create_fn)(cl_device_id, cl_perfcounter_property*, cl_int*);
typedef cl_int(CL_API_CALL* one_fn)(cl_perfcounter_amd);
typedef cl_int(CL_API_CALL* enqueue_fn)(cl_command_queue, cl_uint, cl_perfcounter_amd*, cl_uint,
                                        const cl_event*, cl_event*);
typedef cl_int(CL_API_CALL* info_fn)(cl_perfcounter_amd, cl_perfcounter_info, size_t, void*, size_t*);
typedef cl_int(CL_API_CALL* clock_fn)(cl_device_id, cl_set_device_clock_mode_input_amd,
                                      cl_set_device_clock_mode_output_amd*);

#define GLOBAL 4096
#define LOCAL 64

static const char* SRC =
    "__kernel void scale(__global float* x, float k) { size_t i = get_global_id(0); x[i] = x[i] * k; }\n";

static void* find(cl_platform_id p, const char* name) {
  void* f = clGetExtensionFunctionAddressForPlatform(p, name);
  printf("%s: %s\n", name, f ? "found" : "NULL");
  CHECK(f != NULL);
  return f;
}

static cl_ulong info(info_fn get, cl_perfcounter_amd c, cl_perfcounter_info what) {
  cl_ulong v = 0;
  size_t size = 0;
  OK(get(c, what, sizeof v, &v, &size));
  CHECK(size == sizeof(cl_uint) || size == sizeof v); /* the reference count is a cl_uint */
  return v;
}

int main(void) {
  cl_platform_id platforms[8];
  cl_uint np = 0;
  OK(clGetPlatformIDs(8, platforms, &np));
  cl_platform_id platform = NULL;
  for (cl_uint i = 0; i < np && i < 8; i++) {
    char name[256] = {0};
    OK(clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL));
    if (strstr(name, "AMD")) platform = platforms[i];
  }
  CHECK(platform != NULL);
  cl_device_id dev;
  OK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &dev, NULL));

  create_fn create = (create_fn)find(platform, "clCreatePerfCounterAMD");
  enqueue_fn begin = (enqueue_fn)find(platform, "clEnqueueBeginPerfCounterAMD");
  enqueue_fn end = (enqueue_fn)find(platform, "clEnqueueEndPerfCounterAMD");
  info_fn get = (info_fn)find(platform, "clGetPerfCounterInfoAMD");
  one_fn release = (one_fn)find(platform, "clReleasePerfCounterAMD");
  one_fn retain = (one_fn)find(platform, "clRetainPerfCounterAMD");
  clock_fn clock = (clock_fn)find(platform, "clSetDeviceClockModeAMD");

  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  OK(err);
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
  OK(err);
  cl_program prog = clCreateProgramWithSource(ctx, 1, &SRC, NULL, &err);
  OK(err);
  OK(clBuildProgram(prog, 1, &dev, "", NULL, NULL));
  cl_kernel k = clCreateKernel(prog, "scale", &err);
  OK(err);
  float host[GLOBAL];
  for (int i = 0; i < GLOBAL; i++) host[i] = (float)i;
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host, &err);
  OK(err);
  float two = 2.0f;
  OK(clSetKernelArg(k, 0, sizeof buf, &buf));
  OK(clSetKernelArg(k, 1, sizeof two, &two));
  OK(clFinish(q));

  cl_perfcounter_property waves_p[] = {CL_PERFCOUNTER_GPU_BLOCK_INDEX, 14, CL_PERFCOUNTER_GPU_COUNTER_INDEX, 0,
                                       CL_PERFCOUNTER_GPU_EVENT_INDEX, 4, CL_PERFCOUNTER_NONE};
  cl_perfcounter_property grbm_p[] = {CL_PERFCOUNTER_GPU_BLOCK_INDEX, 9, CL_PERFCOUNTER_GPU_COUNTER_INDEX, 0,
                                      CL_PERFCOUNTER_GPU_EVENT_INDEX, 0, CL_PERFCOUNTER_NONE};
  cl_perfcounter_amd counters[2];
  counters[0] = create(dev, waves_p, &err);
  OK(err);
  CHECK(counters[0] != NULL);
  counters[1] = create(dev, grbm_p, &err);
  OK(err);
  CHECK(counters[1] != NULL);
  OK(retain(counters[0]));
  OK(release(counters[0]));

  cl_event began, ran, ended;
  OK(begin(q, 2, counters, 0, NULL, &began));
  size_t global = GLOBAL, local = LOCAL;
  OK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 1, &began, &ran));
  OK(end(q, 2, counters, 1, &ran, &ended));
  OK(clWaitForEvents(1, &ended));
  OK(clFinish(q));

  const char* names[2] = {"SQ_WAVES", "GRBM_COUNT"};
  for (int i = 0; i < 2; i++) {
    printf("%s: block %llu counter %llu event %llu refcount %llu data %llu\n", names[i],
           (unsigned long long)info(get, counters[i], CL_PERFCOUNTER_GPU_BLOCK_INDEX),
           (unsigned long long)info(get, counters[i], CL_PERFCOUNTER_GPU_COUNTER_INDEX),
           (unsigned long long)info(get, counters[i], CL_PERFCOUNTER_GPU_EVENT_INDEX),
           (unsigned long long)(cl_uint)info(get, counters[i], CL_PERFCOUNTER_REFERENCE_COUNT),
           (unsigned long long)info(get, counters[i], CL_PERFCOUNTER_DATA));
  }
  printf("an unknown info name: %d\n", (int)get(counters[0], 0x77, 0, NULL, NULL));

  OK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL));
  for (int i = 0; i < GLOBAL; i++) CHECK(host[i] == 2.0f * (float)i);
  printf("kernel: %d elements OK\n", GLOBAL);

  cl_set_device_clock_mode_input_amd in = {1};
  cl_set_device_clock_mode_output_amd out = {0, 0};
  printf("clSetDeviceClockModeAMD(query): %d\n", (int)clock(dev, in, &out));

  OK(release(counters[0]));
  OK(release(counters[1]));
  OK(clReleaseEvent(began));
  OK(clReleaseEvent(ran));
  OK(clReleaseEvent(ended));
  OK(clReleaseMemObject(buf));
  OK(clReleaseKernel(k));
  OK(clReleaseProgram(prog));
  OK(clReleaseCommandQueue(q));
  OK(clReleaseContext(ctx));
  return 0;
}
