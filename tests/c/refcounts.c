/*
 * refcounts.c - CL_*_REFERENCE_COUNT of every object kind after create, after
 * retain and after release, plus the implicit references some objects take
 * on others (printed as the runtime reports them: runtimes differ).
 */
#include "common.h"

static cl_platform_id platform;
static cl_device_id dev;

#define RC_GETTER(name, type, fn, param)                                     \
    static cl_uint name(type obj)                                            \
    {                                                                        \
        cl_uint rc = 0;                                                      \
        cl_int err = fn(obj, param, sizeof rc, &rc, NULL);                   \
        CHECK(err == CL_SUCCESS, #param ": %s", cl_err_name(err));           \
        return rc;                                                           \
    }

RC_GETTER(ctx_rc, cl_context, clGetContextInfo, CL_CONTEXT_REFERENCE_COUNT)
RC_GETTER(queue_rc, cl_command_queue, clGetCommandQueueInfo, CL_QUEUE_REFERENCE_COUNT)
RC_GETTER(mem_rc, cl_mem, clGetMemObjectInfo, CL_MEM_REFERENCE_COUNT)
RC_GETTER(prog_rc, cl_program, clGetProgramInfo, CL_PROGRAM_REFERENCE_COUNT)
RC_GETTER(kernel_rc, cl_kernel, clGetKernelInfo, CL_KERNEL_REFERENCE_COUNT)
RC_GETTER(event_rc, cl_event, clGetEventInfo, CL_EVENT_REFERENCE_COUNT)
RC_GETTER(sampler_rc, cl_sampler, clGetSamplerInfo, CL_SAMPLER_REFERENCE_COUNT)
RC_GETTER(device_rc, cl_device_id, clGetDeviceInfo, CL_DEVICE_REFERENCE_COUNT)

/* create / retain / release, checked to be 1 / 2 / 1. */
#define CYCLE(label, obj, getter, retain, release)                           \
    do {                                                                     \
        cl_uint a_ = getter(obj);                                            \
        CHECK_CL(retain(obj), #retain);                                      \
        cl_uint b_ = getter(obj);                                            \
        CHECK_CL(release(obj), #release);                                    \
        cl_uint c_ = getter(obj);                                            \
        printf("%s: after create %u, after retain %u, after release %u\n",  \
               label, a_, b_, c_);                                           \
        CHECK(a_ == 1 && b_ == 2 && c_ == 1, "%s refcount", label);          \
    } while (0)

int main(void)
{
    pick_device(&platform, &dev);
    cl_int err = CL_SUCCESS;

    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK_CL(err, "clCreateContext");
    CYCLE("context", ctx, ctx_rc, clRetainContext, clReleaseContext);

    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    CHECK_CL(err, "clCreateCommandQueue");
    printf("implicit: context refcount with 1 queue: %u\n", ctx_rc(ctx));
    CYCLE("command queue", q, queue_rc, clRetainCommandQueue, clReleaseCommandQueue);

    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 1024, NULL, &err);
    CHECK_CL(err, "clCreateBuffer");
    printf("implicit: context refcount with 1 queue, 1 buffer: %u\n", ctx_rc(ctx));
    CYCLE("buffer", buf, mem_rc, clRetainMemObject, clReleaseMemObject);

    cl_buffer_region region = {0, 256};
    cl_mem sub = clCreateSubBuffer(buf, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
    CHECK_CL(err, "clCreateSubBuffer");
    printf("implicit: buffer refcount with 1 sub-buffer: %u\n", mem_rc(buf));
    CYCLE("sub-buffer", sub, mem_rc, clRetainMemObject, clReleaseMemObject);
    CHECK_CL(clReleaseMemObject(sub), "release sub-buffer");
    printf("implicit: buffer refcount after the sub-buffer is released: %u\n", mem_rc(buf));

    const char *src = "__kernel void k(__global int *a) { a[get_global_id(0)] = 1; }\n"
                      "__kernel void k2(__global int *a) { a[get_global_id(0)] = 2; }\n";
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CHECK_CL(err, "clCreateProgramWithSource");
    CYCLE("program", prog, prog_rc, clRetainProgram, clReleaseProgram);
    CHECK_CL(clBuildProgram(prog, 1, &dev, NULL, NULL, NULL), "clBuildProgram");
    printf("program refcount after build: %u\n", prog_rc(prog));

    cl_kernel k = clCreateKernel(prog, "k", &err);
    CHECK_CL(err, "clCreateKernel");
    printf("implicit: program refcount with 1 kernel: %u\n", prog_rc(prog));
    CYCLE("kernel", k, kernel_rc, clRetainKernel, clReleaseKernel);
    cl_kernel k2 = clCreateKernel(prog, "k2", &err);
    CHECK_CL(err, "clCreateKernel(k2)");
    printf("implicit: program refcount with 2 kernels: %u\n", prog_rc(prog));
    CHECK_CL(clSetKernelArg(k, 0, sizeof buf, &buf), "clSetKernelArg");
    printf("implicit: buffer refcount after clSetKernelArg: %u\n", mem_rc(buf));
    CHECK_CL(clReleaseKernel(k2), "release k2");
    printf("implicit: program refcount after releasing 1 kernel: %u\n", prog_rc(prog));

    /* Events: a user event (no runtime-internal references), and a command
     * event after the queue drained. */
    cl_event ue = clCreateUserEvent(ctx, &err);
    CHECK_CL(err, "clCreateUserEvent");
    CYCLE("user event", ue, event_rc, clRetainEvent, clReleaseEvent);
    CHECK_CL(clSetUserEventStatus(ue, CL_COMPLETE), "complete");
    CHECK_CL(clReleaseEvent(ue), "release user event");

    cl_event ev = NULL;
    size_t g = 256;
    CHECK_CL(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, &ev), "NDRange");
    CHECK_CL(clFinish(q), "clFinish");
    /* A runtime may still hold the event for a moment after completion, so
     * only relations are checked for a command event. */
    cl_uint e0 = event_rc(ev);
    CHECK_CL(clRetainEvent(ev), "retain event");
    cl_uint e1 = event_rc(ev);
    CHECK_CL(clReleaseEvent(ev), "release event");
    cl_uint e2 = event_rc(ev);
    printf("command event: retain adds one and release removes one: %s\n",
           (e0 >= 1 && e1 >= 2 && e1 <= e0 + 1 && e2 + 1 <= e1) ? "yes" : "no");
    CHECK(e0 >= 1 && e1 >= 2 && e1 <= e0 + 1 && e2 + 1 <= e1, "command event refcount %u %u %u", e0, e1, e2);
    CHECK_CL(clReleaseEvent(ev), "release event");

    if (device_image_support(dev)) {
        cl_sampler s = clCreateSampler(ctx, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
        CHECK_CL(err, "clCreateSampler");
        CYCLE("sampler", s, sampler_rc, clRetainSampler, clReleaseSampler);
        printf("implicit: context refcount with a sampler too: %u\n", ctx_rc(ctx));
        CHECK_CL(clReleaseSampler(s), "release sampler");

        cl_image_format fmt = {CL_RGBA, CL_UNSIGNED_INT8};
        cl_image_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.image_type = CL_MEM_OBJECT_IMAGE2D;
        desc.image_width = 4;
        desc.image_height = 4;
        cl_mem img = clCreateImage(ctx, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err);
        CHECK_CL(err, "clCreateImage");
        CYCLE("image", img, mem_rc, clRetainMemObject, clReleaseMemObject);
        CHECK_CL(clReleaseMemObject(img), "release image");
    } else {
        printf("skip: sampler and image refcounts (no image support)\n");
    }

    /* Devices: root devices always report 1; sub-devices count. */
    cl_uint r0 = device_rc(dev);
    CHECK_CL(clRetainDevice(dev), "clRetainDevice(root)");
    cl_uint r1 = device_rc(dev);
    CHECK_CL(clReleaseDevice(dev), "clReleaseDevice(root)");
    printf("root device: %u, after retain %u, after release %u\n", r0, r1, device_rc(dev));
    CHECK(r0 == 1 && r1 == 1, "root device refcount must stay 1");
    cl_uint max_sub = device_uint(dev, CL_DEVICE_PARTITION_MAX_SUB_DEVICES);
    cl_uint cus = device_uint(dev, CL_DEVICE_MAX_COMPUTE_UNITS);
    if (max_sub >= 2 && cus >= 2) {
        cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
        cl_device_id subs[64];
        cl_uint n = 0;
        err = clCreateSubDevices(dev, props, 64, subs, &n);
        if (err == CL_SUCCESS && n >= 1) {
            CYCLE("sub-device", subs[0], device_rc, clRetainDevice, clReleaseDevice);
            cl_context sctx = clCreateContext(NULL, 1, &subs[0], NULL, NULL, &err);
            CHECK_CL(err, "context on sub-device");
            printf("implicit: sub-device refcount with a context on it: %u\n", device_rc(subs[0]));
            CHECK_CL(clReleaseContext(sctx), "release sub-device context");
            printf("implicit: sub-device refcount after the context is released: %u\n", device_rc(subs[0]));
            for (cl_uint i = 0; i < n; ++i)
                CHECK_CL(clReleaseDevice(subs[i]), "release sub-device");
        } else {
            printf("clCreateSubDevices(EQUALLY 1): %s\n", cl_err_name(err));
            printf("skip: sub-device refcount (partitioning failed)\n");
        }
    } else {
        printf("skip: sub-device refcount (max sub-devices %u, compute units %u)\n", max_sub, cus);
    }

    /* Tear down in an order that leaves objects alive through implicit
     * references: the program outlives its last kernel, the context its
     * last object. */
    CHECK_CL(clReleaseProgram(prog), "release program (kernel still alive)");
    CHECK_CL(clReleaseKernel(k), "release kernel");
    CHECK_CL(clReleaseMemObject(buf), "release buffer");
    CHECK_CL(clReleaseContext(ctx), "release context (queue still alive)");
    CHECK_CL(clFinish(q), "queue usable after its context was released by the app");
    CHECK_CL(clReleaseCommandQueue(q), "release queue");
    printf("teardown with implicit references: OK\n");
    printf("refcounts: PASS\n");
    return 0;
}
