/*
 * platform_device.c - platform and device queries, clGetDeviceIDs variants,
 * sub-devices and host/device timers.
 */
#include "common.h"

enum kind {
    K_STR,      /* char[] */
    K_UINT,     /* cl_uint */
    K_ULONG,    /* cl_ulong */
    K_SIZE,     /* size_t */
    K_BOOL,     /* cl_bool */
    K_HEX,      /* cl_bitfield / enum, printed in hex (cl_ulong or cl_uint by size) */
    K_SIZES,    /* size_t[] */
    K_PROPS,    /* cl_device_partition_property[] property list */
    K_PTYPES,   /* cl_device_partition_property[] list of types */
    K_VERSION,  /* cl_version */
    K_NAMEVERS, /* cl_name_version[] */
    K_QUERIED,  /* value may change from run to run: only report success */
    K_HANDLE,   /* a handle: print null / non-null */
};

struct param {
    cl_uint id;
    const char *name;
    enum kind kind;
};

#define P(x, k) {x, #x, k}

static const struct param device_params[] = {
    P(CL_DEVICE_TYPE, K_HEX),
    P(CL_DEVICE_VENDOR_ID, K_HEX),
    P(CL_DEVICE_MAX_COMPUTE_UNITS, K_UINT),
    P(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, K_UINT),
    P(CL_DEVICE_MAX_WORK_ITEM_SIZES, K_SIZES),
    P(CL_DEVICE_MAX_WORK_GROUP_SIZE, K_SIZE),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR, K_UINT),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT, K_UINT),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT, K_UINT),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG, K_UINT),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, K_UINT),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE, K_UINT),
    P(CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF, K_UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR, K_UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT, K_UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_INT, K_UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG, K_UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, K_UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE, K_UINT),
    P(CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF, K_UINT),
    P(CL_DEVICE_MAX_CLOCK_FREQUENCY, K_QUERIED), /* some drivers read the current MHz */
    P(CL_DEVICE_ADDRESS_BITS, K_UINT),
    P(CL_DEVICE_MAX_MEM_ALLOC_SIZE, K_ULONG),
    P(CL_DEVICE_IMAGE_SUPPORT, K_BOOL),
    P(CL_DEVICE_MAX_READ_IMAGE_ARGS, K_UINT),
    P(CL_DEVICE_MAX_WRITE_IMAGE_ARGS, K_UINT),
    P(CL_DEVICE_IMAGE2D_MAX_WIDTH, K_SIZE),
    P(CL_DEVICE_IMAGE2D_MAX_HEIGHT, K_SIZE),
    P(CL_DEVICE_IMAGE3D_MAX_WIDTH, K_SIZE),
    P(CL_DEVICE_IMAGE3D_MAX_HEIGHT, K_SIZE),
    P(CL_DEVICE_IMAGE3D_MAX_DEPTH, K_SIZE),
    P(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE, K_SIZE),
    P(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE, K_SIZE),
    P(CL_DEVICE_MAX_SAMPLERS, K_UINT),
    P(CL_DEVICE_MAX_PARAMETER_SIZE, K_SIZE),
    P(CL_DEVICE_MEM_BASE_ADDR_ALIGN, K_UINT),
    P(CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE, K_UINT),
    P(CL_DEVICE_SINGLE_FP_CONFIG, K_HEX),
    P(CL_DEVICE_DOUBLE_FP_CONFIG, K_HEX),
    P(CL_DEVICE_GLOBAL_MEM_CACHE_TYPE, K_HEX),
    P(CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, K_UINT),
    P(CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, K_ULONG),
    P(CL_DEVICE_GLOBAL_MEM_SIZE, K_ULONG),
    P(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, K_ULONG),
    P(CL_DEVICE_MAX_CONSTANT_ARGS, K_UINT),
    P(CL_DEVICE_LOCAL_MEM_TYPE, K_HEX),
    P(CL_DEVICE_LOCAL_MEM_SIZE, K_ULONG),
    P(CL_DEVICE_ERROR_CORRECTION_SUPPORT, K_BOOL),
    P(CL_DEVICE_HOST_UNIFIED_MEMORY, K_BOOL),
    P(CL_DEVICE_PROFILING_TIMER_RESOLUTION, K_SIZE),
    P(CL_DEVICE_ENDIAN_LITTLE, K_BOOL),
    P(CL_DEVICE_AVAILABLE, K_BOOL),
    P(CL_DEVICE_COMPILER_AVAILABLE, K_BOOL),
    P(CL_DEVICE_LINKER_AVAILABLE, K_BOOL),
    P(CL_DEVICE_EXECUTION_CAPABILITIES, K_HEX),
    P(CL_DEVICE_QUEUE_PROPERTIES, K_HEX),
    P(CL_DEVICE_QUEUE_ON_HOST_PROPERTIES, K_HEX),
    P(CL_DEVICE_NAME, K_STR),
    P(CL_DEVICE_VENDOR, K_STR),
    P(CL_DRIVER_VERSION, K_STR),
    P(CL_DEVICE_PROFILE, K_STR),
    P(CL_DEVICE_VERSION, K_STR),
    P(CL_DEVICE_OPENCL_C_VERSION, K_STR),
    P(CL_DEVICE_EXTENSIONS, K_STR),
    P(CL_DEVICE_BUILT_IN_KERNELS, K_STR),
    P(CL_DEVICE_PRINTF_BUFFER_SIZE, K_SIZE),
    P(CL_DEVICE_PREFERRED_INTEROP_USER_SYNC, K_BOOL),
    P(CL_DEVICE_PARENT_DEVICE, K_HANDLE),
    P(CL_DEVICE_PARTITION_MAX_SUB_DEVICES, K_UINT),
    P(CL_DEVICE_PARTITION_PROPERTIES, K_PTYPES),
    P(CL_DEVICE_PARTITION_AFFINITY_DOMAIN, K_HEX),
    P(CL_DEVICE_PARTITION_TYPE, K_PROPS),
    P(CL_DEVICE_REFERENCE_COUNT, K_UINT),
    /* OpenCL 2.0 */
    P(CL_DEVICE_IMAGE_PITCH_ALIGNMENT, K_UINT),
    P(CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT, K_UINT),
    P(CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, K_UINT),
    P(CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE, K_SIZE),
    P(CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES, K_HEX),
    P(CL_DEVICE_QUEUE_ON_DEVICE_PREFERRED_SIZE, K_UINT),
    P(CL_DEVICE_QUEUE_ON_DEVICE_MAX_SIZE, K_UINT),
    P(CL_DEVICE_MAX_ON_DEVICE_QUEUES, K_UINT),
    P(CL_DEVICE_MAX_ON_DEVICE_EVENTS, K_UINT),
    P(CL_DEVICE_SVM_CAPABILITIES, K_HEX),
    P(CL_DEVICE_GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE, K_SIZE),
    P(CL_DEVICE_MAX_PIPE_ARGS, K_UINT),
    P(CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS, K_UINT),
    P(CL_DEVICE_PIPE_MAX_PACKET_SIZE, K_UINT),
    P(CL_DEVICE_PREFERRED_PLATFORM_ATOMIC_ALIGNMENT, K_UINT),
    P(CL_DEVICE_PREFERRED_GLOBAL_ATOMIC_ALIGNMENT, K_UINT),
    P(CL_DEVICE_PREFERRED_LOCAL_ATOMIC_ALIGNMENT, K_UINT),
    /* OpenCL 2.1 */
    P(CL_DEVICE_IL_VERSION, K_STR),
    P(CL_DEVICE_MAX_NUM_SUB_GROUPS, K_UINT),
    P(CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, K_BOOL),
    /* OpenCL 3.0 */
    P(CL_DEVICE_NUMERIC_VERSION, K_VERSION),
    P(CL_DEVICE_EXTENSIONS_WITH_VERSION, K_NAMEVERS),
    P(CL_DEVICE_ILS_WITH_VERSION, K_NAMEVERS),
    P(CL_DEVICE_BUILT_IN_KERNELS_WITH_VERSION, K_NAMEVERS),
    P(CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES, K_HEX),
    P(CL_DEVICE_ATOMIC_FENCE_CAPABILITIES, K_HEX),
    P(CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, K_BOOL),
    P(CL_DEVICE_OPENCL_C_ALL_VERSIONS, K_NAMEVERS),
    P(CL_DEVICE_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, K_SIZE),
    P(CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT, K_BOOL),
    P(CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, K_BOOL),
    P(CL_DEVICE_OPENCL_C_FEATURES, K_NAMEVERS),
    P(CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES, K_HEX),
    P(CL_DEVICE_PIPE_SUPPORT, K_BOOL),
    P(CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED, K_STR),
};

