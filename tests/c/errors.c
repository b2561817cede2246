/*
 * errors.c - deliberately bad arguments.  Every returned code is printed by
 * name.  Where the specification requires an error, the program checks that
 * one came back (EXPECT_ERROR / EXPECT_EXACT); where the outcome is
 * implementation-defined it only prints it.  Only NULL handles and invalid
 * values are used, never garbage pointers (ICD loaders dereference handles).
 */
#include "common.h"

static cl_platform_id platform;
static cl_device_id dev;
static cl_context ctx;
static cl_command_queue queue;
static int version;

static const char *src =
    "__kernel void k(__global int *a, int b) { a[get_global_id(0)] = b; }\n"
    "__kernel void local_k(__local int *l, __global int *a) { l[0] = 1; a[0] = l[0]; }\n";

static void test_platform_device(void)
{
    printf("== platform / device\n");
    cl_platform_id p = NULL;
    cl_uint n = 0;
    EXPECT_EXACT("clGetPlatformIDs(0, NULL, NULL)", clGetPlatformIDs(0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT_EXACT("clGetPlatformIDs(0, &p, &n)", clGetPlatformIDs(0, &p, &n), CL_INVALID_VALUE);

    char buf[8];
    size_t sz = 0;
    EXPECT_EXACT("clGetPlatformInfo(bad param_name)", clGetPlatformInfo(platform, 0x7fff, sizeof buf, buf, &sz),
                 CL_INVALID_VALUE);
    EXPECT_EXACT("clGetPlatformInfo(CL_PLATFORM_VERSION, size 1)",
                 clGetPlatformInfo(platform, CL_PLATFORM_VERSION, 1, buf, NULL), CL_INVALID_VALUE);

    cl_device_id d = NULL;
    /* NULL platform: implementation-defined (loaders may pick a default). */
    print_status("clGetDeviceIDs(NULL platform)", clGetDeviceIDs(NULL, CL_DEVICE_TYPE_ALL, 1, &d, &n));
    EXPECT_ERROR("clGetDeviceIDs(device_type 0)", clGetDeviceIDs(platform, 0, 1, &d, &n));
    EXPECT_EXACT("clGetDeviceIDs(num_entries 0, devices non-NULL)",
                 clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, &d, NULL), CL_INVALID_VALUE);
    /* Spec: CL_INVALID_VALUE; Oclgrind answers CL_SUCCESS.  Print only. */
    print_status("clGetDeviceIDs(devices NULL, num_devices NULL)",
                 clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, NULL));

    EXPECT_EXACT("clGetDeviceInfo(CL_DEVICE_NAME, size 1)", clGetDeviceInfo(dev, CL_DEVICE_NAME, 1, buf, NULL),
                 CL_INVALID_VALUE);
    cl_ulong big = 0;
    EXPECT_EXACT("clGetDeviceInfo(CL_DEVICE_GLOBAL_MEM_SIZE, size 4)",
                 clGetDeviceInfo(dev, CL_DEVICE_GLOBAL_MEM_SIZE, 4, &big, NULL), CL_INVALID_VALUE);
    EXPECT_EXACT("clGetDeviceInfo(bad param_name)", clGetDeviceInfo(dev, 0x7fff, sizeof buf, buf, &sz),
                 CL_INVALID_VALUE);
    EXPECT_EXACT("clGetDeviceInfo(NULL device)", clGetDeviceInfo(NULL, CL_DEVICE_NAME, sizeof buf, buf, NULL),
                 CL_INVALID_DEVICE);

    cl_device_partition_property bad_part[] = {CL_DEVICE_PARTITION_EQUALLY, 0, 0};
    cl_uint nsub = 0;
    EXPECT_ERROR("clCreateSubDevices(EQUALLY 0)", clCreateSubDevices(dev, bad_part, 0, NULL, &nsub));
    EXPECT_EXACT("clRetainDevice(NULL)", clRetainDevice(NULL), CL_INVALID_DEVICE);
}

