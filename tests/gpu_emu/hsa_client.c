/* An HSA program that uses Debian's real ROCr on the emulated gfx906 (gpu-emu) the way any HSA
 * application does, and checks what it sees: agents, memory, queues, a code object, kernel
 * dispatches with their results and profiling times, a barrier-AND, signals, an async handler and
 * an async copy. cltap's HSA trace, intercept, timeline, .atp, buffer and tool tests run it with and
 * without cltap and compare.
 *
 *   hsa_client KERNELS.co        (tests/hsa/kernels.cl built for gfx906)
 *
 * Environment: CLIENT_DISPATCHES, the number of add_one dispatches (1..32, default 8).
 * Prints "client: ..." lines with what it saw (statuses, counts, never addresses or times), ends
 * with "client: all checks passed" and exits 0, or prints "client: FAIL ..." and exits 1. What the
 * GPU did is not the client's to count: gpu-emu's own log (GPU_EMU_LOG=1) witnesses each packet. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#define CLIENT "client"
#include "check.h"

/* Every hsa_agent_get_info call goes through here, so that the tool's count
 * can be compared with ours. */
static unsigned agent_info_calls;
static hsa_status_t agent_info(hsa_agent_t a, hsa_agent_info_t attr, void* value) {
  agent_info_calls++;
  return hsa_agent_get_info(a, attr, value);
}

static unsigned queue_create_calls;
static hsa_status_t queue_create(hsa_agent_t a, uint32_t size, hsa_queue_t** q) {
  queue_create_calls++;
  return hsa_queue_create(a, size, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, q);
}

static hsa_agent_t cpu, gpu;
static hsa_status_t find_agents(hsa_agent_t a, void* data) {
  (void)data;
  hsa_device_type_t t;
  CHECK_OK(agent_info(a, HSA_AGENT_INFO_DEVICE, &t));
  if (t == HSA_DEVICE_TYPE_GPU) gpu = a;
  if (t == HSA_DEVICE_TYPE_CPU) cpu = a;
  return HSA_STATUS_SUCCESS;
}

static hsa_region_t kernarg_region;
static hsa_status_t find_kernarg(hsa_region_t r, void* data) {
  (void)data;
  uint32_t flags;
  CHECK_OK(hsa_region_get_info(r, HSA_REGION_INFO_GLOBAL_FLAGS, &flags));
  if (flags & HSA_REGION_GLOBAL_FLAG_KERNARG) {
    kernarg_region = r;
    return HSA_STATUS_INFO_BREAK;
  }
  return HSA_STATUS_SUCCESS;
}

typedef struct {
  hsa_amd_memory_pool_t fine, coarse;
} pools_t;
static hsa_status_t find_pools(hsa_amd_memory_pool_t p, void* data) {
  pools_t* pools = data;
  hsa_amd_segment_t seg;
  uint32_t flags;
  bool alloc;
  CHECK_OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
  CHECK_OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc));
  if (seg != HSA_AMD_SEGMENT_GLOBAL || !alloc) return HSA_STATUS_SUCCESS;
  CHECK_OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
  if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) && !pools->fine.handle) pools->fine = p;
  if ((flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) && !pools->coarse.handle) pools->coarse = p;
  return HSA_STATUS_SUCCESS;
}

/* The executable's symbols, printed sorted: ROCr iterates them in no fixed order. */
typedef struct {
  int kernels, variables, n;
  char lines[8][160];
} symcount_t;
static hsa_status_t count_symbols(hsa_executable_t e, hsa_executable_symbol_t s, void* data) {
  (void)e;
  symcount_t* c = data;
  hsa_symbol_kind_t kind;
  uint32_t len;
  char name[128] = {0};
  CHECK_OK(hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &kind));
  CHECK_OK(hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, &len));
  CHECK(len < sizeof name, "name length %u", len);
  if (len < sizeof name) CHECK_OK(hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_NAME, name));
  CHECK(c->n < 8, "more than 8 symbols");
  if (c->n < 8)
    snprintf(c->lines[c->n++], sizeof c->lines[0], "client: symbol %s (%s)", name,
             kind == HSA_SYMBOL_KIND_KERNEL ? "kernel" : "variable");
  if (kind == HSA_SYMBOL_KIND_KERNEL) c->kernels++;
  if (kind == HSA_SYMBOL_KIND_VARIABLE) c->variables++;
  return HSA_STATUS_SUCCESS;
}
static int by_text(const void* a, const void* b) { return strcmp(a, b); }

