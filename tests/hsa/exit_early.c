/* An HSA program that exits right after its last dispatch: it submits
 * EXIT_EARLY_DISPATCHES (default 4) dispatches of add_one on one queue and
 * returns from main without waiting for any of them or shutting HSA down,
 * so their completions are still in flight while the process ends. Run by
 * tests/tool_exit.rs with a rocprofiler v1 tool under cltap.
 *
 *   exit_early KERNELS.co      prints one line, exits with status 7
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsa.h"
#include "hsa_ext_amd.h"

#include "hsa_common.h"

int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc < 2) {
    printf("usage: exit_early KERNELS.co\n");
    return 2;
  }
  const char* n_env = getenv("EXIT_EARLY_DISPATCHES");
  const unsigned n = n_env ? (unsigned)atoi(n_env) : 4;
  OK(hsa_init());
  OK(hsa_iterate_agents(find_agents, NULL));
  if (!gpu.handle || hsa_agent_iterate_regions(gpu, find_kernarg, NULL) != HSA_STATUS_INFO_BREAK) {
    printf("FAIL: no GPU with a kernarg region\n");
    return 1;
  }
  FILE* f = fopen(argv[1], "rb");
  if (!f) {
    printf("FAIL: cannot open %s\n", argv[1]);
    return 1;
  }
  static char bytes[1 << 20];
  size_t size = fread(bytes, 1, sizeof bytes, f);
  fclose(f);
  hsa_code_object_reader_t reader;
  OK(hsa_code_object_reader_create_from_memory(bytes, size, &reader));
  hsa_executable_t exe;
  OK(hsa_executable_create_alt(HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, NULL, &exe));
  OK(hsa_executable_load_agent_code_object(exe, gpu, reader, NULL, NULL));
  OK(hsa_executable_freeze(exe, NULL));
  hsa_executable_symbol_t sym;
  OK(hsa_executable_get_symbol_by_name(exe, "add_one.kd", &gpu, &sym));
  uint64_t kernel_object;
  OK(hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kernel_object));

  hsa_queue_t* q;
  OK(hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, 0, 0, &q));
  hsa_signal_t done;
  OK(hsa_signal_create(n, 0, NULL, &done));
  /* The buffer add_one increments, in kernarg memory (the GPU can reach it). */
  int* buf;
  OK(hsa_memory_allocate(kernarg_region, 64 * sizeof(int), (void**)&buf));
  memset(buf, 0, 64 * sizeof(int));
  for (unsigned i = 0; i < n; i++) {
    void* kernarg;
    OK(hsa_memory_allocate(kernarg_region, sizeof buf, &kernarg));
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
    uint64_t index = hsa_queue_add_write_index_screlease(q, 1);
    uint8_t* slot = (uint8_t*)q->base_address + (index & (q->size - 1)) * 64;
    memcpy(slot + 4, (const uint8_t*)&p + 4, 60);
    uint16_t header = (uint16_t)((HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                                 (1 << HSA_PACKET_HEADER_BARRIER) |
                                 (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
                                 (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE));
    uint16_t setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
    __atomic_store_n((uint32_t*)slot, (uint32_t)header | ((uint32_t)setup << 16), __ATOMIC_RELEASE);
    hsa_signal_store_screlease(q->doorbell_signal, (hsa_signal_value_t)index);
  }
  printf("exit_early: %u dispatches submitted\n", n);
  /* No wait, no hsa_shut_down: the process ends with the dispatches in flight. */
  return 7;
}
