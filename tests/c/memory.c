/*
 * memory.c - buffers (every flag kind), buffers with properties, sub-buffers,
 * images, samplers, pipes, SVM allocations, memory object info, destructor
 * callbacks and reference counts.
 */
#include "common.h"

static cl_platform_id platform;
static cl_device_id dev;
static cl_context ctx;
static cl_command_queue queue;
static int version;

enum { N = 1024 };

static cl_uint mem_refcount(cl_mem m)
{
    cl_uint rc = 0;
    CHECK_CL(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof rc, &rc, NULL), "CL_MEM_REFERENCE_COUNT");
    return rc;
}

static const char *mem_type_name(cl_mem_object_type t)
{
    switch (t) {
    case CL_MEM_OBJECT_BUFFER: return "CL_MEM_OBJECT_BUFFER";
    case CL_MEM_OBJECT_IMAGE2D: return "CL_MEM_OBJECT_IMAGE2D";
    case CL_MEM_OBJECT_IMAGE3D: return "CL_MEM_OBJECT_IMAGE3D";
    case CL_MEM_OBJECT_IMAGE2D_ARRAY: return "CL_MEM_OBJECT_IMAGE2D_ARRAY";
    case CL_MEM_OBJECT_IMAGE1D: return "CL_MEM_OBJECT_IMAGE1D";
    case CL_MEM_OBJECT_IMAGE1D_ARRAY: return "CL_MEM_OBJECT_IMAGE1D_ARRAY";
    case CL_MEM_OBJECT_IMAGE1D_BUFFER: return "CL_MEM_OBJECT_IMAGE1D_BUFFER";
    case CL_MEM_OBJECT_PIPE: return "CL_MEM_OBJECT_PIPE";
    default: return "unknown";
    }
}

/* Common CL_MEM_* queries; prints them and checks the handle-valued ones. */
static void print_mem_info(const char *label, cl_mem m, cl_mem_flags flags, size_t size,
                           void *host_ptr, cl_mem parent, size_t offset)
{
    cl_mem_object_type type = 0;
    cl_mem_flags f = 0;
    size_t sz = 0, off = 0;
    void *hp = NULL;
    cl_uint map_count = 0;
    cl_context c = NULL;
    cl_mem assoc = NULL;
    CHECK_CL(clGetMemObjectInfo(m, CL_MEM_TYPE, sizeof type, &type, NULL), "CL_MEM_TYPE");
    CHECK_CL(clGetMemObjectInfo(m, CL_MEM_FLAGS, sizeof f, &f, NULL), "CL_MEM_FLAGS");
    CHECK_CL(clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof sz, &sz, NULL), "CL_MEM_SIZE");
    CHECK_CL(clGetMemObjectInfo(m, CL_MEM_HOST_PTR, sizeof hp, &hp, NULL), "CL_MEM_HOST_PTR");
    CHECK_CL(clGetMemObjectInfo(m, CL_MEM_MAP_COUNT, sizeof map_count, &map_count, NULL), "CL_MEM_MAP_COUNT");
    CHECK_CL(clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof c, &c, NULL), "CL_MEM_CONTEXT");
    CHECK_CL(clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc, &assoc, NULL),
             "CL_MEM_ASSOCIATED_MEMOBJECT");
    CHECK_CL(clGetMemObjectInfo(m, CL_MEM_OFFSET, sizeof off, &off, NULL), "CL_MEM_OFFSET");
    printf("%s: type %s, flags 0x%llx, size %zu, host_ptr %s, map_count %u, context %s, "
           "associated %s, offset %s, refcount %u\n",
           label, mem_type_name(type), (unsigned long long)f, sz,
           hp == NULL ? "null" : (hp == host_ptr ? "expected pointer" : "other"), map_count,
           same_str(c, ctx), assoc == NULL ? "null" : same_str(assoc, parent),
           off == offset ? "expected" : "unexpected", mem_refcount(m));
    CHECK(f == flags, "CL_MEM_FLAGS 0x%llx != 0x%llx", (unsigned long long)f, (unsigned long long)flags);
    CHECK(sz == size, "CL_MEM_SIZE");
    CHECK(c == ctx, "CL_MEM_CONTEXT differs");
    CHECK(assoc == parent, "CL_MEM_ASSOCIATED_MEMOBJECT differs");
    CHECK(off == offset, "CL_MEM_OFFSET");
    /* For sub-buffers of a USE_HOST_PTR parent the spec asks for
     * host_ptr + origin, but Intel's CPU runtime answers differently: only
     * buffers are checked, sub-buffers are printed. */
    if ((flags & CL_MEM_USE_HOST_PTR) && parent == NULL)
        CHECK(hp == host_ptr, "CL_MEM_HOST_PTR must be the application's pointer");
    if (version >= 20) {
        cl_bool svm = CL_FALSE;
        cl_int err = clGetMemObjectInfo(m, CL_MEM_USES_SVM_POINTER, sizeof svm, &svm, NULL);
        if (err == CL_SUCCESS)
            printf("%s: CL_MEM_USES_SVM_POINTER %s\n", label, bool_str(svm));
        else
            print_status("CL_MEM_USES_SVM_POINTER", err);
    }
    if (version >= 30) {
        size_t psz = 0;
        cl_int err = clGetMemObjectInfo(m, CL_MEM_PROPERTIES, 0, NULL, &psz);
        if (err == CL_SUCCESS)
            printf("%s: CL_MEM_PROPERTIES %zu entries\n", label, psz / sizeof(cl_mem_properties));
        else
            print_status("CL_MEM_PROPERTIES", err);
    }
}