static void print_version(cl_version v)
{
    printf("%u.%u.%u", (unsigned)CL_VERSION_MAJOR(v), (unsigned)CL_VERSION_MINOR(v),
           (unsigned)CL_VERSION_PATCH(v));
}

/* A partition property list as returned by CL_DEVICE_PARTITION_TYPE:
 * {EQUALLY, n, 0} / {BY_COUNTS, c.., LIST_END, 0} / {BY_AFFINITY_DOMAIN, d, 0}. */
static void print_partition_props(const cl_device_partition_property *p, size_t n)
{
    if (n == 0 || p[0] == 0) {
        printf(" (none, %zu entries)", n);
        return;
    }
    size_t i = 0;
    while (i < n && p[i] != 0) {
        switch (p[i]) {
        case CL_DEVICE_PARTITION_EQUALLY:
            printf(" EQUALLY %ld", i + 1 < n ? (long)p[i + 1] : -1L);
            i += 2;
            break;
        case CL_DEVICE_PARTITION_BY_COUNTS:
            printf(" BY_COUNTS");
            for (++i; i < n && p[i] != CL_DEVICE_PARTITION_BY_COUNTS_LIST_END; ++i)
                printf(" %ld", (long)p[i]);
            printf(" LIST_END");
            ++i;
            break;
        case CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN:
            printf(" BY_AFFINITY_DOMAIN 0x%lx", i + 1 < n ? (unsigned long)p[i + 1] : 0UL);
            i += 2;
            break;
        default:
            printf(" 0x%lx", (unsigned long)p[i]);
            ++i;
            break;
        }
    }
}

