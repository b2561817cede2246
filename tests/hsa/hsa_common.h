/* What the HSA test programs in this folder share: failing loudly on an
 * HSA status, and finding the CPU and GPU agents and the GPU's kernarg
 * region. A failure prints one line and exits 1, so a test sees the line. */
#ifndef CLTAP_TESTS_HSA_COMMON_H
#define CLTAP_TESTS_HSA_COMMON_H

#include <stdio.h>
#include <stdlib.h>

#include "hsa.h"

#define OK(call)                                                                \
  do {                                                                          \
    hsa_status_t st_ = (call);                                                  \
    if (st_ != HSA_STATUS_SUCCESS) {                                            \
      const char* s_ = "?";                                                     \
      hsa_status_string(st_, &s_);                                              \
      printf("FAIL line %d: %s returned %#x (%s)\n", __LINE__, #call, st_, s_); \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)
#define CHECK(cond)                                  \
  do {                                               \
    if (!(cond)) {                                   \
      printf("FAIL line %d: %s\n", __LINE__, #cond); \
      exit(1);                                       \
    }                                                \
  } while (0)

static hsa_agent_t cpu, gpu;
static hsa_status_t find_agents(hsa_agent_t a, void* data) {
  (void)data;
  hsa_device_type_t t;
  OK(hsa_agent_get_info(a, HSA_AGENT_INFO_DEVICE, &t));
  if (t == HSA_DEVICE_TYPE_GPU) gpu = a;
  if (t == HSA_DEVICE_TYPE_CPU) cpu = a;
  return HSA_STATUS_SUCCESS;
}

static hsa_region_t kernarg_region;
static hsa_status_t find_kernarg(hsa_region_t r, void* data) {
  (void)data;
  uint32_t flags;
  OK(hsa_region_get_info(r, HSA_REGION_INFO_GLOBAL_FLAGS, &flags));
  if (flags & HSA_REGION_GLOBAL_FLAG_KERNARG) {
    kernarg_region = r;
    return HSA_STATUS_INFO_BREAK;
  }
  return HSA_STATUS_SUCCESS;
}

#endif
