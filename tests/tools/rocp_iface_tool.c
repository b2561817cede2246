/* A rocprofiler v1 tool for the rest of 5.2.3's interface, built against
 * include/rocprofiler/rocprofiler.h and loaded with ROCP_TOOL_LIB
 * (tests/rocprofiler_v1.rs):
 * - OnLoadToolProp writes the settings offered, turns hsa_intercepting on
 *   (opt_mode too with ROCP_IFACE_OPT=1), and sets all six HSA callbacks;
 * - each dispatch callback writes what it got (kernel_code's
 *   compute_pgm_rsrc1, the signal, the queue id…), fetches an entry of a
 *   context pool for SQ_WAVES (opened at the first dispatch) and numbers
 *   its payload;
 * - the pool handler writes each entry's payload number and SQ_WAVES;
 * - OnUnloadTool flushes and closes the pool and writes the HSA callbacks'
 *   counts, and the functions 5.2.3 declares without defining, and
 *   rocprofiler_get_time;
 * - the queue create and destroy callbacks write the queue.
 * Lines go to $ROCP_TOOL_OUT, "key=value" words. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rocprofiler.h"

static FILE* out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static rocprofiler_pool_t* pool;
static rocprofiler_feature_t features[1];
static unsigned fetched;
static unsigned counts[6];
static unsigned code_alloc, freed, named_symbols;

#define LINE(...)                \
  do {                           \
    pthread_mutex_lock(&lock);   \
    fprintf(out, __VA_ARGS__);   \
    fflush(out);                 \
    pthread_mutex_unlock(&lock); \
  } while (0)

static void failure(const char* what, hsa_status_t st) {
  const char* msg = "?";
  rocprofiler_error_string(&msg);
  LINE("%s status=%#x msg=%s\n", what, (unsigned)st, msg);
}

static hsa_status_t hsa_cb(rocprofiler_hsa_cb_id_t id, const rocprofiler_hsa_callback_data_t* d, void* arg) {
  if (arg != (void*)14) LINE("bad_arg id=%d\n", (int)id);
  pthread_mutex_lock(&lock);
  counts[id]++;
  pthread_mutex_unlock(&lock);
  switch (id) {
    case ROCPROFILER_HSA_CB_ID_KSYMBOL:
      if (!d->ksymbol.unload) {
        named_symbols++;
        LINE("ksymbol object=%#lx name=%s length=%u\n", (unsigned long)d->ksymbol.object, d->ksymbol.name,
             d->ksymbol.name_length);
      } else {
        LINE("ksymbol_unload object=%#lx null_name=%d\n", (unsigned long)d->ksymbol.object, d->ksymbol.name == NULL);
      }
      break;
    case ROCPROFILER_HSA_CB_ID_SUBMIT:
      if (d->submit.kernel_name)
        LINE("submit kernel=%s queue=%p device_id=%u\n", d->submit.kernel_name, (void*)d->submit.queue,
             d->submit.device_id);
      break;
    case ROCPROFILER_HSA_CB_ID_ALLOCATE:
      if (d->allocate.is_code) code_alloc++;
      if (d->allocate.size == 0) freed++;
      break;
    case ROCPROFILER_HSA_CB_ID_CODEOBJ:
      LINE("codeobj unload=%d load_size=%lu storage=%u\n", d->codeobj.unload, (unsigned long)d->codeobj.load_size,
           d->codeobj.storage_type);
      break;
    default:
      break;
  }
  return HSA_STATUS_SUCCESS;
}

static bool pool_handler(const rocprofiler_pool_entry_t* e, void* arg) {
  (void)arg;
  unsigned n = *(unsigned*)e->payload;
  /* As rocprof's own tool: the entry's values reach the features only
   * through get_data (5.2.3 writes nothing before calling the handler). */
  rocprofiler_group_t group;
  hsa_status_t st = rocprofiler_get_group(e->context, 0, &group);
  if (st == HSA_STATUS_SUCCESS) st = rocprofiler_group_get_data(&group);
  if (st != HSA_STATUS_SUCCESS) LINE("pool_get_data status=0x%x\n", (unsigned)st);
  LINE("delivered=%u waves_kind=%d waves=%lu aligned=%d\n", n, (int)features[0].data.kind,
       (unsigned long)features[0].data.result_int64, ((uintptr_t)e->payload & 63) == 0);
  return false;
}

