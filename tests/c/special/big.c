/* Large device work for the GPU verification run (docs/measurements/h200.md): a 4 GiB
 * clEnqueueCopyBuffer and a vector add of 2^28 floats, each checked. cltap's
 * device timing records how long the device took. */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(x) do { cl_int e_ = (x); if (e_) { printf("FAIL %s: %d\n", #x, e_); return 1; } } while (0)

static const char *src =
    "__kernel void add(__global const float* a, __global const float* b, __global float* c) {\n"
    "  size_t i = get_global_id(0); c[i] = a[i] + b[i]; }\n";

int main(void) {
    cl_platform_id p;
    cl_device_id d;
    cl_int err;
    CHECK(clGetPlatformIDs(1, &p, NULL));
    CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL));
    cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, d, 0, &err);
    CHECK(err);

    /* 4 GiB copy, device to device. */
    size_t big = (size_t)4 << 30;
    cl_mem src_b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, big, NULL, &err);
    CHECK(err);
    cl_mem dst_b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, big, NULL, &err);
    CHECK(err);
    unsigned pattern = 0xC1A0C1A0u;
    CHECK(clEnqueueFillBuffer(q, src_b, &pattern, sizeof pattern, 0, big, 0, NULL, NULL));
    CHECK(clFinish(q));
    CHECK(clEnqueueCopyBuffer(q, src_b, dst_b, 0, 0, big, 0, NULL, NULL));
    CHECK(clFinish(q));
    unsigned probe[4];
    CHECK(clEnqueueReadBuffer(q, dst_b, CL_TRUE, big - sizeof probe, sizeof probe, probe, 0, NULL, NULL));
    printf("copy 4 GiB: %s\n", probe[3] == pattern ? "OK" : "WRONG");
    clReleaseMemObject(src_b);
    clReleaseMemObject(dst_b);

    /* Vector add of 2^28 floats. */
    size_t n = (size_t)1 << 28;
    float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float)), *c = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) {
        a[i] = (float)(i & 1023);
        b[i] = 2.0f;
    }
    cl_mem A = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, a, &err);
    CHECK(err);
    cl_mem B = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, b, &err);
    CHECK(err);
    cl_mem C = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, n * 4, NULL, &err);
    CHECK(err);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CHECK(clBuildProgram(prog, 1, &d, "", NULL, NULL));
    cl_kernel k = clCreateKernel(prog, "add", &err);
    CHECK(err);
    CHECK(clSetKernelArg(k, 0, sizeof A, &A));
    CHECK(clSetKernelArg(k, 1, sizeof B, &B));
    CHECK(clSetKernelArg(k, 2, sizeof C, &C));
    size_t g = n, l = 256;
    for (int rep = 0; rep < 3; rep++) CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(q, C, CL_TRUE, 0, n * 4, c, 0, NULL, NULL));
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += c[i] != (float)(i & 1023) + 2.0f;
    printf("vector add 2^28: %s\n", bad ? "WRONG" : "OK");
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseMemObject(A);
    clReleaseMemObject(B);
    clReleaseMemObject(C);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(a); free(b); free(c);
    return bad ? 1 : 0;
}
