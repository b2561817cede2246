/* What dumps.c and dumps_more.c share: the size of their buffers, the
 * check that ends the program on an error (stdout names the call, so the
 * runs with and without cltap can be compared), and the setup of one
 * device's context, in-order queue and built program. */
#ifndef DUMPS_COMMON_H
#define DUMPS_COMMON_H
#include <CL/cl.h>
#include <stdio.h>

#define N 256
#define CHECK(what, e)                                 \
    do {                                               \
        if ((e) != CL_SUCCESS) {                       \
            printf("%s failed: %d\n", what, (int)(e)); \
            return 1;                                  \
        }                                              \
    } while (0)

struct setup {
    cl_platform_id plat;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    cl_program p;
};

/* The first device of the first platform, a context and an in-order queue
 * on it, and `src` built with `options`; 0 on success. */
static int setup(struct setup *s, const char *src, const char *options) {
    setvbuf(stdout, NULL, _IONBF, 0);
    cl_int err;
    CHECK("clGetPlatformIDs", clGetPlatformIDs(1, &s->plat, NULL));
    CHECK("clGetDeviceIDs", clGetDeviceIDs(s->plat, CL_DEVICE_TYPE_ALL, 1, &s->dev, NULL));
    s->ctx = clCreateContext(NULL, 1, &s->dev, NULL, NULL, &err);
    CHECK("clCreateContext", err);
    s->q = clCreateCommandQueueWithProperties(s->ctx, s->dev, NULL, &err);
    CHECK("clCreateCommandQueue", err);
    s->p = clCreateProgramWithSource(s->ctx, 1, &src, NULL, &err);
    CHECK("clCreateProgramWithSource", err);
    CHECK("clBuildProgram", clBuildProgram(s->p, 1, &s->dev, options, NULL, NULL));
    return 0;
}
#endif
