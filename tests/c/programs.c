/*
 * programs.c - program objects: from source (with options and several
 * strings), program/build info, from binary, separate compilation with an
 * embedded header + linking, failing builds, from IL (SPIR-V), build and link
 * callbacks, program release callbacks.
 */
#include "common.h"

static cl_platform_id platform;
static cl_device_id dev;
static cl_context ctx;
static cl_command_queue queue;
static int version;

static const char *src_main =
    "#ifndef OFFSET\n"
    "#error OFFSET must be defined by the build options\n"
    "#endif\n"
    "__kernel void add_offset(__global int *a) {\n"
    "    size_t i = get_global_id(0);\n"
    "    a[i] += OFFSET;\n"
    "}\n"
    "__kernel void scale(__global int *a, int f) {\n"
    "    size_t i = get_global_id(0);\n"
    "    a[i] *= f;\n"
    "}\n";

/*
 * SPIR-V 1.0 module for
 *     kernel void add_const(global uint *a, uint c) { a[get_global_id(0)] += c; }
 * Generated at development time from hand-written SPIR-V assembly with
 *     spirv-as --target-env spv1.0 add_const.spvasm -o add_const.spv
 *     spirv-val --target-env opencl1.2 add_const.spv
 * (spirv-tools 2023.1, Debian 12) and dumped as little-endian 32-bit words.
 * The assembly (Addresses, Kernel, Int64; Physical64 OpenCL memory model):
 *     %gid = OpVariable %_ptr_Input_v3ulong Input   ; BuiltIn GlobalInvocationId
 *     %kernel = OpFunction %void None %fnty          ; (CrossWorkgroup uint*, uint)
 *       %g3 = OpLoad %v3ulong %gid Aligned 32
 *       %i  = OpCompositeExtract %ulong %g3 0
 *       %p  = OpInBoundsPtrAccessChain %ptr_cw_uint %a %i
 *       %v  = OpLoad %uint %p Aligned 4
 *       %s  = OpIAdd %uint %v %c
 *             OpStore %p %s Aligned 4
 */
static const uint32_t spirv_add_const[] = {
    0x07230203, 0x00010000, 0x00070000, 0x00000013, 0x00000000, 0x00020011,
    0x00000004, 0x00020011, 0x00000006, 0x00020011, 0x0000000b, 0x0005000b,
    0x00000001, 0x6e65704f, 0x732e4c43, 0x00006474, 0x0003000e, 0x00000002,
    0x00000002, 0x0007000f, 0x00000006, 0x00000002, 0x5f646461, 0x736e6f63,
    0x00000074, 0x00000003, 0x00030003, 0x00000003, 0x0001d4c0, 0x00030005,
    0x00000004, 0x00000061, 0x00030005, 0x00000005, 0x00000063, 0x00040047,
    0x00000003, 0x0000000b, 0x0000001c, 0x00030047, 0x00000003, 0x00000016,
    0x00040015, 0x00000006, 0x00000040, 0x00000000, 0x00040015, 0x00000007,
    0x00000020, 0x00000000, 0x00040017, 0x00000008, 0x00000006, 0x00000003,
    0x00040020, 0x00000009, 0x00000001, 0x00000008, 0x00020013, 0x0000000a,
    0x00040020, 0x0000000b, 0x00000005, 0x00000007, 0x00050021, 0x0000000c,
    0x0000000a, 0x0000000b, 0x00000007, 0x0004003b, 0x00000009, 0x00000003,
    0x00000001, 0x00050036, 0x0000000a, 0x00000002, 0x00000000, 0x0000000c,
    0x00030037, 0x0000000b, 0x00000004, 0x00030037, 0x00000007, 0x00000005,
    0x000200f8, 0x0000000d, 0x0006003d, 0x00000008, 0x0000000e, 0x00000003,
    0x00000002, 0x00000020, 0x00050051, 0x00000006, 0x0000000f, 0x0000000e,
    0x00000000, 0x00050046, 0x0000000b, 0x00000010, 0x00000004, 0x0000000f,
    0x0006003d, 0x00000007, 0x00000011, 0x00000010, 0x00000002, 0x00000004,
    0x00050080, 0x00000007, 0x00000012, 0x00000011, 0x00000005, 0x0005003e,
    0x00000010, 0x00000012, 0x00000002, 0x00000004, 0x000100fd, 0x00010038,
};

