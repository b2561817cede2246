/*
 * enqueue.c - every enqueue command kind with checked results, non-blocking
 * chains through event wait lists, and the CL_EVENT_COMMAND_TYPE of each
 * returned event.
 */
#include "common.h"

static cl_platform_id platform;
static cl_device_id dev;
static cl_context ctx;
static cl_command_queue queue;
static cl_program prog;
static int version;
static int is_pocl;

static const char *src =
    "__kernel void ids(__global int *out) {\n"
    "    size_t x = get_global_id(0) - get_global_offset(0);\n"
    "    size_t y = get_global_id(1) - get_global_offset(1);\n"
    "    size_t z = get_global_id(2) - get_global_offset(2);\n"
    "    size_t lin = x + get_global_size(0) * (y + get_global_size(1) * z);\n"
    "    out[lin] = (int)(get_global_id(0) + 100 * get_global_id(1) + 10000 * get_global_id(2));\n"
    "}\n"
    "__kernel void task(__global int *out) {\n"
    "    out[0] = (int)get_global_size(0) * 1000 + 7;\n"
    "}\n"
    "__kernel void add_one(__global int *a) {\n"
    "    a[get_global_id(0)] += 1;\n"
    "}\n";

/* Checks and prints the command type of an event, then releases it. */
static void expect_type(const char *label, cl_event e, cl_command_type expected)
{
    cl_command_type t = 0;
    CHECK_CL(clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof t, &t, NULL), "CL_EVENT_COMMAND_TYPE");
    printf("%s: event %s\n", label, cmd_type_name(t));
    CHECK(t == expected, "%s: expected %s", label, cmd_type_name(expected));
    cl_command_queue q = NULL;
    CHECK_CL(clGetEventInfo(e, CL_EVENT_COMMAND_QUEUE, sizeof q, &q, NULL), "CL_EVENT_COMMAND_QUEUE");
    CHECK(q == queue, "%s: event queue differs", label);
    CHECK_CL(clReleaseEvent(e), "clReleaseEvent");
}

static void test_buffers(void)
{
    printf("== read / write / copy buffer\n");
    enum { N = 1024 };
    static cl_int a[N], b[N];
    for (int i = 0; i < N; ++i)
        a[i] = i * 5 - 3;
    cl_mem src_buf = make_buffer(ctx, CL_MEM_READ_WRITE, sizeof a, NULL);
    cl_mem dst_buf = make_buffer(ctx, CL_MEM_READ_WRITE, sizeof a, NULL);
    cl_event e = NULL;

    CHECK_CL(clEnqueueWriteBuffer(queue, src_buf, CL_TRUE, 0, sizeof a, a, 0, NULL, &e), "write");
    expect_type("clEnqueueWriteBuffer(blocking)", e, CL_COMMAND_WRITE_BUFFER);
    memset(b, 0, sizeof b);
    CHECK_CL(clEnqueueReadBuffer(queue, src_buf, CL_TRUE, 0, sizeof b, b, 0, NULL, &e), "read");
    CHECK(memcmp(a, b, sizeof a) == 0, "blocking round trip");
    expect_type("clEnqueueReadBuffer(blocking)", e, CL_COMMAND_READ_BUFFER);

    /* Non-blocking chain: write -> copy (with offsets) -> read. */
    for (int i = 0; i < N; ++i)
        a[i] = i ^ 0x3c3c;
    cl_event ew, ec, er;
    CHECK_CL(clEnqueueWriteBuffer(queue, src_buf, CL_FALSE, 0, sizeof a, a, 0, NULL, &ew), "write nb");
    cl_int minus = -1;
    CHECK_CL(clEnqueueFillBuffer(queue, dst_buf, &minus, sizeof minus, 0, sizeof a, 0, NULL, NULL), "fill");
    CHECK_CL(clEnqueueCopyBuffer(queue, src_buf, dst_buf, 16 * sizeof(cl_int), 32 * sizeof(cl_int),
                                 100 * sizeof(cl_int), 1, &ew, &ec),
             "copy");
    memset(b, 0, sizeof b);
    CHECK_CL(clEnqueueReadBuffer(queue, dst_buf, CL_FALSE, 0, sizeof b, b, 1, &ec, &er), "read nb");
    CHECK_CL(clWaitForEvents(1, &er), "wait");
    for (int i = 0; i < N; ++i) {
        cl_int want = (i >= 32 && i < 132) ? a[i - 32 + 16] : -1;
        CHECK(b[i] == want, "copy result at %d", i);
    }
    printf("write -> copy -> read chain: OK\n");
    expect_type("clEnqueueWriteBuffer(non-blocking)", ew, CL_COMMAND_WRITE_BUFFER);
    expect_type("clEnqueueCopyBuffer", ec, CL_COMMAND_COPY_BUFFER);
    expect_type("clEnqueueReadBuffer(non-blocking)", er, CL_COMMAND_READ_BUFFER);

    /* Partial read/write with offsets. */
    cl_int part[10] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, got[10];
    CHECK_CL(clEnqueueWriteBuffer(queue, dst_buf, CL_TRUE, 40, sizeof part, part, 0, NULL, NULL), "write off");
    CHECK_CL(clEnqueueReadBuffer(queue, dst_buf, CL_TRUE, 40, sizeof got, got, 0, NULL, NULL), "read off");
    CHECK(memcmp(part, got, sizeof part) == 0, "offset write/read");
    printf("offset write/read: OK\n");

    /* Copy within one buffer (non-overlapping) and an overlapping copy. */
    CHECK_CL(clEnqueueCopyBuffer(queue, dst_buf, dst_buf, 0, 512 * sizeof(cl_int), 64 * sizeof(cl_int), 0, NULL,
                                 NULL),
             "self copy");
    CHECK_CL(clFinish(queue), "finish");
    cl_int err = clEnqueueCopyBuffer(queue, dst_buf, dst_buf, 0, 8, 64, 0, NULL, NULL);
    print_status("clEnqueueCopyBuffer(overlapping)", err);
    CHECK(err == CL_MEM_COPY_OVERLAP, "overlapping copy must fail with CL_MEM_COPY_OVERLAP");

    clReleaseMemObject(src_buf);
    clReleaseMemObject(dst_buf);
}

