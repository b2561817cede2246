/* cltap HSA tests: small HSA programs, run with and without cltap by
 * tests/hsa_programs.rs. They print deterministic results only (no
 * addresses, no times).
 *
 *   programs info                  agents, regions, memory pools
 *   programs many KERNELS.co [N]   N dispatches (default 200) on one queue
 *   programs barriers KERNELS.co   barrier-AND and barrier-OR between dispatches
 *   programs threads               a signal waited on from several threads
 *   programs copy [rect]           hsa_amd_memory_async_copy, bytes checked; with "rect" also
 *                                  hsa_amd_memory_async_copy_rect (ROCr copies rectangles only
 *                                  with an SDMA engine)
 *   programs shared KERNELS.co     one completion signal for several dispatches
 *   programs destroy KERNELS.co    a queue destroyed with dispatches held back
 *   programs reload KERNELS.co OTHER.co  add_one, then (its executable
 *                                  destroyed) OTHER.co's zzz_other
 *   programs leaky KERNELS.co      pool allocations, an executable, a queue and a signal
 *                                  left on purpose (the leak check)
 *   programs errors KERNELS.co     two calls that fail (a bad attribute, a NULL
 *                                  signal pointer) among calls that succeed, an
 *                                  iteration ended by HSA_STATUS_INFO_BREAK, and
 *                                  KERNELS.co loaded from memory
 *   programs sizes KERNELS.co [vary]  dispatches of many shapes, one after the
 *                                  other; with "vary", a run that finds
 *                                  sizes.ran in its directory dispatches one
 *                                  shape differently (and every run leaves it)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hsa.h"
#include "hsa_ext_amd.h"

#include "hsa_common.h"

static hsa_amd_memory_pool_t cpu_fine, gpu_coarse;
static hsa_status_t find_pool(hsa_amd_memory_pool_t p, void* data) {
  int want_fine = data != NULL;
  hsa_amd_segment_t seg;
  uint32_t flags;
  bool alloc;
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc));
  if (seg != HSA_AMD_SEGMENT_GLOBAL || !alloc) return HSA_STATUS_SUCCESS;
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
  if (want_fine && (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) && !cpu_fine.handle) cpu_fine = p;
  if (!want_fine && (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) && !gpu_coarse.handle) gpu_coarse = p;
  return HSA_STATUS_SUCCESS;
}

static void setup(void) {
  OK(hsa_init());
  OK(hsa_iterate_agents(find_agents, NULL));
  CHECK(gpu.handle && cpu.handle);
  CHECK(hsa_agent_iterate_regions(gpu, find_kernarg, NULL) == HSA_STATUS_INFO_BREAK);
  OK(hsa_amd_agent_iterate_memory_pools(cpu, find_pool, (void*)1));
  OK(hsa_amd_agent_iterate_memory_pools(gpu, find_pool, NULL));
  CHECK(cpu_fine.handle && gpu_coarse.handle);
}

/* ---- info ---- */
static const char* seg_name(hsa_region_segment_t s) {
  switch (s) {
    case HSA_REGION_SEGMENT_GLOBAL: return "global";
    case HSA_REGION_SEGMENT_READONLY: return "readonly";
    case HSA_REGION_SEGMENT_PRIVATE: return "private";
    case HSA_REGION_SEGMENT_GROUP: return "group";
    case HSA_REGION_SEGMENT_KERNARG: return "kernarg";
  }
  return "?";
}
static hsa_status_t print_region(hsa_region_t r, void* data) {
  (void)data;
  hsa_region_segment_t seg;
  uint32_t flags = 0;
  size_t size = 0;
  bool alloc = false;
  OK(hsa_region_get_info(r, HSA_REGION_INFO_SEGMENT, &seg));
  if (seg == HSA_REGION_SEGMENT_GLOBAL) OK(hsa_region_get_info(r, HSA_REGION_INFO_GLOBAL_FLAGS, &flags));
  OK(hsa_region_get_info(r, HSA_REGION_INFO_SIZE, &size));
  OK(hsa_region_get_info(r, HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED, &alloc));
  printf("  region segment=%s flags=%#x size=%zu alloc=%d\n", seg_name(seg), flags, size, alloc);
  return HSA_STATUS_SUCCESS;
}
static hsa_status_t print_pool(hsa_amd_memory_pool_t p, void* data) {
  (void)data;
  hsa_amd_segment_t seg;
  uint32_t flags = 0;
  size_t size = 0, gran = 0;
  bool alloc = false;
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
  if (seg == HSA_AMD_SEGMENT_GLOBAL) OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size));
  OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc));
  if (alloc) OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, &gran));
  printf("  pool segment=%d flags=%#x size=%zu alloc=%d granule=%zu\n", (int)seg, flags, size, alloc, gran);
  return HSA_STATUS_SUCCESS;
}
static hsa_status_t print_agent(hsa_agent_t a, void* data) {
  (void)data;
  char name[64] = {0}, vendor[64] = {0};
  hsa_device_type_t t;
  uint32_t cus = 0, wave = 0, qmax = 0;
  OK(hsa_agent_get_info(a, HSA_AGENT_INFO_NAME, name));
  OK(hsa_agent_get_info(a, HSA_AGENT_INFO_VENDOR_NAME, vendor));
  OK(hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t));
  OK(hsa_agent_get_info(a, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &cus));
  OK(hsa_agent_get_info(a, HSA_AGENT_INFO_QUEUES_MAX, &qmax));
  if (t == HSA_DEVICE_TYPE_GPU) OK(hsa_agent_get_info(a, HSA_AGENT_INFO_WAVEFRONT_SIZE, &wave));
  printf("agent %s vendor=\"%s\" type=%d cus=%u wavefront=%u queues_max=%u\n", name, vendor, (int)t, cus, wave, qmax);
  OK(hsa_agent_iterate_regions(a, print_region, NULL));
  OK(hsa_amd_agent_iterate_memory_pools(a, print_pool, NULL));
  return HSA_STATUS_SUCCESS;
}
static int prog_info(void) {
  OK(hsa_init());
  uint16_t major, minor;
  OK(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &major));
  OK(hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MINOR, &minor));
  printf("hsa %u.%u\n", major, minor);
  OK(hsa_iterate_agents(print_agent, NULL));
  OK(hsa_shut_down());
  printf("info done\n");
  return 0;
}

