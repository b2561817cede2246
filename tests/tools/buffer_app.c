/* An OpenCL program for tests/buffers.rs that flushes a tool's buffer in
 * the middle of its run:
 *   buffer_app TOOL N   N clGetPlatformInfo calls (param_value_size 1..N,
 *                       param_value NULL), then the tool's
 *                       buffer_tool_flush(), then N more (N+1..2N).
 * It prints "flushed RECEIVED" (the records the tool had once the flush
 * returned) and exits 0. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    long n = atol(argv[2]);
    cl_platform_id plat;
    if (clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS) return 3;
    size_t sz;
    for (long i = 1; i <= n; i++) clGetPlatformInfo(plat, CL_PLATFORM_NAME, (size_t)i, NULL, &sz);
    /* cltap loaded the tool already: this only finds it. */
    void *tool = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD);
    long (*flush)(void) = tool ? (long (*)(void))dlsym(tool, "buffer_tool_flush") : NULL;
    if (!flush) {
        printf("no tool\n");
        return 4;
    }
    printf("flushed %ld\n", flush());
    for (long i = n + 1; i <= 2 * n; i++) clGetPlatformInfo(plat, CL_PLATFORM_NAME, (size_t)i, NULL, &sz);
    return 0;
}
