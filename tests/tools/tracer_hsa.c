/* cltap's tracer API on HSA calls (tests/tracer.rs runs it on Debian's
 * ROCr over the emulated gfx906, with cltap as HSA_TOOLS_LIB):
 *
 *   tracer_hsa basic    hsa_queue_create's parameters read and changed, its
 *                       result and out parameter; hsa_agent_get_info calls
 *                       nested in hsa_iterate_agents, paired inside out with
 *                       their instance data
 *   tracer_hsa stress   tracer_common.h's stress, on hsa_signal_store_relaxed
 *   tracer_hsa destroy  tracer_common.h's destroy waits
 *   tracer_hsa inside   destroy from inside a prologue, and from the
 *                       application's hsa_iterate_agents callback
 *
 * Each prints "... ok" lines, or "FAIL ..." and exits 1.
 */
#define CLTAP_NO_OPENCL
#include "tracer_common.h"

#include <hsa/hsa.h>

#define HSA_OK(call)                                                                  \
  do {                                                                                \
    hsa_status_t s_ = (call);                                                         \
    if (s_ != HSA_STATUS_SUCCESS) {                                                   \
      printf("FAIL %s:%d: %s returned %#x\n", __FILE__, __LINE__, #call, (unsigned)s_); \
      exit(1);                                                                        \
    }                                                                                 \
  } while (0)

static hsa_agent_t gpu;

static hsa_status_t find_gpu(hsa_agent_t a, void* data) {
  (void)data;
  hsa_device_type_t t;
  HSA_OK(hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t));
  if (t == HSA_DEVICE_TYPE_GPU) gpu = a;
  return HSA_STATUS_SUCCESS;
}

/* ---- basic --------------------------------------------------------------- */

/* The callbacks' trace: 'P'/'E' and the function, in order. */
static char trail[256];
static size_t trail_len;
static uint64_t next_instance = 1;
static hsa_queue_t* queue_seen;

static void note(char what, uint32_t id) {
  CHECK(trail_len + 2 < sizeof trail);
  trail[trail_len++] = what;
  trail[trail_len++] = id == CLTAP_API_HSA_hsa_iterate_agents ? 'i' : id == CLTAP_API_HSA_hsa_agent_get_info ? 'g' : 'q';
  trail[trail_len] = 0;
}

static void pro(uint32_t id, void* params, const void* result, void* ud, uint64_t* inst) {
  CHECK(result == NULL && *inst == 0 && ud == (void*)trail);
  note('P', id);
  if (id == CLTAP_API_HSA_hsa_queue_create) {
    cltap_params_hsa_queue_create* p = params;
    CHECK(p->agent->handle == gpu.handle && *p->size == 128 && *p->type == HSA_QUEUE_TYPE_SINGLE);
    CHECK(*p->callback == NULL && *p->queue != NULL);
    *p->size = 256; /* the runtime makes a queue of 256 */
  }
  if (id == CLTAP_API_HSA_hsa_agent_get_info) {
    cltap_params_hsa_agent_get_info* p = params;
    CHECK(*p->attribute == HSA_AGENT_INFO_DEVICE);
  }
  *inst = next_instance++ * 1000 + id;
}

static uint64_t open_instances[16]; /* what each open call's prologue left, innermost last */
static int depth;

static void epi(uint32_t id, void* params, const void* result, void* ud, uint64_t* inst) {
  (void)ud;
  note('E', id);
  CHECK(result != NULL && *(const hsa_status_t*)result == HSA_STATUS_SUCCESS);
  CHECK(depth > 0 && *inst == open_instances[--depth]);
  if (id == CLTAP_API_HSA_hsa_queue_create) queue_seen = **((cltap_params_hsa_queue_create*)params)->queue;
}

/* Records the instance the prologue will leave, so the epilogue can be
 * checked against the right one. */
static void pro_tracking(uint32_t id, void* params, const void* result, void* ud, uint64_t* inst) {
  CHECK(depth < 16);
  open_instances[depth++] = next_instance * 1000 + id;
  pro(id, params, result, ud, inst);
}