static void fill_pattern(cl_int *p, int n, int seed)
{
    for (int i = 0; i < n; ++i)
        p[i] = seed * 100000 + i;
}

static void test_buffers(void)
{
    printf("== buffers\n");
    static cl_int host[N], out[N];
    static const struct {
        cl_mem_flags flags;
        const char *name;
    } kinds[] = {
        {CL_MEM_READ_WRITE, "READ_WRITE"},
        {CL_MEM_WRITE_ONLY, "WRITE_ONLY"},
        {CL_MEM_READ_ONLY, "READ_ONLY"},
        {CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, "READ_WRITE|USE_HOST_PTR"},
        {CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, "READ_ONLY|COPY_HOST_PTR"},
        {CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, "READ_WRITE|ALLOC_HOST_PTR"},
        {CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR, "ALLOC_HOST_PTR|COPY_HOST_PTR"},
        {CL_MEM_READ_WRITE | CL_MEM_HOST_READ_ONLY, "READ_WRITE|HOST_READ_ONLY"},
        {CL_MEM_READ_WRITE | CL_MEM_HOST_WRITE_ONLY, "READ_WRITE|HOST_WRITE_ONLY"},
        {CL_MEM_READ_WRITE | CL_MEM_HOST_NO_ACCESS | CL_MEM_COPY_HOST_PTR, "HOST_NO_ACCESS|COPY_HOST_PTR"},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
        cl_mem_flags fl = kinds[k].flags;
        fill_pattern(host, N, (int)k + 1);
        void *hp = (fl & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) ? host : NULL;
        cl_int err = CL_SUCCESS;
        cl_mem m = clCreateBuffer(ctx, fl, sizeof host, hp, &err);
        printf("clCreateBuffer(%s): %s\n", kinds[k].name, cl_err_name(err));
        CHECK(err == CL_SUCCESS, "create");
        print_mem_info(kinds[k].name, m, fl, sizeof host, hp, NULL, 0);
        int host_can_read = !(fl & (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS));
        int host_can_write = !(fl & (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS));
        if (!hp && host_can_write) {
            CHECK_CL(clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL), "write");
        }
        if (host_can_read && (hp || host_can_write)) {
            memset(out, 0, sizeof out);
            CHECK_CL(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL), "read");
            CHECK(memcmp(host, out, sizeof out) == 0, "contents of %s", kinds[k].name);
            printf("%s: contents OK\n", kinds[k].name);
        }
        if (!host_can_read) {
            /* Reading a HOST_WRITE_ONLY / HOST_NO_ACCESS buffer is an error. */
            err = clEnqueueReadBuffer(queue, m, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
            printf("%s: clEnqueueReadBuffer -> %s\n", kinds[k].name, cl_err_name(err));
            CHECK(err == CL_INVALID_OPERATION, "host read of a host-inaccessible buffer");
        }
        if (!host_can_write) {
            err = clEnqueueWriteBuffer(queue, m, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL);
            printf("%s: clEnqueueWriteBuffer -> %s\n", kinds[k].name, cl_err_name(err));
            CHECK(err == CL_INVALID_OPERATION, "host write of a host-unwritable buffer");
        }
        if (fl & CL_MEM_USE_HOST_PTR) {
            /* The application's memory is the buffer's storage; after a map
             * the content is visible there. */
            cl_int *mp = clEnqueueMapBuffer(queue, m, CL_TRUE, CL_MAP_READ, 0, sizeof host, 0, NULL, NULL, &err);
            CHECK_CL(err, "map USE_HOST_PTR");
            CHECK(memcmp(mp, host, sizeof host) == 0, "mapped USE_HOST_PTR contents");
            CHECK_CL(clEnqueueUnmapMemObject(queue, m, mp, 0, NULL, NULL), "unmap");
            CHECK_CL(clFinish(queue), "finish");
            printf("%s: mapped contents OK\n", kinds[k].name);
        }
        CHECK_CL(clReleaseMemObject(m), "release");
    }

    if (version < 30) {
        printf("skip: clCreateBufferWithProperties (OpenCL %d.%d)\n", version / 10, version % 10);
    } else {
        cl_int err = CL_SUCCESS;
        cl_mem m = clCreateBufferWithProperties(ctx, NULL, CL_MEM_READ_WRITE, 256, NULL, &err);
        print_status("clCreateBufferWithProperties(NULL)", err);
        CHECK(err == CL_SUCCESS, "create");
        print_mem_info("with-properties(NULL)", m, CL_MEM_READ_WRITE, 256, NULL, NULL, 0);
        clReleaseMemObject(m);
        cl_mem_properties empty[] = {0};
        fill_pattern(host, 64, 42);
        m = clCreateBufferWithProperties(ctx, empty, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 256, host, &err);
        print_status("clCreateBufferWithProperties({0})", err);
        CHECK(err == CL_SUCCESS, "create");
        print_mem_info("with-properties({0})", m, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 256, host, NULL, 0);
        CHECK_CL(clEnqueueReadBuffer(queue, m, CL_TRUE, 0, 256, out, 0, NULL, NULL), "read");
        CHECK(memcmp(host, out, 256) == 0, "contents");
        printf("with-properties({0}): contents OK\n");
        clReleaseMemObject(m);
    }
}

