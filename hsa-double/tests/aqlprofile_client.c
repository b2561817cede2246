/* cltap HSA test double -- a client of the AMD loader and AQLprofile
 * extensions, used by tests/hsa_aqlprofile.rs (against the HSA runtime test
 * double, not real ROCm).
 *
 *   aqlprofile_client KERNELS.co
 *
 * It resolves dispatched kernel objects back to their executables and names
 * through the loader extension; validates AQLprofile events; profiles
 * dispatches of several shapes by writing start/stop/read packets around
 * them itself (on a plain queue, through an intercept queue's writer as a
 * tool would, in legacy 192-byte form, and from several threads on their own
 * queues); and reads each dispatch's profiling times. Checks it can make by
 * itself are CHECKs; the counter values and times are printed for the Rust
 * test, which computes what they must be:
 *
 *   client: shape dispatch=D grid=X,Y,Z wg=X,Y,Z dims=N group=G
 *   client: pmc tag=TAG dispatches=D[+D...] block=B index=I counter=C sample=S value=V
 *   client: time dispatch=D ns=END-START
 *
 * Ends with "client: all checks passed" and exit 0, or "client: FAIL ...". */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hsa.h"
#include "hsa_api_trace_c.h"
#include "hsa_ext_amd.h"
#include "hsa_ven_amd_aqlprofile.h"
#include "hsa_ven_amd_loader.h"

static int failures;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
#define SAY(...)                        \
  do {                                  \
    pthread_mutex_lock(&print_lock);    \
    printf(__VA_ARGS__);                \
    pthread_mutex_unlock(&print_lock);  \
  } while (0)
#define CHECK(cond, ...)                                                 \
  do {                                                                   \
    if (!(cond)) {                                                       \
      pthread_mutex_lock(&print_lock);                                   \
      printf("client: FAIL line %d: %s: ", __LINE__, #cond);             \
      printf(__VA_ARGS__);                                               \
      printf("\n");                                                      \
      pthread_mutex_unlock(&print_lock);                                 \
      __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);                \
    }                                                                    \
  } while (0)
#define CHECK_OK(call)                                                                   \
  do {                                                                                   \
    hsa_status_t st_ = (call);                                                           \
    if (st_ != HSA_STATUS_SUCCESS) {                                                     \
      printf("client: FAIL line %d: %s returned %#x\n", __LINE__, #call, (unsigned)st_); \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

typedef hsa_ven_amd_aqlprofile_event_t event_t;
typedef hsa_ven_amd_aqlprofile_profile_t profile_t;
typedef hsa_ext_amd_aql_pm4_packet_t pm4_packet_t;

static hsa_agent_t gpu, cpu;
static hsa_ven_amd_loader_1_01_pfn_t loader;
static hsa_ven_amd_aqlprofile_1_00_pfn_t aql;

/* ---- set-up ---- */

static hsa_status_t find_agents(hsa_agent_t a, void* data) {
  (void)data;
  hsa_device_type_t t;
  CHECK_OK(hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t));
  if (t == HSA_DEVICE_TYPE_GPU) gpu = a;
  if (t == HSA_DEVICE_TYPE_CPU) cpu = a;
  return HSA_STATUS_SUCCESS;
}

static hsa_executable_t load_executable(hsa_code_object_reader_t reader) {
  hsa_executable_t exe;
  CHECK_OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
  CHECK_OK(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL));
  CHECK_OK(hsa_executable_freeze(exe, NULL));
  return exe;
}

static uint64_t kernel_object(hsa_executable_t exe, const char* name) {
  hsa_executable_symbol_t sym;
  uint64_t object;
  CHECK_OK(hsa_executable_get_symbol_by_name(exe, name, &gpu, &sym));
  CHECK_OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &object));
  return object;
}

/* ---- packets ---- */

static uint16_t header(hsa_packet_type_t type) {
  return (uint16_t)((type << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE));
}

/* Copies `n` 64-byte packets into the queue, each header last, then rings.
 * Every caller waits for what it submitted before submitting more, so the
 * 64-slot queues never fill. */
static void submit(hsa_queue_t* q, const void* pkts, uint64_t n) {
  uint64_t index = hsa_queue_add_write_index_screlease(q, n);
  for (uint64_t i = 0; i < n; i++) {
    uint8_t* slot = (uint8_t*)q->base_address + ((index + i) & (q->size - 1)) * 64;
    const uint8_t* p = (const uint8_t*)pkts + i * 64;
    memcpy(slot + 2, p + 2, 62);
    uint16_t h;
    memcpy(&h, p, 2);
    __atomic_store_n((uint16_t*)slot, h, __ATOMIC_RELEASE);
  }
  hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)(index + n - 1));
}

typedef struct {
  uint32_t dims;
  uint32_t grid[3];
  uint16_t wg[3];
  uint32_t group;
} shape_t;

/* The dispatch shapes; the Rust test reads them from the "shape" lines. */
static const shape_t shapes[] = {
    {1, {64, 1, 1}, {64, 1, 1}, 0},           /* one wave */
    {1, {1000, 1, 1}, {64, 1, 1}, 0},         /* a partial work-group */
    {2, {256, 100, 1}, {16, 16, 1}, 0},       /* 2-D, partial in y */
    {3, {30, 30, 30}, {8, 8, 2}, 1024},       /* 3-D, with LDS */
    {1, {100, 1, 1}, {30, 1, 1}, 64},         /* groups of less than a wave */
    {1, {16000000, 1, 1}, {256, 1, 1}, 0},    /* long enough to hit the 1 ms cap */
};
#define SHAPES (sizeof shapes / sizeof shapes[0])