/* CL_DEVICE_PARTITION_PROPERTIES: a plain list of supported partition types. */
static void print_partition_types(const cl_device_partition_property *p, size_t n)
{
    if (n == 0 || p[0] == 0) {
        printf(" (none)");
        return;
    }
    for (size_t i = 0; i < n && p[i] != 0; ++i) {
        switch (p[i]) {
        case CL_DEVICE_PARTITION_EQUALLY: printf(" EQUALLY"); break;
        case CL_DEVICE_PARTITION_BY_COUNTS: printf(" BY_COUNTS"); break;
        case CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN: printf(" BY_AFFINITY_DOMAIN"); break;
        default: printf(" 0x%lx", (unsigned long)p[i]); break;
        }
    }
}

/* Queries one parameter and prints "name: value" (or the error name). */
static void print_param(cl_int (*get)(void *, cl_uint, size_t, void *, size_t *), void *obj,
                        const struct param *prm)
{
    size_t sz = 0;
    cl_int err = get(obj, prm->id, 0, NULL, &sz);
    if (err != CL_SUCCESS) {
        printf("%s: %s\n", prm->name, cl_err_name(err));
        return;
    }
    unsigned char *buf = calloc(sz + 16, 1);
    err = get(obj, prm->id, sz, buf, NULL);
    if (err != CL_SUCCESS) {
        printf("%s: %s (second query)\n", prm->name, cl_err_name(err));
        free(buf);
        return;
    }
    printf("%s:", prm->name);
    switch (prm->kind) {
    case K_STR: printf(" \"%s\"", (char *)buf); break;
    case K_UINT: printf(" %u", *(cl_uint *)buf); break;
    case K_ULONG: printf(" %llu", (unsigned long long)*(cl_ulong *)buf); break;
    case K_SIZE: printf(" %zu", *(size_t *)buf); break;
    case K_BOOL: printf(" %s", bool_str(*(cl_bool *)buf)); break;
    case K_HEX:
        if (sz == sizeof(cl_ulong))
            printf(" 0x%llx", (unsigned long long)*(cl_ulong *)buf);
        else
            printf(" 0x%x", *(cl_uint *)buf);
        break;
    case K_SIZES:
        for (size_t i = 0; i < sz / sizeof(size_t); ++i)
            printf(" %zu", ((size_t *)buf)[i]);
        break;
    case K_PROPS:
        print_partition_props((cl_device_partition_property *)buf,
                              sz / sizeof(cl_device_partition_property));
        break;
    case K_PTYPES:
        print_partition_types((cl_device_partition_property *)buf,
                              sz / sizeof(cl_device_partition_property));
        break;
    case K_VERSION: printf(" "); print_version(*(cl_version *)buf); break;
    case K_NAMEVERS: {
        size_t n = sz / sizeof(cl_name_version);
        cl_name_version *nv = (cl_name_version *)buf;
        printf(" %zu entries", n);
        for (size_t i = 0; i < n; ++i) {
            printf(" %s@", nv[i].name);
            print_version(nv[i].version);
        }
        break;
    }
    case K_QUERIED: printf(" queried (%zu bytes)", sz); break;
    case K_HANDLE: printf(" %s", *(void **)buf ? "non-null" : "null"); break;
    }
    printf("\n");
    free(buf);
}

