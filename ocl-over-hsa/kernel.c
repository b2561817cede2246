/* cltap OpenCL-over-HSA test double -- kernels and their arguments.
 *
 * clCreateKernel finds "NAME.kd" with hsa_executable_get_symbol_by_name and
 * reads its kernel object and segment sizes with
 * hsa_executable_symbol_get_info. clSetKernelArg writes each explicit
 * argument into a kernarg image at the offset the code object's metadata
 * gives: a buffer as its device address, a value as its bytes; a __local
 * argument only records its size (its LDS offset is known at enqueue,
 * ndrange.c). */
#include "icd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cl_int query_symbol(cl_kernel k) {
  hsa_executable_symbol_t sym;
  if (hsa_executable_get_symbol_by_name(k->program->executable, k->meta->symbol, &ocl_rt.gpu, &sym) !=
      HSA_STATUS_SUCCESS)
    return CL_INVALID_KERNEL_DEFINITION;
  bool ok = hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &k->kernel_object) ==
                HSA_STATUS_SUCCESS &&
            hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE,
                                           &k->kernarg_size) == HSA_STATUS_SUCCESS &&
            hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT,
                                           &k->kernarg_align) == HSA_STATUS_SUCCESS &&
            hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE,
                                           &k->group_size) == HSA_STATUS_SUCCESS &&
            hsa_executable_symbol_get_info(sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE,
                                           &k->private_size) == HSA_STATUS_SUCCESS;
  if (!ok) return CL_INVALID_KERNEL_DEFINITION;
  /* Every argument must lie inside the kernarg segment. */
  for (uint32_t i = 0; i < k->meta->arg_count; i++)
    if ((uint64_t)k->meta->args[i].offset + k->meta->args[i].size > k->kernarg_size) return CL_INVALID_KERNEL_DEFINITION;
  if (k->kernarg_align < 16) k->kernarg_align = 16;
  return CL_SUCCESS;
}

static cl_kernel kernel_new(cl_program p, const ocl_kernel_meta* meta, cl_int* err) {
  cl_kernel k = calloc(1, sizeof *k);
  if (!k) {
    *err = CL_OUT_OF_HOST_MEMORY;
    return NULL;
  }
  ocl_header_init(&k->hdr, OCL_MAGIC_KERNEL);
  k->program = p;
  k->meta = meta;
  *err = query_symbol(k);
  if (*err == CL_SUCCESS) {
    k->kernarg = calloc(1, k->kernarg_size ? k->kernarg_size : 1);
    k->values = calloc(meta->explicit_count + 1, sizeof *k->values);
    if (!k->kernarg || !k->values) *err = CL_OUT_OF_HOST_MEMORY;
  }
  if (*err != CL_SUCCESS) {
    free(k->kernarg);
    free(k->values);
    free(k);
    return NULL;
  }
  p->live_kernels++;
  ocl_program_retain(p);
  return k;
}

cl_kernel CL_API_CALL ocl_clCreateKernel(cl_program p, const char* name, cl_int* errcode_ret) {
  if (!ocl_valid(p, OCL_MAGIC_PROGRAM)) {
    ocl_set_err(errcode_ret, CL_INVALID_PROGRAM);
    return NULL;
  }
  if (!name) {
    ocl_set_err(errcode_ret, CL_INVALID_VALUE);
    return NULL;
  }
  pthread_mutex_lock(&p->lock);
  cl_int err = CL_INVALID_KERNEL_NAME;
  cl_kernel k = NULL;
  if (p->status != CL_BUILD_SUCCESS) {
    err = CL_INVALID_PROGRAM_EXECUTABLE;
  } else {
    for (size_t i = 0; i < p->kernel_count; i++)
      if (strcmp(p->kernels[i].name, name) == 0) {
        k = kernel_new(p, &p->kernels[i], &err);
        break;
      }
  }
  pthread_mutex_unlock(&p->lock);
  ocl_set_err(errcode_ret, err);
  return k;
}

