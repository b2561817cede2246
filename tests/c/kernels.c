/*
 * kernels.c - kernel objects: every argument kind (global, constant, local,
 * scalars, struct by value, NULL buffer, image + sampler, SVM pointer),
 * clCreateKernelsInProgram, clCloneKernel, kernel/arg/work-group/sub-group
 * info.
 */
#include "common.h"

static cl_platform_id platform;
static cl_device_id dev;
static cl_context ctx;
static cl_command_queue queue;
static int version;
static int is_oclgrind;

enum { N = 256, LOCAL = 16 };

static const char *src =
    "typedef struct { int a; float b; long c; } params_t;\n"
    "__kernel void all_args(__global int *out, __constant int *cin, __local int *scratch,\n"
    "                       int si, float sf, long sl, params_t p) {\n"
    "    size_t gid = get_global_id(0);\n"
    "    size_t lid = get_local_id(0);\n"
    "    size_t ls = get_local_size(0);\n"
    "    scratch[lid] = cin[gid] * 2;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    int neighbour = scratch[ls - 1 - lid];\n"
    "    out[gid] = neighbour + si + (int)(sf * 2.0f) + (int)(sl >> 32) + p.a\n"
    "             + (int)(p.b * 4.0f) + (int)(p.c & 0xffff);\n"
    "}\n"
    "__kernel __attribute__((reqd_work_group_size(8, 1, 1)))\n"
    "void fixed_wg(__global int *out) {\n"
    "    out[get_global_id(0)] = (int)get_local_size(0);\n"
    "}\n"
    "__kernel void qualifiers(__global const int *restrict in, __global volatile int *out) {\n"
    "    out[get_global_id(0)] = in[get_global_id(0)];\n"
    "}\n"
    "__kernel void maybe_null(__global int *p, __global int *out) {\n"
    "    out[0] = (p == 0) ? 1 : 2;\n"
    "}\n"
    "__kernel void inc(__global int *p) {\n"
    "    p[get_global_id(0)] += 1;\n"
    "}\n";

static const char *image_src =
    "__kernel void read_img(__read_only image2d_t img, sampler_t s, __global float4 *out, int width) {\n"
    "    int x = get_global_id(0), y = get_global_id(1);\n"
    "    out[y * width + x] = read_imagef(img, s, (int2)(x, y));\n"
    "}\n";

typedef struct {
    cl_int a;
    cl_float b;
    cl_long c;
} params_t;

static const cl_int SI = 100;
static const cl_float SF = 2.5f;                      /* (int)(sf*2) = 5 */
static const cl_long SL = ((cl_long)7 << 32) | 12345; /* sl >> 32 = 7 */
static const params_t PARAMS = {1000, 0.75f, ((cl_long)1 << 40) | 42}; /* 1000 + 3 + 42 */

static int expected_all_args(const cl_int *cin, int gid)
{
    int lid = gid % LOCAL, base = gid - lid;
    return cin[base + (LOCAL - 1 - lid)] * 2 + SI + 5 + 7 + 1000 + 3 + 42;
}

static void set_all_args(cl_kernel k, cl_mem out, cl_mem cin)
{
    CHECK_CL(clSetKernelArg(k, 0, sizeof out, &out), "arg out (global buffer)");
    CHECK_CL(clSetKernelArg(k, 1, sizeof cin, &cin), "arg cin (constant buffer)");
    CHECK_CL(clSetKernelArg(k, 2, LOCAL * sizeof(cl_int), NULL), "arg scratch (local, NULL value)");
    CHECK_CL(clSetKernelArg(k, 3, sizeof SI, &SI), "arg si (int)");
    CHECK_CL(clSetKernelArg(k, 4, sizeof SF, &SF), "arg sf (float)");
    CHECK_CL(clSetKernelArg(k, 5, sizeof SL, &SL), "arg sl (long)");
    CHECK_CL(clSetKernelArg(k, 6, sizeof PARAMS, &PARAMS), "arg p (struct by value)");
}

