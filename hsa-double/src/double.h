/* cltap HSA test double -- internal declarations.
 *
 * This library is a TEST DOUBLE of ROCr's libhsa-runtime64.so.1, written for
 * cltap's tests on machines without an AMD GPU. It follows the ABI of Debian
 * 12's libhsa-runtime-dev 5.2.3 headers. It runs no GPU code: kernel
 * dispatches are recorded and, where a test registered one, a host function
 * runs in their place.
 */
#ifndef CLTAP_HSA_DOUBLE_INTERNAL_H
#define CLTAP_HSA_DOUBLE_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hsa.h"
#include "hsa_ext_amd.h"
#include "hsa_ext_image.h"
#include "hsa_ext_finalize.h"
#include "amd_hsa_queue.h"
#include "amd_hsa_signal.h"
#include "hsa_api_trace_c.h"
#include "cltap_hsa_double.h"

#define DBL_EXPORT __attribute__((visibility("default")))
#define DBL_HIDDEN __attribute__((visibility("hidden")))

#define DBL_VENDOR "cltap HSA test double"

/* ---- the API tables (api.c) ---- */
extern HsaApiTable dbl_api_root DBL_HIDDEN;
extern CoreApiTable dbl_core_table DBL_HIDDEN;
extern AmdExtTable dbl_amd_table DBL_HIDDEN;
extern FinalizerExtTable dbl_fin_table DBL_HIDDEN;
extern ImageExtTable dbl_img_table DBL_HIDDEN;
/* Puts every entry back to the double's own implementation. */
void dbl_tables_reset(void) DBL_HIDDEN;
/* Every default implementation: dbl_<api name>. */
#define DBL_DECL(ret, name, params, args, stub) ret dbl_##name params DBL_HIDDEN;
#define DBL_CORE DBL_DECL
#define DBL_AMD DBL_DECL
#define DBL_FIN DBL_DECL
#define DBL_IMG DBL_DECL
#include "hsa_double_api_list.h"
#undef DBL_CORE
#undef DBL_AMD
#undef DBL_FIN
#undef DBL_IMG
#undef DBL_DECL
hsa_status_t dbl_unimplemented(const char* name) DBL_HIDDEN;

/* ---- runtime (runtime.c) ---- */
bool dbl_is_open(void) DBL_HIDDEN;
#define DBL_CHECK_OPEN()                                  \
  do {                                                    \
    if (!dbl_is_open()) return HSA_STATUS_ERROR_NOT_INITIALIZED; \
  } while (0)
/* Nanoseconds of CLOCK_MONOTONIC: the system and agent timestamp (1 GHz). */
uint64_t dbl_now(void) DBL_HIDDEN;
void dbl_log(const char* fmt, ...) DBL_HIDDEN __attribute__((format(printf, 1, 2)));

/* ---- agents and memory pools (agents.c) ---- */
typedef struct dbl_agent dbl_agent;
typedef struct dbl_pool {
  uint64_t magic;
  dbl_agent* owner;
  hsa_amd_segment_t segment;
  uint32_t global_flags;
  size_t size;
  bool alloc_allowed;
  size_t granule;
  size_t alignment;
  bool accessible_by_all;
} dbl_pool;

#define DBL_MAX_POOLS 4
struct dbl_agent {
  uint64_t magic;
  hsa_device_type_t device;
  const char* name;
  const char* product_name;
  uint32_t node;
  uint32_t compute_units;
  uint32_t max_clock_mhz;
  uint32_t chip_id;
  uint32_t cache_sizes[4];
  int pool_count;
  dbl_pool pools[DBL_MAX_POOLS];
};
extern dbl_agent dbl_cpu_agent DBL_HIDDEN;
extern dbl_agent dbl_gpu_agent DBL_HIDDEN;
dbl_agent* dbl_agent_get(hsa_agent_t agent) DBL_HIDDEN;
dbl_pool* dbl_pool_get(uint64_t handle) DBL_HIDDEN;
static inline hsa_agent_t dbl_agent_handle(dbl_agent* a) {
  hsa_agent_t h = {(uint64_t)(uintptr_t)a};
  return h;
}

/* ---- signals (signals.c) ---- */
typedef struct dbl_queue dbl_queue;
typedef struct dbl_signal {
  amd_signal_t amd; /* first: the handle points at an amd_signal_t, as in ROCr */
  uint64_t magic;
  dbl_queue* intercept_queue; /* set when this is an intercept queue's doorbell */
} dbl_signal;
dbl_signal* dbl_signal_get(hsa_signal_t s) DBL_HIDDEN;
dbl_signal* dbl_signal_new(int64_t value) DBL_HIDDEN;
void dbl_signal_free(dbl_signal* s) DBL_HIDDEN;
int64_t dbl_signal_load(dbl_signal* s) DBL_HIDDEN;
void dbl_signal_store_raw(dbl_signal* s, int64_t v) DBL_HIDDEN;
void dbl_signal_add_raw(dbl_signal* s, int64_t v) DBL_HIDDEN;
bool dbl_condition_holds(hsa_signal_condition_t c, int64_t value, int64_t compare) DBL_HIDDEN;
/* Waits until `s` satisfies the condition, the deadline (dbl_now() domain,
 * UINT64_MAX = none) passes, or *stop becomes true (stop may be NULL).
 * Returns the last value seen. */
int64_t dbl_signal_wait(dbl_signal* s, hsa_signal_condition_t c, int64_t compare, uint64_t deadline,
                        const volatile int* stop) DBL_HIDDEN;