/* ---- kernels ---- */
static uint64_t kernel_object;
static uint32_t kernarg_size;
static hsa_executable_t exe;
static hsa_code_object_reader_t reader;
static int* buf;

static void load_kernel_named(const char* co, const char* name) {
  int fd = open(co, O_RDONLY);
  CHECK(fd >= 0);
  OK(hsa_code_object_reader_create_from_file(fd, &reader));
  close(fd);
  OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
  OK(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL));
  OK(hsa_executable_freeze(exe, NULL));
  hsa_executable_symbol_t sym;
  OK(hsa_executable_get_symbol_by_name(exe, name, &gpu, &sym));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kernel_object));
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &kernarg_size));
  CHECK(kernel_object && kernarg_size >= 8);
  if (!buf) {
    OK(hsa_amd_memory_pool_allocate(cpu_fine, 64 * sizeof(int), 0, (void**)&buf));
    OK(hsa_amd_agents_allow_access(1, &gpu, NULL, buf));
  }
}

static void load_kernel(const char* co) { load_kernel_named(co, "add_one.kd"); }

static void unload_kernel(void) {
  OK(hsa_executable_destroy(exe));
  OK(hsa_code_object_reader_destroy(reader));
  OK(hsa_amd_memory_pool_free(buf));
  buf = NULL;
}

static uint16_t header(hsa_packet_type_t type) {
  return (uint16_t)((type << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE));
}

/* Writes a packet into the next slot, waiting for room, then rings. */
static void submit(hsa_queue_t* q, const void* pkt, uint16_t hdr, uint16_t setup) {
  uint64_t index = hsa_queue_add_write_index_screlease(q, 1);
  while (index - hsa_queue_load_read_index_scacquire(q) >= q->size) sched_yield();
  uint8_t* slot = (uint8_t*)q->base_address + (index & (q->size - 1)) * 64;
  memcpy(slot + 4, (const uint8_t*)pkt + 4, 60);
  __atomic_store_n((uint32_t*)slot, (uint32_t)hdr | ((uint32_t)setup << 16), __ATOMIC_RELEASE);
  hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)index);
}

