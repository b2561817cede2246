/* The parts of cltap's tracer tests that do not depend on the API traced
 * (tests/tools/tracer_opencl.c, tracer_hsa.c; run by tests/tracer.rs):
 *
 *  - stress: 8 threads make calls of one function while another thread
 *    enables and disables the tracer 10,000 times. Every epilogue must have
 *    its prologue and every prologue its epilogue (counted per thread), the
 *    instance data must arrive intact, and the parameters must be the
 *    call's.
 *  - destroy: a prologue blocks until released; cltap_tracer_destroy from
 *    another thread must not return before the callback and its epilogue
 *    have run.
 *
 * Synchronisation is by barriers, pipes and flags, never by sleeping. The
 * API file provides one traced function through `traced_fn`.
 */
#ifndef TRACER_COMMON_H
#define TRACER_COMMON_H

#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cltap.h"

#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) {                                                    \
      printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);          \
      exit(1);                                                        \
    }                                                                 \
  } while (0)

#define TOK(call)                                                                       \
  do {                                                                                  \
    cltap_status_t st_ = (call);                                                        \
    if (st_ != CLTAP_SUCCESS) {                                                         \
      printf("FAIL %s:%d: %s returned %d (%s)\n", __FILE__, __LINE__, #call, (int)st_, \
             T.status_string(st_));                                                     \
      exit(1);                                                                          \
    }                                                                                   \
  } while (0)

/* The tracer functions, from the cltap the loader (or runtime) loaded. */
static cltap_tracer_api_t T;

static void load_tracer_api(void) {
  CHECK(cltap_tracer_api_load(&T) == 0);
}

/* The function the generic tests trace: `call(k)` makes one call whose
 * parameters carry the number k; `param_of(params)` reads k back from the
 * call's parameter struct. */
typedef struct {
  uint32_t api_id;
  void (*call)(uint64_t k);
  uint64_t (*param_of)(void* params);
} traced_fn_t;

static traced_fn_t F;

/* ---- stress ---------------------------------------------------------------- */

#define THREADS 8
#define TOGGLES 10000

typedef struct {
  atomic_uint_fast64_t prologues, epilogues, calls, bad;
} per_thread_t;

static per_thread_t per[THREADS];
static _Thread_local int me = -1;       /* this thread's index in `per` */
static _Thread_local uint64_t expect_k;  /* the k of the call in progress */
static _Thread_local int pending;        /* a prologue ran, its epilogue not yet */
static _Thread_local uint64_t sent;      /* the instance data the prologue left */
static atomic_int done;
static pthread_barrier_t start;

static atomic_int stray; /* callbacks on a thread that is not a caller */

static void stress_pro(uint32_t api_id, void* params, const void* result, void* ud, uint64_t* inst) {
  (void)ud;
  if (me < 0) {
    atomic_fetch_add(&stray, 1);
    return;
  }
  per_thread_t* p = &per[me];
  if (api_id != F.api_id || result != NULL || *inst != 0 || pending ||
      F.param_of(params) != expect_k)
    atomic_fetch_add(&p->bad, 1);
  pending = 1;
  sent = ((uint64_t)me << 48) ^ expect_k ^ 0x5a5a5a5a5a5aull;
  *inst = sent;
  atomic_fetch_add(&p->prologues, 1);
}

static void stress_epi(uint32_t api_id, void* params, const void* result, void* ud, uint64_t* inst) {
  (void)ud;
  (void)result;
  if (me < 0) {
    atomic_fetch_add(&stray, 1);
    return;
  }
  per_thread_t* p = &per[me];
  /* An epilogue without its prologue, or with another call's data. */
  if (!pending || api_id != F.api_id || *inst != sent || F.param_of(params) != expect_k)
    atomic_fetch_add(&p->bad, 1);
  pending = 0;
  atomic_fetch_add(&p->epilogues, 1);
}

static void* stress_caller(void* arg) {
  me = (int)(intptr_t)arg;
  pthread_barrier_wait(&start);
  for (uint64_t k = 1; !atomic_load(&done) || atomic_load(&per[me].calls) == 0; k++) {
    expect_k = ((uint64_t)me << 32) | k;
    F.call(expect_k);
    atomic_fetch_add(&per[me].calls, 1);
  }
  /* One more call, certainly after the last disable: never traced. */
  expect_k = ((uint64_t)me << 32);
  F.call(expect_k);
  return NULL;
}

static uint64_t total(size_t field) {
  uint64_t n = 0;
  for (int i = 0; i < THREADS; i++) n += atomic_load((atomic_uint_fast64_t*)((char*)&per[i] + field));
  return n;
}

static void run_stress(void) {
  cltap_tracer_t t;
  TOK(T.create(NULL, &t));
  TOK(T.set_callback(t, F.api_id, stress_pro, stress_epi));
  pthread_barrier_init(&start, NULL, THREADS + 1);
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++) CHECK(pthread_create(&th[i], NULL, stress_caller, (void*)(intptr_t)i) == 0);
  pthread_barrier_wait(&start);
  /* Traced calls certainly happen: wait for the first one with the tracer on. */
  TOK(T.enable(t));
  while (total(offsetof(per_thread_t, prologues)) == 0) sched_yield();
  for (int i = 0; i < TOGGLES; i++) {
    TOK(T.disable(t));
    TOK(T.enable(t));
  }
  TOK(T.disable(t));
  atomic_store(&done, 1);
  for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
  uint64_t calls = total(offsetof(per_thread_t, calls)) + THREADS;
  for (int i = 0; i < THREADS; i++) {
    uint64_t pro = atomic_load(&per[i].prologues), epi = atomic_load(&per[i].epilogues);
    if (pro != epi || atomic_load(&per[i].bad) != 0) {
      printf("FAIL stress thread %d: %llu prologues, %llu epilogues, %llu bad\n", i, (unsigned long long)pro,
             (unsigned long long)epi, (unsigned long long)atomic_load(&per[i].bad));
      exit(1);
    }
  }
  uint64_t traced = total(offsetof(per_thread_t, prologues));
  CHECK(traced > 0 && atomic_load(&stray) == 0);
  TOK(T.destroy(t));
  /* Counts vary from run to run: the test reads only "stress ok". */
  fprintf(stderr, "stress: %llu calls, %llu traced\n", (unsigned long long)calls, (unsigned long long)traced);
  printf("stress ok: %d threads, %d toggles, every prologue paired\n", THREADS, TOGGLES);
}

