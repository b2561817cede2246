/* A client of ROCr's hsa_ven_amd_aqlprofile extension on cltap's emulated gfx906 (gpu-emu): Debian's
 * ROCr dlopens the emulated libhsa-amd-aqlprofile64.so, and the emulated command processor runs
 * the start/stop packets this program writes around two vadd_f32 dispatches, as a profiler does.
 *
 *   aql_client KERNELS.co
 *
 * Prints "aql_client: no aqlprofile extension" and exits 0 when ROCr has none; else one line per
 * event, "aql_client: event block=B index=I counter=C samples=N sum=V", for the Rust test to hold to
 * the emulator's counter model, and "aql_client: all checks passed" (exit 0) or "... FAIL". */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ven_amd_aqlprofile.h>

#define CLIENT "aql_client"
#include "check.h"

static hsa_agent_t gpu;
static hsa_amd_memory_pool_t host_pool;

static hsa_status_t find_gpu(hsa_agent_t a, void* data) {
  hsa_device_type_t t;
  (void)data;
  CHECK_OK(hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t));
  if (t == HSA_DEVICE_TYPE_GPU) gpu = a;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_pool(hsa_amd_memory_pool_t p, void* data) {
  uint32_t flags = 0;
  hsa_amd_segment_t seg;
  (void)data;
  CHECK_OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &seg));
  CHECK_OK(hsa_amd_memory_pool_get_info(p, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags));
  if (seg == HSA_AMD_SEGMENT_GLOBAL && (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) && !host_pool.handle)
    host_pool = p;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t find_cpu_pools(hsa_agent_t a, void* data) {
  hsa_device_type_t t;
  (void)data;
  CHECK_OK(hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t));
  if (t == HSA_DEVICE_TYPE_CPU) CHECK_OK(hsa_amd_agent_iterate_memory_pools(a, find_pool, NULL));
  return HSA_STATUS_SUCCESS;
}

static void* alloc(size_t bytes) {
  void* p = NULL;
  CHECK_OK(hsa_amd_memory_pool_allocate(host_pool, bytes, 0, &p));
  CHECK_OK(hsa_amd_agents_allow_access(1, &gpu, NULL, p));
  memset(p, 0, bytes);
  return p;
}

static uint16_t header(hsa_packet_type_t type) {
  return (uint16_t)((type << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE));
}

static void submit(hsa_queue_t* q, const void* pkt, uint16_t hdr, uint16_t setup) {
  uint64_t index = hsa_queue_add_write_index_screlease(q, 1);
  uint8_t* slot = (uint8_t*)q->base_address + (index & (q->size - 1)) * 64;
  memcpy(slot + 4, (const uint8_t*)pkt + 4, 60);
  __atomic_store_n((uint32_t*)slot, (uint32_t)hdr | ((uint32_t)setup << 16), __ATOMIC_RELEASE);
  hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)index);
}

struct sums {
  const hsa_ven_amd_aqlprofile_event_t* events;
  unsigned count;
  uint64_t sum[8];
  unsigned samples[8];
};