static hsa_kernel_dispatch_packet_t dispatch_packet(unsigned d, uint64_t object, hsa_signal_t done) {
  const shape_t* s = &shapes[d];
  hsa_kernel_dispatch_packet_t p;
  memset(&p, 0, sizeof p);
  p.header = header(HSA_PACKET_TYPE_KERNEL_DISPATCH);
  p.setup = (uint16_t)(s->dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
  p.workgroup_size_x = s->wg[0];
  p.workgroup_size_y = s->wg[1];
  p.workgroup_size_z = s->wg[2];
  p.grid_size_x = s->grid[0];
  p.grid_size_y = s->grid[1];
  p.grid_size_z = s->grid[2];
  p.group_segment_size = s->group;
  p.kernel_object = object;
  p.completion_signal = done;
  return p;
}

static hsa_signal_t new_signal(void) {
  hsa_signal_t s;
  CHECK_OK(hsa_signal_create(1, 0, NULL, &s));
  return s;
}

static void wait_zero(hsa_signal_t s) {
  hsa_signal_value_t v = hsa_signal_wait_scacquire(s, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
  CHECK(v == 0, "signal ended at %ld", (long)v);
}

/* ---- profiles ---- */

typedef struct {
  profile_t p;
  pm4_packet_t start, stop, read;
} prof_t;

/* A PMC profile of `events` with its buffers and its three packets. */
static void prof_make(prof_t* pr, const event_t* events, uint32_t n) {
  memset(pr, 0, sizeof *pr);
  pr->p.agent = gpu;
  pr->p.type = HSA_VEN_AMD_AQLPROFILE_EVENT_TYPE_PMC;
  pr->p.events = events;
  pr->p.event_count = n;
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_start(&pr->p, NULL)); /* the sizes */
  uint32_t cmd = 0, data = 0;
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_get_info(&pr->p, HSA_VEN_AMD_AQLPROFILE_INFO_COMMAND_BUFFER_SIZE, &cmd));
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_get_info(&pr->p, HSA_VEN_AMD_AQLPROFILE_INFO_PMC_DATA_SIZE, &data));
  CHECK(cmd == pr->p.command_buffer.size && data == pr->p.output_buffer.size && cmd && data,
        "get_info sizes %u/%u, start(NULL) %u/%u", cmd, data, pr->p.command_buffer.size, pr->p.output_buffer.size);
  pr->p.command_buffer.ptr = aligned_alloc(4096, (cmd + 4095) & ~4095u);
  pr->p.output_buffer.ptr = aligned_alloc(4096, (data + 4095) & ~4095u);
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_start(&pr->p, &pr->start));
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_stop(&pr->p, &pr->stop));
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_read(&pr->p, &pr->read));
  /* The functions fill all but the header and the completion signal. */
  pr->start.header = pr->stop.header = pr->read.header = header(HSA_PACKET_TYPE_VENDOR_SPECIFIC);
}

static void prof_free(prof_t* pr) {
  free(pr->p.command_buffer.ptr);
  free(pr->p.output_buffer.ptr);
}

typedef struct {
  const char* tag;
  const char* dispatches;
  unsigned samples;
} print_ctx;

static hsa_status_t print_sample(hsa_ven_amd_aqlprofile_info_type_t type, hsa_ven_amd_aqlprofile_info_data_t* d,
                                 void* arg) {
  print_ctx* c = arg;
  CHECK(type == HSA_VEN_AMD_AQLPROFILE_INFO_PMC_DATA, "info type %d", (int)type);
  SAY("client: pmc tag=%s dispatches=%s block=%u index=%u counter=%u sample=%u value=%llu\n", c->tag, c->dispatches,
      (unsigned)d->pmc_data.event.block_name, d->pmc_data.event.block_index, d->pmc_data.event.counter_id, d->sample_id,
      (unsigned long long)d->pmc_data.result);
  c->samples++;
  return HSA_STATUS_SUCCESS;
}

static void print_profile(const prof_t* pr, const char* tag, const char* dispatches) {
  print_ctx c = {tag, dispatches, 0};
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_iterate_data(&pr->p, print_sample, &c));
  SAY("client: profile tag=%s dispatches=%s events=%u samples=%u\n", tag, dispatches, pr->p.event_count, c.samples);
}

/* ---- (a) the loader extension ---- */

typedef struct {
  uint64_t object;
  char name[64];
} find_ctx;

static hsa_status_t find_kernel(hsa_executable_t e, hsa_executable_symbol_t s, void* arg) {
  (void)e;
  find_ctx* c = arg;
  hsa_symbol_kind_t kind;
  uint64_t object;
  uint32_t len;
  CHECK_OK(hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &kind));
  if (kind != HSA_SYMBOL_KIND_KERNEL) return HSA_STATUS_SUCCESS;
  CHECK_OK(hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &object));
  if (object != c->object) return HSA_STATUS_SUCCESS;
  CHECK_OK(hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, &len));
  CHECK(len < sizeof c->name, "name length %u", len);
  memset(c->name, 0, sizeof c->name);
  if (len < sizeof c->name) CHECK_OK(hsa_executable_symbol_get_info(s, HSA_EXECUTABLE_SYMBOL_INFO_NAME, c->name));
  return HSA_STATUS_INFO_BREAK;
}

