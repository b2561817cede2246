/* cltap OpenCL-over-HSA test double -- clEnqueueNDRangeKernel on the
 * application's side: checks (OpenCL 1.2: uniform work-groups), the local
 * size when the application gives none, and the command's own copy of the
 * kernel arguments with the __local offsets and the hidden arguments
 * (global offsets; the v5 block counts, group sizes, remainders and grid
 * dimensions) filled in. The AQL packet itself is written by the queue's
 * worker (aql.c). */
#include "command.h"

#include <stdlib.h>
#include <string.h>

/* The local size AMD's runtime would not need to be told: per dimension,
 * the largest divisor of the global size that keeps the work-group within
 * 256 work-items (and the kernel's limit). */
static void choose_local(uint32_t dims, const size_t* global, uint32_t max_wg, size_t* local) {
  size_t budget = max_wg < 256 ? max_wg : 256;
  for (uint32_t d = 0; d < dims; d++) {
    size_t l = global[d] < budget ? global[d] : budget;
    while (l > 1 && global[d] % l != 0) l--;
    local[d] = l;
    budget /= l;
  }
}

static cl_int check_local(cl_kernel k, uint32_t dims, const size_t* global, const size_t* local) {
  const uint32_t* reqd = k->meta->reqd_workgroup;
  size_t total = 1;
  for (uint32_t d = 0; d < dims; d++) {
    if (local[d] == 0 || local[d] > ocl_the_device.props.max_workgroup) return CL_INVALID_WORK_ITEM_SIZE;
    if (global[d] % local[d] != 0) return CL_INVALID_WORK_GROUP_SIZE;
    if (reqd[0] && local[d] != (reqd[d] ? reqd[d] : 1)) return CL_INVALID_WORK_GROUP_SIZE;
    total *= local[d];
  }
  return total > ocl_kernel_max_workgroup(k) ? CL_INVALID_WORK_GROUP_SIZE : CL_SUCCESS;
}

static void put(uint8_t* kernarg, const ocl_arg_meta* a, uint64_t v) {
  memcpy(kernarg + a->offset, &v, a->size < sizeof v ? a->size : sizeof v);
}

/* Hidden arguments, as the dispatch will see them. */
static void fill_hidden(const ocl_kernel_meta* m, uint8_t* kernarg, uint32_t dims, const size_t* offset,
                        const size_t* global, const size_t* local) {
  for (uint32_t i = m->explicit_count; i < m->arg_count; i++) {
    const ocl_arg_meta* a = &m->args[i];
    int d;
    switch (a->kind) {
      case OCL_ARG_HIDDEN_GLOBAL_OFFSET_X:
      case OCL_ARG_HIDDEN_GLOBAL_OFFSET_Y:
      case OCL_ARG_HIDDEN_GLOBAL_OFFSET_Z:
        d = a->kind - OCL_ARG_HIDDEN_GLOBAL_OFFSET_X;
        put(kernarg, a, offset && (uint32_t)d < dims ? offset[d] : 0);
        break;
      case OCL_ARG_HIDDEN_BLOCK_COUNT_X:
      case OCL_ARG_HIDDEN_BLOCK_COUNT_Y:
      case OCL_ARG_HIDDEN_BLOCK_COUNT_Z:
        d = a->kind - OCL_ARG_HIDDEN_BLOCK_COUNT_X;
        put(kernarg, a, (uint32_t)d < dims ? global[d] / local[d] : 1);
        break;
      case OCL_ARG_HIDDEN_GROUP_SIZE_X:
      case OCL_ARG_HIDDEN_GROUP_SIZE_Y:
      case OCL_ARG_HIDDEN_GROUP_SIZE_Z:
        d = a->kind - OCL_ARG_HIDDEN_GROUP_SIZE_X;
        put(kernarg, a, (uint32_t)d < dims ? local[d] : 1);
        break;
      case OCL_ARG_HIDDEN_REMAINDER_X:
      case OCL_ARG_HIDDEN_REMAINDER_Y:
      case OCL_ARG_HIDDEN_REMAINDER_Z: put(kernarg, a, 0); break; /* uniform work-groups */
      case OCL_ARG_HIDDEN_GRID_DIMS: put(kernarg, a, dims); break;
      default: put(kernarg, a, 0); /* no printf buffer, hostcall, default queue... */
    }
  }
}

