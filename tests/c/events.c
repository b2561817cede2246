/*
 * events.c - user events (completed and failed), event callbacks for each
 * execution status, clWaitForEvents, event info, reference counts, profiling
 * info on profiling / non-profiling queues and on user events.
 */
#include "common.h"

static cl_platform_id platform;
static cl_device_id dev;
static cl_context ctx;
static cl_command_queue queue;
static int version;
static int is_oclgrind;

/* One record per registered callback: what the application expects to be
 * passed, and what was observed (checked inside the callback, so the
 * callback thread never races with the main thread on plain data). */
struct cb_record {
    cl_event expected_event;
    cl_int registered_for;
    atomic_int calls;
    atomic_int wrong_event;
    atomic_int status_seen; /* last event_command_status passed */
};

/* Every record handed out as user_data; a callback whose user_data is not
 * one of these counts as a foreign user_data (and is not dereferenced). */
static struct cb_record *known_records[64];
static atomic_int n_known;
static atomic_int foreign_user_data;

static int is_known_record(void *p)
{
    int n = atomic_load(&n_known);
    for (int i = 0; i < n; ++i)
        if (known_records[i] == p)
            return 1;
    return 0;
}

static void init_record(struct cb_record *r, cl_event e, cl_int type)
{
    if (!is_known_record(r)) {
        int i = atomic_load(&n_known);
        CHECK(i < 64, "too many callback records");
        known_records[i] = r;
        atomic_store(&n_known, i + 1);
    }
    r->expected_event = e;
    r->registered_for = type;
    atomic_init(&r->calls, 0);
    atomic_init(&r->wrong_event, 0);
    atomic_init(&r->status_seen, 12345);
}

static void CL_CALLBACK event_cb(cl_event e, cl_int status, void *user_data)
{
    if (!is_known_record(user_data)) {
        atomic_fetch_add(&foreign_user_data, 1);
        return;
    }
    struct cb_record *r = user_data;
    if (e != r->expected_event)
        atomic_fetch_add(&r->wrong_event, 1);
    atomic_store(&r->status_seen, status);
    atomic_fetch_add(&r->calls, 1);
}

static const char *cb_type_name(cl_int t)
{
    switch (t) {
    case CL_SUBMITTED: return "CL_SUBMITTED";
    case CL_RUNNING: return "CL_RUNNING";
    case CL_COMPLETE: return "CL_COMPLETE";
    default: return "?";
    }
}

/* Registers `r` on `e` for `type`. */
static void register_cb(cl_event e, cl_int type, struct cb_record *r)
{
    init_record(r, e, type);
    cl_int err = clSetEventCallback(e, type, event_cb, r);
    CHECK(err == CL_SUCCESS, "clSetEventCallback(%s): %s", cb_type_name(type), cl_err_name(err));
}

/* Waits for the callback and checks its arguments. */
static void check_cb(const char *label, struct cb_record *r, int expect_error_status)
{
    WAIT_FOR(&r->calls, 1, label);
    int calls = atomic_load(&r->calls);
    cl_int st = atomic_load(&r->status_seen);
    /* The status passed is the registered one, or a later one, or an error. */
    int status_ok = expect_error_status ? st < 0 : (st >= 0 && st <= r->registered_for);
    printf("%s callback for %s: calls %d, event %s, user_data %s, status argument %s\n", label,
           cb_type_name(r->registered_for), calls, atomic_load(&r->wrong_event) ? "different" : "same",
           atomic_load(&foreign_user_data) ? "foreign seen" : "same",
           expect_error_status ? (st < 0 ? "negative" : "not negative") : (status_ok ? "consistent" : "inconsistent"));
    CHECK(calls == 1, "%s: callback must run exactly once", label);
    CHECK(atomic_load(&r->wrong_event) == 0, "%s: callback event is not the application's handle", label);
    CHECK(atomic_load(&foreign_user_data) == 0, "%s: a callback got a foreign user_data", label);
    CHECK(status_ok, "%s: status argument %d", label, st);
}

static cl_uint event_refcount(cl_event e)
{
    cl_uint rc = 0;
    CHECK_CL(clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof rc, &rc, NULL), "CL_EVENT_REFERENCE_COUNT");
    return rc;
}

static cl_int event_status(cl_event e)
{
    cl_int st = 0;
    CHECK_CL(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL), "EXECUTION_STATUS");
    return st;
}