/* ---- destroy waits ------------------------------------------------------- */

static int entered_pipe[2], release_pipe[2];
static atomic_int order;                       /* a sequence for "what came first" */
static atomic_int epilogue_at, destroy_returned_at;
static atomic_int blocked_once;
static cltap_tracer_t destroy_tracer;
static atomic_long destroyer_tid;

static void blocking_pro(uint32_t api_id, void* params, const void* result, void* ud, uint64_t* inst) {
  (void)api_id, (void)params, (void)result, (void)ud;
  *inst = 42;
  if (atomic_exchange(&blocked_once, 1)) return;
  char c = 'e';
  CHECK(write(entered_pipe[1], &c, 1) == 1);
  CHECK(read(release_pipe[0], &c, 1) == 1);
}

static void blocking_epi(uint32_t api_id, void* params, const void* result, void* ud, uint64_t* inst) {
  (void)api_id, (void)params, (void)result, (void)ud;
  if (*inst == 42 && atomic_load(&epilogue_at) == 0) atomic_store(&epilogue_at, atomic_fetch_add(&order, 1) + 1);
}

static void* blocked_caller(void* arg) {
  (void)arg;
  F.call(7);
  return NULL;
}

static void* destroyer(void* arg) {
  (void)arg;
  atomic_store(&destroyer_tid, (long)syscall(SYS_gettid));
  TOK(T.destroy(destroy_tracer));
  atomic_store(&destroy_returned_at, atomic_fetch_add(&order, 1) + 1);
  return NULL;
}

/* The destroyer thread's scheduler state ('S': asleep, here in the wait). */
static char task_state(long tid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
  FILE* f = fopen(path, "r");
  if (!f) return '?';
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char* p = strrchr(buf, ')'); /* the name may hold spaces */
  return p && p[1] ? p[2] : '?';
}

static void run_destroy_waits(void) {
  CHECK(pipe(entered_pipe) == 0 && pipe(release_pipe) == 0);
  TOK(T.create(NULL, &destroy_tracer));
  TOK(T.set_callback(destroy_tracer, F.api_id, blocking_pro, blocking_epi));
  TOK(T.enable(destroy_tracer));
  pthread_t caller, d;
  CHECK(pthread_create(&caller, NULL, blocked_caller, NULL) == 0);
  char c;
  CHECK(read(entered_pipe[0], &c, 1) == 1); /* the prologue is running, blocked */
  CHECK(pthread_create(&d, NULL, destroyer, NULL) == 0);
  /* Until the destroyer sleeps inside destroy (or, wrongly, returns). */
  for (;;) {
    long tid = atomic_load(&destroyer_tid);
    if (atomic_load(&destroy_returned_at) != 0) break;
    if (tid != 0 && task_state(tid) == 'S') break;
    sched_yield();
  }
  CHECK(atomic_load(&destroy_returned_at) == 0); /* destroy did not return under a running callback */
  c = 'r';
  CHECK(write(release_pipe[1], &c, 1) == 1);
  pthread_join(d, NULL);
  pthread_join(caller, NULL);
  int e = atomic_load(&epilogue_at), r = atomic_load(&destroy_returned_at);
  CHECK(e != 0 && e < r); /* the epilogue ran, and before destroy returned */
  CHECK(T.enable(destroy_tracer) == CLTAP_ERROR_INVALID_TRACER);
  printf("destroy ok: waited for the blocked prologue and its epilogue\n");
}

/* ---- destroy from inside ------------------------------------------------- */

static atomic_int self_epilogues;
static cltap_tracer_t self_tracer;

static void self_destroying_pro(uint32_t api_id, void* params, const void* result, void* ud, uint64_t* inst) {
  (void)api_id, (void)params, (void)result, (void)ud, (void)inst;
  TOK(T.destroy(self_tracer));
}

static void counting_epi(uint32_t api_id, void* params, const void* result, void* ud, uint64_t* inst) {
  (void)api_id, (void)params, (void)result, (void)ud, (void)inst;
  atomic_fetch_add(&self_epilogues, 1);
}

/* A prologue that destroys its own tracer: destroy returns, the epilogue is
 * skipped, and the tracer is gone. */
static void run_destroy_in_callback(void) {
  TOK(T.create(NULL, &self_tracer));
  TOK(T.set_callback(self_tracer, F.api_id, self_destroying_pro, counting_epi));
  TOK(T.enable(self_tracer));
  F.call(1);
  F.call(2);
  CHECK(atomic_load(&self_epilogues) == 0);
  CHECK(T.destroy(self_tracer) == CLTAP_ERROR_INVALID_TRACER);
  printf("destroy in callback ok\n");
}

#endif