static void test_sub_buffers(void)
{
    printf("== sub-buffers\n");
    cl_uint align_bits = device_uint(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN);
    size_t align = align_bits / 8;
    if (align < sizeof(cl_int))
        align = sizeof(cl_int);
    size_t total = 4 * align;
    cl_int *host = calloc(total, 1);
    cl_int *out = calloc(total, 1);
    for (size_t i = 0; i < total / sizeof(cl_int); ++i)
        host[i] = (cl_int)(i * 3);
    cl_mem parent = make_buffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, total, host);
    cl_uint prc0 = mem_refcount(parent);

    cl_buffer_region region = {align, 2 * align};
    cl_int err = CL_SUCCESS;
    cl_mem sub = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    print_status("clCreateSubBuffer", err);
    CHECK(err == CL_SUCCESS, "create sub-buffer");
    printf("parent refcount: before sub-buffer %u, after %u\n", prc0, mem_refcount(parent));
    /* Access flags as given; the host-pointer flags (COPY_HOST_PTR here) are
     * inherited from the parent. */
    print_mem_info("sub-buffer", sub, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 2 * align, NULL, parent, align);

    /* Contents: the sub-buffer sees the parent's bytes at the offset. */
    CHECK_CL(clEnqueueReadBuffer(queue, sub, CL_TRUE, 0, 2 * align, out, 0, NULL, NULL), "read sub");
    CHECK(memcmp(out, (char *)host + align, 2 * align) == 0, "sub-buffer contents");
    /* Writes through the sub-buffer land in the parent. */
    cl_int marker = -77;
    CHECK_CL(clEnqueueWriteBuffer(queue, sub, CL_TRUE, 0, sizeof marker, &marker, 0, NULL, NULL), "write sub");
    cl_int back = 0;
    CHECK_CL(clEnqueueReadBuffer(queue, parent, CL_TRUE, align, sizeof back, &back, 0, NULL, NULL), "read parent");
    CHECK(back == marker, "write through sub-buffer");
    printf("sub-buffer contents: OK\n");

    /* Sub-buffer that inherits flags (flags = 0). */
    cl_buffer_region r2 = {0, align};
    cl_mem sub2 = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &r2, &err);
    print_status("clCreateSubBuffer(inherit flags)", err);
    CHECK(err == CL_SUCCESS, "create");
    cl_mem_flags f2 = 0;
    CHECK_CL(clGetMemObjectInfo(sub2, CL_MEM_FLAGS, sizeof f2, &f2, NULL), "flags");
    printf("inherited sub-buffer flags: 0x%llx\n", (unsigned long long)f2);
    cl_mem assoc = NULL;
    CHECK_CL(clGetMemObjectInfo(sub2, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof assoc, &assoc, NULL), "assoc");
    CHECK(assoc == parent, "associated");

    /* USE_HOST_PTR parent: the sub-buffer's CL_MEM_HOST_PTR is host_ptr + origin. */
    cl_mem uparent = make_buffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, total, host);
    cl_mem usub = clCreateSubBuffer(uparent, CL_MEM_READ_ONLY, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    print_status("clCreateSubBuffer(USE_HOST_PTR parent)", err);
    CHECK(err == CL_SUCCESS, "create");
    print_mem_info("USE_HOST_PTR sub-buffer", usub, CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, 2 * align,
                   (char *)host + align, uparent, align);
    CHECK_CL(clReleaseMemObject(usub), "release usub");
    CHECK_CL(clReleaseMemObject(uparent), "release uparent");

    CHECK_CL(clReleaseMemObject(sub2), "release sub2");
    CHECK_CL(clReleaseMemObject(sub), "release sub");
    printf("parent refcount after releasing sub-buffers: %u\n", mem_refcount(parent));
    CHECK_CL(clReleaseMemObject(parent), "release parent");
    free(host);
    free(out);
}

static int format_listed(const cl_image_format *fmts, cl_uint n, cl_channel_order o, cl_channel_type t)
{
    for (cl_uint i = 0; i < n; ++i)
        if (fmts[i].image_channel_order == o && fmts[i].image_channel_data_type == t)
            return 1;
    return 0;
}

