/* An HSA program for cltap's emulated gfx906 (gpu-emu): it uses Debian's real ROCr the way any
 * HSA application does, and checks what it sees.
 *
 *   emu_client KERNELS.co [all|fault|fault-handled|burst]
 *
 * all (default): kernel dispatches with results and profiling times, a second kernel whose
 *   arguments differ (its first argument is the first of vadd_f32's), barrier-AND and barrier-OR (on another queue's signal), async copies
 *   host<->device and device<->device through ROCr's blit kernels (aligned and misaligned),
 *   memory fill, copy times, copy dependencies, and one signal waited from four threads.
 *   Ends with "emu_client: all checks passed" and exit 0, or "emu_client: FAIL ..." and exit 1.
 * fault: one vadd_f32 dispatch on a queue with an error callback; prints what the callback gets.
 *   Run with GPU_EMU_FAULT set (see docs/gpu-emu.md).
 * fault-handled: as fault, with a system event handler for GPU memory faults installed. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#define CLIENT "emu_client"
#include "check.h"

#define N 1024
#define FOREVER UINT64_MAX

static hsa_agent_t cpu, gpu;
static hsa_amd_memory_pool_t host_pool, kernarg_pool, device_pool;

static hsa_status_t find_agents(hsa_agent_t a, void* data) {
  hsa_device_type_t t;
  (void)data;
  CHECK_OK(hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t));
  if (t == HSA_DEVICE_TYPE_CPU && !cpu.handle) cpu = a;
  if (t == HSA_DEVICE_TYPE_GPU && !gpu.handle) gpu = a;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_pools(hsa_amd_memory_pool_t p, void* data) {
  hsa_amd_segment_t seg;
  uint32_t flags = 0;
  int device = data != NULL;
  CHECK_OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
  if (seg != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
  CHECK_OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
  if (device && !device_pool.handle) device_pool = p;
  if (!device && (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !kernarg_pool.handle) kernarg_pool = p;
  if (!device && (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) &&
      !(flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !host_pool.handle)
    host_pool = p;
  return HSA_STATUS_SUCCESS;
}

static void* alloc(hsa_amd_memory_pool_t pool, size_t bytes) {
  void* p = NULL;
  CHECK_OK(hsa_amd_memory_pool_allocate(pool, bytes, 0, &p));
  CHECK_OK(hsa_amd_agents_allow_access(1, &gpu, NULL, p));
  return p;
}

static uint16_t header(hsa_packet_type_t type) {
  return (uint16_t)((type << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE));
}

/* Set while a burst is written: submit() then leaves the doorbell to the caller. */
static int quiet_doorbell;

/* Writes a packet body into the next slot, then its header (release), then rings the doorbell. */
static void submit(hsa_queue_t* q, const void* pkt, uint16_t hdr, uint16_t setup) {
  uint64_t index = hsa_queue_add_write_index_screlease(q, 1);
  while (index - hsa_queue_load_read_index_scacquire(q) >= q->size) {
  }
  uint8_t* slot = (uint8_t*)q->base_address + (index & (q->size - 1)) * 64;
  memcpy(slot + 4, (const uint8_t*)pkt + 4, 60);
  __atomic_store_n((uint32_t*)slot, (uint32_t)hdr | ((uint32_t)setup << 16), __ATOMIC_RELEASE);
  if (!quiet_doorbell) hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)index);
}

struct vadd_args {
  const float* a;
  const float* b;
  float* c;
  uint32_t n;
};

static uint64_t vadd_object, minus_one_object;
static struct vadd_args* kernargs;
static unsigned next_kernarg;

