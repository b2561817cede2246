/* cltap OpenCL-over-HSA test double -- the work-item functions.
 *
 * clBuildProgram compiles with -nogpulib (no ROCm device libraries), so
 * get_global_id and the other work-item functions that AMD's device
 * library provides would stay undefined and the link would fail. This
 * prelude, passed to clang with -include, defines them from the amdgcn
 * builtins and the AQL dispatch packet (__builtin_amdgcn_dispatch_ptr: the
 * work-group sizes at bytes 4-9, the grid sizes at 12-23, the dimensions in
 * the setup field) and the global offsets from the first hidden arguments
 * (code object v4, clang-15's default: hidden_global_offset_x/y/z at 0, 8
 * and 16 of __builtin_amdgcn_implicitarg_ptr). barrier() is a work-group
 * release fence, s_barrier and an acquire fence. Math and other library
 * functions are not provided: a kernel that calls them does not link. */
#include "icd.h"

const char ocl_prelude[] =
    "/* cltap OpenCL-over-HSA test double: work-item functions (see prelude.c) */\n"
    "typedef struct { ushort header, setup, wg_x, wg_y, wg_z, reserved0; uint grid_x, grid_y, grid_z; }\n"
    "    __cltap_dispatch_packet;\n"
    "#define __CLTAP_PACKET ((__constant __cltap_dispatch_packet*)__builtin_amdgcn_dispatch_ptr())\n"
    "#define __CLTAP_WORKITEM_FN size_t __attribute__((overloadable, const))\n"
    "uint __attribute__((overloadable, const)) get_work_dim(void) { return __CLTAP_PACKET->setup & 3u; }\n"
    "__CLTAP_WORKITEM_FN get_local_id(uint d) {\n"
    "  return d == 0 ? __builtin_amdgcn_workitem_id_x() : d == 1 ? __builtin_amdgcn_workitem_id_y()\n"
    "       : d == 2 ? __builtin_amdgcn_workitem_id_z() : 0;\n"
    "}\n"
    "__CLTAP_WORKITEM_FN get_group_id(uint d) {\n"
    "  return d == 0 ? __builtin_amdgcn_workgroup_id_x() : d == 1 ? __builtin_amdgcn_workgroup_id_y()\n"
    "       : d == 2 ? __builtin_amdgcn_workgroup_id_z() : 0;\n"
    "}\n"
    "__CLTAP_WORKITEM_FN get_local_size(uint d) {\n"
    "  return d == 0 ? __CLTAP_PACKET->wg_x : d == 1 ? __CLTAP_PACKET->wg_y : d == 2 ? __CLTAP_PACKET->wg_z : 1;\n"
    "}\n"
    "__CLTAP_WORKITEM_FN get_global_size(uint d) {\n"
    "  return d == 0 ? __CLTAP_PACKET->grid_x : d == 1 ? __CLTAP_PACKET->grid_y : d == 2 ? __CLTAP_PACKET->grid_z : 1;\n"
    "}\n"
    "__CLTAP_WORKITEM_FN get_num_groups(uint d) {\n"
    "  return (get_global_size(d) + get_local_size(d) - 1) / get_local_size(d);\n"
    "}\n"
    "__CLTAP_WORKITEM_FN get_global_offset(uint d) {\n"
    "  return d < 3 ? ((__constant size_t*)__builtin_amdgcn_implicitarg_ptr())[d] : 0;\n"
    "}\n"
    "__CLTAP_WORKITEM_FN get_global_id(uint d) {\n"
    "  return get_group_id(d) * get_local_size(d) + get_local_id(d) + get_global_offset(d);\n"
    "}\n"
    "void __attribute__((overloadable)) barrier(cl_mem_fence_flags flags) {\n"
    "  __builtin_amdgcn_fence(__ATOMIC_RELEASE, \"workgroup\");\n"
    "  __builtin_amdgcn_s_barrier();\n"
    "  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, \"workgroup\");\n"
    "}\n"
    "#undef __CLTAP_WORKITEM_FN\n";