static void run_and_check_all_args(const char *label, cl_kernel k, cl_mem out, const cl_int *cin, int si_delta)
{
    static cl_int res[N];
    cl_int zero = 0;
    CHECK_CL(clEnqueueFillBuffer(queue, out, &zero, sizeof zero, 0, N * sizeof(cl_int), 0, NULL, NULL), "fill");
    size_t g = N, l = LOCAL;
    CHECK_CL(clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, &l, 0, NULL, NULL), "NDRange all_args");
    CHECK_CL(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof res, res, 0, NULL, NULL), "read");
    for (int i = 0; i < N; ++i)
        CHECK(res[i] == expected_all_args(cin, i) + si_delta, "%s: out[%d] = %d, expected %d", label, i, res[i],
              expected_all_args(cin, i) + si_delta);
    printf("%s: results OK\n", label);
}

static const char *addr_qual_name(cl_kernel_arg_address_qualifier q)
{
    switch (q) {
    case CL_KERNEL_ARG_ADDRESS_GLOBAL: return "GLOBAL";
    case CL_KERNEL_ARG_ADDRESS_LOCAL: return "LOCAL";
    case CL_KERNEL_ARG_ADDRESS_CONSTANT: return "CONSTANT";
    case CL_KERNEL_ARG_ADDRESS_PRIVATE: return "PRIVATE";
    default: return "unknown";
    }
}

static const char *access_qual_name(cl_kernel_arg_access_qualifier q)
{
    switch (q) {
    case CL_KERNEL_ARG_ACCESS_READ_ONLY: return "READ_ONLY";
    case CL_KERNEL_ARG_ACCESS_WRITE_ONLY: return "WRITE_ONLY";
    case CL_KERNEL_ARG_ACCESS_READ_WRITE: return "READ_WRITE";
    case CL_KERNEL_ARG_ACCESS_NONE: return "NONE";
    default: return "unknown";
    }
}

static void print_type_qualifier(cl_kernel_arg_type_qualifier q)
{
    if (q == CL_KERNEL_ARG_TYPE_NONE) {
        printf("NONE");
        return;
    }
    const char *sep = "";
    if (q & CL_KERNEL_ARG_TYPE_CONST) { printf("%sCONST", sep); sep = "|"; }
    if (q & CL_KERNEL_ARG_TYPE_RESTRICT) { printf("%sRESTRICT", sep); sep = "|"; }
    if (q & CL_KERNEL_ARG_TYPE_VOLATILE) { printf("%sVOLATILE", sep); sep = "|"; }
    if (q & CL_KERNEL_ARG_TYPE_PIPE) { printf("%sPIPE", sep); sep = "|"; }
}

static char *kernel_str(cl_kernel k, cl_kernel_info param)
{
    size_t sz = 0;
    CHECK_CL(clGetKernelInfo(k, param, 0, NULL, &sz), "clGetKernelInfo(size)");
    char *s = calloc(sz + 1, 1);
    CHECK_CL(clGetKernelInfo(k, param, sz, s, NULL), "clGetKernelInfo");
    return s;
}

static void print_kernel_info(cl_kernel k, cl_program prog)
{
    char *name = kernel_str(k, CL_KERNEL_FUNCTION_NAME);
    /* Oclgrind 21.10 answers CL_KERNEL_ATTRIBUTES with a pointer to a
     * destroyed std::string (heap garbage), so it is not queried there. */
    char *attrs = is_oclgrind ? strdup("") : kernel_str(k, CL_KERNEL_ATTRIBUTES);
    cl_uint nargs = 0, rc = 0;
    cl_context c = NULL;
    cl_program p = NULL;
    CHECK_CL(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL), "NUM_ARGS");
    CHECK_CL(clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof rc, &rc, NULL), "REFERENCE_COUNT");
    CHECK_CL(clGetKernelInfo(k, CL_KERNEL_CONTEXT, sizeof c, &c, NULL), "CONTEXT");
    CHECK_CL(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof p, &p, NULL), "PROGRAM");
    /* The attribute string's spelling differs between drivers (and
     * Oclgrind 21.10 returns a dangling string for it), so classify it. */
    const char *attr_class = is_oclgrind ? "not queried (Oclgrind)"
                             : attrs[0] == '\0' ? "(empty)"
                             : strstr(attrs, "reqd_work_group_size") ? "mentions reqd_work_group_size"
                                                                      : "other";
    printf("kernel %s: num args %u, refcount %u, context %s, program %s, attributes %s\n", name, nargs, rc,
           same_str(c, ctx), same_str(p, prog), attr_class);
    CHECK(c == ctx, "CL_KERNEL_CONTEXT differs");
    CHECK(p == prog, "CL_KERNEL_PROGRAM differs");
    free(name);
    free(attrs);
}

