/* cltap OpenCL-over-HSA test double -- contexts.
 *
 * Queues, buffers, programs and events each hold a reference on their
 * context, so the context is freed only after everything made in it. */
#include "icd.h"

#include <stdlib.h>
#include <string.h>

/* Accepts NULL or {CL_CONTEXT_PLATFORM, our platform, 0}. */
static cl_int check_properties(const cl_context_properties* props, size_t* bytes) {
  *bytes = 0;
  if (!props) return CL_SUCCESS;
  size_t i = 0;
  bool platform_seen = false;
  for (; props[i]; i += 2) {
    if (props[i] != CL_CONTEXT_PLATFORM || platform_seen) return CL_INVALID_PROPERTY;
    if ((cl_platform_id)props[i + 1] != &ocl_the_platform) return CL_INVALID_PLATFORM;
    platform_seen = true;
  }
  *bytes = (i + 1) * sizeof *props;
  return CL_SUCCESS;
}

static cl_context context_new(const cl_context_properties* props, cl_int* errcode_ret) {
  size_t bytes;
  cl_int err = check_properties(props, &bytes);
  if (err == CL_SUCCESS) err = ocl_runtime_open();
  if (err != CL_SUCCESS) {
    ocl_set_err(errcode_ret, err);
    return NULL;
  }
  cl_context c = calloc(1, sizeof *c);
  if (!c) {
    ocl_set_err(errcode_ret, CL_OUT_OF_HOST_MEMORY);
    return NULL;
  }
  ocl_header_init(&c->hdr, OCL_MAGIC_CONTEXT);
  if (bytes) {
    c->props[0] = CL_CONTEXT_PLATFORM;
    c->props[1] = (cl_context_properties)&ocl_the_platform;
    c->props_size = bytes;
  }
  ocl_set_err(errcode_ret, CL_SUCCESS);
  return c;
}

cl_context CL_API_CALL ocl_clCreateContext(const cl_context_properties* props, cl_uint num_devices,
                                           const cl_device_id* devices,
                                           void(CL_CALLBACK* notify)(const char*, const void*, size_t, void*),
                                           void* user_data, cl_int* errcode_ret) {
  if (num_devices == 0 || !devices || (!notify && user_data)) {
    ocl_set_err(errcode_ret, CL_INVALID_VALUE);
    return NULL;
  }
  for (cl_uint i = 0; i < num_devices; i++)
    if (!ocl_valid(devices[i], OCL_MAGIC_DEVICE)) {
      ocl_set_err(errcode_ret, CL_INVALID_DEVICE);
      return NULL;
    }
  /* The notify callback would report asynchronous errors; the double has
   * none to report, so it is never called. */
  return context_new(props, errcode_ret);
}

cl_context CL_API_CALL ocl_clCreateContextFromType(const cl_context_properties* props, cl_device_type type,
                                                   void(CL_CALLBACK* notify)(const char*, const void*, size_t, void*),
                                                   void* user_data, cl_int* errcode_ret) {
  if (!notify && user_data) {
    ocl_set_err(errcode_ret, CL_INVALID_VALUE);
    return NULL;
  }
  if (type != CL_DEVICE_TYPE_ALL && !(type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_DEFAULT))) {
    ocl_set_err(errcode_ret, CL_DEVICE_NOT_FOUND);
    return NULL;
  }
  return context_new(props, errcode_ret);
}

void ocl_context_retain(cl_context c) { ocl_retain(&c->hdr); }

void ocl_context_release(cl_context c) {
  if (!ocl_unref(&c->hdr)) return;
  free(c);
}

cl_int CL_API_CALL ocl_clRetainContext(cl_context c) {
  if (!ocl_valid(c, OCL_MAGIC_CONTEXT)) return CL_INVALID_CONTEXT;
  ocl_context_retain(c);
  return CL_SUCCESS;
}

cl_int CL_API_CALL ocl_clReleaseContext(cl_context c) {
  if (!ocl_valid(c, OCL_MAGIC_CONTEXT)) return CL_INVALID_CONTEXT;
  ocl_context_release(c);
  return CL_SUCCESS;
}

cl_int CL_API_CALL ocl_clGetContextInfo(cl_context c, cl_context_info param, size_t size, void* value,
                                        size_t* size_ret) {
  if (!ocl_valid(c, OCL_MAGIC_CONTEXT)) return CL_INVALID_CONTEXT;
  switch (param) {
    case CL_CONTEXT_REFERENCE_COUNT: return ocl_info_uint(size, value, size_ret, ocl_refcount(&c->hdr));
    case CL_CONTEXT_NUM_DEVICES: return ocl_info_uint(size, value, size_ret, 1);
    case CL_CONTEXT_DEVICES: return ocl_info_ptr(size, value, size_ret, &ocl_the_device);
    case CL_CONTEXT_PROPERTIES: return ocl_info(size, value, size_ret, c->props, c->props_size);
    default: return CL_INVALID_VALUE;
  }
}
