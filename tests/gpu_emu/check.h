/* The checks of the gpu-emu test clients: define CLIENT ("emu_client", ...) before including.
 * CHECK counts a failure and goes on; CHECK_OK ends the program on an HSA error. */
#ifndef GPU_EMU_CHECK_H
#define GPU_EMU_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <hsa/hsa.h>

static int failures;
#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      printf(CLIENT ": FAIL line %d: %s: ", __LINE__, #cond);     \
      printf(__VA_ARGS__);                                        \
      printf("\n");                                               \
      failures++;                                                 \
    }                                                             \
  } while (0)
#define CHECK_OK(call)                                                                     \
  do {                                                                                     \
    hsa_status_t st_ = (call);                                                             \
    if (st_ != HSA_STATUS_SUCCESS) {                                                       \
      const char* s_ = "?";                                                                \
      hsa_status_string(st_, &s_);                                                         \
      printf(CLIENT ": FAIL line %d: %s returned %#x (%s)\n", __LINE__, #call, st_, s_);  \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)
#endif