static void dispatch(hsa_queue_t* q, uint64_t object, const float* a, const float* b, float* c, hsa_signal_t done) {
  struct vadd_args* args = &kernargs[next_kernarg++ % 64];
  args->a = a;
  args->b = b;
  args->c = c;
  args->n = N;
  hsa_kernel_dispatch_packet_t p;
  memset(&p, 0, sizeof p);
  p.workgroup_size_x = 64;
  p.workgroup_size_y = p.workgroup_size_z = 1;
  p.grid_size_x = N;
  p.grid_size_y = p.grid_size_z = 1;
  p.kernel_object = object;
  p.kernarg_address = args;
  p.completion_signal = done;
  submit(q, &p, header(HSA_PACKET_TYPE_KERNEL_DISPATCH), 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
}

static void barrier(hsa_queue_t* q, hsa_packet_type_t type, hsa_signal_t d0, hsa_signal_t d1, hsa_signal_t done) {
  hsa_barrier_and_packet_t p;
  memset(&p, 0, sizeof p);
  p.dep_signal[0] = d0;
  p.dep_signal[1] = d1;
  p.completion_signal = done;
  submit(q, &p, header(type), 0);
}

static hsa_signal_t signal_of(hsa_signal_value_t v) {
  hsa_signal_t s;
  CHECK_OK(hsa_signal_create(v, 0, NULL, &s));
  return s;
}

static hsa_signal_value_t wait_zero(hsa_signal_t s) {
  return hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, FOREVER, HSA_WAIT_STATE_BLOCKED);
}

static uint64_t symbol(hsa_executable_t exe, const char* name) {
  hsa_executable_symbol_t sym;
  uint64_t object = 0;
  CHECK_OK(hsa_executable_get_symbol_by_name(exe, name, &gpu, &sym));
  CHECK_OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &object));
  return object;
}

static void load_kernels(const char* path) {
  hsa_file_t fd = open(path, 0);
  CHECK(fd >= 0, "open %s", path);
  hsa_code_object_reader_t reader;
  hsa_executable_t exe;
  CHECK_OK(hsa_code_object_reader_create_from_file(fd, &reader));
  CHECK_OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
  CHECK_OK(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL));
  CHECK_OK(hsa_executable_freeze(exe, NULL));
  vadd_object = symbol(exe, "vadd_f32.kd");
  minus_one_object = symbol(exe, "minus_one.kd");
}

static hsa_status_t queue_error_status;
static hsa_signal_t queue_error_seen;
static void on_queue_error(hsa_status_t status, hsa_queue_t* q, void* data) {
  (void)q;
  (void)data;
  queue_error_status = status;
  hsa_signal_store_screlease(queue_error_seen, 0);
}

static hsa_signal_t fault_seen;
static hsa_status_t on_system_event(const hsa_amd_event_t* event, void* data) {
  (void)data;
  if (event->event_type == HSA_AMD_GPU_MEMORY_FAULT_EVENT) {
    printf("emu_client: memory fault event at %#llx, reason mask %#x\n",
           (unsigned long long)event->memory_fault.virtual_address, event->memory_fault.fault_reason_mask);
    hsa_signal_store_screlease(fault_seen, 0);
    return HSA_STATUS_SUCCESS;
  }
  return HSA_STATUS_ERROR;
}

static void* waiter(void* arg) {
  hsa_signal_t s = *(hsa_signal_t*)arg;
  return (void*)(intptr_t)wait_zero(s);
}

/* Prints the files this process mapped for ROCr and for the thunk, so a test can check which
 * libraries were really loaded. */
static void print_loaded(void) {
  FILE* maps = fopen("/proc/self/maps", "r");
  char line[4096], last[2][4096] = {"", ""};
  const char* keys[2] = {"libhsa-runtime64.so", "libhsakmt.so"};
  while (maps && fgets(line, sizeof line, maps)) {
    char* path = strchr(line, '/');
    if (!path) continue;
    path[strcspn(path, "\n")] = 0;
    for (int k = 0; k < 2; k++)
      if (strstr(path, keys[k]) && strcmp(last[k], path) != 0) {
        snprintf(last[k], sizeof last[k], "%s", path);
        printf("emu_client: loaded %s\n", path);
      }
  }
  if (maps) fclose(maps);
}

static void check_vadd(const float* c, float add, const char* what) {
  unsigned bad = 0;
  for (unsigned i = 0; i < N; i++) bad += c[i] != (float)i + add;
  CHECK(bad == 0, "%s: %u of %u results wrong (c[1]=%f)", what, bad, N, c[1]);
}

