/*
 * callbacks.c - every callback kind the API has, each checking that the
 * handle and user_data it receives are the application's own:
 * context notify (clCreateContext / clCreateContextFromType), context
 * destructor callbacks, program build callback, memory object destructor
 * callbacks (several: reverse registration order) and event callbacks.
 */
#include "common.h"

static cl_platform_id platform;
static cl_device_id dev;
static int version;
static int is_oclgrind;

/* Each callback records the order in which it ran and whether the handle and
 * user_data it got match what the application registered. */
struct rec {
    const void *expected_handle;
    int id;
    atomic_int calls;
    atomic_int wrong_handle;
};

static atomic_int order_counter;
static atomic_int order_log[16];

static void rec_init(struct rec *r, const void *handle, int id)
{
    r->expected_handle = handle;
    r->id = id;
    atomic_init(&r->calls, 0);
    atomic_init(&r->wrong_handle, 0);
}

static void rec_hit(struct rec *r, const void *handle)
{
    if (handle != r->expected_handle)
        atomic_fetch_add(&r->wrong_handle, 1);
    int slot = atomic_fetch_add(&order_counter, 1);
    if (slot < 16)
        atomic_store(&order_log[slot], r->id);
    atomic_fetch_add(&r->calls, 1);
}

static void reset_order(void)
{
    atomic_store(&order_counter, 0);
    for (int i = 0; i < 16; ++i)
        atomic_store(&order_log[i], 0);
}

static void print_order(const char *label, int n)
{
    printf("%s order:", label);
    for (int i = 0; i < n; ++i)
        printf(" %d", atomic_load(&order_log[i]));
    printf("\n");
}

/* ---- context notify ---------------------------------------------------- */

static int notify_tag_a, notify_tag_b;
static atomic_int notify_calls, notify_wrong_user_data;

static void CL_CALLBACK context_notify(const char *errinfo, const void *private_info, size_t cb, void *user_data)
{
    (void)errinfo;
    (void)cb;
    /* Oclgrind 21.10 calls pfn_notify(errinfo, user_data, 0, NULL): the
     * user_data arrives in the private_info slot.  Accept exactly that. */
    void *ud = user_data;
    if (ud == NULL && is_oclgrind)
        ud = (void *)private_info;
    if (ud != &notify_tag_a && ud != &notify_tag_b)
        atomic_fetch_add(&notify_wrong_user_data, 1);
    atomic_fetch_add(&notify_calls, 1);
}

static void use_context(cl_context ctx, const char *label)
{
    /* A small round trip to show the context works. */
    cl_command_queue q = make_queue(ctx, dev, 0);
    cl_int v[8] = {1, 2, 3, 4, 5, 6, 7, 8}, r[8] = {0};
    cl_mem b = make_buffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof v, v);
    CHECK_CL(clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof r, r, 0, NULL, NULL), "read");
    CHECK(memcmp(v, r, sizeof v) == 0, "%s: round trip", label);
    printf("%s: usable\n", label);
    clReleaseMemObject(b);
    clReleaseCommandQueue(q);
}