/* What cltap does with a dispatch's kernel_object: executable, then the
 * kernel symbol with that object. */
static void resolve(uint64_t object, hsa_executable_t want, const char* tag) {
  hsa_executable_t exe = {0};
  CHECK_OK(loader.hsa_ven_amd_loader_query_executable((const void*)(uintptr_t)object, &exe));
  CHECK(exe.handle == want.handle, "%s: query_executable gave another executable", tag);
  find_ctx c = {object, ""};
  hsa_status_t st = hsa_executable_iterate_symbols(exe, find_kernel, &c);
  CHECK(st == HSA_STATUS_INFO_BREAK, "%s: no kernel symbol with the object", tag);
  const void* host = NULL;
  CHECK_OK(loader.hsa_ven_amd_loader_query_host_address((const void*)(uintptr_t)object, &host));
  CHECK(host == (const void*)(uintptr_t)object, "%s: host address of a loaded address is itself", tag);
  SAY("client: loader %s resolved name=%s\n", tag, c.name);
}

typedef struct {
  int count;
  hsa_loaded_code_object_t lco;
} lco_ctx;

static hsa_status_t count_lco(hsa_executable_t e, hsa_loaded_code_object_t l, void* arg) {
  (void)e;
  lco_ctx* c = arg;
  c->count++;
  c->lco = l;
  return HSA_STATUS_SUCCESS;
}

/* The loaded code object of `exe` and what it tells. */
static void check_loaded(hsa_executable_t exe, uint64_t object, uint32_t want_storage, const char* tag) {
  lco_ctx c = {0, {0}};
  CHECK_OK(loader.hsa_ven_amd_loader_executable_iterate_loaded_code_objects(exe, count_lco, &c));
  CHECK(c.count == 1, "%s: %d loaded code objects", tag, c.count);
  hsa_executable_t owner;
  hsa_agent_t agent;
  uint32_t kind, storage, uri_len;
  uint64_t base, size;
  int64_t delta;
  hsa_status_t (*info)(hsa_loaded_code_object_t, hsa_ven_amd_loader_loaded_code_object_info_t, void*) =
      loader.hsa_ven_amd_loader_loaded_code_object_get_info;
  CHECK_OK(info(c.lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_EXECUTABLE, &owner));
  CHECK_OK(info(c.lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_KIND, &kind));
  CHECK_OK(info(c.lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_AGENT, &agent));
  CHECK_OK(info(c.lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_TYPE, &storage));
  CHECK_OK(info(c.lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE, &base));
  CHECK_OK(info(c.lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE, &size));
  CHECK_OK(info(c.lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_DELTA, &delta));
  CHECK_OK(info(c.lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI_LENGTH, &uri_len));
  CHECK(owner.handle == exe.handle && kind == HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_KIND_AGENT &&
            agent.handle == gpu.handle && storage == want_storage,
        "%s: executable, kind %u, agent, storage %u", tag, kind, storage);
  CHECK(object >= base && object < base + size, "%s: kernel object outside the load range", tag);
  char* uri = calloc(1, uri_len + 1);
  CHECK_OK(info(c.lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI, uri));
  CHECK(strlen(uri) == uri_len, "%s: URI of %zu bytes, length %u", tag, strlen(uri), uri_len);
  if (storage == HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY) {
    uint64_t mem_base, mem_size;
    CHECK_OK(info(c.lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_BASE, &mem_base));
    CHECK_OK(info(c.lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_SIZE, &mem_size));
    char want[128];
    snprintf(want, sizeof want, "memory://%d#offset=0x%llx&size=%llu", (int)getpid(), (unsigned long long)mem_base,
             (unsigned long long)mem_size);
    CHECK(strcmp(uri, want) == 0, "%s: URI %s, want %s", tag, uri, want);
    CHECK(memcmp((const void*)(uintptr_t)mem_base, ELFMAG, SELFMAG) == 0, "%s: the stored code object is an ELF", tag);
    /* The load delta moves the lowest PT_LOAD address to the load base. */
    const Elf64_Ehdr* eh = (const Elf64_Ehdr*)(uintptr_t)mem_base;
    const Elf64_Phdr* ph = (const Elf64_Phdr*)((const uint8_t*)eh + eh->e_phoff);
    uint64_t lowest = UINT64_MAX;
    for (int i = 0; i < eh->e_phnum; i++)
      if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr < lowest) lowest = ph[i].p_vaddr;
    CHECK((int64_t)(base - lowest) == delta, "%s: load delta %lld, base %#llx, lowest PT_LOAD %#llx", tag,
          (long long)delta, (unsigned long long)base, (unsigned long long)lowest);
    int fd;
    CHECK(info(c.lco, HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_FILE, &fd) ==
              HSA_STATUS_ERROR_INVALID_ARGUMENT,
          "%s: no file for a memory code object", tag);
  }
  CHECK(info(c.lco, (hsa_ven_amd_loader_loaded_code_object_info_t)99, &kind) == HSA_STATUS_ERROR_INVALID_ARGUMENT,
        "%s: unknown attribute", tag);
  SAY("client: loader %s storage=%u uri=%s\n", tag, storage, uri);
  free(uri);
}

