/* A job of several processes, as an MPI launcher makes them: `workers N`
 * forks N workers and waits for them; the parent makes no OpenCL call.
 * Worker i (0-based) opens the first device, writes and reads back a
 * buffer of 4096 bytes, and makes i + 1 clGetPlatformInfo calls besides,
 * so that each worker's totals differ. Prints "worker I PID" per worker
 * and exits 0 when every worker did. */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int work(int i) {
    cl_platform_id plat;
    cl_device_id dev;
    cl_int err;
    size_t sz;
    if (clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS) return 1;
    for (int k = 0; k <= i; k++) clGetPlatformInfo(plat, CL_PLATFORM_NAME, 0, NULL, &sz);
    if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS) return 1;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (err != CL_SUCCESS) return 1;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    if (err != CL_SUCCESS) return 1;
    char in[4096], out[4096];
    memset(in, i + 1, sizeof in);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof in, NULL, &err);
    if (err != CL_SUCCESS) return 1;
    err = clEnqueueWriteBuffer(q, b, CL_TRUE, 0, sizeof in, in, 0, NULL, NULL);
    err |= clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
    err |= clFinish(q);
    clReleaseMemObject(b);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return err != CL_SUCCESS || memcmp(in, out, sizeof in) != 0;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 4;
    pid_t pids[64];
    if (n < 1 || n > 64) return 2;
    for (int i = 0; i < n; i++) {
        pids[i] = fork();
        if (pids[i] < 0) return 1;
        if (pids[i] == 0) exit(work(i));
    }
    int ok = 1;
    for (int i = 0; i < n; i++) {
        int st;
        waitpid(pids[i], &st, 0);
        ok &= WIFEXITED(st) && WEXITSTATUS(st) == 0;
        printf("worker %d %d\n", i, (int)pids[i]);
    }
    return ok ? 0 : 1;
}
