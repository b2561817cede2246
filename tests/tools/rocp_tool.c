/* A rocprofiler v1 tool, built against include/rocprofiler/rocprofiler.h
 * (ROCm 5.x's layout) and loaded with ROCP_TOOL_LIB, as rocprof's own tool
 * is: OnLoadTool registers a dispatch callback; each dispatch opens a
 * context for SQ_WAVES and GPUBusy and returns its group; the handler
 * reads the data, writes one line per dispatch and closes the context.
 * The first dispatch also walks the info API and the error paths.
 *
 * Lines go to $ROCP_TOOL_OUT, "key=value" words, read by
 * tests/rocprofiler_v1.rs. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocprofiler.h"

static FILE* out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned dispatches, handled;

#define LINE(...)                  \
  do {                             \
    pthread_mutex_lock(&lock);     \
    fprintf(out, __VA_ARGS__);     \
    fflush(out);                   \
    pthread_mutex_unlock(&lock);   \
  } while (0)

/* One failed call: its status, errno, and message (spaces kept; the line
 * ends with it). */
static void failure(const char* what, hsa_status_t st) {
  const char* msg = "?";
  rocprofiler_error_string(&msg);
  LINE("%s status=%#x errno=%#x msg=%s\n", what, (unsigned)st, (unsigned)rocprofiler_errno(), msg);
}

/* What the tool keeps for one dispatch until its handler ran. */
typedef struct {
  unsigned index;
  char* kernel;
  uint64_t queue_index;
  rocprofiler_feature_t* features;
  const rocprofiler_dispatch_record_t* record;
} entry_t;

static bool handler(rocprofiler_group_t group, void* arg) {
  entry_t* e = (entry_t*)arg;
  hsa_status_t st = rocprofiler_group_get_data(&group);
  if (st != HSA_STATUS_SUCCESS) failure("handler_get_data", st);
  st = rocprofiler_get_metrics(group.context);
  if (st != HSA_STATUS_SUCCESS) failure("handler_get_metrics", st);
  const rocprofiler_data_t* waves = &e->features[0].data;
  const rocprofiler_data_t* busy = &e->features[1].data;
  int same = group.feature_count == 2 && group.features[0] == &e->features[0] && group.features[1] == &e->features[1];
  const rocprofiler_dispatch_record_t* r = e->record;
  /* dispatch <= begin <= end <= complete, as v1 fills the record. */
  int times = r != NULL && r->dispatch > 0 && r->dispatch <= r->begin && r->begin < r->end && r->end <= r->complete;
  LINE("dispatch=%u kernel=%s queue_index=%lu waves_kind=%d waves=%lu busy_kind=%d busy=%.17g group_features=%d record=%d times=%d\n",
       e->index, e->kernel, (unsigned long)e->queue_index, (int)waves->kind, (unsigned long)waves->result_int64,
       (int)busy->kind, busy->result_double, same, r != NULL, times);
  free((void*)r);
  st = rocprofiler_close(group.context);
  uint32_t n = 0;
  hsa_status_t after = rocprofiler_group_count(group.context, &n);
  LINE("closed=%u close=%#x after=%#x\n", e->index, (unsigned)st, (unsigned)after);
  free(e->features);
  free(e->kernel);
  free(e);
  pthread_mutex_lock(&lock);
  handled++;
  pthread_mutex_unlock(&lock);
  return false;
}

/* What the info walk saw. */
typedef struct {
  unsigned count;
} walk_t;

static hsa_status_t info_cb(const rocprofiler_info_data_t info, void* data) {
  walk_t* w = (walk_t*)data;
  w->count++;
  if (info.kind != ROCPROFILER_INFO_KIND_METRIC) return HSA_STATUS_ERROR;
  const char* n = info.metric.name;
  if (strcmp(n, "SQ_WAVES") == 0 || strcmp(n, "GPUBusy") == 0 || strcmp(n, "TCC_HIT") == 0)
    LINE("info=%s agent_index=%u block=%s instances=%u counters=%u expr=%s\n", n, info.agent_index,
         info.metric.block_name ? info.metric.block_name : "NULL", info.metric.instances, info.metric.block_counters,
         info.metric.expr ? info.metric.expr : "NULL");
  return HSA_STATUS_SUCCESS;
}

static rocprofiler_feature_t metric(const char* name) {
  rocprofiler_feature_t f;
  memset(&f, 0, sizeof f);
  f.kind = ROCPROFILER_FEATURE_KIND_METRIC;
  f.name = name;
  return f;
}