static void test_context(void)
{
    printf("== context\n");
    cl_int err = CL_SUCCESS;
    cl_context c = clCreateContext(NULL, 0, &dev, NULL, NULL, &err);
    EXPECT_EXACT("clCreateContext(0 devices)", err, CL_INVALID_VALUE);
    CHECK(c == NULL, "context returned on error");
    c = clCreateContext(NULL, 1, NULL, NULL, NULL, &err);
    EXPECT_EXACT("clCreateContext(devices NULL)", err, CL_INVALID_VALUE);
    int tag = 0;
    c = clCreateContext(NULL, 1, &dev, NULL, &tag, &err);
    EXPECT_EXACT("clCreateContext(pfn_notify NULL, user_data set)", err, CL_INVALID_VALUE);
    cl_context_properties bad_props[] = {0x7fff, 1, 0};
    /* Spec: CL_INVALID_PROPERTY; Oclgrind accepts it.  Print only. */
    c = clCreateContext(bad_props, 1, &dev, NULL, NULL, &err);
    print_status("clCreateContext(unknown property)", err);
    if (err == CL_SUCCESS)
        clReleaseContext(c);
    /* PoCL 3.1 returns a half-built (non-NULL) context here, whose release
     * aborts; only a successful creation is released. */
    c = clCreateContextFromType(NULL, 0, NULL, NULL, &err);
    EXPECT_ERROR("clCreateContextFromType(device_type 0)", err);
    EXPECT_EXACT("clReleaseContext(NULL)", clReleaseContext(NULL), CL_INVALID_CONTEXT);
    EXPECT_EXACT("clRetainContext(NULL)", clRetainContext(NULL), CL_INVALID_CONTEXT);
    cl_uint u = 0;
    EXPECT_EXACT("clGetContextInfo(bad param_name)", clGetContextInfo(ctx, 0x7fff, sizeof u, &u, NULL),
                 CL_INVALID_VALUE);
    EXPECT_EXACT("clGetContextInfo(NULL context)",
                 clGetContextInfo(NULL, CL_CONTEXT_NUM_DEVICES, sizeof u, &u, NULL), CL_INVALID_CONTEXT);
}

