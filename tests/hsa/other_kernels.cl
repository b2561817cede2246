/* A second code object for `programs reload` (tests/hsa/programs.c). Its
 * zzz_other uses 1 KiB of LDS, so a counter row that took add_one's
 * descriptor instead would show it; the global variable and the second
 * kernel give the code object the layout that puts zzz_other's descriptor
 * at the offset add_one's had in tests/hsa/kernels.cl, so the HSA test double
 * loads it at the same address. Built by tests/counters_hsa.rs with
 * Debian's clang-15 for gfx906. */
__attribute__((visibility("default"))) global int dbl_counter = 7;

__kernel void zzz_other(__global int* buf) {
  __local int tmp[256];
  tmp[__builtin_amdgcn_workitem_id_x()] = buf[0];
  __builtin_amdgcn_s_barrier();
  buf[__builtin_amdgcn_workitem_id_x()] -= tmp[3];
}

__kernel void scale(__global float* x, float a) {
  x[__builtin_amdgcn_workitem_id_x()] *= a + dbl_counter;
}