static void test_loader(const char* co_path) {
  bool yes = false;
  uint16_t minor = 0;
  CHECK_OK(hsa_system_extension_supported(HSA_EXTENSION_AMD_LOADER, 1, 1, &yes));
  CHECK(yes, "loader 1.01 supported");
  CHECK_OK(hsa_system_major_extension_supported(HSA_EXTENSION_AMD_LOADER, 1, &minor, &yes));
  CHECK(yes && minor == 3, "loader major 1: minor %u", minor);
  CHECK_OK(hsa_system_extension_supported(HSA_EXTENSION_AMD_LOADER, 2, 0, &yes));
  CHECK(!yes, "no loader 2.00");
  uint8_t bits[128];
  CHECK_OK(hsa_system_get_info(HSA_SYSTEM_INFO_EXTENSIONS, bits));
  CHECK(bits[HSA_EXTENSION_AMD_LOADER / 8] & (1u << (HSA_EXTENSION_AMD_LOADER % 8)), "extension bit");

  /* 1.00 through the old call: exactly its three entries. */
  union {
    hsa_ven_amd_loader_1_03_pfn_t t;
    uint8_t bytes[sizeof(hsa_ven_amd_loader_1_03_pfn_t)];
  } raw;
  memset(&raw, 0xab, sizeof raw);
  CHECK_OK(hsa_system_get_extension_table(HSA_EXTENSION_AMD_LOADER, 1, 0, &raw));
  CHECK(raw.t.hsa_ven_amd_loader_query_executable != NULL, "1.00 table");
  CHECK(raw.bytes[sizeof(hsa_ven_amd_loader_1_00_pfn_t)] == 0xab, "1.00 table overran");
  CHECK(hsa_system_get_extension_table(HSA_EXTENSION_AMD_LOADER, 1, 9, &raw) == HSA_STATUS_ERROR, "no 1.09");
  CHECK_OK(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_LOADER, 1, sizeof loader, &loader));
  CHECK(loader.hsa_ven_amd_loader_loaded_code_object_get_info != NULL, "1.01 table");

  int fd = open(co_path, O_RDONLY);
  CHECK(fd >= 0, "open %s", co_path);
  hsa_code_object_reader_t from_file, from_memory;
  CHECK_OK(hsa_code_object_reader_create_from_file(fd, &from_file));
  off_t len = lseek(fd, 0, SEEK_END);
  void* bytes = malloc((size_t)len);
  CHECK(pread(fd, bytes, (size_t)len, 0) == len, "read %s", co_path);
  close(fd);
  CHECK_OK(hsa_code_object_reader_create_from_memory(bytes, (size_t)len, &from_memory));
  hsa_executable_t exe1 = load_executable(from_file), exe2 = load_executable(from_memory);
  free(bytes);
  const uint64_t add_one1 = kernel_object(exe1, "add_one.kd"), scale1 = kernel_object(exe1, "scale.kd");
  const uint64_t add_one2 = kernel_object(exe2, "add_one.kd");
  resolve(add_one1, exe1, "exe1-add_one");
  resolve(scale1, exe1, "exe1-scale");
  resolve(add_one2, exe2, "exe2-add_one");
  check_loaded(exe1, add_one1, HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_FILE, "exe1");
  check_loaded(exe2, add_one2, HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY, "exe2");

  /* Addresses outside every loaded code object. */
  const void* host;
  hsa_executable_t none;
  int local;
  CHECK(loader.hsa_ven_amd_loader_query_host_address(&local, &host) == HSA_STATUS_ERROR_INVALID_ARGUMENT, "stack");
  CHECK(loader.hsa_ven_amd_loader_query_executable(&local, &none) == HSA_STATUS_ERROR_INVALID_ARGUMENT, "stack");
  CHECK(loader.hsa_ven_amd_loader_query_host_address(NULL, &host) == HSA_STATUS_ERROR_INVALID_ARGUMENT, "NULL");

  /* Segment descriptors: count, then exactly that many. */
  size_t n = 0;
  CHECK_OK(loader.hsa_ven_amd_loader_query_segment_descriptors(NULL, &n));
  CHECK(n >= 2, "%zu segments for two executables", n);
  hsa_ven_amd_loader_segment_descriptor_t* d = calloc(n + 1, sizeof *d);
  size_t wrong = n + 1;
  CHECK(loader.hsa_ven_amd_loader_query_segment_descriptors(d, &wrong) == HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS,
        "a wrong count");
  CHECK_OK(loader.hsa_ven_amd_loader_query_segment_descriptors(d, &n));
  unsigned holding = 0;
  for (size_t i = 0; i < n; i++) {
    const uint64_t lo = (uint64_t)(uintptr_t)d[i].segment_base;
    if (add_one1 >= lo && add_one1 < lo + d[i].segment_size) {
      holding++;
      CHECK(d[i].executable.handle == exe1.handle && d[i].agent.handle == gpu.handle, "descriptor of exe1");
    }
  }
  CHECK(holding == 1, "%u segments hold exe1's add_one", holding);
  free(d);
  SAY("client: loader segments=%zu\n", n);
  CHECK_OK(hsa_executable_destroy(exe2));
  hsa_executable_t gone;
  CHECK(loader.hsa_ven_amd_loader_query_executable((const void*)(uintptr_t)add_one1, &gone) == HSA_STATUS_SUCCESS &&
            gone.handle == exe1.handle,
        "exe1 still resolves");
  CHECK_OK(hsa_executable_destroy(exe1));
  CHECK(loader.hsa_ven_amd_loader_query_executable((const void*)(uintptr_t)add_one1, &gone) ==
            HSA_STATUS_ERROR_INVALID_ARGUMENT,
        "a destroyed executable no longer resolves");
  CHECK_OK(hsa_code_object_reader_destroy(from_file));
  CHECK_OK(hsa_code_object_reader_destroy(from_memory));
}

