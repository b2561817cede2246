/* A small pipeline with a wrong result, for the argument dumps, injection
 * and capture (tests/dumps.rs). Three kernel enqueues on one in-order queue:
 *   1 fill(A, 1000, scratch)  A[i] = 1000 + i (scratch: local memory)
 *   2 scale(A, B, 3)          B[i] = 3 * A[i], but wrong at i == 77
 *   3 scale(B, A, 2)          A[i] = 2 * B[i], wrong at 77 too
 *   4 twice(I, C)             C[i] = 2 * I(i % 16, i / 16), I a 16x16 image of B
 * Its stdout says what it computed and where the first wrong element is,
 * the same with and without cltap. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

#include "dumps_common.h"

static const char *src =
    "__kernel void fill(__global int *a, int base, __local int *scratch) {\n"
    "    size_t i = get_global_id(0);\n"
    "    scratch[get_local_id(0)] = base + (int)i;\n"
    "    a[i] = scratch[get_local_id(0)];\n"
    "}\n"
    "__kernel void scale(__global const int *in, __global int *out, int k) {\n"
    "    size_t i = get_global_id(0);\n"
    "    out[i] = in[i] * k + (i == 77 ? 1 : 0);\n"
    "}\n"
    "__kernel void twice(__read_only image2d_t img, __global int *out) {\n"
    "    int i = (int)get_global_id(0);\n"
    "    out[i] = 2 * read_imagei(img, (int2)(i % 16, i / 16)).x;\n"
    "}\n";

int main(void) {
    struct setup st;
    if (setup(&st, src, "-DUNUSED=1"))
        return 1;
    cl_context ctx = st.ctx;
    cl_command_queue q = st.q;
    cl_program p = st.p;
    cl_int err;
    cl_kernel fill = clCreateKernel(p, "fill", &err);
    CHECK("clCreateKernel fill", err);
    cl_kernel scale = clCreateKernel(p, "scale", &err);
    CHECK("clCreateKernel scale", err);
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(cl_int), NULL, &err);
    CHECK("clCreateBuffer a", err);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, N * sizeof(cl_int), NULL, &err);
    CHECK("clCreateBuffer b", err);
    size_t global = N, local = 16;
    cl_int base = 1000, three = 3, two = 2;
    CHECK("arg", clSetKernelArg(fill, 0, sizeof a, &a));
    CHECK("arg", clSetKernelArg(fill, 1, sizeof base, &base));
    CHECK("arg", clSetKernelArg(fill, 2, local * sizeof(cl_int), NULL));
    CHECK("fill", clEnqueueNDRangeKernel(q, fill, 1, NULL, &global, &local, 0, NULL, NULL));
    CHECK("arg", clSetKernelArg(scale, 0, sizeof a, &a));
    CHECK("arg", clSetKernelArg(scale, 1, sizeof b, &b));
    CHECK("arg", clSetKernelArg(scale, 2, sizeof three, &three));
    CHECK("scale 1", clEnqueueNDRangeKernel(q, scale, 1, NULL, &global, NULL, 0, NULL, NULL));
    CHECK("arg", clSetKernelArg(scale, 0, sizeof b, &b));
    CHECK("arg", clSetKernelArg(scale, 1, sizeof a, &a));
    CHECK("arg", clSetKernelArg(scale, 2, sizeof two, &two));
    CHECK("scale 2", clEnqueueNDRangeKernel(q, scale, 1, NULL, &global, NULL, 0, NULL, NULL));
    cl_int ha[N], hb[N];
    CHECK("read a", clEnqueueReadBuffer(q, a, CL_TRUE, 0, sizeof ha, ha, 0, NULL, NULL));
    CHECK("read b", clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof hb, hb, 0, NULL, NULL));
    cl_image_format fmt = {CL_R, CL_SIGNED_INT32};
    cl_image_desc desc = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 16, .image_height = N / 16};
    cl_mem img = clCreateImage(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &fmt, &desc, hb, &err);
    CHECK("clCreateImage", err);
    cl_mem c = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, N * sizeof(cl_int), NULL, &err);
    CHECK("clCreateBuffer c", err);
    cl_kernel twice = clCreateKernel(p, "twice", &err);
    CHECK("clCreateKernel twice", err);
    CHECK("arg", clSetKernelArg(twice, 0, sizeof img, &img));
    CHECK("arg", clSetKernelArg(twice, 1, sizeof c, &c));
    CHECK("twice", clEnqueueNDRangeKernel(q, twice, 1, NULL, &global, NULL, 0, NULL, NULL));
    cl_int hc[N];
    CHECK("read c", clEnqueueReadBuffer(q, c, CL_TRUE, 0, sizeof hc, hc, 0, NULL, NULL));
    long twice_sum = 0;
    for (int i = 0; i < N; i++)
        twice_sum += hc[i];
    printf("twice %ld\n", twice_sum);
    long sum = 0;
    int wrong = -1;
    for (int i = 0; i < N; i++) {
        sum += ha[i] + hb[i];
        if (wrong < 0 && ha[i] != 6 * (1000 + i))
            wrong = i;
    }
    printf("sum %ld\n", sum);
    printf("A[0] %d B[0] %d\n", ha[0], hb[0]);
    if (wrong >= 0)
        printf("wrong result: A[%d] = %d, want %d\n", wrong, ha[wrong], 6 * (1000 + wrong));
    else
        printf("all results right\n");
    clReleaseMemObject(img);
    clReleaseMemObject(c);
    clReleaseKernel(twice);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseKernel(fill);
    clReleaseKernel(scale);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}