static void test_queue(void)
{
    printf("== command queue\n");
    cl_int err = CL_SUCCESS;
    /* Spec: CL_INVALID_VALUE; Oclgrind accepts it.  Print only. */
    cl_command_queue q = clCreateCommandQueue(ctx, dev, (cl_command_queue_properties)1 << 20, &err);
    print_status("clCreateCommandQueue(unknown property bit)", err);
    if (err == CL_SUCCESS)
        clReleaseCommandQueue(q);
    q = clCreateCommandQueue(NULL, dev, 0, &err);
    EXPECT_EXACT("clCreateCommandQueue(NULL context)", err, CL_INVALID_CONTEXT);
    (void)q; /* objects returned with an error are never released */
    EXPECT_EXACT("clReleaseCommandQueue(NULL)", clReleaseCommandQueue(NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT_EXACT("clFinish(NULL)", clFinish(NULL), CL_INVALID_COMMAND_QUEUE);
    EXPECT_EXACT("clFlush(NULL)", clFlush(NULL), CL_INVALID_COMMAND_QUEUE);
    cl_uint u = 0;
    EXPECT_EXACT("clGetCommandQueueInfo(bad param_name)", clGetCommandQueueInfo(queue, 0x7fff, sizeof u, &u, NULL),
                 CL_INVALID_VALUE);
}

static void test_buffers(void)
{
    printf("== buffers\n");
    cl_int err = CL_SUCCESS;
    cl_int host[16] = {0};
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 0, NULL, &err);
    EXPECT_EXACT("clCreateBuffer(size 0)", err, CL_INVALID_BUFFER_SIZE);
    CHECK(m == NULL, "buffer returned on error");
    /* Contradictory / unknown flags: CL_INVALID_VALUE per spec, but Oclgrind
     * accepts some of them.  Print only; release what was created. */
    m = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, NULL, &err);
    print_status("clCreateBuffer(READ_ONLY|WRITE_ONLY)", err);
    if (err == CL_SUCCESS)
        clReleaseMemObject(m);
    m = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, sizeof host, host, &err);
    print_status("clCreateBuffer(USE_HOST_PTR|ALLOC_HOST_PTR)", err);
    if (err == CL_SUCCESS)
        clReleaseMemObject(m);
    m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | ((cl_mem_flags)1 << 40), 64, NULL, &err);
    print_status("clCreateBuffer(unknown flag bit)", err);
    if (err == CL_SUCCESS)
        clReleaseMemObject(m);
    m = clCreateBuffer(ctx, CL_MEM_USE_HOST_PTR, 64, NULL, &err);
    EXPECT_EXACT("clCreateBuffer(USE_HOST_PTR, NULL host_ptr)", err, CL_INVALID_HOST_PTR);
    m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof host, host, &err);
    EXPECT_EXACT("clCreateBuffer(host_ptr without USE/COPY)", err, CL_INVALID_HOST_PTR);
    cl_ulong max_alloc = device_ulong(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    /* Spec: CL_INVALID_BUFFER_SIZE; Oclgrind allocates it.  Print only. */
    m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, (size_t)max_alloc + 1, NULL, &err);
    print_status("clCreateBuffer(CL_DEVICE_MAX_MEM_ALLOC_SIZE + 1)", err);
    if (err == CL_SUCCESS)
        clReleaseMemObject(m);
    m = clCreateBuffer(NULL, CL_MEM_READ_WRITE, 64, NULL, &err);
    EXPECT_EXACT("clCreateBuffer(NULL context)", err, CL_INVALID_CONTEXT);
    EXPECT_EXACT("clReleaseMemObject(NULL)", clReleaseMemObject(NULL), CL_INVALID_MEM_OBJECT);
    EXPECT_EXACT("clRetainMemObject(NULL)", clRetainMemObject(NULL), CL_INVALID_MEM_OBJECT);

    /* Sub-buffers. */
    cl_uint align_bits = device_uint(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN);
    size_t align = align_bits / 8 ? align_bits / 8 : 1;
    cl_mem parent = make_buffer(ctx, CL_MEM_READ_WRITE, 4 * align + 256, NULL);
    cl_buffer_region out_of_range = {4 * align, 512};
    cl_mem sub = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &out_of_range, &err);
    EXPECT_EXACT("clCreateSubBuffer(region past the end)", err, CL_INVALID_VALUE);
    CHECK(sub == NULL, "sub-buffer returned on error");
    cl_buffer_region zero = {0, 0};
    sub = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &zero, &err);
    EXPECT_ERROR("clCreateSubBuffer(size 0)", err); /* Oclgrind: CL_INVALID_VALUE */
    cl_buffer_region ok = {0, 64};
    sub = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, 0x7fff, &ok, &err);
    EXPECT_EXACT("clCreateSubBuffer(bad buffer_create_type)", err, CL_INVALID_VALUE);
    if (align > 1) {
        cl_buffer_region misaligned = {1, 64};
        /* Spec: CL_MISALIGNED_SUB_BUFFER_OFFSET; Oclgrind accepts it. */
        sub = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &misaligned, &err);
        print_status("clCreateSubBuffer(misaligned origin)", err);
        if (err == CL_SUCCESS)
            clReleaseMemObject(sub);
    }
    sub = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &ok, &err);
    CHECK_CL(err, "valid sub-buffer");
    cl_mem subsub = clCreateSubBuffer(sub, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &ok, &err);
    EXPECT_EXACT("clCreateSubBuffer(of a sub-buffer)", err, CL_INVALID_MEM_OBJECT);
    CHECK(subsub == NULL, "sub-sub-buffer");
    cl_mem ro = make_buffer(ctx, CL_MEM_READ_ONLY, 256, NULL);
    /* Spec: CL_INVALID_VALUE; Oclgrind accepts it. */
    subsub = clCreateSubBuffer(ro, CL_MEM_WRITE_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &ok, &err);
    print_status("clCreateSubBuffer(WRITE_ONLY of READ_ONLY parent)", err);
    if (err == CL_SUCCESS)
        clReleaseMemObject(subsub);

    /* Enqueue range errors. */
    cl_int tmp[64];
    EXPECT_EXACT("clEnqueueReadBuffer(offset+size past the end)",
                 clEnqueueReadBuffer(queue, sub, CL_TRUE, 32, 64, tmp, 0, NULL, NULL), CL_INVALID_VALUE);
    EXPECT_EXACT("clEnqueueReadBuffer(NULL ptr)", clEnqueueReadBuffer(queue, sub, CL_TRUE, 0, 64, NULL, 0, NULL, NULL),
                 CL_INVALID_VALUE);
    EXPECT_EXACT("clEnqueueReadBuffer(NULL buffer)",
                 clEnqueueReadBuffer(queue, NULL, CL_TRUE, 0, 64, tmp, 0, NULL, NULL), CL_INVALID_MEM_OBJECT);
    /* (num_events 1 with a NULL wait list is not tried: Oclgrind 21.10
     * dereferences the NULL list.) */
    /* Spec: CL_INVALID_EVENT_WAIT_LIST; Oclgrind accepts it.  Print only. */
    cl_event none = NULL;
    print_status("clEnqueueWriteBuffer(wait list non-NULL, num 0)",
                 clEnqueueWriteBuffer(queue, sub, CL_TRUE, 0, 64, tmp, 0, &none, NULL));
    EXPECT_EXACT("clEnqueueCopyBuffer(size past the end)",
                 clEnqueueCopyBuffer(queue, parent, sub, 0, 0, 128, 0, NULL, NULL), CL_INVALID_VALUE);
    cl_int pat = 0;
    /* Spec: CL_INVALID_VALUE; Oclgrind fills anyway.  Print only. */
    print_status("clEnqueueFillBuffer(pattern size 3)",
                 clEnqueueFillBuffer(queue, parent, &pat, 3, 0, 12, 0, NULL, NULL));
    EXPECT_EXACT("clEnqueueFillBuffer(size not a multiple of the pattern)",
                 clEnqueueFillBuffer(queue, parent, &pat, 4, 0, 6, 0, NULL, NULL), CL_INVALID_VALUE);
    /* Spec: CL_INVALID_VALUE; Oclgrind accepts it.  Print only. */
    print_status("clEnqueueUnmapMemObject(pointer never mapped)",
                 clEnqueueUnmapMemObject(queue, parent, tmp, 0, NULL, NULL));
    void *p = clEnqueueMapBuffer(queue, parent, CL_TRUE, CL_MAP_READ, 0, 1 << 30, 0, NULL, NULL, &err);
    EXPECT_EXACT("clEnqueueMapBuffer(size past the end)", err, CL_INVALID_VALUE);
    CHECK(p == NULL, "map returned a pointer on error");
    CHECK_CL(clFinish(queue), "finish");

    clReleaseMemObject(ro);
    clReleaseMemObject(sub);
    clReleaseMemObject(parent);
}

