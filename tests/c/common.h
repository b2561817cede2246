/*
 * common.h - shared helpers for the cltap C client tests.
 *
 * Every test program is a plain OpenCL application: it picks the first
 * platform and its first device, exercises one API family, checks its own
 * results and prints a deterministic transcript on stdout (no pointers,
 * handles, timestamps, durations or thread ids).  On a failed check it prints
 * "FAIL <file>:<line> ..." and exits 1.
 *
 * All helpers are `static inline` so that unused ones do not trip -Wall -Werror.
 */
#ifndef CLTAP_TESTS_COMMON_H
#define CLTAP_TESTS_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* sched_yield, clock_gettime with -std=c11 */
#endif

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
/* The tests call deprecated entry points on purpose (clCreateCommandQueue,
 * clEnqueueMarker, clCreateSampler, ...); keep the headers from marking them. */
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#define CL_USE_DEPRECATED_OPENCL_2_1_APIS
#define CL_USE_DEPRECATED_OPENCL_2_2_APIS

#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------ */
/* Failure reporting                                                         */
/* ------------------------------------------------------------------------ */

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            printf("FAIL %s:%d ", __FILE__, __LINE__);                       \
            printf(__VA_ARGS__);                                             \
            printf("\n");                                                    \
            fflush(stdout);                                                  \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

/* CHECK_CL(err, "what"): fail unless err == CL_SUCCESS, naming the error. */
#define CHECK_CL(err, what) \
    CHECK((err) == CL_SUCCESS, "%s: %s", (what), cl_err_name(err))

