/* Info queries as applications make them: into a buffer larger than the
 * answer, with and without a size pointer. Each buffer is filled with 0xAB
 * first, so a capture of the whole buffer would show the fill. Prints what
 * the driver answered: `name SIZE STRING` and `units VALUE`. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    cl_platform_id p;
    cl_device_id d;
    if (clGetPlatformIDs(1, &p, NULL) != CL_SUCCESS || clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL) != CL_SUCCESS) {
        fprintf(stderr, "no device\n");
        return 1;
    }
    char name[256];
    size_t size = 0;
    memset(name, 0xAB, sizeof name);
    if (clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name, name, &size) != CL_SUCCESS) return 2;
    printf("name %zu %s\n", size, name);
    memset(name, 0xAB, sizeof name);
    if (clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name, name, NULL) != CL_SUCCESS) return 3;
    memset(name, 0xAB, sizeof name);
    if (clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, NULL) != CL_SUCCESS) return 4;
    printf("platform %s\n", name);
    /* A fixed-size answer into a larger buffer, no size pointer. */
    unsigned char units[64];
    memset(units, 0xAB, sizeof units);
    if (clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, units, NULL) != CL_SUCCESS) return 5;
    cl_uint u;
    memcpy(&u, units, sizeof u);
    printf("units %u\n", u);
    return 0;
}
