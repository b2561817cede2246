/* A driver of known call sequences for the API-log tests.
 *   calls golden            a fixed sequence; prints each call and its status
 *   calls golden-alt        the same with one argument changed
 *   calls exit N            exits with status N after clGetPlatformIDs
 *   calls nofinish          enqueues work and exits without waiting for it
 *   calls markers-nowait N  N markers and one clFinish at the end
 *   calls eventrc           an event's reference count while its command
 *                           waits, and after a retain
 *   calls stress T N        T threads x N clGetPlatformInfo calls; the size
 *                           argument numbers each thread's calls 1..N
 *   calls forever           calls until killed; prints "ready" after 1000
 *   calls fork              calls in the parent, forks, calls in both
 *   calls fork-threads K T N  calls in the parent, then K children one after
 *                           the other: in each, T threads released at once
 *                           make N clGetPlatformInfo calls each (numbered as
 *                           in stress), so that the child's first calls race
 *                           to make its trace; prints "child PID" per child
 *   calls die HOW N         N clGetPlatformInfo calls, then dies: segv (a
 *                           NULL write), kill (SIGKILL), _exit, quick_exit,
 *                           abort
 *   calls driver-crash N    N calls, then one whose param_value is an
 *                           invalid pointer: the driver writes through it
 *                           and the process dies inside the call
 *   calls threads-die T N   T threads x N calls each, then SIGKILL while
 *                           they wait in no call
 *   calls at-exit-early N   N calls from an exit handler registered before
 *                           the first OpenCL call (it runs after cltap's)
 *   calls at-exit N         N calls from an exit handler registered after
 *                           the first OpenCL call (it runs before cltap's
 *                           own, after the C library has run the main
 *                           thread's thread-local destructors)
 * Every call made is one the log must show. */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static cl_platform_id plat;
static long per_thread;

#define SAY(name, err) printf("%s %d\n", name, (int)(err))

static void *spin(void *arg) {
    long tag = (long)arg;
    for (long i = 1; i <= per_thread; i++) {
        size_t sz;
        /* param_value is NULL, so the size is unused: it numbers the call. */
        clGetPlatformInfo(plat, CL_PLATFORM_NAME, (size_t)(tag * 100000000L + i), NULL, &sz);
    }
    return NULL;
}

static atomic_int started;
static int racers;

/* Waits until every thread of the child is here, then calls as spin. */
static void *race(void *arg) {
    atomic_fetch_add(&started, 1);
    while (atomic_load(&started) < racers) {
    }
    return spin(arg);
}

/* `alt` changes one argument: the first buffer's size. */
static int golden(int alt) {
    cl_int err;
    cl_device_id dev;
    SAY("clGetDeviceIDs", clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL));
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    SAY("clCreateContext", err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    SAY("clCreateCommandQueue", err);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, alt ? 8192 : 4096, NULL, &err);
    SAY("clCreateBuffer", err);
    SAY("clCreateBuffer", (clCreateBuffer(ctx, CL_MEM_READ_WRITE, 0, NULL, &err), err));
    int pattern = 7;
    cl_event e1, e2;
    SAY("clEnqueueFillBuffer", clEnqueueFillBuffer(q, b, &pattern, sizeof pattern, 0, 4096, 0, NULL, &e1));
    int host[1024];
    SAY("clEnqueueReadBuffer", clEnqueueReadBuffer(q, b, CL_FALSE, 0, sizeof host, host, 1, &e1, &e2));
    SAY("clEnqueueReadBuffer", clEnqueueReadBuffer(q, b, CL_FALSE, 0, sizeof host, host, 0, NULL, NULL));
    SAY("clWaitForEvents", clWaitForEvents(1, &e2));
    SAY("clFinish", clFinish(q));
    SAY("clGetEventInfo", clGetEventInfo(e2, 0x7777, 0, NULL, NULL));
    SAY("clReleaseEvent", clReleaseEvent(e1));
    SAY("clReleaseEvent", clReleaseEvent(e2));
    SAY("clReleaseMemObject", clReleaseMemObject(b));
    SAY("clReleaseCommandQueue", clReleaseCommandQueue(q));
    SAY("clReleaseContext", clReleaseContext(ctx));
    return host[5] == 7 ? 0 : 1;
}