static uint16_t header(hsa_packet_type_t type) {
  return (uint16_t)((type << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE));
}

/* Writes a packet body into the next slot, then its header, then rings. */
static void submit(hsa_queue_t* q, const void* pkt, uint16_t hdr, uint16_t setup) {
  /* The client never fills its 64-slot queue, so there is no wait for room. */
  uint64_t index = hsa_queue_add_write_index_screlease(q, 1);
  uint8_t* slot = (uint8_t*)q->base_address + (index & (q->size - 1)) * 64;
  memcpy(slot + 4, (const uint8_t*)pkt + 4, 60);
  __atomic_store_n((uint32_t*)slot, (uint32_t)hdr | ((uint32_t)setup << 16), __ATOMIC_RELEASE);
  hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)index);
}

static hsa_signal_t handled_signal;
static bool on_zero(hsa_signal_value_t value, void* arg) {
  hsa_signal_store_screlease(handled_signal, 100 + value);
  (void)arg;
  return false;
}

int main(int argc, char** argv) {
  const char* n_env = getenv("CLIENT_DISPATCHES");
  const unsigned N = n_env ? (unsigned)atoi(n_env) : 8;
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc != 2) {
    printf("usage: hsa_client KERNELS.co\n");
    return 2;
  }
  const char* co_path = argv[1];
  if (N == 0 || N > 32) {
    printf("client: FAIL CLIENT_DISPATCHES must be 1..32\n");
    return 1;
  }

  /* Reference counting. */
  CHECK(hsa_iterate_agents(find_agents, NULL) == HSA_STATUS_ERROR_NOT_INITIALIZED, "before hsa_init");
  CHECK_OK(hsa_init());
  CHECK_OK(hsa_init());
  CHECK_OK(hsa_shut_down());

  /* Agents. */
  CHECK_OK(hsa_iterate_agents(find_agents, NULL));
  CHECK(gpu.handle && cpu.handle, "a GPU and a CPU agent");
  char name[64];
  uint32_t cus, wave, feature;
  CHECK_OK(agent_info(gpu, HSA_AGENT_INFO_NAME, name));
  CHECK(strcmp(name, "gfx906") == 0, "GPU name %s", name);
  CHECK_OK(agent_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &cus));
  CHECK_OK(agent_info(gpu, HSA_AGENT_INFO_WAVEFRONT_SIZE, &wave));
  CHECK_OK(agent_info(gpu, HSA_AGENT_INFO_FEATURE, &feature));
  CHECK(cus == 60 && wave == 64 && (feature & HSA_AGENT_FEATURE_KERNEL_DISPATCH), "cus %u wave %u", cus, wave);
  CHECK(agent_info(gpu, (hsa_agent_info_t)0x7fff, name) == HSA_STATUS_ERROR_INVALID_ARGUMENT, "unknown attribute");
  hsa_isa_t isa;
  char isa_name[64] = {0};
  CHECK_OK(agent_info(gpu, HSA_AGENT_INFO_ISA, &isa));
  CHECK_OK(hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, isa_name));
  CHECK(strncmp(isa_name, "amdgcn-amd-amdhsa--gfx906", 25) == 0, "ISA %s", isa_name);
  uint64_t freq, t0, t1;
  CHECK_OK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &freq));
  CHECK_OK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &t0));
  CHECK(freq == 1000000000ull, "frequency %llu", (unsigned long long)freq);

  /* Memory. */
  CHECK_OK(hsa_agent_iterate_regions(gpu, find_kernarg, NULL) == HSA_STATUS_INFO_BREAK ? HSA_STATUS_SUCCESS
                                                                                        : HSA_STATUS_ERROR);
  pools_t cpu_pools = {{0}, {0}}, gpu_pools = {{0}, {0}};
  CHECK_OK(hsa_amd_agent_iterate_memory_pools(cpu, find_pools, &cpu_pools));
  CHECK_OK(hsa_amd_agent_iterate_memory_pools(gpu, find_pools, &gpu_pools));
  CHECK(cpu_pools.fine.handle && gpu_pools.coarse.handle, "pools");
  int* buf;
  CHECK_OK(hsa_amd_memory_pool_allocate(cpu_pools.fine, 64 * sizeof(int), 0, (void**)&buf));
  CHECK_OK(hsa_amd_agents_allow_access(1, &gpu, NULL, buf));
  memset(buf, 0, 64 * sizeof(int));

  /* Queue. */
  hsa_queue_t* q;
  /* Refusals, with the status the runtime gives (the tests compare cltap's log with it). */
  hsa_status_t odd = queue_create(gpu, 100, &q);
  CHECK(odd == HSA_STATUS_ERROR_INVALID_ARGUMENT, "size not a power of 2: %#x", odd);
  hsa_status_t on_cpu = queue_create(cpu, 64, &q);
  CHECK(on_cpu != HSA_STATUS_SUCCESS, "a queue on the CPU agent");
  printf("client: queue_create refused %#x %#x\n", odd, on_cpu);
  CHECK_OK(queue_create(gpu, 64, &q));
  CHECK(q->size == 64 && q->base_address && q->doorbell_signal.handle, "queue fields");
  CHECK_OK(hsa_amd_profiling_set_profiler_enabled(q, 1));

  /* Code object. */
  uint64_t kernel_object;
  uint32_t kernarg_size = 8;
  hsa_executable_t exe = {0};
  hsa_code_object_reader_t reader = {0};
  {
    int fd = open(co_path, O_RDONLY);
    CHECK(fd >= 0, "open %s", co_path);
    CHECK_OK(hsa_code_object_reader_create_from_file(fd, &reader));
    close(fd);
    CHECK_OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
    CHECK_OK(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL));
    CHECK_OK(hsa_executable_freeze(exe, NULL));
    CHECK(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL) == HSA_STATUS_ERROR_FROZEN_EXECUTABLE,
          "load after freeze");
    hsa_executable_symbol_t sym;
    CHECK(hsa_executable_get_symbol_by_name(exe, "no_such.kd", &gpu, &sym) == HSA_STATUS_ERROR_INVALID_SYMBOL_NAME,
          "unknown symbol");
    CHECK_OK(hsa_executable_get_symbol_by_name(exe, "add_one.kd", &gpu, &sym));
    CHECK_OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kernel_object));
    CHECK_OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
                                            &kernarg_size));
    uint32_t group, priv;
    CHECK_OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &group));
    CHECK_OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, &priv));
    printf("client: add_one kernarg=%u group=%u private=%u\n", kernarg_size, group, priv);
    CHECK(kernel_object != 0 && kernarg_size >= 8, "kernel object and kernarg size");
    static symcount_t sc;
    CHECK_OK(hsa_executable_iterate_symbols(exe, count_symbols, &sc));
    qsort(sc.lines, (size_t)sc.n, sizeof sc.lines[0], by_text);
    for (int i = 0; i < sc.n; i++) printf("%s\n", sc.lines[i]);
    printf("client: symbols kernels=%d variables=%d\n", sc.kernels, sc.variables);
    CHECK(sc.kernels == 2 && sc.variables == 1, "two kernels and a variable");
  }

  /* Dispatches, each with its own completion signal. */
  hsa_signal_t* done = calloc(N, sizeof *done);
  for (unsigned i = 0; i < N; i++) {
    CHECK_OK(hsa_signal_create(1, 0, NULL, &done[i]));
    void* kernarg;
    CHECK_OK(hsa_memory_allocate(kernarg_region, kernarg_size, &kernarg));
    memcpy(kernarg, &buf, sizeof buf);
    hsa_kernel_dispatch_packet_t p;
    memset(&p, 0, sizeof p);
    p.workgroup_size_x = 64;
    p.workgroup_size_y = p.workgroup_size_z = 1;
    p.grid_size_x = 64;
    p.grid_size_y = p.grid_size_z = 1;
    p.kernel_object = kernel_object;
    p.kernarg_address = kernarg;
    p.completion_signal = done[i];
    submit(q, &p, header(HSA_PACKET_TYPE_KERNEL_DISPATCH), 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
  }
  for (unsigned i = 0; i < N; i++) {
    hsa_signal_value_t v = hsa_signal_wait_scacquire(done[i], HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX,
                                                     HSA_WAIT_STATE_BLOCKED);
    CHECK(v == 0, "signal %u completed with %ld", i, (long)v);
  }
  /* Each dispatch added 1 to each of the 64 values: the emulated GPU ran every one. */
  unsigned bad = 0;
  for (int i = 0; i < 64; i++) bad += buf[i] != (int)N;
  CHECK(bad == 0, "buffer: %u of 64 values wrong (buf[0]=%d)", bad, buf[0]);
  printf("client: dispatches=%u buf[0]=%d\n", N, buf[0]);

  /* Profiling: every dispatch took time after the previous one ended. */
  {
    uint64_t prev_end = 0;
    for (unsigned i = 0; i < N; i++) {
      hsa_amd_profiling_dispatch_time_t t;
      CHECK_OK(hsa_amd_profiling_get_dispatch_time(gpu, done[i], &t));
      CHECK(t.start != 0 && t.start <= t.end, "dispatch %u: start %llu end %llu", i, (unsigned long long)t.start,
            (unsigned long long)t.end);
      CHECK(t.start >= prev_end, "dispatch %u starts at %llu before the previous end %llu", i,
            (unsigned long long)t.start, (unsigned long long)prev_end);
      CHECK(t.start >= t0, "dispatch %u before the client's first timestamp", i);
      prev_end = t.end;
    }
    printf("client: profiling times ordered\n");
  }

  /* A barrier-AND waits for its dependency. */
  hsa_signal_t dep, barrier_done;
  CHECK_OK(hsa_signal_create(1, 0, NULL, &dep));
  CHECK_OK(hsa_signal_create(1, 0, NULL, &barrier_done));
  hsa_barrier_and_packet_t b;
  memset(&b, 0, sizeof b);
  b.dep_signal[0] = dep;
  b.completion_signal = barrier_done;
  submit(q, &b, header(HSA_PACKET_TYPE_BARRIER_AND), 0);
  CHECK(hsa_signal_wait_scacquire(barrier_done, HSA_SIGNAL_CONDITION_EQ, 0, 2000000, HSA_WAIT_STATE_BLOCKED) == 1,
        "barrier completed before its dependency");
  hsa_signal_store_screlease(dep, 0);
  CHECK(hsa_signal_wait_scacquire(barrier_done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0,
        "barrier");
  printf("client: barrier-AND done\n");
  CHECK(hsa_queue_load_read_index_scacquire(q) == hsa_queue_load_write_index_scacquire(q), "queue drained");

  /* Signals: a timed wait returns the current value; an async handler runs
   * when its condition holds. */
  hsa_signal_t s;
  CHECK_OK(hsa_signal_create(3, 0, NULL, &s));
  CHECK(hsa_signal_wait_relaxed(s, HSA_SIGNAL_CONDITION_EQ, 5, 1000000, HSA_WAIT_STATE_BLOCKED) == 3, "timeout");
  hsa_signal_add_relaxed(s, 4);
  CHECK(hsa_signal_exchange_scacq_screl(s, 10) == 7, "exchange");
  CHECK(hsa_signal_cas_scacq_screl(s, 10, 1) == 10 && hsa_signal_load_relaxed(s) == 1, "cas");
  CHECK_OK(hsa_signal_create(0, 0, NULL, &handled_signal));
  CHECK_OK(hsa_amd_signal_async_handler(s, HSA_SIGNAL_CONDITION_EQ, 0, on_zero, NULL));
  hsa_signal_subtract_screlease(s, 1);
  CHECK(hsa_signal_wait_scacquire(handled_signal, HSA_SIGNAL_CONDITION_EQ, 100, UINT64_MAX,
                                  HSA_WAIT_STATE_BLOCKED) == 100, "async handler");

  /* Async copy into "device" memory, held back by a dependency. */
  CHECK_OK(hsa_amd_profiling_async_copy_enable(true));
  enum { BYTES = 1 << 16 };
  uint8_t *src, *dst;
  CHECK_OK(hsa_amd_memory_pool_allocate(cpu_pools.fine, BYTES, 0, (void**)&src));
  CHECK_OK(hsa_amd_memory_pool_allocate(gpu_pools.coarse, BYTES, 0, (void**)&dst));
  for (int i = 0; i < BYTES; i++) src[i] = (uint8_t)(i * 7 + 3);
  hsa_signal_t copy_dep, copy_done;
  CHECK_OK(hsa_signal_create(1, 0, NULL, &copy_dep));
  CHECK_OK(hsa_signal_create(1, 0, NULL, &copy_done));
  CHECK_OK(hsa_amd_memory_async_copy(dst, gpu, src, cpu, BYTES, 1, &copy_dep, copy_done));
  CHECK(hsa_signal_load_scacquire(copy_done) == 1, "copy done before its dependency");
  hsa_signal_store_screlease(copy_dep, 0);
  CHECK(hsa_signal_wait_scacquire(copy_done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0,
        "copy");
  CHECK(memcmp(src, dst, BYTES) == 0, "copied bytes");
  hsa_amd_profiling_async_copy_time_t ct;
  CHECK_OK(hsa_amd_profiling_get_async_copy_time(copy_done, &ct));
  CHECK(ct.start != 0 && ct.start <= ct.end, "copy time %llu..%llu", (unsigned long long)ct.start,
        (unsigned long long)ct.end);
  memset(dst, 0, BYTES);
  CHECK_OK(hsa_memory_copy(dst, src, BYTES));
  CHECK(memcmp(src, dst, BYTES) == 0, "hsa_memory_copy");
  CHECK_OK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &t1));
  CHECK(t1 >= t0, "timestamps");

  /* Clean up. */
  for (unsigned i = 0; i < N; i++) CHECK_OK(hsa_signal_destroy(done[i]));
  free(done);
  hsa_signal_t sigs[] = {dep, barrier_done, s, handled_signal, copy_dep, copy_done};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) CHECK_OK(hsa_signal_destroy(sigs[i]));
  CHECK_OK(hsa_queue_destroy(q));
  CHECK_OK(hsa_executable_destroy(exe));
  CHECK_OK(hsa_code_object_reader_destroy(reader));
  CHECK_OK(hsa_amd_memory_pool_free(src));
  CHECK_OK(hsa_amd_memory_pool_free(dst));
  CHECK_OK(hsa_amd_memory_pool_free(buf));
  printf("client: agent_get_info calls=%u queue_create calls=%u\n", agent_info_calls, queue_create_calls);
  CHECK_OK(hsa_shut_down());
  CHECK(hsa_shut_down() == HSA_STATUS_ERROR_NOT_INITIALIZED, "shut down twice");
  if (failures) {
    printf("client: %d checks failed\n", failures);
    return 1;
  }
  printf("client: all checks passed\n");
  return 0;
}
