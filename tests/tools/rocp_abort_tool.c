/* A rocprofiler v1 tool that makes a process die inside its dispatch
 * callback while holding a lock, and whose OnUnloadTool takes the same
 * lock (tests/rocprofiler_v1.rs). Were OnUnloadTool run from a signal
 * handler, the process would wait forever on that lock; without one it
 * ends at once with SIGABRT, as it does under rocprofiler, which installs
 * no signal handler.
 * ROCP_ABORT_TOOL_OUT names a file that gets "callback" before the abort
 * and "unload" if OnUnloadTool ever ran. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "rocprofiler.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void note(const char* what) {
  const char* path = getenv("ROCP_ABORT_TOOL_OUT");
  FILE* f = path ? fopen(path, "a") : NULL;
  if (f) {
    fprintf(f, "%s\n", what);
    fclose(f);
  }
}

static hsa_status_t dispatch(const rocprofiler_callback_data_t* d, void* user, rocprofiler_group_t* group) {
  (void)d;
  (void)user;
  (void)group;
  pthread_mutex_lock(&lock);
  note("callback");
  abort();
}

void OnLoadTool(void) {
  rocprofiler_queue_callbacks_t cb = {dispatch, NULL, NULL};
  rocprofiler_set_queue_callbacks(cb, NULL);
}

void OnUnloadTool(void) {
  pthread_mutex_lock(&lock);
  note("unload");
  pthread_mutex_unlock(&lock);
}