static void dispatch_with(hsa_queue_t* q, hsa_signal_t done, void* kernarg) {
  memcpy(kernarg, &buf, sizeof buf);
  hsa_kernel_dispatch_packet_t p;
  memset(&p, 0, sizeof p);
  p.workgroup_size_x = 64;
  p.workgroup_size_y = p.workgroup_size_z = 1;
  p.grid_size_x = 64;
  p.grid_size_y = p.grid_size_z = 1;
  p.kernel_object = kernel_object;
  p.kernarg_address = kernarg;
  p.completion_signal = done;
  submit(q, &p, header(HSA_PACKET_TYPE_KERNEL_DISPATCH), 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
}

static void dispatch(hsa_queue_t* q, hsa_signal_t done) {
  void* kernarg;
  OK(hsa_memory_allocate(kernarg_region, kernarg_size, &kernarg));
  dispatch_with(q, done, kernarg);
  /* The kernarg is leaked on purpose: the dispatch may still read it. */
}

static hsa_signal_value_t wait_lt1(hsa_signal_t s);

/* ---- reload: a kernel object address used again by another kernel ---- */
static int prog_reload(const char* co, const char* other) {
  setup();
  /* The buffer first: only executables come and go below. */
  OK(hsa_amd_memory_pool_allocate(cpu_fine, 64 * sizeof(int), 0, (void**)&buf));
  OK(hsa_amd_agents_allow_access(1, &gpu, NULL, buf));
  hsa_queue_t* q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q));
  hsa_signal_t s;
  OK(hsa_signal_create(1, 0, NULL, &s));
  load_kernel(co);
  const uint64_t first = kernel_object;
  dispatch(q, s);
  CHECK(wait_lt1(s) == 0);
  /* Only the executable goes (the buffer stays), as a program reloading
   * its kernels would do. */
  OK(hsa_executable_destroy(exe));
  OK(hsa_code_object_reader_destroy(reader));
  load_kernel_named(other, "zzz_other.kd");
  /* Whether the second kernel landed where the first was: on ROCr it does in
   * most runs, which is what the test is about. */
  printf("reload: kernel object %s\n", kernel_object == first ? "reused" : "moved");
  hsa_signal_store_screlease(s, 1);
  dispatch(q, s);
  CHECK(wait_lt1(s) == 0);
  unload_kernel();
  OK(hsa_signal_destroy(s));
  OK(hsa_queue_destroy(q));
  OK(hsa_shut_down());
  return 0;
}

/* grid x, y, z; work-group x, y, z; group segment bytes. */
static const unsigned SHAPES[][7] = {
    {64, 1, 1, 64, 1, 1, 0},     {256, 1, 1, 64, 1, 1, 0},      {1000, 1, 1, 100, 1, 1, 0},
    {128, 4, 1, 32, 2, 1, 0},    {4096, 1, 1, 256, 1, 1, 1024}, {32, 32, 2, 8, 8, 1, 0},
    {100000, 1, 1, 64, 1, 1, 0}, {64, 1, 1, 1, 1, 1, 512},
};

static int prog_sizes(const char* co, int vary) {
  setup();
  load_kernel(co);
  const int again = vary && access("sizes.ran", F_OK) == 0;
  hsa_queue_t* q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q));
  hsa_signal_t s;
  OK(hsa_signal_create(1, 0, NULL, &s));
  void* kernarg;
  OK(hsa_memory_allocate(kernarg_region, kernarg_size, &kernarg));
  const unsigned n = sizeof SHAPES / sizeof SHAPES[0];
  for (unsigned i = 0; i < n; i++) {
    const unsigned* sh = SHAPES[i];
    memcpy(kernarg, &buf, sizeof buf);
    hsa_kernel_dispatch_packet_t p;
    memset(&p, 0, sizeof p);
    p.grid_size_x = again && i == 2 ? 2000 : sh[0];
    p.grid_size_y = (uint16_t)sh[1];
    p.grid_size_z = (uint16_t)sh[2];
    p.workgroup_size_x = (uint16_t)sh[3];
    p.workgroup_size_y = (uint16_t)sh[4];
    p.workgroup_size_z = (uint16_t)sh[5];
    p.group_segment_size = sh[6];
    p.kernel_object = kernel_object;
    p.kernarg_address = kernarg;
    p.completion_signal = s;
    const uint16_t dims = sh[2] > 1 || sh[5] > 1 ? 3 : sh[1] > 1 || sh[4] > 1 ? 2 : 1;
    hsa_signal_store_screlease(s, 1);
    submit(q, &p, header(HSA_PACKET_TYPE_KERNEL_DISPATCH), dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
    CHECK(wait_lt1(s) == 0);
    printf("sizes: dispatch %u grid %ux%ux%u done\n", i, p.grid_size_x, sh[1], sh[2]);
  }
  /* PROGRAMS_DIE=segv: the program crashes here, every dispatch done, HSA
   * never shut down. */
  const char* die = getenv("PROGRAMS_DIE");
  if (die && strcmp(die, "segv") == 0) raise(SIGSEGV);
  if (vary) {
    FILE* f = fopen("sizes.ran", "w");
    CHECK(f != NULL);
    fclose(f);
  }
  OK(hsa_signal_destroy(s));
  OK(hsa_memory_free(kernarg));
  OK(hsa_queue_destroy(q));
  unload_kernel();
  OK(hsa_shut_down());
  return 0;
}

