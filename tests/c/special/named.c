/* Threads with OS names, for the tracks' names (tests/thread_names.rs).
 * Thread "cltap-worker-a" names itself, then makes 3 clGetPlatformInfo
 * calls; the other thread keeps the name it inherits, makes one call,
 * renames itself "renamed-late", and makes another. Prints "a TID" and
 * "b TID" (the kernel's thread ids). */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static cl_platform_id plat;
static long tids[2];

static void *a(void *arg) {
    (void)arg;
    pthread_setname_np(pthread_self(), "cltap-worker-a");
    tids[0] = syscall(SYS_gettid);
    size_t sz;
    for (int i = 0; i < 3; i++) clGetPlatformInfo(plat, CL_PLATFORM_NAME, 0, NULL, &sz);
    return NULL;
}

static void *b(void *arg) {
    (void)arg;
    tids[1] = syscall(SYS_gettid);
    size_t sz;
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, 0, NULL, &sz);
    pthread_setname_np(pthread_self(), "renamed-late");
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, 0, NULL, &sz);
    return NULL;
}

int main(void) {
    if (clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS) return 1;
    pthread_t t;
    pthread_create(&t, NULL, a, NULL);
    pthread_join(t, NULL);
    pthread_create(&t, NULL, b, NULL);
    pthread_join(t, NULL);
    printf("a %ld\nb %ld\n", tids[0], tids[1]);
    return 0;
}