static void print_arg_info(cl_kernel k)
{
    cl_uint nargs = 0;
    CHECK_CL(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL), "NUM_ARGS");
    for (cl_uint i = 0; i < nargs; ++i) {
        cl_kernel_arg_address_qualifier aq = 0;
        cl_kernel_arg_access_qualifier acc = 0;
        cl_kernel_arg_type_qualifier tq = 0;
        char type_name[128] = {0}, arg_name[128] = {0};
        cl_int err = clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, NULL);
        if (err != CL_SUCCESS) {
            printf("  arg %u: %s\n", i, cl_err_name(err));
            continue;
        }
        CHECK_CL(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof acc, &acc, NULL), "ACCESS");
        CHECK_CL(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof tq, &tq, NULL), "TYPE_QUALIFIER");
        CHECK_CL(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type_name, type_name, NULL), "TYPE_NAME");
        CHECK_CL(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, sizeof arg_name, arg_name, NULL), "NAME");
        printf("  arg %u: name \"%s\", type \"%s\", address %s, access %s, type qualifier ", i, arg_name,
               type_name, addr_qual_name(aq), access_qual_name(acc));
        print_type_qualifier(tq);
        printf("\n");
    }
    /* An out-of-range index. */
    char buf[64];
    print_status("  clGetKernelArgInfo(index = num_args)",
                 clGetKernelArgInfo(k, nargs, CL_KERNEL_ARG_NAME, sizeof buf, buf, NULL));
}

static void print_work_group_info(cl_kernel k, const char *label)
{
    size_t wgs = 0, cwgs[3] = {0, 0, 0}, pwm = 0;
    cl_ulong lmem = 0, pmem = 0;
    CHECK_CL(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wgs, &wgs, NULL), "WG_SIZE");
    CHECK_CL(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof cwgs, cwgs, NULL),
             "COMPILE_WG_SIZE");
    CHECK_CL(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL), "LOCAL_MEM");
    CHECK_CL(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof pwm, &pwm, NULL),
             "PREFERRED_MULTIPLE");
    CHECK_CL(clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof pmem, &pmem, NULL), "PRIVATE_MEM");
    printf("%s work-group info: CL_KERNEL_WORK_GROUP_SIZE %zu, CL_KERNEL_COMPILE_WORK_GROUP_SIZE (%zu,%zu,%zu), "
           "CL_KERNEL_LOCAL_MEM_SIZE %llu, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE %zu, "
           "CL_KERNEL_PRIVATE_MEM_SIZE %llu\n",
           label, wgs, cwgs[0], cwgs[1], cwgs[2], (unsigned long long)lmem, pwm, (unsigned long long)pmem);
    CHECK(wgs > 0 && pwm > 0, "work-group sizes");
    size_t gws[3];
    print_status("  CL_KERNEL_GLOBAL_WORK_SIZE (not a built-in kernel)",
                 clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_GLOBAL_WORK_SIZE, sizeof gws, gws, NULL));
    /* A NULL device is allowed for a single-device kernel (Oclgrind answers
     * CL_INVALID_DEVICE, so only print it). */
    size_t wgs2 = 0;
    cl_int err = clGetKernelWorkGroupInfo(k, NULL, CL_KERNEL_WORK_GROUP_SIZE, sizeof wgs2, &wgs2, NULL);
    print_status("  CL_KERNEL_WORK_GROUP_SIZE with NULL device", err);
    if (err == CL_SUCCESS)
        CHECK(wgs2 == wgs, "WORK_GROUP_SIZE with NULL device differs");
}

