/* cltap OpenCL-over-HSA test double -- buffer reads, writes and copies, and
 * markers and barriers.
 *
 * Transfers run on the queue's worker with hsa_amd_memory_async_copy (an
 * SDMA copy on ROCr), the application's pointer locked for the copy. They
 * are no kernel dispatches: AMD's runtime may use blit kernels for some
 * transfers, which the double's ICD never does, so here the HSA dispatches
 * are exactly the NDRanges. */
#include "command.h"

static cl_int check_queue_mem(cl_command_queue q, cl_mem m) {
  if (!ocl_valid(q, OCL_MAGIC_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  if (!ocl_valid(m, OCL_MAGIC_MEM)) return CL_INVALID_MEM_OBJECT;
  if (m->context != q->context) return CL_INVALID_CONTEXT;
  return CL_SUCCESS;
}

static bool in_range(cl_mem m, size_t offset, size_t size) {
  return size && offset <= m->size && size <= m->size - offset;
}

/* A read (to_host) or write between `m` and the application's `ptr`. */
static cl_int host_transfer(cl_command_queue q, cl_mem m, bool to_host, cl_bool blocking, size_t offset,
                            size_t size, void* ptr, cl_uint num_wait, const cl_event* wait, cl_event* event) {
  cl_int err = check_queue_mem(q, m);
  if (err != CL_SUCCESS) return err;
  if (!ptr || !in_range(m, offset, size)) return CL_INVALID_VALUE;
  ocl_command* c = ocl_command_new(OCL_CMD_COPY, 1);
  if (!c) return CL_OUT_OF_HOST_MEMORY;
  void* device = (uint8_t*)m->address + offset;
  c->copy.size = size;
  c->copy.host = ptr;
  c->copy.dst = to_host ? ptr : device;
  c->copy.src = to_host ? device : ptr;
  c->copy.dst_on_gpu = !to_host && ocl_mem_on_gpu(m);
  c->copy.src_on_gpu = to_host && ocl_mem_on_gpu(m);
  ocl_command_add_mem(c, m);
  return ocl_command_submit(q, c, to_host ? CL_COMMAND_READ_BUFFER : CL_COMMAND_WRITE_BUFFER, num_wait, wait, event,
                            blocking != CL_FALSE);
}

cl_int CL_API_CALL ocl_clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t offset,
                                           size_t size, void* ptr, cl_uint num_wait, const cl_event* wait,
                                           cl_event* event) {
  return host_transfer(q, m, true, blocking, offset, size, ptr, num_wait, wait, event);
}

cl_int CL_API_CALL ocl_clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool blocking, size_t offset,
                                            size_t size, const void* ptr, cl_uint num_wait, const cl_event* wait,
                                            cl_event* event) {
  return host_transfer(q, m, false, blocking, offset, size, (void*)ptr, num_wait, wait, event);
}

cl_int CL_API_CALL ocl_clEnqueueCopyBuffer(cl_command_queue q, cl_mem src, cl_mem dst, size_t src_offset,
                                           size_t dst_offset, size_t size, cl_uint num_wait, const cl_event* wait,
                                           cl_event* event) {
  cl_int err = check_queue_mem(q, src);
  if (err == CL_SUCCESS) err = check_queue_mem(q, dst);
  if (err != CL_SUCCESS) return err;
  if (!in_range(src, src_offset, size) || !in_range(dst, dst_offset, size)) return CL_INVALID_VALUE;
  if (src == dst && src_offset < dst_offset + size && dst_offset < src_offset + size) return CL_MEM_COPY_OVERLAP;
  ocl_command* c = ocl_command_new(OCL_CMD_COPY, 2);
  if (!c) return CL_OUT_OF_HOST_MEMORY;
  c->copy.size = size;
  c->copy.dst = (uint8_t*)dst->address + dst_offset;
  c->copy.src = (uint8_t*)src->address + src_offset;
  c->copy.dst_on_gpu = ocl_mem_on_gpu(dst);
  c->copy.src_on_gpu = ocl_mem_on_gpu(src);
  ocl_command_add_mem(c, src);
  ocl_command_add_mem(c, dst);
  return ocl_command_submit(q, c, CL_COMMAND_COPY_BUFFER, num_wait, wait, event, false);
}

