/* cltap gpu-emu -- LD_PRELOAD shim for ROCm tools' start-up checks.
 *
 * rocminfo (and tools like it) check for the amdgpu kernel driver before
 * hsa_init: they run `lsmod | grep amdgpu` through popen and open /dev/kfd
 * read-write. On a machine without an AMD GPU both fail. This shim makes
 *   - popen of a command containing "lsmod" return a stream reading
 *     "amdgpu 1 0\n", and
 *   - open/open64/openat/openat64 of "/dev/kfd" open /dev/null instead,
 * and changes nothing else: every other call goes to libc. pclose of a
 * stream the shim made closes it and returns 0. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#define SHIM_EXPORT __attribute__((visibility("default")))

static const char LSMOD_TEXT[] = "amdgpu 1 0\n";
static const char KFD[] = "/dev/kfd";

#define MAX_FAKE 16
static FILE* fake_streams[MAX_FAKE];
static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;

static void* next(const char* name) { return dlsym(RTLD_NEXT, name); }

static const char* redirect(const char* path) {
  return path && strcmp(path, KFD) == 0 ? "/dev/null" : path;
}

SHIM_EXPORT FILE* popen(const char* command, const char* type) {
  static FILE* (*real)(const char*, const char*);
  if (!real) real = (FILE * (*)(const char*, const char*)) next("popen");
  if (command && strstr(command, "lsmod") && type && type[0] == 'r') {
    FILE* f = fmemopen((void*)LSMOD_TEXT, sizeof LSMOD_TEXT - 1, "r");
    if (f) {
      pthread_mutex_lock(&fake_lock);
      for (int i = 0; i < MAX_FAKE; i++)
        if (!fake_streams[i]) {
          fake_streams[i] = f;
          break;
        }
      pthread_mutex_unlock(&fake_lock);
      return f;
    }
  }
  return real(command, type);
}

SHIM_EXPORT int pclose(FILE* stream) {
  static int (*real)(FILE*);
  if (!real) real = (int (*)(FILE*))next("pclose");
  bool fake = false;
  pthread_mutex_lock(&fake_lock);
  for (int i = 0; i < MAX_FAKE; i++)
    if (stream && fake_streams[i] == stream) {
      fake_streams[i] = NULL;
      fake = true;
    }
  pthread_mutex_unlock(&fake_lock);
  if (fake) {
    fclose(stream);
    return 0;
  }
  return real(stream);
}

/* open(2) and friends take a mode only with O_CREAT or O_TMPFILE. */
#define MODE_ARG(flags, mode)                         \
  mode_t mode = 0;                                    \
  if ((flags) & (O_CREAT | __O_TMPFILE)) {            \
    va_list ap;                                       \
    va_start(ap, flags);                              \
    mode = (mode_t)va_arg(ap, int);                   \
    va_end(ap);                                       \
  }

SHIM_EXPORT int open(const char* path, int flags, ...) {
  static int (*real)(const char*, int, ...);
  if (!real) real = (int (*)(const char*, int, ...))next("open");
  MODE_ARG(flags, mode)
  return real(redirect(path), flags, mode);
}

SHIM_EXPORT int open64(const char* path, int flags, ...) {
  static int (*real)(const char*, int, ...);
  if (!real) real = (int (*)(const char*, int, ...))next("open64");
  MODE_ARG(flags, mode)
  return real(redirect(path), flags, mode);
}

SHIM_EXPORT int openat(int dirfd, const char* path, int flags, ...) {
  static int (*real)(int, const char*, int, ...);
  if (!real) real = (int (*)(int, const char*, int, ...))next("openat");
  MODE_ARG(flags, mode)
  return real(dirfd, redirect(path), flags, mode);
}

SHIM_EXPORT int openat64(int dirfd, const char* path, int flags, ...) {
  static int (*real)(int, const char*, int, ...);
  if (!real) real = (int (*)(int, const char*, int, ...))next("openat64");
  MODE_ARG(flags, mode)
  return real(dirfd, redirect(path), flags, mode);
}