static void test_sub_group_info(cl_kernel k)
{
    if (version < 21) {
        printf("skip: clGetKernelSubGroupInfo (OpenCL %d.%d)\n", version / 10, version % 10);
        return;
    }
    cl_uint max_sg = 0;
    cl_int err = clGetDeviceInfo(dev, CL_DEVICE_MAX_NUM_SUB_GROUPS, sizeof max_sg, &max_sg, NULL);
    if (err != CL_SUCCESS || max_sg == 0) {
        printf("skip: clGetKernelSubGroupInfo (CL_DEVICE_MAX_NUM_SUB_GROUPS is 0)\n");
        return;
    }
    size_t local[1] = {LOCAL};
    size_t max_size = 0, count = 0, max_num = 0, compile_num = 0;
    CHECK_CL(clGetKernelSubGroupInfo(k, dev, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local, local,
                                     sizeof max_size, &max_size, NULL),
             "MAX_SUB_GROUP_SIZE_FOR_NDRANGE");
    CHECK_CL(clGetKernelSubGroupInfo(k, dev, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, sizeof local, local,
                                     sizeof count, &count, NULL),
             "SUB_GROUP_COUNT_FOR_NDRANGE");
    CHECK_CL(clGetKernelSubGroupInfo(k, dev, CL_KERNEL_MAX_NUM_SUB_GROUPS, 0, NULL, sizeof max_num, &max_num, NULL),
             "MAX_NUM_SUB_GROUPS");
    CHECK_CL(clGetKernelSubGroupInfo(k, dev, CL_KERNEL_COMPILE_NUM_SUB_GROUPS, 0, NULL, sizeof compile_num,
                                     &compile_num, NULL),
             "COMPILE_NUM_SUB_GROUPS");
    printf("sub-groups for local %d: max size %zu, count %zu; kernel max num %zu, compile num %zu\n", LOCAL,
           max_size, count, max_num, compile_num);
    size_t want = 1, lsz[3] = {0, 0, 0};
    err = clGetKernelSubGroupInfo(k, dev, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, sizeof want, &want, sizeof lsz,
                                  lsz, NULL);
    print_status("CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT(1)", err);
    if (err == CL_SUCCESS)
        printf("  local size for 1 sub-group: (%zu,%zu,%zu)\n", lsz[0], lsz[1], lsz[2]);
}

static void test_kernels_in_program(cl_program prog)
{
    cl_uint n = 0;
    CHECK_CL(clCreateKernelsInProgram(prog, 0, NULL, &n), "clCreateKernelsInProgram(count)");
    cl_kernel *ks = calloc(n, sizeof *ks);
    cl_uint n2 = 0;
    cl_int err = clCreateKernelsInProgram(prog, n, ks, &n2);
    print_status("clCreateKernelsInProgram", err);
    CHECK(err == CL_SUCCESS && n2 == n, "create kernels");
    char list[1024] = {0};
    for (cl_uint i = 0; i < n; ++i) {
        char *name = kernel_str(ks[i], CL_KERNEL_FUNCTION_NAME);
        if (i)
            strcat(list, ";");
        strcat(list, name);
        free(name);
        cl_program p = NULL;
        CHECK_CL(clGetKernelInfo(ks[i], CL_KERNEL_PROGRAM, sizeof p, &p, NULL), "PROGRAM");
        CHECK(p == prog, "kernel program differs");
    }
    printf("clCreateKernelsInProgram: %u kernels\n", n);
    print_sorted_names("  names (sorted)", list, ';');
    /* Too small an array. */
    if (n > 1) {
        cl_kernel one = NULL;
        print_status("clCreateKernelsInProgram(num_kernels too small)", clCreateKernelsInProgram(prog, 1, &one, NULL));
    }
    for (cl_uint i = 0; i < n; ++i)
        clReleaseKernel(ks[i]);
    free(ks);
}