static cl_int get_device_info(void *obj, cl_uint p, size_t s, void *v, size_t *r)
{
    return clGetDeviceInfo((cl_device_id)obj, p, s, v, r);
}

static cl_int get_platform_info(void *obj, cl_uint p, size_t s, void *v, size_t *r)
{
    return clGetPlatformInfo((cl_platform_id)obj, p, s, v, r);
}

static const struct param platform_params[] = {
    P(CL_PLATFORM_PROFILE, K_STR),
    P(CL_PLATFORM_VERSION, K_STR),
    P(CL_PLATFORM_NAME, K_STR),
    P(CL_PLATFORM_VENDOR, K_STR),
    P(CL_PLATFORM_EXTENSIONS, K_STR),
    P(CL_PLATFORM_ICD_SUFFIX_KHR, K_STR),
    P(CL_PLATFORM_HOST_TIMER_RESOLUTION, K_ULONG),
    P(CL_PLATFORM_NUMERIC_VERSION, K_VERSION),
    P(CL_PLATFORM_EXTENSIONS_WITH_VERSION, K_NAMEVERS),
};

static void test_device_ids(cl_platform_id platform, cl_device_id first)
{
    static const struct {
        cl_device_type type;
        const char *name;
    } types[] = {
        {CL_DEVICE_TYPE_DEFAULT, "CL_DEVICE_TYPE_DEFAULT"},
        {CL_DEVICE_TYPE_CPU, "CL_DEVICE_TYPE_CPU"},
        {CL_DEVICE_TYPE_GPU, "CL_DEVICE_TYPE_GPU"},
        {CL_DEVICE_TYPE_ACCELERATOR, "CL_DEVICE_TYPE_ACCELERATOR"},
        {CL_DEVICE_TYPE_CUSTOM, "CL_DEVICE_TYPE_CUSTOM"},
        {CL_DEVICE_TYPE_ALL, "CL_DEVICE_TYPE_ALL"},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i) {
        cl_uint n = 0;
        cl_int err = clGetDeviceIDs(platform, types[i].type, 0, NULL, &n);
        if (err != CL_SUCCESS) {
            printf("clGetDeviceIDs(%s): %s\n", types[i].name, cl_err_name(err));
            CHECK(err == CL_DEVICE_NOT_FOUND, "unexpected error");
            continue;
        }
        CHECK(n > 0, "CL_SUCCESS with zero devices");
        cl_device_id *devs = calloc(n, sizeof *devs);
        cl_uint n2 = 0;
        err = clGetDeviceIDs(platform, types[i].type, n, devs, &n2);
        CHECK_CL(err, "clGetDeviceIDs(list)");
        CHECK(n2 == n, "count changed");
        /* Each device reports a type that matches the filter. */
        for (cl_uint j = 0; j < n; ++j) {
            cl_device_type t = 0;
            CHECK_CL(clGetDeviceInfo(devs[j], CL_DEVICE_TYPE, sizeof t, &t, NULL), "CL_DEVICE_TYPE");
            if (types[i].type != CL_DEVICE_TYPE_ALL && types[i].type != CL_DEVICE_TYPE_DEFAULT)
                CHECK(t & types[i].type, "device type does not match filter");
        }
        printf("clGetDeviceIDs(%s): CL_SUCCESS, %u device(s), first vs ALL[0]: %s\n",
               types[i].name, n, same_str(devs[0], first));
        free(devs);
    }

    /* num_entries smaller than the number available. */
    cl_uint total = 0;
    CHECK_CL(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, NULL, &total), "count");
    if (total < 2) {
        printf("skip: num_entries < available (only %u device)\n", total);
    } else {
        cl_device_id devs[2] = {NULL, NULL};
        cl_uint ret = 0;
        CHECK_CL(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, devs, &ret), "clGetDeviceIDs(1)");
        CHECK(devs[1] == NULL, "wrote past num_entries");
        CHECK(ret == total, "num_devices should report all devices");
        printf("num_entries=1 of %u: one written, num_devices=%u\n", total, ret);
    }
    /* num_entries equal to available, num_devices NULL. */
    cl_device_id one = NULL;
    CHECK_CL(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &one, NULL), "clGetDeviceIDs(no count)");
    printf("clGetDeviceIDs(ALL, 1, NULL count): %s as first\n", same_str(one, first));
}