static void print_image_info(const char *label, cl_mem img, cl_mem buffer)
{
    cl_image_format fmt;
    size_t elem = 0, row = 0, slice = 0, w = 0, h = 0, d = 0, arr = 0;
    cl_uint mips = 0, samples = 0;
    cl_mem b = NULL;
    CHECK_CL(clGetImageInfo(img, CL_IMAGE_FORMAT, sizeof fmt, &fmt, NULL), "CL_IMAGE_FORMAT");
    CHECK_CL(clGetImageInfo(img, CL_IMAGE_ELEMENT_SIZE, sizeof elem, &elem, NULL), "ELEMENT_SIZE");
    CHECK_CL(clGetImageInfo(img, CL_IMAGE_ROW_PITCH, sizeof row, &row, NULL), "ROW_PITCH");
    CHECK_CL(clGetImageInfo(img, CL_IMAGE_SLICE_PITCH, sizeof slice, &slice, NULL), "SLICE_PITCH");
    CHECK_CL(clGetImageInfo(img, CL_IMAGE_WIDTH, sizeof w, &w, NULL), "WIDTH");
    CHECK_CL(clGetImageInfo(img, CL_IMAGE_HEIGHT, sizeof h, &h, NULL), "HEIGHT");
    CHECK_CL(clGetImageInfo(img, CL_IMAGE_DEPTH, sizeof d, &d, NULL), "DEPTH");
    CHECK_CL(clGetImageInfo(img, CL_IMAGE_ARRAY_SIZE, sizeof arr, &arr, NULL), "ARRAY_SIZE");
    CHECK_CL(clGetImageInfo(img, CL_IMAGE_NUM_MIP_LEVELS, sizeof mips, &mips, NULL), "NUM_MIP_LEVELS");
    CHECK_CL(clGetImageInfo(img, CL_IMAGE_NUM_SAMPLES, sizeof samples, &samples, NULL), "NUM_SAMPLES");
    CHECK_CL(clGetImageInfo(img, CL_IMAGE_BUFFER, sizeof b, &b, NULL), "CL_IMAGE_BUFFER");
    printf("%s: format 0x%x/0x%x, element %zu, row pitch %zu, slice pitch %zu, %zux%zux%zu, "
           "array %zu, mips %u, samples %u, buffer %s\n",
           label, fmt.image_channel_order, fmt.image_channel_data_type, elem, row, slice, w, h, d,
           arr, mips, samples, b == NULL ? "null" : same_str(b, buffer));
    CHECK(b == buffer, "CL_IMAGE_BUFFER differs");
    cl_context c = NULL;
    CHECK_CL(clGetMemObjectInfo(img, CL_MEM_CONTEXT, sizeof c, &c, NULL), "CL_MEM_CONTEXT");
    CHECK(c == ctx, "image context");
    cl_mem_object_type t = 0;
    CHECK_CL(clGetMemObjectInfo(img, CL_MEM_TYPE, sizeof t, &t, NULL), "CL_MEM_TYPE");
    printf("%s: CL_MEM_TYPE %s, context same\n", label, mem_type_name(t));
}

/* Creates an RGBA/UNSIGNED_INT8 image of the given description from host data,
 * reads it back, compares and prints its info. */
static void image_round_trip(const char *label, cl_mem_object_type type, size_t w, size_t h,
                             size_t d, size_t arr, cl_mem buffer)
{
    cl_image_format fmt = {CL_RGBA, CL_UNSIGNED_INT8};
    cl_image_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.image_type = type;
    desc.image_width = w;
    desc.image_height = h;
    desc.image_depth = d;
    desc.image_array_size = arr;
    desc.buffer = buffer;
    size_t layers = (type == CL_MEM_OBJECT_IMAGE3D) ? d : (arr ? arr : 1);
    size_t rows = (type == CL_MEM_OBJECT_IMAGE1D || type == CL_MEM_OBJECT_IMAGE1D_BUFFER ||
                   type == CL_MEM_OBJECT_IMAGE1D_ARRAY) ? 1 : h;
    size_t bytes = w * rows * layers * 4;
    unsigned char *src = malloc(bytes), *dst = calloc(bytes, 1);
    for (size_t i = 0; i < bytes; ++i)
        src[i] = (unsigned char)(i * 13 + 5);
    cl_int err = CL_SUCCESS;
    cl_mem_flags fl = CL_MEM_READ_WRITE | (buffer ? 0 : CL_MEM_COPY_HOST_PTR);
    cl_mem img = clCreateImage(ctx, fl, &fmt, &desc, buffer ? NULL : src, &err);
    printf("clCreateImage(%s): %s\n", label, cl_err_name(err));
    CHECK(err == CL_SUCCESS, "create image");
    size_t origin[3] = {0, 0, 0};
    size_t region[3] = {w, 1, 1};
    if (type == CL_MEM_OBJECT_IMAGE2D || type == CL_MEM_OBJECT_IMAGE3D || type == CL_MEM_OBJECT_IMAGE2D_ARRAY)
        region[1] = h;
    if (type == CL_MEM_OBJECT_IMAGE3D)
        region[2] = d;
    if (type == CL_MEM_OBJECT_IMAGE2D_ARRAY)
        region[2] = arr;
    if (type == CL_MEM_OBJECT_IMAGE1D_ARRAY)
        region[1] = arr;
    if (buffer) /* image from buffer: write the data through the image */
        CHECK_CL(clEnqueueWriteImage(queue, img, CL_TRUE, origin, region, 0, 0, src, 0, NULL, NULL), "write image");
    CHECK_CL(clEnqueueReadImage(queue, img, CL_TRUE, origin, region, 0, 0, dst, 0, NULL, NULL), "read image");
    CHECK(memcmp(src, dst, bytes) == 0, "%s contents", label);
    if (buffer) {
        /* The bytes are visible through the buffer the image was made from. */
        memset(dst, 0, bytes);
        size_t pitch = 0;
        CHECK_CL(clGetImageInfo(img, CL_IMAGE_ROW_PITCH, sizeof pitch, &pitch, NULL), "pitch");
        for (size_t y = 0; y < rows; ++y)
            CHECK_CL(clEnqueueReadBuffer(queue, buffer, CL_TRUE, y * pitch, w * 4, dst + y * w * 4, 0, NULL, NULL),
                     "read backing buffer");
        CHECK(memcmp(src, dst, bytes) == 0, "%s backing buffer contents", label);
    }
    printf("%s: contents OK\n", label);
    print_image_info(label, img, buffer);
    CHECK_CL(clReleaseMemObject(img), "release image");
    free(src);
    free(dst);
}

