/* cltap -- a C view of the API tables of ROCr's
 * hsa_api_trace.h (Debian 12, libhsa-runtime-dev 5.2.3).
 *
 * The real header is C++ (it uses decltype). This one declares the same
 * structures for C, with the same names, member names, order and member types
 * (`__typeof__(hsa_foo)*` for `decltype(hsa_foo)*`), so that tools written in
 * C can receive the table that OnLoad gets. The members come from the
 * generated list hsa_api_list.h. layout_check.cpp compiles this header next to
 * the real one and static_asserts that every table has the same size and
 * every member the same offset and type.
 *
 * Include path: -I/usr/include/hsa -I<cltap>/hsa-api
 */
#ifndef CLTAP_HSA_DOUBLE_API_TRACE_C_H
#define CLTAP_HSA_DOUBLE_API_TRACE_C_H

#include <stdint.h>
#include <stdbool.h>
#include "hsa.h"
#include "hsa_ext_amd.h"
#include "hsa_ext_image.h"
#include "hsa_ext_finalize.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Declared only by the real hsa_api_trace.h ("APIs intended for use only by
 * tools"). Debian's ROCr has them in the AmdExtTable but does not export
 * them. */
#ifndef HSA_RUNTIME_INC_HSA_API_TRACE_H
typedef void (*hsa_amd_queue_intercept_packet_writer)(const void* pkts, uint64_t pkt_count);
typedef void (*hsa_amd_queue_intercept_handler)(const void* pkts, uint64_t pkt_count,
                                                uint64_t user_pkt_index, void* data,
                                                hsa_amd_queue_intercept_packet_writer writer);
hsa_status_t hsa_amd_queue_intercept_register(hsa_queue_t* queue,
                                              hsa_amd_queue_intercept_handler callback,
                                              void* user_data);
hsa_status_t hsa_amd_queue_intercept_create(
    hsa_agent_t agent_handle, uint32_t size, hsa_queue_type32_t type,
    void (*callback)(hsa_status_t status, hsa_queue_t* source, void* data), void* data,
    uint32_t private_segment_size, uint32_t group_segment_size, hsa_queue_t** queue);
typedef void (*hsa_amd_runtime_queue_notifier)(const hsa_queue_t* queue, hsa_agent_t agent,
                                               void* data);
hsa_status_t hsa_amd_runtime_queue_create_register(hsa_amd_runtime_queue_notifier callback,
                                                   void* user_data);

#define HSA_API_TABLE_MAJOR_VERSION 0x01
#define HSA_CORE_API_TABLE_MAJOR_VERSION 0x01
#define HSA_AMD_EXT_API_TABLE_MAJOR_VERSION 0x01
#define HSA_FINALIZER_API_TABLE_MAJOR_VERSION 0x01
#define HSA_IMAGE_API_TABLE_MAJOR_VERSION 0x01
#define HSA_API_TABLE_STEP_VERSION 0x00
#define HSA_CORE_API_TABLE_STEP_VERSION 0x00
#define HSA_AMD_EXT_API_TABLE_STEP_VERSION 0x00
#define HSA_FINALIZER_API_TABLE_STEP_VERSION 0x00
#define HSA_IMAGE_API_TABLE_STEP_VERSION 0x00
#endif

typedef struct ApiTableVersion {
  uint32_t major_id;
  uint32_t minor_id;
  uint32_t step_id;
  uint32_t reserved;
} ApiTableVersion;

#define DBL_TABLE_MEMBER(ret, name, params, args, stub) __typeof__(name)* name##_fn;
#define DBL_CORE(...)
#define DBL_AMD(...)
#define DBL_FIN(...)
#define DBL_IMG(...)

#undef DBL_CORE
#define DBL_CORE DBL_TABLE_MEMBER
typedef struct CoreApiTable {
  ApiTableVersion version;
#include "hsa_api_list.h"
} CoreApiTable;
#undef DBL_CORE
#define DBL_CORE(...)

#undef DBL_AMD
#define DBL_AMD DBL_TABLE_MEMBER
typedef struct AmdExtTable {
  ApiTableVersion version;
#include "hsa_api_list.h"
} AmdExtTable;
#undef DBL_AMD
#define DBL_AMD(...)

#undef DBL_FIN
#define DBL_FIN DBL_TABLE_MEMBER
typedef struct FinalizerExtTable {
  ApiTableVersion version;
#include "hsa_api_list.h"
} FinalizerExtTable;
#undef DBL_FIN
#define DBL_FIN(...)

#undef DBL_IMG
#define DBL_IMG DBL_TABLE_MEMBER
typedef struct ImageExtTable {
  ApiTableVersion version;
#include "hsa_api_list.h"
} ImageExtTable;
#undef DBL_IMG

#undef DBL_CORE
#undef DBL_AMD
#undef DBL_FIN
#undef DBL_TABLE_MEMBER

typedef struct HsaApiTable {
  ApiTableVersion version;
  CoreApiTable* core_;
  AmdExtTable* amd_ext_;
  FinalizerExtTable* finalizer_ext_;
  ImageExtTable* image_ext_;
} HsaApiTable;

/* What a tool library exports (ROCr 5.2.3 Runtime::LoadTools/UnloadTools). */
typedef bool (*hsa_tool_on_load_t)(HsaApiTable* table, uint64_t runtime_version,
                                   uint64_t failed_tool_count,
                                   const char* const* failed_tool_names);
typedef void (*hsa_tool_on_unload_t)(void);

#ifdef __cplusplus
}
#endif

#endif