static inline const char *cl_err_name(cl_int err)
{
    switch (err) {
    case 0: return "CL_SUCCESS";
    case -1: return "CL_DEVICE_NOT_FOUND";
    case -2: return "CL_DEVICE_NOT_AVAILABLE";
    case -3: return "CL_COMPILER_NOT_AVAILABLE";
    case -4: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case -5: return "CL_OUT_OF_RESOURCES";
    case -6: return "CL_OUT_OF_HOST_MEMORY";
    case -7: return "CL_PROFILING_INFO_NOT_AVAILABLE";
    case -8: return "CL_MEM_COPY_OVERLAP";
    case -9: return "CL_IMAGE_FORMAT_MISMATCH";
    case -10: return "CL_IMAGE_FORMAT_NOT_SUPPORTED";
    case -11: return "CL_BUILD_PROGRAM_FAILURE";
    case -12: return "CL_MAP_FAILURE";
    case -13: return "CL_MISALIGNED_SUB_BUFFER_OFFSET";
    case -14: return "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST";
    case -15: return "CL_COMPILE_PROGRAM_FAILURE";
    case -16: return "CL_LINKER_NOT_AVAILABLE";
    case -17: return "CL_LINK_PROGRAM_FAILURE";
    case -18: return "CL_DEVICE_PARTITION_FAILED";
    case -19: return "CL_KERNEL_ARG_INFO_NOT_AVAILABLE";
    case -30: return "CL_INVALID_VALUE";
    case -31: return "CL_INVALID_DEVICE_TYPE";
    case -32: return "CL_INVALID_PLATFORM";
    case -33: return "CL_INVALID_DEVICE";
    case -34: return "CL_INVALID_CONTEXT";
    case -35: return "CL_INVALID_QUEUE_PROPERTIES";
    case -36: return "CL_INVALID_COMMAND_QUEUE";
    case -37: return "CL_INVALID_HOST_PTR";
    case -38: return "CL_INVALID_MEM_OBJECT";
    case -39: return "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR";
    case -40: return "CL_INVALID_IMAGE_SIZE";
    case -41: return "CL_INVALID_SAMPLER";
    case -42: return "CL_INVALID_BINARY";
    case -43: return "CL_INVALID_BUILD_OPTIONS";
    case -44: return "CL_INVALID_PROGRAM";
    case -45: return "CL_INVALID_PROGRAM_EXECUTABLE";
    case -46: return "CL_INVALID_KERNEL_NAME";
    case -47: return "CL_INVALID_KERNEL_DEFINITION";
    case -48: return "CL_INVALID_KERNEL";
    case -49: return "CL_INVALID_ARG_INDEX";
    case -50: return "CL_INVALID_ARG_VALUE";
    case -51: return "CL_INVALID_ARG_SIZE";
    case -52: return "CL_INVALID_KERNEL_ARGS";
    case -53: return "CL_INVALID_WORK_DIMENSION";
    case -54: return "CL_INVALID_WORK_GROUP_SIZE";
    case -55: return "CL_INVALID_WORK_ITEM_SIZE";
    case -56: return "CL_INVALID_GLOBAL_OFFSET";
    case -57: return "CL_INVALID_EVENT_WAIT_LIST";
    case -58: return "CL_INVALID_EVENT";
    case -59: return "CL_INVALID_OPERATION";
    case -60: return "CL_INVALID_GL_OBJECT";
    case -61: return "CL_INVALID_BUFFER_SIZE";
    case -62: return "CL_INVALID_MIP_LEVEL";
    case -63: return "CL_INVALID_GLOBAL_WORK_SIZE";
    case -64: return "CL_INVALID_PROPERTY";
    case -65: return "CL_INVALID_IMAGE_DESCRIPTOR";
    case -66: return "CL_INVALID_COMPILER_OPTIONS";
    case -67: return "CL_INVALID_LINKER_OPTIONS";
    case -68: return "CL_INVALID_DEVICE_PARTITION_COUNT";
    case -69: return "CL_INVALID_PIPE_SIZE";
    case -70: return "CL_INVALID_DEVICE_QUEUE";
    case -71: return "CL_INVALID_SPEC_ID";
    case -72: return "CL_MAX_SIZE_RESTRICTION_EXCEEDED";
    /* Extension error codes (cl_ext.h / cl_gl.h). */
    case -1000: return "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR";
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    case -1057: return "CL_DEVICE_PARTITION_FAILED_EXT";
    case -1058: return "CL_INVALID_PARTITION_COUNT_EXT";
    case -1059: return "CL_INVALID_PARTITION_NAME_EXT";
    case -1093: return "CL_INVALID_EGL_OBJECT_KHR";
    case -1092: return "CL_EGL_RESOURCE_NOT_ACQUIRED_KHR";
    case -1094: return "CL_INVALID_ACCELERATOR_INTEL";
    case -1095: return "CL_INVALID_ACCELERATOR_TYPE_INTEL";
    case -1096: return "CL_INVALID_ACCELERATOR_DESCRIPTOR_INTEL";
    case -1097: return "CL_ACCELERATOR_TYPE_NOT_SUPPORTED_INTEL";
    case -1098: return "CL_INVALID_VA_API_MEDIA_ADAPTER_INTEL";
    case -1099: return "CL_INVALID_VA_API_MEDIA_SURFACE_INTEL";
    case -1100: return "CL_VA_API_MEDIA_SURFACE_ALREADY_ACQUIRED_INTEL";
    case -1101: return "CL_VA_API_MEDIA_SURFACE_NOT_ACQUIRED_INTEL";
    case -1121: return "CL_CONTEXT_TERMINATED_KHR";
    case -1138: return "CL_INVALID_COMMAND_BUFFER_KHR";
    case -1139: return "CL_INVALID_SYNC_POINT_WAIT_LIST_KHR";
    case -1140: return "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR";
    case -1141: return "CL_INVALID_MUTABLE_COMMAND_KHR";
    case -1142: return "CL_INVALID_SEMAPHORE_KHR";
    default: {
        static _Thread_local char buf[48];
        snprintf(buf, sizeof buf, "CL_UNKNOWN_ERROR(%d)", (int)err);
        return buf;
    }
    }
}

/* Prints "what: <ERROR_NAME>". */
static inline void print_status(const char *what, cl_int err)
{
    printf("%s: %s\n", what, cl_err_name(err));
}

/* Prints "what: <ERROR_NAME>" and fails unless err == CL_SUCCESS. */
#define EXPECT_SUCCESS(what, err)                                            \
    do {                                                                     \
        cl_int e_ = (err);                                                   \
        print_status((what), e_);                                            \
        CHECK(e_ == CL_SUCCESS, "%s: expected CL_SUCCESS", (what));          \
    } while (0)

/* Prints "what: <ERROR_NAME>" and fails unless err is an error (< 0). */
#define EXPECT_ERROR(what, err)                                              \
    do {                                                                     \
        cl_int e_ = (err);                                                   \
        print_status((what), e_);                                            \
        CHECK(e_ < 0, "%s: expected an error", (what));                      \
    } while (0)