static void test_clone(cl_kernel k, cl_mem out, const cl_int *cin)
{
    if (version < 21) {
        printf("skip: clCloneKernel (OpenCL %d.%d)\n", version / 10, version % 10);
        return;
    }
    cl_int err = CL_SUCCESS;
    cl_kernel clone = clCloneKernel(k, &err);
    print_status("clCloneKernel", err);
    CHECK(err == CL_SUCCESS && clone != NULL, "clone");
    cl_program p1 = NULL, p2 = NULL;
    CHECK_CL(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof p1, &p1, NULL), "program");
    CHECK_CL(clGetKernelInfo(clone, CL_KERNEL_PROGRAM, sizeof p2, &p2, NULL), "program");
    char *name = kernel_str(clone, CL_KERNEL_FUNCTION_NAME);
    printf("clone: function %s, program %s as original\n", name, same_str(p1, p2));
    CHECK(p1 == p2, "clone program differs");
    free(name);
    /* The clone carries the arguments of the original. */
    run_and_check_all_args("clone with copied args", clone, out, cin, 0);
    /* Changing an argument on the clone leaves the original alone. */
    cl_int si2 = SI + 50;
    CHECK_CL(clSetKernelArg(clone, 3, sizeof si2, &si2), "clone arg");
    run_and_check_all_args("clone with si+50", clone, out, cin, 50);
    run_and_check_all_args("original after clone change", k, out, cin, 0);
    clReleaseKernel(clone);
}

static void test_image_arg(void)
{
    if (!device_image_support(dev)) {
        printf("skip: image + sampler arguments (no image support)\n");
        return;
    }
    enum { W = 8, H = 4 };
    cl_float pixels[W * H * 4];
    for (int i = 0; i < W * H * 4; ++i)
        pixels[i] = (cl_float)i * 0.5f;
    cl_image_format fmt = {CL_RGBA, CL_FLOAT};
    cl_image_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = W;
    desc.image_height = H;
    cl_int err = CL_SUCCESS;
    cl_mem img = clCreateImage(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &fmt, &desc, pixels, &err);
    CHECK_CL(err, "clCreateImage");
    cl_sampler s = clCreateSampler(ctx, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &err);
    CHECK_CL(err, "clCreateSampler");
    cl_mem out = make_buffer(ctx, CL_MEM_WRITE_ONLY, sizeof pixels, NULL);
    cl_program p = build_program(ctx, dev, image_src, "-cl-kernel-arg-info");
    cl_kernel k = make_kernel(p, "read_img");
    cl_int w = W;
    CHECK_CL(clSetKernelArg(k, 0, sizeof img, &img), "arg image");
    CHECK_CL(clSetKernelArg(k, 1, sizeof s, &s), "arg sampler");
    CHECK_CL(clSetKernelArg(k, 2, sizeof out, &out), "arg out");
    CHECK_CL(clSetKernelArg(k, 3, sizeof w, &w), "arg width");
    size_t g[2] = {W, H};
    CHECK_CL(clEnqueueNDRangeKernel(queue, k, 2, NULL, g, NULL, 0, NULL, NULL), "NDRange read_img");
    cl_float res[W * H * 4];
    CHECK_CL(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof res, res, 0, NULL, NULL), "read");
    CHECK(memcmp(res, pixels, sizeof res) == 0, "image read through sampler");
    printf("image + sampler arguments: results OK\n");
    print_arg_info(k);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseMemObject(out);
    clReleaseSampler(s);
    clReleaseMemObject(img);
}

