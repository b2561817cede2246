/* Calls clSetCommandQueueProperty, whose dispatch slot PoCL leaves empty.
 * Run only under cltap: without it, ocl-icd jumps to address 0. */
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#include <CL/cl.h>
#include <stdio.h>

int main(void) {
    cl_platform_id p;
    cl_device_id d;
    cl_int err;
    if (clGetPlatformIDs(1, &p, NULL) || clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL)) return 2;
    cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueueWithProperties(c, d, NULL, &err);
    if (err) return 3;
    cl_command_queue_properties old = 0;
    printf("clSetCommandQueueProperty: %d\n", clSetCommandQueueProperty(q, CL_QUEUE_PROFILING_ENABLE, CL_TRUE, &old));
    clReleaseCommandQueue(q);
    clReleaseContext(c);
    return 0;
}
