/* The collection window's and the kernel filter's test program.
 *   window calls N OPS...  N clGetPlatformInfo(CL_PLATFORM_NAME) calls whose
 *                          size argument numbers them 1..N; an op pK calls
 *                          cltap_pause before call K, rK cltap_resume (through
 *                          include/cltap.h's dlopen helper, without linking
 *                          cltap); prints "pause K 0" when cltap took it
 *   window kernels N       N rounds of NDRanges of kernels add, mul and copy
 *                          (each waited for), printing each one's kernel
 *   window slow N US       N numbered calls, each followed by US microseconds
 *                          of busy waiting (a run long enough for a schedule)
 *   window turns W N       W windows, each cltap_resume, then two threads in
 *                          turn (the second starts once the first has ended)
 *                          making N numbered calls each, then cltap_pause
 *   window toggle N M      a thread makes N numbered calls while the main
 *                          thread calls cltap_pause and cltap_resume M times
 * Built by tests/window.rs with -I include. */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#define CLTAP_NO_HSA
#include "cltap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>

static cl_platform_id plat;

static int calls(int n, int nops, char **ops) {
    for (int i = 1; i <= n; i++) {
        for (int o = 0; o < nops; o++) {
            if (atoi(ops[o] + 1) == i) {
                int pause = ops[o][0] == 'p';
                printf("%s %d %d\n", pause ? "pause" : "resume", i, cltap_window_pause(pause));
            }
        }
        size_t sz;
        /* param_value is NULL, so the size is unused: it numbers the call. */
        clGetPlatformInfo(plat, CL_PLATFORM_NAME, (size_t)i, NULL, &sz);
    }
    return 0;
}

/* Numbered calls from..from+n-1 (the size argument), on the calling thread. */
struct span { int from, n; };

static void *numbered(void *arg) {
    struct span *s = arg;
    for (int i = 0; i < s->n; i++) {
        size_t sz;
        clGetPlatformInfo(plat, CL_PLATFORM_NAME, (size_t)(s->from + i), NULL, &sz);
    }
    return NULL;
}

static int on_thread(struct span s) {
    pthread_t t;
    if (pthread_create(&t, NULL, numbered, &s)) return 5;
    return pthread_join(t, NULL) ? 5 : 0;
}

static int slow(int n, int us) {
    for (int i = 1; i <= n; i++) {
        size_t sz;
        clGetPlatformInfo(plat, CL_PLATFORM_NAME, (size_t)i, NULL, &sz);
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        do clock_gettime(CLOCK_MONOTONIC, &b);
        while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < us * 1000L);
    }
    return 0;
}

static int turns(int windows, int n) {
    for (int w = 0; w < windows; w++) {
        cltap_window_pause(0);
        for (int k = 0; k < 2; k++) {
            if (on_thread((struct span){1 + (2 * w + k) * n, n})) return 5;
        }
        cltap_window_pause(1);
    }
    return 0;
}

static int toggle(int n, int m) {
    struct span s = {1, n};
    pthread_t t;
    if (pthread_create(&t, NULL, numbered, &s)) return 5;
    for (int i = 0; i < m; i++) {
        cltap_window_pause(1);
        cltap_window_pause(0);
    }
    return pthread_join(t, NULL) ? 5 : 0;
}

static const char *SRC =
    "__kernel void add(__global int* a) { a[get_global_id(0)] += 1; }\n"
    "__kernel void mul(__global int* a) { a[get_global_id(0)] *= 3; }\n"
    "__kernel void copy(__global int* a) { a[get_global_id(0)] = a[get_global_id(0)]; }\n";

static int kernels(int rounds) {
    cl_device_id dev;
    cl_int err = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
    if (err) return 2;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    cl_program p = clCreateProgramWithSource(ctx, 1, &SRC, NULL, &err);
    if (clBuildProgram(p, 1, &dev, "", NULL, NULL)) return 3;
    const char *names[] = {"add", "mul", "copy"};
    cl_kernel k[3];
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64 * sizeof(int), NULL, &err);
    for (int i = 0; i < 3; i++) {
        k[i] = clCreateKernel(p, names[i], &err);
        clSetKernelArg(k[i], 0, sizeof buf, &buf);
    }
    size_t g = 64;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < 3; i++) {
            if (clEnqueueNDRangeKernel(q, k[i], 1, NULL, &g, NULL, 0, NULL, NULL)) return 4;
            clFinish(q);
            printf("%s\n", names[i]);
        }
    }
    for (int i = 0; i < 3; i++) clReleaseKernel(k[i]);
    clReleaseMemObject(buf);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}

int main(int argc, char **argv) {
    if (clGetPlatformIDs(1, &plat, NULL)) return 1;
    if (argc >= 3 && !strcmp(argv[1], "calls")) return calls(atoi(argv[2]), argc - 3, argv + 3);
    if (argc >= 3 && !strcmp(argv[1], "kernels")) return kernels(atoi(argv[2]));
    if (argc >= 4 && !strcmp(argv[1], "slow")) return slow(atoi(argv[2]), atoi(argv[3]));
    if (argc >= 4 && !strcmp(argv[1], "turns")) return turns(atoi(argv[2]), atoi(argv[3]));
    if (argc >= 4 && !strcmp(argv[1], "toggle")) return toggle(atoi(argv[2]), atoi(argv[3]));
    fprintf(stderr, "usage: window calls N OPS... | window kernels N | window slow N US | window turns W N | window toggle N M\n");
    return 1;
}