static cl_int check(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t* offset, const size_t* global) {
  if (!ocl_valid(q, OCL_MAGIC_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  if (!ocl_valid(k, OCL_MAGIC_KERNEL)) return CL_INVALID_KERNEL;
  if (k->program->context != q->context) return CL_INVALID_CONTEXT;
  if (dims < 1 || dims > 3) return CL_INVALID_WORK_DIMENSION;
  if (!global) return CL_INVALID_GLOBAL_WORK_SIZE;
  for (cl_uint d = 0; d < dims; d++) {
    /* The AQL packet's grid sizes are 32-bit. */
    if (global[d] == 0 || global[d] > UINT32_MAX) return CL_INVALID_GLOBAL_WORK_SIZE;
    if (offset && offset[d] > SIZE_MAX - global[d]) return CL_INVALID_GLOBAL_OFFSET;
  }
  for (uint32_t i = 0; i < k->meta->explicit_count; i++) {
    const ocl_arg_value* v = &k->values[i];
    if (!v->set) return CL_INVALID_KERNEL_ARGS;
    if (v->mem && !ocl_valid(v->mem, OCL_MAGIC_MEM)) return CL_INVALID_KERNEL_ARGS;
  }
  return CL_SUCCESS;
}

cl_int CL_API_CALL ocl_clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t* offset,
                                              const size_t* global, const size_t* local, cl_uint num_wait,
                                              const cl_event* wait, cl_event* event) {
  cl_int err = check(q, k, dims, offset, global);
  if (err != CL_SUCCESS) return err;
  size_t chosen[3] = {1, 1, 1};
  if (local) {
    if ((err = check_local(k, dims, global, local)) != CL_SUCCESS) return err;
    memcpy(chosen, local, dims * sizeof *local);
  } else if (k->meta->reqd_workgroup[0]) {
    for (cl_uint d = 0; d < dims; d++) chosen[d] = k->meta->reqd_workgroup[d] ? k->meta->reqd_workgroup[d] : 1;
    if ((err = check_local(k, dims, global, chosen)) != CL_SUCCESS) return err;
  } else {
    choose_local(dims, global, ocl_kernel_max_workgroup(k), chosen);
  }
  if (ocl_kernel_group_size(k, NULL) > ocl_the_device.props.local_mem) return CL_OUT_OF_RESOURCES;

  cl_uint mems = 0;
  for (uint32_t i = 0; i < k->meta->explicit_count; i++) mems += k->values[i].mem != NULL;
  ocl_command* c = ocl_command_new(OCL_CMD_NDRANGE, mems);
  uint8_t* kernarg = c ? malloc(k->kernarg_size ? k->kernarg_size : 1) : NULL;
  if (!kernarg) {
    free(c ? c->mems : NULL);
    free(c);
    return CL_OUT_OF_HOST_MEMORY;
  }
  memcpy(kernarg, k->kernarg, k->kernarg_size);
  ocl_ndrange* nd = &c->nd;
  nd->kernarg = kernarg;
  nd->kernarg_size = k->kernarg_size;
  nd->group_size = (uint32_t)ocl_kernel_group_size(k, kernarg);
  fill_hidden(k->meta, kernarg, dims, offset, global, chosen);
  nd->dims = dims;
  for (cl_uint d = 0; d < 3; d++) {
    nd->grid[d] = d < dims ? (uint32_t)global[d] : 1;
    nd->workgroup[d] = (uint16_t)(d < dims ? chosen[d] : 1);
  }
  nd->private_size = k->private_size;
  nd->kernel_object = k->kernel_object;
  ocl_kernel_retain(k);
  c->kernel = k;
  for (uint32_t i = 0; i < k->meta->explicit_count; i++)
    if (k->values[i].mem) ocl_command_add_mem(c, k->values[i].mem);
  return ocl_command_submit(q, c, CL_COMMAND_NDRANGE_KERNEL, num_wait, wait, event, false);
}

cl_int CL_API_CALL ocl_clEnqueueTask(cl_command_queue q, cl_kernel k, cl_uint num_wait, const cl_event* wait,
                                     cl_event* event) {
  const size_t one = 1;
  return ocl_clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, num_wait, wait, event);
}
