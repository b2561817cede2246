/* Extension functions reached through clGetExtensionFunctionAddress*:
 * command buffers, Intel unified shared memory, suggested local work size,
 * and an unknown name. Prints a deterministic transcript; exits 1 on a
 * failed check. Function pointer types are declared here so the program does
 * not depend on the header's extension versions. */
#include "common.h"

#include <string.h>

typedef void *cmdbuf_t;
typedef cmdbuf_t(CL_API_CALL *create_cb_fn)(cl_uint, const cl_command_queue *, const cl_ulong *, cl_int *);
typedef cl_int(CL_API_CALL *cb_fn)(cmdbuf_t);
typedef cl_int(CL_API_CALL *enqueue_cb_fn)(cl_uint, cl_command_queue *, cmdbuf_t, cl_uint, const cl_event *, cl_event *);
typedef cl_int(CL_API_CALL *cb_info_fn)(cmdbuf_t, cl_uint, size_t, void *, size_t *);
typedef cl_int(CL_API_CALL *cmd_ndrange_fn)(cmdbuf_t, cl_command_queue, const cl_ulong *, cl_kernel, cl_uint, const size_t *,
                                            const size_t *, const size_t *, cl_uint, const cl_uint *, cl_uint *, void **);
typedef void *(CL_API_CALL *usm_alloc_fn)(cl_context, cl_device_id, const cl_ulong *, size_t, cl_uint, cl_int *);
typedef void *(CL_API_CALL *usm_host_alloc_fn)(cl_context, const cl_ulong *, size_t, cl_uint, cl_int *);
typedef cl_int(CL_API_CALL *usm_free_fn)(cl_context, void *);
typedef cl_int(CL_API_CALL *usm_info_fn)(cl_context, const void *, cl_uint, size_t, void *, size_t *);
typedef cl_int(CL_API_CALL *usm_memcpy_fn)(cl_command_queue, cl_bool, void *, const void *, size_t, cl_uint, const cl_event *, cl_event *);
typedef cl_int(CL_API_CALL *usm_arg_fn)(cl_kernel, cl_uint, const void *);
typedef cl_int(CL_API_CALL *suggested_fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *, size_t *);

#define CB_QUEUES_KHR 0x1294
#define CB_NUM_QUEUES_KHR 0x1295
#define CB_REFCOUNT_KHR 0x1296
#define CB_CONTEXT_KHR 0x1299
#define MEM_ALLOC_TYPE_INTEL 0x419A
#define MEM_ALLOC_DEVICE_INTEL 0x419D

static const char *src =
    "__kernel void twice(__global int *a) { size_t i = get_global_id(0); a[i] = 2 * a[i] + 1; }\n";

static int has_ext(cl_device_id dev, const char *name) {
    char buf[8192] = {0};
    clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof buf - 1, buf, NULL);
    size_t n = strlen(name);
    for (const char *p = buf; (p = strstr(p, name)); p += n)
        if ((p == buf || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) return 1;
    return 0;
}

#define N 256

