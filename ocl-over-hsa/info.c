/* cltap OpenCL-over-HSA test double -- the clGet*Info answer contract, and
 * the object header shared by every handle. */
#include "icd.h"

#include <string.h>

cl_int ocl_info(size_t size, void* value, size_t* size_ret, const void* src, size_t src_size) {
  if (value) {
    if (size < src_size) return CL_INVALID_VALUE;
    if (src_size) memcpy(value, src, src_size);
  }
  if (size_ret) *size_ret = src_size;
  return CL_SUCCESS;
}

cl_int ocl_info_str(size_t size, void* value, size_t* size_ret, const char* s) {
  return ocl_info(size, value, size_ret, s, strlen(s) + 1);
}

cl_int ocl_info_uint(size_t size, void* value, size_t* size_ret, cl_uint v) {
  return ocl_info(size, value, size_ret, &v, sizeof v);
}

cl_int ocl_info_ulong(size_t size, void* value, size_t* size_ret, cl_ulong v) {
  return ocl_info(size, value, size_ret, &v, sizeof v);
}

cl_int ocl_info_size(size_t size, void* value, size_t* size_ret, size_t v) {
  return ocl_info(size, value, size_ret, &v, sizeof v);
}

cl_int ocl_info_ptr(size_t size, void* value, size_t* size_ret, const void* v) {
  return ocl_info(size, value, size_ret, &v, sizeof v);
}

cl_int ocl_info_bool(size_t size, void* value, size_t* size_ret, bool v) {
  cl_bool b = v ? CL_TRUE : CL_FALSE;
  return ocl_info(size, value, size_ret, &b, sizeof b);
}

/* ---- object headers ---- */

void ocl_header_init(ocl_header* h, uint32_t magic) {
  h->dispatch = &ocl_dispatch;
  h->magic = magic;
  h->refs = 1;
}

bool ocl_valid(const void* obj, uint32_t magic) {
  const ocl_header* h = obj;
  return h && h->magic == magic && __atomic_load_n(&h->refs, __ATOMIC_ACQUIRE) > 0;
}

void ocl_retain(ocl_header* h) { __atomic_add_fetch(&h->refs, 1, __ATOMIC_RELAXED); }

bool ocl_unref(ocl_header* h) {
  if (__atomic_sub_fetch(&h->refs, 1, __ATOMIC_ACQ_REL) != 0) return false;
  h->magic = 0; /* a later call with this handle fails validation */
  return true;
}

cl_uint ocl_refcount(const ocl_header* h) { return (cl_uint)__atomic_load_n(&h->refs, __ATOMIC_RELAXED); }
