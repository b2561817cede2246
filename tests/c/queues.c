/*
 * queues.c - command queue creation (legacy and with properties), queue info,
 * reference counting, flush/finish.
 */
#include "common.h"

static cl_context ctx;
static cl_device_id dev;

static void print_props_flags(cl_command_queue_properties p)
{
    printf("0x%llx", (unsigned long long)p);
    if (p & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) printf(" OUT_OF_ORDER");
    if (p & CL_QUEUE_PROFILING_ENABLE) printf(" PROFILING");
    if (p & CL_QUEUE_ON_DEVICE) printf(" ON_DEVICE");
    if (p & CL_QUEUE_ON_DEVICE_DEFAULT) printf(" ON_DEVICE_DEFAULT");
}

static cl_uint queue_refcount(cl_command_queue q)
{
    cl_uint rc = 0;
    CHECK_CL(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof rc, &rc, NULL),
             "CL_QUEUE_REFERENCE_COUNT");
    return rc;
}

/* Queries and prints the information of `q`, checks it against what the
 * application asked for, and runs a small write/read round trip on it. */
static void inspect_queue(const char *label, cl_command_queue q,
                          cl_command_queue_properties expected, int version)
{
    printf("-- %s\n", label);
    cl_context qc = NULL;
    CHECK_CL(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qc, &qc, NULL), "CL_QUEUE_CONTEXT");
    printf("CL_QUEUE_CONTEXT: %s\n", same_str(qc, ctx));
    CHECK(qc == ctx, "queue context differs");

    cl_device_id qd = NULL;
    CHECK_CL(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof qd, &qd, NULL), "CL_QUEUE_DEVICE");
    printf("CL_QUEUE_DEVICE: %s\n", same_str(qd, dev));
    CHECK(qd == dev, "queue device differs");

    cl_command_queue_properties p = 0;
    CHECK_CL(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof p, &p, NULL), "CL_QUEUE_PROPERTIES");
    printf("CL_QUEUE_PROPERTIES: ");
    print_props_flags(p);
    printf("\n");
    CHECK(p == expected, "queue properties differ from the requested ones");

    if (version >= 30) {
        size_t sz = 0;
        cl_int err = clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, 0, NULL, &sz);
        if (err != CL_SUCCESS) {
            print_status("CL_QUEUE_PROPERTIES_ARRAY", err);
        } else {
            cl_queue_properties arr[16] = {0};
            CHECK(sz <= sizeof arr, "properties array too long");
            if (sz > 0)
                CHECK_CL(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, sz, arr, NULL),
                         "CL_QUEUE_PROPERTIES_ARRAY");
            printf("CL_QUEUE_PROPERTIES_ARRAY: %zu entries", sz / sizeof arr[0]);
            for (size_t i = 0; i < sz / sizeof arr[0]; ++i) {
                if (arr[i] == CL_QUEUE_PROPERTIES)
                    printf(" CL_QUEUE_PROPERTIES");
                else if (arr[i] == CL_QUEUE_SIZE)
                    printf(" CL_QUEUE_SIZE");
                else
                    printf(" 0x%llx", (unsigned long long)arr[i]);
            }
            printf("\n");
        }
    }
    if (version >= 21) {
        cl_command_queue dq = NULL;
        cl_int err = clGetCommandQueueInfo(q, CL_QUEUE_DEVICE_DEFAULT, sizeof dq, &dq, NULL);
        if (err == CL_SUCCESS)
            printf("CL_QUEUE_DEVICE_DEFAULT: %s\n", dq ? "non-null" : "null");
        else
            print_status("CL_QUEUE_DEVICE_DEFAULT", err);
    }
    if (version >= 20) {
        cl_uint qs = 0;
        cl_int err = clGetCommandQueueInfo(q, CL_QUEUE_SIZE, sizeof qs, &qs, NULL);
        /* Host queues: CL_INVALID_COMMAND_QUEUE per spec; print what we get. */
        if (err == CL_SUCCESS)
            printf("CL_QUEUE_SIZE: %u\n", qs);
        else
            print_status("CL_QUEUE_SIZE", err);
    }

    /* Reference counting. */
    cl_uint r0 = queue_refcount(q);
    CHECK_CL(clRetainCommandQueue(q), "clRetainCommandQueue");
    cl_uint r1 = queue_refcount(q);
    CHECK_CL(clRetainCommandQueue(q), "clRetainCommandQueue");
    cl_uint r2 = queue_refcount(q);
    CHECK_CL(clReleaseCommandQueue(q), "clReleaseCommandQueue");
    CHECK_CL(clReleaseCommandQueue(q), "clReleaseCommandQueue");
    cl_uint r3 = queue_refcount(q);
    printf("CL_QUEUE_REFERENCE_COUNT: %u -> retain %u -> retain %u -> release x2 %u\n", r0, r1, r2, r3);
    CHECK(r1 == r0 + 1 && r2 == r0 + 2 && r3 == r0, "queue refcount");

    /* Use the queue: write, then read back through it. */
    enum { N = 256 };
    cl_int in[N], out[N];
    for (int i = 0; i < N; ++i) {
        in[i] = i * 7 + 1;
        out[i] = -1;
    }
    cl_mem buf = make_buffer(ctx, CL_MEM_READ_WRITE, sizeof in, NULL);
    cl_event wev = NULL;
    CHECK_CL(clEnqueueWriteBuffer(q, buf, CL_FALSE, 0, sizeof in, in, 0, NULL, &wev), "write");
    print_status("clFlush", clFlush(q));
    CHECK_CL(clEnqueueReadBuffer(q, buf, CL_FALSE, 0, sizeof out, out, 1, &wev, NULL), "read");
    print_status("clFinish", clFinish(q));
    CHECK(memcmp(in, out, sizeof in) == 0, "round trip through the queue");
    cl_command_queue eq = NULL;
    CHECK_CL(clGetEventInfo(wev, CL_EVENT_COMMAND_QUEUE, sizeof eq, &eq, NULL), "EVENT_COMMAND_QUEUE");
    printf("write/read round trip: OK, event queue %s\n", same_str(eq, q));
    CHECK(eq == q, "event queue differs");
    clReleaseEvent(wev);
    clReleaseMemObject(buf);
}