static void test_rect(void)
{
    printf("== buffer rect\n");
    enum { W = 16, H = 16 };
    static cl_int host[W * H], back[W * H], small[8 * 4];
    cl_mem buf = make_buffer(ctx, CL_MEM_READ_WRITE, sizeof host, NULL);
    cl_mem buf2 = make_buffer(ctx, CL_MEM_READ_WRITE, sizeof host, NULL);
    cl_int minus = -1, zero = 0;
    CHECK_CL(clEnqueueFillBuffer(queue, buf, &minus, sizeof minus, 0, sizeof host, 0, NULL, NULL), "fill");
    CHECK_CL(clEnqueueFillBuffer(queue, buf2, &zero, sizeof zero, 0, sizeof host, 0, NULL, NULL), "fill");
    for (int i = 0; i < 8 * 4; ++i)
        small[i] = 1000 + i;
    /* Write an 8x4 block (host rows of 8 ints) at (4, 2) of the 16x16 buffer. */
    size_t borigin[3] = {4 * sizeof(cl_int), 2, 0}, horigin[3] = {0, 0, 0};
    size_t region[3] = {8 * sizeof(cl_int), 4, 1};
    cl_event e;
    CHECK_CL(clEnqueueWriteBufferRect(queue, buf, CL_FALSE, borigin, horigin, region, W * sizeof(cl_int), 0,
                                      8 * sizeof(cl_int), 0, small, 0, NULL, &e),
             "WriteBufferRect");
    cl_event ew = e;
    CHECK_CL(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, sizeof back, back, 1, &ew, NULL), "read");
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            cl_int want = (x >= 4 && x < 12 && y >= 2 && y < 6) ? 1000 + (y - 2) * 8 + (x - 4) : -1;
            CHECK(back[y * W + x] == want, "WriteBufferRect at (%d,%d): %d", x, y, back[y * W + x]);
        }
    printf("clEnqueueWriteBufferRect: OK\n");
    expect_type("clEnqueueWriteBufferRect", ew, CL_COMMAND_WRITE_BUFFER_RECT);

    /* Read the block back into a 16-wide host array at host origin (1, 3). */
    memset(host, 0, sizeof host);
    size_t horigin2[3] = {1 * sizeof(cl_int), 3, 0};
    CHECK_CL(clEnqueueReadBufferRect(queue, buf, CL_TRUE, borigin, horigin2, region, W * sizeof(cl_int), 0,
                                     W * sizeof(cl_int), 0, host, 0, NULL, &e),
             "ReadBufferRect");
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            cl_int want = (x >= 1 && x < 9 && y >= 3 && y < 7) ? 1000 + (y - 3) * 8 + (x - 1) : 0;
            CHECK(host[y * W + x] == want, "ReadBufferRect at (%d,%d)", x, y);
        }
    printf("clEnqueueReadBufferRect: OK\n");
    expect_type("clEnqueueReadBufferRect", e, CL_COMMAND_READ_BUFFER_RECT);

    /* Copy the block to buf2 at (0, 0) with a row pitch of 8 ints. */
    size_t dorigin[3] = {0, 0, 0};
    CHECK_CL(clEnqueueCopyBufferRect(queue, buf, buf2, borigin, dorigin, region, W * sizeof(cl_int), 0,
                                     8 * sizeof(cl_int), 0, 0, NULL, &e),
             "CopyBufferRect");
    cl_event ec = e;
    CHECK_CL(clEnqueueReadBuffer(queue, buf2, CL_TRUE, 0, sizeof back, back, 1, &ec, NULL), "read");
    for (int i = 0; i < W * H; ++i)
        CHECK(back[i] == (i < 32 ? 1000 + i : 0), "CopyBufferRect at %d", i);
    printf("clEnqueueCopyBufferRect: OK\n");
    expect_type("clEnqueueCopyBufferRect", ec, CL_COMMAND_COPY_BUFFER_RECT);

    /* 3D rect: 2 slices of 2x2 ints. */
    size_t o3[3] = {0, 0, 0}, r3[3] = {2 * sizeof(cl_int), 2, 2};
    cl_int cube[8] = {1, 2, 3, 4, 5, 6, 7, 8}, cube_back[8] = {0};
    CHECK_CL(clEnqueueWriteBufferRect(queue, buf2, CL_TRUE, o3, o3, r3, 4 * sizeof(cl_int), 16 * sizeof(cl_int),
                                      0, 0, cube, 0, NULL, NULL),
             "WriteBufferRect 3D");
    CHECK_CL(clEnqueueReadBufferRect(queue, buf2, CL_TRUE, o3, o3, r3, 4 * sizeof(cl_int), 16 * sizeof(cl_int), 0,
                                     0, cube_back, 0, NULL, NULL),
             "ReadBufferRect 3D");
    CHECK(memcmp(cube, cube_back, sizeof cube) == 0, "3D rect round trip");
    cl_int probe = 0;
    CHECK_CL(clEnqueueReadBuffer(queue, buf2, CL_TRUE, 16 * sizeof(cl_int), sizeof probe, &probe, 0, NULL, NULL),
             "probe");
    CHECK(probe == 5, "second slice placement");
    printf("3D buffer rect round trip: OK\n");
    clReleaseMemObject(buf);
    clReleaseMemObject(buf2);
}

