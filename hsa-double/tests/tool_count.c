/* cltap HSA test double -- a tool library (HSA_TOOLS_LIB) that counts calls.
 *
 * OnLoad checks the API table it is given (versions and sizes, as Debian's
 * hsa_api_trace.h has them), prints what it got, and replaces
 * hsa_queue_create_fn and hsa_agent_get_info_fn with wrappers that count and
 * forward to the runtime's entries. OnUnload prints the counts. */
#include <stdio.h>
#include <string.h>

#include "hsa_api_trace_c.h"

static HsaApiTable* table;
static __typeof__(hsa_queue_create)* real_queue_create;
static __typeof__(hsa_agent_get_info)* real_agent_get_info;
static unsigned queue_creates, agent_infos;

static hsa_status_t counting_queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                                          void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                                          uint32_t private_segment_size, uint32_t group_segment_size,
                                          hsa_queue_t** queue) {
  __atomic_add_fetch(&queue_creates, 1, __ATOMIC_RELAXED);
  return real_queue_create(agent, size, type, callback, data, private_segment_size, group_segment_size, queue);
}

static hsa_status_t counting_agent_get_info(hsa_agent_t agent, hsa_agent_info_t attribute, void* value) {
  __atomic_add_fetch(&agent_infos, 1, __ATOMIC_RELAXED);
  return real_agent_get_info(agent, attribute, value);
}

#define EXPECT(cond)                                       \
  do {                                                     \
    if (!(cond)) {                                         \
      printf("tool_count: FAIL %s\n", #cond);              \
      ok = false;                                          \
    }                                                      \
  } while (0)

__attribute__((visibility("default"))) bool OnLoad(HsaApiTable* t, uint64_t runtime_version,
                                                   uint64_t failed_tool_count, const char* const* failed_tool_names) {
  bool ok = true;
  setvbuf(stdout, NULL, _IONBF, 0);
  printf("tool_count: OnLoad runtime_version=%llu failed_tool_count=%llu\n", (unsigned long long)runtime_version,
         (unsigned long long)failed_tool_count);
  for (uint64_t i = 0; i < failed_tool_count; i++) printf("tool_count: failed tool: %s\n", failed_tool_names[i]);
  EXPECT(runtime_version == HSA_API_TABLE_MAJOR_VERSION);
  EXPECT(t->version.major_id == HSA_API_TABLE_MAJOR_VERSION && t->version.minor_id == sizeof(HsaApiTable) &&
         t->version.minor_id == 48 && t->version.step_id == 0);
  EXPECT(t->core_->version.major_id == HSA_CORE_API_TABLE_MAJOR_VERSION && t->core_->version.minor_id == 1016 &&
         t->core_->version.step_id == 0);
  EXPECT(t->amd_ext_->version.major_id == HSA_AMD_EXT_API_TABLE_MAJOR_VERSION &&
         t->amd_ext_->version.minor_id == 400);
  EXPECT(t->finalizer_ext_->version.major_id == HSA_FINALIZER_API_TABLE_MAJOR_VERSION &&
         t->finalizer_ext_->version.minor_id == sizeof(FinalizerExtTable));
  EXPECT(t->image_ext_->version.major_id == HSA_IMAGE_API_TABLE_MAJOR_VERSION &&
         t->image_ext_->version.minor_id == sizeof(ImageExtTable));
  /* Every entry is filled, and the exported function is not the entry (the
   * export calls through the table). */
  void* const* core = (void* const*)((const char*)t->core_ + sizeof(ApiTableVersion));
  for (size_t i = 0; i < (sizeof(CoreApiTable) - sizeof(ApiTableVersion)) / sizeof(void*); i++) EXPECT(core[i]);
  EXPECT((void*)t->core_->hsa_queue_create_fn != (void*)hsa_queue_create);
  /* The runtime is usable from OnLoad. */
  uint16_t major = 0;
  EXPECT(t->core_->hsa_system_get_info_fn(HSA_SYSTEM_INFO_VERSION_MAJOR, &major) == HSA_STATUS_SUCCESS && major == 1);
  if (!ok) return false;
  table = t;
  real_queue_create = t->core_->hsa_queue_create_fn;
  real_agent_get_info = t->core_->hsa_agent_get_info_fn;
  t->core_->hsa_queue_create_fn = counting_queue_create;
  t->core_->hsa_agent_get_info_fn = counting_agent_get_info;
  printf("tool_count: OnLoad done\n");
  return true;
}

__attribute__((visibility("default"))) void OnUnload(void) {
  printf("tool_count: OnUnload queue_create=%u agent_get_info=%u\n", queue_creates, agent_infos);
  if (table) {
    table->core_->hsa_queue_create_fn = real_queue_create;
    table->core_->hsa_agent_get_info_fn = real_agent_get_info;
  }
}