static void test_images(void)
{
    printf("== images and samplers\n");
    if (!device_image_support(dev)) {
        printf("skip: image errors (no image support)\n");
        return;
    }
    cl_int err = CL_SUCCESS;
    cl_image_format bad_fmt = {0x7fff, CL_UNORM_INT8};
    cl_image_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = 8;
    desc.image_height = 8;
    cl_mem img = clCreateImage(ctx, CL_MEM_READ_WRITE, &bad_fmt, &desc, NULL, &err);
    EXPECT_ERROR("clCreateImage(unknown channel order)", err);
    CHECK(img == NULL, "image returned on error");
    cl_image_format fmt = {CL_RGBA, CL_UNSIGNED_INT8};
    desc.image_width = 0;
    img = clCreateImage(ctx, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err);
    EXPECT_ERROR("clCreateImage(width 0)", err);
    desc.image_width = device_size(dev, CL_DEVICE_IMAGE2D_MAX_WIDTH) + 1;
    /* Spec: CL_INVALID_IMAGE_SIZE; Oclgrind creates it.  Print only. */
    img = clCreateImage(ctx, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err);
    print_status("clCreateImage(width > CL_DEVICE_IMAGE2D_MAX_WIDTH)", err);
    if (err == CL_SUCCESS)
        clReleaseMemObject(img);
    img = clCreateImage(ctx, CL_MEM_READ_WRITE, &fmt, NULL, NULL, &err);
    EXPECT_EXACT("clCreateImage(NULL desc)", err, CL_INVALID_IMAGE_DESCRIPTOR);
    desc.image_width = 8;
    img = clCreateImage(ctx, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err);
    CHECK_CL(err, "valid image");
    size_t origin[3] = {4, 4, 0}, region[3] = {8, 8, 1};
    cl_uchar px[8 * 8 * 4];
    EXPECT_EXACT("clEnqueueReadImage(region past the edge)",
                 clEnqueueReadImage(queue, img, CL_TRUE, origin, region, 0, 0, px, 0, NULL, NULL), CL_INVALID_VALUE);
    size_t bad_origin[3] = {0, 0, 1}, r1[3] = {1, 1, 1};
    EXPECT_EXACT("clEnqueueReadImage(2D image, origin z 1)",
                 clEnqueueReadImage(queue, img, CL_TRUE, bad_origin, r1, 0, 0, px, 0, NULL, NULL), CL_INVALID_VALUE);
    cl_uint u = 0;
    EXPECT_EXACT("clGetImageInfo(bad param_name)", clGetImageInfo(img, 0x7fff, sizeof u, &u, NULL), CL_INVALID_VALUE);
    cl_mem buf = make_buffer(ctx, CL_MEM_READ_WRITE, 64, NULL);
    size_t w = 0;
    /* Spec: CL_INVALID_MEM_OBJECT; PoCL answers CL_SUCCESS.  Print only. */
    print_status("clGetImageInfo(buffer object)", clGetImageInfo(buf, CL_IMAGE_WIDTH, sizeof w, &w, NULL));
    clReleaseMemObject(buf);
    clReleaseMemObject(img);

    /* Spec: CL_INVALID_VALUE; PoCL accepts it.  Print only. */
    cl_sampler s = clCreateSampler(ctx, CL_FALSE, 0x7fff, CL_FILTER_NEAREST, &err);
    print_status("clCreateSampler(bad addressing mode)", err);
    if (err == CL_SUCCESS)
        clReleaseSampler(s);
    EXPECT_EXACT("clReleaseSampler(NULL)", clReleaseSampler(NULL), CL_INVALID_SAMPLER);
}