/* Prints "what: <ERROR_NAME>" and fails unless err == expected. */
#define EXPECT_EXACT(what, err, expected)                                    \
    do {                                                                     \
        cl_int e_ = (err);                                                   \
        print_status((what), e_);                                            \
        CHECK(e_ == (expected), "%s: expected %s", (what),                   \
              cl_err_name(expected));                                        \
    } while (0)

static inline const char *same_str(const void *a, const void *b)
{
    return a == b ? "same" : "different";
}

static inline const char *bool_str(cl_bool b) { return b ? "CL_TRUE" : "CL_FALSE"; }

static inline const char *cmd_type_name(cl_command_type t)
{
    switch (t) {
    case CL_COMMAND_NDRANGE_KERNEL: return "CL_COMMAND_NDRANGE_KERNEL";
    case CL_COMMAND_TASK: return "CL_COMMAND_TASK";
    case CL_COMMAND_NATIVE_KERNEL: return "CL_COMMAND_NATIVE_KERNEL";
    case CL_COMMAND_READ_BUFFER: return "CL_COMMAND_READ_BUFFER";
    case CL_COMMAND_WRITE_BUFFER: return "CL_COMMAND_WRITE_BUFFER";
    case CL_COMMAND_COPY_BUFFER: return "CL_COMMAND_COPY_BUFFER";
    case CL_COMMAND_READ_IMAGE: return "CL_COMMAND_READ_IMAGE";
    case CL_COMMAND_WRITE_IMAGE: return "CL_COMMAND_WRITE_IMAGE";
    case CL_COMMAND_COPY_IMAGE: return "CL_COMMAND_COPY_IMAGE";
    case CL_COMMAND_COPY_IMAGE_TO_BUFFER: return "CL_COMMAND_COPY_IMAGE_TO_BUFFER";
    case CL_COMMAND_COPY_BUFFER_TO_IMAGE: return "CL_COMMAND_COPY_BUFFER_TO_IMAGE";
    case CL_COMMAND_MAP_BUFFER: return "CL_COMMAND_MAP_BUFFER";
    case CL_COMMAND_MAP_IMAGE: return "CL_COMMAND_MAP_IMAGE";
    case CL_COMMAND_UNMAP_MEM_OBJECT: return "CL_COMMAND_UNMAP_MEM_OBJECT";
    case CL_COMMAND_MARKER: return "CL_COMMAND_MARKER";
    case CL_COMMAND_ACQUIRE_GL_OBJECTS: return "CL_COMMAND_ACQUIRE_GL_OBJECTS";
    case CL_COMMAND_RELEASE_GL_OBJECTS: return "CL_COMMAND_RELEASE_GL_OBJECTS";
    case CL_COMMAND_READ_BUFFER_RECT: return "CL_COMMAND_READ_BUFFER_RECT";
    case CL_COMMAND_WRITE_BUFFER_RECT: return "CL_COMMAND_WRITE_BUFFER_RECT";
    case CL_COMMAND_COPY_BUFFER_RECT: return "CL_COMMAND_COPY_BUFFER_RECT";
    case CL_COMMAND_USER: return "CL_COMMAND_USER";
    case CL_COMMAND_BARRIER: return "CL_COMMAND_BARRIER";
    case CL_COMMAND_MIGRATE_MEM_OBJECTS: return "CL_COMMAND_MIGRATE_MEM_OBJECTS";
    case CL_COMMAND_FILL_BUFFER: return "CL_COMMAND_FILL_BUFFER";
    case CL_COMMAND_FILL_IMAGE: return "CL_COMMAND_FILL_IMAGE";
    case CL_COMMAND_SVM_FREE: return "CL_COMMAND_SVM_FREE";
    case CL_COMMAND_SVM_MEMCPY: return "CL_COMMAND_SVM_MEMCPY";
    case CL_COMMAND_SVM_MEMFILL: return "CL_COMMAND_SVM_MEMFILL";
    case CL_COMMAND_SVM_MAP: return "CL_COMMAND_SVM_MAP";
    case CL_COMMAND_SVM_UNMAP: return "CL_COMMAND_SVM_UNMAP";
    case CL_COMMAND_SVM_MIGRATE_MEM: return "CL_COMMAND_SVM_MIGRATE_MEM";
    default: {
        static _Thread_local char buf[48];
        snprintf(buf, sizeof buf, "CL_COMMAND_UNKNOWN(0x%x)", (unsigned)t);
        return buf;
    }
    }
}

