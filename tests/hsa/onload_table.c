/* cltap HSA tests: calls cltap's OnLoad directly with API tables made here,
 * as a runtime would, and reports what it did to each entry.
 *
 *   onload_table LAYER CORE_BYTES
 *
 * The core table claims CORE_BYTES in version.minor_id (ROCr sets it to the
 * size of the table it passes); the AMD table is whole, with one NULL entry;
 * the finalizer table has another major version; the image table is NULL.
 * Every entry starts as a distinct address that must never be called, but
 * hsa_system_get_info (core entry 2), which is a function here that answers
 * 0x1234 (a status no runtime has) so that forwarding can be seen, and
 * hsa_ext_program_finalize, which checks the struct it gets by value. With
 * ONLOAD_FIN_MAJOR=1 the finalizer table has cltap's major version, and
 * finalize is called through it. With ONLOAD_CORE_MAJOR=N the core table has
 * major version N; with ONLOAD_ROOT_BYTES=N the root table claims N bytes.
 * OnLoad
 * runs twice (a runtime may hand the same table again). Prints
 *   onload: returned=1 priority=P core changed_in=A same_in=B changed_out=C same_out=D second=E
 *   onload: amd replaced=R null_kept=1 fin untouched=1
 *   onload: system_get_info=0x1234 value=77
 *   onload: finalize=0x4321 code_object=99   (with ONLOAD_FIN_MAJOR=1)
 * and exits 0. Compile with -I/usr/include/hsa -I<cltap>/hsa-api. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsa_api_trace_c.h"

typedef bool (*on_load_t)(HsaApiTable*, uint64_t, uint64_t, const char* const*);

static hsa_status_t my_system_get_info(hsa_system_info_t attribute, void* value) {
  *(uint64_t*)value = 77 + (uint64_t)attribute * 0;
  return (hsa_status_t)0x1234;
}

/* Answers 0x4321 when every argument, the 144-byte struct passed by value
 * among them, arrived as the caller passed it. */
static hsa_status_t my_finalize(hsa_ext_program_t program, hsa_isa_t isa, int32_t call_convention,
                                hsa_ext_control_directives_t d, const char* options, hsa_code_object_type_t type,
                                hsa_code_object_t* code_object) {
  const bool ok = program.handle == 11 && isa.handle == 22 && call_convention == -1 && d.control_directives_mask == 7 &&
                  d.max_flat_grid_size == 12345 && d.required_grid_size[2] == 9 && d.required_dim == 3 &&
                  d.reserved2[74] == 0x5a && options && strcmp(options, "-O3") == 0 &&
                  type == HSA_CODE_OBJECT_TYPE_PROGRAM;
  code_object->handle = 99;
  return ok ? (hsa_status_t)0x4321 : HSA_STATUS_ERROR;
}