static const char *build_status_name(cl_build_status s)
{
    switch (s) {
    case CL_BUILD_NONE: return "CL_BUILD_NONE";
    case CL_BUILD_ERROR: return "CL_BUILD_ERROR";
    case CL_BUILD_SUCCESS: return "CL_BUILD_SUCCESS";
    case CL_BUILD_IN_PROGRESS: return "CL_BUILD_IN_PROGRESS";
    default: return "unknown";
    }
}

static const char *binary_type_name(cl_program_binary_type t)
{
    switch (t) {
    case CL_PROGRAM_BINARY_TYPE_NONE: return "CL_PROGRAM_BINARY_TYPE_NONE";
    case CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT: return "CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT";
    case CL_PROGRAM_BINARY_TYPE_LIBRARY: return "CL_PROGRAM_BINARY_TYPE_LIBRARY";
    case CL_PROGRAM_BINARY_TYPE_EXECUTABLE: return "CL_PROGRAM_BINARY_TYPE_EXECUTABLE";
    default: return "unknown";
    }
}

static cl_build_status build_status(cl_program p)
{
    cl_build_status s = 0;
    CHECK_CL(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_STATUS, sizeof s, &s, NULL), "BUILD_STATUS");
    return s;
}

static cl_program_binary_type binary_type(cl_program p)
{
    cl_program_binary_type t = 0;
    CHECK_CL(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BINARY_TYPE, sizeof t, &t, NULL), "BINARY_TYPE");
    return t;
}

static size_t build_log_length(cl_program p)
{
    size_t sz = 0;
    CHECK_CL(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &sz), "BUILD_LOG size");
    char *log = calloc(sz + 1, 1);
    CHECK_CL(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sz, log, NULL), "BUILD_LOG");
    size_t n = strlen(log);
    free(log);
    return n;
}

static char *program_str(cl_program p, cl_program_info param)
{
    size_t sz = 0;
    CHECK_CL(clGetProgramInfo(p, param, 0, NULL, &sz), "clGetProgramInfo(size)");
    char *s = calloc(sz + 1, 1);
    CHECK_CL(clGetProgramInfo(p, param, sz, s, NULL), "clGetProgramInfo");
    return s;
}

/* Program-level info for a built executable. */
static void print_program_info(const char *label, cl_program p, const char *expected_source)
{
    cl_uint rc = 0, ndev = 0;
    cl_context c = NULL;
    cl_device_id d = NULL;
    CHECK_CL(clGetProgramInfo(p, CL_PROGRAM_REFERENCE_COUNT, sizeof rc, &rc, NULL), "REFERENCE_COUNT");
    CHECK_CL(clGetProgramInfo(p, CL_PROGRAM_CONTEXT, sizeof c, &c, NULL), "CONTEXT");
    CHECK_CL(clGetProgramInfo(p, CL_PROGRAM_NUM_DEVICES, sizeof ndev, &ndev, NULL), "NUM_DEVICES");
    CHECK_CL(clGetProgramInfo(p, CL_PROGRAM_DEVICES, sizeof d, &d, NULL), "DEVICES");
    printf("%s: refcount %u, context %s, %u device(s), device %s\n", label, rc, same_str(c, ctx), ndev,
           same_str(d, dev));
    CHECK(c == ctx, "CL_PROGRAM_CONTEXT differs");
    CHECK(ndev == 1 && d == dev, "CL_PROGRAM_DEVICES differs");

    char *src = program_str(p, CL_PROGRAM_SOURCE);
    if (expected_source) {
        printf("%s: CL_PROGRAM_SOURCE %s\n", label, strcmp(src, expected_source) == 0 ? "matches" : "differs");
        CHECK(strcmp(src, expected_source) == 0, "CL_PROGRAM_SOURCE differs");
    } else {
        printf("%s: CL_PROGRAM_SOURCE length %zu\n", label, strlen(src));
    }
    free(src);

    size_t bsize = 0;
    CHECK_CL(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof bsize, &bsize, NULL), "BINARY_SIZES");
    printf("%s: CL_PROGRAM_BINARY_SIZES[0] > 0: %s\n", label, bsize > 0 ? "yes" : "no");
    CHECK(bsize > 0, "binary size");

    size_t nk = 0;
    CHECK_CL(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, NULL), "NUM_KERNELS");
    char *names = program_str(p, CL_PROGRAM_KERNEL_NAMES);
    printf("%s: CL_PROGRAM_NUM_KERNELS %zu\n", label, nk);
    print_sorted_names("  CL_PROGRAM_KERNEL_NAMES (sorted)", names, ';');
    free(names);

    printf("%s: CL_PROGRAM_BUILD_STATUS %s, CL_PROGRAM_BINARY_TYPE %s\n", label,
           build_status_name(build_status(p)), binary_type_name(binary_type(p)));
    /* The log's text (warnings, timings) is the runtime's business: fetch it,
     * print nothing about it. */
    (void)build_log_length(p);
    printf("%s: CL_PROGRAM_BUILD_LOG queried\n", label);

    if (version >= 20) {
        size_t gv = 0;
        cl_int err = clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE, sizeof gv, &gv, NULL);
        if (err == CL_SUCCESS)
            printf("%s: CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE %zu\n", label, gv);
        else
            print_status("CL_PROGRAM_BUILD_GLOBAL_VARIABLE_TOTAL_SIZE", err);
    }
    if (version >= 21) {
        size_t il = 0;
        cl_int err = clGetProgramInfo(p, CL_PROGRAM_IL, 0, NULL, &il);
        if (err == CL_SUCCESS)
            printf("%s: CL_PROGRAM_IL size %zu\n", label, il);
        else
            print_status("CL_PROGRAM_IL", err);
    }
}