/* ---- markers and barriers: commands with no work (the queue is in
 * order, so a barrier is a marker) ---- */

static cl_int marker(cl_command_queue q, cl_command_type type, cl_uint num_wait, const cl_event* wait,
                     cl_event* event) {
  if (!ocl_valid(q, OCL_MAGIC_QUEUE)) return CL_INVALID_COMMAND_QUEUE;
  ocl_command* c = ocl_command_new(OCL_CMD_MARKER, 0);
  if (!c) return CL_OUT_OF_HOST_MEMORY;
  return ocl_command_submit(q, c, type, num_wait, wait, event, false);
}

cl_int CL_API_CALL ocl_clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint num_wait, const cl_event* wait,
                                                   cl_event* event) {
  return marker(q, CL_COMMAND_MARKER, num_wait, wait, event);
}

cl_int CL_API_CALL ocl_clEnqueueBarrierWithWaitList(cl_command_queue q, cl_uint num_wait, const cl_event* wait,
                                                    cl_event* event) {
  return marker(q, CL_COMMAND_BARRIER, num_wait, wait, event);
}

cl_int CL_API_CALL ocl_clEnqueueMarker(cl_command_queue q, cl_event* event) {
  if (!event) return CL_INVALID_VALUE;
  return marker(q, CL_COMMAND_MARKER, 0, NULL, event);
}

cl_int CL_API_CALL ocl_clEnqueueBarrier(cl_command_queue q) { return marker(q, CL_COMMAND_BARRIER, 0, NULL, NULL); }

cl_int CL_API_CALL ocl_clEnqueueWaitForEvents(cl_command_queue q, cl_uint num_events, const cl_event* events) {
  if (num_events == 0 || !events) return CL_INVALID_VALUE;
  return marker(q, CL_COMMAND_BARRIER, num_events, events, NULL);
}

/* ---- the worker's side ---- */

cl_int ocl_copy_run(cl_command_queue q, ocl_command* c) {
  ocl_copy* cp = &c->copy;
  cl_event e = c->event;
  void* dst = cp->dst;
  const void* src = cp->src;
  void* agent_ptr = NULL;
  if (cp->host) {
    if (hsa_amd_memory_lock(cp->host, cp->size, &ocl_rt.gpu, 1, &agent_ptr) != HSA_STATUS_SUCCESS)
      return CL_OUT_OF_RESOURCES;
    if (dst == cp->host)
      dst = agent_ptr;
    else
      src = agent_ptr;
  }
  hsa_signal_t done;
  cl_int err = CL_OUT_OF_RESOURCES;
  if (hsa_signal_create(1, 0, NULL, &done) == HSA_STATUS_SUCCESS) {
    e->start = ocl_now_ns();
    if (hsa_amd_memory_async_copy(dst, cp->dst_on_gpu ? ocl_rt.gpu : ocl_rt.cpu, src,
                                  cp->src_on_gpu ? ocl_rt.gpu : ocl_rt.cpu, cp->size, 0, NULL,
                                  done) == HSA_STATUS_SUCCESS) {
      while (hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) >= 1) {
      }
      e->end = ocl_now_ns();
      hsa_amd_profiling_async_copy_time_t t;
      if (e->profiled && hsa_amd_profiling_get_async_copy_time(done, &t) == HSA_STATUS_SUCCESS && t.start &&
          t.end >= t.start) {
        e->start = ocl_system_ticks_to_ns(t.start);
        e->end = ocl_system_ticks_to_ns(t.end);
      }
      err = CL_SUCCESS;
    }
    hsa_signal_destroy(done);
  }
  if (cp->host) hsa_amd_memory_unlock(cp->host);
  return err;
}