static void run_fault(hsa_queue_t* q, float* a, float* b, float* c, int handled) {
  hsa_signal_t done = signal_of(1);
  fault_seen = signal_of(1);
  if (handled) CHECK_OK(hsa_amd_register_system_event_handler(on_system_event, NULL));
  dispatch(q, vadd_object, a, b, c, done);
  printf("emu_client: dispatched\n");
  hsa_signal_t both[2] = {queue_error_seen, fault_seen};
  hsa_signal_condition_t conds[2] = {HSA_SIGNAL_CONDITION_EQ, HSA_SIGNAL_CONDITION_EQ};
  hsa_signal_value_t zeros[2] = {0, 0};
  hsa_signal_value_t value;
  uint32_t which = hsa_amd_signal_wait_any(2, both, conds, zeros, FOREVER, HSA_WAIT_STATE_BLOCKED, &value);
  if (which == 0) {
    const char* s = "?";
    hsa_status_string(queue_error_status, &s);
    printf("emu_client: queue error %#x: %s\n", queue_error_status, s);
  }
  printf("emu_client: dispatch signal %ld\n", (long)hsa_signal_load_scacquire(done));
}

/* BURST dispatches written into a 64-packet queue, then one doorbell ring for all of them (as
   HSA allows): the runtime's intercept queue hands them over in one go. */