cl_int CL_API_CALL ocl_clCreateKernelsInProgram(cl_program p, cl_uint num_kernels, cl_kernel* kernels,
                                                cl_uint* num_kernels_ret) {
  if (!ocl_valid(p, OCL_MAGIC_PROGRAM)) return CL_INVALID_PROGRAM;
  pthread_mutex_lock(&p->lock);
  cl_int err = CL_SUCCESS;
  if (p->status != CL_BUILD_SUCCESS) {
    err = CL_INVALID_PROGRAM_EXECUTABLE;
  } else if (kernels && num_kernels < p->kernel_count) {
    err = CL_INVALID_VALUE;
  } else {
    size_t made = 0;
    for (; kernels && made < p->kernel_count && err == CL_SUCCESS; made++)
      kernels[made] = kernel_new(p, &p->kernels[made], &err);
    if (err != CL_SUCCESS) {
      /* Undo the ones made: nothing is returned on failure. */
      for (size_t i = 0; i + 1 < made; i++) {
        p->live_kernels--;
        free(kernels[i]->kernarg);
        free(kernels[i]->values);
        free(kernels[i]);
        ocl_unref(&p->hdr);
      }
    } else if (num_kernels_ret) {
      *num_kernels_ret = (cl_uint)p->kernel_count;
    }
  }
  pthread_mutex_unlock(&p->lock);
  return err;
}

void ocl_kernel_retain(cl_kernel k) { ocl_retain(&k->hdr); }

void ocl_kernel_release(cl_kernel k) {
  if (!ocl_unref(&k->hdr)) return;
  cl_program p = k->program;
  pthread_mutex_lock(&p->lock);
  p->live_kernels--;
  pthread_mutex_unlock(&p->lock);
  free(k->kernarg);
  free(k->values);
  free(k);
  ocl_program_release(p);
}

cl_int CL_API_CALL ocl_clRetainKernel(cl_kernel k) {
  if (!ocl_valid(k, OCL_MAGIC_KERNEL)) return CL_INVALID_KERNEL;
  ocl_kernel_retain(k);
  return CL_SUCCESS;
}

cl_int CL_API_CALL ocl_clReleaseKernel(cl_kernel k) {
  if (!ocl_valid(k, OCL_MAGIC_KERNEL)) return CL_INVALID_KERNEL;
  ocl_kernel_release(k);
  return CL_SUCCESS;
}

cl_int CL_API_CALL ocl_clSetKernelArg(cl_kernel k, cl_uint index, size_t size, const void* value) {
  if (!ocl_valid(k, OCL_MAGIC_KERNEL)) return CL_INVALID_KERNEL;
  if (index >= k->meta->explicit_count) return CL_INVALID_ARG_INDEX;
  const ocl_arg_meta* a = &k->meta->args[index];
  ocl_arg_value* v = &k->values[index];
  switch (a->kind) {
    case OCL_ARG_GLOBAL_BUFFER: {
      if (size != sizeof(cl_mem)) return CL_INVALID_ARG_SIZE;
      cl_mem m = value ? *(const cl_mem*)value : NULL;
      if (m && !ocl_valid(m, OCL_MAGIC_MEM)) return CL_INVALID_MEM_OBJECT;
      uint64_t address = m ? (uint64_t)(uintptr_t)m->address : 0;
      memcpy(k->kernarg + a->offset, &address, a->size < sizeof address ? a->size : sizeof address);
      v->mem = m;
      break;
    }
    case OCL_ARG_DYNAMIC_LDS:
      if (value) return CL_INVALID_ARG_VALUE;
      if (size == 0) return CL_INVALID_ARG_SIZE;
      v->lds_bytes = size;
      break;
    case OCL_ARG_BY_VALUE:
      if (size != a->size) return CL_INVALID_ARG_SIZE;
      if (!value) return CL_INVALID_ARG_VALUE;
      memcpy(k->kernarg + a->offset, value, size);
      break;
    default: return CL_INVALID_ARG_VALUE; /* images, samplers, pipes, queues */
  }
  v->set = true;
  return CL_SUCCESS;
}

uint32_t ocl_kernel_max_workgroup(cl_kernel k) {
  uint32_t max = ocl_the_device.props.max_workgroup;
  const ocl_kernel_meta* m = k->meta;
  if (m->reqd_workgroup[0]) {
    uint32_t r = m->reqd_workgroup[0] * (m->reqd_workgroup[1] ? m->reqd_workgroup[1] : 1) *
                 (m->reqd_workgroup[2] ? m->reqd_workgroup[2] : 1);
    if (r < max) max = r;
  }
  if (m->max_flat_workgroup && m->max_flat_workgroup < max) max = m->max_flat_workgroup;
  return max;
}

uint64_t ocl_kernel_group_size(cl_kernel k, uint8_t* kernarg) {
  uint64_t end = k->group_size;
  for (uint32_t i = 0; i < k->meta->explicit_count; i++) {
    const ocl_arg_meta* a = &k->meta->args[i];
    if (a->kind != OCL_ARG_DYNAMIC_LDS || !k->values[i].set) continue;
    end = (end + 15) & ~(uint64_t)15;
    if (kernarg) {
      uint32_t offset = (uint32_t)end;
      memcpy(kernarg + a->offset, &offset, a->size < sizeof offset ? a->size : sizeof offset);
    }
    end += k->values[i].lds_bytes;
  }
  return end;
}

