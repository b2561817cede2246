/* A library the application links, whose finaliser makes LATE_LIB_CALLS
 * calls after every exit handler (numbered by the size they ask for). */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdlib.h>

__attribute__((destructor)) static void late_calls(void) {
    const char *n = getenv("LATE_LIB_CALLS");
    cl_platform_id p;
    size_t sz;
    if (!n || clGetPlatformIDs(1, &p, NULL) != CL_SUCCESS) return;
    for (long i = 1; i <= atol(n); i++) clGetPlatformInfo(p, CL_PLATFORM_NAME, (size_t)i, NULL, &sz);
}

/* Called by the application: its first OpenCL call, so that the loader
 * (and cltap with it) is set up while the process runs. */
int late_lib_linked(void) {
    cl_platform_id p;
    return clGetPlatformIDs(1, &p, NULL) == CL_SUCCESS ? 0 : 3;
}
