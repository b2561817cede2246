/* rocprofiler_settings.h: cltap's C copy of rocprofiler v1's global
 * settings structure and of the entry points a ROCP_TOOL_LIB tool exports.
 *
 * The structure is laid out as `rocprofiler_settings_t` in rocprofiler v1's
 * public header (inc/rocprofiler.h of ROCm/rocprofiler, unchanged from ROCm
 * 5.0 to 5.7), so a tool built against that header works with cltap, and a
 * tool built against this one works with rocprofiler. tests/tool_lib.rs
 * compiles it with gcc and compares every offset with cltap's Rust copy
 * (src/tools/toollib_settings.rs), which also says which fields cltap fills
 * and which it honours. */
#ifndef CLTAP_ROCPROFILER_SETTINGS_H
#define CLTAP_ROCPROFILER_SETTINGS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint32_t intercept_mode;
    uint32_t code_obj_tracking;
    uint32_t memcopy_tracking;
    uint32_t trace_size;
    uint32_t trace_local;
    uint64_t timeout;
    uint32_t timestamp_on;
    uint32_t hsa_intercepting;
    uint32_t k_concurrent;
    uint32_t opt_mode;
    uint32_t obj_dumping;
} rocprofiler_settings_t;

/* Exported by a tool: OnLoadToolProp if it wants the settings (it may
 * change them), else OnLoadTool; OnUnloadTool at the end (optional with
 * cltap). */
void OnLoadToolProp(rocprofiler_settings_t *settings);
void OnLoadTool(void);
void OnUnloadTool(void);

#ifdef __cplusplus
}
#endif

#endif /* CLTAP_ROCPROFILER_SETTINGS_H */
