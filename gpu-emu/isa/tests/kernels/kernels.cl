// Whole kernels for the shader core's tests (gpu-emu/isa/tests/kernels.rs), compiled by clang-15
// for gfx906 and run on the emulated shader core; the test computes every expected value on the
// host.

kernel void vecadd(global const float* a, global const float* b, global float* c, uint n) {
  size_t i = get_global_id(0);
  if (i < n) c[i] = a[i] + b[i];
}

// One sum per work-group: a tree in LDS, with a barrier between levels (several waves per group).
kernel void reduce(global const int* in, global int* out, local int* tmp) {
  size_t l = get_local_id(0), g = get_global_id(0);
  tmp[l] = in[g];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
    if (l < s) tmp[l] += tmp[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = tmp[0];
}

// An inclusive prefix sum within each work-group (Hillis-Steele, static LDS).
kernel void scan(global const uint* in, global uint* out) {
  local uint a[256], b[256];
  size_t l = get_local_id(0), n = get_local_size(0);
  a[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  local uint* src = a;
  local uint* dst = b;
  for (size_t d = 1; d < n; d <<= 1) {
    dst[l] = l >= d ? src[l] + src[l - d] : src[l];
    barrier(CLK_LOCAL_MEM_FENCE);
    local uint* t = src; src = dst; dst = t;
  }
  out[get_global_id(0)] = src[l];
}

// Every work-item hits the same words: a counter, a maximum, a float sum through compare-and-swap,
// and a per-group counter in LDS.
kernel void contention(global uint* counter, global int* maximum, global float* sum, global uint* groups) {
  local uint here;
  if (get_local_id(0) == 0) here = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  atomic_inc(counter);
  atomic_max(maximum, (int)(get_global_id(0) * 7919 % 1000) - 500);
  float add = 0.5f;
  global volatile uint* p = (global volatile uint*)sum;
  uint old = *p, seen;
  do {
    seen = old;
    old = atomic_cmpxchg(p, seen, as_uint(as_float(seen) + add));
  } while (old != seen);
  atomic_add(&here, 2);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (get_local_id(0) == 0) groups[get_group_id(0)] = here;
}

// Double precision: division, square root, fma and conversions.
kernel void f64math(global const double* x, global const double* y, global double* out, global long* ints) {
  size_t i = get_global_id(0);
  double a = x[i], b = y[i];
  out[4 * i] = a / b;
  out[4 * i + 1] = sqrt(a);
  out[4 * i + 2] = fma(a, b, -1.0);
  out[4 * i + 3] = (double)(float)a;
  ints[i] = (long)(a * 1000.0);
}

// A call that is not inlined (s_swappc_b64 and back), with a stack.
__attribute__((noinline)) int collatz(int x) {
  int steps = 0;
  while (x != 1 && steps < 1000) {
    x = (x & 1) ? 3 * x + 1 : x / 2;
    steps++;
  }
  return steps;
}

kernel void calls(global int* out) {
  out[get_global_id(0)] = collatz((int)get_global_id(0) + 1);
}

// Private memory indexed at run time: it stays in scratch.
kernel void private_array(global const int* in, global int* out) {
  int a[32];
  size_t i = get_global_id(0);
  for (int j = 0; j < 32; j++) a[j] = in[i] * j + (int)i;
  out[i] = a[in[i] & 31] + a[(in[i] >> 5) & 31];
}

// A 2D grid: each item writes its coordinates and its group's.
kernel void grid2d(global uint* out, uint width) {
  size_t x = get_global_id(0), y = get_global_id(1);
  out[y * width + x] = (uint)(x * 1000 + y) ^ ((uint)get_group_id(1) << 24) ^ ((uint)get_local_id(0) << 20);
}

// Single precision: division, square root and transcendentals through the device library.
kernel void f32math(global const float* x, global float* out) {
  size_t i = get_global_id(0);
  float a = x[i];
  out[6 * i] = 1.0f / a;
  out[6 * i + 1] = sqrt(a);
  out[6 * i + 2] = sin(a);
  out[6 * i + 3] = exp(a * 0.01f);
  out[6 * i + 4] = log(a);
  out[6 * i + 5] = (float)(int)(a * 3.7f);
}