static void test_context_notify(void)
{
    printf("== context notify\n");
    cl_int err = CL_SUCCESS;
    cl_context ctx = clCreateContext(NULL, 1, &dev, context_notify, &notify_tag_a, &err);
    print_status("clCreateContext(pfn_notify, user_data)", err);
    CHECK(err == CL_SUCCESS, "create");
    cl_uint nd = 0;
    cl_device_id d = NULL;
    CHECK_CL(clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, sizeof nd, &nd, NULL), "NUM_DEVICES");
    CHECK_CL(clGetContextInfo(ctx, CL_CONTEXT_DEVICES, sizeof d, &d, NULL), "DEVICES");
    printf("clCreateContext: %u device(s), device %s\n", nd, same_str(d, dev));
    CHECK(nd == 1 && d == dev, "context devices");
    use_context(ctx, "clCreateContext context");

    /* Provoke a failure inside the context; a runtime may report it through
     * pfn_notify (how often is runtime-specific, so it is not printed). */
    const char *bad = "__kernel void k(void) { this is not OpenCL C; }\n";
    cl_program p = clCreateProgramWithSource(ctx, 1, &bad, NULL, &err);
    CHECK_CL(err, "program");
    print_status("clBuildProgram(bad source) in notify context", clBuildProgram(p, 1, &dev, NULL, NULL, NULL));
    clReleaseProgram(p);
    clReleaseContext(ctx);

    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
    ctx = clCreateContextFromType(props, CL_DEVICE_TYPE_ALL, context_notify, &notify_tag_b, &err);
    print_status("clCreateContextFromType(ALL, pfn_notify, user_data)", err);
    CHECK(err == CL_SUCCESS, "create from type");
    CHECK_CL(clGetContextInfo(ctx, CL_CONTEXT_NUM_DEVICES, sizeof nd, &nd, NULL), "NUM_DEVICES");
    CHECK_CL(clGetContextInfo(ctx, CL_CONTEXT_DEVICES, sizeof d, &d, NULL), "DEVICES");
    printf("clCreateContextFromType: %u device(s), first device %s\n", nd, same_str(d, dev));
    CHECK(d == dev, "context device");
    size_t psz = 0;
    CHECK_CL(clGetContextInfo(ctx, CL_CONTEXT_PROPERTIES, 0, NULL, &psz), "PROPERTIES size");
    cl_context_properties got[8] = {0};
    CHECK(psz <= sizeof got, "properties too long");
    CHECK_CL(clGetContextInfo(ctx, CL_CONTEXT_PROPERTIES, psz, got, NULL), "PROPERTIES");
    printf("CL_CONTEXT_PROPERTIES: %zu entries, CL_CONTEXT_PLATFORM %s\n", psz / sizeof got[0],
           (got[0] == CL_CONTEXT_PLATFORM && (cl_platform_id)got[1] == platform) ? "same" : "different");
    CHECK(got[0] == CL_CONTEXT_PLATFORM && (cl_platform_id)got[1] == platform && got[2] == 0,
          "CL_CONTEXT_PROPERTIES must echo the application's properties");
    use_context(ctx, "clCreateContextFromType context");
    clReleaseContext(ctx);
    printf("context notify: user_data always the application's: %s\n",
           atomic_load(&notify_wrong_user_data) == 0 ? "yes" : "no");
    CHECK(atomic_load(&notify_wrong_user_data) == 0, "pfn_notify got a foreign user_data");
}

/* ---- context destructor ------------------------------------------------ */

static struct rec ctx_recs[3];

static void CL_CALLBACK context_destructor(cl_context ctx, void *user_data)
{
    struct rec *r = user_data;
    if (r < &ctx_recs[0] || r > &ctx_recs[2])
        return; /* foreign user_data: never counted, so the wait fails */
    rec_hit(r, ctx);
}

static void test_context_destructor(void)
{
    printf("== context destructor callbacks\n");
    if (version < 30) {
        printf("skip: clSetContextDestructorCallback (OpenCL %d.%d)\n", version / 10, version % 10);
        return;
    }
    cl_context ctx = make_context(dev);
    reset_order();
    for (int i = 0; i < 3; ++i) {
        rec_init(&ctx_recs[i], ctx, i + 1);
        cl_int err = clSetContextDestructorCallback(ctx, context_destructor, &ctx_recs[i]);
        if (err != CL_SUCCESS) {
            print_status("clSetContextDestructorCallback", err);
            printf("skip: context destructor callbacks (not supported)\n");
            clReleaseContext(ctx);
            return;
        }
    }
    printf("clSetContextDestructorCallback x3: CL_SUCCESS\n");
    use_context(ctx, "context with destructors");
    CHECK(atomic_load(&order_counter) == 0, "context destructor ran early");
    CHECK_CL(clRetainContext(ctx), "retain");
    CHECK_CL(clReleaseContext(ctx), "release (not last)");
    CHECK(atomic_load(&order_counter) == 0, "context destructor ran before the last release");
    CHECK_CL(clReleaseContext(ctx), "release (last)");
    for (int i = 0; i < 3; ++i)
        WAIT_FOR(&ctx_recs[i].calls, 1, "context destructor callback");
    int wrong = 0;
    for (int i = 0; i < 3; ++i)
        wrong += atomic_load(&ctx_recs[i].wrong_handle);
    printf("context destructor callbacks: 3 calls, context %s, user_data same\n", wrong ? "different" : "same");
    CHECK(wrong == 0, "context destructor got a foreign context");
    print_order("context destructor", 3);
    CHECK(atomic_load(&order_log[0]) == 3 && atomic_load(&order_log[1]) == 2 && atomic_load(&order_log[2]) == 1,
          "context destructors must run in reverse registration order");
}

