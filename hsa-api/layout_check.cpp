// cltap -- ABI check of hsa_api_trace_c.h, compiled (not run) with g++ (tests/hsa_real.rs):
//   g++ -std=c++17 -fsyntax-only -DAMD_INTERNAL_BUILD -I/usr/include/hsa -Ihsa-api hsa-api/layout_check.cpp
// It includes Debian's real hsa_api_trace.h (C++) and cltap's C view of
// the same tables (include/hsa_api_trace_c.h, inside namespace cview), and
// static_asserts that
//   - every table has the size cltap assumes (CoreApiTable 1016 bytes,
//     AmdExtTable 400, FinalizerExtTable 64, ImageExtTable 120, HsaApiTable 48),
//   - a few offsets named in the brief hold,
//   - every one of the 192 function-pointer members is at the same offset and
//     has the same type in both, in the same order (the generated list).
#include "hsa_api_trace.h"

#include <cstddef>
#include <type_traits>

namespace cview {
#include "hsa_api_trace_c.h"
}

static_assert(sizeof(ApiTableVersion) == 16, "ApiTableVersion");
static_assert(sizeof(HsaApiTable) == 48, "HsaApiTable size");
static_assert(sizeof(CoreApiTable) == 1016, "CoreApiTable size");
static_assert(sizeof(AmdExtTable) == 400, "AmdExtTable size");
static_assert(sizeof(FinalizerExtTable) == 64, "FinalizerExtTable size");
static_assert(sizeof(ImageExtTable) == 120, "ImageExtTable size");

static_assert(offsetof(HsaApiTable, core_) == 16, "HsaApiTable::core_");
static_assert(offsetof(HsaApiTable, amd_ext_) == 24, "HsaApiTable::amd_ext_");
static_assert(offsetof(HsaApiTable, finalizer_ext_) == 32, "HsaApiTable::finalizer_ext_");
static_assert(offsetof(HsaApiTable, image_ext_) == 40, "HsaApiTable::image_ext_");
static_assert(offsetof(CoreApiTable, hsa_init_fn) == 16, "hsa_init_fn");
static_assert(offsetof(CoreApiTable, hsa_agent_get_info_fn) == 64, "hsa_agent_get_info_fn");
static_assert(offsetof(CoreApiTable, hsa_queue_create_fn) == 72, "hsa_queue_create_fn");
static_assert(offsetof(CoreApiTable, hsa_executable_iterate_program_symbols_fn) == 1008, "last core entry");
static_assert(offsetof(AmdExtTable, hsa_amd_queue_intercept_create_fn) == 296, "intercept_create");
static_assert(offsetof(AmdExtTable, hsa_amd_queue_intercept_register_fn) == 304, "intercept_register");
static_assert(offsetof(AmdExtTable, hsa_amd_queue_cu_get_mask_fn) == 392, "last amd entry");

// The C view against the real header, table by table and member by member.
static_assert(sizeof(cview::ApiTableVersion) == sizeof(::ApiTableVersion), "C ApiTableVersion");
static_assert(sizeof(cview::HsaApiTable) == sizeof(::HsaApiTable), "C HsaApiTable");
static_assert(offsetof(cview::HsaApiTable, core_) == offsetof(::HsaApiTable, core_), "C core_");
static_assert(offsetof(cview::HsaApiTable, amd_ext_) == offsetof(::HsaApiTable, amd_ext_), "C amd_ext_");
static_assert(offsetof(cview::HsaApiTable, finalizer_ext_) == offsetof(::HsaApiTable, finalizer_ext_), "C fin");
static_assert(offsetof(cview::HsaApiTable, image_ext_) == offsetof(::HsaApiTable, image_ext_), "C img");
static_assert(sizeof(cview::CoreApiTable) == sizeof(::CoreApiTable), "C CoreApiTable");
static_assert(sizeof(cview::AmdExtTable) == sizeof(::AmdExtTable), "C AmdExtTable");
static_assert(sizeof(cview::FinalizerExtTable) == sizeof(::FinalizerExtTable), "C FinalizerExtTable");
static_assert(sizeof(cview::ImageExtTable) == sizeof(::ImageExtTable), "C ImageExtTable");

// Every member: same offset and type as the real one, and the signature the
// generated list gives it. The C
// view is laid out in list order, so equal offsets also prove the order.
#define CHECK_MEMBER(real, c, ret, name, params, args, stub)                                       \
  static_assert(offsetof(::real, name##_fn) == offsetof(cview::c, name##_fn), #name " offset");   \
  static_assert(std::is_same<decltype(::real::name##_fn), decltype(cview::c::name##_fn)>::value,  \
                #name " type");                                                                    \
  static_assert(std::is_same<decltype(::real::name##_fn), ret(*) params>::value, #name " signature");
#define DBL_CORE(...) CHECK_MEMBER(CoreApiTable, CoreApiTable, __VA_ARGS__)
#define DBL_AMD(...) CHECK_MEMBER(AmdExtTable, AmdExtTable, __VA_ARGS__)
#define DBL_FIN(...) CHECK_MEMBER(FinalizerExtTable, FinalizerExtTable, __VA_ARGS__)
#define DBL_IMG(...) CHECK_MEMBER(ImageExtTable, ImageExtTable, __VA_ARGS__)
#include "hsa_api_list.h"
#undef DBL_CORE
#undef DBL_AMD
#undef DBL_FIN
#undef DBL_IMG

// No member is missing from the list: the counts fill the tables exactly.
static_assert(DBL_CORE_ENTRY_COUNT == 125 && sizeof(::CoreApiTable) == 16 + 8 * DBL_CORE_ENTRY_COUNT, "core count");
static_assert(DBL_AMD_ENTRY_COUNT == 48 && sizeof(::AmdExtTable) == 16 + 8 * DBL_AMD_ENTRY_COUNT, "amd count");
static_assert(DBL_FIN_ENTRY_COUNT == 6 && sizeof(::FinalizerExtTable) == 16 + 8 * DBL_FIN_ENTRY_COUNT, "fin count");
static_assert(DBL_IMG_ENTRY_COUNT == 13 && sizeof(::ImageExtTable) == 16 + 8 * DBL_IMG_ENTRY_COUNT, "img count");
static_assert(DBL_API_ENTRY_COUNT == 192, "192 entries in all");

int main() { return 0; }
