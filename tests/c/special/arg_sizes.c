/* clSetKernelArg with a buffer's handle at every size, right and wrong, and
 * the driver's answer to each. The Khronos CTS's negative_invalid_arg_mem_obj
 * passes sizeof(cl_mem) * 2: AMD's runtime reads the handle before it checks
 * the size, so its answer depends on the handle it finds there. The
 * transcript must be the same with and without cltap, in any mode. */
#include "../common.h"
#include <sys/mman.h>
#include <unistd.h>

static const char *src =
    "kernel void k(global int* p, int n, local int* l) { if (n) p[0] = l[0]; }\n";

static void set(cl_kernel k, cl_uint index, const char *what, size_t size, const void *value) {
    printf("arg %u %s size %zu: %s\n", index, what, size, cl_err_name(clSetKernelArg(k, index, size, value)));
}

int main(void) {
    cl_platform_id p;
    cl_device_id d;
    cl_int err;
    CHECK_CL(clGetPlatformIDs(1, &p, NULL), "clGetPlatformIDs");
    CHECK_CL(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL), "clGetDeviceIDs");
    cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    CHECK_CL(err, "clCreateContext");
    cl_program prog = clCreateProgramWithSource(c, 1, &src, NULL, &err);
    CHECK_CL(err, "clCreateProgramWithSource");
    CHECK_CL(clBuildProgram(prog, 1, &d, NULL, NULL, NULL), "clBuildProgram");
    cl_kernel k = clCreateKernel(prog, "k", &err);
    CHECK_CL(err, "clCreateKernel");
    cl_mem buf = clCreateBuffer(c, CL_MEM_READ_WRITE, 64, NULL, &err);
    CHECK_CL(err, "clCreateBuffer");

    /* Five handles in a row: every size below reads only the application's bytes. */
    cl_mem five[5] = {buf, buf, buf, buf, buf};
    size_t sizes[] = {0, 1, 4, 7, 8, 9, 12, 16, 24, 40};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) set(k, 0, "buffer", sizes[i], five);
    cl_mem none[2] = {NULL, buf};
    set(k, 0, "NULL then buffer", 2 * sizeof(cl_mem), none);

    /* A handle that starts 4 bytes before a page ends: a word read from a
     * 4-byte value crosses into the next page. */
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(two != MAP_FAILED, "mmap");
    memcpy(two + page - 4, &buf, sizeof buf);
    set(k, 0, "buffer across a page", 4, two + page - 4);
    set(k, 0, "buffer across a page", sizeof(cl_mem), two + page - 4);

    int n = 1;
    set(k, 1, "int", sizeof n, &n);
    set(k, 1, "buffer as int", sizeof(cl_mem), five);
    set(k, 1, "buffer as int", 2 * sizeof(cl_mem), five);
    set(k, 2, "local", 16, NULL);
    set(k, 2, "local with a buffer", 16, five);
    set(k, 0, "buffer", sizeof(cl_mem), &buf);

    munmap(two, 2 * page);
    clReleaseMemObject(buf);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseContext(c);
    return 0;
}
