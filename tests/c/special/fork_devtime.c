/* Forks while cltap's device timing is busy: `fork_devtime FORKS N`.
 * Before each fork a second thread is let do 64 rounds of 4 kernels
 * `parent_k` with events and a clFinish of its queue (its commands are read
 * and recorded as it goes); once it has done 8 of them, the main thread
 * enqueues 8 more with events it lets go of at once (held by cltap, still
 * to be read) and forks, while the second thread goes on. Each child
 * enqueues N kernels `child_k` with events on a queue of its own, finishes
 * it and exits 0 (one that never ends is left for the test's deadline
 * to find, with where it is stuck). Prints "child PID" per child, and at the end "parent PID M", M
 * the parent's kernels enqueued; exits 0 when every child did.
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

static cl_context ctx;
static cl_device_id dev;
static cl_program prog;
static cl_mem buf;
static atomic_int stop;
/* Rounds the second thread may do, and has done. */
static atomic_long allowed, rounds;

#define CHECK(x)                                                             \
    do {                                                                     \
        cl_int e_ = (x);                                                     \
        if (e_ != CL_SUCCESS) {                                              \
            fprintf(stderr, "%s:%d: %s = %d\n", __FILE__, __LINE__, #x, e_); \
            _exit(3);                                                        \
        }                                                                    \
    } while (0)

static cl_kernel kernel(const char *name) {
    cl_int err;
    cl_kernel k = clCreateKernel(prog, name, &err);
    CHECK(err);
    CHECK(clSetKernelArg(k, 0, sizeof buf, &buf));
    return k;
}

static cl_command_queue queue(void) {
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    CHECK(err);
    return q;
}

static void enqueue(cl_command_queue q, cl_kernel k, int n) {
    size_t g = 64;
    for (int i = 0; i < n; i++) {
        cl_event ev;
        CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, NULL, 0, NULL, &ev));
        CHECK(clReleaseEvent(ev));
    }
}

static void *recorder(void *arg) {
    (void)arg;
    cl_command_queue q = queue();
    cl_kernel k = kernel("parent_k");
    while (!atomic_load(&stop)) {
        if (atomic_load(&rounds) == atomic_load(&allowed)) {
            sched_yield();
            continue;
        }
        enqueue(q, k, 4);
        CHECK(clFinish(q));
        atomic_fetch_add(&rounds, 1);
    }
    CHECK(clReleaseKernel(k));
    CHECK(clReleaseCommandQueue(q));
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    int forks = atoi(argv[1]), n = atoi(argv[2]);
    cl_platform_id plat;
    cl_int err;
    CHECK(clGetPlatformIDs(1, &plat, NULL));
    CHECK(clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CHECK(err);
    prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(prog, 1, &dev, "", NULL, NULL));
    buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64 * sizeof(int), NULL, &err);
    CHECK(err);
    cl_command_queue q = queue();
    cl_kernel k = kernel("parent_k");
    pthread_t t;
    if (pthread_create(&t, NULL, recorder, NULL)) return 2;
    long main_kernels = 0;
    int failed = 0;
    for (int f = 0; f < forks; f++) {
        long round = atomic_fetch_add(&allowed, 64);
        while (atomic_load(&rounds) < round + 8) sched_yield();
        enqueue(q, k, 8);
        main_kernels += 8;
        fflush(NULL);
        pid_t c = fork();
        if (c < 0) return 2;
        if (c == 0) {
            cl_command_queue cq = queue();
            cl_kernel ck = kernel("child_k");
            enqueue(cq, ck, n);
            CHECK(clFinish(cq));
            CHECK(clReleaseKernel(ck));
            CHECK(clReleaseCommandQueue(cq));
            exit(0);
        }
        int st;
        if (waitpid(c, &st, 0) != c) return 2;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "child %d: %s %d\n", (int)c, WIFEXITED(st) ? "exit" : "signal",
                    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
            failed = 1;
        }
        printf("child %d\n", (int)c);
        CHECK(clFinish(q));
    }
    while (atomic_load(&rounds) < atomic_load(&allowed)) sched_yield();
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    CHECK(clFinish(q));
    CHECK(clReleaseKernel(k));
    CHECK(clReleaseCommandQueue(q));
    printf("parent %d %ld\n", (int)getpid(), main_kernels + 4 * atomic_load(&rounds));
    return failed;
}