static hsa_status_t add_sample(hsa_ven_amd_aqlprofile_info_type_t type, hsa_ven_amd_aqlprofile_info_data_t* info,
                               void* data) {
  struct sums* s = data;
  if (type != HSA_VEN_AMD_AQLPROFILE_INFO_PMC_DATA) return HSA_STATUS_SUCCESS;
  for (unsigned i = 0; i < s->count; i++)
    if (memcmp(&info->pmc_data.event, &s->events[i], sizeof s->events[i]) == 0) {
      s->sum[i] += info->pmc_data.result;
      s->samples[i]++;
    }
  return HSA_STATUS_SUCCESS;
}

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc < 2) return 2;
  CHECK_OK(hsa_init());
  CHECK_OK(hsa_iterate_agents(find_gpu, NULL));
  CHECK_OK(hsa_iterate_agents(find_cpu_pools, NULL));
  hsa_ven_amd_aqlprofile_1_00_pfn_t aql;
  memset(&aql, 0, sizeof aql);
  if (hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_AQLPROFILE, 1, sizeof aql, &aql) != HSA_STATUS_SUCCESS) {
    printf("aql_client: no aqlprofile extension\n");
    return 0;
  }
  CHECK(aql.hsa_ven_amd_aqlprofile_version_major() == 2, "version %u", aql.hsa_ven_amd_aqlprofile_version_major());

  /* Validation: a modelled event, and one of a block the GPU does not have. */
  hsa_ven_amd_aqlprofile_event_t good = {HSA_VEN_AMD_AQLPROFILE_BLOCK_NAME_SQ, 0, 4}, bad = {HSA_VEN_AMD_AQLPROFILE_BLOCK_NAME_SDMA, 0, 1};
  bool valid = false;
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_validate_event(gpu, &good, &valid));
  CHECK(valid, "SQ_WAVES valid");
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_validate_event(gpu, &bad, &valid));
  CHECK(!valid, "an SDMA event invalid");

  hsa_file_t fd = open(argv[1], O_RDONLY);
  hsa_code_object_reader_t reader;
  hsa_executable_t exe;
  hsa_executable_symbol_t sym;
  uint64_t vadd = 0;
  CHECK_OK(hsa_code_object_reader_create_from_file(fd, &reader));
  CHECK_OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
  CHECK_OK(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL));
  CHECK_OK(hsa_executable_freeze(exe, NULL));
  CHECK_OK(hsa_executable_get_symbol_by_name(exe, "vadd_f32.kd", &gpu, &sym));
  CHECK_OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &vadd));

  const hsa_ven_amd_aqlprofile_event_t events[] = {
      {HSA_VEN_AMD_AQLPROFILE_BLOCK_NAME_SQ, 0, 4},     /* SQ_WAVES */
      {HSA_VEN_AMD_AQLPROFILE_BLOCK_NAME_GRBM, 0, 0},   /* GRBM_COUNT */
      {HSA_VEN_AMD_AQLPROFILE_BLOCK_NAME_TCC, 3, 20},   /* TCC_HIT[3] */
      {HSA_VEN_AMD_AQLPROFILE_BLOCK_NAME_TA, 0, 101},   /* TA_FLAT_READ_WAVEFRONTS[0] */
  };
  const unsigned n = sizeof events / sizeof events[0];
  hsa_ven_amd_aqlprofile_profile_t profile;
  memset(&profile, 0, sizeof profile);
  profile.agent = gpu;
  profile.type = HSA_VEN_AMD_AQLPROFILE_EVENT_TYPE_PMC;
  profile.events = events;
  profile.event_count = n;
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_start(&profile, NULL));
  CHECK(profile.command_buffer.size > 0 && profile.output_buffer.size > 0, "sizes");
  profile.command_buffer.ptr = alloc(profile.command_buffer.size);
  profile.output_buffer.ptr = alloc(profile.output_buffer.size);
  hsa_ext_amd_aql_pm4_packet_t start, stop;
  memset(&start, 0, sizeof start);
  memset(&stop, 0, sizeof stop);
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_start(&profile, &start));
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_stop(&profile, &stop));
  struct sums none = {events, n, {0}, {0}};
  CHECK(aql.hsa_ven_amd_aqlprofile_iterate_data(&profile, add_sample, &none) != HSA_STATUS_SUCCESS,
        "no data before the stop packet ran");

  hsa_queue_t* q;
  CHECK_OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX, UINT32_MAX, &q));
  struct { void* a; void* b; void* c; uint32_t n; } * args = alloc(64);
  float* buf = alloc(3 * 1024 * sizeof(float));
  args->a = buf;
  args->b = buf + 1024;
  args->c = buf + 2048;
  args->n = 1024;
  hsa_signal_t done;
  CHECK_OK(hsa_signal_create(1, 0, NULL, &done));
  stop.completion_signal = done;
  /* A vendor packet's second 16 bits are its AmdFormat, written with the header. */
  submit(q, &start, header(HSA_PACKET_TYPE_VENDOR_SPECIFIC), start.pm4_command[0]);
  for (int i = 0; i < 2; i++) {
    hsa_kernel_dispatch_packet_t p;
    memset(&p, 0, sizeof p);
    p.workgroup_size_x = 64;
    p.workgroup_size_y = p.workgroup_size_z = 1;
    p.grid_size_x = 1024;
    p.grid_size_y = p.grid_size_z = 1;
    p.kernel_object = vadd;
    p.kernarg_address = args;
    submit(q, &p, header(HSA_PACKET_TYPE_KERNEL_DISPATCH), 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
  }
  submit(q, &stop, header(HSA_PACKET_TYPE_VENDOR_SPECIFIC), stop.pm4_command[0]);
  CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) == 0, "stop");

  struct sums got = {events, n, {0}, {0}};
  CHECK_OK(aql.hsa_ven_amd_aqlprofile_iterate_data(&profile, add_sample, &got));
  for (unsigned i = 0; i < n; i++)
    printf("aql_client: event block=%u index=%u counter=%u samples=%u sum=%llu\n", (unsigned)events[i].block_name,
           events[i].block_index, events[i].counter_id, got.samples[i], (unsigned long long)got.sum[i]);

  CHECK_OK(hsa_signal_destroy(done));
  CHECK_OK(hsa_queue_destroy(q));
  CHECK_OK(hsa_shut_down());
  if (failures) return 1;
  printf("aql_client: all checks passed\n");
  return 0;
}