static void test_images(void)
{
    printf("== images\n");
    if (!device_image_support(dev)) {
        printf("skip: images (CL_DEVICE_IMAGE_SUPPORT is CL_FALSE)\n");
        return;
    }
    static const struct {
        cl_mem_object_type t;
        const char *name;
    } types[] = {
        {CL_MEM_OBJECT_IMAGE1D, "IMAGE1D"},
        {CL_MEM_OBJECT_IMAGE1D_BUFFER, "IMAGE1D_BUFFER"},
        {CL_MEM_OBJECT_IMAGE1D_ARRAY, "IMAGE1D_ARRAY"},
        {CL_MEM_OBJECT_IMAGE2D, "IMAGE2D"},
        {CL_MEM_OBJECT_IMAGE2D_ARRAY, "IMAGE2D_ARRAY"},
        {CL_MEM_OBJECT_IMAGE3D, "IMAGE3D"},
    };
    int have_rgba8[6] = {0};
    for (size_t i = 0; i < 6; ++i) {
        cl_uint n = 0;
        cl_int err = clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, types[i].t, 0, NULL, &n);
        if (err != CL_SUCCESS) {
            printf("clGetSupportedImageFormats(%s): %s\n", types[i].name, cl_err_name(err));
            continue;
        }
        cl_image_format *f = calloc(n ? n : 1, sizeof *f);
        cl_uint n2 = 0;
        CHECK_CL(clGetSupportedImageFormats(ctx, CL_MEM_READ_WRITE, types[i].t, n, f, &n2), "formats");
        CHECK(n2 == n, "format count changed");
        cl_uint nro = 0;
        CHECK_CL(clGetSupportedImageFormats(ctx, CL_MEM_READ_ONLY, types[i].t, 0, NULL, &nro), "formats RO");
        have_rgba8[i] = format_listed(f, n, CL_RGBA, CL_UNSIGNED_INT8);
        printf("clGetSupportedImageFormats(%s): %u read-write, %u read-only, RGBA/UNSIGNED_INT8 %s\n",
               types[i].name, n, nro, have_rgba8[i] ? "listed" : "not listed");
        free(f);
    }
    if (have_rgba8[3])
        image_round_trip("2D 16x8", CL_MEM_OBJECT_IMAGE2D, 16, 8, 0, 0, NULL);
    else
        printf("skip: 2D image (format not listed)\n");
    if (have_rgba8[5])
        image_round_trip("3D 8x4x3", CL_MEM_OBJECT_IMAGE3D, 8, 4, 3, 0, NULL);
    else
        printf("skip: 3D image (format not listed)\n");
    if (have_rgba8[0])
        image_round_trip("1D 32", CL_MEM_OBJECT_IMAGE1D, 32, 0, 0, 0, NULL);
    else
        printf("skip: 1D image (format not listed)\n");
    if (have_rgba8[2])
        image_round_trip("1D array 16x3", CL_MEM_OBJECT_IMAGE1D_ARRAY, 16, 0, 0, 3, NULL);
    else
        printf("skip: 1D array image (format not listed)\n");
    if (have_rgba8[4])
        image_round_trip("2D array 8x4x2", CL_MEM_OBJECT_IMAGE2D_ARRAY, 8, 4, 0, 2, NULL);
    else
        printf("skip: 2D array image (format not listed)\n");
    if (have_rgba8[1]) {
        cl_mem b = make_buffer(ctx, CL_MEM_READ_WRITE, 64 * 4, NULL);
        image_round_trip("1D from buffer 64", CL_MEM_OBJECT_IMAGE1D_BUFFER, 64, 0, 0, 0, b);
        clReleaseMemObject(b);
    } else {
        printf("skip: 1D image buffer (format not listed)\n");
    }

    /* 2D image from a buffer: cl_khr_image2d_from_buffer, or 2.0+ with a
     * non-zero CL_DEVICE_IMAGE_PITCH_ALIGNMENT. */
    cl_uint pitch_align = 0;
    if (version >= 20)
        clGetDeviceInfo(dev, CL_DEVICE_IMAGE_PITCH_ALIGNMENT, sizeof pitch_align, &pitch_align, NULL);
    int from_buffer = device_has_extension(dev, "cl_khr_image2d_from_buffer") || (version >= 20 && pitch_align);
    if (!from_buffer || !have_rgba8[3]) {
        printf("skip: 2D image from buffer (cl_khr_image2d_from_buffer not supported)\n");
    } else {
        /* Width chosen so that the row pitch w*4 is a multiple of the pitch
         * alignment (in pixels). */
        size_t w = pitch_align ? (size_t)pitch_align * 4 : 16;
        if (w < 16)
            w = 16;
        cl_mem b = make_buffer(ctx, CL_MEM_READ_WRITE, w * 4 * 4, NULL);
        image_round_trip("2D from buffer", CL_MEM_OBJECT_IMAGE2D, w, 4, 0, 0, b);
        clReleaseMemObject(b);
    }

    if (version < 30) {
        printf("skip: clCreateImageWithProperties (OpenCL %d.%d)\n", version / 10, version % 10);
    } else {
        cl_image_format fmt = {CL_RGBA, CL_UNSIGNED_INT8};
        cl_image_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.image_type = CL_MEM_OBJECT_IMAGE2D;
        desc.image_width = 8;
        desc.image_height = 8;
        cl_int err = CL_SUCCESS;
        cl_mem img = clCreateImageWithProperties(ctx, NULL, CL_MEM_READ_ONLY, &fmt, &desc, NULL, &err);
        print_status("clCreateImageWithProperties", err);
        CHECK(err == CL_SUCCESS, "create");
        print_image_info("image with properties", img, NULL);
        clReleaseMemObject(img);
    }
}

