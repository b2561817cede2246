/* Arguments beyond buffers, for the dumps and the capture (tests/dumps.rs):
 *   1 svmscale(in + 16, out, 3)  out[i] = 3 * in[16 + i]; `in` and `out`
 *     SVM allocations (coarse grain), the first argument a pointer 16
 *     elements into its allocation (skipped where the device has no SVM)
 *   2 sampled(img, s, out)       out[i] = the 16x16 CL_R float image read
 *     through a sampler (unnormalised, clamp to edge, nearest) at
 *     (i % 16 + 0.5, i / 16 - 2.5): its clamp shows in rows 0 to 2
 *   3 lookup(ib, out)            out[i] = 5 * ib[N - 1 - i], ib a 1D image
 *     over a buffer
 *   4 usmscale(in + 16, out, 3)  as 1, `in` and `out` USM device
 *     allocations (cl_intel_unified_shared_memory; skipped without it)
 * Its stdout says what it computed, the same with and without cltap. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dumps_common.h"

static const char *src =
    "__kernel void svmscale(__global const int *in, __global int *out, int k) {\n"
    "    size_t i = get_global_id(0);\n"
    "    out[i] = in[i] * k;\n"
    "}\n"
    "__kernel void sampled(__read_only image2d_t img, sampler_t s, __global float *out) {\n"
    "    int i = (int)get_global_id(0);\n"
    "    out[i] = read_imagef(img, s, (float2)(i % 16 + 0.5f, i / 16 - 2.5f)).x;\n"
    "}\n"
    "__kernel void usmscale(__global const int *in, __global int *out, int k) {\n"
    "    size_t i = get_global_id(0);\n"
    "    out[i] = in[i] * k;\n"
    "}\n"
    "__kernel void lookup(__read_only image1d_buffer_t ib, __global int *out) {\n"
    "    int i = (int)get_global_id(0);\n"
    "    out[i] = 5 * read_imagei(ib, 255 - i).x;\n"
    "}\n";

static long isum(const cl_int *v) {
    long s = 0;
    for (int i = 0; i < N; i++)
        s += (long)v[i] * (i + 1);
    return s;
}

int main(void) {
    struct setup st;
    if (setup(&st, src, ""))
        return 1;
    cl_platform_id plat = st.plat;
    cl_device_id dev = st.dev;
    cl_context ctx = st.ctx;
    cl_command_queue q = st.q;
    cl_program p = st.p;
    cl_int err;
    size_t global = N;
    cl_int k = 3;
    cl_device_svm_capabilities svm = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL) != CL_SUCCESS)
        svm = 0;
    if (svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) {
        cl_kernel ks = clCreateKernel(p, "svmscale", &err);
        CHECK("clCreateKernel svmscale", err);
        cl_int *in = clSVMAlloc(ctx, CL_MEM_READ_WRITE, (N + 16) * sizeof(cl_int), 0);
        cl_int *out = clSVMAlloc(ctx, CL_MEM_READ_WRITE, N * sizeof(cl_int), 0);
        if (!in || !out) {
            printf("clSVMAlloc failed\n");
            return 1;
        }
        CHECK("map", clEnqueueSVMMap(q, CL_TRUE, CL_MAP_WRITE, in, (N + 16) * sizeof(cl_int), 0, NULL, NULL));
        for (int i = 0; i < N + 16; i++)
            in[i] = 100 + i;
        CHECK("unmap", clEnqueueSVMUnmap(q, in, 0, NULL, NULL));
        CHECK("arg", clSetKernelArgSVMPointer(ks, 0, in + 16));
        CHECK("arg", clSetKernelArgSVMPointer(ks, 1, out));
        CHECK("arg", clSetKernelArg(ks, 2, sizeof k, &k));
        CHECK("svmscale", clEnqueueNDRangeKernel(q, ks, 1, NULL, &global, NULL, 0, NULL, NULL));
        CHECK("map", clEnqueueSVMMap(q, CL_TRUE, CL_MAP_READ, out, N * sizeof(cl_int), 0, NULL, NULL));
        printf("svm %ld\n", isum(out));
        CHECK("unmap", clEnqueueSVMUnmap(q, out, 0, NULL, NULL));
        CHECK("finish", clFinish(q));
        clSVMFree(ctx, in);
        clSVMFree(ctx, out);
        clReleaseKernel(ks);
    } else {
        printf("no SVM\n");
    }

    float pixels[N];
    for (int i = 0; i < N; i++)
        pixels[i] = (float)(i * 2);
    cl_image_format ff = {CL_R, CL_FLOAT};
    cl_image_desc d2 = {.image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = 16, .image_height = N / 16};
    cl_mem img = clCreateImage(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &ff, &d2, pixels, &err);
    CHECK("clCreateImage 2D", err);
    cl_sampler_properties sp[] = {CL_SAMPLER_NORMALIZED_COORDS, CL_FALSE, CL_SAMPLER_ADDRESSING_MODE,
                                  CL_ADDRESS_CLAMP_TO_EDGE, CL_SAMPLER_FILTER_MODE, CL_FILTER_NEAREST, 0};
    cl_sampler s = clCreateSamplerWithProperties(ctx, sp, &err);
    CHECK("clCreateSamplerWithProperties", err);
    cl_mem fo = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, N * sizeof(float), NULL, &err);
    CHECK("clCreateBuffer fo", err);
    cl_kernel ksam = clCreateKernel(p, "sampled", &err);
    CHECK("clCreateKernel sampled", err);
    CHECK("arg", clSetKernelArg(ksam, 0, sizeof img, &img));
    CHECK("arg", clSetKernelArg(ksam, 1, sizeof s, &s));
    CHECK("arg", clSetKernelArg(ksam, 2, sizeof fo, &fo));
    CHECK("sampled", clEnqueueNDRangeKernel(q, ksam, 1, NULL, &global, NULL, 0, NULL, NULL));
    float hf[N];
    CHECK("read fo", clEnqueueReadBuffer(q, fo, CL_TRUE, 0, sizeof hf, hf, 0, NULL, NULL));
    double fs = 0;
    for (int i = 0; i < N; i++)
        fs += hf[i] * (i + 1);
    printf("sampled %.1f first %.1f %.1f %.1f\n", fs, hf[0], hf[16 * 3], hf[16 * 4]);

    cl_int vals[N];
    for (int i = 0; i < N; i++)
        vals[i] = i * 7 - 300;
    cl_mem backing = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof vals, vals, &err);
    CHECK("clCreateBuffer backing", err);
    cl_image_format fi = {CL_R, CL_SIGNED_INT32};
    cl_image_desc d1 = {.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER, .image_width = N, .buffer = backing};
    cl_mem ib = clCreateImage(ctx, CL_MEM_READ_ONLY, &fi, &d1, NULL, &err);
    CHECK("clCreateImage 1D buffer", err);
    cl_mem io = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, N * sizeof(cl_int), NULL, &err);
    CHECK("clCreateBuffer io", err);
    cl_kernel kl = clCreateKernel(p, "lookup", &err);
    CHECK("clCreateKernel lookup", err);
    CHECK("arg", clSetKernelArg(kl, 0, sizeof ib, &ib));
    CHECK("arg", clSetKernelArg(kl, 1, sizeof io, &io));
    CHECK("lookup", clEnqueueNDRangeKernel(q, kl, 1, NULL, &global, NULL, 0, NULL, NULL));
    cl_int hi[N];
    CHECK("read io", clEnqueueReadBuffer(q, io, CL_TRUE, 0, sizeof hi, hi, 0, NULL, NULL));
    printf("lookup %ld\n", isum(hi));

    char exts[8192] = "";
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof exts - 1, exts, NULL);
    if (strstr(exts, "cl_intel_unified_shared_memory")) {
        clDeviceMemAllocINTEL_fn alloc =
            (clDeviceMemAllocINTEL_fn)clGetExtensionFunctionAddressForPlatform(plat, "clDeviceMemAllocINTEL");
        clSetKernelArgMemPointerINTEL_fn arg =
            (clSetKernelArgMemPointerINTEL_fn)clGetExtensionFunctionAddressForPlatform(plat, "clSetKernelArgMemPointerINTEL");
        clEnqueueMemcpyINTEL_fn copy =
            (clEnqueueMemcpyINTEL_fn)clGetExtensionFunctionAddressForPlatform(plat, "clEnqueueMemcpyINTEL");
        clMemBlockingFreeINTEL_fn release =
            (clMemBlockingFreeINTEL_fn)clGetExtensionFunctionAddressForPlatform(plat, "clMemBlockingFreeINTEL");
        if (!alloc || !arg || !copy || !release) {
            printf("USM functions missing\n");
            return 1;
        }
        cl_int *in = alloc(ctx, dev, NULL, (N + 16) * sizeof(cl_int), 0, &err);
        CHECK("clDeviceMemAllocINTEL in", err);
        cl_int *out = alloc(ctx, dev, NULL, N * sizeof(cl_int), 0, &err);
        CHECK("clDeviceMemAllocINTEL out", err);
        cl_int host[N + 16];
        for (int i = 0; i < N + 16; i++)
            host[i] = 100 + i;
        CHECK("memcpy in", copy(q, CL_TRUE, in, host, sizeof host, 0, NULL, NULL));
        cl_kernel ku = clCreateKernel(p, "usmscale", &err);
        CHECK("clCreateKernel usmscale", err);
        CHECK("arg", arg(ku, 0, in + 16));
        CHECK("arg", arg(ku, 1, out));
        CHECK("arg", clSetKernelArg(ku, 2, sizeof k, &k));
        CHECK("usmscale", clEnqueueNDRangeKernel(q, ku, 1, NULL, &global, NULL, 0, NULL, NULL));
        cl_int res[N];
        CHECK("memcpy out", copy(q, CL_TRUE, res, out, sizeof res, 0, NULL, NULL));
        printf("usm %ld\n", isum(res));
        release(ctx, in);
        release(ctx, out);
        clReleaseKernel(ku);
    } else {
        printf("no USM\n");
    }

    clReleaseKernel(kl);
    clReleaseMemObject(io);
    clReleaseMemObject(ib);
    clReleaseMemObject(backing);
    clReleaseKernel(ksam);
    clReleaseMemObject(fo);
    clReleaseSampler(s);
    clReleaseMemObject(img);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}
