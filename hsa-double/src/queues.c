/* cltap HSA test double -- queues, the packet processor, intercept queues
 * and dispatch profiling.
 *
 * A queue is an amd_queue_t (hsa_queue_t first; write_dispatch_id and
 * read_dispatch_id are the indices) followed by the double's own state. Each
 * kernel-dispatch queue has a packet processor thread, woken by stores to the
 * doorbell signal. It takes packets in order: waits for the header type to
 * leave INVALID, runs the packet, stamps the start and end times on the
 * completion signal when profiling is on, sets the header back to INVALID,
 * advances the read index and decrements the completion signal. Running a
 * packet: a dispatch is recorded, the host function a test registered for
 * its kernel runs, the counters armed on the queue count it, and it lasts
 * its nominal duration (dispatch_model.c: the processor sleeps until start +
 * T); barriers wait for their dependencies; a PM4 packet runs the double's
 * profiling commands (pm4.c).
 *
 * An intercept queue (hsa_amd_queue_intercept_create) is what the
 * application sees: its own ring and doorbell. A store to that doorbell runs,
 * on the storing thread, each new packet through the registered interceptors
 * (the last registered first; each one's writer feeds the one registered
 * before it), and what the first interceptor writes goes into an inner queue
 * that the packet processor runs -- as ROCr's InterceptQueue. */
#include "double.h"

#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#define QUEUE_MAGIC 0x434c544151554555ull /* "CLTAPQUE" */
#define PKT_BYTES 64
#define WAIT_SLICE_NS 20000000ull

static pthread_mutex_t queue_list_lock = PTHREAD_MUTEX_INITIALIZER;
static dbl_queue* queue_list;
static uint32_t next_queue_id;
static uint64_t dispatch_count;

static const uint16_t INVALID_HEADER = HSA_PACKET_TYPE_INVALID << HSA_PACKET_HEADER_TYPE;

static inline uint16_t* header_at(dbl_queue* q, uint64_t index) {
  return (uint16_t*)((char*)q->ring + (index & (q->amd.hsa_queue.size - 1)) * PKT_BYTES);
}

static inline unsigned packet_type(uint16_t header) {
  return (header >> HSA_PACKET_HEADER_TYPE) & ((1u << HSA_PACKET_HEADER_WIDTH_TYPE) - 1);
}

dbl_queue* dbl_queue_get(const hsa_queue_t* hq) {
  if (!hq) return NULL;
  dbl_queue* found = NULL;
  pthread_mutex_lock(&queue_list_lock);
  for (dbl_queue* q = queue_list; q; q = q->next_in_list)
    if (&q->amd.hsa_queue == hq) {
      found = q;
      break;
    }
  pthread_mutex_unlock(&queue_list_lock);
  return found;
}

/* ---- indices: valid for any hsa_queue_t the double made ---- */

static inline amd_queue_t* amdq(const hsa_queue_t* q) { return (amd_queue_t*)q; }

uint64_t dbl_hsa_queue_load_read_index_relaxed(const hsa_queue_t* q) {
  return __atomic_load_n(&amdq(q)->read_dispatch_id, __ATOMIC_RELAXED);
}
uint64_t dbl_hsa_queue_load_read_index_scacquire(const hsa_queue_t* q) {
  return __atomic_load_n(&amdq(q)->read_dispatch_id, __ATOMIC_ACQUIRE);
}
uint64_t dbl_hsa_queue_load_write_index_relaxed(const hsa_queue_t* q) {
  return __atomic_load_n(&amdq(q)->write_dispatch_id, __ATOMIC_RELAXED);
}
uint64_t dbl_hsa_queue_load_write_index_scacquire(const hsa_queue_t* q) {
  return __atomic_load_n(&amdq(q)->write_dispatch_id, __ATOMIC_ACQUIRE);
}
void dbl_hsa_queue_store_write_index_relaxed(const hsa_queue_t* q, uint64_t v) {
  __atomic_store_n(&amdq(q)->write_dispatch_id, v, __ATOMIC_RELAXED);
}
void dbl_hsa_queue_store_write_index_screlease(const hsa_queue_t* q, uint64_t v) {
  __atomic_store_n(&amdq(q)->write_dispatch_id, v, __ATOMIC_RELEASE);
}
void dbl_hsa_queue_store_read_index_relaxed(const hsa_queue_t* q, uint64_t v) {
  __atomic_store_n(&amdq(q)->read_dispatch_id, v, __ATOMIC_RELAXED);
}
void dbl_hsa_queue_store_read_index_screlease(const hsa_queue_t* q, uint64_t v) {
  __atomic_store_n(&amdq(q)->read_dispatch_id, v, __ATOMIC_RELEASE);
}
#define QCAS(order, mo)                                                                           \
  uint64_t dbl_hsa_queue_cas_write_index_##order(const hsa_queue_t* q, uint64_t expected, uint64_t v) { \
    uint64_t e = expected;                                                                        \
    __atomic_compare_exchange_n(&amdq(q)->write_dispatch_id, &e, v, false, mo, __ATOMIC_RELAXED == mo ? __ATOMIC_RELAXED : __ATOMIC_ACQUIRE); \
    return e;                                                                                     \
  }                                                                                               \
  uint64_t dbl_hsa_queue_add_write_index_##order(const hsa_queue_t* q, uint64_t v) {              \
    return __atomic_fetch_add(&amdq(q)->write_dispatch_id, v, mo);                                \
  }