static cl_uint dev_refcount(cl_device_id d)
{
    return device_uint(d, CL_DEVICE_REFERENCE_COUNT);
}

static void check_sub_devices(cl_device_id parent, cl_device_id *subs, cl_uint n, const char *what)
{
    for (cl_uint i = 0; i < n; ++i) {
        cl_device_id p = NULL;
        CHECK_CL(clGetDeviceInfo(subs[i], CL_DEVICE_PARENT_DEVICE, sizeof p, &p, NULL), "PARENT_DEVICE");
        CHECK(p == parent, "CL_DEVICE_PARENT_DEVICE != parent");
        cl_uint cu = device_uint(subs[i], CL_DEVICE_MAX_COMPUTE_UNITS);
        size_t sz = 0;
        CHECK_CL(clGetDeviceInfo(subs[i], CL_DEVICE_PARTITION_TYPE, 0, NULL, &sz), "PARTITION_TYPE size");
        cl_device_partition_property props[16] = {0};
        CHECK(sz <= sizeof props, "partition type too long");
        CHECK_CL(clGetDeviceInfo(subs[i], CL_DEVICE_PARTITION_TYPE, sz, props, NULL), "PARTITION_TYPE");
        printf("%s sub-device %u: parent same, compute units %u, partition type", what, i, cu);
        print_partition_props(props, sz / sizeof props[0]);
        printf("\n");
        cl_uint r0 = dev_refcount(subs[i]);
        CHECK_CL(clRetainDevice(subs[i]), "clRetainDevice");
        cl_uint r1 = dev_refcount(subs[i]);
        CHECK_CL(clReleaseDevice(subs[i]), "clReleaseDevice");
        cl_uint r2 = dev_refcount(subs[i]);
        printf("%s sub-device %u refcount: create %u, retain %u, release %u\n", what, i, r0, r1, r2);
        CHECK(r1 == r0 + 1 && r2 == r0, "sub-device refcount");
    }
    /* A context on the first sub-device reports that very device. */
    cl_int err = CL_SUCCESS;
    cl_context ctx = clCreateContext(NULL, 1, &subs[0], NULL, NULL, &err);
    CHECK_CL(err, "clCreateContext(sub-device)");
    cl_device_id cd = NULL;
    CHECK_CL(clGetContextInfo(ctx, CL_CONTEXT_DEVICES, sizeof cd, &cd, NULL), "CONTEXT_DEVICES");
    if (cd == subs[0]) {
        printf("%s context on sub-device 0: CL_CONTEXT_DEVICES[0] same\n", what);
    } else {
        /* PoCL 3.1 reports the root device here; tolerate exactly that. */
        printf("%s context on sub-device 0: CL_CONTEXT_DEVICES[0] different (root device: %s)\n",
               what, cd == parent ? "yes" : "no");
        CHECK(cd == parent, "context device is neither the sub-device nor its parent");
    }
    cl_int qerr = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(ctx, subs[0], 0, &qerr);
    CHECK_CL(qerr, "clCreateCommandQueue(sub-device)");
    cl_device_id qd = NULL;
    CHECK_CL(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof qd, &qd, NULL), "QUEUE_DEVICE");
    printf("%s queue on sub-device 0: CL_QUEUE_DEVICE %s\n", what, same_str(qd, subs[0]));
    CHECK(qd == subs[0], "queue device differs");
    CHECK_CL(clReleaseCommandQueue(q), "clReleaseCommandQueue");
    CHECK_CL(clReleaseContext(ctx), "clReleaseContext");
    for (cl_uint i = 0; i < n; ++i)
        CHECK_CL(clReleaseDevice(subs[i]), "clReleaseDevice(final)");
}