static void test_svm_arg(cl_program prog)
{
    cl_device_svm_capabilities caps = device_svm_caps(platform, dev);
    if (!(caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)) {
        printf("skip: SVM pointer argument (no coarse-grain SVM)\n");
        return;
    }
    cl_int *p = clSVMAlloc(ctx, CL_MEM_READ_WRITE, (N + 16) * sizeof(cl_int), 0);
    CHECK(p != NULL, "clSVMAlloc");
    CHECK_CL(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_WRITE, p, (N + 16) * sizeof(cl_int), 0, NULL, NULL), "map");
    for (int i = 0; i < N + 16; ++i)
        p[i] = i * 3;
    CHECK_CL(clEnqueueSVMUnmap(queue, p, 0, NULL, NULL), "unmap");
    cl_kernel k = make_kernel(prog, "inc");
    /* A pointer into the middle of the allocation. */
    cl_int err = clSetKernelArgSVMPointer(k, 0, p + 16);
    print_status("clSetKernelArgSVMPointer(p + 16)", err);
    CHECK(err == CL_SUCCESS, "set SVM arg");
    void *ptrs[1] = {p};
    print_status("clSetKernelExecInfo(CL_KERNEL_EXEC_INFO_SVM_PTRS)",
                 clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_PTRS, sizeof ptrs, ptrs));
    size_t g = N;
    CHECK_CL(clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, NULL, 0, NULL, NULL), "NDRange inc");
    CHECK_CL(clEnqueueSVMMap(queue, CL_TRUE, CL_MAP_READ, p, (N + 16) * sizeof(cl_int), 0, NULL, NULL), "map");
    for (int i = 0; i < N + 16; ++i)
        CHECK(p[i] == i * 3 + (i >= 16 ? 1 : 0), "svm p[%d] = %d", i, p[i]);
    CHECK_CL(clEnqueueSVMUnmap(queue, p, 0, NULL, NULL), "unmap");
    CHECK_CL(clFinish(queue), "finish");
    printf("SVM pointer argument: results OK\n");
    clReleaseKernel(k);
    clSVMFree(ctx, p);
}

