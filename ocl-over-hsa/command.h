/* cltap OpenCL-over-HSA test double -- commands: what an enqueue call
 * hands to its queue's worker thread. */
#ifndef CLTAP_OCL_COMMAND_H
#define CLTAP_OCL_COMMAND_H

#include "icd.h"

typedef enum { OCL_CMD_NDRANGE, OCL_CMD_COPY, OCL_CMD_MARKER } ocl_command_kind;

/* An NDRange as the AQL packet will carry it, with its own copy of the
 * kernel arguments (later clSetKernelArg calls do not change it). */
typedef struct ocl_ndrange {
  uint32_t dims;
  uint32_t grid[3];
  uint16_t workgroup[3];
  uint32_t group_size;
  uint32_t private_size;
  uint64_t kernel_object;
  uint8_t* kernarg;
  uint32_t kernarg_size;
} ocl_ndrange;

/* A copy, run with hsa_amd_memory_async_copy. An application pointer is
 * locked for the copy (hsa_amd_memory_lock), as ROCr wants for system
 * memory it did not allocate. */
typedef struct ocl_copy {
  void* dst;
  const void* src;
  size_t size;
  bool dst_on_gpu, src_on_gpu; /* which agent owns the memory */
  void* host;                  /* the application pointer to lock, or NULL */
} ocl_copy;

struct ocl_command {
  ocl_command* next;
  ocl_command_kind kind;
  cl_event event; /* the command's own reference */
  cl_uint wait_count;
  cl_event* wait; /* retained */
  cl_uint mem_count;
  cl_mem* mems;     /* retained: the buffers the command uses */
  cl_kernel kernel; /* retained (NDRange) */
  union {
    ocl_ndrange nd;
    ocl_copy copy;
  };
};

ocl_command* ocl_command_new(ocl_command_kind kind, cl_uint mem_count) OCL_HIDDEN;
/* Holds `m` for the command's lifetime. */
void ocl_command_add_mem(ocl_command* c, cl_mem m) OCL_HIDDEN;
void ocl_command_free(ocl_command* c) OCL_HIDDEN;

/* Checks the wait list, gives the command its event and queues it; returns
 * the event through `event_out` and, when `blocking`, waits for it. On an
 * error the command is freed. */
cl_int ocl_command_submit(cl_command_queue q, ocl_command* c, cl_command_type type, cl_uint num_wait,
                          const cl_event* wait, cl_event* event_out, bool blocking) OCL_HIDDEN;

/* Worker side: run the command, fill its event's START and END. */
cl_int ocl_aql_run(cl_command_queue q, ocl_command* c) OCL_HIDDEN;
cl_int ocl_copy_run(cl_command_queue q, ocl_command* c) OCL_HIDDEN;

/* A buffer's memory belongs to the GPU agent (else to the CPU agent). */
static inline bool ocl_mem_on_gpu(cl_mem m) {
  return !(m->flags & (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR));
}

#endif