static hsa_signal_value_t wait_lt1(hsa_signal_t s) {
  return hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
}

static int prog_many(const char* co, unsigned n) {
  setup();
  load_kernel(co);
  hsa_queue_t* q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q));
  hsa_signal_t s;
  OK(hsa_signal_create(1, 0, NULL, &s));
  /* One signal reused: each dispatch is waited for before the next, every
   * 16th in a batch of 16 to keep the queue busy. */
  /* A batch's kernargs are reused once it has completed: the program's own
   * memory stays flat however many dispatches it makes. */
  void* kernargs[16];
  for (int i = 0; i < 16; i++) OK(hsa_memory_allocate(kernarg_region, kernarg_size, &kernargs[i]));
  unsigned done = 0;
  while (done < n) {
    unsigned batch = n - done < 16 ? n - done : 16;
    hsa_signal_store_screlease(s, batch);
    for (unsigned i = 0; i < batch; i++) dispatch_with(q, s, kernargs[i]);
    CHECK(hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
    done += batch;
  }
  printf("many: dispatches=%u read_index=%llu write_index=%llu\n", done,
         (unsigned long long)hsa_queue_load_read_index_scacquire(q),
         (unsigned long long)hsa_queue_load_write_index_scacquire(q));
  for (int i = 0; i < 16; i++) OK(hsa_memory_free(kernargs[i]));
  OK(hsa_signal_destroy(s));
  OK(hsa_queue_destroy(q));
  unload_kernel();
  OK(hsa_shut_down());
  return 0;
}

static int prog_barriers(const char* co) {
  setup();
  load_kernel(co);
  hsa_queue_t* q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q));
  hsa_signal_t d1, d2, dep_and, dep_or, and_done, or_done;
  OK(hsa_signal_create(1, 0, NULL, &d1));
  OK(hsa_signal_create(1, 0, NULL, &d2));
  OK(hsa_signal_create(1, 0, NULL, &dep_and));
  OK(hsa_signal_create(1, 0, NULL, &dep_or));
  OK(hsa_signal_create(1, 0, NULL, &and_done));
  OK(hsa_signal_create(1, 0, NULL, &or_done));
  /* dispatch, barrier-AND on {dep_and}, dispatch, barrier-OR on {dep_or, never}, */
  dispatch(q, d1);
  hsa_barrier_and_packet_t b;
  memset(&b, 0, sizeof b);
  b.dep_signal[0] = dep_and;
  b.completion_signal = and_done;
  submit(q, &b, header(HSA_PACKET_TYPE_BARRIER_AND), 0);
  dispatch(q, d2);
  hsa_signal_t never;
  OK(hsa_signal_create(1, 0, NULL, &never));
  hsa_barrier_or_packet_t o;
  memset(&o, 0, sizeof o);
  o.dep_signal[0] = never;
  o.dep_signal[1] = dep_or;
  o.completion_signal = or_done;
  submit(q, &o, header(HSA_PACKET_TYPE_BARRIER_OR), 0);
  hsa_signal_t d3;
  OK(hsa_signal_create(1, 0, NULL, &d3));
  dispatch(q, d3);
  printf("barriers: first dispatch %ld\n", (long)wait_lt1(d1));
  /* Held back by the AND barrier: d2 is still 1 (a timed wait times out). */
  printf("barriers: behind AND before release: %ld\n",
         (long)hsa_signal_wait_scacquire(d2, HSA_SIGNAL_CONDITION_LT, 1, 20000000, HSA_WAIT_STATE_BLOCKED));
  hsa_signal_store_screlease(dep_and, 0);
  printf("barriers: AND done %ld, second dispatch %ld\n", (long)wait_lt1(and_done), (long)wait_lt1(d2));
  printf("barriers: behind OR before release: %ld\n",
         (long)hsa_signal_wait_scacquire(d3, HSA_SIGNAL_CONDITION_LT, 1, 20000000, HSA_WAIT_STATE_BLOCKED));
  hsa_signal_store_screlease(dep_or, 0);
  printf("barriers: OR done %ld, third dispatch %ld, never %ld\n", (long)wait_lt1(or_done), (long)wait_lt1(d3),
         (long)hsa_signal_load_scacquire(never));
  hsa_signal_t all[] = {d1, d2, d3, dep_and, dep_or, and_done, or_done, never};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) OK(hsa_signal_destroy(all[i]));
  OK(hsa_queue_destroy(q));
  unload_kernel();
  OK(hsa_shut_down());
  return 0;
}