static void test_user_event_basics(void)
{
    printf("== user event info\n");
    cl_int err = CL_SUCCESS;
    cl_event ue = clCreateUserEvent(ctx, &err);
    print_status("clCreateUserEvent", err);
    CHECK(err == CL_SUCCESS && ue != NULL, "user event");
    cl_command_type t = 0;
    cl_command_queue q = (cl_command_queue)1;
    cl_context c = NULL;
    CHECK_CL(clGetEventInfo(ue, CL_EVENT_COMMAND_TYPE, sizeof t, &t, NULL), "COMMAND_TYPE");
    CHECK_CL(clGetEventInfo(ue, CL_EVENT_COMMAND_QUEUE, sizeof q, &q, NULL), "COMMAND_QUEUE");
    CHECK_CL(clGetEventInfo(ue, CL_EVENT_CONTEXT, sizeof c, &c, NULL), "CONTEXT");
    printf("user event: type %s, queue %s, context %s, status %s\n", cmd_type_name(t), q ? "non-null" : "null",
           same_str(c, ctx), exec_status_name(event_status(ue)));
    CHECK(t == CL_COMMAND_USER && q == NULL && c == ctx, "user event info");
    CHECK(event_status(ue) == CL_SUBMITTED, "new user event must be CL_SUBMITTED");
    cl_uint r0 = event_refcount(ue);
    CHECK_CL(clRetainEvent(ue), "retain");
    cl_uint r1 = event_refcount(ue);
    CHECK_CL(clRetainEvent(ue), "retain");
    cl_uint r2 = event_refcount(ue);
    CHECK_CL(clReleaseEvent(ue), "release");
    CHECK_CL(clReleaseEvent(ue), "release");
    cl_uint r3 = event_refcount(ue);
    printf("user event refcount: %u, retain %u, retain %u, release x2 %u\n", r0, r1, r2, r3);
    CHECK(r0 == 1 && r1 == 2 && r2 == 3 && r3 == 1, "user event refcount");
    CHECK_CL(clSetUserEventStatus(ue, CL_COMPLETE), "complete");
    printf("after clSetUserEventStatus(CL_COMPLETE): %s\n", exec_status_name(event_status(ue)));
    err = clSetUserEventStatus(ue, CL_COMPLETE);
    print_status("clSetUserEventStatus again", err);
    CHECK(err == CL_INVALID_OPERATION, "setting a user event twice must fail");
    CHECK_CL(clReleaseEvent(ue), "release");
}