/* ---- (b) AQLprofile: tables and validation ---- */

#define EV(b, i, c) {HSA_VEN_AMD_AQLPROFILE_BLOCK_NAME_##b, (i), (c)}

static bool valid(hsa_agent_t agent, event_t e) {
  bool r = false;
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_validate_event(agent, &e, &r));
  return r;
}

static void test_aql_api(void) {
  bool yes = false;
  uint16_t minor = 9;
  CHECK_OK(hsa_system_major_extension_supported(HSA_EXTENSION_AMD_AQLPROFILE, 1, &minor, &yes));
  CHECK(yes && minor == 0, "aqlprofile 1.00");
  CHECK_OK(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_AQLPROFILE, 1, sizeof aql, &aql));
  CHECK(aql.hsa_ven_amd_aqlprofile_version_major() == HSA_AQLPROFILE_VERSION_MAJOR, "version");
  const char* msg = NULL;

  const event_t good[] = {EV(SQ, 0, 4), EV(TCC, 15, 20), EV(TCC, 0, 267), EV(TA, 15, 102), EV(GRBM, 0, 0)};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) CHECK(valid(gpu, good[i]), "good event %zu", i);
  CHECK(!valid(gpu, (event_t)EV(GDS, 0, 1)), "GDS is not modelled");
  CHECK(!valid(gpu, (event_t)EV(TA, 16, 15)), "TA has 16 instances");
  CHECK(!valid(gpu, (event_t)EV(SQ, 1, 4)), "SQ has one instance");
  CHECK(!valid(gpu, (event_t)EV(TCC, 0, 512)), "counter ids stop at 511");
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_error_string(&msg));
  CHECK(strstr(msg, "512") != NULL, "error string: %s", msg);
  bool r;
  event_t e = EV(SQ, 0, 4);
  CHECK(aql.hsa_ven_amd_aqlprofile_validate_event(cpu, &e, &r) == HSA_STATUS_ERROR_INVALID_AGENT, "CPU agent");

  profile_t p;
  memset(&p, 0, sizeof p);
  p.agent = gpu;
  p.type = HSA_VEN_AMD_AQLPROFILE_EVENT_TYPE_PMC;
  hsa_ven_amd_aqlprofile_id_query_t q = {"TCC", 0, 0};
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_get_info(&p, HSA_VEN_AMD_AQLPROFILE_INFO_BLOCK_ID, &q));
  CHECK(q.id == HSA_VEN_AMD_AQLPROFILE_BLOCK_NAME_TCC && q.instance_count == 16, "TCC id %u x%u", q.id, q.instance_count);
  q.name = "GDS";
  CHECK(aql.hsa_ven_amd_aqlprofile_get_info(&p, HSA_VEN_AMD_AQLPROFILE_INFO_BLOCK_ID, &q) ==
            HSA_STATUS_ERROR_INVALID_ARGUMENT,
        "GDS id");
  const event_t sq = EV(SQ, 0, 4), ta = EV(TA, 3, 15);
  uint32_t slots = 0;
  p.events = &sq;
  p.event_count = 1;
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_get_info(&p, HSA_VEN_AMD_AQLPROFILE_INFO_BLOCK_COUNTERS, &slots));
  CHECK(slots == 8, "SQ slots %u", slots);
  p.events = &ta;
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_get_info(&p, HSA_VEN_AMD_AQLPROFILE_INFO_BLOCK_COUNTERS, &slots));
  CHECK(slots == 2, "TA slots %u", slots);

  /* More events on one block instance than it has counters. */
  event_t nine_sq[9], five_tcc[5], four_and_four[8];
  for (uint32_t i = 0; i < 9; i++) nine_sq[i] = (event_t)EV(SQ, 0, 26 + i);
  for (uint32_t i = 0; i < 5; i++) five_tcc[i] = (event_t)EV(TCC, 2, 20 + i);
  for (uint32_t i = 0; i < 8; i++) four_and_four[i] = (event_t)EV(TCC, i / 4, 20 + i % 4);
  p.events = nine_sq;
  p.event_count = 9;
  CHECK(aql.hsa_ven_amd_aqlprofile_start(&p, NULL) == HSA_STATUS_ERROR_INVALID_ARGUMENT, "9 SQ events");
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_error_string(&msg));
  CHECK(strstr(msg, "passes") != NULL, "error string: %s", msg);
  p.event_count = 8;
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_start(&p, NULL));
  p.events = five_tcc;
  p.event_count = 5;
  CHECK(aql.hsa_ven_amd_aqlprofile_start(&p, NULL) == HSA_STATUS_ERROR_INVALID_ARGUMENT, "5 events on TCC[2]");
  p.events = four_and_four;
  p.event_count = 8;
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_start(&p, NULL));
  /* A packet without buffers, a trace profile, a CPU profile. */
  pm4_packet_t pkt;
  p.command_buffer.ptr = p.output_buffer.ptr = NULL;
  CHECK(aql.hsa_ven_amd_aqlprofile_start(&p, &pkt) == HSA_STATUS_ERROR_INVALID_ARGUMENT, "no buffers");
  p.type = HSA_VEN_AMD_AQLPROFILE_EVENT_TYPE_TRACE;
  CHECK(aql.hsa_ven_amd_aqlprofile_start(&p, NULL) == HSA_STATUS_ERROR, "trace");
  p.type = HSA_VEN_AMD_AQLPROFILE_EVENT_TYPE_PMC;
  p.agent = cpu;
  CHECK(aql.hsa_ven_amd_aqlprofile_start(&p, NULL) == HSA_STATUS_ERROR_INVALID_AGENT, "CPU profile");
  SAY("client: aqlprofile api checked\n");
}

