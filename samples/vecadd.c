/*
 * vecadd.c - the cltap sample application.
 *
 * A classic OpenCL program: add two vectors of floats on the first device of
 * the first platform, then sum the result with a work-group reduction, and
 * check both against the host.
 *
 *   build: gcc -std=c11 -O1 -Wall vecadd.c -o vecadd -lOpenCL
 *   run:   ./vecadd [N]        (N elements, default 1048576)
 *
 * Exit status: 0 when the results are right, 1 otherwise.
 */
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS /* clCreateCommandQueue, for 1.2 platforms */
#include <CL/cl.h>

#include <stdio.h>
#include <stdlib.h>

/* cltap's perf markers, when cltap is there: they name the phases in its
 * .atp trace and timeline. Without cltap the look-up gives NULL and the
 * markers are skipped, so the program runs unchanged either way. */
typedef cl_int (*begin_marker_fn)(const char *name, const char *group);
typedef cl_int (*end_marker_fn)(void);
static begin_marker_fn begin_marker;
static end_marker_fn end_marker;
#define MARK_BEGIN(name, group) (begin_marker ? (void)begin_marker(name, group) : (void)0)
#define MARK_END() (end_marker ? (void)end_marker() : (void)0)

/* c = a + b, and a per-work-group partial sum of c. */
static const char *kernel_source =
    "__kernel void vecadd(__global const float *a, __global const float *b,\n"
    "                     __global float *c, uint n) {\n"
    "    size_t i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        c[i] = a[i] + b[i];\n"
    "}\n"
    "\n"
    "__kernel void partial_sums(__global const float *c, __global float *sums,\n"
    "                           __local float *scratch, uint n) {\n"
    "    size_t i = get_global_id(0), lid = get_local_id(0);\n"
    "    scratch[lid] = (i < n) ? c[i] : 0.0f;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {\n"
    "        if (lid < s)\n"
    "            scratch[lid] += scratch[lid + s];\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    if (lid == 0)\n"
    "        sums[get_group_id(0)] = scratch[0];\n"
    "}\n";

#define WG 64 /* work-group size used by both kernels */