static void test_sub_devices(cl_device_id dev)
{
    cl_uint max_sub = device_uint(dev, CL_DEVICE_PARTITION_MAX_SUB_DEVICES);
    cl_uint cus = device_uint(dev, CL_DEVICE_MAX_COMPUTE_UNITS);
    size_t sz = 0;
    CHECK_CL(clGetDeviceInfo(dev, CL_DEVICE_PARTITION_PROPERTIES, 0, NULL, &sz), "PARTITION_PROPERTIES");
    cl_device_partition_property props[16] = {0};
    CHECK(sz <= sizeof props, "too many partition properties");
    CHECK_CL(clGetDeviceInfo(dev, CL_DEVICE_PARTITION_PROPERTIES, sz, props, NULL), "PARTITION_PROPERTIES");
    int equally = 0, by_counts = 0;
    for (size_t i = 0; i < sz / sizeof props[0]; ++i) {
        if (props[i] == CL_DEVICE_PARTITION_EQUALLY) equally = 1;
        if (props[i] == CL_DEVICE_PARTITION_BY_COUNTS) by_counts = 1;
    }
    printf("root device refcount: %u\n", dev_refcount(dev));
    CHECK_CL(clRetainDevice(dev), "clRetainDevice(root)");
    CHECK_CL(clReleaseDevice(dev), "clReleaseDevice(root)");
    printf("root device refcount after retain+release: %u\n", dev_refcount(dev));

    if (max_sub < 2 || cus < 2) {
        printf("skip: sub-devices (max sub-devices %u, compute units %u)\n", max_sub, cus);
        return;
    }

    if (!equally) {
        printf("skip: CL_DEVICE_PARTITION_EQUALLY (not in CL_DEVICE_PARTITION_PROPERTIES)\n");
    } else {
        cl_uint per = cus / 2; /* two halves */
        cl_device_partition_property p[] = {CL_DEVICE_PARTITION_EQUALLY, (cl_device_partition_property)per, 0};
        cl_uint n = 0;
        cl_int err = clCreateSubDevices(dev, p, 0, NULL, &n);
        print_status("clCreateSubDevices(EQUALLY, count)", err);
        CHECK(err == CL_SUCCESS && n >= 2, "EQUALLY count %u", n);
        cl_device_id *subs = calloc(n, sizeof *subs);
        cl_uint n2 = 0;
        err = clCreateSubDevices(dev, p, n, subs, &n2);
        print_status("clCreateSubDevices(EQUALLY)", err);
        CHECK(err == CL_SUCCESS && n2 == n, "EQUALLY create");
        printf("EQUALLY %u compute units each: %u sub-devices\n", per, n);
        check_sub_devices(dev, subs, n, "EQUALLY");
        free(subs);
    }

    if (!by_counts) {
        printf("skip: CL_DEVICE_PARTITION_BY_COUNTS (not in CL_DEVICE_PARTITION_PROPERTIES)\n");
    } else {
        cl_device_partition_property p[] = {CL_DEVICE_PARTITION_BY_COUNTS, 1, 1,
                                            CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0};
        cl_device_id subs[2] = {NULL, NULL};
        cl_uint n = 0;
        cl_int err = clCreateSubDevices(dev, p, 2, subs, &n);
        print_status("clCreateSubDevices(BY_COUNTS 1,1)", err);
        CHECK(err == CL_SUCCESS && n == 2, "BY_COUNTS create");
        check_sub_devices(dev, subs, 2, "BY_COUNTS");
    }
}

