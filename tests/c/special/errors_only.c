/* A known set of failing calls among many that succeed, for
 * CLTAP_ERRORS_ONLY (tests/errors_only.rs). Every call's outcome is printed
 * (no handles, no addresses), so that the output with cltap can be compared
 * with the output without it. The failing calls, in order:
 *   clGetDeviceInfo(param_name 0x7fff)                -> CL_INVALID_VALUE
 *   clCreateBuffer(size 0, errcode_ret NULL)           -> NULL handle (CL_INVALID_BUFFER_SIZE)
 *   clCreateBuffer(size 0, &err)                       -> CL_INVALID_BUFFER_SIZE
 *   clCreateKernel("no_such_kernel", errcode_ret NULL) -> NULL handle (CL_INVALID_KERNEL_NAME)
 *   clSetKernelArg(arg_index 99)                       -> CL_INVALID_ARG_INDEX
 *   clEnqueueReadBuffer(offset past the end)           -> CL_INVALID_VALUE
 * Usage: errors_only N   (N rounds of succeeding calls between the failures) */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

#define SAY(name, v) printf("%s %d\n", name, (int)(v))

static const char *src = "__kernel void k(__global int *a, int b) { a[get_global_id(0)] = b; }\n";

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 100;
    cl_platform_id plat;
    cl_device_id dev;
    cl_int err = 0;
    SAY("clGetPlatformIDs", clGetPlatformIDs(1, &plat, NULL));
    SAY("clGetDeviceIDs", clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    SAY("clCreateContext", err);
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    SAY("clCreateCommandQueueWithProperties", err);
    char name[256];
    int ok = 0;
    for (int i = 0; i < rounds; i++)
        ok += clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL) == CL_SUCCESS;
    SAY("clGetDeviceInfo ok", ok);
    SAY("clGetDeviceInfo(0x7fff)", clGetDeviceInfo(dev, 0x7fff, sizeof name, name, NULL));

    cl_mem none = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 0, NULL, NULL);
    SAY("clCreateBuffer(0, NULL) is NULL", none == NULL);
    err = 0;
    none = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 0, NULL, &err);
    SAY("clCreateBuffer(0, &err)", err);
    SAY("clCreateBuffer(0, &err) is NULL", none == NULL);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64 * sizeof(int), NULL, &err);
    SAY("clCreateBuffer(256)", err);

    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    SAY("clCreateProgramWithSource", err);
    SAY("clBuildProgram", clBuildProgram(prog, 1, &dev, "", NULL, NULL));
    cl_kernel nok = clCreateKernel(prog, "no_such_kernel", NULL);
    SAY("clCreateKernel(no_such_kernel) is NULL", nok == NULL);
    cl_kernel k = clCreateKernel(prog, "k", &err);
    SAY("clCreateKernel(k)", err);
    SAY("clSetKernelArg(0)", clSetKernelArg(k, 0, sizeof buf, &buf));
    int seven = 7;
    SAY("clSetKernelArg(99)", clSetKernelArg(k, 99, sizeof seven, &seven));
    SAY("clSetKernelArg(1)", clSetKernelArg(k, 1, sizeof seven, &seven));
    size_t global = 64;
    ok = 0;
    for (int i = 0; i < rounds; i++)
        ok += clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL) == CL_SUCCESS;
    SAY("clEnqueueNDRangeKernel ok", ok);
    int out[64];
    SAY("clEnqueueReadBuffer(past the end)",
        clEnqueueReadBuffer(q, buf, CL_TRUE, 4096, sizeof out, out, 0, NULL, NULL));
    SAY("clEnqueueReadBuffer", clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    int sum = 0;
    for (int i = 0; i < 64; i++)
        sum += out[i];
    SAY("sum", sum);
    SAY("clFinish", clFinish(q));
    SAY("clReleaseKernel", clReleaseKernel(k));
    SAY("clReleaseProgram", clReleaseProgram(prog));
    SAY("clReleaseMemObject", clReleaseMemObject(buf));
    SAY("clReleaseCommandQueue", clReleaseCommandQueue(q));
    SAY("clReleaseContext", clReleaseContext(ctx));
    return 0;
}