/* ---- memory object destructors ----------------------------------------- */

static struct rec mem_recs[3];

static void CL_CALLBACK mem_destructor(cl_mem m, void *user_data)
{
    struct rec *r = user_data;
    if (r < &mem_recs[0] || r > &mem_recs[2])
        return;
    rec_hit(r, m);
}

static void test_mem_destructors(cl_context ctx)
{
    printf("== memory object destructor callbacks\n");
    cl_mem m = make_buffer(ctx, CL_MEM_READ_WRITE, 256, NULL);
    reset_order();
    for (int i = 0; i < 3; ++i) {
        rec_init(&mem_recs[i], m, i + 1);
        CHECK_CL(clSetMemObjectDestructorCallback(m, mem_destructor, &mem_recs[i]), "set destructor");
    }
    printf("clSetMemObjectDestructorCallback x3: CL_SUCCESS\n");
    CHECK_CL(clReleaseMemObject(m), "release");
    for (int i = 0; i < 3; ++i)
        WAIT_FOR(&mem_recs[i].calls, 1, "mem destructor callback");
    int wrong = 0;
    for (int i = 0; i < 3; ++i)
        wrong += atomic_load(&mem_recs[i].wrong_handle);
    printf("mem destructor callbacks: 3 calls, memobj %s, user_data same\n", wrong ? "different" : "same");
    CHECK(wrong == 0, "mem destructor got a foreign memobj");
    print_order("mem destructor", 3);
    CHECK(atomic_load(&order_log[0]) == 3 && atomic_load(&order_log[1]) == 2 && atomic_load(&order_log[2]) == 1,
          "mem destructors must run in reverse registration order");

    /* An image's destructor, where images are supported. */
    if (device_image_support(dev)) {
        cl_image_format fmt = {CL_RGBA, CL_UNSIGNED_INT8};
        cl_image_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.image_type = CL_MEM_OBJECT_IMAGE2D;
        desc.image_width = 4;
        desc.image_height = 4;
        cl_int err = CL_SUCCESS;
        cl_mem img = clCreateImage(ctx, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err);
        CHECK_CL(err, "image");
        rec_init(&mem_recs[0], img, 1);
        reset_order();
        CHECK_CL(clSetMemObjectDestructorCallback(img, mem_destructor, &mem_recs[0]), "set destructor (image)");
        CHECK_CL(clReleaseMemObject(img), "release image");
        WAIT_FOR(&mem_recs[0].calls, 1, "image destructor callback");
        printf("image destructor: calls %d, memobj %s\n", atomic_load(&mem_recs[0].calls),
               atomic_load(&mem_recs[0].wrong_handle) ? "different" : "same");
        CHECK(atomic_load(&mem_recs[0].wrong_handle) == 0, "image destructor memobj");
    } else {
        printf("skip: image destructor (no image support)\n");
    }
}

/* ---- program build callback -------------------------------------------- */

static struct rec build_rec;

static void CL_CALLBACK build_cb(cl_program p, void *user_data)
{
    if (user_data != &build_rec)
        return;
    rec_hit(&build_rec, p);
}

