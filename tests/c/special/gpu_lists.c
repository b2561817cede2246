/* Device timing's lists on a GPU queue: `gpu_lists FIRST REST`. Round 1:
 * FIRST kernels without events, then clFinish (FIRST past a GPU list's mark
 * has the enqueue at the mark read the list, between the application's
 * enqueues); at once round 2: REST kernels each asked for an event
 * (released at once), then clWaitForEvents on the last; round 3: REST
 * kernels, clFinish, the buffer read back (blocking) and everything
 * released straight after. Each kernel adds one to every element; the
 * buffer is read back after rounds 2 and 3, so the program prints what the
 * GPU computed: "round R: every element K", then "released". */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(x)                                                             \
    do {                                                                     \
        cl_int e_ = (x);                                                     \
        if (e_ != CL_SUCCESS) {                                              \
            fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, e_); \
            return 3;                                                        \
        }                                                                    \
    } while (0)

enum { ITEMS = 64 };

static int check_round(cl_command_queue q, cl_mem buf, int round, int want) {
    cl_int got[ITEMS];
    CHECK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
    for (int i = 0; i < ITEMS; ++i) {
        if (got[i] != want) {
            printf("round %d: element %d is %d, not %d\n", round, i, got[i], want);
            return 4;
        }
    }
    printf("round %d: every element %d\n", round, want);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    int first = atoi(argv[1]), n = atoi(argv[2]);
    cl_platform_id plat;
    cl_device_id dev;
    cl_int err;
    CHECK(clGetPlatformIDs(1, &plat, NULL));
    CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_GPU, 1, &dev, NULL));
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    CHECK(err);
    const char *src = "__kernel void add_one(__global int *a) { a[get_global_id(0)] += 1; }\n";
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(prog, 1, &dev, "", NULL, NULL));
    cl_kernel k = clCreateKernel(prog, "add_one", &err);
    CHECK(err);
    cl_int zero[ITEMS] = {0};
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, zero, &err);
    CHECK(err);
    CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
    size_t g = ITEMS;
    for (int i = 0; i < first; ++i) CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL));
    CHECK(clFinish(q));
    cl_event last = NULL;
    for (int i = 0; i < n; ++i) {
        cl_event e;
        CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, &e));
        if (last) CHECK(clReleaseEvent(last));
        last = e;
    }
    CHECK(clWaitForEvents(1, &last));
    CHECK(clReleaseEvent(last));
    int r = check_round(q, buf, 2, first + n);
    if (r) return r;
    for (int i = 0; i < n; ++i) CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL));
    CHECK(clFinish(q));
    r = check_round(q, buf, 3, first + 2 * n);
    if (r) return r;
    CHECK(clReleaseMemObject(buf));
    CHECK(clReleaseKernel(k));
    CHECK(clReleaseProgram(prog));
    CHECK(clReleaseCommandQueue(q));
    CHECK(clReleaseContext(ctx));
    printf("released\n");
    return 0;
}