static void test_fill(void)
{
    printf("== fill buffer\n");
    enum { N = 256 };
    static cl_uchar back[N * 4];
    cl_mem buf = make_buffer(ctx, CL_MEM_READ_WRITE, sizeof back, NULL);
    cl_uchar b1 = 0xab;
    cl_event e;
    CHECK_CL(clEnqueueFillBuffer(queue, buf, &b1, 1, 0, sizeof back, 0, NULL, &e), "fill 1");
    expect_type("clEnqueueFillBuffer(1-byte pattern)", e, CL_COMMAND_FILL_BUFFER);
    cl_int i4 = 0x01020304;
    CHECK_CL(clEnqueueFillBuffer(queue, buf, &i4, sizeof i4, 64, 128, 0, NULL, NULL), "fill 4");
    cl_int pat16[4] = {-1, -2, -3, -4};
    CHECK_CL(clEnqueueFillBuffer(queue, buf, pat16, sizeof pat16, 512, 256, 0, NULL, &e), "fill 16");
    CHECK_CL(clWaitForEvents(1, &e), "wait");
    expect_type("clEnqueueFillBuffer(16-byte pattern)", e, CL_COMMAND_FILL_BUFFER);
    CHECK_CL(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL), "read");
    for (int i = 0; i < (int)sizeof back; ++i) {
        cl_uchar want = 0xab;
        if (i >= 64 && i < 192)
            want = ((cl_uchar *)&i4)[i % 4];
        else if (i >= 512 && i < 768)
            want = ((cl_uchar *)pat16)[(i - 512) % 16];
        CHECK(back[i] == want, "fill at byte %d", i);
    }
    printf("fill patterns 1/4/16 bytes: OK\n");
    clReleaseMemObject(buf);
}

static void test_map_buffer(void)
{
    printf("== map buffer\n");
    enum { N = 512 };
    static cl_int host[N];
    for (int i = 0; i < N; ++i)
        host[i] = i;
    cl_mem buf = make_buffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host);
    cl_int err = CL_SUCCESS;
    cl_event em, eu;
    cl_int *p = clEnqueueMapBuffer(queue, buf, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 64 * sizeof(cl_int),
                                   128 * sizeof(cl_int), 0, NULL, &em, &err);
    CHECK_CL(err, "map");
    for (int i = 0; i < 128; ++i) {
        CHECK(p[i] == i + 64, "mapped content at %d", i);
        p[i] = -p[i];
    }
    cl_uint mc = 0;
    CHECK_CL(clGetMemObjectInfo(buf, CL_MEM_MAP_COUNT, sizeof mc, &mc, NULL), "MAP_COUNT");
    printf("mapped region: contents OK, CL_MEM_MAP_COUNT while mapped >= 1: %s\n", mc >= 1 ? "yes" : "no");
    CHECK_CL(clEnqueueUnmapMemObject(queue, buf, p, 0, NULL, &eu), "unmap");
    expect_type("clEnqueueMapBuffer", em, CL_COMMAND_MAP_BUFFER);
    CHECK_CL(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, sizeof host, host, 1, &eu, NULL), "read");
    for (int i = 0; i < N; ++i)
        CHECK(host[i] == ((i >= 64 && i < 192) ? -i : i), "after unmap at %d", i);
    printf("write through mapping: OK\n");
    expect_type("clEnqueueUnmapMemObject", eu, CL_COMMAND_UNMAP_MEM_OBJECT);

    /* Non-blocking map that waits on a write, then WRITE_INVALIDATE_REGION. */
    cl_int vals[16];
    for (int i = 0; i < 16; ++i)
        vals[i] = 7000 + i;
    cl_event ew;
    CHECK_CL(clEnqueueWriteBuffer(queue, buf, CL_FALSE, 0, sizeof vals, vals, 0, NULL, &ew), "write");
    p = clEnqueueMapBuffer(queue, buf, CL_FALSE, CL_MAP_READ, 0, sizeof vals, 1, &ew, &em, &err);
    CHECK_CL(err, "map nb");
    CHECK_CL(clWaitForEvents(1, &em), "wait map");
    CHECK(memcmp(p, vals, sizeof vals) == 0, "non-blocking map contents");
    CHECK_CL(clEnqueueUnmapMemObject(queue, buf, p, 0, NULL, NULL), "unmap");
    printf("non-blocking map after write: OK\n");
    clReleaseEvent(ew);
    clReleaseEvent(em);
    p = clEnqueueMapBuffer(queue, buf, CL_TRUE, CL_MAP_WRITE_INVALIDATE_REGION, 0, sizeof host, 0, NULL, NULL, &err);
    CHECK_CL(err, "map invalidate");
    for (int i = 0; i < N; ++i)
        p[i] = 3 * i;
    CHECK_CL(clEnqueueUnmapMemObject(queue, buf, p, 0, NULL, NULL), "unmap");
    CHECK_CL(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL), "read");
    for (int i = 0; i < N; ++i)
        CHECK(host[i] == 3 * i, "invalidate-region map at %d", i);
    printf("CL_MAP_WRITE_INVALIDATE_REGION: OK\n");
    clReleaseMemObject(buf);
}