/* Runs add_offset on 0..n-1 and checks a[i] == i + offset. */
static void run_add_offset(const char *label, cl_program p, int offset)
{
    enum { N = 256 };
    cl_int a[N];
    for (int i = 0; i < N; ++i)
        a[i] = i;
    cl_mem b = make_buffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof a, a);
    cl_kernel k = make_kernel(p, "add_offset");
    CHECK_CL(clSetKernelArg(k, 0, sizeof b, &b), "arg0");
    size_t g = N;
    CHECK_CL(clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, NULL, 0, NULL, NULL), "NDRange");
    CHECK_CL(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, sizeof a, a, 0, NULL, NULL), "read");
    for (int i = 0; i < N; ++i)
        CHECK(a[i] == i + offset, "%s: a[%d] = %d, expected %d", label, i, a[i], i + offset);
    printf("%s: add_offset results OK\n", label);
    clReleaseKernel(k);
    clReleaseMemObject(b);
}

struct cb_record {
    atomic_int calls;
    cl_program seen;
    void *user_data;
};

static void CL_CALLBACK program_cb(cl_program p, void *user_data)
{
    struct cb_record *r = user_data;
    r->seen = p;
    r->user_data = user_data;
    atomic_fetch_add(&r->calls, 1);
}

static cl_program test_source(void)
{
    printf("== from source\n");
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src_main, NULL, &err);
    print_status("clCreateProgramWithSource", err);
    CHECK(err == CL_SUCCESS, "create");
    printf("before build: CL_PROGRAM_BUILD_STATUS %s\n", build_status_name(build_status(p)));
    const char *options = "-DOFFSET=3 -cl-mad-enable";
    err = clBuildProgram(p, 1, &dev, options, NULL, NULL);
    print_status("clBuildProgram(-DOFFSET=3 -cl-mad-enable)", err);
    CHECK(err == CL_SUCCESS, "build");
    char *opts = NULL;
    {
        size_t sz = 0;
        CHECK_CL(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_OPTIONS, 0, NULL, &sz), "OPTIONS");
        opts = calloc(sz + 1, 1);
        CHECK_CL(clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_OPTIONS, sz, opts, NULL), "OPTIONS");
    }
    printf("CL_PROGRAM_BUILD_OPTIONS: \"%s\"\n", opts);
    free(opts);
    print_program_info("source program", p, src_main);
    run_add_offset("source program", p, 3);

    /* Several strings, some with explicit lengths (not NUL-terminated). */
    const char *parts[3] = {"__kernel void add_offset(__global int *a) {XXXX",
                            " a[get_global_id(0)] += 11; ",
                            "}\n"};
    size_t lens[3] = {strlen(parts[0]) - 4, 0, strlen(parts[2])};
    cl_program p2 = clCreateProgramWithSource(ctx, 3, parts, lens, &err);
    print_status("clCreateProgramWithSource(3 strings, lengths)", err);
    CHECK(err == CL_SUCCESS, "create");
    CHECK_CL(clBuildProgram(p2, 1, &dev, NULL, NULL, NULL), "build p2");
    char *s2 = program_str(p2, CL_PROGRAM_SOURCE);
    const char *expect2 = "__kernel void add_offset(__global int *a) { a[get_global_id(0)] += 11; }\n";
    printf("concatenated CL_PROGRAM_SOURCE: %s\n", strcmp(s2, expect2) == 0 ? "matches" : "differs");
    CHECK(strcmp(s2, expect2) == 0, "concatenated source");
    free(s2);
    run_add_offset("3-string program", p2, 11);
    clReleaseProgram(p2);
    return p;
}

