// A HIP program that exits right after its last kernel launch: HIP_EXIT_LAUNCHES (default 4)
// launches of one kernel, then main returns without hipDeviceSynchronize, so the launches are
// still in flight while the process ends. Run by tests/tool_exit.rs with a rocprofiler v1 tool
// under cltap. Prints one line and exits with status 7.
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <stdlib.h>

extern "C" __global__ void bump(unsigned* p) { p[threadIdx.x] += 1; }

int main() {
  setvbuf(stdout, NULL, _IONBF, 0);
  const char* n_env = getenv("HIP_EXIT_LAUNCHES");
  const unsigned n = n_env ? (unsigned)atoi(n_env) : 4;
  unsigned* p;
  if (hipMalloc(&p, 64 * sizeof(unsigned)) != hipSuccess) {
    printf("hip_exit: hipMalloc failed\n");
    return 1;
  }
  for (unsigned i = 0; i < n; i++) hipLaunchKernelGGL(bump, dim3(1), dim3(64), 0, 0, p);
  if (hipGetLastError() != hipSuccess) {
    printf("hip_exit: a launch failed\n");
    return 1;
  }
  printf("hip_exit: %u launches\n", n);
  // No synchronisation: the process ends with the launches in flight.
  return 7;
}