static void test_images(void)
{
    printf("== images\n");
    if (!device_image_support(dev)) {
        printf("skip: image enqueues (no image support)\n");
        return;
    }
    enum { W = 16, H = 8 };
    cl_image_format fmt = {CL_RGBA, CL_UNSIGNED_INT8};
    cl_image_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = W;
    desc.image_height = H;
    cl_int err = CL_SUCCESS;
    cl_mem img = clCreateImage(ctx, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err);
    CHECK_CL(err, "image");
    cl_mem img2 = clCreateImage(ctx, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err);
    CHECK_CL(err, "image2");
    static cl_uchar px[W * H * 4], back[W * H * 4];
    size_t origin[3] = {0, 0, 0}, full[3] = {W, H, 1};
    cl_event e;

    /* Fill the whole image, then overwrite a 4x2 block at (3, 5). */
    cl_uint4 color = {{10, 20, 30, 40}};
    CHECK_CL(clEnqueueFillImage(queue, img, &color, origin, full, 0, NULL, &e), "fill image");
    expect_type("clEnqueueFillImage", e, CL_COMMAND_FILL_IMAGE);
    cl_uchar block[4 * 2 * 4];
    for (int i = 0; i < (int)sizeof block; ++i)
        block[i] = (cl_uchar)(200 + i);
    size_t borigin[3] = {3, 5, 0}, bregion[3] = {4, 2, 1};
    CHECK_CL(clEnqueueWriteImage(queue, img, CL_FALSE, borigin, bregion, 0, 0, block, 0, NULL, &e), "write image");
    cl_event ew = e;
    CHECK_CL(clEnqueueReadImage(queue, img, CL_FALSE, origin, full, 0, 0, back, 1, &ew, &e), "read image");
    CHECK_CL(clWaitForEvents(1, &e), "wait");
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x)
            for (int c = 0; c < 4; ++c) {
                int inside = x >= 3 && x < 7 && y >= 5 && y < 7;
                cl_uchar want = inside ? block[((y - 5) * 4 + (x - 3)) * 4 + c] : (cl_uchar)(10 * (c + 1));
                CHECK(back[(y * W + x) * 4 + c] == want, "image pixel (%d,%d,%d)", x, y, c);
            }
    printf("fill + write + read image: OK\n");
    expect_type("clEnqueueWriteImage", ew, CL_COMMAND_WRITE_IMAGE);
    expect_type("clEnqueueReadImage", e, CL_COMMAND_READ_IMAGE);

    /* Copy the image to img2, then img2 -> buffer -> image round trips. */
    CHECK_CL(clEnqueueCopyImage(queue, img, img2, origin, origin, full, 0, NULL, &e), "copy image");
    cl_event ec = e;
    cl_mem buf = make_buffer(ctx, CL_MEM_READ_WRITE, sizeof px, NULL);
    CHECK_CL(clEnqueueCopyImageToBuffer(queue, img2, buf, origin, full, 0, 1, &ec, &e), "image -> buffer");
    cl_event eib = e;
    memset(px, 0, sizeof px);
    CHECK_CL(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, sizeof px, px, 1, &eib, NULL), "read buffer");
    CHECK(memcmp(px, back, sizeof px) == 0, "copy image + image to buffer");
    printf("copy image + copy image to buffer: OK\n");
    expect_type("clEnqueueCopyImage", ec, CL_COMMAND_COPY_IMAGE);
    expect_type("clEnqueueCopyImageToBuffer", eib, CL_COMMAND_COPY_IMAGE_TO_BUFFER);

    for (int i = 0; i < (int)sizeof px; ++i)
        px[i] = (cl_uchar)(i * 7);
    CHECK_CL(clEnqueueWriteBuffer(queue, buf, CL_TRUE, 0, sizeof px, px, 0, NULL, NULL), "write buffer");
    CHECK_CL(clEnqueueCopyBufferToImage(queue, buf, img2, 0, origin, full, 0, NULL, &e), "buffer -> image");
    cl_event ebi = e;
    CHECK_CL(clEnqueueReadImage(queue, img2, CL_TRUE, origin, full, 0, 0, back, 1, &ebi, NULL), "read");
    CHECK(memcmp(px, back, sizeof px) == 0, "copy buffer to image");
    printf("copy buffer to image: OK\n");
    expect_type("clEnqueueCopyBufferToImage", ebi, CL_COMMAND_COPY_BUFFER_TO_IMAGE);

    /* Map the image, write through the mapping honouring the row pitch. */
    size_t row_pitch = 0;
    cl_uchar *m = clEnqueueMapImage(queue, img2, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, origin, full, &row_pitch, NULL,
                                    0, NULL, &e, &err);
    CHECK_CL(err, "map image");
    CHECK(row_pitch >= W * 4, "row pitch");
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W * 4; ++x) {
            CHECK(m[y * row_pitch + x] == px[y * W * 4 + x], "mapped image content");
            m[y * row_pitch + x] = (cl_uchar)(255 - px[y * W * 4 + x]);
        }
    expect_type("clEnqueueMapImage", e, CL_COMMAND_MAP_IMAGE);
    CHECK_CL(clEnqueueUnmapMemObject(queue, img2, m, 0, NULL, &e), "unmap image");
    cl_event eu = e;
    CHECK_CL(clEnqueueReadImage(queue, img2, CL_TRUE, origin, full, 0, 0, back, 1, &eu, NULL), "read");
    for (int i = 0; i < (int)sizeof back; ++i)
        CHECK((int)back[i] + (int)px[i] == 255, "write through image mapping");
    printf("map image + unmap: OK\n");
    expect_type("clEnqueueUnmapMemObject(image)", eu, CL_COMMAND_UNMAP_MEM_OBJECT);

    clReleaseMemObject(buf);
    clReleaseMemObject(img);
    clReleaseMemObject(img2);
}