static void print_sampler(const char *label, cl_sampler s, cl_bool norm, cl_addressing_mode am, cl_filter_mode fm)
{
    cl_uint rc = 0;
    cl_context c = NULL;
    cl_bool n = CL_FALSE;
    cl_addressing_mode a = 0;
    cl_filter_mode f = 0;
    CHECK_CL(clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, sizeof rc, &rc, NULL), "SAMPLER_REFERENCE_COUNT");
    CHECK_CL(clGetSamplerInfo(s, CL_SAMPLER_CONTEXT, sizeof c, &c, NULL), "SAMPLER_CONTEXT");
    CHECK_CL(clGetSamplerInfo(s, CL_SAMPLER_NORMALIZED_COORDS, sizeof n, &n, NULL), "NORMALIZED_COORDS");
    CHECK_CL(clGetSamplerInfo(s, CL_SAMPLER_ADDRESSING_MODE, sizeof a, &a, NULL), "ADDRESSING_MODE");
    CHECK_CL(clGetSamplerInfo(s, CL_SAMPLER_FILTER_MODE, sizeof f, &f, NULL), "FILTER_MODE");
    printf("%s: refcount %u, context %s, normalized %s, addressing 0x%x, filter 0x%x\n", label, rc,
           same_str(c, ctx), bool_str(n), a, f);
    CHECK(c == ctx, "CL_SAMPLER_CONTEXT differs");
    CHECK(n == norm && a == am && f == fm, "sampler state differs");
    if (version >= 30) {
        size_t psz = 0;
        cl_int err = clGetSamplerInfo(s, CL_SAMPLER_PROPERTIES, 0, NULL, &psz);
        if (err == CL_SUCCESS)
            printf("%s: CL_SAMPLER_PROPERTIES %zu entries\n", label, psz / sizeof(cl_sampler_properties));
        else
            print_status("CL_SAMPLER_PROPERTIES", err);
    }
}