static void test_user_event_gating(void)
{
    printf("== command gated by a user event\n");
    enum { N = 256 };
    static cl_int src[N], dst[N];
    for (int i = 0; i < N; ++i)
        src[i] = i * 11;
    cl_mem buf = make_buffer(ctx, CL_MEM_READ_WRITE, sizeof src, NULL);
    cl_int err = CL_SUCCESS;
    cl_event ue = clCreateUserEvent(ctx, &err);
    CHECK_CL(err, "user event");
    cl_event ew = NULL, er = NULL;
    CHECK_CL(clEnqueueWriteBuffer(queue, buf, CL_FALSE, 0, sizeof src, src, 1, &ue, &ew), "gated write");
    CHECK_CL(clEnqueueReadBuffer(queue, buf, CL_FALSE, 0, sizeof dst, dst, 1, &ew, &er), "read");

    static struct cb_record sub, run, comp, ucomp, rcomp;
    register_cb(ew, CL_SUBMITTED, &sub);
    register_cb(ew, CL_RUNNING, &run);
    register_cb(ew, CL_COMPLETE, &comp);
    register_cb(ue, CL_COMPLETE, &ucomp);
    register_cb(er, CL_COMPLETE, &rcomp);

    /* No clFlush/clFinish before the user event is set (Oclgrind runs the
     * queue synchronously in clFlush and would wait forever). */
    cl_int st = event_status(ew);
    printf("gated write complete before user event: %s\n", st == CL_COMPLETE ? "yes" : "no");
    CHECK(st > CL_COMPLETE, "gated command completed early (%d)", st);
    CHECK(atomic_load(&comp.calls) == 0, "CL_COMPLETE callback before completion");

    CHECK_CL(clSetUserEventStatus(ue, CL_COMPLETE), "clSetUserEventStatus(CL_COMPLETE)");
    printf("clSetUserEventStatus(CL_COMPLETE): done\n");
    err = clWaitForEvents(1, &er);
    print_status("clWaitForEvents(read)", err);
    CHECK(err == CL_SUCCESS, "wait");
    CHECK(memcmp(src, dst, sizeof src) == 0, "gated write + read results");
    printf("gated write + read: results OK\n");
    printf("write status: %s\n", exec_status_name(event_status(ew)));
    CHECK(event_status(ew) == CL_COMPLETE, "write status");

    check_cb("write", &sub, 0);
    check_cb("write", &run, 0);
    check_cb("write", &comp, 0);
    check_cb("user event", &ucomp, 0);
    check_cb("read", &rcomp, 0);

    /* A callback registered on an already complete event still runs once.
     * Oclgrind 21.10 never calls such callbacks. */
    if (is_oclgrind) {
        printf("skip: callback registered after completion (never called by Oclgrind)\n");
    } else {
        static struct cb_record late;
        register_cb(ew, CL_COMPLETE, &late);
        check_cb("late registration", &late, 0);
    }

    /* Event info of a command event. */
    cl_command_queue q = NULL;
    cl_context c = NULL;
    cl_command_type t = 0;
    CHECK_CL(clGetEventInfo(ew, CL_EVENT_COMMAND_QUEUE, sizeof q, &q, NULL), "COMMAND_QUEUE");
    CHECK_CL(clGetEventInfo(ew, CL_EVENT_CONTEXT, sizeof c, &c, NULL), "CONTEXT");
    CHECK_CL(clGetEventInfo(ew, CL_EVENT_COMMAND_TYPE, sizeof t, &t, NULL), "COMMAND_TYPE");
    printf("write event: queue %s, context %s, type %s\n", same_str(q, queue), same_str(c, ctx), cmd_type_name(t));
    CHECK(q == queue && c == ctx && t == CL_COMMAND_WRITE_BUFFER, "command event info");
    /* Runtimes may hold internal references for a while; check relations. */
    cl_uint r0 = event_refcount(ew);
    CHECK_CL(clRetainEvent(ew), "retain");
    cl_uint r1 = event_refcount(ew);
    CHECK_CL(clReleaseEvent(ew), "release");
    cl_uint r2 = event_refcount(ew);
    printf("write event refcount: retain adds one, release removes one: %s\n",
           (r0 >= 1 && r1 >= 2 && r1 <= r0 + 1 && r2 + 1 <= r1) ? "yes" : "no");
    CHECK(r0 >= 1 && r1 >= 2 && r1 <= r0 + 1 && r2 + 1 <= r1, "event refcount %u %u %u", r0, r1, r2);

    CHECK_CL(clFinish(queue), "finish");
    clReleaseEvent(ew);
    clReleaseEvent(er);
    clReleaseEvent(ue);
    clReleaseMemObject(buf);
}

static void test_user_event_failure(void)
{
    printf("== command gated by a failed user event\n");
    /* A separate queue, so that a failed command cannot affect the others. */
    cl_command_queue q2 = make_queue(ctx, dev, 0);
    cl_int v[16] = {0}, back[16];
    for (int i = 0; i < 16; ++i)
        back[i] = 77;
    cl_mem buf = make_buffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof v, v);
    cl_int err = CL_SUCCESS;
    cl_event ue = clCreateUserEvent(ctx, &err);
    CHECK_CL(err, "user event");
    cl_event ed = NULL;
    CHECK_CL(clEnqueueReadBuffer(q2, buf, CL_FALSE, 0, sizeof back, back, 1, &ue, &ed), "gated read");
    static struct cb_record comp;
    register_cb(ed, CL_COMPLETE, &comp);

    const cl_int failure = -100;
    err = clSetUserEventStatus(ue, failure);
    print_status("clSetUserEventStatus(-100)", err);
    CHECK(err == CL_SUCCESS, "set negative status");
    printf("user event status: %d\n", event_status(ue));
    CHECK(event_status(ue) == failure, "user event status");
    err = clWaitForEvents(1, &ed);
    print_status("clWaitForEvents(dependent command)", err);
    CHECK(err == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "wait on a failed dependency");
    /* Spec: the dependent command is terminated and gets a negative status.
     * Intel's CPU runtime reports CL_COMPLETE, so print only. */
    cl_int st = event_status(ed);
    printf("dependent command status: %s\n", st < 0 ? "negative" : exec_status_name(st));
    /* PoCL 3.1 never calls the CL_COMPLETE callback of a command that failed
     * because of its wait list, so the callback is not waited for; if it did
     * run, its arguments must be right. */
    if (atomic_load(&comp.calls) > 0) {
        CHECK(atomic_load(&comp.wrong_event) == 0, "failed read callback event");
        CHECK(atomic_load(&comp.status_seen) < 0 || st >= 0, "failed read callback status");
    }
    print_status("clFinish(queue with failed command)", clFinish(q2));
    clReleaseEvent(ed);
    clReleaseEvent(ue);
    clReleaseMemObject(buf);
    clReleaseCommandQueue(q2);
}