/* ---- threads ---- */
enum { THREADS = 6 };
static hsa_signal_t go, arrived;
static void* waiter(void* arg) {
  long i = (long)arg;
  hsa_signal_subtract_screlease(arrived, 1);
  hsa_signal_value_t v = hsa_signal_wait_scacquire(go, HSA_SIGNAL_CONDITION_GTE, 7, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
  return (void*)(long)(v * 100 + i);
}
static int prog_threads(void) {
  setup();
  OK(hsa_signal_create(0, 0, NULL, &go));
  OK(hsa_signal_create(THREADS, 0, NULL, &arrived));
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++) CHECK(pthread_create(&t[i], NULL, waiter, (void*)i) == 0);
  /* Every thread has started waiting (or is about to): the value only
   * reaches the condition here. */
  CHECK(hsa_signal_wait_scacquire(arrived, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0);
  hsa_signal_store_screlease(go, 3);
  hsa_signal_add_screlease(go, 4);
  for (long i = 0; i < THREADS; i++) {
    void* r;
    CHECK(pthread_join(t[i], &r) == 0);
    printf("threads: waiter %ld saw %ld\n", i, (long)r / 100);
  }
  OK(hsa_signal_destroy(go));
  OK(hsa_signal_destroy(arrived));
  OK(hsa_shut_down());
  return 0;
}

/* ---- copy ---- */
/* A 3D rectangle: 100 bytes of 20 rows of 3 slices, from offset (7, 5, 1) of src (rows of 256
 * bytes, slices of 64 KiB) to (0, 0, 0) of dst (rows of 128 bytes, slices of 4 KiB), with
 * async-copy profiling on: the copy's times are read back (the status and their order on stdout,
 * the times themselves on stderr). */
static void copy_rect(uint8_t* src, uint8_t* dst) {
  hsa_signal_t c1;
  OK(hsa_amd_profiling_async_copy_enable(1));
  hsa_pitched_ptr_t rsrc = {src, 256, 1 << 16}, rdst = {dst, 128, 4096};
  hsa_dim3_t soff = {7, 5, 1}, doff = {0, 0, 0}, range = {100, 20, 3};
  memset(dst, 0, 3 * 4096);
  OK(hsa_signal_create(1, 0, NULL, &c1));
  OK(hsa_amd_memory_async_copy_rect(&rdst, &doff, &rsrc, &soff, &range, gpu, hsaHostToDevice, 0, NULL, c1));
  CHECK(wait_lt1(c1) == 0);
  int same = 1;
  for (unsigned z = 0; z < 3; z++)
    for (unsigned y = 0; y < 20; y++)
      same &= memcmp(dst + z * 4096 + y * 128, src + (1 + z) * (1 << 16) + (5 + y) * 256 + 7, 100) == 0;
  printf("copy: rect 100x20x3 identical=%d\n", same);
  hsa_amd_profiling_async_copy_time_t t = {0, 0};
  hsa_status_t st = hsa_amd_profiling_get_async_copy_time(c1, &t);
  printf("copy: rect time status=%#x ordered=%d\n", st, t.start != 0 && t.start <= t.end);
  fprintf(stderr, "copy: rect time %llu %llu\n", (unsigned long long)t.start, (unsigned long long)t.end);
  OK(hsa_signal_destroy(c1));
}

static int prog_copy(int rect) {
  setup();
  enum { BYTES = 1 << 20 };
  uint8_t *src, *dst, *back;
  OK(hsa_amd_memory_pool_allocate(cpu_fine, BYTES, 0, (void**)&src));
  OK(hsa_amd_memory_pool_allocate(gpu_coarse, BYTES, 0, (void**)&dst));
  OK(hsa_amd_memory_pool_allocate(cpu_fine, BYTES, 0, (void**)&back));
  for (int i = 0; i < BYTES; i++) src[i] = (uint8_t)(i * 13 + 5);
  memset(back, 0, BYTES);
  hsa_signal_t c1, c2;
  OK(hsa_signal_create(1, 0, NULL, &c1));
  OK(hsa_signal_create(1, 0, NULL, &c2));
  OK(hsa_amd_memory_async_copy(dst, gpu, src, cpu, BYTES, 0, NULL, c1));
  /* The copy back waits for the first. */
  OK(hsa_amd_memory_async_copy(back, cpu, dst, gpu, BYTES, 1, &c1, c2));
  hsa_signal_value_t v2 = wait_lt1(c2);
  printf("copy: signals %ld %ld\n", (long)v2, (long)hsa_signal_load_scacquire(c1));
  unsigned long sum = 0;
  for (int i = 0; i < BYTES; i++) sum += back[i];
  printf("copy: %d bytes, identical=%d sum=%lu\n", BYTES, memcmp(src, back, BYTES) == 0, sum);
  OK(hsa_signal_destroy(c1));
  if (rect) copy_rect(src, dst);
  OK(hsa_signal_destroy(c2));
  OK(hsa_amd_memory_pool_free(src));
  OK(hsa_amd_memory_pool_free(dst));
  OK(hsa_amd_memory_pool_free(back));
  OK(hsa_shut_down());
  return 0;
}

/* ---- shared ---- */
static int prog_shared(const char* co) {
  setup();
  load_kernel(co);
  hsa_queue_t* q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q));
  enum { N = 10 };
  hsa_signal_t s;
  OK(hsa_signal_create(N, 0, NULL, &s));
  for (int i = 0; i < N; i++) dispatch(q, s);
  printf("shared: %d dispatches, signal ends at %ld\n", N,
         (long)hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED));
  printf("shared: read_index=%llu\n", (unsigned long long)hsa_queue_load_read_index_scacquire(q));
  OK(hsa_signal_destroy(s));
  OK(hsa_queue_destroy(q));
  unload_kernel();
  OK(hsa_shut_down());
  return 0;
}

