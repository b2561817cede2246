/* cltap OpenCL-over-HSA test double -- compiling OpenCL C.
 *
 * AMD's runtime compiles through comgr (clang in-process). The double runs
 * Debian's clang-15 instead, in a private temporary folder:
 *   clang-15 -target amdgcn-amd-amdhsa -mcpu=<agent> -nogpulib -cl-std=CL2.0 -O2
 *            -include prelude.cl [clBuildProgram options] -x cl program.cl -o program.co
 * The options are split at blanks (no quoting) and come after the defaults,
 * so that e.g. -cl-std=CL1.2 overrides. -nogpulib: no device libraries are
 * linked; the prelude (prelude.c) defines the work-item functions and
 * barrier in their place. The compiler runs through posix_spawnp (no
 * shell), with its output as the build log. */
#include "icd.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

#define CLANG "clang-15"
#define MAX_ARGS 256

static char* read_all(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  char* data = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (cap - len < 4096) {
      char* grown = realloc(data, cap ? cap * 2 : 8192);
      if (!grown) {
        free(data);
        fclose(f);
        return NULL;
      }
      data = grown;
      cap = cap ? cap * 2 : 8192;
    }
    size_t n = fread(data + len, 1, cap - len - 1, f);
    len += n;
    if (n == 0) break;
  }
  fclose(f);
  data[len] = 0;
  *size = len;
  return data;
}

static bool write_all(const char* path, const char* text) {
  FILE* f = fopen(path, "wb");
  if (!f) return false;
  size_t len = strlen(text);
  bool ok = fwrite(text, 1, len, f) == len;
  return fclose(f) == 0 && ok;
}

/* Runs argv with stdout and stderr into `log_path`; the exit status, or -1. */
static int run(char* const argv[], const char* log_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int ocl_compile(const char* source, const char* options, const char* gpu, uint8_t** binary, size_t* binary_size,
                char** log) {
  *binary = NULL;
  *binary_size = 0;
  *log = NULL;
  const char* tmp = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/cltap-ocl-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    *log = strdup("cltap OpenCL-over-HSA test double: cannot create a temporary folder\n");
    return -1;
  }
  char src_path[4200], co_path[4200], log_path[4200], prelude_path[4200], mcpu[96];
  snprintf(src_path, sizeof src_path, "%s/program.cl", dir);
  snprintf(prelude_path, sizeof prelude_path, "%s/prelude.cl", dir);
  snprintf(co_path, sizeof co_path, "%s/program.co", dir);
  snprintf(log_path, sizeof log_path, "%s/build.log", dir);
  snprintf(mcpu, sizeof mcpu, "-mcpu=%s", gpu);

  char* opts = strdup(options ? options : "");
  char* argv[MAX_ARGS];
  int argc = 0;
  const char* fixed[] = {CLANG, "-target", "amdgcn-amd-amdhsa", mcpu, "-nogpulib", "-cl-std=CL2.0", "-O2",
                         "-include", prelude_path};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) argv[argc++] = (char*)fixed[i];
  char* save = NULL;
  for (char* w = opts ? strtok_r(opts, " \t\n", &save) : NULL; w && argc < MAX_ARGS - 6;
       w = strtok_r(NULL, " \t\n", &save))
    argv[argc++] = w;
  argv[argc++] = "-x";
  argv[argc++] = "cl";
  argv[argc++] = src_path;
  argv[argc++] = "-o";
  argv[argc++] = co_path;
  argv[argc] = NULL;

  int status = -1;
  if (opts && write_all(src_path, source) && write_all(prelude_path, ocl_prelude)) status = run(argv, log_path);
  size_t log_size = 0;
  *log = read_all(log_path, &log_size);
  if (status == -1 && (!*log || !**log)) {
    free(*log);
    *log = strdup("cltap OpenCL-over-HSA test double: could not run " CLANG
                  " (apt-get install clang-15 lld-15)\n");
  }
  if (status == 0) {
    size_t size = 0;
    char* co = read_all(co_path, &size);
    if (co && size) {
      *binary = (uint8_t*)co;
      *binary_size = size;
    } else {
      free(co);
      status = -1;
    }
  }
  if (!*log) *log = strdup("");
  unlink(src_path);
  unlink(co_path);
  unlink(log_path);
  unlink(prelude_path);
  rmdir(dir);
  free(opts);
  ocl_log("compiled for %s: %s", gpu, status == 0 ? "ok" : "failed");
  return status == 0 ? 0 : -1;
}
