/* cltap HSA test double -- signals, signal groups and async handlers.
 *
 * A signal handle points at an amd_signal_t (kind USER, value at offset 8,
 * start_ts/end_ts for profiling), as in ROCr. Every change of any signal wakes
 * every waiter through one mutex and condition variable; waiters recheck
 * their condition, and wake at least every WAIT_SLICE_NS in case a value was
 * written to memory directly. Nothing spins. */
#include "double.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIGNAL_MAGIC 0x434c544150534947ull /* "CLTAPSIG" */
#define GROUP_MAGIC 0x434c544150475250ull  /* "CLTAPGRP" */
#define WAIT_SLICE_NS 20000000ull          /* 20 ms */

pthread_mutex_t dbl_sig_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t dbl_sig_cond;
static pthread_once_t cond_once = PTHREAD_ONCE_INIT;

static void cond_init(void) {
  pthread_condattr_t a;
  pthread_condattr_init(&a);
  pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  pthread_cond_init(&dbl_sig_cond, &a);
  pthread_condattr_destroy(&a);
}

__attribute__((constructor)) static void signals_init(void) { pthread_once(&cond_once, cond_init); }

void dbl_sig_notify(void) {
  pthread_mutex_lock(&dbl_sig_mutex);
  pthread_cond_broadcast(&dbl_sig_cond);
  pthread_mutex_unlock(&dbl_sig_mutex);
}

void dbl_sig_timedwait_ns(uint64_t ns) {
  uint64_t t = dbl_now() + ns;
  struct timespec ts = {(time_t)(t / 1000000000ull), (long)(t % 1000000000ull)};
  pthread_cond_timedwait(&dbl_sig_cond, &dbl_sig_mutex, &ts);
}

dbl_signal* dbl_signal_get(hsa_signal_t s) {
  dbl_signal* p = (dbl_signal*)(uintptr_t)s.handle;
  if (!p || (s.handle & 63) != 0 || p->magic != SIGNAL_MAGIC) return NULL;
  return p;
}

dbl_signal* dbl_signal_new(int64_t value) {
  dbl_signal* s = aligned_alloc(64, (sizeof(dbl_signal) + 63) & ~(size_t)63);
  if (!s) return NULL;
  memset(s, 0, sizeof *s);
  s->amd.kind = AMD_SIGNAL_KIND_USER;
  s->amd.value = value;
  s->magic = SIGNAL_MAGIC;
  return s;
}

void dbl_signal_free(dbl_signal* s) {
  if (!s) return;
  s->magic = 0;
  s->amd.kind = AMD_SIGNAL_KIND_INVALID;
  free(s);
}

int64_t dbl_signal_load(dbl_signal* s) { return __atomic_load_n(&s->amd.value, __ATOMIC_SEQ_CST); }

void dbl_signal_store_raw(dbl_signal* s, int64_t v) {
  __atomic_store_n(&s->amd.value, v, __ATOMIC_SEQ_CST);
  dbl_sig_notify();
}

void dbl_signal_add_raw(dbl_signal* s, int64_t v) {
  __atomic_add_fetch(&s->amd.value, v, __ATOMIC_SEQ_CST);
  dbl_sig_notify();
}

bool dbl_condition_holds(hsa_signal_condition_t c, int64_t value, int64_t compare) {
  switch (c) {
    case HSA_SIGNAL_CONDITION_EQ: return value == compare;
    case HSA_SIGNAL_CONDITION_NE: return value != compare;
    case HSA_SIGNAL_CONDITION_LT: return value < compare;
    case HSA_SIGNAL_CONDITION_GTE: return value >= compare;
    default: return false;
  }
}

int64_t dbl_signal_wait(dbl_signal* s, hsa_signal_condition_t c, int64_t compare, uint64_t deadline,
                        const volatile int* stop) {
  int64_t v = dbl_signal_load(s);
  if (dbl_condition_holds(c, v, compare)) return v;
  pthread_mutex_lock(&dbl_sig_mutex);
  for (;;) {
    v = dbl_signal_load(s);
    if (dbl_condition_holds(c, v, compare)) break;
    if (stop && *stop) break;
    uint64_t now = dbl_now();
    if (now >= deadline) break;
    uint64_t left = deadline - now;
    dbl_sig_timedwait_ns(left < WAIT_SLICE_NS ? left : WAIT_SLICE_NS);
  }
  pthread_mutex_unlock(&dbl_sig_mutex);
  return v;
}