/* ---- destroy ---- */
static int prog_destroy(const char* co) {
  setup();
  load_kernel(co);
  hsa_queue_t* q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q));
  hsa_signal_t hold, held, first;
  OK(hsa_signal_create(1, 0, NULL, &hold));
  OK(hsa_signal_create(5, 0, NULL, &held));
  OK(hsa_signal_create(1, 0, NULL, &first));
  dispatch(q, first);
  printf("destroy: first dispatch %ld\n", (long)wait_lt1(first));
  /* Five dispatches held back behind a barrier that never opens. */
  hsa_barrier_and_packet_t b;
  memset(&b, 0, sizeof b);
  b.dep_signal[0] = hold;
  submit(q, &b, header(HSA_PACKET_TYPE_BARRIER_AND), 0);
  for (int i = 0; i < 5; i++) dispatch(q, held);
  hsa_status_t st = hsa_queue_destroy(q);
  printf("destroy: hsa_queue_destroy %#x\n", st);
  hsa_signal_store_screlease(hold, 0);
  /* A new queue works. */
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q));
  hsa_signal_t again;
  OK(hsa_signal_create(1, 0, NULL, &again));
  dispatch(q, again);
  printf("destroy: new queue dispatch %ld\n", (long)wait_lt1(again));
  printf("destroy: held-back dispatches left the signal at %ld\n", (long)hsa_signal_load_scacquire(held));
  OK(hsa_queue_destroy(q));
  hsa_signal_t all[] = {hold, held, first, again};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) OK(hsa_signal_destroy(all[i]));
  unload_kernel();
  OK(hsa_shut_down());
  return 0;
}