/* Bails out with a message when an OpenCL call fails. */
#define CL_OK(call)                                                          \
    do {                                                                     \
        cl_int err_ = (call);                                                \
        if (err_ != CL_SUCCESS) {                                            \
            fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__,    \
                    #call, err_);                                            \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

int main(int argc, char **argv)
{
    cl_uint n = argc > 1 ? (cl_uint)strtoul(argv[1], NULL, 0) : 1u << 20;
    if (n == 0) {
        fprintf(stderr, "usage: %s [elements > 0]\n", argv[0]);
        return 1;
    }
    size_t bytes = (size_t)n * sizeof(float);
    size_t global = (n + WG - 1) / WG * WG; /* rounded up to whole groups */
    size_t groups = global / WG, local = WG;

    /* 1. Platform, device, context, queue. */
    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    CL_OK(clGetPlatformIDs(1, &platform, NULL));
    CL_OK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
    char pname[256] = "", dname[256] = "";
    CL_OK(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof pname, pname, NULL));
    CL_OK(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof dname, dname, NULL));
    begin_marker = (begin_marker_fn)clGetExtensionFunctionAddressForPlatform(platform, "clBeginPerfMarkerCLTAP");
    end_marker = (end_marker_fn)clGetExtensionFunctionAddressForPlatform(platform, "clEndPerfMarkerCLTAP");
    if (!begin_marker || !end_marker)
        begin_marker = NULL, end_marker = NULL;
    printf("platform: %s\n", pname);
    printf("device: %s\n", dname);

    MARK_BEGIN("setup", "vecadd");
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CL_OK(err);
    cl_command_queue queue = clCreateCommandQueue(ctx, device, 0, &err);
    CL_OK(err);

    /* 2. Program and kernels. */
    cl_program prog = clCreateProgramWithSource(ctx, 1, &kernel_source, NULL, &err);
    CL_OK(err);
    err = clBuildProgram(prog, 1, &device, NULL, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(prog, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "build failed:\n%s\n", log);
        return 1;
    }
    cl_kernel add = clCreateKernel(prog, "vecadd", &err);
    CL_OK(err);
    cl_kernel reduce = clCreateKernel(prog, "partial_sums", &err);
    CL_OK(err);

    /* 3. Host data: small integers in float, so every sum is exact. */
    float *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    float *sums = malloc(groups * sizeof(float));
    if (!a || !b || !c || !sums) {
        fprintf(stderr, "out of host memory\n");
        return 1;
    }
    for (cl_uint i = 0; i < n; ++i) {
        a[i] = (float)(i % 100);
        b[i] = (float)(i % 7);
    }

    /* 4. Device buffers: inputs copied at creation, outputs uninitialised. */
    cl_mem da = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, a, &err);
    CL_OK(err);
    cl_mem db = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, b, &err);
    CL_OK(err);
    cl_mem dc = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    CL_OK(err);
    cl_mem dsums = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, groups * sizeof(float), NULL, &err);
    CL_OK(err);

    MARK_END(); /* setup */

    /* 5. c = a + b, then the partial sums; the in-order queue orders them. */
    MARK_BEGIN("compute", "vecadd");
    MARK_BEGIN("add", "kernels");
    CL_OK(clSetKernelArg(add, 0, sizeof da, &da));
    CL_OK(clSetKernelArg(add, 1, sizeof db, &db));
    CL_OK(clSetKernelArg(add, 2, sizeof dc, &dc));
    CL_OK(clSetKernelArg(add, 3, sizeof n, &n));
    CL_OK(clEnqueueNDRangeKernel(queue, add, 1, NULL, &global, &local, 0, NULL, NULL));
    MARK_END(); /* add */
    MARK_BEGIN("reduce", "kernels");

    CL_OK(clSetKernelArg(reduce, 0, sizeof dc, &dc));
    CL_OK(clSetKernelArg(reduce, 1, sizeof dsums, &dsums));
    CL_OK(clSetKernelArg(reduce, 2, WG * sizeof(float), NULL)); /* __local */
    CL_OK(clSetKernelArg(reduce, 3, sizeof n, &n));
    CL_OK(clEnqueueNDRangeKernel(queue, reduce, 1, NULL, &global, &local, 0, NULL, NULL));
    MARK_END(); /* reduce */

    /* 6. Read back (blocking) and check against the host. */
    CL_OK(clEnqueueReadBuffer(queue, dc, CL_TRUE, 0, bytes, c, 0, NULL, NULL));
    CL_OK(clEnqueueReadBuffer(queue, dsums, CL_TRUE, 0, groups * sizeof(float), sums, 0, NULL, NULL));
    MARK_END(); /* compute */

    int ok = 1;
    double expected_total = 0.0, total = 0.0;
    for (cl_uint i = 0; i < n; ++i) {
        float want = a[i] + b[i];
        if (c[i] != want) {
            if (ok)
                fprintf(stderr, "mismatch at %u: %g != %g\n", i, c[i], want);
            ok = 0;
        }
        expected_total += want;
    }
    for (size_t g = 0; g < groups; ++g)
        total += sums[g];
    /* Each partial sum (at most 64 * 105) is exact in float; so is the total. */
    if (total - expected_total > 0.5 || expected_total - total > 0.5) {
        fprintf(stderr, "reduction: %.1f != %.1f\n", total, expected_total);
        ok = 0;
    }

    if (ok)
        printf("vecadd: %u elements OK\n", n);
    else
        printf("vecadd: %u elements FAILED\n", n);

    /* 7. Clean up. */
    clReleaseMemObject(da);
    clReleaseMemObject(db);
    clReleaseMemObject(dc);
    clReleaseMemObject(dsums);
    clReleaseKernel(add);
    clReleaseKernel(reduce);
    clReleaseProgram(prog);
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    free(a);
    free(b);
    free(c);
    free(sums);
    return ok ? 0 : 1;
}
