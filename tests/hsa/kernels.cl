// Kernels for cltap's HSA tests, built for gfx906 with Debian's clang-15 (tests/common/hsa.rs):
//   clang-15 -target amdgcn-amd-amdhsa -mcpu=gfx906 -nogpulib -cl-std=CL2.0 -O2
// The emulated GPU (gpu-emu) runs their machine code.

// A program-scope variable: an executable symbol of kind VARIABLE.
__attribute__((visibility("default"))) global int dbl_counter = 7;

// buf[i] += 1 for each work-item i of a work-group.
__kernel void add_one(__global int* buf) {
  buf[__builtin_amdgcn_workitem_id_x()] += 1;
}

// x[i] *= a + dbl_counter.
__kernel void scale(__global float* x, float a) {
  x[__builtin_amdgcn_workitem_id_x()] *= a + dbl_counter;
}
