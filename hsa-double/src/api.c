/* cltap HSA test double -- the API tables and the exported functions.
 *
 * As in ROCr, every exported hsa_* function calls through the live API table
 * (dbl_core_table & co.), whose entries start as the double's own
 * implementations (dbl_hsa_*). A tool's OnLoad gets the root table and may
 * replace entries; every later call from the application then reaches the
 * tool first.
 *
 * Functions the double does not implement get a weak default here that
 * returns HSA_STATUS_ERROR; an implementation in another file replaces it at
 * link time (`make -C hsa-double stubs` lists the ones that remain).
 */
#include "double.h"

#include <string.h>

/* ---- weak defaults ---- */
#define STUB_STATUS(name) return dbl_unimplemented(#name)
#define STUB_VOID(name) (void)dbl_unimplemented(#name)
#define STUB_ZERO(name) \
  (void)dbl_unimplemented(#name); \
  return 0
#define DBL_WEAK(ret, name, params, args, stub) \
  __attribute__((weak)) ret dbl_##name params { stub(name); }
#define DBL_CORE DBL_WEAK
#define DBL_AMD DBL_WEAK
#define DBL_FIN DBL_WEAK
#define DBL_IMG DBL_WEAK
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "hsa_double_api_list.h"
#pragma GCC diagnostic pop
#undef DBL_CORE
#undef DBL_AMD
#undef DBL_FIN
#undef DBL_IMG

/* ---- the tables ---- */
#define DBL_INIT(ret, name, params, args, stub) .name##_fn = dbl_##name,
#define DBL_NONE(...)
#define VERSION(major, type) {(major), (uint32_t)sizeof(type), 0, 0}

#define DBL_CORE DBL_INIT
#define DBL_AMD DBL_NONE
#define DBL_FIN DBL_NONE
#define DBL_IMG DBL_NONE
static const CoreApiTable core_default = {
    .version = VERSION(HSA_CORE_API_TABLE_MAJOR_VERSION, CoreApiTable),
#include "hsa_double_api_list.h"
};
CoreApiTable dbl_core_table = {
    .version = VERSION(HSA_CORE_API_TABLE_MAJOR_VERSION, CoreApiTable),
#include "hsa_double_api_list.h"
};
#undef DBL_CORE
#define DBL_CORE DBL_NONE
#undef DBL_AMD
#define DBL_AMD DBL_INIT
static const AmdExtTable amd_default = {
    .version = VERSION(HSA_AMD_EXT_API_TABLE_MAJOR_VERSION, AmdExtTable),
#include "hsa_double_api_list.h"
};
AmdExtTable dbl_amd_table = {
    .version = VERSION(HSA_AMD_EXT_API_TABLE_MAJOR_VERSION, AmdExtTable),
#include "hsa_double_api_list.h"
};
#undef DBL_AMD
#define DBL_AMD DBL_NONE
#undef DBL_FIN
#define DBL_FIN DBL_INIT
static const FinalizerExtTable fin_default = {
    .version = VERSION(HSA_FINALIZER_API_TABLE_MAJOR_VERSION, FinalizerExtTable),
#include "hsa_double_api_list.h"
};
FinalizerExtTable dbl_fin_table = {
    .version = VERSION(HSA_FINALIZER_API_TABLE_MAJOR_VERSION, FinalizerExtTable),
#include "hsa_double_api_list.h"
};
#undef DBL_FIN
#define DBL_FIN DBL_NONE
#undef DBL_IMG
#define DBL_IMG DBL_INIT
static const ImageExtTable img_default = {
    .version = VERSION(HSA_IMAGE_API_TABLE_MAJOR_VERSION, ImageExtTable),
#include "hsa_double_api_list.h"
};
ImageExtTable dbl_img_table = {
    .version = VERSION(HSA_IMAGE_API_TABLE_MAJOR_VERSION, ImageExtTable),
#include "hsa_double_api_list.h"
};
#undef DBL_CORE
#undef DBL_AMD
#undef DBL_FIN
#undef DBL_IMG

HsaApiTable dbl_api_root = {
    .version = VERSION(HSA_API_TABLE_MAJOR_VERSION, HsaApiTable),
    .core_ = &dbl_core_table,
    .amd_ext_ = &dbl_amd_table,
    .finalizer_ext_ = &dbl_fin_table,
    .image_ext_ = &dbl_img_table,
};

void dbl_tables_reset(void) {
  dbl_core_table = core_default;
  dbl_amd_table = amd_default;
  dbl_fin_table = fin_default;
  dbl_img_table = img_default;
  dbl_api_root.version = (ApiTableVersion)VERSION(HSA_API_TABLE_MAJOR_VERSION, HsaApiTable);
  dbl_api_root.core_ = &dbl_core_table;
  dbl_api_root.amd_ext_ = &dbl_amd_table;
  dbl_api_root.finalizer_ext_ = &dbl_fin_table;
  dbl_api_root.image_ext_ = &dbl_img_table;
}

/* ---- the exported functions: each calls through its table entry ---- */
#define RET_STUB_STATUS return
#define RET_STUB_ZERO return
#define RET_STUB_VOID
#define DBL_CORE(ret, name, params, args, stub) \
  DBL_EXPORT ret name params { RET_##stub dbl_core_table.name##_fn args; }
#define DBL_AMD(ret, name, params, args, stub) \
  DBL_EXPORT ret name params { RET_##stub dbl_amd_table.name##_fn args; }
#define DBL_FIN(ret, name, params, args, stub) \
  DBL_EXPORT ret name params { RET_##stub dbl_fin_table.name##_fn args; }
#define DBL_IMG(ret, name, params, args, stub) \
  DBL_EXPORT ret name params { RET_##stub dbl_img_table.name##_fn args; }
#include "hsa_double_api_list.h"
#undef DBL_CORE
#undef DBL_AMD
#undef DBL_FIN
#undef DBL_IMG

/* ---- deprecated names ROCr 5.2.3 still exports (ROCR_1), not in the tables:
 * each forwards through the table entry of its successor, as ROCr does. ---- */
#define DEP_RMW_VOID(op, old, new)                                                 \
  DBL_EXPORT void hsa_signal_##op##_##old(hsa_signal_t s, hsa_signal_value_t v) { \
    dbl_core_table.hsa_signal_##op##_##new##_fn(s, v);                             \
  }
#define DEP_RMW_ALL(op)                 \
  DEP_RMW_VOID(op, acquire, scacquire)  \
  DEP_RMW_VOID(op, release, screlease)  \
  DEP_RMW_VOID(op, acq_rel, scacq_screl)
DEP_RMW_ALL(add)
DEP_RMW_ALL(subtract)
DEP_RMW_ALL(and)
DEP_RMW_ALL(or)
DEP_RMW_ALL(xor)

#define DEP_EXCH(old, new)                                                                     \
  DBL_EXPORT hsa_signal_value_t hsa_signal_exchange_##old(hsa_signal_t s, hsa_signal_value_t v) { \
    return dbl_core_table.hsa_signal_exchange_##new##_fn(s, v);                                 \
  }                                                                                             \
  DBL_EXPORT hsa_signal_value_t hsa_signal_cas_##old(hsa_signal_t s, hsa_signal_value_t e,       \
                                                     hsa_signal_value_t v) {                    \
    return dbl_core_table.hsa_signal_cas_##new##_fn(s, e, v);                                   \
  }
DEP_EXCH(acquire, scacquire)
DEP_EXCH(release, screlease)
DEP_EXCH(acq_rel, scacq_screl)

DBL_EXPORT hsa_signal_value_t hsa_signal_load_acquire(hsa_signal_t s) {
  return dbl_core_table.hsa_signal_load_scacquire_fn(s);
}
DBL_EXPORT void hsa_signal_store_release(hsa_signal_t s, hsa_signal_value_t v) {
  dbl_core_table.hsa_signal_store_screlease_fn(s, v);
}
DBL_EXPORT hsa_signal_value_t hsa_signal_wait_acquire(hsa_signal_t s, hsa_signal_condition_t c,
                                                      hsa_signal_value_t v, uint64_t t,
                                                      hsa_wait_state_t w) {
  return dbl_core_table.hsa_signal_wait_scacquire_fn(s, c, v, t, w);
}

DBL_EXPORT uint64_t hsa_queue_load_read_index_acquire(const hsa_queue_t* q) {
  return dbl_core_table.hsa_queue_load_read_index_scacquire_fn(q);
}
DBL_EXPORT uint64_t hsa_queue_load_write_index_acquire(const hsa_queue_t* q) {
  return dbl_core_table.hsa_queue_load_write_index_scacquire_fn(q);
}
DBL_EXPORT void hsa_queue_store_write_index_release(const hsa_queue_t* q, uint64_t v) {
  dbl_core_table.hsa_queue_store_write_index_screlease_fn(q, v);
}
DBL_EXPORT void hsa_queue_store_read_index_release(const hsa_queue_t* q, uint64_t v) {
  dbl_core_table.hsa_queue_store_read_index_screlease_fn(q, v);
}
#define DEP_QUEUE(old, new)                                                                    \
  DBL_EXPORT uint64_t hsa_queue_cas_write_index_##old(const hsa_queue_t* q, uint64_t e,        \
                                                      uint64_t v) {                            \
    return dbl_core_table.hsa_queue_cas_write_index_##new##_fn(q, e, v);                       \
  }                                                                                            \
  DBL_EXPORT uint64_t hsa_queue_add_write_index_##old(const hsa_queue_t* q, uint64_t v) {      \
    return dbl_core_table.hsa_queue_add_write_index_##new##_fn(q, v);                          \
  }
DEP_QUEUE(acquire, scacquire)
DEP_QUEUE(release, screlease)
DEP_QUEUE(acq_rel, scacq_screl)

/* Exported by ROCr outside the tables. Images are not supported. */
DBL_EXPORT hsa_status_t hsa_amd_image_get_info_max_dim(hsa_agent_t agent, hsa_agent_info_t attribute,
                                                       void* value) {
  (void)attribute;
  (void)value;
  if (!dbl_is_open()) return HSA_STATUS_ERROR_NOT_INITIALIZED;
  if (!dbl_agent_get(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  return dbl_unimplemented("hsa_amd_image_get_info_max_dim");
}