static void** entries(void* table) { return (void**)((char*)table + sizeof(ApiTableVersion)); }
/* OnLoad asks the runtime for its agents (to record them): this one has none. */
static hsa_status_t no_agents(hsa_status_t (*callback)(hsa_agent_t, void*), void* data) {
  (void)callback;
  (void)data;
  return HSA_STATUS_SUCCESS;
}
static void* fake(int table, size_t i) { return (void*)(uintptr_t)(0x10000000u * (unsigned)(table + 1) + 16 * i); }

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: onload_table LAYER CORE_BYTES\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IONBF, 0);
  const uint32_t core_bytes = (uint32_t)atoi(argv[2]);
  static CoreApiTable core;
  static AmdExtTable amd;
  static FinalizerExtTable fin;
  const size_t ncore = (sizeof core - sizeof(ApiTableVersion)) / sizeof(void*);
  const size_t namd = (sizeof amd - sizeof(ApiTableVersion)) / sizeof(void*);
  const size_t nfin = (sizeof fin - sizeof(ApiTableVersion)) / sizeof(void*);
  for (size_t i = 0; i < ncore; i++) entries(&core)[i] = fake(0, i);
  for (size_t i = 0; i < namd; i++) entries(&amd)[i] = fake(1, i);
  for (size_t i = 0; i < nfin; i++) entries(&fin)[i] = fake(2, i);
  core.hsa_system_get_info_fn = my_system_get_info;
  core.hsa_iterate_agents_fn = no_agents;
  fin.hsa_ext_program_finalize_fn = my_finalize;
  const uint32_t fin_major = getenv("ONLOAD_FIN_MAJOR") ? (uint32_t)atoi(getenv("ONLOAD_FIN_MAJOR")) : 7;
  amd.hsa_amd_memory_pool_free_fn = NULL;
  const uint32_t core_major = getenv("ONLOAD_CORE_MAJOR") ? (uint32_t)atoi(getenv("ONLOAD_CORE_MAJOR")) : 1;
  const uint32_t root_bytes = getenv("ONLOAD_ROOT_BYTES") ? (uint32_t)atoi(getenv("ONLOAD_ROOT_BYTES")) : (uint32_t)sizeof(HsaApiTable);
  core.version = (ApiTableVersion){core_major, core_bytes, 0, 0};
  amd.version = (ApiTableVersion){1, (uint32_t)sizeof amd, 0, 0};
  fin.version = (ApiTableVersion){fin_major, (uint32_t)sizeof fin, 0, 0};
  HsaApiTable root = {{1, root_bytes, 0, 0}, &core, &amd, &fin, NULL};

  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    printf("onload: dlopen: %s\n", dlerror());
    return 1;
  }
  on_load_t on_load = (on_load_t)dlsym(lib, "OnLoad");
  const uint32_t* priority = dlsym(lib, "HSA_AMD_TOOL_PRIORITY");
  if (!on_load || !priority || !dlsym(lib, "OnUnload")) {
    printf("onload: missing exports\n");
    return 1;
  }
  bool ok = on_load(&root, 1, 0, NULL);
  void* after_first[sizeof core / sizeof(void*)];
  for (size_t i = 0; i < ncore; i++) after_first[i] = entries(&core)[i];
  ok = on_load(&root, 1, 0, NULL) && ok;

  /* An entry inside the claimed size is cltap's wrapper; one past it is the
   * runtime's own, untouched. The second OnLoad changes nothing. */
  size_t changed_in = 0, same_in = 0, changed_out = 0, same_out = 0, second = 0;
  for (size_t i = 0; i < ncore; i++) {
    const bool inside = sizeof(ApiTableVersion) + 8 * (i + 1) <= core_bytes;
    const void* orig = i == 2 ? (void*)my_system_get_info : i == 5 ? (void*)no_agents : fake(0, i);
    const void* now = entries(&core)[i];
    second += now != after_first[i];
    if (inside) {
      changed_in += now != orig;
      same_in += now == orig;
    } else {
      changed_out += now != orig;
      same_out += now == orig;
    }
  }
  size_t amd_replaced = 0;
  for (size_t i = 0; i < namd; i++) amd_replaced += entries(&amd)[i] != fake(1, i) && entries(&amd)[i] != NULL;
  /* A refused table must be callable as before: only when nothing was replaced. */
  if (!ok && changed_in + changed_out == 0 && amd_replaced == 0) {
    printf("onload: refused, nothing replaced\n");
  }
  size_t fin_untouched = 1;
  for (size_t i = 0; i < nfin; i++) fin_untouched &= entries(&fin)[i] == (i == 5 ? (void*)my_finalize : fake(2, i));
  printf("onload: returned=%d priority=%u core changed_in=%zu same_in=%zu changed_out=%zu same_out=%zu second=%zu\n", ok,
         *priority, changed_in, same_in, changed_out, same_out, second);
  printf("onload: amd replaced=%zu null_kept=%d fin untouched=%zu\n", amd_replaced, amd.hsa_amd_memory_pool_free_fn == NULL,
         fin_untouched);
  if (core_bytes >= sizeof(ApiTableVersion) + 8 * 3) {
    uint64_t value = 0;
    hsa_status_t st = core.hsa_system_get_info_fn(HSA_SYSTEM_INFO_TIMESTAMP, &value);
    printf("onload: system_get_info=%#x value=%llu\n", (unsigned)st, (unsigned long long)value);
  }
  if (!fin_untouched) {
    hsa_ext_control_directives_t d;
    memset(&d, 0, sizeof d);
    d.control_directives_mask = 7;
    d.max_flat_grid_size = 12345;
    d.required_grid_size[2] = 9;
    d.required_dim = 3;
    d.reserved2[74] = 0x5a;
    hsa_code_object_t co = {0};
    hsa_status_t st = fin.hsa_ext_program_finalize_fn((hsa_ext_program_t){11}, (hsa_isa_t){22}, -1, d, "-O3",
                                                      HSA_CODE_OBJECT_TYPE_PROGRAM, &co);
    printf("onload: finalize=%#x code_object=%llu\n", (unsigned)st, (unsigned long long)co.handle);
  }
  return 0;
}
