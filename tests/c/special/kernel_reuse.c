/* Kernels of different names made and released in turn:
 * `kernel_reuse MAX WANT`. Iteration i makes kernel NAMES[i % 3] from one
 * program, launches it once with a global size of 64 * (i % 3 + 1) (so
 * that each command's size says which kernel it launched), finishes, and
 * releases the kernel. A new kernel often lands at the address of one
 * released before, but not always: where a driver's own thread drops the
 * kernel's last reference (PoCL's pthread device), the memory stays in
 * that thread's allocator cache (run it on PoCL's basic device). And it
 * goes on until WANT iterations made
 * a kernel at an earlier kernel's address, or MAX iterations. Prints
 * "iterations I reused R": R the iterations whose kernel handle was that
 * of an earlier kernel of another name. */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static const char *src =
    "__kernel void alpha(__global int *a) { a[get_global_id(0)] += 1; }\n"
    "__kernel void beta(__global int *a) { a[get_global_id(0)] += 2; }\n"
    "__kernel void gamma_k(__global int *a) { a[get_global_id(0)] += 3; }\n";
static const char *names[3] = {"alpha", "beta", "gamma_k"};

#define CHECK(x)                                                             \
    do {                                                                     \
        cl_int e_ = (x);                                                     \
        if (e_ != CL_SUCCESS) {                                              \
            fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, e_); \
            return 3;                                                        \
        }                                                                    \
    } while (0)

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    int n = atoi(argv[1]), want = atoi(argv[2]);
    cl_platform_id plat;
    cl_device_id dev;
    cl_int err;
    CHECK(clGetPlatformIDs(1, &plat, NULL));
    CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    CHECK(err);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(prog, 1, &dev, "", NULL, NULL));
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 192 * sizeof(int), NULL, &err);
    CHECK(err);
    cl_kernel *seen = calloc((size_t)n, sizeof *seen);
    int reused = 0, i = 0;
    for (; i < n && reused < want; i++) {
        cl_kernel k = clCreateKernel(prog, names[i % 3], &err);
        CHECK(err);
        for (int j = 0; j < i; j++) {
            if (seen[j] == k && j % 3 != i % 3) {
                reused++;
                break;
            }
        }
        seen[i] = k;
        CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
        size_t g = 64 * (size_t)(i % 3 + 1);
        CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL));
        CHECK(clFinish(q));
        CHECK(clReleaseKernel(k));
    }
    printf("iterations %d reused %d\n", i, reused);
    CHECK(clReleaseMemObject(buf));
    CHECK(clReleaseProgram(prog));
    CHECK(clReleaseCommandQueue(q));
    CHECK(clReleaseContext(ctx));
    return 0;
}