static void test_timers(cl_platform_id platform, cl_device_id dev)
{
    int ver = api_version(platform, dev);
    if (ver < 21) {
        printf("skip: clGetDeviceAndHostTimer/clGetHostTimer (OpenCL %d.%d)\n", ver / 10, ver % 10);
        return;
    }
    cl_ulong res = 0;
    CHECK_CL(clGetPlatformInfo(platform, CL_PLATFORM_HOST_TIMER_RESOLUTION, sizeof res, &res, NULL),
             "HOST_TIMER_RESOLUTION");
    cl_ulong d1 = 0, h1 = 0, d2 = 0, h2 = 0, h3 = 0, h4 = 0;
    cl_int e1 = clGetDeviceAndHostTimer(dev, &d1, &h1);
    cl_int e2 = clGetDeviceAndHostTimer(dev, &d2, &h2);
    print_status("clGetDeviceAndHostTimer", e1);
    CHECK(e1 == e2, "timer calls disagree");
    if (res == 0) {
        /* Spec: timers unsupported when the resolution is 0. */
        CHECK(e1 != CL_SUCCESS, "timer succeeded with resolution 0");
    }
    if (e1 == CL_SUCCESS) {
        CHECK(d2 >= d1 && h2 >= h1, "device/host timer not monotonic");
        printf("clGetDeviceAndHostTimer: monotonic\n");
    }
    cl_int e3 = clGetHostTimer(dev, &h3);
    cl_int e4 = clGetHostTimer(dev, &h4);
    print_status("clGetHostTimer", e3);
    CHECK(e3 == e4, "host timer calls disagree");
    if (e3 == CL_SUCCESS) {
        CHECK(h4 >= h3, "host timer not monotonic");
        printf("clGetHostTimer: monotonic\n");
    }
    /* Bad argument: NULL output pointer. */
    print_status("clGetHostTimer(NULL)", clGetHostTimer(dev, NULL));
}

int main(void)
{
    cl_platform_id platform;
    cl_device_id dev;

    cl_uint nplat = 0;
    CHECK_CL(clGetPlatformIDs(0, NULL, &nplat), "clGetPlatformIDs(count)");
    CHECK(nplat >= 1, "no platforms");
    printf("platforms: %u\n", nplat);
    pick_device(&platform, &dev);

    printf("== platform\n");
    for (size_t i = 0; i < sizeof platform_params / sizeof platform_params[0]; ++i)
        print_param(get_platform_info, platform, &platform_params[i]);

    printf("== device\n");
    for (size_t i = 0; i < sizeof device_params / sizeof device_params[0]; ++i)
        print_param(get_device_info, dev, &device_params[i]);

    cl_platform_id dp = NULL;
    CHECK_CL(clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof dp, &dp, NULL), "CL_DEVICE_PLATFORM");
    printf("CL_DEVICE_PLATFORM: %s\n", same_str(dp, platform));
    CHECK(dp == platform, "CL_DEVICE_PLATFORM differs from the application's platform");

    /* Size-only query agrees with the data query. */
    size_t name_sz = 0;
    CHECK_CL(clGetDeviceInfo(dev, CL_DEVICE_NAME, 0, NULL, &name_sz), "name size");
    char *name = device_str(dev, CL_DEVICE_NAME);
    CHECK(strlen(name) + 1 == name_sz, "CL_DEVICE_NAME size mismatch");
    printf("CL_DEVICE_NAME size: consistent\n");
    free(name);

    printf("== clGetDeviceIDs\n");
    test_device_ids(platform, dev);

    printf("== sub-devices\n");
    test_sub_devices(dev);

    printf("== timers\n");
    test_timers(platform, dev);

    printf("platform_device: PASS\n");
    return 0;
}