/* ---- (b) profiling dispatches ---- */

/* Three passes that together read every modelled counter and a few that
 * read 0; each fits the counter slots. */
static event_t pass0[13], pass1[2 + 2 * 16 + 4 * 16], pass2[16 + 4];
static const event_t* passes[] = {pass0, pass1, pass2};
static uint32_t pass_sizes[3];

static void make_passes(void) {
  uint32_t n = 0;
  const uint32_t sq0[] = {4, 26, 27, 28, 30, 31, 34, 63};
  pass0[n++] = (event_t)EV(GRBM, 0, 0);
  pass0[n++] = (event_t)EV(GRBM, 0, 2);
  for (size_t i = 0; i < 8; i++) pass0[n++] = (event_t)EV(SQ, 0, sq0[i]);
  pass0[n++] = (event_t)EV(TCP, 0, 6);
  pass0[n++] = (event_t)EV(TCC, 3, 267); /* EA1: valid, reads 0 */
  pass0[n++] = (event_t)EV(SPI, 0, 1);
  pass_sizes[0] = n;
  n = 0;
  pass1[n++] = (event_t)EV(SQ, 0, 71);
  pass1[n++] = (event_t)EV(SQ, 0, 85);
  for (uint32_t i = 0; i < 16; i++) {
    pass1[n++] = (event_t)EV(TA, i, 15);
    pass1[n++] = (event_t)EV(TA, i, 101);
    pass1[n++] = (event_t)EV(TCC, i, 20);
    pass1[n++] = (event_t)EV(TCC, i, 22);
    pass1[n++] = (event_t)EV(TCC, i, 41);
    pass1[n++] = (event_t)EV(TCC, i, 29);
  }
  pass_sizes[1] = n;
  n = 0;
  for (uint32_t i = 0; i < 16; i++) pass2[n++] = (event_t)EV(TA, i, 102);
  pass2[n++] = (event_t)EV(TD, 0, 1);
  pass2[n++] = (event_t)EV(CPC, 0, 0);
  pass2[n++] = (event_t)EV(CPF, 0, 0);
  pass2[n++] = (event_t)EV(TCA, 1, 3);
  pass_sizes[2] = n;
}

/* start, the dispatch, stop -- the packets rocprofiler writes for one
 * dispatch -- and waits for the stop. */
static void profiled_dispatch(hsa_queue_t* q, prof_t* pr, unsigned d, uint64_t object, hsa_signal_t done) {
  hsa_signal_t stopped = new_signal();
  uint8_t pkts[3][64];
  pm4_packet_t start = pr->start, stop = pr->stop;
  start.completion_signal.handle = 0;
  stop.completion_signal = stopped;
  hsa_kernel_dispatch_packet_t k = dispatch_packet(d, object, done);
  memcpy(pkts[0], &start, 64);
  memcpy(pkts[1], &k, 64);
  memcpy(pkts[2], &stop, 64);
  submit(q, pkts, 3);
  wait_zero(stopped);
  CHECK_OK(hsa_signal_destroy(stopped));
}

static void test_profiles(hsa_queue_t* q, uint64_t object) {
  for (unsigned d = 0; d < SHAPES; d++)
    SAY("client: shape dispatch=%u grid=%u,%u,%u wg=%u,%u,%u dims=%u group=%u\n", d, shapes[d].grid[0],
        shapes[d].grid[1], shapes[d].grid[2], shapes[d].wg[0], shapes[d].wg[1], shapes[d].wg[2], shapes[d].dims,
        shapes[d].group);
  for (unsigned pass = 0; pass < 3; pass++) {
    prof_t pr;
    prof_make(&pr, passes[pass], pass_sizes[pass]);
    /* One profile reused for every dispatch, as rocprofiler does: each
     * start resets the counters. */
    for (unsigned d = 0; d < SHAPES; d++) {
      hsa_signal_t done = new_signal();
      profiled_dispatch(q, &pr, d, object, done);
      wait_zero(done);
      hsa_amd_profiling_dispatch_time_t t;
      CHECK_OK(hsa_amd_profiling_get_dispatch_time(gpu, done, &t));
      SAY("client: time dispatch=%u ns=%llu\n", d, (unsigned long long)(t.end - t.start));
      CHECK_OK(hsa_signal_destroy(done));
      char tag[16], ds[8];
      snprintf(tag, sizeof tag, "pass%u", pass);
      snprintf(ds, sizeof ds, "%u", d);
      print_profile(&pr, tag, ds);
    }
    prof_free(&pr);
  }
}

