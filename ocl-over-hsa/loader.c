/* cltap OpenCL-over-HSA test double -- what ICD loaders look up by name
 * (clIcdGetPlatformIDsKHR, clGetExtensionFunctionAddress, clGetPlatformInfo)
 * and the extension functions, among them a test hook. */
#include "icd.h"

#include <string.h>

/* ---- the extension hook ---- */

/* cl_int clGetDispatchCountsHSADBL(cl_platform_id, cl_ulong* submitted): the AQL kernel
 * dispatches this ICD submitted. For tests, reached with
 * clGetExtensionFunctionAddressForPlatform; what the GPU ran is the tests' to witness (on the
 * emulated gfx906, gpu-emu's own log). */
static cl_int CL_API_CALL get_dispatch_counts(cl_platform_id platform, cl_ulong* submitted) {
  if (!ocl_valid(platform, OCL_MAGIC_PLATFORM)) return CL_INVALID_PLATFORM;
  if (submitted) *submitted = ocl_runtime_dispatches();
  return CL_SUCCESS;
}

static void* extension_function(const char* name) {
  if (!name) return NULL;
  if (strcmp(name, "clIcdGetPlatformIDsKHR") == 0) return (void*)ocl_clGetPlatformIDs;
  if (strcmp(name, "clGetPlatformInfo") == 0) return (void*)ocl_clGetPlatformInfo;
  if (strcmp(name, "clGetDispatchCountsHSADBL") == 0) return (void*)get_dispatch_counts;
  return NULL;
}

void* CL_API_CALL ocl_clGetExtensionFunctionAddressForPlatform(cl_platform_id platform, const char* name) {
  if (!ocl_valid(platform, OCL_MAGIC_PLATFORM)) return NULL;
  return extension_function(name);
}

void* CL_API_CALL ocl_clGetExtensionFunctionAddress(const char* name) { return extension_function(name); }

/* ---- what the loaders look up by name ----
 * Thin exported wrappers: the table points at the hidden ocl_* functions,
 * so a loader's own clGetPlatformInfo in the same process can never be
 * bound in their place. */

OCL_EXPORT cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries, cl_platform_id* platforms,
                                                     cl_uint* num_platforms) {
  return ocl_clGetPlatformIDs(num_entries, platforms, num_platforms);
}

OCL_EXPORT void* CL_API_CALL clGetExtensionFunctionAddress(const char* name) { return extension_function(name); }

OCL_EXPORT cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id platform, cl_platform_info param, size_t size,
                                                void* value, size_t* size_ret) {
  return ocl_clGetPlatformInfo(platform, param, size, value, size_ret);
}