static void test_programs_kernels(void)
{
    printf("== programs and kernels\n");
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(ctx, 0, &src, NULL, &err);
    EXPECT_EXACT("clCreateProgramWithSource(count 0)", err, CL_INVALID_VALUE);
    CHECK(p == NULL, "program returned on error");
    /* (strings == NULL is not tried: PoCL 3.1 dereferences it and crashes.) */
    size_t bin_len = 16;
    const unsigned char junk[16] = {0};
    const unsigned char *bins[1] = {junk};
    cl_int bin_status = 0;
    p = clCreateProgramWithBinary(ctx, 1, &dev, &bin_len, bins, &bin_status, &err);
    print_status("clCreateProgramWithBinary(16 zero bytes)", err);
    print_status("  binary_status", bin_status);
    if (p) {
        /* Some runtimes accept the bytes and fail at build time. */
        EXPECT_ERROR("clBuildProgram(16 zero bytes)", clBuildProgram(p, 1, &dev, NULL, NULL, NULL));
        clReleaseProgram(p);
    } else {
        CHECK(err < 0, "NULL program without an error");
    }

    const char *bad = "__kernel void k(__global int *a) { a[0] = undefined_thing; }\n";
    p = clCreateProgramWithSource(ctx, 1, &bad, NULL, &err);
    CHECK_CL(err, "bad source program");
    EXPECT_EXACT("clBuildProgram(bad source)", clBuildProgram(p, 1, &dev, NULL, NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
    clReleaseProgram(p);
    EXPECT_EXACT("clBuildProgram(NULL program)", clBuildProgram(NULL, 1, &dev, NULL, NULL, NULL), CL_INVALID_PROGRAM);
    EXPECT_EXACT("clReleaseProgram(NULL)", clReleaseProgram(NULL), CL_INVALID_PROGRAM);

    p = build_program(ctx, dev, src, NULL);
    EXPECT_EXACT("clBuildProgram(num_devices 1, device_list NULL)", clBuildProgram(p, 1, NULL, NULL, NULL, NULL),
                 CL_INVALID_VALUE);
    int tag = 0;
    EXPECT_EXACT("clBuildProgram(pfn_notify NULL, user_data set)", clBuildProgram(p, 1, &dev, NULL, NULL, &tag),
                 CL_INVALID_VALUE);
    cl_uint u = 0;
    EXPECT_EXACT("clGetProgramInfo(bad param_name)", clGetProgramInfo(p, 0x7fff, sizeof u, &u, NULL),
                 CL_INVALID_VALUE);
    /* Spec: CL_INVALID_DEVICE; Oclgrind answers.  Print only. */
    print_status("clGetProgramBuildInfo(NULL device)",
                 clGetProgramBuildInfo(p, NULL, CL_PROGRAM_BUILD_STATUS, sizeof u, &u, NULL));

    cl_kernel k = clCreateKernel(p, "no_such_kernel", &err);
    EXPECT_EXACT("clCreateKernel(wrong name)", err, CL_INVALID_KERNEL_NAME);
    CHECK(k == NULL, "kernel returned on error");
    k = clCreateKernel(p, NULL, &err);
    EXPECT_EXACT("clCreateKernel(NULL name)", err, CL_INVALID_VALUE);
    k = make_kernel(p, "k");
    cl_int v = 5;
    EXPECT_EXACT("clSetKernelArg(index 2 of 2)", clSetKernelArg(k, 2, sizeof v, &v), CL_INVALID_ARG_INDEX);
    EXPECT_EXACT("clSetKernelArg(int with size 2)", clSetKernelArg(k, 1, 2, &v), CL_INVALID_ARG_SIZE);
    /* (An int argument with a NULL arg_value is not tried: Oclgrind 21.10
     * dereferences it.) */
    cl_mem null_mem = NULL;
    print_status("clSetKernelArg(buffer arg, size 2)", clSetKernelArg(k, 0, 2, &null_mem));
    cl_kernel kl = make_kernel(p, "local_k");
    /* Spec: CL_INVALID_ARG_SIZE; Intel's CPU runtime answers CL_SUCCESS. */
    print_status("clSetKernelArg(local arg, size 0)", clSetKernelArg(kl, 0, 0, NULL));
    cl_int lv = 0;
    /* Spec: CL_INVALID_ARG_VALUE; Oclgrind accepts it.  Print only. */
    print_status("clSetKernelArg(local arg, non-NULL value)", clSetKernelArg(kl, 0, sizeof lv, &lv));
    clReleaseKernel(kl);
    EXPECT_EXACT("clGetKernelInfo(bad param_name)", clGetKernelInfo(k, 0x7fff, sizeof u, &u, NULL), CL_INVALID_VALUE);

    /* NDRange errors. */
    size_t g = 16, l = 4;
    EXPECT_EXACT("clEnqueueNDRangeKernel(args not set)",
                 clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, NULL, 0, NULL, NULL), CL_INVALID_KERNEL_ARGS);
    cl_mem out = make_buffer(ctx, CL_MEM_READ_WRITE, 64 * sizeof(cl_int), NULL);
    CHECK_CL(clSetKernelArg(k, 0, sizeof out, &out), "arg0");
    CHECK_CL(clSetKernelArg(k, 1, sizeof v, &v), "arg1");
    EXPECT_EXACT("clEnqueueNDRangeKernel(work_dim 0)", clEnqueueNDRangeKernel(queue, k, 0, NULL, &g, NULL, 0, NULL, NULL),
                 CL_INVALID_WORK_DIMENSION);
    cl_uint max_dims = device_uint(dev, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
    size_t g4[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    EXPECT_EXACT("clEnqueueNDRangeKernel(work_dim > max)",
                 clEnqueueNDRangeKernel(queue, k, max_dims + 1, NULL, g4, NULL, 0, NULL, NULL),
                 CL_INVALID_WORK_DIMENSION);
    /* global NULL: an error before 2.1, deprecated as an error since (a
     * trivially successful launch is allowed).  Print only. */
    print_status("clEnqueueNDRangeKernel(global NULL)",
                 clEnqueueNDRangeKernel(queue, k, 1, NULL, NULL, NULL, 0, NULL, NULL));
    /* Non-uniform work-groups: an error in 1.x, allowed by 2.0+ devices that
     * support them.  Implementation-specific: print only. */
    size_t g10 = 10;
    cl_int e = clEnqueueNDRangeKernel(queue, k, 1, NULL, &g10, &l, 0, NULL, NULL);
    print_status("clEnqueueNDRangeKernel(global 10, local 4)", e);
    /* Global size 0: CL_INVALID_GLOBAL_WORK_SIZE before 2.1, a no-op after. */
    size_t g0 = 0;
    print_status("clEnqueueNDRangeKernel(global 0)", clEnqueueNDRangeKernel(queue, k, 1, NULL, &g0, NULL, 0, NULL, NULL));
    size_t max_wg = device_size(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    size_t gbig = max_wg * 2, lbig = max_wg * 2;
    EXPECT_ERROR("clEnqueueNDRangeKernel(local > CL_DEVICE_MAX_WORK_GROUP_SIZE)",
                 clEnqueueNDRangeKernel(queue, k, 1, NULL, &gbig, &lbig, 0, NULL, NULL));
    /* (A local size of 0 is not tried: PoCL 3.1 accepts the launch and then
     * crashes running it.) */
    /* (A NULL kernel is not tried: the loader dispatches on the queue and
     * PoCL 3.1 dereferences the NULL kernel.) */
    CHECK_CL(clFinish(queue), "finish");
    EXPECT_EXACT("clReleaseKernel(NULL)", clReleaseKernel(NULL), CL_INVALID_KERNEL);
    clReleaseMemObject(out);
    clReleaseKernel(k);
    clReleaseProgram(p);
}

static void test_events(void)
{
    printf("== events\n");
    EXPECT_EXACT("clWaitForEvents(0, NULL)", clWaitForEvents(0, NULL), CL_INVALID_VALUE);
    EXPECT_EXACT("clWaitForEvents(1, NULL)", clWaitForEvents(1, NULL), CL_INVALID_VALUE);
    cl_int err = CL_SUCCESS;
    cl_event ue = clCreateUserEvent(NULL, &err);
    EXPECT_EXACT("clCreateUserEvent(NULL context)", err, CL_INVALID_CONTEXT);
    CHECK(ue == NULL, "user event returned on error");
    ue = clCreateUserEvent(ctx, &err);
    CHECK_CL(err, "user event");
    EXPECT_EXACT("clSetUserEventStatus(CL_RUNNING)", clSetUserEventStatus(ue, CL_RUNNING), CL_INVALID_VALUE);
    EXPECT_EXACT("clSetEventCallback(NULL callback)", clSetEventCallback(ue, CL_COMPLETE, NULL, NULL),
                 CL_INVALID_VALUE);
    EXPECT_EXACT("clSetUserEventStatus(CL_COMPLETE)", clSetUserEventStatus(ue, CL_COMPLETE), CL_SUCCESS);
    EXPECT_EXACT("clSetUserEventStatus(second time)", clSetUserEventStatus(ue, CL_COMPLETE), CL_INVALID_OPERATION);
    cl_uint u = 0;
    EXPECT_EXACT("clGetEventInfo(bad param_name)", clGetEventInfo(ue, 0x7fff, sizeof u, &u, NULL), CL_INVALID_VALUE);
    EXPECT_EXACT("clReleaseEvent(NULL)", clReleaseEvent(NULL), CL_INVALID_EVENT);
    EXPECT_EXACT("clRetainEvent(NULL)", clRetainEvent(NULL), CL_INVALID_EVENT);
    clReleaseEvent(ue);
    /* (A wait list holding a NULL event is not tried: Oclgrind 21.10
     * dereferences it.) */
    cl_int v[4];
    cl_mem b = make_buffer(ctx, CL_MEM_READ_WRITE, sizeof v, NULL);
    /* Events from another context. */
    cl_context other = make_context(dev);
    cl_event foreign = clCreateUserEvent(other, &err);
    CHECK_CL(err, "foreign user event");
    CHECK_CL(clSetUserEventStatus(foreign, CL_COMPLETE), "complete");
    /* Spec: CL_INVALID_CONTEXT for both; Oclgrind performs the reads.
     * Print only. */
    print_status("clEnqueueReadBuffer(wait on an event of another context)",
                 clEnqueueReadBuffer(queue, b, CL_TRUE, 0, sizeof v, v, 1, &foreign, NULL));
    clReleaseEvent(foreign);
    /* A buffer of another context. */
    cl_mem ob = make_buffer(other, CL_MEM_READ_WRITE, sizeof v, NULL);
    print_status("clEnqueueReadBuffer(buffer of another context)",
                 clEnqueueReadBuffer(queue, ob, CL_TRUE, 0, sizeof v, v, 0, NULL, NULL));
    clReleaseMemObject(ob);
    clReleaseContext(other);
    clReleaseMemObject(b);
    CHECK_CL(clFinish(queue), "finish");
}

int main(void)
{
    pick_device(&platform, &dev);
    version = api_version(platform, dev);
    ctx = make_context(dev);
    queue = make_queue(ctx, dev, 0);

    test_platform_device();
    test_context();
    test_queue();
    test_buffers();
    test_images();
    test_programs_kernels();
    test_events();

    /* After all of that the context and queue still work. */
    cl_int v[4] = {1, 2, 3, 4}, r[4] = {0};
    cl_mem b = make_buffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof v, v);
    CHECK_CL(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, sizeof r, r, 0, NULL, NULL), "read");
    CHECK(memcmp(v, r, sizeof v) == 0, "context still usable");
    printf("context and queue still usable: yes\n");
    clReleaseMemObject(b);
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    (void)version;
    printf("errors: PASS\n");
    return 0;
}