QCAS(relaxed, __ATOMIC_RELAXED)
QCAS(scacquire, __ATOMIC_ACQUIRE)
QCAS(screlease, __ATOMIC_RELEASE)
QCAS(scacq_screl, __ATOMIC_ACQ_REL)

/* ---- the packet processor ---- */

static void complete(dbl_queue* q, const uint8_t* pkt, unsigned type, uint64_t start, uint64_t end) {
  hsa_signal_t sig;
  memcpy(&sig, pkt + 56, sizeof sig); /* completion_signal: offset 56 in every AQL packet */
  dbl_signal* s = dbl_signal_get(sig);
  if (s && type == HSA_PACKET_TYPE_KERNEL_DISPATCH &&
      (q->amd.queue_properties & AMD_QUEUE_PROPERTIES_ENABLE_PROFILING)) {
    s->amd.start_ts = start;
    s->amd.end_ts = end;
  }
  /* Free the slot first, so that a waiter woken by the signal sees it. */
  uint64_t read = q->amd.read_dispatch_id;
  __atomic_store_n(header_at(q, read), INVALID_HEADER, __ATOMIC_RELEASE);
  __atomic_store_n(&q->amd.read_dispatch_id, read + 1, __ATOMIC_RELEASE);
  __atomic_add_fetch(&q->packets_seen, 1, __ATOMIC_RELAXED);
  __atomic_add_fetch(&q->packets_by_type[type & 7], 1, __ATOMIC_RELAXED);
  if (s)
    dbl_signal_add_raw(s, -1);
  else
    dbl_sig_notify(); /* writers waiting for room */
}

static void wait_zero(dbl_queue* q, hsa_signal_t h) {
  dbl_signal* s = dbl_signal_get(h);
  if (s) dbl_signal_wait(s, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, &q->stop);
}

static void barrier_or(dbl_queue* q, const hsa_barrier_or_packet_t* p) {
  dbl_signal* s[5];
  int n = 0;
  for (int i = 0; i < 5; i++)
    if ((s[n] = dbl_signal_get(p->dep_signal[i]))) n++;
  if (n == 0) return;
  pthread_mutex_lock(&dbl_sig_mutex);
  while (!q->stop) {
    bool done = false;
    for (int i = 0; i < n && !done; i++) done = dbl_signal_load(s[i]) == 0;
    if (done) break;
    dbl_sig_timedwait_ns(WAIT_SLICE_NS);
  }
  pthread_mutex_unlock(&dbl_sig_mutex);
}

static void barrier_value(dbl_queue* q, const hsa_amd_barrier_value_packet_t* p) {
  dbl_signal* s = dbl_signal_get(p->signal);
  if (!s) return;
  pthread_mutex_lock(&dbl_sig_mutex);
  while (!q->stop && !dbl_condition_holds((hsa_signal_condition_t)p->cond, dbl_signal_load(s) & p->mask, p->value))
    dbl_sig_timedwait_ns(WAIT_SLICE_NS);
  pthread_mutex_unlock(&dbl_sig_mutex);
}