static void command_buffers(cl_platform_id plat, cl_context ctx, cl_device_id dev, cl_command_queue q, cl_kernel k) {
    if (!has_ext(dev, "cl_khr_command_buffer")) {
        printf("skip: cl_khr_command_buffer (not supported)\n");
        return;
    }
    create_cb_fn create = (create_cb_fn)clGetExtensionFunctionAddressForPlatform(plat, "clCreateCommandBufferKHR");
    cb_fn finalize = (cb_fn)clGetExtensionFunctionAddressForPlatform(plat, "clFinalizeCommandBufferKHR");
    cb_fn release = (cb_fn)clGetExtensionFunctionAddressForPlatform(plat, "clReleaseCommandBufferKHR");
    enqueue_cb_fn enqueue = (enqueue_cb_fn)clGetExtensionFunctionAddressForPlatform(plat, "clEnqueueCommandBufferKHR");
    cb_info_fn info = (cb_info_fn)clGetExtensionFunctionAddressForPlatform(plat, "clGetCommandBufferInfoKHR");
    cmd_ndrange_fn ndrange = (cmd_ndrange_fn)clGetExtensionFunctionAddressForPlatform(plat, "clCommandNDRangeKernelKHR");
    CHECK(create && finalize && release && enqueue && info && ndrange, "command buffer entry points");
    printf("command buffer entry points: found\n");

    cl_int err;
    int host[N];
    for (int i = 0; i < N; i++) host[i] = i;
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host, &err);
    CHECK(err == CL_SUCCESS, "clCreateBuffer");
    CHECK(clSetKernelArg(k, 0, sizeof buf, &buf) == CL_SUCCESS, "clSetKernelArg");

    cmdbuf_t cb = create(1, &q, NULL, &err);
    print_status("clCreateCommandBufferKHR", err);
    CHECK(err == CL_SUCCESS && cb, "create command buffer");
    size_t g = N;
    err = ndrange(cb, NULL, NULL, k, 1, NULL, &g, NULL, 0, NULL, NULL, NULL);
    print_status("clCommandNDRangeKernelKHR", err);
    print_status("clFinalizeCommandBufferKHR", finalize(cb));

    cl_command_queue got_q = NULL;
    print_status("clGetCommandBufferInfoKHR(QUEUES)", info(cb, CB_QUEUES_KHR, sizeof got_q, &got_q, NULL));
    /* PoCL 3.1 implements an early provisional revision whose query numbers
     * differ, so this is printed (and compared across runs), not asserted. */
    printf("command buffer queue: %s\n", got_q == q ? "same" : "different");
    cl_uint nq = 0;
    info(cb, CB_NUM_QUEUES_KHR, sizeof nq, &nq, NULL);
    printf("command buffer queues: %u\n", nq);

    int runs = 0;
    for (int rep = 0; rep < 2; rep++) {
        cl_event ev = NULL;
        err = enqueue(0, NULL, cb, 0, NULL, &ev);
        print_status("clEnqueueCommandBufferKHR", err);
        if (err != CL_SUCCESS) continue;
        runs++;
        CHECK(clWaitForEvents(1, &ev) == CL_SUCCESS, "wait command buffer event");
        cl_command_queue evq = NULL;
        clGetEventInfo(ev, CL_EVENT_COMMAND_QUEUE, sizeof evq, &evq, NULL);
        printf("command buffer event queue: %s\n", evq == q ? "same" : "different");
        clReleaseEvent(ev);
    }
    CHECK(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL) == CL_SUCCESS, "read back");
    int ok = 1;
    for (int i = 0; i < N; i++) {
        int want = i;
        for (int r = 0; r < runs; r++) want = 2 * want + 1;
        ok &= host[i] == want;
    }
    printf("command buffer ran %d time(s): %s\n", runs, ok ? "correct" : "WRONG");
    CHECK(ok, "command buffer results");
    print_status("clReleaseCommandBufferKHR", release(cb));
    clReleaseMemObject(buf);
}