static void test_migrate_markers(void)
{
    printf("== migrate, markers, barriers\n");
    cl_int vals[64], back[64];
    for (int i = 0; i < 64; ++i)
        vals[i] = i * i;
    cl_mem buf = make_buffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof vals, vals);
    cl_mem scratch = make_buffer(ctx, CL_MEM_READ_WRITE, sizeof vals, NULL);
    cl_event e;
    CHECK_CL(clEnqueueMigrateMemObjects(queue, 1, &buf, CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL, &e), "migrate host");
    expect_type("clEnqueueMigrateMemObjects(HOST)", e, CL_COMMAND_MIGRATE_MEM_OBJECTS);
    cl_mem both[2] = {buf, scratch};
    CHECK_CL(clEnqueueMigrateMemObjects(queue, 1, &scratch, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED, 0, NULL, NULL),
             "migrate undefined");
    CHECK_CL(clEnqueueMigrateMemObjects(queue, 2, both, 0, 0, NULL, &e), "migrate to device");
    expect_type("clEnqueueMigrateMemObjects(device)", e, CL_COMMAND_MIGRATE_MEM_OBJECTS);
    CHECK_CL(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL), "read");
    CHECK(memcmp(vals, back, sizeof vals) == 0, "contents survive migration");
    printf("contents after migration: OK\n");

    cl_event ew, em, eb;
    CHECK_CL(clEnqueueWriteBuffer(queue, scratch, CL_FALSE, 0, sizeof vals, vals, 0, NULL, &ew), "write");
    CHECK_CL(clEnqueueMarkerWithWaitList(queue, 1, &ew, &em), "marker");
    CHECK_CL(clEnqueueBarrierWithWaitList(queue, 1, &em, &eb), "barrier");
    CHECK_CL(clWaitForEvents(1, &eb), "wait barrier");
    cl_int st = 0;
    CHECK_CL(clGetEventInfo(ew, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL), "status");
    printf("write complete after barrier: %s\n", st == CL_COMPLETE ? "yes" : "no");
    CHECK(st == CL_COMPLETE, "barrier completed before its dependency");
    expect_type("clEnqueueMarkerWithWaitList", em, CL_COMMAND_MARKER);
    expect_type("clEnqueueBarrierWithWaitList", eb, CL_COMMAND_BARRIER);
    clReleaseEvent(ew);
    CHECK_CL(clEnqueueMarkerWithWaitList(queue, 0, NULL, &em), "marker (no list)");
    CHECK_CL(clEnqueueBarrierWithWaitList(queue, 0, NULL, &eb), "barrier (no list)");
    CHECK_CL(clFinish(queue), "finish");
    expect_type("clEnqueueMarkerWithWaitList(empty)", em, CL_COMMAND_MARKER);
    expect_type("clEnqueueBarrierWithWaitList(empty)", eb, CL_COMMAND_BARRIER);

    /* Legacy 1.0/1.1 entry points. */
    CHECK_CL(clEnqueueMarker(queue, &em), "clEnqueueMarker");
    print_status("clEnqueueBarrier", clEnqueueBarrier(queue));
    CHECK_CL(clWaitForEvents(1, &em), "wait marker");
    expect_type("clEnqueueMarker", em, CL_COMMAND_MARKER);
    if (is_pocl) {
        /* PoCL 3.1 aborts the process: "The entire clEnqueueWaitForEvents
         * call is unimplemented". */
        printf("skip: clEnqueueWaitForEvents (unimplemented in PoCL, aborts)\n");
    } else {
        cl_event ue = clCreateUserEvent(ctx, NULL);
        CHECK(ue != NULL, "user event");
        print_status("clEnqueueWaitForEvents(user event)", clEnqueueWaitForEvents(queue, 1, &ue));
        for (int i = 0; i < 64; ++i)
            vals[i] = -i;
        CHECK_CL(clEnqueueWriteBuffer(queue, scratch, CL_FALSE, 0, sizeof vals, vals, 0, NULL, &ew), "write");
        /* No clFlush here: Oclgrind's clFlush runs the queue to completion and
         * would wait forever for the user event. */
        CHECK_CL(clSetUserEventStatus(ue, CL_COMPLETE), "set user event");
        CHECK_CL(clWaitForEvents(1, &ew), "wait write");
        CHECK_CL(clEnqueueReadBuffer(queue, scratch, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL), "read");
        CHECK(memcmp(vals, back, sizeof vals) == 0, "write after clEnqueueWaitForEvents");
        printf("write after clEnqueueWaitForEvents(user event): OK\n");
        clReleaseEvent(ew);
        clReleaseEvent(ue);
    }
    clReleaseMemObject(buf);
    clReleaseMemObject(scratch);
}