static void test_binary(cl_program src_prog)
{
    printf("== from binary\n");
    size_t size = 0;
    CHECK_CL(clGetProgramInfo(src_prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL), "BINARY_SIZES");
    unsigned char *bin = malloc(size);
    unsigned char *bins[1] = {bin};
    CHECK_CL(clGetProgramInfo(src_prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL), "BINARIES");
    printf("CL_PROGRAM_BINARIES: fetched\n");

    cl_int status = -1, err = CL_SUCCESS;
    const unsigned char *cbins[1] = {bin};
    cl_program p = clCreateProgramWithBinary(ctx, 1, &dev, &size, cbins, &status, &err);
    print_status("clCreateProgramWithBinary", err);
    print_status("binary_status[0]", status);
    CHECK(err == CL_SUCCESS && status == CL_SUCCESS, "create from binary");
    printf("before build: CL_PROGRAM_BINARY_TYPE %s\n", binary_type_name(binary_type(p)));
    err = clBuildProgram(p, 1, &dev, NULL, NULL, NULL);
    print_status("clBuildProgram(binary)", err);
    CHECK(err == CL_SUCCESS, "build from binary");
    print_program_info("binary program", p, NULL);
    run_add_offset("binary program", p, 3);
    clReleaseProgram(p);

    /* A corrupted binary is rejected. */
    memset(bin, 0x5a, size < 64 ? size : 64);
    p = clCreateProgramWithBinary(ctx, 1, &dev, &size, cbins, &status, &err);
    printf("clCreateProgramWithBinary(corrupted): %s, binary_status %s\n", cl_err_name(err), cl_err_name(status));
    if (p) {
        err = clBuildProgram(p, 1, &dev, NULL, NULL, NULL);
        print_status("clBuildProgram(corrupted binary)", err);
        CHECK(err != CL_SUCCESS, "corrupted binary built");
        clReleaseProgram(p);
    } else {
        CHECK(err != CL_SUCCESS, "NULL program without an error");
    }
    free(bin);
}

