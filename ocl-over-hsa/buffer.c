/* cltap OpenCL-over-HSA test double -- buffers.
 *
 * As ROCclr on a discrete GPU: a buffer is memory from the GPU agent's
 * coarse-grained pool (hsa_amd_memory_pool_allocate); CL_MEM_ALLOC_HOST_PTR
 * takes fine-grained system memory instead; CL_MEM_USE_HOST_PTR locks the
 * application's memory for the GPU (hsa_amd_memory_lock) and kernels use
 * the agent address it returns. On the HSA test double all of these are
 * host memory. */
#include "icd.h"

#include <stdlib.h>

static const cl_mem_flags ACCESS = CL_MEM_READ_WRITE | CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY;
static const cl_mem_flags HOST_ACCESS = CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS;
static const cl_mem_flags PLACEMENT = CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR;

static bool one_at_most(cl_mem_flags f) { return (f & (f - 1)) == 0; }

static cl_int check_flags(cl_mem_flags flags, size_t size, void* host_ptr) {
  if (flags & ~(ACCESS | HOST_ACCESS | PLACEMENT)) return CL_INVALID_VALUE;
  if (!one_at_most(flags & ACCESS) || !one_at_most(flags & HOST_ACCESS)) return CL_INVALID_VALUE;
  if ((flags & CL_MEM_USE_HOST_PTR) && (flags & (CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR)))
    return CL_INVALID_VALUE;
  bool wants_ptr = (flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR)) != 0;
  if (wants_ptr != (host_ptr != NULL)) return CL_INVALID_HOST_PTR;
  if (size == 0 || size > ocl_the_device.props.global_mem) return CL_INVALID_BUFFER_SIZE;
  return CL_SUCCESS;
}

/* Places the buffer: its `address` and whether it is locked host memory. */
static cl_int place(cl_mem m, void* host_ptr) {
  if (m->flags & CL_MEM_USE_HOST_PTR) {
    void* agent_ptr = NULL;
    if (hsa_amd_memory_lock(host_ptr, m->size, &ocl_rt.gpu, 1, &agent_ptr) != HSA_STATUS_SUCCESS)
      return CL_MEM_OBJECT_ALLOCATION_FAILURE;
    m->address = agent_ptr;
    m->locked = true;
    return CL_SUCCESS;
  }
  hsa_amd_memory_pool_t pool = (m->flags & CL_MEM_ALLOC_HOST_PTR) ? ocl_rt.host_pool : ocl_rt.device_pool;
  if (hsa_amd_memory_pool_allocate(pool, m->size, 0, &m->address) != HSA_STATUS_SUCCESS)
    return CL_MEM_OBJECT_ALLOCATION_FAILURE;
  if (pool.handle == ocl_rt.device_pool.handle) {
    /* Both agents may touch it: the CPU for copies, the GPU for kernels. */
    hsa_agent_t agents[2] = {ocl_rt.gpu, ocl_rt.cpu};
    hsa_amd_agents_allow_access(2, agents, NULL, m->address);
  }
  if ((m->flags & CL_MEM_COPY_HOST_PTR) && hsa_memory_copy(m->address, host_ptr, m->size) != HSA_STATUS_SUCCESS) {
    hsa_amd_memory_pool_free(m->address);
    return CL_MEM_OBJECT_ALLOCATION_FAILURE;
  }
  return CL_SUCCESS;
}

cl_mem CL_API_CALL ocl_clCreateBuffer(cl_context context, cl_mem_flags flags, size_t size, void* host_ptr,
                                      cl_int* errcode_ret) {
  if (!ocl_valid(context, OCL_MAGIC_CONTEXT)) {
    ocl_set_err(errcode_ret, CL_INVALID_CONTEXT);
    return NULL;
  }
  if (flags == 0) flags = CL_MEM_READ_WRITE;
  cl_int err = check_flags(flags, size, host_ptr);
  if (err != CL_SUCCESS) {
    ocl_set_err(errcode_ret, err);
    return NULL;
  }
  cl_mem m = calloc(1, sizeof *m);
  if (!m) {
    ocl_set_err(errcode_ret, CL_OUT_OF_HOST_MEMORY);
    return NULL;
  }
  ocl_header_init(&m->hdr, OCL_MAGIC_MEM);
  m->flags = flags;
  m->size = size;
  m->host_ptr = (flags & CL_MEM_USE_HOST_PTR) ? host_ptr : NULL;
  err = place(m, host_ptr);
  if (err != CL_SUCCESS) {
    free(m);
    ocl_set_err(errcode_ret, err);
    return NULL;
  }
  m->context = context;
  ocl_context_retain(context);
  ocl_set_err(errcode_ret, CL_SUCCESS);
  return m;
}

void ocl_mem_retain(cl_mem m) { ocl_retain(&m->hdr); }

void ocl_mem_release(cl_mem m) {
  if (!ocl_unref(&m->hdr)) return;
  if (m->locked)
    hsa_amd_memory_unlock(m->host_ptr);
  else
    hsa_amd_memory_pool_free(m->address);
  cl_context c = m->context;
  free(m);
  ocl_context_release(c);
}

cl_int CL_API_CALL ocl_clRetainMemObject(cl_mem m) {
  if (!ocl_valid(m, OCL_MAGIC_MEM)) return CL_INVALID_MEM_OBJECT;
  ocl_mem_retain(m);
  return CL_SUCCESS;
}

cl_int CL_API_CALL ocl_clReleaseMemObject(cl_mem m) {
  if (!ocl_valid(m, OCL_MAGIC_MEM)) return CL_INVALID_MEM_OBJECT;
  ocl_mem_release(m);
  return CL_SUCCESS;
}

cl_int CL_API_CALL ocl_clGetMemObjectInfo(cl_mem m, cl_mem_info param, size_t size, void* value, size_t* size_ret) {
  if (!ocl_valid(m, OCL_MAGIC_MEM)) return CL_INVALID_MEM_OBJECT;
  switch (param) {
    case CL_MEM_TYPE: return ocl_info_uint(size, value, size_ret, CL_MEM_OBJECT_BUFFER);
    case CL_MEM_FLAGS: return ocl_info_ulong(size, value, size_ret, m->flags);
    case CL_MEM_SIZE: return ocl_info_size(size, value, size_ret, m->size);
    case CL_MEM_HOST_PTR: return ocl_info_ptr(size, value, size_ret, m->host_ptr);
    case CL_MEM_MAP_COUNT: return ocl_info_uint(size, value, size_ret, 0);
    case CL_MEM_REFERENCE_COUNT: return ocl_info_uint(size, value, size_ret, ocl_refcount(&m->hdr));
    case CL_MEM_CONTEXT: return ocl_info_ptr(size, value, size_ret, m->context);
    case CL_MEM_ASSOCIATED_MEMOBJECT: return ocl_info_ptr(size, value, size_ret, NULL);
    case CL_MEM_OFFSET: return ocl_info_size(size, value, size_ret, 0);
    default: return CL_INVALID_VALUE;
  }
}
