/* Forks while a second thread takes cltap's process-wide locks:
 * `fork_locks FORKS`. The second thread loops until told to stop: it makes
 * and builds a program (with a callback: the programs' registry and the
 * builds left pending), makes and releases a kernel of it, and asks for an
 * extension function no one knows, under a new name each time (the unknown
 * names' list). The main thread forks FORKS times while it runs; each
 * child makes a program, asks for an unknown extension function, enqueues
 * one kernel `child_k` made before the second thread started, finishes and
 * exits 0. Prints "child PID" per child, and at the end "parent PID R", R
 * the second thread's rounds; exits 0 when every child did, and forks no
 * more after a child that did not. A child that never ends is left for the
 * test's deadline to find (with where it is stuck).
 *
 * The child must not need a lock of the driver's that the second thread
 * may hold at the fork: PoCL's are not fork-safe. Its compiler holds
 * locks throughout a build that a child's enqueue takes (even when the
 * kernel is in PoCL's cache: a global one in libpocl, seen owned by the
 * building thread), so no fork happens while the second thread is in
 * clBuildProgram (`compiling`): forks land in cltap's other work on
 * programs (the registry at creation, a pending build settled at
 * clCreateKernel, the dumps) and in the extension look-ups. PoCL takes a
 * context's locks briefly in many calls, so the children work in a
 * context of their own, which the second thread never uses. And the
 * parent enqueues `child_k` once, as a child will, before the second
 * thread starts, so that no child compiles the work-group function.
 * With PoCL, run it with POCL_DEVICES=basic: the pthread device's worker
 * threads are not in a forked child. */
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *src =
    "__kernel void parent_k(__global int *a) { a[get_global_id(0)] += 1; }\n"
    "__kernel void child_k(__global int *a) { a[get_global_id(0)] += 2; }\n";

static cl_platform_id plat;
static cl_context ctx;
/* The children's context, which the second thread never uses. */
static cl_context cctx;
static cl_device_id dev;
static atomic_int stop;
static atomic_long rounds;
static cl_kernel child_k;

#define CHECK(x)                                                             \
    do {                                                                     \
        cl_int e_ = (x);                                                     \
        if (e_ != CL_SUCCESS) {                                              \
            fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, e_); \
            _exit(3);                                                        \
        }                                                                    \
    } while (0)

static void CL_CALLBACK built(cl_program p, void *data) {
    (void)p;
    (void)data;
}

/* Held by the second thread across its builds, and by the main thread
 * across each fork: no fork happens while PoCL compiles. */
static pthread_mutex_t compiling = PTHREAD_MUTEX_INITIALIZER;

static cl_program program(cl_context c) {
    cl_int err;
    cl_program p = clCreateProgramWithSource(c, 1, &src, NULL, &err);
    CHECK(err);
    pthread_mutex_lock(&compiling);
    CHECK(clBuildProgram(p, 1, &dev, "", built, NULL));
    pthread_mutex_unlock(&compiling);
    return p;
}

static void *hammer(void *arg) {
    (void)arg;
    while (!atomic_load(&stop)) {
        cl_program p = program(ctx);
        cl_int err;
        cl_kernel k = clCreateKernel(p, "parent_k", &err);
        CHECK(err);
        CHECK(clReleaseKernel(k));
        CHECK(clReleaseProgram(p));
        char name[64];
        snprintf(name, sizeof name, "clNoSuchFunction%ldCLTAP", atomic_load(&rounds));
        (void)clGetExtensionFunctionAddressForPlatform(plat, name);
        atomic_fetch_add(&rounds, 1);
    }
    return NULL;
}

/* Enqueues `child_k` once on a queue of its own and finishes: in the
 * parent before the second thread starts, and in each child. */
static void enqueue_child_k(void) {
    cl_int err;
    cl_mem buf = clCreateBuffer(cctx, CL_MEM_READ_WRITE, 64 * sizeof(int), NULL, &err);
    CHECK(err);
    CHECK(clSetKernelArg(child_k, 0, sizeof buf, &buf));
    cl_command_queue q = clCreateCommandQueue(cctx, dev, 0, &err);
    CHECK(err);
    size_t g = 64;
    CHECK(clEnqueueNDRangeKernel(q, child_k, 1, NULL, &g, NULL, 0, NULL, NULL));
    CHECK(clFinish(q));
    CHECK(clReleaseCommandQueue(q));
    CHECK(clReleaseMemObject(buf));
}

static int child(void) {
    cl_int err;
    cl_program p = clCreateProgramWithSource(cctx, 1, &src, NULL, &err);
    CHECK(err);
    (void)clGetExtensionFunctionAddressForPlatform(plat, "clNoSuchFunctionInTheChildCLTAP");
    enqueue_child_k();
    CHECK(clReleaseProgram(p));
    return 0;
}

int main(int argc, char **argv) {
    int forks = argc > 1 ? atoi(argv[1]) : 8;
    cl_int err;
    CHECK(clGetPlatformIDs(1, &plat, NULL));
    CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    cctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    cl_program p = program(cctx);
    child_k = clCreateKernel(p, "child_k", &err);
    CHECK(err);
    enqueue_child_k();
    pthread_t t;
    if (pthread_create(&t, NULL, hammer, NULL) != 0)
        return 4;
    int bad = 0;
    for (int i = 0; i < forks; i++) {
        /* Let the second thread get going between forks. */
        long r = atomic_load(&rounds);
        while (atomic_load(&rounds) < r + 2)
            sched_yield();
        fflush(stdout);
        pthread_mutex_lock(&compiling);
        pid_t pid = fork();
        /* The child's one thread is this one, which holds it there too. */
        pthread_mutex_unlock(&compiling);
        if (pid < 0)
            return 5;
        if (pid == 0)
            exit(child());
        printf("child %d\n", (int)pid);
        int status = 0;
        if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "child %d: status %#x\n", (int)pid, status);
            bad = 1;
            break;
        }
    }
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    printf("parent %d %ld\n", (int)getpid(), atomic_load(&rounds));
    CHECK(clReleaseContext(ctx));
    CHECK(clReleaseContext(cctx));
    return bad;
}