static void test_build_callback(cl_context ctx)
{
    printf("== program build callback\n");
    const char *src = "__kernel void k(__global int *a) { a[0] = 42; }\n";
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CHECK_CL(err, "program");
    rec_init(&build_rec, p, 1);
    err = clBuildProgram(p, 1, &dev, NULL, build_cb, &build_rec);
    print_status("clBuildProgram(callback)", err);
    CHECK(err == CL_SUCCESS, "build");
    WAIT_FOR(&build_rec.calls, 1, "build callback");
    printf("build callback: calls %d, program %s, user_data same\n", atomic_load(&build_rec.calls),
           atomic_load(&build_rec.wrong_handle) ? "different" : "same");
    CHECK(atomic_load(&build_rec.calls) == 1 && atomic_load(&build_rec.wrong_handle) == 0, "build callback");
    cl_build_status st = 0;
    CHECK_CL(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_STATUS, sizeof st, &st, NULL), "status");
    printf("build status after callback: %s\n", st == CL_BUILD_SUCCESS ? "CL_BUILD_SUCCESS" : "not success");
    CHECK(st == CL_BUILD_SUCCESS, "build status");
    clReleaseProgram(p);
}

/* ---- event callbacks --------------------------------------------------- */

static struct rec ev_recs[3];

static void CL_CALLBACK event_cb(cl_event e, cl_int status, void *user_data)
{
    struct rec *r = user_data;
    if (r < &ev_recs[0] || r > &ev_recs[2])
        return;
    if (status < 0)
        atomic_fetch_add(&r->wrong_handle, 100);
    rec_hit(r, e);
}

static void test_event_callbacks(cl_context ctx)
{
    printf("== event callbacks\n");
    cl_command_queue q = make_queue(ctx, dev, 0);
    cl_int err = CL_SUCCESS;
    cl_event ue = clCreateUserEvent(ctx, &err);
    CHECK_CL(err, "user event");
    cl_event m1, m2;
    CHECK_CL(clEnqueueMarkerWithWaitList(q, 1, &ue, &m1), "marker 1");
    CHECK_CL(clEnqueueMarkerWithWaitList(q, 1, &m1, &m2), "marker 2");
    rec_init(&ev_recs[0], ue, 1);
    rec_init(&ev_recs[1], m1, 2);
    rec_init(&ev_recs[2], m2, 3);
    reset_order();
    CHECK_CL(clSetEventCallback(m2, CL_COMPLETE, event_cb, &ev_recs[2]), "callback m2");
    CHECK_CL(clSetEventCallback(m1, CL_COMPLETE, event_cb, &ev_recs[1]), "callback m1");
    CHECK_CL(clSetEventCallback(ue, CL_COMPLETE, event_cb, &ev_recs[0]), "callback ue");
    printf("clSetEventCallback x3 (user event, marker, marker): CL_SUCCESS\n");
    CHECK(atomic_load(&order_counter) == 0, "event callbacks ran before completion");
    CHECK_CL(clSetUserEventStatus(ue, CL_COMPLETE), "complete");
    CHECK_CL(clWaitForEvents(1, &m2), "wait");
    for (int i = 0; i < 3; ++i)
        WAIT_FOR(&ev_recs[i].calls, 1, "event callback");
    int wrong = 0;
    for (int i = 0; i < 3; ++i)
        wrong += atomic_load(&ev_recs[i].wrong_handle);
    printf("event callbacks: 3 calls, events %s, user_data same, statuses CL_COMPLETE\n",
           wrong ? "different" : "same");
    CHECK(wrong == 0, "event callback arguments");
    clReleaseEvent(m1);
    clReleaseEvent(m2);
    clReleaseEvent(ue);
    clReleaseCommandQueue(q);
}

int main(void)
{
    pick_device(&platform, &dev);
    version = api_version(platform, dev);
    {
        char *pname = platform_str(platform, CL_PLATFORM_NAME);
        is_oclgrind = strstr(pname, "Oclgrind") != NULL;
        free(pname);
    }

    test_context_notify();
    test_context_destructor();

    cl_context ctx = make_context(dev);
    test_mem_destructors(ctx);
    test_build_callback(ctx);
    test_event_callbacks(ctx);
    clReleaseContext(ctx);

    printf("callbacks: PASS\n");
    return 0;
}