static void run_ids(const char *label, cl_uint dim, const size_t *offset, const size_t *global, const size_t *local)
{
    size_t g[3] = {1, 1, 1}, o[3] = {0, 0, 0};
    for (cl_uint d = 0; d < dim; ++d) {
        g[d] = global[d];
        if (offset)
            o[d] = offset[d];
    }
    size_t n = g[0] * g[1] * g[2];
    cl_int *res = calloc(n, sizeof *res);
    cl_mem out = make_buffer(ctx, CL_MEM_READ_WRITE, n * sizeof(cl_int), NULL);
    cl_int minus = -1;
    CHECK_CL(clEnqueueFillBuffer(queue, out, &minus, sizeof minus, 0, n * sizeof(cl_int), 0, NULL, NULL), "fill");
    cl_kernel k = make_kernel(prog, "ids");
    CHECK_CL(clSetKernelArg(k, 0, sizeof out, &out), "arg");
    cl_event e;
    CHECK_CL(clEnqueueNDRangeKernel(queue, k, dim, offset, global, local, 0, NULL, &e), "NDRange");
    cl_event ek = e;
    CHECK_CL(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, n * sizeof(cl_int), res, 1, &ek, NULL), "read");
    for (size_t z = 0; z < g[2]; ++z)
        for (size_t y = 0; y < g[1]; ++y)
            for (size_t x = 0; x < g[0]; ++x) {
                cl_int want = (cl_int)((x + o[0]) + 100 * (y + o[1]) + 10000 * (z + o[2]));
                CHECK(res[x + g[0] * (y + g[1] * z)] == want, "%s: id (%zu,%zu,%zu)", label, x, y, z);
            }
    printf("%s: OK\n", label);
    expect_type(label, ek, CL_COMMAND_NDRANGE_KERNEL);
    clReleaseKernel(k);
    clReleaseMemObject(out);
    free(res);
}

static void test_ndrange(void)
{
    printf("== NDRange kernels\n");
    size_t g1[1] = {64}, l1[1] = {16}, o1[1] = {5};
    run_ids("1D global 64 local 16", 1, NULL, g1, l1);
    run_ids("1D global 64 offset 5 (no local)", 1, o1, g1, NULL);
    size_t g2[2] = {16, 8}, l2[2] = {4, 2}, o2[2] = {1, 2};
    run_ids("2D global 16x8 local 4x2 offset (1,2)", 2, o2, g2, l2);
    run_ids("2D global 16x8 (no local)", 2, NULL, g2, NULL);
    size_t g3[3] = {8, 4, 2}, o3[3] = {0, 1, 3}, g3b[3] = {4, 4, 4}, l3[3] = {2, 2, 2};
    run_ids("3D global 8x4x2 offset (0,1,3) (no local)", 3, o3, g3, NULL);
    run_ids("3D global 4x4x4 local 2x2x2", 3, NULL, g3b, l3);

    printf("== task\n");
    cl_mem out = make_buffer(ctx, CL_MEM_READ_WRITE, sizeof(cl_int), NULL);
    cl_kernel k = make_kernel(prog, "task");
    CHECK_CL(clSetKernelArg(k, 0, sizeof out, &out), "arg");
    cl_event e;
    CHECK_CL(clEnqueueTask(queue, k, 0, NULL, &e), "clEnqueueTask");
    cl_int r = 0;
    CHECK_CL(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof r, &r, 1, &e, NULL), "read");
    printf("clEnqueueTask result: %d\n", r);
    CHECK(r == 1007, "task result");
    cl_command_type t = 0;
    CHECK_CL(clGetEventInfo(e, CL_EVENT_COMMAND_TYPE, sizeof t, &t, NULL), "type");
    /* Spec: CL_COMMAND_TASK; some runtimes implement tasks as 1x1x1 NDRanges. */
    printf("clEnqueueTask: event %s\n", cmd_type_name(t));
    CHECK(t == CL_COMMAND_TASK || t == CL_COMMAND_NDRANGE_KERNEL, "task event type");
    clReleaseEvent(e);
    clReleaseKernel(k);
    clReleaseMemObject(out);
}

/* Native kernel: args hold a cl_mem that the runtime replaces by a pointer to
 * the buffer's memory. */
struct native_args {
    cl_int *data; /* cl_mem on enqueue, memory pointer in the callback */
    cl_int n;
};
static long native_sum;
static atomic_int native_calls;

static void CL_CALLBACK native_fn(void *p)
{
    struct native_args *a = p;
    long sum = 0;
    for (int i = 0; i < a->n; ++i) {
        sum += a->data[i];
        a->data[i] *= 2;
    }
    native_sum = sum;
    atomic_fetch_add(&native_calls, 1);
}

