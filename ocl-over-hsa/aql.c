/* cltap OpenCL-over-HSA test double -- the AQL kernel dispatch, written by
 * the queue's worker thread as ROCclr's does:
 *   1. kernel arguments into kernarg memory (hsa_amd_memory_pool_allocate on
 *      the system pool with KERNARG_INIT);
 *   2. a completion signal (hsa_signal_create, value 1);
 *   3. a slot (hsa_queue_add_write_index_screlease), the packet body, then
 *      the header and setup as one 32-bit release store;
 *   4. the doorbell (hsa_signal_store_screlease with the packet index);
 *   5. the wait (hsa_signal_wait_scacquire until the signal drops below 1),
 *      then START/END from hsa_amd_profiling_get_dispatch_time when the
 *      queue profiles.
 * Every call goes through the exported HSA functions, so an HSA tool sees
 * each step, and with an intercept queue its handler sees each packet. */
#include "command.h"

#include <string.h>

static uint32_t header_and_setup(uint32_t dims) {
  uint16_t header = (uint16_t)(HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                    (uint16_t)(1u << HSA_PACKET_HEADER_BARRIER) |
                    (uint16_t)(HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                    (uint16_t)(HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
  uint16_t setup = (uint16_t)(dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
  return header | (uint32_t)setup << 16;
}

/* Writes the packet into the next slot and rings the doorbell. Only this
 * worker writes to the queue, and it waits for each dispatch, so a full
 * ring means the HSA queue is broken. */
static cl_int submit(hsa_queue_t* hq, const ocl_ndrange* nd, void* kernarg, hsa_signal_t done) {
  uint64_t write = hsa_queue_load_write_index_relaxed(hq);
  if (write - hsa_queue_load_read_index_scacquire(hq) >= hq->size) return CL_OUT_OF_RESOURCES;
  uint64_t index = hsa_queue_add_write_index_screlease(hq, 1);
  hsa_kernel_dispatch_packet_t pkt;
  memset(&pkt, 0, sizeof pkt);
  pkt.workgroup_size_x = nd->workgroup[0];
  pkt.workgroup_size_y = nd->workgroup[1];
  pkt.workgroup_size_z = nd->workgroup[2];
  pkt.grid_size_x = nd->grid[0];
  pkt.grid_size_y = nd->grid[1];
  pkt.grid_size_z = nd->grid[2];
  pkt.private_segment_size = nd->private_size;
  pkt.group_segment_size = nd->group_size;
  pkt.kernel_object = nd->kernel_object;
  pkt.kernarg_address = kernarg;
  pkt.completion_signal = done;
  hsa_kernel_dispatch_packet_t* slot = (hsa_kernel_dispatch_packet_t*)hq->base_address + (index & (hq->size - 1));
  /* Body first; the header makes the packet valid for the packet processor. */
  memcpy((uint8_t*)slot + 4, (const uint8_t*)&pkt + 4, sizeof pkt - 4);
  __atomic_store_n((uint32_t*)slot, header_and_setup(nd->dims), __ATOMIC_RELEASE);
  ocl_runtime_count_dispatch();
  hsa_signal_store_screlease(hq->doorbell_signal, (hsa_signal_value_t)index);
  return CL_SUCCESS;
}

cl_int ocl_aql_run(cl_command_queue q, ocl_command* c) {
  const ocl_ndrange* nd = &c->nd;
  cl_event e = c->event;
  void* kernarg = NULL;
  if (hsa_amd_memory_pool_allocate(ocl_rt.kernarg_pool, nd->kernarg_size ? nd->kernarg_size : 16, 0, &kernarg) !=
      HSA_STATUS_SUCCESS)
    return CL_OUT_OF_RESOURCES;
  memcpy(kernarg, nd->kernarg, nd->kernarg_size);
  hsa_signal_t done;
  if (hsa_signal_create(1, 0, NULL, &done) != HSA_STATUS_SUCCESS) {
    hsa_amd_memory_pool_free(kernarg);
    return CL_OUT_OF_RESOURCES;
  }
  e->start = ocl_now_ns();
  cl_int err = submit(q->hsa_queue, nd, kernarg, done);
  if (err == CL_SUCCESS) {
    while (hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX, HSA_WAIT_STATE_BLOCKED) >= 1) {
    }
    e->end = ocl_now_ns();
    hsa_amd_profiling_dispatch_time_t t;
    if (e->profiled && hsa_amd_profiling_get_dispatch_time(ocl_rt.gpu, done, &t) == HSA_STATUS_SUCCESS &&
        t.end >= t.start && t.start) {
      e->start = ocl_system_ticks_to_ns(t.start);
      e->end = ocl_system_ticks_to_ns(t.end);
    }
  }
  hsa_signal_destroy(done);
  hsa_amd_memory_pool_free(kernarg);
  return err;
}