static void test_null_buffer_arg(cl_program prog)
{
    cl_kernel k = make_kernel(prog, "maybe_null");
    cl_mem out = make_buffer(ctx, CL_MEM_READ_WRITE, sizeof(cl_int), NULL);
    cl_mem nullmem = NULL;
    cl_int err = clSetKernelArg(k, 0, sizeof nullmem, &nullmem);
    print_status("clSetKernelArg(NULL cl_mem)", err);
    CHECK(err == CL_SUCCESS, "NULL buffer argument");
    CHECK_CL(clSetKernelArg(k, 1, sizeof out, &out), "arg out");
    size_t g = 1;
    CHECK_CL(clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, NULL, 0, NULL, NULL), "NDRange maybe_null");
    cl_int r = 0;
    CHECK_CL(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof r, &r, 0, NULL, NULL), "read");
    printf("kernel saw NULL buffer argument: %s\n", r == 1 ? "yes" : "no");
    CHECK(r == 1, "NULL buffer argument not NULL in the kernel");
    /* Now a real buffer in the same slot. */
    CHECK_CL(clSetKernelArg(k, 0, sizeof out, &out), "arg real");
    CHECK_CL(clEnqueueNDRangeKernel(queue, k, 1, NULL, &g, NULL, 0, NULL, NULL), "NDRange maybe_null");
    CHECK_CL(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof r, &r, 0, NULL, NULL), "read");
    printf("kernel saw real buffer argument: %s\n", r == 2 ? "yes" : "no");
    CHECK(r == 2, "real buffer seen as NULL");
    clReleaseMemObject(out);
    clReleaseKernel(k);
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

    cl_program prog = build_program(ctx, dev, src, "-cl-kernel-arg-info");
    cl_kernel k = make_kernel(prog, "all_args");
    print_kernel_info(k, prog);

    static cl_int cin_host[N];
    for (int i = 0; i < N; ++i)
        cin_host[i] = i * 3 - 17;
    cl_mem cin = make_buffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof cin_host, cin_host);
    cl_mem out = make_buffer(ctx, CL_MEM_READ_WRITE, N * sizeof(cl_int), NULL);
    set_all_args(k, out, cin);
    run_and_check_all_args("all_args (global, constant, local, int, float, long, struct)", k, out, cin_host, 0);

    printf("== arg info (built with -cl-kernel-arg-info)\n");
    print_arg_info(k);
    cl_kernel kq = make_kernel(prog, "qualifiers");
    print_arg_info(kq);
    clReleaseKernel(kq);

    printf("== arg info (built without -cl-kernel-arg-info)\n");
    {
        cl_program plain = build_program(ctx, dev, src, NULL);
        cl_kernel kp = make_kernel(plain, "all_args");
        char name[64];
        cl_int err = clGetKernelArgInfo(kp, 0, CL_KERNEL_ARG_NAME, sizeof name, name, NULL);
        print_status("clGetKernelArgInfo(CL_KERNEL_ARG_NAME)", err);
        if (err == CL_SUCCESS)
            printf("  arg 0 name: \"%s\"\n", name);
        clReleaseKernel(kp);
        clReleaseProgram(plain);
    }

    printf("== work-group info\n");
    print_work_group_info(k, "all_args");
    cl_kernel kf = make_kernel(prog, "fixed_wg");
    print_kernel_info(kf, prog);
    print_work_group_info(kf, "fixed_wg");
    {
        size_t cw[3];
        CHECK_CL(clGetKernelWorkGroupInfo(kf, dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof cw, cw, NULL), "CWGS");
        CHECK(cw[0] == 8 && cw[1] == 1 && cw[2] == 1, "reqd_work_group_size not reported");
        /* Launch with the required size, and with a mismatching one. */
        cl_int res[32];
        cl_mem o = make_buffer(ctx, CL_MEM_READ_WRITE, sizeof res, NULL);
        CHECK_CL(clSetKernelArg(kf, 0, sizeof o, &o), "arg");
        size_t g = 32, l = 8, lbad = 4;
        CHECK_CL(clEnqueueNDRangeKernel(queue, kf, 1, NULL, &g, &l, 0, NULL, NULL), "NDRange fixed_wg");
        CHECK_CL(clEnqueueReadBuffer(queue, o, CL_TRUE, 0, sizeof res, res, 0, NULL, NULL), "read");
        for (int i = 0; i < 32; ++i)
            CHECK(res[i] == 8, "fixed_wg local size");
        printf("fixed_wg with local 8: results OK\n");
        cl_int err = clEnqueueNDRangeKernel(queue, kf, 1, NULL, &g, &lbad, 0, NULL, NULL);
        print_status("fixed_wg with local 4", err);
        CHECK(err == CL_INVALID_WORK_GROUP_SIZE, "mismatching reqd_work_group_size accepted");
        clReleaseMemObject(o);
    }
    clReleaseKernel(kf);

    printf("== sub-group info\n");
    test_sub_group_info(k);

    printf("== clCreateKernelsInProgram\n");
    test_kernels_in_program(prog);

    printf("== clCloneKernel\n");
    test_clone(k, out, cin_host);

    printf("== NULL buffer argument\n");
    test_null_buffer_arg(prog);

    printf("== image + sampler arguments\n");
    test_image_arg();

    printf("== SVM pointer argument\n");
    test_svm_arg(prog);

    /* Reference counting of the kernel. */
    cl_uint r0 = 0, r1 = 0, r2 = 0;
    clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof r0, &r0, NULL);
    clRetainKernel(k);
    clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof r1, &r1, NULL);
    clReleaseKernel(k);
    clGetKernelInfo(k, CL_KERNEL_REFERENCE_COUNT, sizeof r2, &r2, NULL);
    printf("kernel refcount: %u, retain %u, release %u\n", r0, r1, r2);
    CHECK(r1 == r0 + 1 && r2 == r0, "kernel refcount");

    clReleaseKernel(k);
    clReleaseMemObject(cin);
    clReleaseMemObject(out);
    clReleaseProgram(prog);
    clReleaseCommandQueue(queue);
    clReleaseContext(ctx);
    printf("kernels: PASS\n");
    return 0;
}