static void test_native(void)
{
    printf("== native kernel\n");
    cl_device_exec_capabilities caps = 0;
    CHECK_CL(clGetDeviceInfo(dev, CL_DEVICE_EXECUTION_CAPABILITIES, sizeof caps, &caps, NULL), "EXEC_CAPS");
    if (!(caps & CL_EXEC_NATIVE_KERNEL)) {
        printf("skip: clEnqueueNativeKernel (no CL_EXEC_NATIVE_KERNEL)\n");
        return;
    }
    enum { N = 100 };
    cl_int vals[N];
    long want = 0;
    for (int i = 0; i < N; ++i) {
        vals[i] = i + 1;
        want += i + 1;
    }
    cl_mem buf = make_buffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof vals, vals);
    struct native_args args;
    memcpy(&args.data, &buf, sizeof buf);
    args.n = N;
    const void *mem_loc[1] = {&args.data};
    cl_event e;
    atomic_init(&native_calls, 0);
    cl_int err = clEnqueueNativeKernel(queue, native_fn, &args, sizeof args, 1, &buf, mem_loc, 0, NULL, &e);
    print_status("clEnqueueNativeKernel", err);
    CHECK(err == CL_SUCCESS, "native kernel");
    CHECK_CL(clWaitForEvents(1, &e), "wait");
    printf("native kernel: calls %d, saw sum %ld (expected %ld)\n", atomic_load(&native_calls), native_sum, want);
    CHECK(atomic_load(&native_calls) == 1 && native_sum == want, "native kernel saw the buffer contents");
    expect_type("clEnqueueNativeKernel", e, CL_COMMAND_NATIVE_KERNEL);
    cl_int back[N];
    CHECK_CL(clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL), "read");
    for (int i = 0; i < N; ++i)
        CHECK(back[i] == 2 * (i + 1), "native kernel write at %d", i);
    printf("native kernel writes visible in the buffer: OK\n");
    clReleaseMemObject(buf);
}

struct svm_free_record {
    atomic_int calls;
    cl_command_queue queue;
    cl_uint num;
    void *ptrs[4];
    void *user_data;
};

static void CL_CALLBACK svm_free_cb(cl_command_queue q, cl_uint num, void *ptrs[], void *user_data)
{
    struct svm_free_record *r = user_data;
    r->queue = q;
    r->num = num;
    for (cl_uint i = 0; i < num && i < 4; ++i)
        r->ptrs[i] = ptrs[i];
    r->user_data = user_data;
    for (cl_uint i = 0; i < num; ++i)
        clSVMFree(ctx, ptrs[i]);
    atomic_fetch_add(&r->calls, 1);
}

static void test_svm(void)
{
    printf("== SVM enqueues\n");
    cl_device_svm_capabilities caps = device_svm_caps(platform, dev);
    if (!(caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)) {
        printf("skip: SVM enqueues (no coarse-grain SVM)\n");
        return;
    }
    enum { N = 256 };
    size_t bytes = N * sizeof(cl_int);
    cl_int *a = clSVMAlloc(ctx, CL_MEM_READ_WRITE, bytes, 0);
    cl_int *b = clSVMAlloc(ctx, CL_MEM_READ_WRITE, bytes, 0);
    CHECK(a && b, "clSVMAlloc");
    cl_event ef, ec, em, eu;
    cl_int pattern = 0x1234;
    CHECK_CL(clEnqueueSVMMemFill(queue, a, &pattern, sizeof pattern, bytes, 0, NULL, &ef), "SVMMemFill");
    cl_int pat2[2] = {-5, -6};
    CHECK_CL(clEnqueueSVMMemFill(queue, a + 64, pat2, sizeof pat2, 16 * sizeof(cl_int), 1, &ef, NULL), "fill 8");
    CHECK_CL(clEnqueueSVMMemcpy(queue, CL_FALSE, b, a, bytes, 1, &ef, &ec), "SVMMemcpy");
    CHECK_CL(clEnqueueSVMMap(queue, CL_FALSE, CL_MAP_READ | CL_MAP_WRITE, b, bytes, 1, &ec, &em), "SVMMap");
    CHECK_CL(clWaitForEvents(1, &em), "wait map");
    for (int i = 0; i < N; ++i) {
        cl_int want = (i >= 64 && i < 80) ? pat2[i % 2] : pattern;
        CHECK(b[i] == want, "SVM content at %d: %d", i, b[i]);
        b[i] = i;
    }
    printf("SVM fill + memcpy + map: OK\n");
    CHECK_CL(clEnqueueSVMUnmap(queue, b, 0, NULL, &eu), "SVMUnmap");
    expect_type("clEnqueueSVMMemFill", ef, CL_COMMAND_SVM_MEMFILL);
    expect_type("clEnqueueSVMMemcpy", ec, CL_COMMAND_SVM_MEMCPY);
    expect_type("clEnqueueSVMMap", em, CL_COMMAND_SVM_MAP);

    /* A kernel on the SVM allocation, then a blocking memcpy to the host. */
    cl_kernel k = make_kernel(prog, "add_one");
    CHECK_CL(clSetKernelArgSVMPointer(k, 0, b), "svm arg");
    size_t g = N;
    cl_event ek;
    CHECK_CL(clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, NULL, 1, &eu, &ek), "NDRange");
    expect_type("clEnqueueSVMUnmap", eu, CL_COMMAND_SVM_UNMAP);
    static cl_int host[N];
    CHECK_CL(clEnqueueSVMMemcpy(queue, CL_TRUE, host, b, bytes, 1, &ek, NULL), "SVMMemcpy to host");
    for (int i = 0; i < N; ++i)
        CHECK(host[i] == i + 1, "kernel on SVM at %d", i);
    printf("kernel on SVM + blocking memcpy to host: OK\n");
    clReleaseEvent(ek);
    clReleaseKernel(k);

    if (version >= 21) {
        const void *ptrs[2] = {a, b};
        size_t sizes[2] = {0, 64};
        cl_event emig;
        cl_int err = clEnqueueSVMMigrateMem(queue, 2, ptrs, sizes, CL_MIGRATE_MEM_OBJECT_HOST, 0, NULL, &emig);
        print_status("clEnqueueSVMMigrateMem", err);
        if (err == CL_SUCCESS) {
            CHECK_CL(clWaitForEvents(1, &emig), "wait migrate");
            expect_type("clEnqueueSVMMigrateMem", emig, CL_COMMAND_SVM_MIGRATE_MEM);
        }
    } else {
        printf("skip: clEnqueueSVMMigrateMem (OpenCL < 2.1)\n");
    }

    static struct svm_free_record rec;
    atomic_init(&rec.calls, 0);
    void *to_free[2] = {a, b};
    cl_event efree;
    CHECK_CL(clEnqueueSVMFree(queue, 2, to_free, svm_free_cb, &rec, 0, NULL, &efree), "SVMFree");
    CHECK_CL(clWaitForEvents(1, &efree), "wait free");
    WAIT_FOR(&rec.calls, 1, "SVM free callback");
    printf("SVM free callback: calls %d, queue %s, num %u, pointers %s, user_data %s\n", atomic_load(&rec.calls),
           same_str(rec.queue, queue), rec.num, (rec.ptrs[0] == a && rec.ptrs[1] == b) ? "same" : "different",
           same_str(rec.user_data, &rec));
    CHECK(rec.queue == queue && rec.num == 2 && rec.ptrs[0] == a && rec.ptrs[1] == b && rec.user_data == &rec,
          "SVM free callback arguments");
    expect_type("clEnqueueSVMFree", efree, CL_COMMAND_SVM_FREE);

    /* Without a callback the runtime frees the memory itself. */
    void *c = clSVMAlloc(ctx, CL_MEM_READ_WRITE, 64, 0);
    CHECK(c != NULL, "alloc");
    CHECK_CL(clEnqueueSVMFree(queue, 1, &c, NULL, NULL, 0, NULL, NULL), "SVMFree (no callback)");
    CHECK_CL(clFinish(queue), "finish");
    printf("clEnqueueSVMFree without callback: OK\n");
}