static void run_burst(hsa_queue_t* q, const float* a, const float* b, float* c) {
  /* Three bursts of 40, each rung in with one doorbell store: 120 dispatches in flight in a
   * 64-packet queue, which the application's own ring allows (each burst waits for room), but which
   * ROCr's hidden queue behind an intercept queue holds only if the tool waits for room. */
  enum { BURST = 40, BURSTS = 3 };
  hsa_signal_t done = signal_of(BURST * BURSTS);
  for (unsigned k = 0; k < BURSTS; k++) {
    quiet_doorbell = 1;
    uint64_t last = 0;
    for (unsigned i = 0; i < BURST; i++) {
      last = hsa_queue_load_write_index_relaxed(q);
      dispatch(q, vadd_object, a, b, c, done);
    }
    quiet_doorbell = 0;
    hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)last);
  }
  CHECK(wait_zero(done) == 0, "%d bursts of %d dispatches", BURSTS, BURST);
  check_vadd(c, 2.0f, "vadd_f32 burst");
  printf("emu_client: all checks passed\n");
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc < 2) {
    printf("usage: emu_client KERNELS.co [all|fault|fault-handled|burst]\n");
    return 2;
  }
  const char* mode = argc > 2 ? argv[2] : "all";
  CHECK_OK(hsa_init());
  print_loaded();
  CHECK_OK(hsa_iterate_agents(find_agents, NULL));
  CHECK(gpu.handle && cpu.handle, "a GPU and a CPU agent");
  char name[64] = {0};
  CHECK_OK(hsa_agent_get_info(gpu, HSA_AGENT_INFO_NAME, name));
  CHECK(strcmp(name, "gfx906") == 0, "GPU name %s", name);
  CHECK_OK(hsa_amd_agent_iterate_memory_pools(cpu, find_pools, NULL));
  CHECK_OK(hsa_amd_agent_iterate_memory_pools(gpu, find_pools, (void*)1));
  CHECK(host_pool.handle && kernarg_pool.handle && device_pool.handle, "pools");

  queue_error_seen = signal_of(1);
  hsa_queue_t *q, *q2;
  CHECK_OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, on_queue_error, NULL, UINT32_MAX, UINT32_MAX, &q));
  CHECK_OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, on_queue_error, NULL, UINT32_MAX, UINT32_MAX, &q2));
  CHECK_OK(hsa_amd_profiling_set_profiler_enabled(q, 1));
  load_kernels(argv[1]);
  kernargs = alloc(kernarg_pool, 64 * sizeof *kernargs);

  float* a = alloc(host_pool, N * sizeof(float));
  float* b = alloc(host_pool, N * sizeof(float));
  float* c = alloc(host_pool, N * sizeof(float));
  for (unsigned i = 0; i < N; i++) {
    a[i] = (float)i;
    b[i] = 2.0f;
    c[i] = 0.0f;
  }
  if (strcmp(mode, "burst") == 0) {
    run_burst(q2, a, b, c);
    return 0;
  }
  if (strcmp(mode, "fault") == 0 || strcmp(mode, "fault-handled") == 0) {
    run_fault(q, a, b, c, strcmp(mode, "fault-handled") == 0);
    return 0;
  }

  /* Dispatches in order on one profiled queue, each with its own signal. */
  enum { D = 4 };
  hsa_signal_t done[D];
  uint64_t before, after;
  CHECK_OK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &before));
  for (unsigned i = 0; i < D; i++) {
    done[i] = signal_of(1);
    b[0] = 2.0f;
    dispatch(q, vadd_object, a, b, c, done[i]);
  }
  uint64_t prev_end = 0;
  for (unsigned i = 0; i < D; i++) {
    CHECK(wait_zero(done[i]) == 0, "dispatch %u", i);
    hsa_amd_profiling_dispatch_time_t t;
    CHECK_OK(hsa_amd_profiling_get_dispatch_time(gpu, done[i], &t));
    CHECK(t.start != 0 && t.start <= t.end, "dispatch %u: start %llu end %llu", i, (unsigned long long)t.start,
          (unsigned long long)t.end);
    CHECK(t.start >= prev_end, "dispatch %u starts before the previous one ended", i);
    CHECK(t.start >= before, "dispatch %u starts before it was submitted", i);
    prev_end = t.end;
  }
  CHECK_OK(hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP, &after));
  CHECK(prev_end <= after, "last dispatch ends after the host saw it complete");
  check_vadd(c, 2.0f, "vadd_f32");
  printf("emu_client: %u dispatches, times within [%llu, %llu]\n", D, (unsigned long long)before,
         (unsigned long long)after);

  /* Another kernel, reading only its first argument (a): each work-group writes -1 to a[0..63];
     c is left as it was. */
  hsa_signal_t minus_done = signal_of(1);
  dispatch(q, minus_one_object, a, b, c, minus_done);
  CHECK(wait_zero(minus_done) == 0, "minus_one completes");
  unsigned marked = 0;
  for (unsigned i = 0; i < N; i++) marked += a[i] == (i < 64 ? -1.0f : (float)i);
  CHECK(marked == N, "minus_one: %u of %u of a as expected (a[0]=%f a[64]=%f)", marked, N, a[0], a[64]);
  check_vadd(c, 2.0f, "c after minus_one");
  for (unsigned i = 0; i < 64; i++) a[i] = (float)i;

  /* Barrier-AND on q2 waits for a dispatch on q, which waits behind a host gate. */
  hsa_signal_t gate = signal_of(1), first = signal_of(1), joined = signal_of(1), second = signal_of(1);
  barrier(q, HSA_PACKET_TYPE_BARRIER_AND, gate, (hsa_signal_t){0}, (hsa_signal_t){0});
  for (unsigned i = 0; i < N; i++) b[i] = 3.0f;
  dispatch(q, vadd_object, a, b, c, first);
  barrier(q2, HSA_PACKET_TYPE_BARRIER_AND, first, (hsa_signal_t){0}, joined);
  dispatch(q2, vadd_object, c, b, c, second);
  CHECK(hsa_signal_load_scacquire(first) == 1 && hsa_signal_load_scacquire(joined) == 1,
        "nothing passes a closed gate");
  hsa_signal_store_screlease(gate, 0);
  CHECK(wait_zero(second) == 0 && hsa_signal_load_scacquire(joined) == 0, "barrier-AND then dispatch");
  check_vadd(c, 6.0f, "vadd after barrier-AND");

  /* Barrier-OR completes when one of its signals reaches 0. */
  hsa_signal_t left = signal_of(1), right = signal_of(1), either = signal_of(1);
  barrier(q2, HSA_PACKET_TYPE_BARRIER_OR, left, right, either);
  hsa_signal_store_screlease(right, 0);
  CHECK(wait_zero(either) == 0 && hsa_signal_load_scacquire(left) == 1, "barrier-OR on one of two");
  printf("emu_client: barriers done\n");

  /* Async copies through ROCr's blit kernels: host -> device -> device -> host, misaligned too. */
  enum { BYTES = 1 << 20 };
  CHECK_OK(hsa_amd_profiling_async_copy_enable(1));
  unsigned char* src = alloc(host_pool, BYTES);
  unsigned char* back = alloc(host_pool, BYTES);
  unsigned char* dev1 = alloc(device_pool, BYTES);
  unsigned char* dev2 = alloc(device_pool, BYTES);
  for (unsigned i = 0; i < BYTES; i++) src[i] = (unsigned char)(i * 7 + 3);
  memset(back, 0, BYTES);
  hsa_signal_t cdep = signal_of(1), c1 = signal_of(1), c2 = signal_of(1), c3 = signal_of(1);
  CHECK_OK(hsa_amd_memory_async_copy(dev1, gpu, src, cpu, BYTES, 1, &cdep, c1));
  CHECK(hsa_signal_load_scacquire(c1) == 1, "copy waits for its dependency");
  hsa_signal_store_screlease(cdep, 0);
  CHECK(wait_zero(c1) == 0, "host to device");
  CHECK_OK(hsa_amd_memory_async_copy(dev2 + 3, gpu, dev1 + 1, gpu, BYTES - 8, 0, NULL, c2));
  CHECK(wait_zero(c2) == 0, "device to device, misaligned");
  CHECK_OK(hsa_amd_memory_async_copy(back, cpu, dev2, gpu, BYTES, 0, NULL, c3));
  CHECK(wait_zero(c3) == 0, "device to host");
  CHECK(memcmp(back + 3, src + 1, BYTES - 8) == 0, "copied bytes (first %u %u)", back[3], src[1]);
  hsa_amd_profiling_async_copy_time_t ct;
  CHECK_OK(hsa_amd_profiling_get_async_copy_time(c1, &ct));
  CHECK(ct.start != 0 && ct.start <= ct.end, "copy time %llu..%llu", (unsigned long long)ct.start,
        (unsigned long long)ct.end);
  CHECK_OK(hsa_amd_memory_fill(dev1, 0x5a5a5a5au, BYTES / 4));
  hsa_signal_t c4 = signal_of(1);
  CHECK_OK(hsa_amd_memory_async_copy(back, cpu, dev1, gpu, BYTES, 0, NULL, c4));
  CHECK(wait_zero(c4) == 0, "filled bytes back");
  unsigned unfilled = 0;
  for (unsigned i = 0; i < BYTES; i++) unfilled += back[i] != 0x5a;
  CHECK(unfilled == 0, "%u bytes not filled", unfilled);
  printf("emu_client: copies done\n");

  /* One signal, four waiting threads, completed by the GPU. */
  hsa_signal_t shared = signal_of(1);
  pthread_t threads[4];
  for (int i = 0; i < 4; i++) pthread_create(&threads[i], NULL, waiter, &shared);
  dispatch(q, vadd_object, a, b, c, shared);
  for (int i = 0; i < 4; i++) {
    void* seen;
    pthread_join(threads[i], &seen);
    CHECK((intptr_t)seen == 0, "waiter %d saw %ld", i, (long)(intptr_t)seen);
  }
  CHECK(hsa_signal_load_scacquire(queue_error_seen) == 1, "no queue error (status %#x)", queue_error_status);

  CHECK_OK(hsa_queue_destroy(q2));
  CHECK_OK(hsa_queue_destroy(q));
  CHECK_OK(hsa_shut_down());
  if (failures) {
    printf("emu_client: %d checks failed\n", failures);
    return 1;
  }
  printf("emu_client: all checks passed\n");
  return 0;
}