static void test_compile_link(void)
{
    printf("== compile + link\n");
    const char *hdr_src = "#define HELPER_SCALE 5\nint helper(int x);\n";
    const char *a_src =
        "#include \"util.h\"\n"
        "__kernel void use_helper(__global int *a) {\n"
        "    size_t i = get_global_id(0);\n"
        "    a[i] = helper(a[i]) * HELPER_SCALE;\n"
        "}\n";
    const char *b_src = "int helper(int x) { return x + 2; }\n";
    cl_int err = CL_SUCCESS;
    cl_program hdr = clCreateProgramWithSource(ctx, 1, &hdr_src, NULL, &err);
    CHECK_CL(err, "header program");
    cl_program pa = clCreateProgramWithSource(ctx, 1, &a_src, NULL, &err);
    CHECK_CL(err, "unit a");
    cl_program pb = clCreateProgramWithSource(ctx, 1, &b_src, NULL, &err);
    CHECK_CL(err, "unit b");
    const char *hdr_name = "util.h";
    err = clCompileProgram(pa, 1, &dev, NULL, 1, &hdr, &hdr_name, NULL, NULL);
    print_status("clCompileProgram(unit a, header util.h)", err);
    CHECK(err == CL_SUCCESS, "compile a");
    static struct cb_record ccb;
    atomic_init(&ccb.calls, 0);
    err = clCompileProgram(pb, 1, &dev, NULL, 0, NULL, NULL, program_cb, &ccb);
    print_status("clCompileProgram(unit b, callback)", err);
    CHECK(err == CL_SUCCESS, "compile b");
    WAIT_FOR(&ccb.calls, 1, "compile callback");
    printf("compile callback: calls %d, program %s, user_data %s\n", atomic_load(&ccb.calls),
           same_str(ccb.seen, pb), same_str(ccb.user_data, &ccb));
    CHECK(ccb.seen == pb && ccb.user_data == &ccb, "compile callback arguments");
    printf("unit a: %s, %s\n", build_status_name(build_status(pa)), binary_type_name(binary_type(pa)));
    printf("unit b: %s, %s\n", build_status_name(build_status(pb)), binary_type_name(binary_type(pb)));
    CHECK(binary_type(pa) == CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT, "compiled object");

    cl_program units[2] = {pa, pb};
    static struct cb_record lcb;
    atomic_init(&lcb.calls, 0);
    cl_program linked = clLinkProgram(ctx, 1, &dev, NULL, 2, units, program_cb, &lcb, &err);
    print_status("clLinkProgram(a + b, callback)", err);
    CHECK(err == CL_SUCCESS && linked != NULL, "link");
    WAIT_FOR(&lcb.calls, 1, "link callback");
    printf("link callback: calls %d, program %s, user_data %s\n", atomic_load(&lcb.calls),
           same_str(lcb.seen, linked), same_str(lcb.user_data, &lcb));
    CHECK(lcb.seen == linked && lcb.user_data == &lcb, "link callback arguments");
    print_program_info("linked program", linked, NULL);
    CHECK(binary_type(linked) == CL_PROGRAM_BINARY_TYPE_EXECUTABLE, "linked executable");

    enum { N = 64 };
    cl_int a[N];
    for (int i = 0; i < N; ++i)
        a[i] = i;
    cl_mem b = make_buffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof a, a);
    cl_kernel k = make_kernel(linked, "use_helper");
    CHECK_CL(clSetKernelArg(k, 0, sizeof b, &b), "arg");
    size_t g = N;
    CHECK_CL(clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, NULL, 0, NULL, NULL), "NDRange");
    CHECK_CL(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, sizeof a, a, 0, NULL, NULL), "read");
    for (int i = 0; i < N; ++i)
        CHECK(a[i] == (i + 2) * 5, "use_helper a[%d] = %d", i, a[i]);
    printf("linked program: use_helper results OK\n");
    clReleaseKernel(k);
    clReleaseMemObject(b);
    clReleaseProgram(linked);

    /* Library: link b into a library, then link a + library. */
    cl_program lib = clLinkProgram(ctx, 1, &dev, "-create-library", 1, &pb, NULL, NULL, &err);
    print_status("clLinkProgram(-create-library)", err);
    if (err == CL_SUCCESS) {
        printf("library: %s\n", binary_type_name(binary_type(lib)));
        cl_program parts[2] = {pa, lib};
        cl_program exe = clLinkProgram(ctx, 1, &dev, NULL, 2, parts, NULL, NULL, &err);
        print_status("clLinkProgram(a + library)", err);
        CHECK(err == CL_SUCCESS, "link with library");
        printf("a + library: %s\n", binary_type_name(binary_type(exe)));
        clReleaseProgram(exe);
        clReleaseProgram(lib);
    }

    /* Compilation failure. */
    const char *bad = "int broken(int x) { return x + ; }\n";
    cl_program pbad = clCreateProgramWithSource(ctx, 1, &bad, NULL, &err);
    CHECK_CL(err, "bad unit");
    err = clCompileProgram(pbad, 1, &dev, NULL, 0, NULL, NULL, NULL, NULL);
    print_status("clCompileProgram(syntax error)", err);
    /* Oclgrind answers CL_BUILD_PROGRAM_FAILURE here; require only an error. */
    CHECK(err < 0, "compile failure");
    printf("failed compile: %s, log non-empty: %s\n", build_status_name(build_status(pbad)),
           build_log_length(pbad) > 0 ? "yes" : "no");
    clReleaseProgram(pbad);

    clReleaseProgram(hdr);
    clReleaseProgram(pa);
    clReleaseProgram(pb);
}