static void test_long_chain(void)
{
    printf("== event chain across commands\n");
    enum { N = 512 };
    static cl_int a[N], r[N];
    for (int i = 0; i < N; ++i)
        a[i] = i;
    cl_mem b1 = make_buffer(ctx, CL_MEM_READ_WRITE, sizeof a, NULL);
    cl_mem b2 = make_buffer(ctx, CL_MEM_READ_WRITE, sizeof a, NULL);
    cl_kernel k = make_kernel(prog, "add_one");
    CHECK_CL(clSetKernelArg(k, 0, sizeof b1, &b1), "arg");
    cl_event ev[6];
    size_t g = N;
    CHECK_CL(clEnqueueWriteBuffer(queue, b1, CL_FALSE, 0, sizeof a, a, 0, NULL, &ev[0]), "write");
    CHECK_CL(clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, NULL, 1, &ev[0], &ev[1]), "k1");
    CHECK_CL(clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, NULL, 1, &ev[1], &ev[2]), "k2");
    CHECK_CL(clEnqueueCopyBuffer(queue, b1, b2, 0, 0, sizeof a, 1, &ev[2], &ev[3]), "copy");
    CHECK_CL(clEnqueueMarkerWithWaitList(queue, 2, &ev[2], &ev[4]), "marker");
    CHECK_CL(clEnqueueReadBuffer(queue, b2, CL_FALSE, 0, sizeof r, r, 1, &ev[4], &ev[5]), "read");
    CHECK_CL(clWaitForEvents(6, ev), "wait all");
    for (int i = 0; i < N; ++i)
        CHECK(r[i] == i + 2, "chain result at %d", i);
    printf("write -> kernel -> kernel -> copy -> marker -> read: OK\n");
    static const cl_command_type types[6] = {CL_COMMAND_WRITE_BUFFER, CL_COMMAND_NDRANGE_KERNEL,
                                             CL_COMMAND_NDRANGE_KERNEL, CL_COMMAND_COPY_BUFFER,
                                             CL_COMMAND_MARKER, CL_COMMAND_READ_BUFFER};
    for (int i = 0; i < 6; ++i) {
        char label[32];
        snprintf(label, sizeof label, "chain[%d]", i);
        expect_type(label, ev[i], types[i]);
    }
    clReleaseKernel(k);
    clReleaseMemObject(b1);
    clReleaseMemObject(b2);
}

int main(void)
{
    pick_device(&platform, &dev);
    version = api_version(platform, dev);
    {
        char *pname = platform_str(platform, CL_PLATFORM_NAME);
        is_pocl = strstr(pname, "Portable Computing Language") != NULL;
        free(pname);
    }
    ctx = make_context(dev);
    queue = make_queue(ctx, dev, 0);
    prog = build_program(ctx, dev, src, NULL);

    test_buffers();
    test_rect();
    test_fill();
    test_map_buffer();
    test_images();
    test_migrate_markers();
    test_ndrange();
    test_native();
    test_svm();
    test_long_chain();

    CHECK_CL(clFinish(queue), "final finish");
    clReleaseProgram(prog);
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    printf("enqueue: PASS\n");
    return 0;
}