static void test_samplers(void)
{
    printf("== samplers\n");
    if (!device_image_support(dev)) {
        printf("skip: samplers (CL_DEVICE_IMAGE_SUPPORT is CL_FALSE)\n");
        return;
    }
    cl_int err = CL_SUCCESS;
    cl_sampler s = clCreateSampler(ctx, CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR, &err);
    print_status("clCreateSampler", err);
    CHECK(err == CL_SUCCESS, "create sampler");
    print_sampler("clCreateSampler", s, CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR);
    CHECK_CL(clRetainSampler(s), "retain");
    cl_uint rc = 0;
    CHECK_CL(clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, sizeof rc, &rc, NULL), "rc");
    printf("sampler refcount after retain: %u\n", rc);
    CHECK_CL(clReleaseSampler(s), "release");
    CHECK_CL(clReleaseSampler(s), "release");

    if (version < 20) {
        printf("skip: clCreateSamplerWithProperties (OpenCL %d.%d)\n", version / 10, version % 10);
        return;
    }
    cl_sampler_properties props[] = {CL_SAMPLER_NORMALIZED_COORDS, CL_FALSE,
                                     CL_SAMPLER_ADDRESSING_MODE, CL_ADDRESS_CLAMP_TO_EDGE,
                                     CL_SAMPLER_FILTER_MODE, CL_FILTER_NEAREST, 0};
    s = clCreateSamplerWithProperties(ctx, props, &err);
    print_status("clCreateSamplerWithProperties", err);
    CHECK(err == CL_SUCCESS, "create");
    print_sampler("clCreateSamplerWithProperties", s, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST);
    clReleaseSampler(s);
    /* NULL properties mean "defaults" in the spec; PoCL 3.1 answers
     * CL_INVALID_VALUE, so only print what comes back. */
    s = clCreateSamplerWithProperties(ctx, NULL, &err);
    print_status("clCreateSamplerWithProperties(NULL)", err);
    if (err == CL_SUCCESS) {
        print_sampler("default sampler", s, CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST);
        clReleaseSampler(s);
    }
}

static void test_pipes(void)
{
    printf("== pipes\n");
    cl_bool pipes = CL_FALSE;
    if (version >= 30) {
        CHECK_CL(clGetDeviceInfo(dev, CL_DEVICE_PIPE_SUPPORT, sizeof pipes, &pipes, NULL), "PIPE_SUPPORT");
    } else if (version >= 20) {
        pipes = CL_TRUE; /* mandatory in 2.x */
    }
    if (!pipes) {
        printf("skip: pipes (CL_DEVICE_PIPE_SUPPORT is CL_FALSE or OpenCL < 2.0)\n");
        return;
    }
    cl_int err = CL_SUCCESS;
    cl_mem p = clCreatePipe(ctx, CL_MEM_READ_WRITE, 16, 32, NULL, &err);
    print_status("clCreatePipe(16 bytes x 32)", err);
    CHECK(err == CL_SUCCESS, "create pipe");
    cl_uint psize = 0, pmax = 0;
    CHECK_CL(clGetPipeInfo(p, CL_PIPE_PACKET_SIZE, sizeof psize, &psize, NULL), "PACKET_SIZE");
    CHECK_CL(clGetPipeInfo(p, CL_PIPE_MAX_PACKETS, sizeof pmax, &pmax, NULL), "MAX_PACKETS");
    printf("CL_PIPE_PACKET_SIZE: %u, CL_PIPE_MAX_PACKETS: %u\n", psize, pmax);
    CHECK(psize == 16 && pmax == 32, "pipe info");
    if (version >= 30) {
        size_t sz = 0;
        err = clGetPipeInfo(p, CL_PIPE_PROPERTIES, 0, NULL, &sz);
        if (err == CL_SUCCESS)
            printf("CL_PIPE_PROPERTIES: %zu entries\n", sz / sizeof(cl_pipe_properties));
        else
            print_status("CL_PIPE_PROPERTIES", err);
    }
    cl_mem_object_type t = 0;
    cl_context c = NULL;
    CHECK_CL(clGetMemObjectInfo(p, CL_MEM_TYPE, sizeof t, &t, NULL), "MEM_TYPE");
    CHECK_CL(clGetMemObjectInfo(p, CL_MEM_CONTEXT, sizeof c, &c, NULL), "MEM_CONTEXT");
    printf("pipe: CL_MEM_TYPE %s, context %s\n", mem_type_name(t), same_str(c, ctx));
    CHECK(t == CL_MEM_OBJECT_PIPE && c == ctx, "pipe mem info");
    clReleaseMemObject(p);
}