static void queue_error(dbl_queue* q, hsa_status_t st) {
  q->inactive = 1;
  if (q->callback) q->callback(st, &q->amd.hsa_queue, q->callback_data);
}

/* A kernel dispatch: the host function, the counters, then the rest of
 * its nominal duration. */
static void dispatch(dbl_queue* q, const hsa_kernel_dispatch_packet_t* pkt, uint64_t start) {
  dbl_dispatch_shape shape;
  dbl_dispatch_shape_of(pkt, &shape);
  __atomic_add_fetch(&dispatch_count, 1, __ATOMIC_RELAXED);
  dbl_run_kernel(pkt);
  dbl_pmc_on_dispatch(q, &shape);
  dbl_sleep_until(start + shape.nominal_ns);
}

static void* processor_main(void* arg) {
  dbl_queue* q = arg;
  uint8_t pkt[PKT_BYTES];
  /* Kernels sleep a few microseconds each: without this the default 50 us
   * timer slack would make 100,000 small dispatches take seconds. */
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  for (;;) {
    pthread_mutex_lock(&dbl_sig_mutex);
    uint64_t read = q->amd.read_dispatch_id;
    while (!q->stop) {
      if (!q->inactive && __atomic_load_n(&q->amd.write_dispatch_id, __ATOMIC_ACQUIRE) > read) {
        uint16_t h = __atomic_load_n(header_at(q, read), __ATOMIC_ACQUIRE);
        if (packet_type(h) != HSA_PACKET_TYPE_INVALID) break;
        /* Index reserved but the header is not written yet. */
        dbl_sig_timedwait_ns(1000000);
        continue;
      }
      dbl_sig_timedwait_ns(WAIT_SLICE_NS);
    }
    pthread_mutex_unlock(&dbl_sig_mutex);
    if (q->stop) break;
    uint16_t* slot = header_at(q, read);
    memcpy(pkt, slot, PKT_BYTES);
    unsigned type = packet_type(*(uint16_t*)pkt);
    uint64_t start = dbl_now();
    switch (type) {
      case HSA_PACKET_TYPE_KERNEL_DISPATCH: dispatch(q, (const hsa_kernel_dispatch_packet_t*)pkt, start); break;
      case HSA_PACKET_TYPE_BARRIER_AND: {
        const hsa_barrier_and_packet_t* b = (const void*)pkt;
        for (int i = 0; i < 5 && !q->stop; i++) wait_zero(q, b->dep_signal[i]);
        break;
      }
      case HSA_PACKET_TYPE_BARRIER_OR: barrier_or(q, (const void*)pkt); break;
      case HSA_PACKET_TYPE_VENDOR_SPECIFIC: {
        const hsa_amd_vendor_packet_header_t* v = (const void*)pkt;
        if (v->AmdFormat == HSA_AMD_PACKET_TYPE_BARRIER_VALUE)
          barrier_value(q, (const void*)pkt);
        else if (v->AmdFormat == DBL_AMD_PACKET_TYPE_PM4_IB)
          dbl_pm4_execute(q, pkt);
        /* Anything else is only recorded. */
        break;
      }
      case HSA_PACKET_TYPE_AGENT_DISPATCH:
      default:
        /* A GPU queue does not run agent dispatches. */
        dbl_log("queue %llu: invalid packet type %u at index %llu", (unsigned long long)q->amd.hsa_queue.id, type,
                (unsigned long long)read);
        queue_error(q, HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
        continue;
    }
    if (q->stop) break;
    uint64_t end = dbl_now();
    complete(q, pkt, type, start, end);
  }
  return NULL;
}

/* ---- creation and destruction ---- */

static dbl_queue* queue_alloc(dbl_agent* a, uint32_t size, hsa_queue_type32_t type,
                              void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                              dbl_signal* doorbell) {
  dbl_queue* q = aligned_alloc(64, (sizeof(dbl_queue) + 63) & ~(size_t)63);
  if (!q) return NULL;
  memset(q, 0, sizeof *q);
  size_t bytes = (size_t)size * PKT_BYTES;
  q->ring = aligned_alloc(4096, bytes < 4096 ? 4096 : bytes);
  if (!q->ring) {
    free(q);
    return NULL;
  }
  for (uint32_t i = 0; i < size; i++) ((uint16_t*)((char*)q->ring + (size_t)i * PKT_BYTES))[0] = INVALID_HEADER;
  if (doorbell) {
    q->doorbell = doorbell;
  } else {
    q->doorbell = dbl_signal_new(0);
    q->own_doorbell = true;
    if (!q->doorbell) {
      free(q->ring);
      free(q);
      return NULL;
    }
  }
  q->magic = QUEUE_MAGIC;
  q->agent = a;
  q->callback = callback;
  q->callback_data = data;
  q->amd.hsa_queue.type = type;
  q->amd.hsa_queue.features = HSA_QUEUE_FEATURE_KERNEL_DISPATCH;
  q->amd.hsa_queue.base_address = q->ring;
  q->amd.hsa_queue.doorbell_signal.handle = (uint64_t)(uintptr_t)q->doorbell;
  q->amd.hsa_queue.size = size;
  q->amd.hsa_queue.id = __atomic_fetch_add(&next_queue_id, 1, __ATOMIC_RELAXED);
  q->amd.queue_properties = AMD_QUEUE_PROPERTIES_IS_PTR64;
  q->amd.max_cu_id = a->compute_units - 1;
  q->amd.max_wave_id = 39;
  q->doorbell->amd.queue_ptr = &q->amd;
  pthread_mutex_init(&q->intercept_lock, NULL);
  return q;
}

static void queue_link(dbl_queue* q) {
  pthread_mutex_lock(&queue_list_lock);
  q->next_in_list = queue_list;
  queue_list = q;
  pthread_mutex_unlock(&queue_list_lock);
}

static void queue_unlink(dbl_queue* q) {
  pthread_mutex_lock(&queue_list_lock);
  for (dbl_queue** pp = &queue_list; *pp; pp = &(*pp)->next_in_list)
    if (*pp == q) {
      *pp = q->next_in_list;
      break;
    }
  pthread_mutex_unlock(&queue_list_lock);
}

static void queue_free(dbl_queue* q) {
  if (q->has_processor) {
    pthread_mutex_lock(&dbl_sig_mutex);
    q->stop = 1;
    pthread_cond_broadcast(&dbl_sig_cond);
    pthread_mutex_unlock(&dbl_sig_mutex);
    pthread_join(q->thread, NULL);
  }
  if (q->own_doorbell) dbl_signal_free(q->doorbell);
  dbl_pmc_queue_free(q);
  pthread_mutex_destroy(&q->intercept_lock);
  q->magic = 0;
  free(q->ring);
  free(q);
}

/* The checks of ROCr's hsa_queue_create, in its order: arguments, agent,
 * then the agent's own (a CPU agent has no packet processor: HSA_STATUS_ERROR;
 * a GPU queue larger than the maximum: INVALID_QUEUE_CREATION; a smaller
 * one than the minimum grows to it). */
static hsa_status_t check_create(dbl_agent* a, uint32_t* size, hsa_queue_type32_t type, hsa_queue_t** queue) {
  if (!queue || *size == 0 || (*size & (*size - 1)) != 0 || type > HSA_QUEUE_TYPE_COOPERATIVE)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (a->device != HSA_DEVICE_TYPE_GPU) return HSA_STATUS_ERROR;
  if (*size > 131072) return HSA_STATUS_ERROR_INVALID_QUEUE_CREATION;
  if (*size < 64) *size = 64;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t hw_queue_create(dbl_agent* a, uint32_t size, hsa_queue_type32_t type,
                                    void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                                    dbl_queue** out) {
  dbl_queue* q = queue_alloc(a, size, type, callback, data, NULL);
  if (!q) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  if (pthread_create(&q->thread, NULL, processor_main, q) != 0) {
    queue_free(q);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  q->has_processor = true;
  *out = q;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                                  void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                                  uint32_t private_segment_size, uint32_t group_segment_size,
                                  hsa_queue_t** queue) {
  (void)private_segment_size;
  (void)group_segment_size;
  DBL_CHECK_OPEN();
  dbl_agent* a = dbl_agent_get(agent);
  hsa_status_t st = check_create(a, &size, type, queue);
  if (st != HSA_STATUS_SUCCESS) return st;
  dbl_queue* q;
  st = hw_queue_create(a, size, type, callback, data, &q);
  if (st != HSA_STATUS_SUCCESS) return st;
  queue_link(q);
  *queue = &q->amd.hsa_queue;
  dbl_log("queue %llu created (size %u)", (unsigned long long)q->amd.hsa_queue.id, size);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_soft_queue_create(hsa_region_t region, uint32_t size, hsa_queue_type32_t type,
                                       uint32_t features, hsa_signal_t doorbell_signal, hsa_queue_t** queue) {
  DBL_CHECK_OPEN();
  dbl_pool* p = dbl_pool_get(region.handle);
  if (!p) return HSA_STATUS_ERROR_INVALID_REGION;
  dbl_signal* db = dbl_signal_get(doorbell_signal);
  if (!db) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  if (!queue || size == 0 || (size & (size - 1)) != 0 || features == 0 ||
      (type != HSA_QUEUE_TYPE_MULTI && type != HSA_QUEUE_TYPE_SINGLE))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  /* Soft queues are processed by the application: no processor thread. */
  dbl_queue* q = queue_alloc(p->owner, size, type, NULL, NULL, db);
  if (!q) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  q->amd.hsa_queue.features = features;
  queue_link(q);
  *queue = &q->amd.hsa_queue;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_queue_destroy(hsa_queue_t* queue) {
  DBL_CHECK_OPEN();
  dbl_queue* q = dbl_queue_get(queue);
  if (!q) return HSA_STATUS_ERROR_INVALID_QUEUE;
  queue_unlink(q);
  if (q->inner) {
    /* Wait for an interceptor run on another thread to end. */
    pthread_mutex_lock(&q->intercept_lock);
    q->doorbell->intercept_queue = NULL;
    pthread_mutex_unlock(&q->intercept_lock);
    queue_free(q->inner);
  }
  queue_free(q);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_queue_inactivate(hsa_queue_t* queue) {
  DBL_CHECK_OPEN();
  dbl_queue* q = dbl_queue_get(queue);
  if (!q) return HSA_STATUS_ERROR_INVALID_QUEUE;
  q->inactive = 1;
  if (q->inner) q->inner->inactive = 1;
  dbl_sig_notify();
  return HSA_STATUS_SUCCESS;
}

void dbl_queues_shutdown(void) {
  for (;;) {
    pthread_mutex_lock(&queue_list_lock);
    dbl_queue* q = queue_list;
    pthread_mutex_unlock(&queue_list_lock);
    if (!q) break;
    dbl_log("queue %llu still exists at hsa_shut_down: destroyed", (unsigned long long)q->amd.hsa_queue.id);
    dbl_hsa_queue_destroy(&q->amd.hsa_queue);
  }
}

/* ---- queue extras ---- */

hsa_status_t dbl_hsa_amd_queue_cu_set_mask(const hsa_queue_t* queue, uint32_t num_cu_mask_count,
                                           const uint32_t* cu_mask) {
  DBL_CHECK_OPEN();
  if (!dbl_queue_get(queue)) return HSA_STATUS_ERROR_INVALID_QUEUE;
  if (num_cu_mask_count && !cu_mask) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_queue_cu_get_mask(const hsa_queue_t* queue, uint32_t num_cu_mask_count,
                                           uint32_t* cu_mask) {
  DBL_CHECK_OPEN();
  dbl_queue* q = dbl_queue_get(queue);
  if (!q) return HSA_STATUS_ERROR_INVALID_QUEUE;
  if (num_cu_mask_count == 0 || !cu_mask) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (uint32_t i = 0; i < num_cu_mask_count; i++) {
    uint32_t lo = i * 32, cus = q->agent->compute_units;
    cu_mask[i] = lo >= cus ? 0 : (cus - lo >= 32 ? 0xffffffffu : ((1u << (cus - lo)) - 1));
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_queue_set_priority(hsa_queue_t* queue, hsa_amd_queue_priority_t priority) {
  DBL_CHECK_OPEN();
  if (!dbl_queue_get(queue)) return HSA_STATUS_ERROR_INVALID_QUEUE;
  if (priority > HSA_AMD_QUEUE_PRIORITY_HIGH) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_SUCCESS;
}

/* ---- profiling ---- */

hsa_status_t dbl_hsa_amd_profiling_set_profiler_enabled(hsa_queue_t* queue, int enable) {
  DBL_CHECK_OPEN();
  dbl_queue* q = dbl_queue_get(queue);
  if (!q) return HSA_STATUS_ERROR_INVALID_QUEUE;
  dbl_queue* targets[2] = {q, q->inner};
  for (int i = 0; i < 2; i++) {
    if (!targets[i]) continue;
    if (enable)
      __atomic_or_fetch(&targets[i]->amd.queue_properties, AMD_QUEUE_PROPERTIES_ENABLE_PROFILING, __ATOMIC_SEQ_CST);
    else
      __atomic_and_fetch(&targets[i]->amd.queue_properties, ~(uint32_t)AMD_QUEUE_PROPERTIES_ENABLE_PROFILING,
                         __ATOMIC_SEQ_CST);
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_profiling_get_dispatch_time(hsa_agent_t agent, hsa_signal_t signal,
                                                     hsa_amd_profiling_dispatch_time_t* time) {
  DBL_CHECK_OPEN();
  dbl_agent* a = dbl_agent_get(agent);
  if (!a || a->device != HSA_DEVICE_TYPE_GPU) return HSA_STATUS_ERROR_INVALID_AGENT;
  dbl_signal* s = dbl_signal_get(signal);
  if (!s) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  if (!time) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  /* Agent ticks are the system's nanoseconds: no conversion. */
  time->start = s->amd.start_ts;
  time->end = s->amd.end_ts;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_profiling_convert_tick_to_system_domain(hsa_agent_t agent, uint64_t agent_tick,
                                                                 uint64_t* system_tick) {
  DBL_CHECK_OPEN();
  if (!dbl_agent_get(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!system_tick) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *system_tick = agent_tick;
  return HSA_STATUS_SUCCESS;
}

/* ---- intercept queues ---- */

/* Where the interceptor chain of the current thread stands. */
static __thread struct {
  dbl_queue* queue;
  uint64_t pkt_index;
  int interceptor;
} cursor;

/* Copies packets into the inner queue: the first header last, then rings. */
static void submit_inner(dbl_queue* inner, const uint8_t* pkts, uint64_t count) {
  if (count == 0) return;
  uint32_t size = inner->amd.hsa_queue.size;
  if (count > size) {
    dbl_log("intercept: %llu packets do not fit a queue of %u", (unsigned long long)count, size);
    return;
  }
  uint64_t w;
  for (;;) {
    w = __atomic_load_n(&inner->amd.write_dispatch_id, __ATOMIC_ACQUIRE);
    uint64_t r = __atomic_load_n(&inner->amd.read_dispatch_id, __ATOMIC_ACQUIRE);
    if (size - (w - r) >= count) {
      if (__atomic_compare_exchange_n(&inner->amd.write_dispatch_id, &w, w + count, false, __ATOMIC_ACQ_REL,
                                      __ATOMIC_ACQUIRE))
        break;
      continue;
    }
    /* Full: wait for the processor to take packets. */
    pthread_mutex_lock(&dbl_sig_mutex);
    if (__atomic_load_n(&inner->amd.read_dispatch_id, __ATOMIC_ACQUIRE) == r && !inner->stop)
      dbl_sig_timedwait_ns(WAIT_SLICE_NS);
    pthread_mutex_unlock(&dbl_sig_mutex);
    if (inner->stop) return;
  }
  for (uint64_t i = count; i-- > 0;) {
    uint8_t* slot = (uint8_t*)header_at(inner, w + i);
    uint16_t header;
    memcpy(&header, pkts + i * PKT_BYTES, sizeof header);
    memcpy(slot + 2, pkts + i * PKT_BYTES + 2, PKT_BYTES - 2);
    __atomic_store_n((uint16_t*)slot, header, __ATOMIC_RELEASE);
  }
  dbl_signal_store_raw(inner->doorbell, (int64_t)(w + count - 1));
}

static void packet_writer(const void* pkts, uint64_t count) {
  dbl_queue* q = cursor.queue;
  if (!q) return; /* called outside an interceptor */
  int saved = cursor.interceptor;
  int next = saved - 1;
  if (next < 0) {
    submit_inner(q->inner, pkts, count);
  } else {
    cursor.interceptor = next;
    q->interceptors[next].fn(pkts, count, cursor.pkt_index, q->interceptors[next].data, packet_writer);
    cursor.interceptor = saved;
  }
}

static void intercept_retry(void* arg) { dbl_intercept_doorbell(arg); }

void dbl_intercept_doorbell(dbl_queue* q) {
  if (cursor.queue) {
    /* A doorbell rung from inside an interceptor: run later on the async
     * thread, as ROCr defers it. */
    dbl_async_call(intercept_retry, q);
    return;
  }
  pthread_mutex_lock(&q->intercept_lock);
  if (!q->doorbell->intercept_queue) { /* being destroyed */
    pthread_mutex_unlock(&q->intercept_lock);
    return;
  }
  cursor.queue = q;
  uint64_t end = __atomic_load_n(&q->amd.write_dispatch_id, __ATOMIC_ACQUIRE);
  uint64_t i;
  for (i = q->next_packet; i < end; i++) {
    uint16_t* slot = header_at(q, i);
    if (packet_type(__atomic_load_n(slot, __ATOMIC_ACQUIRE)) == HSA_PACKET_TYPE_INVALID) break;
    cursor.pkt_index = i;
    cursor.interceptor = q->interceptor_count;
    packet_writer(slot, 1);
    __atomic_store_n(slot, INVALID_HEADER, __ATOMIC_RELEASE);
  }
  q->next_packet = i;
  cursor.queue = NULL;
  __atomic_store_n(&q->amd.read_dispatch_id, i, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&q->intercept_lock);
  dbl_sig_notify();
}

hsa_status_t dbl_hsa_amd_queue_intercept_create(hsa_agent_t agent_handle, uint32_t size, hsa_queue_type32_t type,
                                                void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                                                uint32_t private_segment_size, uint32_t group_segment_size,
                                                hsa_queue_t** queue) {
  (void)private_segment_size;
  (void)group_segment_size;
  DBL_CHECK_OPEN();
  dbl_agent* a = dbl_agent_get(agent_handle);
  hsa_status_t st = check_create(a, &size, type, queue);
  if (st != HSA_STATUS_SUCCESS) return st;
  dbl_queue* inner;
  st = hw_queue_create(a, size, type, callback, data, &inner);
  if (st != HSA_STATUS_SUCCESS) return st;
  dbl_queue* q = queue_alloc(a, size, type, callback, data, NULL);
  if (!q) {
    queue_free(inner);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  q->inner = inner;
  q->amd.hsa_queue.id = inner->amd.hsa_queue.id; /* as ROCr's proxy: the wrapped queue's id */
  q->doorbell->intercept_queue = q;
  queue_link(q);
  *queue = &q->amd.hsa_queue;
  dbl_log("intercept queue %llu created (size %u)", (unsigned long long)q->amd.hsa_queue.id, size);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_queue_intercept_register(hsa_queue_t* queue, hsa_amd_queue_intercept_handler callback,
                                                  void* user_data) {
  DBL_CHECK_OPEN();
  dbl_queue* q = dbl_queue_get(queue);
  if (!q || !q->inner) return HSA_STATUS_ERROR_INVALID_QUEUE;
  if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  pthread_mutex_lock(&q->intercept_lock);
  if (q->interceptor_count == DBL_MAX_INTERCEPTORS) {
    pthread_mutex_unlock(&q->intercept_lock);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  q->interceptors[q->interceptor_count].fn = callback;
  q->interceptors[q->interceptor_count].data = user_data;
  q->interceptor_count++;
  pthread_mutex_unlock(&q->intercept_lock);
  return HSA_STATUS_SUCCESS;
}

/* ---- test hooks ---- */

DBL_EXPORT uint64_t cltap_double_dispatch_count(void) { return __atomic_load_n(&dispatch_count, __ATOMIC_RELAXED); }

DBL_EXPORT uint64_t cltap_double_packets_seen(const hsa_queue_t* queue) {
  dbl_queue* q = dbl_queue_get(queue);
  if (!q) return 0;
  if (q->inner) q = q->inner;
  return __atomic_load_n(&q->packets_seen, __ATOMIC_RELAXED);
}

DBL_EXPORT uint64_t cltap_double_packets_seen_type(const hsa_queue_t* queue, uint32_t type) {
  dbl_queue* q = dbl_queue_get(queue);
  if (!q || type > 7) return 0;
  if (q->inner) q = q->inner;
  return __atomic_load_n(&q->packets_by_type[type], __ATOMIC_RELAXED);
}