/* A read between two dispatches gives the first; the stop, both. */
static void test_read(hsa_queue_t* q, uint64_t object) {
  prof_t pr;
  prof_make(&pr, pass0, pass_sizes[0]);
  hsa_signal_t read_done = new_signal(), gate = new_signal(), stopped = new_signal(), d1 = new_signal(),
               d2 = new_signal();
  pm4_packet_t start = pr.start, read = pr.read, stop = pr.stop;
  start.completion_signal.handle = 0;
  read.completion_signal = read_done;
  stop.completion_signal = stopped;
  hsa_barrier_and_packet_t hold;
  memset(&hold, 0, sizeof hold);
  hold.header = header(HSA_PACKET_TYPE_BARRIER_AND);
  hold.dep_signal[0] = gate;
  hsa_kernel_dispatch_packet_t k1 = dispatch_packet(1, object, d1), k2 = dispatch_packet(2, object, d2);
  uint8_t pkts[6][64];
  memcpy(pkts[0], &start, 64);
  memcpy(pkts[1], &k1, 64);
  memcpy(pkts[2], &read, 64);
  memcpy(pkts[3], &hold, 64);
  memcpy(pkts[4], &k2, 64);
  memcpy(pkts[5], &stop, 64);
  submit(q, pkts, 6);
  wait_zero(read_done);
  print_profile(&pr, "read", "1");
  hsa_signal_store_screlease(gate, 0);
  wait_zero(stopped);
  print_profile(&pr, "readstop", "1+2");
  hsa_signal_t sigs[] = {read_done, gate, stopped, d1, d2};
  for (size_t i = 0; i < 5; i++) CHECK_OK(hsa_signal_destroy(sigs[i]));
  prof_free(&pr);
}

/* The same through legacy_get_pm4's 192-byte blobs (three slots each). */
static void test_legacy(hsa_queue_t* q, uint64_t object) {
  prof_t pr;
  prof_make(&pr, pass0, pass_sizes[0]);
  hsa_signal_t stopped = new_signal(), done = new_signal();
  pm4_packet_t stop = pr.stop;
  stop.completion_signal = stopped;
  uint8_t pkts[7][64];
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_legacy_get_pm4(&pr.start, pkts[0]));
  hsa_kernel_dispatch_packet_t k = dispatch_packet(3, object, done);
  memcpy(pkts[3], &k, 64);
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_legacy_get_pm4(&stop, pkts[4]));
  submit(q, pkts, 7);
  wait_zero(stopped);
  wait_zero(done);
  print_profile(&pr, "legacy", "3");
  CHECK_OK(hsa_signal_destroy(stopped));
  CHECK_OK(hsa_signal_destroy(done));
  prof_free(&pr);
}

/* ---- a tool's way: an intercept queue whose handler wraps each dispatch
 * in start/stop packets through the writer ---- */

#define INTERCEPTED 3
static prof_t icpt_prof[INTERCEPTED];
static hsa_signal_t icpt_stopped[INTERCEPTED];
static unsigned icpt_seen;

static void wrap_dispatch(const void* in, uint64_t count, uint64_t user_index, void* data,
                          hsa_amd_queue_intercept_packet_writer writer) {
  (void)data;
  (void)user_index;
  for (uint64_t i = 0; i < count; i++) {
    const uint8_t* p = (const uint8_t*)in + i * 64;
    uint16_t h;
    memcpy(&h, p, 2);
    const unsigned type = (h >> HSA_PACKET_HEADER_TYPE) & ((1u << HSA_PACKET_HEADER_WIDTH_TYPE) - 1);
    if (type != HSA_PACKET_TYPE_KERNEL_DISPATCH || icpt_seen >= INTERCEPTED) {
      writer(p, 1);
      continue;
    }
    const unsigned n = icpt_seen++;
    pm4_packet_t start = icpt_prof[n].start, stop = icpt_prof[n].stop;
    start.completion_signal.handle = 0;
    stop.completion_signal = icpt_stopped[n];
    uint8_t out[3][64];
    memcpy(out[0], &start, 64);
    memcpy(out[1], p, 64);
    memcpy(out[2], &stop, 64);
    writer(out, 3);
  }
}

