/* A rocprofiler v1 tool written the way rocprof's own is (rocprofiler's
 * test/tool/tool.cpp at rocm-5.2.3), for what happens at the end of a
 * process: every dispatch opens a context (all contexts share one features
 * array, as rocprof's do) and is stored in the tool's list; the completion
 * handler reads the context's data under the tool's lock, writes a line
 * and closes it; OnUnloadTool reads, the same way, every context whose
 * handler has not run yet. Timestamps are on (OnLoadToolProp), as rocprof's
 * rpl_run.sh sets them, so each dispatch has a record whose `complete` must
 * be set before the data is read.
 *
 * Any failed call ends the process as rocprof's check_status does:
 * "ERROR: <rocprofiler_error_string>" on stderr, then abort().
 *
 * Lines go to $ROCP_TOOL_OUT, "key=value" words, read by
 * tests/tool_exit.rs. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rocprofiler.h"

static FILE* out;
/* Recursive, as rocprof's: a handler may run inside a call made under it. */
static pthread_mutex_t lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
/* All contexts write their values here (rocprof's tool shares its array). */
static rocprofiler_feature_t features[1];

typedef struct entry {
  struct entry* next;
  unsigned index;
  atomic_bool valid; /* the dispatch callback has filled the entry */
  int active;        /* its data has not been read yet */
  rocprofiler_group_t group;
  rocprofiler_dispatch_record_t* record;
  char* kernel;
} entry_t;

static entry_t* entries;
static unsigned dispatches, collected, at_unload;

static void fatal_status(hsa_status_t st) {
  if (st == HSA_STATUS_SUCCESS) return;
  const char* msg = "?";
  rocprofiler_error_string(&msg);
  fprintf(stderr, "ERROR: %s\n", msg);
  fflush(stderr);
  abort();
}

static void fatal(const char* msg) {
  fprintf(stderr, "rocp_exit_tool: %s\n", msg);
  fflush(stderr);
  abort();
}

/* Reads one context's data, writes its line, closes it. False when the
 * dispatch's record is not complete yet (rocprof's dump_context_entry). */
static int dump(entry_t* e, const char* where) {
  while (!atomic_load(&e->valid)) sched_yield();
  if (e->record && e->record->complete == 0) return 0;
  fatal_status(rocprofiler_group_get_data(&e->group));
  fatal_status(rocprofiler_get_metrics(e->group.context));
  const rocprofiler_data_t* d = &features[0].data;
  if (d->kind != ROCPROFILER_DATA_KIND_INT64 || d->result_int64 == 0) fatal("SQ_WAVES is not a positive INT64");
  fprintf(out, "collected=%u where=%s kernel=%s waves=%lu\n", e->index, where, e->kernel,
          (unsigned long)d->result_int64);
  fflush(out);
  free(e->record);
  e->record = NULL;
  fatal_status(rocprofiler_close(e->group.context));
  collected++;
  return 1;
}

static void unlink_entry(entry_t* e) {
  for (entry_t** p = &entries; *p; p = &(*p)->next) {
    if (*p == e) {
      *p = e->next;
      break;
    }
  }
  free(e->kernel);
  free(e);
}

static bool handler(rocprofiler_group_t group, void* arg) {
  (void)group;
  entry_t* e = (entry_t*)arg;
  pthread_mutex_lock(&lock);
  if (e->active) {
    if (!dump(e, "handler")) fatal("tool error: context is not complete");
    e->active = 0;
  }
  unlink_entry(e);
  pthread_mutex_unlock(&lock);
  return false;
}

static hsa_status_t dispatch_cb(const rocprofiler_callback_data_t* d, void* user, rocprofiler_group_t* group) {
  (void)user;
  entry_t* e = calloc(1, sizeof *e);
  pthread_mutex_lock(&lock);
  e->index = dispatches++;
  e->next = entries;
  entries = e;
  pthread_mutex_unlock(&lock);
  rocprofiler_properties_t props;
  memset(&props, 0, sizeof props);
  props.handler = handler;
  props.handler_arg = e;
  rocprofiler_t* ctx = NULL;
  fatal_status(rocprofiler_open(d->agent, features, 1, &ctx, 0, &props));
  fatal_status(rocprofiler_get_group(ctx, 0, group));
  e->group = *group;
  e->record = (rocprofiler_dispatch_record_t*)d->record;
  e->kernel = strdup(d->kernel_name ? d->kernel_name : "NULL");
  /* No space in a word of the line. */
  for (char* c = e->kernel; *c; c++)
    if (*c == ' ') *c = '_';
  e->active = 1;
  atomic_store(&e->valid, true);
  return HSA_STATUS_SUCCESS;
}

void OnLoadToolProp(rocprofiler_settings_t* settings) {
  settings->timestamp_on = 1;
  const char* path = getenv("ROCP_TOOL_OUT");
  out = path ? fopen(path, "w") : stderr;
  if (!out) out = stderr;
  features[0].kind = ROCPROFILER_FEATURE_KIND_METRIC;
  features[0].name = "SQ_WAVES";
  rocprofiler_queue_callbacks_t cbs = {dispatch_cb, NULL, NULL};
  fatal_status(rocprofiler_set_queue_callbacks(cbs, NULL));
  fprintf(out, "load\n");
  fflush(out);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec / 1e9;
}

void OnUnloadTool(void) {
  /* Outside the tool's lock, as rocprof's: a dispatch callback may be
   * waiting for that lock while cltap holds its hook for the call. */
  rocprofiler_remove_queue_callbacks();
  pthread_mutex_lock(&lock);
  /* rocprof's dump_context_array(NULL): every context not read yet, waiting
   * (yielding) for the records still incomplete; bounded here, so that a
   * record never completed fails the test rather than hangs it. */
  const double deadline = now() + 20;
  int done = 0;
  while (!done) {
    done = 1;
    for (entry_t* e = entries; e; e = e->next) {
      if (!e->active) continue;
      if (dump(e, "unload")) {
        e->active = 0;
        at_unload++;
      } else {
        done = 0;
      }
    }
    if (!done) {
      if (now() > deadline) fatal("a dispatch record was never completed");
      sched_yield();
    }
  }
  fprintf(out, "unload dispatches=%u collected=%u at_unload=%u\n", dispatches, collected, at_unload);
  fflush(out);
  pthread_mutex_unlock(&lock);
}