static inline const char *exec_status_name(cl_int s)
{
    switch (s) {
    case CL_COMPLETE: return "CL_COMPLETE";
    case CL_RUNNING: return "CL_RUNNING";
    case CL_SUBMITTED: return "CL_SUBMITTED";
    case CL_QUEUED: return "CL_QUEUED";
    default: return cl_err_name(s);
    }
}

/* ------------------------------------------------------------------------ */
/* Platform / device selection and info helpers                              */
/* ------------------------------------------------------------------------ */

/* First platform, first device of any type. */
static inline void pick_device(cl_platform_id *platform, cl_device_id *device)
{
    cl_uint n = 0;
    cl_int err = clGetPlatformIDs(1, platform, &n);
    CHECK_CL(err, "clGetPlatformIDs");
    CHECK(n >= 1, "no OpenCL platform");
    err = clGetDeviceIDs(*platform, CL_DEVICE_TYPE_ALL, 1, device, NULL);
    CHECK_CL(err, "clGetDeviceIDs");
}

/* Malloc'ed, NUL-terminated string answers. */
static inline char *platform_str(cl_platform_id p, cl_platform_info param)
{
    size_t sz = 0;
    cl_int err = clGetPlatformInfo(p, param, 0, NULL, &sz);
    CHECK_CL(err, "clGetPlatformInfo(size)");
    char *s = calloc(sz + 1, 1);
    err = clGetPlatformInfo(p, param, sz, s, NULL);
    CHECK_CL(err, "clGetPlatformInfo");
    return s;
}

static inline char *device_str(cl_device_id d, cl_device_info param)
{
    size_t sz = 0;
    cl_int err = clGetDeviceInfo(d, param, 0, NULL, &sz);
    CHECK_CL(err, "clGetDeviceInfo(size)");
    char *s = calloc(sz + 1, 1);
    err = clGetDeviceInfo(d, param, sz, s, NULL);
    CHECK_CL(err, "clGetDeviceInfo");
    return s;
}

static inline cl_uint device_uint(cl_device_id d, cl_device_info param)
{
    cl_uint v = 0;
    cl_int err = clGetDeviceInfo(d, param, sizeof v, &v, NULL);
    CHECK_CL(err, "clGetDeviceInfo(uint)");
    return v;
}

static inline cl_ulong device_ulong(cl_device_id d, cl_device_info param)
{
    cl_ulong v = 0;
    cl_int err = clGetDeviceInfo(d, param, sizeof v, &v, NULL);
    CHECK_CL(err, "clGetDeviceInfo(ulong)");
    return v;
}

static inline size_t device_size(cl_device_id d, cl_device_info param)
{
    size_t v = 0;
    cl_int err = clGetDeviceInfo(d, param, sizeof v, &v, NULL);
    CHECK_CL(err, "clGetDeviceInfo(size_t)");
    return v;
}

/* "OpenCL X.Y ..." -> X*10+Y (12, 20, 30, ...); 0 when unparsable. */
static inline int parse_cl_version(const char *s)
{
    int major = 0, minor = 0;
    if (sscanf(s, "OpenCL %d.%d", &major, &minor) != 2)
        return 0;
    return major * 10 + minor;
}

static inline int platform_version(cl_platform_id p)
{
    char *s = platform_str(p, CL_PLATFORM_VERSION);
    int v = parse_cl_version(s);
    free(s);
    return v;
}

static inline int device_version(cl_device_id d)
{
    char *s = device_str(d, CL_DEVICE_VERSION);
    int v = parse_cl_version(s);
    free(s);
    return v;
}

/* Version gate used for entry points that are new in OpenCL 2.x/3.0: both
 * the platform and the device have to claim the version. */
static inline int api_version(cl_platform_id p, cl_device_id d)
{
    int a = platform_version(p), b = device_version(d);
    return a < b ? a : b;
}

