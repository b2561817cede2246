/* A rocprofiler v1 tool that opens one context at the first dispatch and
 * returns its group for every dispatch after it; its completion handler
 * reads the group's data. The handler runs on the runtime's signal thread
 * while later dispatches of the same group are still counting: get_data
 * must give what was collected, never wait for them (their values come
 * through that same thread). tests/rocprofiler_v1.rs runs it on Debian's
 * ROCr over the emulated gfx906 with `programs shared`. */
#include <stdio.h>
#include <string.h>

#include "rocprofiler.h"

static rocprofiler_t* ctx;
static rocprofiler_feature_t features[1];
static int handled;

static bool handler(rocprofiler_group_t group, void* arg) {
  (void)arg;
  hsa_status_t st = rocprofiler_group_get_data(&group);
  fprintf(stderr, "reuse: handler %d get_data=%#x waves=%lu\n", handled++, st, (unsigned long)features[0].data.result_int64);
  return false;
}

static hsa_status_t dispatch(const rocprofiler_callback_data_t* d, void* user, rocprofiler_group_t* group) {
  (void)user;
  if (!ctx) {
    memset(features, 0, sizeof features);
    features[0].kind = ROCPROFILER_FEATURE_KIND_METRIC;
    features[0].name = "SQ_WAVES";
    rocprofiler_properties_t p;
    memset(&p, 0, sizeof p);
    p.handler = handler;
    hsa_status_t st = rocprofiler_open(d->agent, features, 1, &ctx, 0, &p);
    if (st != HSA_STATUS_SUCCESS) return st;
  }
  return rocprofiler_get_group(ctx, 0, group);
}

void OnLoadTool(void) {
  rocprofiler_queue_callbacks_t cb = {dispatch, NULL, NULL};
  rocprofiler_set_queue_callbacks(cb, NULL);
}