static cl_uint event_rc(cl_event e) {
    cl_uint rc = 0;
    clGetEventInfo(e, CL_EVENT_REFERENCE_COUNT, sizeof rc, &rc, NULL);
    return rc;
}

/* The reference counts the application can see of its command's event, at
 * each stage: device timing holds one of its own, which must not show. */
static int eventrc(void) {
    cl_int err;
    cl_device_id dev;
    clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
    cl_event gate = clCreateUserEvent(ctx, &err);
    cl_event m;
    SAY("clEnqueueMarkerWithWaitList", clEnqueueMarkerWithWaitList(q, 1, &gate, &m));
    printf("waiting: %u\n", event_rc(m));
    clRetainEvent(m);
    printf("waiting, retained: %u\n", event_rc(m));
    clReleaseEvent(m);
    clSetUserEventStatus(gate, CL_COMPLETE);
    SAY("clFinish", clFinish(q));
    /* Not printed after completion: PoCL lets go of its own reference a
     * moment after, so that count depends on timing even without cltap. */
    clReleaseEvent(m);
    clReleaseEvent(gate);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    return 0;
}

static long exit_n;

static void exit_calls(void) {
    size_t sz;
    for (long i = 1; i <= exit_n; i++) clGetPlatformInfo(plat, CL_PLATFORM_NAME, (size_t)i, NULL, &sz);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    if (!strcmp(argv[1], "at-exit-early") && argc == 3) {
        exit_n = atol(argv[2]);
        atexit(exit_calls);
    }
    if (clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS) return 3;
    if (!strcmp(argv[1], "at-exit-early")) return 0;
    if (!strcmp(argv[1], "at-exit") && argc == 3) {
        exit_n = atol(argv[2]);
        atexit(exit_calls);
        return 0;
    }
    printf("clGetPlatformIDs 0\n");
    if (!strcmp(argv[1], "golden")) return golden(0);
    if (!strcmp(argv[1], "eventrc")) return eventrc();
    if (!strcmp(argv[1], "golden-alt")) return golden(1);
    if (!strcmp(argv[1], "exit")) return argc > 2 ? atoi(argv[2]) : 0;
    if (!strcmp(argv[1], "nofinish")) {
        /* Enqueues work and leaves without waiting: its events are still
         * pending when the process ends. */
        cl_int err;
        cl_device_id dev;
        clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
        cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
        cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
        cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 1 << 24, NULL, &err);
        int pattern = 1;
        for (int i = 0; i < 8; i++) clEnqueueFillBuffer(q, b, &pattern, sizeof pattern, 0, 1 << 24, 0, NULL, NULL);
        clFlush(q);
        printf("left\n");
        return 0;
    }
    if (!strcmp(argv[1], "markers-nowait") && argc == 3) {
        /* Many cheap enqueues and not one wait until the last clFinish. */
        cl_int err;
        cl_device_id dev;
        clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
        cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
        cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
        long n = atol(argv[2]);
        for (long i = 1; i <= n; i++)
            if (clEnqueueMarkerWithWaitList(q, 0, NULL, NULL) != CL_SUCCESS) return 4;
        clFinish(q);
        clReleaseCommandQueue(q);
        clReleaseContext(ctx);
        printf("markers %ld\n", n);
        return 0;
    }
    if (!strcmp(argv[1], "markers") && argc == 3) {
        /* Many cheap enqueues (markers, no event asked for), drained now and
         * then: each is a command for device timing to record. */
        cl_int err;
        cl_device_id dev;
        clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL);
        cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
        cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
        long n = atol(argv[2]);
        for (long i = 1; i <= n; i++) {
            if (clEnqueueMarkerWithWaitList(q, 0, NULL, NULL) != CL_SUCCESS) return 4;
            if (i % 1000 == 0) clFinish(q);
        }
        clFinish(q);
        clReleaseCommandQueue(q);
        clReleaseContext(ctx);
        printf("markers %ld\n", n);
        return 0;
    }
    if (!strcmp(argv[1], "stress") && argc == 4) {
        int t = atoi(argv[2]);
        per_thread = atol(argv[3]);
        pthread_t th[64];
        for (long i = 0; i < t && i < 64; i++) pthread_create(&th[i], NULL, spin, (void *)(i + 1));
        for (int i = 0; i < t && i < 64; i++) pthread_join(th[i], NULL);
        return 0;
    }
    if (!strcmp(argv[1], "forever")) {
        size_t sz;
        for (long i = 1;; i++) {
            clGetPlatformInfo(plat, CL_PLATFORM_NAME, (size_t)i, NULL, &sz);
            if (i == 1000) {
                printf("ready\n");
                fflush(stdout);
            }
        }
    }
    if (!strcmp(argv[1], "die") && argc == 4) {
        long n = atol(argv[3]);
        size_t sz;
        for (long i = 1; i <= n; i++) clGetPlatformInfo(plat, CL_PLATFORM_NAME, (size_t)i, NULL, &sz);
        fflush(stdout);
        const char *how = argv[2];
        if (!strcmp(how, "segv")) *(volatile int *)(uintptr_t)0 = 1;
        if (!strcmp(how, "kill")) raise(SIGKILL);
        if (!strcmp(how, "_exit")) _exit(3);
        if (!strcmp(how, "quick_exit")) quick_exit(4);
        if (!strcmp(how, "abort")) abort();
        return 2;
    }
    if (!strcmp(argv[1], "driver-crash") && argc == 3) {
        long n = atol(argv[2]);
        size_t sz;
        for (long i = 1; i <= n; i++) clGetPlatformInfo(plat, CL_PLATFORM_NAME, (size_t)i, NULL, &sz);
        fflush(stdout);
        clGetPlatformInfo(plat, CL_PLATFORM_NAME, 256, (void *)(uintptr_t)16, NULL);
        return 2;
    }
    if (!strcmp(argv[1], "fork-threads") && argc == 5) {
        int k = atoi(argv[2]);
        racers = atoi(argv[3]);
        per_thread = atol(argv[4]);
        size_t sz;
        for (int i = 0; i < 10; i++) clGetPlatformInfo(plat, CL_PLATFORM_NAME, 1000 + i, NULL, &sz);
        int failed = 0;
        for (int c = 0; c < k; c++) {
            fflush(NULL);
            pid_t pid = fork();
            if (pid == 0) {
                pthread_t th[64];
                if (racers > 64) _exit(2);
                for (long i = 0; i < racers; i++) pthread_create(&th[i], NULL, race, (void *)(i + 1));
                for (int i = 0; i < racers; i++) pthread_join(th[i], NULL);
                exit(0);
            }
            int st;
            waitpid(pid, &st, 0);
            failed |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
            printf("child %d\n", (int)pid);
        }
        return failed;
    }
    if (!strcmp(argv[1], "fork")) {
        size_t sz;
        for (int i = 0; i < 10; i++) clGetPlatformInfo(plat, CL_PLATFORM_NAME, 1000 + i, NULL, &sz);
        pid_t c = fork();
        if (c == 0) {
            for (int i = 0; i < 20; i++) clGetPlatformInfo(plat, CL_PLATFORM_NAME, 2000 + i, NULL, &sz);
            exit(0);
        }
        int st;
        waitpid(c, &st, 0);
        for (int i = 0; i < 30; i++) clGetPlatformInfo(plat, CL_PLATFORM_NAME, 3000 + i, NULL, &sz);
        printf("child %d\n", (int)c);
        return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
    }
    return 2;
}