static void test_wait_many(void)
{
    printf("== clWaitForEvents with several events\n");
    enum { N = 128 };
    cl_int a[N], b[N], c[N];
    for (int i = 0; i < N; ++i)
        a[i] = i;
    cl_mem b1 = make_buffer(ctx, CL_MEM_READ_WRITE, sizeof a, NULL);
    cl_mem b2 = make_buffer(ctx, CL_MEM_READ_WRITE, sizeof a, NULL);
    cl_event ev[4];
    CHECK_CL(clEnqueueWriteBuffer(queue, b1, CL_FALSE, 0, sizeof a, a, 0, NULL, &ev[0]), "write");
    CHECK_CL(clEnqueueCopyBuffer(queue, b1, b2, 0, 0, sizeof a, 1, &ev[0], &ev[1]), "copy");
    CHECK_CL(clEnqueueReadBuffer(queue, b1, CL_FALSE, 0, sizeof b, b, 1, &ev[1], &ev[2]), "read1");
    CHECK_CL(clEnqueueReadBuffer(queue, b2, CL_FALSE, 0, sizeof c, c, 1, &ev[1], &ev[3]), "read2");
    cl_int err = clWaitForEvents(4, ev);
    print_status("clWaitForEvents(4 events)", err);
    CHECK(err == CL_SUCCESS, "wait");
    int all_complete = 1;
    for (int i = 0; i < 4; ++i)
        all_complete &= event_status(ev[i]) == CL_COMPLETE;
    printf("all 4 complete: %s\n", all_complete ? "yes" : "no");
    CHECK(all_complete, "events complete after wait");
    CHECK(memcmp(a, b, sizeof a) == 0 && memcmp(a, c, sizeof a) == 0, "results");
    printf("results: OK\n");
    for (int i = 0; i < 4; ++i)
        clReleaseEvent(ev[i]);
    clReleaseMemObject(b1);
    clReleaseMemObject(b2);
}

