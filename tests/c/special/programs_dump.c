/* Programs made and built in every way cltap dumps (tests/programs_dump.rs).
 * Usage: programs_dump DIR
 * What the application itself learns from the driver goes to DIR, for the
 * test to compare with cltap's dumps: DIR/a.log and DIR/a.d0.bin (program
 * A's build log and binary), DIR/b.log (program B's failed build), DIR/d.log
 * (program D, built with a callback). Its stdout says what it saw (sizes,
 * statuses, a kernel's result), the same with and without cltap.
 *   A: three source strings, explicit lengths and one NUL-terminated, built
 *      with "-DVALUE=3"; its kernel writes VALUE, printed
 *   B: a source that does not compile
 *   C: compiled, then linked
 *   D: built with a callback */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAY(name, v) printf("%s %d\n", name, (int)(v))

static const char *dir;
static cl_device_id dev;

static void save(const char *name, const void *bytes, size_t n) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, n, f) != n) {
        printf("cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
}

/* The build log as the application gets it, saved without its NUL. */
static void save_log(cl_program p, const char *name) {
    size_t n = 0;
    SAY("log size query", clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n));
    char *log = malloc(n + 1);
    SAY("log query", clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL));
    save(name, log, n > 0 && log[n - 1] == 0 ? n - 1 : n);
    free(log);
}

static void CL_CALLBACK built(cl_program p, void *flag) {
    (void)p;
    *(int *)flag = 1;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        printf("usage: programs_dump DIR\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    dir = argv[1];
    cl_platform_id plat;
    cl_int err;
    SAY("clGetPlatformIDs", clGetPlatformIDs(1, &plat, NULL));
    SAY("clGetDeviceIDs", clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);

    /* A */
    const char *parts[3] = {"#ifndef VALUE\n#define VALUE 1\n#endif\nIGNORED", "__kernel void k(__global int *a) ",
                            "{ a[get_global_id(0)] = VALUE; }\n"};
    size_t lengths[3] = {37, 0, strlen(parts[2])};
    cl_program a = clCreateProgramWithSource(ctx, 3, parts, lengths, &err);
    SAY("A create", err);
    SAY("A build", clBuildProgram(a, 1, &dev, "-DVALUE=3", NULL, NULL));
    save_log(a, "a.log");
    size_t bsize = 0;
    SAY("A binary size query", clGetProgramInfo(a, CL_PROGRAM_BINARY_SIZES, sizeof bsize, &bsize, NULL));
    unsigned char *bin = malloc(bsize);
    SAY("A binary query", clGetProgramInfo(a, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL));
    save("a.d0.bin", bin, bsize);
    printf("A binary non-empty %d\n", bsize > 0);
    cl_kernel k = clCreateKernel(a, "k", &err);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4 * sizeof(int), NULL, &err);
    SAY("A arg", clSetKernelArg(k, 0, sizeof buf, &buf));
    size_t global = 4;
    SAY("A run", clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
    int out[4] = {0};
    SAY("A read", clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    SAY("A result", out[0]);

    /* B */
    const char *bad = "__kernel void broken(__global int *a) { a[0] = undeclared_name; }\n";
    cl_program b = clCreateProgramWithSource(ctx, 1, &bad, NULL, &err);
    SAY("B create", err);
    SAY("B build", clBuildProgram(b, 1, &dev, NULL, NULL, NULL));
    save_log(b, "b.log");

    /* C */
    const char *lib = "int twice(int x) { return 2 * x; }\n";
    cl_program c = clCreateProgramWithSource(ctx, 1, &lib, NULL, &err);
    SAY("C compile", clCompileProgram(c, 1, &dev, NULL, 0, NULL, NULL, NULL, NULL));
    cl_program linked = clLinkProgram(ctx, 1, &dev, "", 1, &c, NULL, NULL, &err);
    SAY("C link", err);

    /* D */
    const char *src_d = "__kernel void d(__global int *a) { a[0] = 4; }\n";
    cl_program d = clCreateProgramWithSource(ctx, 1, &src_d, NULL, &err);
    volatile int done = 0;
    SAY("D build", clBuildProgram(d, 1, &dev, NULL, built, (void *)&done));
    cl_build_status st = CL_BUILD_IN_PROGRESS;
    while (st == CL_BUILD_IN_PROGRESS)
        clGetProgramBuildInfo(d, dev, CL_PROGRAM_BUILD_STATUS, sizeof st, &st, NULL);
    SAY("D status", st);
    save_log(d, "d.log");
    cl_kernel kd = clCreateKernel(d, "d", &err);
    SAY("D kernel", err);

    clReleaseKernel(kd);
    clReleaseKernel(k);
    clReleaseMemObject(buf);
    clReleaseProgram(d);
    if (linked)
        clReleaseProgram(linked);
    clReleaseProgram(c);
    clReleaseProgram(b);
    clReleaseProgram(a);
    free(bin);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}