static void test_svm(void)
{
    printf("== SVM\n");
    cl_device_svm_capabilities caps = device_svm_caps(platform, dev);
    if (!caps) {
        printf("skip: SVM (CL_DEVICE_SVM_CAPABILITIES is 0 or OpenCL < 2.0)\n");
        return;
    }
    printf("SVM coarse grain buffer: %s\n", (caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) ? "yes" : "no");
    cl_int *p = clSVMAlloc(ctx, CL_MEM_READ_WRITE, N * sizeof(cl_int), 0);
    printf("clSVMAlloc: %s\n", p ? "non-null" : "null");
    CHECK(p != NULL, "clSVMAlloc");
    /* Coarse grain: host access inside map/unmap. */
    CHECK_CL(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_WRITE, p, N * sizeof(cl_int), 0, NULL, NULL), "SVMMap");
    for (int i = 0; i < N; ++i)
        p[i] = i ^ 0x55;
    CHECK_CL(clEnqueueSVMUnmap(queue, p, 0, NULL, NULL), "SVMUnmap");
    /* A buffer on top of the SVM allocation. */
    cl_int err = CL_SUCCESS;
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, N * sizeof(cl_int), p, &err);
    print_status("clCreateBuffer(USE_HOST_PTR on SVM)", err);
    CHECK(err == CL_SUCCESS, "buffer on SVM");
    cl_bool uses = CL_FALSE;
    CHECK_CL(clGetMemObjectInfo(b, CL_MEM_USES_SVM_POINTER, sizeof uses, &uses, NULL), "USES_SVM_POINTER");
    printf("CL_MEM_USES_SVM_POINTER: %s\n", bool_str(uses));
    CHECK(uses == CL_TRUE, "USES_SVM_POINTER");
    static cl_int out[N];
    CHECK_CL(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL), "read");
    for (int i = 0; i < N; ++i)
        CHECK(out[i] == (i ^ 0x55), "SVM-backed buffer contents at %d", i);
    printf("SVM-backed buffer contents: OK\n");
    clReleaseMemObject(b);
    CHECK_CL(clFinish(queue), "finish");
    clSVMFree(ctx, p);
    printf("clSVMFree: done\n");
}

struct destructor_record {
    atomic_int calls;
    cl_mem seen;
    void *user_data;
};

static void CL_CALLBACK mem_destructor(cl_mem m, void *user_data)
{
    struct destructor_record *r = user_data;
    r->seen = m;
    r->user_data = user_data;
    atomic_fetch_add(&r->calls, 1);
}

static void test_destructor_callback(void)
{
    printf("== destructor callback\n");
    static struct destructor_record rec;
    atomic_init(&rec.calls, 0);
    cl_mem m = make_buffer(ctx, CL_MEM_READ_WRITE, 128, NULL);
    cl_int err = clSetMemObjectDestructorCallback(m, mem_destructor, &rec);
    print_status("clSetMemObjectDestructorCallback", err);
    CHECK(err == CL_SUCCESS, "set destructor");
    CHECK_CL(clRetainMemObject(m), "retain");
    CHECK_CL(clReleaseMemObject(m), "release (not last)");
    CHECK(atomic_load(&rec.calls) == 0, "destructor ran before the last release");
    CHECK_CL(clReleaseMemObject(m), "release (last)");
    CHECK_CL(clFinish(queue), "finish");
    WAIT_FOR(&rec.calls, 1, "mem destructor callback");
    printf("destructor calls: %d, memobj %s, user_data %s\n", atomic_load(&rec.calls),
           same_str(rec.seen, m), same_str(rec.user_data, &rec));
    CHECK(atomic_load(&rec.calls) == 1, "destructor must run exactly once");
    CHECK(rec.seen == m, "destructor memobj is not the application's handle");
    CHECK(rec.user_data == &rec, "destructor user_data");

    /* A sub-buffer's destructor, too. */
    static struct destructor_record rec2;
    atomic_init(&rec2.calls, 0);
    cl_mem parent = make_buffer(ctx, CL_MEM_READ_WRITE, 4096, NULL);
    cl_buffer_region r = {0, 64};
    cl_mem sub = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
    CHECK_CL(err, "sub-buffer");
    CHECK_CL(clSetMemObjectDestructorCallback(sub, mem_destructor, &rec2), "set destructor (sub)");
    CHECK_CL(clReleaseMemObject(sub), "release sub");
    WAIT_FOR(&rec2.calls, 1, "sub-buffer destructor callback");
    printf("sub-buffer destructor calls: %d, memobj %s, user_data %s\n", atomic_load(&rec2.calls),
           same_str(rec2.seen, sub), same_str(rec2.user_data, &rec2));
    CHECK(rec2.seen == sub && rec2.user_data == &rec2, "sub-buffer destructor arguments");
    clReleaseMemObject(parent);
}

static void test_refcounts(void)
{
    printf("== reference counts\n");
    cl_mem m = make_buffer(ctx, CL_MEM_READ_WRITE, 64, NULL);
    cl_uint a = mem_refcount(m);
    clRetainMemObject(m);
    cl_uint b = mem_refcount(m);
    clRetainMemObject(m);
    cl_uint c = mem_refcount(m);
    clReleaseMemObject(m);
    cl_uint d = mem_refcount(m);
    printf("buffer refcount: create %u, retain %u, retain %u, release %u\n", a, b, c, d);
    CHECK(a == 1 && b == 2 && c == 3 && d == 2, "buffer refcount");
    clReleaseMemObject(m);
    clReleaseMemObject(m);
}

int main(void)
{
    pick_device(&platform, &dev);
    version = api_version(platform, dev);
    ctx = make_context(dev);
    queue = make_queue(ctx, dev, 0);

    test_buffers();
    test_sub_buffers();
    test_images();
    test_samplers();
    test_pipes();
    test_svm();
    test_destructor_callback();
    test_refcounts();

    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    printf("memory: PASS\n");
    return 0;
}