static void usm(cl_platform_id plat, cl_context ctx, cl_device_id dev, cl_command_queue q, cl_kernel k) {
    if (!has_ext(dev, "cl_intel_unified_shared_memory")) {
        printf("skip: cl_intel_unified_shared_memory (not supported)\n");
        return;
    }
    usm_alloc_fn dalloc = (usm_alloc_fn)clGetExtensionFunctionAddressForPlatform(plat, "clDeviceMemAllocINTEL");
    usm_host_alloc_fn halloc = (usm_host_alloc_fn)clGetExtensionFunctionAddressForPlatform(plat, "clHostMemAllocINTEL");
    usm_free_fn ufree = (usm_free_fn)clGetExtensionFunctionAddressForPlatform(plat, "clMemBlockingFreeINTEL");
    usm_info_fn uinfo = (usm_info_fn)clGetExtensionFunctionAddressForPlatform(plat, "clGetMemAllocInfoINTEL");
    usm_memcpy_fn memcpy_ = (usm_memcpy_fn)clGetExtensionFunctionAddressForPlatform(plat, "clEnqueueMemcpyINTEL");
    usm_arg_fn setarg = (usm_arg_fn)clGetExtensionFunctionAddress("clSetKernelArgMemPointerINTEL");
    CHECK(dalloc && halloc && ufree && uinfo && memcpy_ && setarg, "USM entry points");
    printf("USM entry points: found\n");

    cl_int err;
    int *h = halloc(ctx, NULL, N * sizeof(int), 0, &err);
    print_status("clHostMemAllocINTEL", err);
    int *d = dalloc(ctx, dev, NULL, N * sizeof(int), 0, &err);
    print_status("clDeviceMemAllocINTEL", err);
    CHECK(h && d, "USM allocations");
    for (int i = 0; i < N; i++) h[i] = 10 * i;
    print_status("clEnqueueMemcpyINTEL(h2d)", memcpy_(q, CL_TRUE, d, h, N * sizeof(int), 0, NULL, NULL));
    print_status("clSetKernelArgMemPointerINTEL", setarg(k, 0, d));
    size_t g = N;
    CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, NULL) == CL_SUCCESS, "USM kernel");
    print_status("clEnqueueMemcpyINTEL(d2h)", memcpy_(q, CL_TRUE, h, d, N * sizeof(int), 0, NULL, NULL));
    int ok = 1;
    for (int i = 0; i < N; i++) ok &= h[i] == 20 * i + 1;
    printf("USM kernel: %s\n", ok ? "correct" : "WRONG");
    CHECK(ok, "USM results");

    cl_device_id owner = NULL;
    print_status("clGetMemAllocInfoINTEL(DEVICE)", uinfo(ctx, d, MEM_ALLOC_DEVICE_INTEL, sizeof owner, &owner, NULL));
    printf("USM allocation device: %s\n", owner == dev ? "same" : "different");
    CHECK(owner == dev, "CL_MEM_ALLOC_DEVICE_INTEL is the application's device");
    cl_uint type = 0;
    uinfo(ctx, d, MEM_ALLOC_TYPE_INTEL, sizeof type, &type, NULL);
    printf("USM allocation type: 0x%x\n", type);
    print_status("clMemBlockingFreeINTEL(device)", ufree(ctx, d));
    print_status("clMemBlockingFreeINTEL(host)", ufree(ctx, h));
}

static void suggested(cl_platform_id plat, cl_device_id dev, cl_command_queue q, cl_kernel k) {
    if (!has_ext(dev, "cl_khr_suggested_local_work_size")) {
        printf("skip: cl_khr_suggested_local_work_size (not supported)\n");
        return;
    }
    suggested_fn f = (suggested_fn)clGetExtensionFunctionAddressForPlatform(plat, "clGetKernelSuggestedLocalWorkSizeKHR");
    CHECK(f, "clGetKernelSuggestedLocalWorkSizeKHR");
    size_t g = N, l = 0;
    cl_int err = f(q, k, 1, NULL, &g, &l);
    print_status("clGetKernelSuggestedLocalWorkSizeKHR", err);
    printf("suggested local size divides global: %s\n", l && g % l == 0 ? "yes" : "no");
}

int main(void) {
    cl_platform_id plat;
    cl_device_id dev;
    pick_device(&plat, &dev);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err == CL_SUCCESS, "clCreateContext");
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err); /* Oclgrind is OpenCL 1.2 */
    CHECK(err == CL_SUCCESS, "queue");
    cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CHECK(clBuildProgram(p, 1, &dev, "", NULL, NULL) == CL_SUCCESS, "build");
    cl_kernel k = clCreateKernel(p, "twice", &err);
    CHECK(err == CL_SUCCESS, "kernel");

    void *nope = clGetExtensionFunctionAddressForPlatform(plat, "clNoSuchFunctionCLTAP");
    printf("unknown extension function: %s\n", nope ? "non-NULL" : "NULL");
    nope = clGetExtensionFunctionAddress("clNoSuchFunctionCLTAP");
    printf("unknown extension function (no platform): %s\n", nope ? "non-NULL" : "NULL");

    command_buffers(plat, ctx, dev, q, k);
    usm(plat, ctx, dev, q, k);
    suggested(plat, dev, q, k);

    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    printf("extensions: done\n");
    return 0;
}
