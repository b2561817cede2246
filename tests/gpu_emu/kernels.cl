// Kernels for the gpu-emu tests, built for gfx906 with Debian's clang-15:
//   clang-15 -target amdgcn-amd-amdhsa -mcpu=gfx906 -nogpulib -cl-std=CL2.0 -O2 kernels.cl -o kernels.co
// The emulated GPU runs their machine code (gpu-emu/isa).

__kernel void vadd_f32(__global const float* a, __global const float* b, __global float* c, uint n) {
  uint i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x() + __builtin_amdgcn_workitem_id_x();
  if (i < n) c[i] = a[i] + b[i];
}

// Each work-group writes -1 to the first work-group's width of floats.
__kernel void minus_one(__global float* c) {
  c[__builtin_amdgcn_workitem_id_x()] = -1.0f;
}