static void test_intercept(uint64_t object) {
  hsa_queue_t* q;
  CHECK_OK(hsa_amd_queue_intercept_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q));
  CHECK_OK(hsa_amd_queue_intercept_register(q, wrap_dispatch, NULL));
  const unsigned which[INTERCEPTED] = {4, 0, 2};
  for (unsigned i = 0; i < INTERCEPTED; i++) {
    prof_make(&icpt_prof[i], pass0, pass_sizes[0]);
    icpt_stopped[i] = new_signal();
  }
  hsa_signal_t done[INTERCEPTED];
  for (unsigned i = 0; i < INTERCEPTED; i++) {
    done[i] = new_signal();
    hsa_kernel_dispatch_packet_t k = dispatch_packet(which[i], object, done[i]);
    submit(q, &k, 1);
  }
  for (unsigned i = 0; i < INTERCEPTED; i++) {
    wait_zero(done[i]);
    wait_zero(icpt_stopped[i]);
    char ds[8];
    snprintf(ds, sizeof ds, "%u", which[i]);
    print_profile(&icpt_prof[i], "intercept", ds);
    CHECK_OK(hsa_signal_destroy(done[i]));
    CHECK_OK(hsa_signal_destroy(icpt_stopped[i]));
    prof_free(&icpt_prof[i]);
  }
  CHECK_OK(hsa_queue_destroy(q));
}

/* ---- several threads, each with its own queue and profile ---- */

#define THREADS 3
#define ROUNDS 4
typedef struct {
  unsigned id, shape;
  uint64_t object;
} thread_arg;

static void* profile_thread(void* arg) {
  thread_arg* a = arg;
  hsa_queue_t* q;
  CHECK_OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_SINGLE, NULL, NULL, 0, 0, &q));
  prof_t pr;
  prof_make(&pr, pass0, pass_sizes[0]);
  for (unsigned r = 0; r < ROUNDS; r++) {
    hsa_signal_t done = new_signal();
    profiled_dispatch(q, &pr, a->shape, a->object, done);
    wait_zero(done);
    CHECK_OK(hsa_signal_destroy(done));
    char tag[32], ds[8];
    snprintf(tag, sizeof tag, "thread%u-%u", a->id, r);
    snprintf(ds, sizeof ds, "%u", a->shape);
    print_profile(&pr, tag, ds);
  }
  prof_free(&pr);
  CHECK_OK(hsa_queue_destroy(q));
  return NULL;
}

static void test_threads(uint64_t object) {
  pthread_t t[THREADS];
  thread_arg args[THREADS] = {{0, 0, object}, {1, 2, object}, {2, 3, object}};
  for (unsigned i = 0; i < THREADS; i++) CHECK(pthread_create(&t[i], NULL, profile_thread, &args[i]) == 0, "thread");
  for (unsigned i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
}

/* CLTAP_HSA_DOUBLE_AQLPROFILE=0: as on a machine without the library. */
static void test_aql_absent(void) {
  bool yes = true;
  uint16_t minor;
  CHECK_OK(hsa_system_major_extension_supported(HSA_EXTENSION_AMD_AQLPROFILE, 1, &minor, &yes));
  CHECK(!yes, "aqlprofile reported although disabled");
  uint8_t bits[128];
  CHECK_OK(hsa_system_get_info(HSA_SYSTEM_INFO_EXTENSIONS, bits));
  CHECK(!(bits[HSA_EXTENSION_AMD_AQLPROFILE / 8] & (1u << (HSA_EXTENSION_AMD_AQLPROFILE % 8))), "extension bit");
  CHECK(hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_AQLPROFILE, 1, sizeof aql, &aql) == HSA_STATUS_ERROR,
        "table of an absent extension");
  SAY("client: aqlprofile absent\n");
}

static void test_dispatches(const char* co_path);

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc < 2) {
    printf("client: FAIL usage: aqlprofile_client KERNELS.co\n");
    return 1;
  }
  CHECK_OK(hsa_init());
  CHECK_OK(hsa_iterate_agents(find_agents, NULL));
  CHECK(gpu.handle && cpu.handle, "a GPU and a CPU agent");
  uint32_t mhz = 0;
  CHECK_OK(hsa_agent_get_info(gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY, &mhz));
  SAY("client: agent max_clock_mhz=%u\n", mhz);

  test_loader(argv[1]);
  const char* off = getenv("CLTAP_HSA_DOUBLE_AQLPROFILE");
  if (off && strcmp(off, "0") == 0) {
    test_aql_absent();
  } else {
    test_aql_api();
    test_dispatches(argv[1]);
  }
  CHECK_OK(hsa_shut_down());
  if (failures) {
    printf("client: FAIL %d checks failed\n", failures);
    return 1;
  }
  printf("client: all checks passed\n");
  return 0;
}

/* Everything that profiles dispatches of a kernel of KERNELS.co. */
static void test_dispatches(const char* co_path) {
  hsa_code_object_reader_t reader;
  int fd = open(co_path, O_RDONLY);
  CHECK_OK(hsa_code_object_reader_create_from_file(fd, &reader));
  close(fd);
  hsa_executable_t exe = load_executable(reader);
  const uint64_t object = kernel_object(exe, "add_one.kd");
  resolve(object, exe, "dispatched");

  hsa_queue_t* q;
  CHECK_OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q));
  CHECK_OK(hsa_amd_profiling_set_profiler_enabled(q, 1));
  make_passes();
  test_profiles(q, object);
  test_read(q, object);
  test_legacy(q, object);
  test_intercept(object);
  test_threads(object);
  CHECK_OK(hsa_queue_destroy(q));
  CHECK_OK(hsa_executable_destroy(exe));
  CHECK_OK(hsa_code_object_reader_destroy(reader));
}