/* All signal changes wake every waiter through this one lock and condition. */
extern pthread_mutex_t dbl_sig_mutex DBL_HIDDEN;
extern pthread_cond_t dbl_sig_cond DBL_HIDDEN;
void dbl_sig_notify(void) DBL_HIDDEN;
/* Waits on dbl_sig_cond (dbl_sig_mutex held) until notified or `ns` passed. */
void dbl_sig_timedwait_ns(uint64_t ns) DBL_HIDDEN;
void dbl_async_shutdown(void) DBL_HIDDEN;
/* Runs fn(arg) on the async handler thread. */
hsa_status_t dbl_async_call(void (*fn)(void*), void* arg) DBL_HIDDEN;

/* ---- queues (queues.c) ---- */
#define DBL_MAX_INTERCEPTORS 16
typedef struct dbl_interceptor {
  hsa_amd_queue_intercept_handler fn;
  void* data;
} dbl_interceptor;

struct dbl_queue {
  amd_queue_t amd; /* first: hsa_queue_t* == amd_queue_t*, as in ROCr */
  uint64_t magic;
  dbl_agent* agent;
  void (*callback)(hsa_status_t, hsa_queue_t*, void*);
  void* callback_data;
  void* ring;
  dbl_signal* doorbell;
  bool own_doorbell;
  /* packet processor */
  bool has_processor;
  pthread_t thread;
  volatile int stop;
  volatile int inactive;
  uint64_t packets_seen;
  uint64_t packets_by_type[8];
  /* intercept queues: the application writes this queue's ring; packets go
   * through the interceptors into `inner`, which the processor runs. */
  dbl_queue* inner;
  pthread_mutex_t intercept_lock;
  int interceptor_count;
  dbl_interceptor interceptors[DBL_MAX_INTERCEPTORS];
  uint64_t next_packet;
  dbl_queue* next_in_list;
  /* The performance counters a PM4 start packet armed on this queue, or
   * NULL (pm4.c). Only the queue's packet processor touches it. */
  struct dbl_pmc_state* pmc;
};
dbl_queue* dbl_queue_get(const hsa_queue_t* q) DBL_HIDDEN;
/* A store to an intercept queue's doorbell. */
void dbl_intercept_doorbell(dbl_queue* q) DBL_HIDDEN;
void dbl_queues_shutdown(void) DBL_HIDDEN;

/* ---- the dispatch model (dispatch_model.c) ----
 * What the double pretends a kernel dispatch did: its shape, from the
 * packet alone, and the nominal time it "runs" for. */
typedef struct dbl_dispatch_shape {
  uint64_t work_items;      /* WI: product of the grid sizes */
  uint64_t workgroups;      /* WG: product over the dimensions of ceil(grid / work-group) */
  uint64_t workgroup_size;  /* WGS: product of the work-group sizes */
  uint64_t waves_per_group; /* ceil(WGS / 64) */
  uint64_t waves;           /* W = WG x waves_per_group */
  uint64_t nominal_ns;      /* T = min(2000 + WI / 16, 1000000) */
  uint32_t group_segment_size;
} dbl_dispatch_shape;
void dbl_dispatch_shape_of(const hsa_kernel_dispatch_packet_t* pkt, dbl_dispatch_shape* out) DBL_HIDDEN;
/* Sleeps until dbl_now() >= deadline (no busy wait). */
void dbl_sleep_until(uint64_t deadline) DBL_HIDDEN;

/* ---- PM4 packets and performance counters (pm4.c) ---- */
/* hsa_amd_vendor_packet_header_t.AmdFormat of a packet that carries a PM4
 * INDIRECT_BUFFER command (ROCr's AMD_AQL_FORMAT_PM4_IB; not in the 5.2.3
 * public header, which only names BARRIER_VALUE = 2). */
#define DBL_AMD_PACKET_TYPE_PM4_IB 1
/* Runs a vendor-specific AQL packet whose AmdFormat is PM4 IB. */
void dbl_pm4_execute(dbl_queue* q, const uint8_t* pkt) DBL_HIDDEN;
/* Adds a dispatch's counter values to what the queue has armed, if any. */
void dbl_pmc_on_dispatch(dbl_queue* q, const dbl_dispatch_shape* shape) DBL_HIDDEN;
void dbl_pmc_queue_free(dbl_queue* q) DBL_HIDDEN;

/* ---- vendor extensions (loader_ext.c, aqlprofile.c) ---- */
/* Whether the extension exists in `version_major`; its highest minor. */
bool dbl_loader_ext_supported(uint16_t version_major, uint16_t* max_minor) DBL_HIDDEN;
/* The size of the table of version 1.minor, 0 if there is none. */
size_t dbl_loader_ext_table_size(uint16_t version_minor) DBL_HIDDEN;
/* Fills the first `length` bytes of the newest table. */
void dbl_loader_ext_fill(void* table, size_t length) DBL_HIDDEN;
bool dbl_aqlprofile_supported(uint16_t version_major, uint16_t* max_minor) DBL_HIDDEN;
size_t dbl_aqlprofile_table_size(uint16_t version_minor) DBL_HIDDEN;
void dbl_aqlprofile_fill(void* table, size_t length) DBL_HIDDEN;

/* ---- memory (memory.c) ---- */
void dbl_memory_shutdown(void) DBL_HIDDEN;
bool dbl_async_copy_profiling(void) DBL_HIDDEN;

/* ---- code objects (executable.c) ---- */
/* The name ("foo.kd") of the kernel whose descriptor is at `kernel_object`,
 * or NULL. */
const char* dbl_kernel_name(uint64_t kernel_object, char* buf, size_t len) DBL_HIDDEN;
void dbl_executables_shutdown(void) DBL_HIDDEN;

/* ---- test hooks (hooks.c) ---- */
void dbl_run_kernel(const hsa_kernel_dispatch_packet_t* pkt) DBL_HIDDEN;

#endif
