/* Allocates known sizes, retains and releases, and leaks a known set on
 * purpose, for the memory trace and leak check tests (tests/memory.rs).
 *   leaky          buffers, an image, SVM (where the device has it), USM
 *                  (where the platform has cl_intel_unified_shared_memory)
 *   leaky die      the same, then SIGKILL before anything is released
 * Prints what it could do: "svm yes|no", "usm yes|no". */
#include "../common.h"

#include <signal.h>

typedef void *(*host_alloc_fn)(cl_context, const cl_mem_properties_intel *, size_t, cl_uint, cl_int *);
typedef void *(*dev_alloc_fn)(cl_context, cl_device_id, const cl_mem_properties_intel *, size_t, cl_uint,
                              cl_int *);
typedef cl_int (*mem_free_fn)(cl_context, void *);

int main(int argc, char **argv)
{
    int die = argc > 1 && strcmp(argv[1], "die") == 0;
    cl_platform_id platform;
    cl_device_id dev;
    pick_device(&platform, &dev);
    cl_int err = CL_SUCCESS;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK_CL(err, "clCreateContext");
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    CHECK_CL(err, "clCreateCommandQueue");

    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    CHECK_CL(err, "buffer a");
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_ONLY, 1000, NULL, &err);
    CHECK_CL(err, "buffer b");
    cl_mem c = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, 2048, NULL, &err);
    CHECK_CL(err, "buffer c");
    /* A failed allocation allocates nothing. */
    cl_mem none = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 0, NULL, &err);
    CHECK(none == NULL && err != CL_SUCCESS, "a zero-sized buffer fails");

    cl_image_format fmt = { CL_RGBA, CL_UNORM_INT8 };
    cl_image_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = 16;
    desc.image_height = 8;
    cl_mem img = clCreateImage(ctx, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err);
    CHECK_CL(err, "image");

    cl_device_svm_capabilities svm = 0;
    clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL);
    void *s1 = NULL, *s2 = NULL;
    if (svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) {
        s1 = clSVMAlloc(ctx, CL_MEM_READ_WRITE, 256, 0);
        s2 = clSVMAlloc(ctx, CL_MEM_READ_WRITE, 128, 0);
        CHECK(s1 && s2, "clSVMAlloc");
    }
    printf("svm %s\n", s1 ? "yes" : "no");

    char *exts = platform_str(platform, CL_PLATFORM_EXTENSIONS);
    int usm = strstr(exts, "cl_intel_unified_shared_memory") != NULL;
    free(exts);
    void *h = NULL, *d = NULL, *sh = NULL;
    mem_free_fn mem_free = NULL;
    if (usm) {
        host_alloc_fn host_alloc =
            (host_alloc_fn)clGetExtensionFunctionAddressForPlatform(platform, "clHostMemAllocINTEL");
        dev_alloc_fn dev_alloc =
            (dev_alloc_fn)clGetExtensionFunctionAddressForPlatform(platform, "clDeviceMemAllocINTEL");
        dev_alloc_fn shared_alloc =
            (dev_alloc_fn)clGetExtensionFunctionAddressForPlatform(platform, "clSharedMemAllocINTEL");
        mem_free = (mem_free_fn)clGetExtensionFunctionAddressForPlatform(platform, "clMemBlockingFreeINTEL");
        CHECK(host_alloc && dev_alloc && shared_alloc && mem_free, "USM entry points");
        h = host_alloc(ctx, NULL, 64, 0, &err);
        CHECK_CL(err, "clHostMemAllocINTEL");
        d = dev_alloc(ctx, dev, NULL, 32, 0, &err);
        CHECK_CL(err, "clDeviceMemAllocINTEL");
        sh = shared_alloc(ctx, dev, NULL, 16, 0, &err);
        CHECK_CL(err, "clSharedMemAllocINTEL");
    }
    printf("usm %s\n", usm ? "yes" : "no");
    fflush(stdout);
    if (die)
        raise(SIGKILL);

    /* b: retained and released once, its creation's reference left. */
    CHECK_CL(clRetainMemObject(b), "retain b");
    CHECK_CL(clReleaseMemObject(b), "release b");
    /* c: retained, then released twice: freed. */
    CHECK_CL(clRetainMemObject(c), "retain c");
    CHECK_CL(clReleaseMemObject(c), "release c");
    CHECK_CL(clReleaseMemObject(c), "release c again");
    CHECK_CL(clReleaseMemObject(a), "release a");
    CHECK_CL(clReleaseMemObject(img), "release image");
    /* An event never released. */
    cl_event ev;
    char bytes[16] = { 0 };
    CHECK_CL(clEnqueueWriteBuffer(q, b, CL_TRUE, 0, sizeof bytes, bytes, 0, NULL, &ev), "write b");
    if (s1) {
        clSVMFree(ctx, s1); /* s2 is left */
    }
    if (usm) {
        CHECK_CL(mem_free(ctx, h), "free host");
        CHECK_CL(mem_free(ctx, d), "free device");
        (void)sh; /* left on purpose */
    }
    /* The queue is left; the context released (the buffer left holds it). */
    CHECK_CL(clFinish(q), "clFinish");
    CHECK_CL(clReleaseContext(ctx), "release context");
    printf("done\n");
    return 0;
}