/* Once, with the runtime up: the info API and what cltap refuses. */
static void first(hsa_agent_t agent) {
  uint32_t count = 0;
  hsa_status_t st = rocprofiler_get_info(&agent, ROCPROFILER_INFO_KIND_METRIC_COUNT, &count);
  walk_t w = {0};
  hsa_status_t it = rocprofiler_iterate_info(NULL, ROCPROFILER_INFO_KIND_METRIC, info_cb, &w);
  uint32_t traces = 99;
  rocprofiler_get_info(&agent, ROCPROFILER_INFO_KIND_TRACE_COUNT, &traces);
  LINE("metrics=%u status=%#x walked=%u walk_status=%#x traces=%u\n", count, (unsigned)st, w.count, (unsigned)it, traces);

  /* As 5.2.3: get_info answers the counts only; query_info is not implemented. */
  rocprofiler_info_data_t q;
  memset(&q, 0, sizeof q);
  q.metric.name = "GPUBusy";
  failure("metric_info", rocprofiler_get_info(&agent, ROCPROFILER_INFO_KIND_METRIC, &q));
  failure("null_agent_info", rocprofiler_get_info(NULL, ROCPROFILER_INFO_KIND_METRIC_COUNT, &count));
  rocprofiler_info_query_t query;
  memset(&query, 0, sizeof query);
  failure("query_info", rocprofiler_query_info(&agent, query, info_cb, &w));

  rocprofiler_feature_t f[2] = {metric("SQ_WAVES"), metric("SQ_WAVEZ")};
  rocprofiler_t* ctx = NULL;
  rocprofiler_properties_t props;
  memset(&props, 0, sizeof props);
  failure("unknown_open", rocprofiler_open(agent, f, 2, &ctx, 0, &props));
  f[1] = metric("SQ_INSTS_VALU");
  f[1].kind = ROCPROFILER_FEATURE_KIND_TRACE;
  failure("trace_open", rocprofiler_open(agent, f, 2, &ctx, 0, &props));
  failure("standalone_open", rocprofiler_open(agent, f, 1, &ctx, ROCPROFILER_MODE_STANDALONE | ROCPROFILER_MODE_CREATEQUEUE, &props));
  /* As 5.2.3: a mode without STANDALONE is invalid, and a context over the
   * counters' limit (nine SQ counters, eight SQ slots) is refused. */
  f[1] = metric("GPUBusy");
  failure("singlegroup_open", rocprofiler_open(agent, f, 2, &ctx, ROCPROFILER_MODE_SINGLEGROUP, &props));
  static const char* nine[] = {"SQ_WAVES",      "SQ_INSTS_VALU", "SQ_INSTS_VMEM_WR", "SQ_INSTS_VMEM_RD", "SQ_INSTS_SALU",
                               "SQ_INSTS_SMEM", "SQ_INSTS_FLAT", "SQ_INSTS_LDS",     "SQ_INSTS_GDS"};
  rocprofiler_feature_t many[9];
  for (int i = 0; i < 9; i++) many[i] = metric(nine[i]);
  failure("over_limit_open", rocprofiler_open(agent, many, 9, &ctx, 0, &props));

  /* A good context, sampled standalone: refused, never faked. */
  st = rocprofiler_open(agent, f, 1, &ctx, 0, &props);
  LINE("open status=%#x\n", (unsigned)st);
  failure("start", rocprofiler_start(ctx, 0));
  rocprofiler_group_t g;
  rocprofiler_get_group(ctx, 0, &g);
  failure("group_read", rocprofiler_group_read(&g));
  failure("get_data", rocprofiler_get_data(ctx, 0));
  failure("bad_group", rocprofiler_get_group(ctx, 7, &g));
  LINE("uninit kind=%d\n", (int)f[0].data.kind);
  st = rocprofiler_close(ctx);
  LINE("close status=%#x\n", (unsigned)st);
  failure("close_again", rocprofiler_close(ctx));
}

static hsa_status_t dispatch_cb(const rocprofiler_callback_data_t* d, void* user, rocprofiler_group_t* group) {
  (void)user;
  pthread_mutex_lock(&lock);
  unsigned index = dispatches++;
  pthread_mutex_unlock(&lock);
  if (index == 0) first(d->agent);

  rocprofiler_feature_t* f = calloc(2, sizeof *f);
  f[0] = metric("SQ_WAVES");
  f[1] = metric("GPUBusy");
  entry_t* e = calloc(1, sizeof *e);
  e->index = index;
  e->kernel = strdup(d->kernel_name ? d->kernel_name : "NULL");
  e->queue_index = d->queue_index;
  e->features = f;
  e->record = d->record;
  rocprofiler_properties_t props;
  memset(&props, 0, sizeof props);
  props.handler = handler;
  props.handler_arg = e;
  rocprofiler_t* ctx = NULL;
  hsa_status_t st = rocprofiler_open(d->agent, f, 2, &ctx, 0, &props);
  if (st != HSA_STATUS_SUCCESS) {
    failure("dispatch_open", st);
    free((void*)e->record); /* the record is the tool's also when it declines */
    free(e->kernel);
    free(e);
    free(f);
    return st;
  }
  uint32_t groups = 0;
  rocprofiler_group_count(ctx, &groups);
  LINE("callback=%u groups=%u packet_kernel_object_matches=%d\n", index, groups, d->packet->kernel_object == d->kernel_object);
  return rocprofiler_get_group(ctx, 0, group);
}

void OnLoadTool(void) {
  const char* path = getenv("ROCP_TOOL_OUT");
  out = path ? fopen(path, "w") : stderr;
  if (!out) out = stderr;
  LINE("load version=%u.%u header=%d.%d\n", rocprofiler_version_major(), rocprofiler_version_minor(), ROCPROFILER_VERSION_MAJOR, ROCPROFILER_VERSION_MINOR);
  /* Before the runtime has loaded cltap: a clear error. */
  hsa_agent_t none = {1};
  uint32_t n = 0;
  failure("early", rocprofiler_get_info(&none, ROCPROFILER_INFO_KIND_METRIC_COUNT, &n));
  rocprofiler_queue_callbacks_t cbs = {dispatch_cb, NULL, NULL};
  hsa_status_t st = rocprofiler_set_queue_callbacks(cbs, NULL);
  LINE("registered status=%#x\n", (unsigned)st);
}

void OnUnloadTool(void) {
  rocprofiler_remove_queue_callbacks();
  LINE("unload dispatches=%u handled=%u\n", dispatches, handled);
  if (out != stderr) fclose(out);
}