/* ---- leaky: allocations and objects left on purpose (tests/memory.rs) ---- */
static int prog_leaky(const char* co) {
  setup();
  load_kernel(co); /* an executable and 256 bytes of cpu_fine, both left */
  void *a, *b, *c;
  OK(hsa_amd_memory_pool_allocate(cpu_fine, 4096, 0, &a));
  OK(hsa_amd_memory_pool_allocate(gpu_coarse, 65536, 0, &b));
  OK(hsa_amd_memory_pool_allocate(cpu_fine, 1000, 0, &c));
  OK(hsa_amd_memory_pool_free(a)); /* b and c are left */
  hsa_queue_t* q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q));
  hsa_signal_t s1, s2;
  OK(hsa_signal_create(1, 0, NULL, &s1));
  OK(hsa_signal_create(0, 0, NULL, &s2));
  OK(hsa_signal_destroy(s1)); /* the queue and s2 are left */
  printf("leaky done\n");
  return 0;
}

static hsa_status_t first_agent(hsa_agent_t a, void* data) {
  *(hsa_agent_t*)data = a;
  return HSA_STATUS_INFO_BREAK;
}

/* Every status is printed, so that the output with cltap can be compared
 * with the output without it. */
static int prog_errors(const char* co) {
  OK(hsa_init());
  OK(hsa_iterate_agents(find_agents, NULL));
  hsa_agent_t a;
  printf("iterate (break) %#x\n", hsa_iterate_agents(first_agent, &a));
  uint32_t x = 0;
  printf("agent_get_info(0x7fff) %#x\n", hsa_agent_get_info(gpu, (hsa_agent_info_t)0x7fff, &x));
  printf("signal_create(NULL) %#x\n", hsa_signal_create(1, 0, NULL, NULL));
  /* The code object from memory: the bytes the application hands ROCr. */
  FILE* f = fopen(co, "rb");
  CHECK(f != NULL);
  static char bytes[1 << 20];
  size_t n = fread(bytes, 1, sizeof bytes, f);
  fclose(f);
  CHECK(n > 0 && n < sizeof bytes);
  hsa_code_object_reader_t r;
  OK(hsa_code_object_reader_create_from_memory(bytes, n, &r));
  hsa_executable_t e;
  OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &e));
  OK(hsa_executable_load_agent_code_object(e, gpu, r, NULL, NULL));
  OK(hsa_executable_freeze(e, NULL));
  OK(hsa_executable_destroy(e));
  OK(hsa_code_object_reader_destroy(r));
  OK(hsa_shut_down());
  printf("errors done (%zu bytes loaded)\n", n);
  return 0;
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  const char* what = argc > 1 ? argv[1] : "";
  const char* co = argc > 2 ? argv[2] : NULL;
  if (strcmp(what, "info") == 0) return prog_info();
  if (strcmp(what, "threads") == 0) return prog_threads();
  if (strcmp(what, "copy") == 0) return prog_copy(co && strcmp(co, "rect") == 0);
  if (!co) {
    printf("usage: programs info|threads|copy [rect]|many|barriers|errors|shared|destroy|sizes|reload|leaky [KERNELS.co [N|vary|OTHER.co]]\n");
    return 2;
  }
  if (strcmp(what, "many") == 0) return prog_many(co, argc > 3 ? (unsigned)atoi(argv[3]) : 200);
  if (strcmp(what, "barriers") == 0) return prog_barriers(co);
  if (strcmp(what, "errors") == 0) return prog_errors(co);
  if (strcmp(what, "shared") == 0) return prog_shared(co);
  if (strcmp(what, "destroy") == 0) return prog_destroy(co);
  if (strcmp(what, "sizes") == 0) return prog_sizes(co, argc > 3 && strcmp(argv[3], "vary") == 0);
  if (strcmp(what, "reload") == 0 && argc > 3) return prog_reload(co, argv[3]);
  if (strcmp(what, "leaky") == 0) return prog_leaky(co);
  printf("unknown program %s\n", what);
  return 2;
}