static hsa_status_t dispatch(const rocprofiler_callback_data_t* d, void* user, rocprofiler_group_t* group) {
  (void)user;
  hsa_status_t st;
  if (pool == NULL) {
    /* The runtime is up here: the record's dispatch time (a profiling
     * timestamp) on CLOCK_MONOTONIC, and that clock read afterwards. */
    uint64_t v = 0, err = 0;
    hsa_status_t t = rocprofiler_get_time(ROCPROFILER_TIME_ID_CLOCK_MONOTONIC, d->record ? d->record->dispatch : 0, &v,
                                          &err);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    LINE("get_time status=%#x value=%lu error=%lu after=%lu\n", (unsigned)t, (unsigned long)v, (unsigned long)err,
         (unsigned long)now.tv_sec * 1000000000ul + (unsigned long)now.tv_nsec);
    failure("get_time_bad", rocprofiler_get_time((rocprofiler_time_id_t)5, 0, &v, NULL));
    features[0].kind = ROCPROFILER_FEATURE_KIND_METRIC;
    features[0].name = "SQ_WAVES";
    rocprofiler_pool_properties_t p = {4, 24, pool_handler, NULL};
    st = rocprofiler_pool_open(d->agent, features, 1, &pool, 0, &p);
    if (st != HSA_STATUS_SUCCESS) {
      failure("pool_open", st);
      return st;
    }
  }
  unsigned rsrc1 = d->kernel_code ? *(const unsigned*)((const char*)d->kernel_code + 48) : 0;
  LINE("callback=%u kernel=%s object=%#lx code_null=%d rsrc1=%u signal=%#lx queue_id=%u tid=%u record_null=%d\n",
       fetched, d->kernel_name ? d->kernel_name : "NULL", (unsigned long)d->kernel_object, d->kernel_code == NULL,
       rsrc1, (unsigned long)d->completion_signal.handle, d->queue_id, d->thread_id, d->record == NULL);
  rocprofiler_pool_entry_t e;
  st = rocprofiler_pool_fetch(pool, &e);
  if (st != HSA_STATUS_SUCCESS) {
    failure("pool_fetch", st);
    return st;
  }
  *(unsigned*)e.payload = fetched++;
  return rocprofiler_get_group(e.context, 0, group);
}

static hsa_status_t queue_created(hsa_queue_t* q, void* data) {
  LINE("queue_create queue=%p data=%p\n", (void*)q, data);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t queue_destroyed(hsa_queue_t* q, void* data) {
  LINE("queue_destroy queue=%p data=%p\n", (void*)q, data);
  return HSA_STATUS_SUCCESS;
}

void OnLoadToolProp(rocprofiler_settings_t* s) {
  const char* path = getenv("ROCP_TOOL_OUT");
  out = path ? fopen(path, "w") : stderr;
  LINE("offered intercept_mode=%u code_obj_tracking=%u memcopy_tracking=%u trace_size=%u trace_local=%u "
       "timeout=%llu timestamp_on=%u hsa_intercepting=%u k_concurrent=%u opt_mode=%u obj_dumping=%u\n",
       s->intercept_mode, s->code_obj_tracking, s->memcopy_tracking, s->trace_size, s->trace_local,
       (unsigned long long)s->timeout, s->timestamp_on, s->hsa_intercepting, s->k_concurrent, s->opt_mode,
       s->obj_dumping);
  rocprofiler_hsa_callbacks_t cbs = {hsa_cb, hsa_cb, hsa_cb, hsa_cb, hsa_cb, hsa_cb};
  hsa_status_t st = rocprofiler_set_hsa_callbacks(cbs, (void*)14);
  LINE("hsa_callbacks status=%#x\n", (unsigned)st);
  s->hsa_intercepting = 1;
  const char* opt = getenv("ROCP_IFACE_OPT");
  if (opt && strcmp(opt, "1") == 0) s->opt_mode = 1;
  rocprofiler_queue_callbacks_t qc = {dispatch, queue_created, queue_destroyed};
  rocprofiler_set_queue_callbacks(qc, (void*)7);
}

void OnUnloadTool(void) {
  if (pool) {
    LINE("flush status=%#x\n", (unsigned)rocprofiler_pool_flush(pool));
    LINE("close status=%#x\n", (unsigned)rocprofiler_pool_close(pool));
    hsa_status_t st = rocprofiler_pool_flush(pool);
    failure("closed_pool", st);
  }
  LINE("counts allocate=%u device=%u memcopy=%u submit=%u ksymbol=%u codeobj=%u code_alloc=%u freed=%u named=%u\n",
       counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], code_alloc, freed, named_symbols);
  rocprofiler_feature_t f = {0};
  failure("add_feature", rocprofiler_add_feature(&f, NULL));
  failure("pool_release", rocprofiler_pool_release(NULL));
}
