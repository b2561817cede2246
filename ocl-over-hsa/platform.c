/* cltap OpenCL-over-HSA test double -- the platform and its one GPU device.
 *
 * The device answers with the GPU agent's properties (name = the agent name,
 * gfx906 on the HSA test double) and fixed, believable values for the rest.
 * It claims OpenCL 1.2: no SVM, pipes, device-side queues or images. */
#include "icd.h"

#include <string.h>

struct _cl_platform_id ocl_the_platform = {{&ocl_dispatch, OCL_MAGIC_PLATFORM, 1}};
struct _cl_device_id ocl_the_device = {{&ocl_dispatch, OCL_MAGIC_DEVICE, 1}, {{0}}};

#define PLATFORM_VERSION "OpenCL 1.2 cltap-ocl-over-hsa"
#define DEVICE_VERSION "OpenCL 1.2 "
#define DRIVER_VERSION "1.0 (cltap OpenCL-over-HSA test double, HSA)"
#define DEVICE_EXTENSIONS                                                                                   \
  "cl_khr_byte_addressable_store cl_khr_fp64 cl_khr_global_int32_base_atomics "                              \
  "cl_khr_global_int32_extended_atomics cl_khr_local_int32_base_atomics cl_khr_local_int32_extended_atomics " \
  "cl_khr_int64_base_atomics cl_khr_int64_extended_atomics"
#define MAX_ALLOC (4ull << 30)

cl_int CL_API_CALL ocl_clGetPlatformIDs(cl_uint num_entries, cl_platform_id* platforms, cl_uint* num_platforms) {
  if ((num_entries == 0 && platforms) || (!platforms && !num_platforms)) return CL_INVALID_VALUE;
  /* A runtime that finds no GPU offers no platform (ocl-icd then skips it). */
  cl_uint n = ocl_runtime_open() == CL_SUCCESS ? 1 : 0;
  if (num_platforms) *num_platforms = n;
  if (platforms && n) platforms[0] = &ocl_the_platform;
  return n ? CL_SUCCESS : CL_PLATFORM_NOT_FOUND_KHR;
}