static void test_build_failure(void)
{
    printf("== failing build\n");
    const char *bad = "__kernel void broken(__global int *a) { a[0] = ; }\n";
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(ctx, 1, &bad, NULL, &err);
    CHECK_CL(err, "create");
    err = clBuildProgram(p, 1, &dev, NULL, NULL, NULL);
    print_status("clBuildProgram(syntax error)", err);
    CHECK(err == CL_BUILD_PROGRAM_FAILURE, "expected CL_BUILD_PROGRAM_FAILURE");
    cl_build_status st = build_status(p);
    printf("CL_PROGRAM_BUILD_STATUS: %s\n", build_status_name(st));
    CHECK(st == CL_BUILD_ERROR, "expected CL_BUILD_ERROR");
    printf("build log non-empty: %s\n", build_log_length(p) > 0 ? "yes" : "no");
    CHECK(build_log_length(p) > 0, "empty build log");
    cl_kernel k = clCreateKernel(p, "broken", &err);
    print_status("clCreateKernel(failed program)", err);
    /* Spec: CL_INVALID_PROGRAM_EXECUTABLE; Oclgrind answers
     * CL_INVALID_KERNEL_NAME.  Require an error. */
    CHECK(k == NULL && err < 0, "kernel from failed program");
    cl_uint nk = 0;
    err = clCreateKernelsInProgram(p, 0, NULL, &nk);
    print_status("clCreateKernelsInProgram(failed program)", err);
    CHECK(err < 0, "kernels from failed program");

    /* A good source with an unknown build option. */
    cl_program good = clCreateProgramWithSource(ctx, 1, &src_main, NULL, &err);
    CHECK_CL(err, "create");
    err = clBuildProgram(good, 1, &dev, "-DOFFSET=1 -this-is-not-an-option", NULL, NULL);
    print_status("clBuildProgram(unknown option)", err);
    CHECK(err != CL_SUCCESS, "unknown build option accepted");
    clReleaseProgram(good);
    clReleaseProgram(p);
}

static void test_il(void)
{
    printf("== from IL\n");
    if (version < 21) {
        printf("skip: clCreateProgramWithIL (OpenCL %d.%d)\n", version / 10, version % 10);
        return;
    }
    char *ils = device_str(dev, CL_DEVICE_IL_VERSION);
    int spirv = strstr(ils, "SPIR-V") != NULL;
    free(ils);
    if (!spirv) {
        printf("skip: clCreateProgramWithIL (no SPIR-V in CL_DEVICE_IL_VERSION)\n");
        return;
    }
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithIL(ctx, spirv_add_const, sizeof spirv_add_const, &err);
    print_status("clCreateProgramWithIL", err);
    CHECK(err == CL_SUCCESS, "create from IL");
    size_t il_size = 0;
    CHECK_CL(clGetProgramInfo(p, CL_PROGRAM_IL, 0, NULL, &il_size), "CL_PROGRAM_IL size");
    unsigned char *il = malloc(il_size ? il_size : 1);
    CHECK_CL(clGetProgramInfo(p, CL_PROGRAM_IL, il_size, il, NULL), "CL_PROGRAM_IL");
    int same = il_size == sizeof spirv_add_const && memcmp(il, spirv_add_const, il_size) == 0;
    printf("CL_PROGRAM_IL: %zu bytes, %s\n", il_size, same ? "matches" : "differs");
    CHECK(same, "CL_PROGRAM_IL differs from the module");
    free(il);
    err = clBuildProgram(p, 1, &dev, NULL, NULL, NULL);
    print_status("clBuildProgram(IL)", err);
    CHECK(err == CL_SUCCESS, "build IL");
    char *names = program_str(p, CL_PROGRAM_KERNEL_NAMES);
    print_sorted_names("IL program kernels", names, ';');
    free(names);

    enum { N = 128 };
    cl_uint a[N];
    for (cl_uint i = 0; i < N; ++i)
        a[i] = i;
    cl_mem b = make_buffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof a, a);
    cl_kernel k = make_kernel(p, "add_const");
    cl_uint c = 7;
    CHECK_CL(clSetKernelArg(k, 0, sizeof b, &b), "arg0");
    CHECK_CL(clSetKernelArg(k, 1, sizeof c, &c), "arg1");
    size_t g = N;
    CHECK_CL(clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, NULL, 0, NULL, NULL), "NDRange");
    CHECK_CL(clEnqueueReadBuffer(queue, b, CL_TRUE, 0, sizeof a, a, 0, NULL, NULL), "read");
    for (cl_uint i = 0; i < N; ++i)
        CHECK(a[i] == i + 7, "add_const a[%u] = %u", i, a[i]);
    printf("IL program: add_const results OK\n");
    clReleaseKernel(k);
    clReleaseMemObject(b);
    clReleaseProgram(p);
}