int main(void)
{
    cl_platform_id platform;
    pick_device(&platform, &dev);
    ctx = make_context(dev);
    int version = api_version(platform, dev);

    cl_command_queue_properties supported = 0;
    CHECK_CL(clGetDeviceInfo(dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof supported, &supported, NULL),
             "CL_DEVICE_QUEUE_PROPERTIES");
    printf("CL_DEVICE_QUEUE_PROPERTIES: ");
    print_props_flags(supported);
    printf("\n");
    int ooo = (supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
    int prof = (supported & CL_QUEUE_PROFILING_ENABLE) != 0;
    CHECK(prof, "profiling is mandatory");

    cl_int err = CL_SUCCESS;
    cl_command_queue q;

    /* Legacy entry point. */
    q = clCreateCommandQueue(ctx, dev, 0, &err);
    print_status("clCreateCommandQueue(0)", err);
    CHECK(err == CL_SUCCESS, "create");
    inspect_queue("clCreateCommandQueue(0)", q, 0, version);
    CHECK_CL(clReleaseCommandQueue(q), "release");

    q = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    print_status("clCreateCommandQueue(PROFILING)", err);
    CHECK(err == CL_SUCCESS, "create");
    inspect_queue("clCreateCommandQueue(PROFILING)", q, CL_QUEUE_PROFILING_ENABLE, version);
    CHECK_CL(clReleaseCommandQueue(q), "release");

    if (ooo) {
        cl_command_queue_properties p = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;
        q = clCreateCommandQueue(ctx, dev, p, &err);
        print_status("clCreateCommandQueue(OUT_OF_ORDER|PROFILING)", err);
        CHECK(err == CL_SUCCESS, "create");
        inspect_queue("clCreateCommandQueue(OUT_OF_ORDER|PROFILING)", q, p, version);
        CHECK_CL(clReleaseCommandQueue(q), "release");
    } else {
        printf("skip: out-of-order queue (not in CL_DEVICE_QUEUE_PROPERTIES)\n");
    }

    if (version < 20) {
        printf("skip: clCreateCommandQueueWithProperties (OpenCL %d.%d)\n", version / 10, version % 10);
    } else {
        q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
        print_status("clCreateCommandQueueWithProperties(NULL)", err);
        CHECK(err == CL_SUCCESS, "create");
        inspect_queue("clCreateCommandQueueWithProperties(NULL)", q, 0, version);
        CHECK_CL(clReleaseCommandQueue(q), "release");

        cl_queue_properties empty[] = {0};
        q = clCreateCommandQueueWithProperties(ctx, dev, empty, &err);
        print_status("clCreateCommandQueueWithProperties({0})", err);
        CHECK(err == CL_SUCCESS, "create");
        inspect_queue("clCreateCommandQueueWithProperties({0})", q, 0, version);
        CHECK_CL(clReleaseCommandQueue(q), "release");

        cl_queue_properties pp[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
        q = clCreateCommandQueueWithProperties(ctx, dev, pp, &err);
        print_status("clCreateCommandQueueWithProperties(PROFILING)", err);
        CHECK(err == CL_SUCCESS, "create");
        inspect_queue("clCreateCommandQueueWithProperties(PROFILING)", q, CL_QUEUE_PROFILING_ENABLE, version);
        CHECK_CL(clReleaseCommandQueue(q), "release");

        if (ooo) {
            cl_queue_properties po[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
            q = clCreateCommandQueueWithProperties(ctx, dev, po, &err);
            print_status("clCreateCommandQueueWithProperties(OUT_OF_ORDER)", err);
            CHECK(err == CL_SUCCESS, "create");
            inspect_queue("clCreateCommandQueueWithProperties(OUT_OF_ORDER)", q,
                          CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, version);
            CHECK_CL(clReleaseCommandQueue(q), "release");
        } else {
            printf("skip: out-of-order queue with properties (not supported)\n");
        }
    }

    /* Several queues on one context: a command on one waits on another. */
    cl_command_queue qa = make_queue(ctx, dev, 0), qb = make_queue(ctx, dev, 0);
    cl_int v[64], r[64];
    for (int i = 0; i < 64; ++i) {
        v[i] = 1000 - i;
        r[i] = 0;
    }
    cl_mem b = make_buffer(ctx, CL_MEM_READ_WRITE, sizeof v, NULL);
    cl_event e = NULL;
    CHECK_CL(clEnqueueWriteBuffer(qa, b, CL_FALSE, 0, sizeof v, v, 0, NULL, &e), "write qa");
    CHECK_CL(clFlush(qa), "flush qa");
    CHECK_CL(clEnqueueReadBuffer(qb, b, CL_TRUE, 0, sizeof r, r, 1, &e, NULL), "read qb");
    CHECK(memcmp(v, r, sizeof v) == 0, "cross-queue dependency");
    printf("cross-queue wait: OK\n");
    print_status("clFinish(qa)", clFinish(qa));
    print_status("clFinish(qb)", clFinish(qb));
    clReleaseEvent(e);
    clReleaseMemObject(b);
    clReleaseCommandQueue(qa);
    clReleaseCommandQueue(qb);

    /* An empty queue can be flushed and finished. */
    q = make_queue(ctx, dev, 0);
    print_status("clFlush(empty)", clFlush(q));
    print_status("clFinish(empty)", clFinish(q));
    clReleaseCommandQueue(q);

    clReleaseContext(ctx);
    printf("queues: PASS\n");
    return 0;
}