cl_int CL_API_CALL ocl_clGetPlatformInfo(cl_platform_id platform, cl_platform_info param, size_t size, void* value,
                                         size_t* size_ret) {
  /* NULL selects the implementation's platform (behaviour the spec leaves
   * to it); ocl-icd never passes NULL down. */
  if (platform && !ocl_valid(platform, OCL_MAGIC_PLATFORM)) return CL_INVALID_PLATFORM;
  switch (param) {
    case CL_PLATFORM_PROFILE: return ocl_info_str(size, value, size_ret, "FULL_PROFILE");
    case CL_PLATFORM_VERSION: return ocl_info_str(size, value, size_ret, PLATFORM_VERSION);
    case CL_PLATFORM_NAME: return ocl_info_str(size, value, size_ret, OCL_PLATFORM_NAME);
    case CL_PLATFORM_VENDOR: return ocl_info_str(size, value, size_ret, OCL_VENDOR);
    case CL_PLATFORM_EXTENSIONS: return ocl_info_str(size, value, size_ret, "cl_khr_icd");
    case CL_PLATFORM_ICD_SUFFIX_KHR: return ocl_info_str(size, value, size_ret, OCL_ICD_SUFFIX);
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL ocl_clGetDeviceIDs(cl_platform_id platform, cl_device_type type, cl_uint num_entries,
                                      cl_device_id* devices, cl_uint* num_devices) {
  if (platform && !ocl_valid(platform, OCL_MAGIC_PLATFORM)) return CL_INVALID_PLATFORM;
  if ((num_entries == 0 && devices) || (!devices && !num_devices)) return CL_INVALID_VALUE;
  const cl_device_type known = CL_DEVICE_TYPE_DEFAULT | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU |
                               CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;
  if (type != CL_DEVICE_TYPE_ALL && (type & ~known)) return CL_INVALID_DEVICE_TYPE;
  cl_int err = ocl_runtime_open();
  if (err != CL_SUCCESS) return err;
  bool match = type == CL_DEVICE_TYPE_ALL || (type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT));
  if (num_devices) *num_devices = match ? 1 : 0;
  if (!match) return CL_DEVICE_NOT_FOUND;
  if (devices) devices[0] = &ocl_the_device;
  return CL_SUCCESS;
}

static cl_int device_info_rest(cl_device_info param, size_t size, void* value, size_t* size_ret);

cl_int CL_API_CALL ocl_clGetDeviceInfo(cl_device_id device, cl_device_info param, size_t size, void* value,
                                       size_t* size_ret) {
  if (!ocl_valid(device, OCL_MAGIC_DEVICE)) return CL_INVALID_DEVICE;
  const ocl_device_props* p = &device->props;
  switch (param) {
    case CL_DEVICE_TYPE: return ocl_info_ulong(size, value, size_ret, CL_DEVICE_TYPE_GPU);
    case CL_DEVICE_VENDOR_ID: return ocl_info_uint(size, value, size_ret, 0x1002);
    case CL_DEVICE_MAX_COMPUTE_UNITS: return ocl_info_uint(size, value, size_ret, p->compute_units);
    case CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS: return ocl_info_uint(size, value, size_ret, 3);
    case CL_DEVICE_MAX_WORK_ITEM_SIZES: {
      size_t dims[3] = {p->max_workgroup, p->max_workgroup, p->max_workgroup};
      return ocl_info(size, value, size_ret, dims, sizeof dims);
    }
    case CL_DEVICE_MAX_WORK_GROUP_SIZE: return ocl_info_size(size, value, size_ret, p->max_workgroup);
    case CL_DEVICE_MAX_CLOCK_FREQUENCY: return ocl_info_uint(size, value, size_ret, p->max_clock_mhz);
    case CL_DEVICE_GLOBAL_MEM_SIZE: return ocl_info_ulong(size, value, size_ret, p->global_mem);
    case CL_DEVICE_MAX_MEM_ALLOC_SIZE:
      return ocl_info_ulong(size, value, size_ret, p->global_mem < MAX_ALLOC ? p->global_mem : MAX_ALLOC);
    case CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE:
      return ocl_info_ulong(size, value, size_ret, p->global_mem < MAX_ALLOC ? p->global_mem : MAX_ALLOC);
    case CL_DEVICE_LOCAL_MEM_SIZE: return ocl_info_ulong(size, value, size_ret, p->local_mem);
    case CL_DEVICE_LOCAL_MEM_TYPE: return ocl_info_uint(size, value, size_ret, CL_LOCAL);
    case CL_DEVICE_GLOBAL_MEM_CACHE_TYPE: return ocl_info_uint(size, value, size_ret, CL_READ_WRITE_CACHE);
    case CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE: return ocl_info_uint(size, value, size_ret, p->cacheline ? p->cacheline : 64);
    case CL_DEVICE_GLOBAL_MEM_CACHE_SIZE: return ocl_info_ulong(size, value, size_ret, p->l2_cache);
    case CL_DEVICE_NAME: return ocl_info_str(size, value, size_ret, p->name);
    case CL_DEVICE_VENDOR: return ocl_info_str(size, value, size_ret, OCL_VENDOR);
    case CL_DRIVER_VERSION: return ocl_info_str(size, value, size_ret, DRIVER_VERSION);
    case CL_DEVICE_PROFILE: return ocl_info_str(size, value, size_ret, "FULL_PROFILE");
    case CL_DEVICE_VERSION: return ocl_info_str(size, value, size_ret, DEVICE_VERSION);
    case CL_DEVICE_OPENCL_C_VERSION: return ocl_info_str(size, value, size_ret, "OpenCL C 1.2 ");
    case CL_DEVICE_EXTENSIONS: return ocl_info_str(size, value, size_ret, DEVICE_EXTENSIONS);
    case CL_DEVICE_BUILT_IN_KERNELS: return ocl_info_str(size, value, size_ret, "");
    case CL_DEVICE_PLATFORM: return ocl_info_ptr(size, value, size_ret, &ocl_the_platform);
    case CL_DEVICE_PARENT_DEVICE: return ocl_info_ptr(size, value, size_ret, NULL);
    case CL_DEVICE_REFERENCE_COUNT: return ocl_info_uint(size, value, size_ret, 1);
    case CL_DEVICE_QUEUE_PROPERTIES: /* == CL_DEVICE_QUEUE_ON_HOST_PROPERTIES */
      return ocl_info_ulong(size, value, size_ret, CL_QUEUE_PROFILING_ENABLE);
    case CL_DEVICE_PROFILING_TIMER_RESOLUTION: return ocl_info_size(size, value, size_ret, 1);
    default: return device_info_rest(param, size, value, size_ret);
  }
}

/* The queries whose answers do not depend on the agent. */
static cl_int device_info_rest(cl_device_info param, size_t size, void* value, size_t* size_ret) {
  switch (param) {
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR: return ocl_info_uint(size, value, size_ret, 4);
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT: return ocl_info_uint(size, value, size_ret, 2);
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT:
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_INT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE: return ocl_info_uint(size, value, size_ret, 1);
    case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
    case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF: return ocl_info_uint(size, value, size_ret, 0);
    case CL_DEVICE_ADDRESS_BITS: return ocl_info_uint(size, value, size_ret, 64);
    case CL_DEVICE_IMAGE_SUPPORT: return ocl_info_bool(size, value, size_ret, false);
    case CL_DEVICE_MAX_READ_IMAGE_ARGS:
    case CL_DEVICE_MAX_WRITE_IMAGE_ARGS:
    case CL_DEVICE_MAX_SAMPLERS: return ocl_info_uint(size, value, size_ret, 0);
    case CL_DEVICE_IMAGE2D_MAX_WIDTH:
    case CL_DEVICE_IMAGE2D_MAX_HEIGHT:
    case CL_DEVICE_IMAGE3D_MAX_WIDTH:
    case CL_DEVICE_IMAGE3D_MAX_HEIGHT:
    case CL_DEVICE_IMAGE3D_MAX_DEPTH:
    case CL_DEVICE_IMAGE_MAX_BUFFER_SIZE:
    case CL_DEVICE_IMAGE_MAX_ARRAY_SIZE: return ocl_info_size(size, value, size_ret, 0);
    case CL_DEVICE_MAX_PARAMETER_SIZE: return ocl_info_size(size, value, size_ret, 1024);
    case CL_DEVICE_MEM_BASE_ADDR_ALIGN: return ocl_info_uint(size, value, size_ret, 2048); /* bits */
    case CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE: return ocl_info_uint(size, value, size_ret, 128);
    case CL_DEVICE_SINGLE_FP_CONFIG:
      return ocl_info_ulong(size, value, size_ret,
                            CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO |
                                CL_FP_ROUND_TO_INF | CL_FP_FMA | CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT);
    case CL_DEVICE_DOUBLE_FP_CONFIG:
      return ocl_info_ulong(size, value, size_ret,
                            CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO |
                                CL_FP_ROUND_TO_INF | CL_FP_FMA);
    case CL_DEVICE_MAX_CONSTANT_ARGS: return ocl_info_uint(size, value, size_ret, 8);
    case CL_DEVICE_ERROR_CORRECTION_SUPPORT:
    case CL_DEVICE_HOST_UNIFIED_MEMORY:
    case CL_DEVICE_LINKER_AVAILABLE: return ocl_info_bool(size, value, size_ret, false);
    case CL_DEVICE_ENDIAN_LITTLE:
    case CL_DEVICE_AVAILABLE:
    case CL_DEVICE_COMPILER_AVAILABLE:
    case CL_DEVICE_PREFERRED_INTEROP_USER_SYNC: return ocl_info_bool(size, value, size_ret, true);
    case CL_DEVICE_EXECUTION_CAPABILITIES: return ocl_info_ulong(size, value, size_ret, CL_EXEC_KERNEL);
    case CL_DEVICE_PRINTF_BUFFER_SIZE: return ocl_info_size(size, value, size_ret, 0);
    case CL_DEVICE_PARTITION_MAX_SUB_DEVICES: return ocl_info_uint(size, value, size_ret, 0);
    case CL_DEVICE_PARTITION_AFFINITY_DOMAIN: return ocl_info_ulong(size, value, size_ret, 0);
    case CL_DEVICE_PARTITION_PROPERTIES: {
      cl_device_partition_property none = 0;
      return ocl_info(size, value, size_ret, &none, sizeof none);
    }
    case CL_DEVICE_PARTITION_TYPE: return ocl_info(size, value, size_ret, NULL, 0);
    default: return CL_INVALID_VALUE;
  }
}

/* Devices are not refcounted: a root device is retained and released
 * without effect, as the spec says. */
cl_int CL_API_CALL ocl_clRetainDevice(cl_device_id device) {
  return ocl_valid(device, OCL_MAGIC_DEVICE) ? CL_SUCCESS : CL_INVALID_DEVICE;
}

cl_int CL_API_CALL ocl_clReleaseDevice(cl_device_id device) {
  return ocl_valid(device, OCL_MAGIC_DEVICE) ? CL_SUCCESS : CL_INVALID_DEVICE;
}

cl_int CL_API_CALL ocl_clUnloadCompiler(void) { return CL_SUCCESS; }
cl_int CL_API_CALL ocl_clUnloadPlatformCompiler(cl_platform_id platform) {
  return ocl_valid(platform, OCL_MAGIC_PLATFORM) ? CL_SUCCESS : CL_INVALID_PLATFORM;
}