static void test_build_callback(void)
{
    printf("== build callback\n");
    static struct cb_record rec;
    atomic_init(&rec.calls, 0);
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(ctx, 1, &src_main, NULL, &err);
    CHECK_CL(err, "create");
    err = clBuildProgram(p, 1, &dev, "-DOFFSET=5", program_cb, &rec);
    print_status("clBuildProgram(callback)", err);
    CHECK(err == CL_SUCCESS, "build with callback");
    WAIT_FOR(&rec.calls, 1, "build callback");
    printf("build callback: calls %d, program %s, user_data %s\n", atomic_load(&rec.calls),
           same_str(rec.seen, p), same_str(rec.user_data, &rec));
    CHECK(atomic_load(&rec.calls) == 1, "build callback count");
    CHECK(rec.seen == p, "build callback program is not the application's handle");
    CHECK(rec.user_data == &rec, "build callback user_data");
    printf("after callback: CL_PROGRAM_BUILD_STATUS %s\n", build_status_name(build_status(p)));
    run_add_offset("callback-built program", p, 5);

    /* A failing build also calls back. */
    static struct cb_record rec2;
    atomic_init(&rec2.calls, 0);
    const char *bad = "__kernel void k(void) { undeclared_identifier = 1; }\n";
    cl_program pb = clCreateProgramWithSource(ctx, 1, &bad, NULL, &err);
    CHECK_CL(err, "create");
    err = clBuildProgram(pb, 1, &dev, NULL, program_cb, &rec2);
    print_status("clBuildProgram(failing, callback)", err);
    WAIT_FOR(&rec2.calls, 1, "failing build callback");
    printf("failing build callback: calls %d, program %s, user_data %s, status %s\n", atomic_load(&rec2.calls),
           same_str(rec2.seen, pb), same_str(rec2.user_data, &rec2), build_status_name(build_status(pb)));
    CHECK(rec2.seen == pb && rec2.user_data == &rec2, "failing build callback arguments");
    clReleaseProgram(pb);
    clReleaseProgram(p);
}

static void test_release_callback(void)
{
    printf("== program release callback\n");
    if (platform_version(platform) < 22) {
        printf("skip: clSetProgramReleaseCallback (platform OpenCL < 2.2)\n");
        return;
    }
    static struct cb_record rec;
    atomic_init(&rec.calls, 0);
    cl_program p = build_program(ctx, dev, src_main, "-DOFFSET=1");
    cl_int err = clSetProgramReleaseCallback(p, program_cb, &rec);
    print_status("clSetProgramReleaseCallback", err);
    if (err == CL_INVALID_OPERATION) {
        printf("skip: program release callback (CL_INVALID_OPERATION)\n");
        clReleaseProgram(p);
        return;
    }
    CHECK(err == CL_SUCCESS, "clSetProgramReleaseCallback");
    CHECK_CL(clReleaseProgram(p), "release");
    WAIT_FOR(&rec.calls, 1, "program release callback");
    printf("release callback: calls %d, program %s, user_data %s\n", atomic_load(&rec.calls),
           same_str(rec.seen, p), same_str(rec.user_data, &rec));
    CHECK(rec.seen == p && rec.user_data == &rec, "release callback arguments");
}

int main(void)
{
    pick_device(&platform, &dev);
    version = api_version(platform, dev);
    ctx = make_context(dev);
    queue = make_queue(ctx, dev, 0);

    cl_program p = test_source();
    test_binary(p);
    clReleaseProgram(p);
    test_compile_link();
    test_build_failure();
    test_il();
    test_build_callback();
    test_release_callback();

    print_status("clUnloadPlatformCompiler", clUnloadPlatformCompiler(platform));
    /* The compiler comes back on demand. */
    cl_program again = build_program(ctx, dev, src_main, "-DOFFSET=2");
    run_add_offset("after unload", again, 2);
    clReleaseProgram(again);

    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    printf("programs: PASS\n");
    return 0;
}
