/* cltap HSA test double -- memory: allocation from pools and regions (host
 * memory, 4 KiB aligned), copies, and asynchronous copies on a worker thread
 * that honours dependency signals and decrements the completion signal. */
#include "double.h"

#include <stdlib.h>
#include <string.h>

typedef struct alloc_rec {
  struct alloc_rec* next;
  void* ptr;
  size_t size;
  dbl_pool* pool;
  void* userdata;
} alloc_rec;

static pthread_mutex_t alloc_lock = PTHREAD_MUTEX_INITIALIZER;
static alloc_rec* allocs;

static hsa_status_t allocate(dbl_pool* p, size_t size, void** ptr) {
  if (!p->alloc_allowed) return HSA_STATUS_ERROR_INVALID_ALLOCATION;
  if (size == 0 || !ptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (size > p->size) return HSA_STATUS_ERROR_INVALID_ALLOCATION;
  size_t rounded = (size + p->granule - 1) / p->granule * p->granule;
  void* mem = aligned_alloc(p->alignment, rounded);
  alloc_rec* r = malloc(sizeof *r);
  if (!mem || !r) {
    free(mem);
    free(r);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  memset(mem, 0, rounded);
  r->ptr = mem;
  r->size = size;
  r->pool = p;
  r->userdata = NULL;
  pthread_mutex_lock(&alloc_lock);
  r->next = allocs;
  allocs = r;
  pthread_mutex_unlock(&alloc_lock);
  *ptr = mem;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t release(void* ptr) {
  if (!ptr) return HSA_STATUS_SUCCESS; /* as ROCr: freeing NULL is fine */
  pthread_mutex_lock(&alloc_lock);
  for (alloc_rec** pp = &allocs; *pp; pp = &(*pp)->next) {
    if ((*pp)->ptr == ptr) {
      alloc_rec* r = *pp;
      *pp = r->next;
      pthread_mutex_unlock(&alloc_lock);
      free(r->ptr);
      free(r);
      return HSA_STATUS_SUCCESS;
    }
  }
  pthread_mutex_unlock(&alloc_lock);
  return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

/* The allocation holding ptr; the lock must be held. */
static alloc_rec* find_alloc(const void* ptr) {
  for (alloc_rec* r = allocs; r; r = r->next)
    if ((const char*)ptr >= (const char*)r->ptr && (const char*)ptr < (const char*)r->ptr + r->size) return r;
  return NULL;
}

hsa_status_t dbl_hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t memory_pool, size_t size, uint32_t flags,
                                              void** ptr) {
  (void)flags;
  DBL_CHECK_OPEN();
  dbl_pool* p = dbl_pool_get(memory_pool.handle);
  if (!p) return (hsa_status_t)HSA_STATUS_ERROR_INVALID_MEMORY_POOL;
  return allocate(p, size, ptr);
}

hsa_status_t dbl_hsa_amd_memory_pool_free(void* ptr) {
  DBL_CHECK_OPEN();
  return release(ptr);
}

hsa_status_t dbl_hsa_memory_allocate(hsa_region_t region, size_t size, void** ptr) {
  DBL_CHECK_OPEN();
  dbl_pool* p = dbl_pool_get(region.handle);
  if (!p) return HSA_STATUS_ERROR_INVALID_REGION;
  return allocate(p, size, ptr);
}

hsa_status_t dbl_hsa_memory_free(void* ptr) {
  DBL_CHECK_OPEN();
  return release(ptr);
}

hsa_status_t dbl_hsa_memory_register(void* ptr, size_t size) {
  DBL_CHECK_OPEN();
  if (!ptr && size) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_memory_deregister(void* ptr, size_t size) {
  (void)ptr;
  (void)size;
  DBL_CHECK_OPEN();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_memory_assign_agent(void* ptr, hsa_agent_t agent, hsa_access_permission_t access) {
  (void)access;
  DBL_CHECK_OPEN();
  if (!ptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!dbl_agent_get(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_agents_allow_access(uint32_t num_agents, const hsa_agent_t* agents,
                                             const uint32_t* flags, const void* ptr) {
  (void)flags;
  DBL_CHECK_OPEN();
  if (num_agents == 0 || !agents || !ptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (uint32_t i = 0; i < num_agents; i++)
    if (!dbl_agent_get(agents[i])) return HSA_STATUS_ERROR_INVALID_AGENT;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_memory_copy(void* dst, const void* src, size_t size) {
  DBL_CHECK_OPEN();
  if (!dst || !src) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  memmove(dst, src, size);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_memory_fill(void* ptr, uint32_t value, size_t count) {
  DBL_CHECK_OPEN();
  if (!ptr || ((uintptr_t)ptr & 3)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  uint32_t* p = ptr;
  for (size_t i = 0; i < count; i++) p[i] = value;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_memory_lock(void* host_ptr, size_t size, hsa_agent_t* agents, int num_agent,
                                     void** agent_ptr) {
  (void)agents;
  (void)num_agent;
  DBL_CHECK_OPEN();
  if (!host_ptr || !size || !agent_ptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *agent_ptr = host_ptr; /* one address space */
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_memory_unlock(void* host_ptr) {
  (void)host_ptr;
  DBL_CHECK_OPEN();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_pointer_info(const void* ptr, hsa_amd_pointer_info_t* info, void* (*alloc)(size_t),
                                      uint32_t* num_agents_accessible, hsa_agent_t** accessible) {
  DBL_CHECK_OPEN();
  if (!ptr || !info || info->size < sizeof(uint32_t)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  uint32_t size = info->size < sizeof *info ? info->size : (uint32_t)sizeof *info;
  hsa_amd_pointer_info_t out;
  memset(&out, 0, sizeof out);
  out.size = size;
  pthread_mutex_lock(&alloc_lock);
  alloc_rec* r = find_alloc(ptr);
  if (r) {
    out.type = HSA_EXT_POINTER_TYPE_HSA;
    out.agentBaseAddress = r->ptr;
    out.hostBaseAddress = r->ptr;
    out.sizeInBytes = r->size;
    out.userData = r->userdata;
    out.agentOwner = dbl_agent_handle(r->pool->owner);
  } else {
    out.type = HSA_EXT_POINTER_TYPE_UNKNOWN;
  }
  pthread_mutex_unlock(&alloc_lock);
  memcpy(info, &out, size);
  if (num_agents_accessible && accessible && alloc) {
    hsa_agent_t* list = alloc(2 * sizeof(hsa_agent_t));
    if (!list) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    list[0] = dbl_agent_handle(&dbl_cpu_agent);
    list[1] = dbl_agent_handle(&dbl_gpu_agent);
    *num_agents_accessible = r ? 2 : 0;
    *accessible = list;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_pointer_info_set_userdata(const void* ptr, void* userdata) {
  DBL_CHECK_OPEN();
  pthread_mutex_lock(&alloc_lock);
  alloc_rec* r = find_alloc(ptr);
  if (r) r->userdata = userdata;
  pthread_mutex_unlock(&alloc_lock);
  return r ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

/* ---- asynchronous copies ---- */

typedef struct copy_job {
  struct copy_job* next;
  void* dst;
  const void* src;
  size_t size;
  /* hsa_amd_memory_async_copy_rect: range.x bytes per row, range.y rows
   * per slice, range.z slices, from/to pitched memory at the offsets. */
  bool rect;
  hsa_pitched_ptr_t rdst, rsrc;
  hsa_dim3_t doff, soff, range;
  uint32_t dep_count;
  dbl_signal** deps;
  dbl_signal* completion;
} copy_job;

static pthread_mutex_t copy_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t copy_cond = PTHREAD_COND_INITIALIZER;
static copy_job* copy_head;
static copy_job* copy_tail;
static bool copy_running;
static volatile int copy_stop;
static pthread_t copy_thread;
static volatile int copy_profiling;

bool dbl_async_copy_profiling(void) { return copy_profiling != 0; }

static void* copy_main(void* unused) {
  (void)unused;
  for (;;) {
    pthread_mutex_lock(&copy_lock);
    while (!copy_head && !copy_stop) pthread_cond_wait(&copy_cond, &copy_lock);
    copy_job* j = copy_head;
    if (!j) {
      pthread_mutex_unlock(&copy_lock);
      break;
    }
    copy_head = j->next;
    if (!copy_head) copy_tail = NULL;
    pthread_mutex_unlock(&copy_lock);
    /* Dependencies are satisfied when their value reaches 0, as for a
     * barrier-AND packet. Shutting down abandons the wait. */
    for (uint32_t i = 0; i < j->dep_count; i++)
      dbl_signal_wait(j->deps[i], HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, &copy_stop);
    uint64_t start = dbl_now();
    if (j->rect) {
      for (uint32_t z = 0; z < j->range.z; z++)
        for (uint32_t y = 0; y < j->range.y; y++)
          memmove((char*)j->rdst.base + (size_t)(j->doff.z + z) * j->rdst.slice + (size_t)(j->doff.y + y) * j->rdst.pitch + j->doff.x,
                  (const char*)j->rsrc.base + (size_t)(j->soff.z + z) * j->rsrc.slice + (size_t)(j->soff.y + y) * j->rsrc.pitch + j->soff.x,
                  j->range.x);
    } else {
      memmove(j->dst, j->src, j->size);
    }
    uint64_t end = dbl_now();
    if (j->completion) {
      if (copy_profiling) {
        j->completion->amd.start_ts = start;
        j->completion->amd.end_ts = end;
      }
      dbl_signal_add_raw(j->completion, -1);
    }
    free(j->deps);
    free(j);
  }
  return NULL;
}

/* Queues `j` (its copy already described) for the copy thread, after its
 * dependencies and with its completion signal; frees it on failure. */
static hsa_status_t enqueue_copy(copy_job* j, uint32_t num_dep_signals, const hsa_signal_t* dep_signals,
                                 hsa_signal_t completion_signal) {
  dbl_signal* done = dbl_signal_get(completion_signal);
  if (!done) {
    free(j);
    return HSA_STATUS_ERROR_INVALID_SIGNAL;
  }
  j->completion = done;
  if (num_dep_signals) {
    j->deps = calloc(num_dep_signals, sizeof *j->deps);
    if (!j->deps) {
      free(j);
      return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    for (uint32_t i = 0; i < num_dep_signals; i++) {
      j->deps[i] = dbl_signal_get(dep_signals[i]);
      if (!j->deps[i]) {
        free(j->deps);
        free(j);
        return HSA_STATUS_ERROR_INVALID_SIGNAL;
      }
    }
    j->dep_count = num_dep_signals;
  }
  pthread_mutex_lock(&copy_lock);
  if (!copy_running) {
    copy_stop = 0;
    if (pthread_create(&copy_thread, NULL, copy_main, NULL) != 0) {
      pthread_mutex_unlock(&copy_lock);
      free(j->deps);
      free(j);
      return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    copy_running = true;
  }
  if (copy_tail)
    copy_tail->next = j;
  else
    copy_head = j;
  copy_tail = j;
  pthread_cond_signal(&copy_cond);
  pthread_mutex_unlock(&copy_lock);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_memory_async_copy(void* dst, hsa_agent_t dst_agent, const void* src,
                                           hsa_agent_t src_agent, size_t size, uint32_t num_dep_signals,
                                           const hsa_signal_t* dep_signals, hsa_signal_t completion_signal) {
  DBL_CHECK_OPEN();
  if (!dst || !src || (num_dep_signals && !dep_signals)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!dbl_agent_get(dst_agent) || !dbl_agent_get(src_agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  copy_job* j = calloc(1, sizeof *j);
  if (!j) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  j->dst = dst;
  j->src = src;
  j->size = size;
  return enqueue_copy(j, num_dep_signals, dep_signals, completion_signal);
}

hsa_status_t dbl_hsa_amd_memory_async_copy_rect(const hsa_pitched_ptr_t* dst, const hsa_dim3_t* dst_offset,
                                                const hsa_pitched_ptr_t* src, const hsa_dim3_t* src_offset,
                                                const hsa_dim3_t* range, hsa_agent_t copy_agent,
                                                hsa_amd_copy_direction_t dir, uint32_t num_dep_signals,
                                                const hsa_signal_t* dep_signals, hsa_signal_t completion_signal) {
  DBL_CHECK_OPEN();
  if (!dst || !dst_offset || !src || !src_offset || !range || !dst->base || !src->base ||
      (num_dep_signals && !dep_signals) || dir > hsaDeviceToDevice)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!dbl_agent_get(copy_agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  /* Rows must fit their pitch and slices their slice pitch, as ROCr checks. */
  if ((size_t)dst_offset->x + range->x > dst->pitch || (size_t)src_offset->x + range->x > src->pitch ||
      (range->z > 1 && ((size_t)(dst_offset->y + range->y) * dst->pitch > dst->slice ||
                        (size_t)(src_offset->y + range->y) * src->pitch > src->slice)))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  copy_job* j = calloc(1, sizeof *j);
  if (!j) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  j->rect = true;
  j->rdst = *dst;
  j->rsrc = *src;
  j->doff = *dst_offset;
  j->soff = *src_offset;
  j->range = *range;
  return enqueue_copy(j, num_dep_signals, dep_signals, completion_signal);
}

hsa_status_t dbl_hsa_amd_profiling_async_copy_enable(bool enable) {
  DBL_CHECK_OPEN();
  copy_profiling = enable;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_profiling_get_async_copy_time(hsa_signal_t signal,
                                                       hsa_amd_profiling_async_copy_time_t* time) {
  DBL_CHECK_OPEN();
  dbl_signal* s = dbl_signal_get(signal);
  if (!s) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  if (!time) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  time->start = s->amd.start_ts;
  time->end = s->amd.end_ts;
  return HSA_STATUS_SUCCESS;
}

void dbl_memory_shutdown(void) {
  pthread_mutex_lock(&copy_lock);
  bool running = copy_running;
  copy_stop = 1;
  pthread_cond_broadcast(&copy_cond);
  pthread_mutex_unlock(&copy_lock);
  dbl_sig_notify(); /* wakes a copy waiting on a dependency */
  if (running) pthread_join(copy_thread, NULL);
  copy_running = false;
  copy_profiling = 0;
  /* Allocations stay: ROCr frees them at shutdown, but a program that keeps
   * a pointer past hsa_shut_down should not crash in the double. */
}

/* ---- small AMD extras that only keep state ---- */

hsa_status_t dbl_hsa_amd_coherency_get_type(hsa_agent_t agent, hsa_amd_coherency_type_t* type) {
  DBL_CHECK_OPEN();
  dbl_agent* a = dbl_agent_get(agent);
  if (!a || a->device != HSA_DEVICE_TYPE_GPU) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!type) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *type = HSA_AMD_COHERENCY_TYPE_COHERENT;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_coherency_set_type(hsa_agent_t agent, hsa_amd_coherency_type_t type) {
  DBL_CHECK_OPEN();
  dbl_agent* a = dbl_agent_get(agent);
  if (!a || a->device != HSA_DEVICE_TYPE_GPU) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (type != HSA_AMD_COHERENCY_TYPE_COHERENT && type != HSA_AMD_COHERENCY_TYPE_NONCOHERENT)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_memory_pool_can_migrate(hsa_amd_memory_pool_t src_memory_pool,
                                                 hsa_amd_memory_pool_t dst_memory_pool, bool* result) {
  DBL_CHECK_OPEN();
  if (!dbl_pool_get(src_memory_pool.handle) || !dbl_pool_get(dst_memory_pool.handle))
    return (hsa_status_t)HSA_STATUS_ERROR_INVALID_MEMORY_POOL;
  if (!result) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = false;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_memory_lock_to_pool(void* host_ptr, size_t size, hsa_agent_t* agents, int num_agent,
                                             hsa_amd_memory_pool_t pool, uint32_t flags, void** agent_ptr) {
  (void)flags;
  DBL_CHECK_OPEN();
  if (!dbl_pool_get(pool.handle)) return (hsa_status_t)HSA_STATUS_ERROR_INVALID_MEMORY_POOL;
  return dbl_hsa_amd_memory_lock(host_ptr, size, agents, num_agent, agent_ptr);
}

/* No system events ever happen in the double: a handler is accepted and
 * never called. */
hsa_status_t dbl_hsa_amd_register_system_event_handler(hsa_amd_system_event_callback_t callback, void* data) {
  (void)data;
  DBL_CHECK_OPEN();
  if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_SUCCESS;
}

/* The double makes no internal queues, so the notifier is never called. */
hsa_status_t dbl_hsa_amd_runtime_queue_create_register(hsa_amd_runtime_queue_notifier callback, void* user_data) {
  (void)user_data;
  DBL_CHECK_OPEN();
  if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_SUCCESS;
}