static inline int device_has_extension(cl_device_id d, const char *ext)
{
    char *s = device_str(d, CL_DEVICE_EXTENSIONS);
    size_t n = strlen(ext);
    int found = 0;
    for (const char *p = s; (p = strstr(p, ext)) != NULL; p += n) {
        if ((p == s || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ')) {
            found = 1;
            break;
        }
    }
    free(s);
    return found;
}

static inline cl_bool device_image_support(cl_device_id d)
{
    cl_bool b = CL_FALSE;
    cl_int err = clGetDeviceInfo(d, CL_DEVICE_IMAGE_SUPPORT, sizeof b, &b, NULL);
    CHECK_CL(err, "clGetDeviceInfo(CL_DEVICE_IMAGE_SUPPORT)");
    return b;
}

/* SVM capabilities; 0 when the device is pre-2.0 or has no SVM. */
static inline cl_device_svm_capabilities device_svm_caps(cl_platform_id p, cl_device_id d)
{
    if (api_version(p, d) < 20)
        return 0;
    cl_device_svm_capabilities caps = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps, NULL) != CL_SUCCESS)
        return 0;
    return caps;
}

/* ------------------------------------------------------------------------ */
/* Contexts, queues, programs                                                */
/* ------------------------------------------------------------------------ */

static inline cl_context make_context(cl_device_id dev)
{
    cl_int err = CL_SUCCESS;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK_CL(err, "clCreateContext");
    CHECK(ctx != NULL, "clCreateContext returned NULL");
    return ctx;
}

static inline cl_command_queue make_queue(cl_context ctx, cl_device_id dev,
                                          cl_command_queue_properties props)
{
    cl_int err = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, props, &err);
    CHECK_CL(err, "clCreateCommandQueue");
    CHECK(q != NULL, "clCreateCommandQueue returned NULL");
    return q;
}

/* Builds `src` for `dev`; on failure prints the build log and fails. */
static inline cl_program build_program(cl_context ctx, cl_device_id dev,
                                       const char *src, const char *options)
{
    cl_int err = CL_SUCCESS;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CHECK_CL(err, "clCreateProgramWithSource");
    err = clBuildProgram(prog, 1, &dev, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        size_t sz = 0;
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &sz);
        char *log = calloc(sz + 1, 1);
        clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sz, log, NULL);
        fprintf(stderr, "build log:\n%s\n", log);
        free(log);
    }
    CHECK_CL(err, "clBuildProgram");
    return prog;
}

static inline cl_kernel make_kernel(cl_program prog, const char *name)
{
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(prog, name, &err);
    CHECK(err == CL_SUCCESS, "clCreateKernel(%s): %s", name, cl_err_name(err));
    return k;
}

static inline cl_mem make_buffer(cl_context ctx, cl_mem_flags flags, size_t size, void *host)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(ctx, flags, size, host, &err);
    CHECK_CL(err, "clCreateBuffer");
    return m;
}

/* ------------------------------------------------------------------------ */
/* Waiting for callbacks without sleeping                                    */
/* ------------------------------------------------------------------------ */

/* Spins (yielding the CPU) until *flag >= target.  The wall-clock bound only
 * turns a hang into a failure; it never influences the transcript. */
static inline int wait_atomic_at_least(atomic_int *flag, int target, double max_seconds)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned long i = 0;; ++i) {
        if (atomic_load(flag) >= target)
            return 1;
        if ((i & 1023) == 0) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            double dt = (double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec);
            if (dt > max_seconds)
                return atomic_load(flag) >= target;
        }
        sched_yield();
    }
}

#define WAIT_FOR(flag, target, what)                                         \
    CHECK(wait_atomic_at_least((flag), (target), 30.0),                      \
          "timed out waiting for %s (%d of %d)", (what),                     \
          atomic_load(flag), (int)(target))

static inline int cmp_str_ptr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Splits a ';'-separated name list (CL_PROGRAM_KERNEL_NAMES), sorts it and
 * prints it as "label: a b c". */
static inline void print_sorted_names(const char *label, const char *list, char sep)
{
    char *copy = strdup(list);
    const char *names[256];
    int n = 0;
    char *save = NULL;
    char seps[2] = {sep, 0};
    for (char *tok = strtok_r(copy, seps, &save); tok && n < 256; tok = strtok_r(NULL, seps, &save))
        names[n++] = tok;
    qsort(names, (size_t)n, sizeof names[0], cmp_str_ptr);
    printf("%s:", label);
    for (int i = 0; i < n; ++i)
        printf(" %s", names[i]);
    printf("\n");
    free(copy);
}

#endif /* CLTAP_TESTS_COMMON_H */