cl_int CL_API_CALL ocl_clGetKernelInfo(cl_kernel k, cl_kernel_info param, size_t size, void* value,
                                       size_t* size_ret) {
  if (!ocl_valid(k, OCL_MAGIC_KERNEL)) return CL_INVALID_KERNEL;
  switch (param) {
    case CL_KERNEL_FUNCTION_NAME: return ocl_info_str(size, value, size_ret, k->meta->name);
    case CL_KERNEL_NUM_ARGS: return ocl_info_uint(size, value, size_ret, k->meta->explicit_count);
    case CL_KERNEL_REFERENCE_COUNT: return ocl_info_uint(size, value, size_ret, ocl_refcount(&k->hdr));
    case CL_KERNEL_CONTEXT: return ocl_info_ptr(size, value, size_ret, k->program->context);
    case CL_KERNEL_PROGRAM: return ocl_info_ptr(size, value, size_ret, k->program);
    case CL_KERNEL_ATTRIBUTES: {
      char attrs[96] = "";
      const uint32_t* r = k->meta->reqd_workgroup;
      if (r[0]) snprintf(attrs, sizeof attrs, "reqd_work_group_size(%u,%u,%u)", r[0], r[1], r[2]);
      return ocl_info_str(size, value, size_ret, attrs);
    }
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL ocl_clGetKernelWorkGroupInfo(cl_kernel k, cl_device_id device, cl_kernel_work_group_info param,
                                                size_t size, void* value, size_t* size_ret) {
  if (!ocl_valid(k, OCL_MAGIC_KERNEL)) return CL_INVALID_KERNEL;
  if (device && device != &ocl_the_device) return CL_INVALID_DEVICE;
  switch (param) {
    case CL_KERNEL_WORK_GROUP_SIZE: return ocl_info_size(size, value, size_ret, ocl_kernel_max_workgroup(k));
    case CL_KERNEL_COMPILE_WORK_GROUP_SIZE: {
      size_t dims[3] = {k->meta->reqd_workgroup[0], k->meta->reqd_workgroup[1], k->meta->reqd_workgroup[2]};
      return ocl_info(size, value, size_ret, dims, sizeof dims);
    }
    case CL_KERNEL_LOCAL_MEM_SIZE:
      return ocl_info_ulong(size, value, size_ret, ocl_kernel_group_size(k, NULL));
    case CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE:
      return ocl_info_size(size, value, size_ret, ocl_the_device.props.wavefront);
    case CL_KERNEL_PRIVATE_MEM_SIZE: return ocl_info_ulong(size, value, size_ret, k->private_size);
    default: return CL_INVALID_VALUE;
  }
}

cl_int CL_API_CALL ocl_clGetKernelArgInfo(cl_kernel k, cl_uint index, cl_kernel_arg_info param, size_t size,
                                          void* value, size_t* size_ret) {
  if (!ocl_valid(k, OCL_MAGIC_KERNEL)) return CL_INVALID_KERNEL;
  if (index >= k->meta->explicit_count) return CL_INVALID_ARG_INDEX;
  const ocl_arg_meta* a = &k->meta->args[index];
  switch (param) {
    case CL_KERNEL_ARG_ADDRESS_QUALIFIER: {
      cl_kernel_arg_address_qualifier q = a->kind == OCL_ARG_GLOBAL_BUFFER  ? CL_KERNEL_ARG_ADDRESS_GLOBAL
                                           : a->kind == OCL_ARG_DYNAMIC_LDS ? CL_KERNEL_ARG_ADDRESS_LOCAL
                                                                            : CL_KERNEL_ARG_ADDRESS_PRIVATE;
      return ocl_info_uint(size, value, size_ret, q);
    }
    case CL_KERNEL_ARG_ACCESS_QUALIFIER: return ocl_info_uint(size, value, size_ret, CL_KERNEL_ARG_ACCESS_NONE);
    case CL_KERNEL_ARG_TYPE_QUALIFIER: return ocl_info_ulong(size, value, size_ret, CL_KERNEL_ARG_TYPE_NONE);
    case CL_KERNEL_ARG_TYPE_NAME:
      return a->type_name ? ocl_info_str(size, value, size_ret, a->type_name) : CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
    case CL_KERNEL_ARG_NAME:
      return a->name ? ocl_info_str(size, value, size_ret, a->name) : CL_KERNEL_ARG_INFO_NOT_AVAILABLE;
    default: return CL_INVALID_VALUE;
  }
}