static void run_basic(void) {
  load_tracer_api();
  cltap_tracer_t t;
  TOK(T.create(trail, &t));
  uint32_t ids[] = {CLTAP_API_HSA_hsa_queue_create, CLTAP_API_HSA_hsa_iterate_agents, CLTAP_API_HSA_hsa_agent_get_info};
  for (int i = 0; i < 3; i++) TOK(T.set_callback(t, ids[i], pro_tracking, epi));
  TOK(T.enable(t));
  HSA_OK(hsa_iterate_agents(find_gpu, NULL));
  CHECK(gpu.handle != 0);
  /* gpu-emu has a GPU and a CPU agent: two nested calls, paired inside out. */
  CHECK(strcmp(trail, "PiPgEgPgEgEi") == 0);
  hsa_queue_t* q = NULL;
  HSA_OK(hsa_queue_create(gpu, 128, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
  CHECK(strcmp(trail, "PiPgEgPgEgEiPqEq") == 0);
  CHECK(q != NULL && q == queue_seen && q->size == 256);
  TOK(T.disable(t));
  HSA_OK(hsa_queue_destroy(q));
  HSA_OK(hsa_queue_create(gpu, 128, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
  CHECK(q->size == 128 && trail_len == 16); /* disabled: untraced, unchanged */
  HSA_OK(hsa_queue_destroy(q));
  TOK(T.destroy(t));
  printf("basic ok: %s, queue size 128 -> 256\n", trail);
}

/* ---- the generic tests' function: hsa_signal_store_relaxed --------------- */

static hsa_signal_t signal_;

static void store_call(uint64_t k) {
  hsa_signal_store_relaxed(signal_, (hsa_signal_value_t)k);
}

static uint64_t store_param(void* params) {
  return (uint64_t)*((cltap_params_hsa_signal_store_relaxed*)params)->value;
}

/* ---- destroy from the application's callback inside a traced call -------- */

static cltap_tracer_t iter_tracer;
static atomic_int iter_pro, iter_epi, destroyed_inside;

static void iter_pro_cb(uint32_t id, void* params, const void* result, void* ud, uint64_t* inst) {
  (void)id, (void)params, (void)result, (void)ud, (void)inst;
  atomic_fetch_add(&iter_pro, 1);
}

static void iter_epi_cb(uint32_t id, void* params, const void* result, void* ud, uint64_t* inst) {
  (void)id, (void)params, (void)result, (void)ud, (void)inst;
  atomic_fetch_add(&iter_epi, 1);
}

static hsa_status_t destroying_visit(hsa_agent_t a, void* data) {
  (void)a, (void)data;
  if (!atomic_exchange(&destroyed_inside, 1)) TOK(T.destroy(iter_tracer));
  return HSA_STATUS_SUCCESS;
}

static void run_inside(void) {
  load_tracer_api();
  run_destroy_in_callback();
  TOK(T.create(NULL, &iter_tracer));
  TOK(T.set_callback(iter_tracer, CLTAP_API_HSA_hsa_iterate_agents, iter_pro_cb, iter_epi_cb));
  TOK(T.set_callback(iter_tracer, CLTAP_API_HSA_hsa_agent_get_info, iter_pro_cb, iter_epi_cb));
  TOK(T.enable(iter_tracer));
  HSA_OK(hsa_iterate_agents(destroying_visit, NULL));
  CHECK(atomic_load(&destroyed_inside) == 1);
  CHECK(atomic_load(&iter_pro) == 1 && atomic_load(&iter_epi) == 0);
  printf("destroy inside a traced call ok\n");
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  const char* mode = argc > 1 ? argv[1] : "";
  HSA_OK(hsa_init());
  HSA_OK(hsa_signal_create(0, 0, NULL, &signal_));
  F = (traced_fn_t){CLTAP_API_HSA_hsa_signal_store_relaxed, store_call, store_param};
  if (strcmp(mode, "basic") == 0) {
    run_basic();
  } else if (strcmp(mode, "stress") == 0) {
    load_tracer_api();
    run_stress();
  } else if (strcmp(mode, "destroy") == 0) {
    load_tracer_api();
    run_destroy_waits();
  } else if (strcmp(mode, "inside") == 0) {
    run_inside();
  } else {
    printf("usage: %s basic|stress|destroy|inside\n", argv[0]);
    return 2;
  }
  HSA_OK(hsa_signal_destroy(signal_));
  HSA_OK(hsa_shut_down());
  return 0;
}