static void test_profiling(void)
{
    printf("== profiling\n");
    cl_command_queue pq = make_queue(ctx, dev, CL_QUEUE_PROFILING_ENABLE);
    const char *src = "__kernel void k(__global int *a) { a[get_global_id(0)] *= 3; }\n";
    cl_program p = build_program(ctx, dev, src, NULL);
    cl_kernel k = make_kernel(p, "k");
    enum { N = 1024 };
    static cl_int a[N];
    for (int i = 0; i < N; ++i)
        a[i] = i;
    cl_mem buf = make_buffer(ctx, CL_MEM_READ_WRITE, sizeof a, NULL);
    CHECK_CL(clSetKernelArg(k, 0, sizeof buf, &buf), "arg");
    cl_event ew, ek, er;
    size_t g = N;
    CHECK_CL(clEnqueueWriteBuffer(pq, buf, CL_FALSE, 0, sizeof a, a, 0, NULL, &ew), "write");
    CHECK_CL(clEnqueueNDRangeKernel(pq, k, 1, NULL, &g, NULL, 1, &ew, &ek), "kernel");
    CHECK_CL(clEnqueueReadBuffer(pq, buf, CL_FALSE, 0, sizeof a, a, 1, &ek, &er), "read");
    CHECK_CL(clWaitForEvents(1, &er), "wait");
    for (int i = 0; i < N; ++i)
        CHECK(a[i] == 3 * i, "kernel result");
    cl_event evs[3] = {ew, ek, er};
    const char *names[3] = {"write", "kernel", "read"};
    for (int i = 0; i < 3; ++i) {
        cl_ulong qd = 0, sb = 0, st = 0, en = 0, co = 0;
        CHECK_CL(clGetEventProfilingInfo(evs[i], CL_PROFILING_COMMAND_QUEUED, sizeof qd, &qd, NULL), "QUEUED");
        CHECK_CL(clGetEventProfilingInfo(evs[i], CL_PROFILING_COMMAND_SUBMIT, sizeof sb, &sb, NULL), "SUBMIT");
        CHECK_CL(clGetEventProfilingInfo(evs[i], CL_PROFILING_COMMAND_START, sizeof st, &st, NULL), "START");
        CHECK_CL(clGetEventProfilingInfo(evs[i], CL_PROFILING_COMMAND_END, sizeof en, &en, NULL), "END");
        CHECK(qd <= sb && sb <= st && st <= en, "%s: profiling times out of order", names[i]);
        printf("%s: QUEUED <= SUBMIT <= START <= END: ordered\n", names[i]);
        if (version >= 20) {
            cl_int err = clGetEventProfilingInfo(evs[i], CL_PROFILING_COMMAND_COMPLETE, sizeof co, &co, NULL);
            print_status("  CL_PROFILING_COMMAND_COMPLETE", err);
            if (err == CL_SUCCESS) {
                CHECK(co >= en, "%s: COMPLETE before END", names[i]);
                printf("  COMPLETE >= END: yes\n");
            }
        }
        /* A too-small buffer is an error. */
        cl_uint small = 0;
        print_status("  clGetEventProfilingInfo(4-byte buffer)",
                     clGetEventProfilingInfo(evs[i], CL_PROFILING_COMMAND_END, sizeof small, &small, NULL));
    }
    for (int i = 1; i < 3; ++i) {
        cl_ulong prev_end = 0, start = 0;
        clGetEventProfilingInfo(evs[i - 1], CL_PROFILING_COMMAND_END, sizeof prev_end, &prev_end, NULL);
        clGetEventProfilingInfo(evs[i], CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
        CHECK(start >= prev_end, "dependent command started before its dependency ended");
    }
    printf("dependent commands start after their dependency ends: yes\n");

    /* Non-profiling queue. */
    cl_event e;
    CHECK_CL(clEnqueueWriteBuffer(queue, buf, CL_TRUE, 0, sizeof a, a, 0, NULL, &e), "write");
    cl_ulong t = 0;
    cl_int err = clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof t, &t, NULL);
    /* Spec: CL_PROFILING_INFO_NOT_AVAILABLE; Oclgrind answers CL_SUCCESS. */
    print_status("clGetEventProfilingInfo(non-profiling queue)", err);
    clReleaseEvent(e);

    /* User event. */
    cl_event ue = clCreateUserEvent(ctx, &err);
    CHECK_CL(err, "user event");
    CHECK_CL(clSetUserEventStatus(ue, CL_COMPLETE), "complete");
    err = clGetEventProfilingInfo(ue, CL_PROFILING_COMMAND_QUEUED, sizeof t, &t, NULL);
    print_status("clGetEventProfilingInfo(user event)", err);
    clReleaseEvent(ue);

    for (int i = 0; i < 3; ++i)
        clReleaseEvent(evs[i]);
    clReleaseMemObject(buf);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(pq);
}

static void test_marker_callbacks(void)
{
    printf("== callbacks on many events\n");
    /* 8 markers, each with a CL_COMPLETE callback sharing one counter. */
    enum { M = 8 };
    static struct cb_record recs[M];
    cl_event ev[M];
    for (int i = 0; i < M; ++i) {
        CHECK_CL(clEnqueueMarkerWithWaitList(queue, 0, NULL, &ev[i]), "marker");
        register_cb(ev[i], CL_COMPLETE, &recs[i]);
    }
    CHECK_CL(clFinish(queue), "finish");
    int total = 0, wrong = 0;
    for (int i = 0; i < M; ++i) {
        WAIT_FOR(&recs[i].calls, 1, "marker callback");
        total += atomic_load(&recs[i].calls);
        wrong += atomic_load(&recs[i].wrong_event);
    }
    printf("marker callbacks: %d calls, %d with a foreign event, %d with a foreign user_data\n", total, wrong,
           atomic_load(&foreign_user_data));
    CHECK(total == M && wrong == 0 && atomic_load(&foreign_user_data) == 0, "marker callbacks");
    for (int i = 0; i < M; ++i)
        clReleaseEvent(ev[i]);
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
    ctx = make_context(dev);
    queue = make_queue(ctx, dev, 0);

    test_user_event_basics();
    test_user_event_gating();
    test_user_event_failure();
    test_wait_many();
    test_profiling();
    test_marker_callbacks();

    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    printf("events: PASS\n");
    return 0;
}