static uint64_t deadline_after(uint64_t timeout_ticks) {
  /* Timestamps tick at 1 GHz: a timeout hint is in nanoseconds. */
  uint64_t now = dbl_now();
  return timeout_ticks > UINT64_MAX - now ? UINT64_MAX : now + timeout_ticks;
}

/* ---- creation ---- */

hsa_status_t dbl_hsa_signal_create(hsa_signal_value_t initial_value, uint32_t num_consumers,
                                   const hsa_agent_t* consumers, hsa_signal_t* signal) {
  DBL_CHECK_OPEN();
  if (!signal || (num_consumers > 0 && !consumers)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (uint32_t i = 0; i < num_consumers; i++)
    if (!dbl_agent_get(consumers[i])) return HSA_STATUS_ERROR_INVALID_AGENT;
  dbl_signal* s = dbl_signal_new(initial_value);
  if (!s) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  signal->handle = (uint64_t)(uintptr_t)s;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_signal_create(hsa_signal_value_t initial_value, uint32_t num_consumers,
                                       const hsa_agent_t* consumers, uint64_t attributes,
                                       hsa_signal_t* signal) {
  (void)attributes;
  return dbl_hsa_signal_create(initial_value, num_consumers, consumers, signal);
}

hsa_status_t dbl_hsa_signal_destroy(hsa_signal_t signal) {
  DBL_CHECK_OPEN();
  dbl_signal* s = dbl_signal_get(signal);
  if (!s || s->intercept_queue) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  dbl_signal_free(s);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_signal_value_pointer(hsa_signal_t signal, volatile hsa_signal_value_t** value_ptr) {
  DBL_CHECK_OPEN();
  dbl_signal* s = dbl_signal_get(signal);
  if (!s) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  if (!value_ptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *value_ptr = &s->amd.value;
  return HSA_STATUS_SUCCESS;
}

/* ---- load, store and read-modify-write ---- */

hsa_signal_value_t dbl_hsa_signal_load_relaxed(hsa_signal_t signal) {
  dbl_signal* s = dbl_signal_get(signal);
  return s ? dbl_signal_load(s) : 0;
}
hsa_signal_value_t dbl_hsa_signal_load_scacquire(hsa_signal_t signal) {
  return dbl_hsa_signal_load_relaxed(signal);
}

static void store(hsa_signal_t signal, hsa_signal_value_t value) {
  dbl_signal* s = dbl_signal_get(signal);
  if (!s) return;
  dbl_signal_store_raw(s, value);
  /* A store to an intercept queue's doorbell runs the interceptors on the
   * storing thread, as ROCr's InterceptQueue does. */
  if (s->intercept_queue) dbl_intercept_doorbell(s->intercept_queue);
}
void dbl_hsa_signal_store_relaxed(hsa_signal_t signal, hsa_signal_value_t value) { store(signal, value); }
void dbl_hsa_signal_store_screlease(hsa_signal_t signal, hsa_signal_value_t value) { store(signal, value); }
void dbl_hsa_signal_silent_store_relaxed(hsa_signal_t signal, hsa_signal_value_t value) {
  dbl_signal* s = dbl_signal_get(signal);
  if (s) __atomic_store_n(&s->amd.value, value, __ATOMIC_SEQ_CST);
}
void dbl_hsa_signal_silent_store_screlease(hsa_signal_t signal, hsa_signal_value_t value) {
  dbl_hsa_signal_silent_store_relaxed(signal, value);
}

#define RMW(op, expr)                                                               \
  static hsa_signal_value_t rmw_##op(hsa_signal_t signal, hsa_signal_value_t v) {  \
    dbl_signal* s = dbl_signal_get(signal);                                         \
    if (!s) return 0;                                                               \
    hsa_signal_value_t old = expr;                                                  \
    dbl_sig_notify();                                                               \
    return old;                                                                     \
  }
RMW(add, __atomic_fetch_add(&s->amd.value, v, __ATOMIC_SEQ_CST))
RMW(subtract, __atomic_fetch_sub(&s->amd.value, v, __ATOMIC_SEQ_CST))
RMW(and, __atomic_fetch_and(&s->amd.value, v, __ATOMIC_SEQ_CST))
RMW(or, __atomic_fetch_or(&s->amd.value, v, __ATOMIC_SEQ_CST))
RMW(xor, __atomic_fetch_xor(&s->amd.value, v, __ATOMIC_SEQ_CST))
RMW(exchange, __atomic_exchange_n(&s->amd.value, v, __ATOMIC_SEQ_CST))

#define RMW_VOID(op, order) \
  void dbl_hsa_signal_##op##_##order(hsa_signal_t signal, hsa_signal_value_t value) { rmw_##op(signal, value); }
#define RMW_VOID_ALL(op)          \
  RMW_VOID(op, relaxed)           \
  RMW_VOID(op, scacquire)         \
  RMW_VOID(op, screlease)         \
  RMW_VOID(op, scacq_screl)
RMW_VOID_ALL(add)
RMW_VOID_ALL(subtract)
RMW_VOID_ALL(and)
RMW_VOID_ALL(or)
RMW_VOID_ALL(xor)

#define EXCH(order)                                                                            \
  hsa_signal_value_t dbl_hsa_signal_exchange_##order(hsa_signal_t signal, hsa_signal_value_t value) { \
    return rmw_exchange(signal, value);                                                        \
  }                                                                                            \
  hsa_signal_value_t dbl_hsa_signal_cas_##order(hsa_signal_t signal, hsa_signal_value_t expected, \
                                                hsa_signal_value_t value) {                    \
    return cas(signal, expected, value);                                                       \
  }
static hsa_signal_value_t cas(hsa_signal_t signal, hsa_signal_value_t expected, hsa_signal_value_t value) {
  dbl_signal* s = dbl_signal_get(signal);
  if (!s) return 0;
  int64_t e = expected;
  __atomic_compare_exchange_n(&s->amd.value, &e, value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  if (e == expected) dbl_sig_notify();
  return e; /* the value observed: `expected` when the swap happened */
}
EXCH(relaxed)
EXCH(scacquire)
EXCH(screlease)
EXCH(scacq_screl)

/* ---- waits ---- */

hsa_signal_value_t dbl_hsa_signal_wait_scacquire(hsa_signal_t signal, hsa_signal_condition_t condition,
                                                 hsa_signal_value_t compare_value, uint64_t timeout_hint,
                                                 hsa_wait_state_t wait_state_hint) {
  (void)wait_state_hint;
  dbl_signal* s = dbl_signal_get(signal);
  if (!s) return 0;
  return dbl_signal_wait(s, condition, compare_value, deadline_after(timeout_hint), NULL);
}
hsa_signal_value_t dbl_hsa_signal_wait_relaxed(hsa_signal_t signal, hsa_signal_condition_t condition,
                                               hsa_signal_value_t compare_value, uint64_t timeout_hint,
                                               hsa_wait_state_t wait_state_hint) {
  return dbl_hsa_signal_wait_scacquire(signal, condition, compare_value, timeout_hint, wait_state_hint);
}

/* Waits until one of the signals satisfies its condition; returns its index,
 * or UINT32_MAX at the deadline. */
static uint32_t wait_any(uint32_t n, dbl_signal* const* s, const hsa_signal_condition_t* conds,
                         const hsa_signal_value_t* values, uint64_t deadline, hsa_signal_value_t* satisfying) {
  pthread_mutex_lock(&dbl_sig_mutex);
  uint32_t found = UINT32_MAX;
  for (;;) {
    for (uint32_t i = 0; i < n; i++) {
      int64_t v = dbl_signal_load(s[i]);
      if (dbl_condition_holds(conds[i], v, values[i])) {
        if (satisfying) *satisfying = v;
        found = i;
        break;
      }
    }
    if (found != UINT32_MAX) break;
    uint64_t now = dbl_now();
    if (now >= deadline) break;
    uint64_t left = deadline - now;
    dbl_sig_timedwait_ns(left < WAIT_SLICE_NS ? left : WAIT_SLICE_NS);
  }
  pthread_mutex_unlock(&dbl_sig_mutex);
  return found;
}

uint32_t dbl_hsa_amd_signal_wait_any(uint32_t signal_count, hsa_signal_t* signals,
                                     hsa_signal_condition_t* conds, hsa_signal_value_t* values,
                                     uint64_t timeout_hint, hsa_wait_state_t wait_hint,
                                     hsa_signal_value_t* satisfying_value) {
  (void)wait_hint;
  if (signal_count == 0 || !signals || !conds || !values) return UINT32_MAX;
  dbl_signal** s = calloc(signal_count, sizeof *s);
  if (!s) return UINT32_MAX;
  for (uint32_t i = 0; i < signal_count; i++) {
    s[i] = dbl_signal_get(signals[i]);
    if (!s[i]) {
      free(s);
      return UINT32_MAX;
    }
  }
  uint32_t r = wait_any(signal_count, s, conds, values, deadline_after(timeout_hint), satisfying_value);
  free(s);
  return r;
}

/* ---- signal groups ---- */

typedef struct dbl_group {
  uint64_t magic;
  uint32_t count;
  dbl_signal* signals[];
} dbl_group;

static dbl_group* group_get(hsa_signal_group_t g) {
  dbl_group* p = (dbl_group*)(uintptr_t)g.handle;
  return p && p->magic == GROUP_MAGIC ? p : NULL;
}

hsa_status_t dbl_hsa_signal_group_create(uint32_t num_signals, const hsa_signal_t* signals,
                                         uint32_t num_consumers, const hsa_agent_t* consumers,
                                         hsa_signal_group_t* signal_group) {
  (void)num_consumers;
  (void)consumers;
  DBL_CHECK_OPEN();
  if (!signal_group || num_signals == 0 || !signals) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  dbl_group* g = malloc(sizeof *g + num_signals * sizeof(dbl_signal*));
  if (!g) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  for (uint32_t i = 0; i < num_signals; i++) {
    g->signals[i] = dbl_signal_get(signals[i]);
    if (!g->signals[i]) {
      free(g);
      return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
  }
  g->magic = GROUP_MAGIC;
  g->count = num_signals;
  signal_group->handle = (uint64_t)(uintptr_t)g;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_signal_group_destroy(hsa_signal_group_t signal_group) {
  DBL_CHECK_OPEN();
  dbl_group* g = group_get(signal_group);
  if (!g) return HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP;
  g->magic = 0;
  free(g);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_signal_group_wait_any_scacquire(hsa_signal_group_t signal_group,
                                                     const hsa_signal_condition_t* conditions,
                                                     const hsa_signal_value_t* compare_values,
                                                     hsa_wait_state_t wait_state_hint, hsa_signal_t* signal,
                                                     hsa_signal_value_t* value) {
  (void)wait_state_hint;
  DBL_CHECK_OPEN();
  dbl_group* g = group_get(signal_group);
  if (!g) return HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP;
  if (!conditions || !compare_values || !signal || !value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  uint32_t i = wait_any(g->count, g->signals, conditions, compare_values, UINT64_MAX, value);
  signal->handle = (uint64_t)(uintptr_t)g->signals[i];
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_signal_group_wait_any_relaxed(hsa_signal_group_t signal_group,
                                                   const hsa_signal_condition_t* conditions,
                                                   const hsa_signal_value_t* compare_values,
                                                   hsa_wait_state_t wait_state_hint, hsa_signal_t* signal,
                                                   hsa_signal_value_t* value) {
  return dbl_hsa_signal_group_wait_any_scacquire(signal_group, conditions, compare_values, wait_state_hint,
                                                 signal, value);
}

/* ---- async handlers: one thread, started on first use ---- */

typedef struct async_entry {
  struct async_entry* next;
  dbl_signal* signal; /* NULL: a plain function to run once */
  hsa_signal_condition_t cond;
  hsa_signal_value_t value;
  hsa_amd_signal_handler handler;
  void* arg;
  void (*fn)(void*);
} async_entry;

static async_entry* async_list; /* under dbl_sig_mutex */
static pthread_t async_thread;
static bool async_running;
static volatile int async_stop;

static void* async_main(void* unused) {
  (void)unused;
  pthread_mutex_lock(&dbl_sig_mutex);
  while (!async_stop) {
    async_entry** pp = &async_list;
    async_entry* ready = NULL;
    int64_t v = 0;
    for (; *pp; pp = &(*pp)->next) {
      async_entry* e = *pp;
      if (!e->signal) {
        ready = e;
        break;
      }
      v = dbl_signal_load(e->signal);
      if (dbl_condition_holds(e->cond, v, e->value)) {
        ready = e;
        break;
      }
    }
    if (!ready) {
      dbl_sig_timedwait_ns(WAIT_SLICE_NS);
      continue;
    }
    *pp = ready->next;
    pthread_mutex_unlock(&dbl_sig_mutex);
    bool again = false;
    if (ready->signal)
      again = ready->handler(v, ready->arg);
    else
      ready->fn(ready->arg);
    pthread_mutex_lock(&dbl_sig_mutex);
    if (again) {
      /* Re-armed at the end: waits for the condition to hold again. */
      ready->next = NULL;
      async_entry** tail = &async_list;
      while (*tail) tail = &(*tail)->next;
      *tail = ready;
    } else {
      free(ready);
    }
  }
  pthread_mutex_unlock(&dbl_sig_mutex);
  return NULL;
}

static hsa_status_t async_add(async_entry* e) {
  pthread_mutex_lock(&dbl_sig_mutex);
  if (!async_running) {
    async_stop = 0;
    if (pthread_create(&async_thread, NULL, async_main, NULL) != 0) {
      pthread_mutex_unlock(&dbl_sig_mutex);
      free(e);
      return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    async_running = true;
  }
  async_entry** tail = &async_list;
  while (*tail) tail = &(*tail)->next;
  e->next = NULL;
  *tail = e;
  pthread_cond_broadcast(&dbl_sig_cond);
  pthread_mutex_unlock(&dbl_sig_mutex);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_async_call(void (*fn)(void*), void* arg) {
  async_entry* e = calloc(1, sizeof *e);
  if (!e) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  e->fn = fn;
  e->arg = arg;
  return async_add(e);
}

hsa_status_t dbl_hsa_amd_signal_async_handler(hsa_signal_t signal, hsa_signal_condition_t cond,
                                              hsa_signal_value_t value, hsa_amd_signal_handler handler,
                                              void* arg) {
  DBL_CHECK_OPEN();
  dbl_signal* s = dbl_signal_get(signal);
  if (!s) return HSA_STATUS_ERROR_INVALID_SIGNAL;
  if (!handler) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  async_entry* e = calloc(1, sizeof *e);
  if (!e) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  e->signal = s;
  e->cond = cond;
  e->value = value;
  e->handler = handler;
  e->arg = arg;
  return async_add(e);
}

hsa_status_t dbl_hsa_amd_async_function(void (*callback)(void* arg), void* arg) {
  DBL_CHECK_OPEN();
  if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return dbl_async_call(callback, arg);
}

void dbl_async_shutdown(void) {
  pthread_mutex_lock(&dbl_sig_mutex);
  bool running = async_running;
  async_stop = 1;
  pthread_cond_broadcast(&dbl_sig_cond);
  pthread_mutex_unlock(&dbl_sig_mutex);
  if (running) pthread_join(async_thread, NULL);
  pthread_mutex_lock(&dbl_sig_mutex);
  async_running = false;
  while (async_list) {
    async_entry* e = async_list;
    async_list = e->next;
    free(e);
  }
  pthread_mutex_unlock(&dbl_sig_mutex);
}
