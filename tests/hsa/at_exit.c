/* HSA calls from an exit handler, after the C library has run the main
 * thread's thread-local destructors: N signals created and destroyed, then
 * hsa_shut_down (during which ROCr unloads its tools). Every call is one
 * the API log must show. */
#include <hsa/hsa.h>
#include <stdio.h>
#include <stdlib.h>

static int n;

static void bye(void) {
  hsa_signal_t s;
  for (int i = 0; i < n; i++) {
    if (hsa_signal_create(i + 1, 0, NULL, &s) != HSA_STATUS_SUCCESS) exit(4);
    hsa_signal_destroy(s);
  }
  hsa_shut_down();
}

int main(int argc, char **argv) {
  n = argc > 1 ? atoi(argv[1]) : 5;
  if (hsa_init() != HSA_STATUS_SUCCESS) return 1;
  atexit(bye);
  printf("at_exit: %d signals at exit\n", n);
  return 0;
}
