/* What the OpenCL programs run on AMD's runtime share: failing loudly on an
 * OpenCL error (one line, exit 1) and naming the errors their output
 * prints. */
#ifndef CLTAP_TESTS_CL_CHECK_H
#define CLTAP_TESTS_CL_CHECK_H

#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static const char* err_name(cl_int e) {
  switch (e) {
    case CL_SUCCESS: return "CL_SUCCESS";
    case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_ARG_SIZE: return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_KERNEL_NAME: return "CL_INVALID_KERNEL_NAME";
    case CL_PROFILING_INFO_NOT_AVAILABLE: return "CL_PROFILING_INFO_NOT_AVAILABLE";
    case CL_INVALID_OPERATION: return "CL_INVALID_OPERATION";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_WORK_DIMENSION: return "CL_INVALID_WORK_DIMENSION";
    default: {
      static char buf[32];
      snprintf(buf, sizeof buf, "error %d", e);
      return buf;
    }
  }
}

#define CHECK(cond)                                  \
  do {                                               \
    if (!(cond)) {                                   \
      printf("FAIL line %d: %s\n", __LINE__, #cond); \
      exit(1);                                       \
    }                                                \
  } while (0)
#define OK(call)                                                               \
  do {                                                                         \
    cl_int e_ = (call);                                                        \
    if (e_ != CL_SUCCESS) {                                                    \
      printf("FAIL line %d: %s returned %s\n", __LINE__, #call, err_name(e_)); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#endif
