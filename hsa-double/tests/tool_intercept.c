/* cltap HSA test double -- a tool library that intercepts dispatches the way
 * rocprofiler v1 does: its hsa_queue_create_fn makes every queue with
 * hsa_amd_queue_intercept_create and registers a handler with
 * hsa_amd_queue_intercept_register (both taken from the AMD table: Debian's
 * ROCr does not export them).
 *
 * CLTAP_TEST_INTERCEPT selects what the handler does with a kernel dispatch:
 *   extra  writes the dispatch and then a barrier-AND packet (no dependency,
 *          no completion signal) through the writer, in one call;
 *   drop   writes nothing, and completes the dispatch's signal itself.
 * Other packets are written unchanged. OnUnload prints the counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsa_api_trace_c.h"

static HsaApiTable* table;
static __typeof__(hsa_queue_create)* real_queue_create;
static bool drop;
static unsigned handled, written, dropped, bad_index;
static uint64_t expected_index;

static void handler(const void* pkts, uint64_t count, uint64_t user_pkt_index, void* data,
                    hsa_amd_queue_intercept_packet_writer writer) {
  const hsa_kernel_dispatch_packet_t* p = pkts;
  if (data != (void*)&handled || count != 1 || user_pkt_index != expected_index) bad_index++;
  expected_index = user_pkt_index + 1;
  handled++;
  unsigned type = (p->header >> HSA_PACKET_HEADER_TYPE) & ((1u << HSA_PACKET_HEADER_WIDTH_TYPE) - 1);
  if (type != HSA_PACKET_TYPE_KERNEL_DISPATCH) {
    writer(pkts, count);
    written += (unsigned)count;
    return;
  }
  if (drop) {
    dropped++;
    if (p->completion_signal.handle) table->core_->hsa_signal_subtract_screlease_fn(p->completion_signal, 1);
    return;
  }
  hsa_kernel_dispatch_packet_t out[2];
  memcpy(&out[0], p, sizeof out[0]);
  hsa_barrier_and_packet_t* b = (hsa_barrier_and_packet_t*)&out[1];
  memset(b, 0, sizeof *b);
  b->header = (uint16_t)((HSA_PACKET_TYPE_BARRIER_AND << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER));
  writer(out, 2);
  written += 2;
}

static hsa_status_t intercepting_queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                                              void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                                              uint32_t private_segment_size, uint32_t group_segment_size,
                                              hsa_queue_t** queue) {
  hsa_status_t st = table->amd_ext_->hsa_amd_queue_intercept_create_fn(
      agent, size, type, callback, data, private_segment_size, group_segment_size, queue);
  if (st != HSA_STATUS_SUCCESS) return st;
  expected_index = 0;
  st = table->amd_ext_->hsa_amd_queue_intercept_register_fn(*queue, handler, &handled);
  if (st != HSA_STATUS_SUCCESS) printf("tool_intercept: FAIL register returned %#x\n", st);
  return st;
}

__attribute__((visibility("default"))) bool OnLoad(HsaApiTable* t, uint64_t runtime_version,
                                                   uint64_t failed_tool_count, const char* const* failed_tool_names) {
  (void)runtime_version;
  (void)failed_tool_count;
  (void)failed_tool_names;
  setvbuf(stdout, NULL, _IONBF, 0);
  const char* mode = getenv("CLTAP_TEST_INTERCEPT");
  drop = mode && strcmp(mode, "drop") == 0;
  table = t;
  /* A queue that is not an intercept queue refuses handlers. */
  if (t->amd_ext_->hsa_amd_queue_intercept_register_fn(NULL, handler, NULL) != HSA_STATUS_ERROR_INVALID_QUEUE)
    printf("tool_intercept: FAIL register on a non-intercept queue\n");
  real_queue_create = t->core_->hsa_queue_create_fn;
  t->core_->hsa_queue_create_fn = intercepting_queue_create;
  printf("tool_intercept: OnLoad mode=%s\n", drop ? "drop" : "extra");
  return true;
}

__attribute__((visibility("default"))) void OnUnload(void) {
  printf("tool_intercept: OnUnload handled=%u written=%u dropped=%u bad_index=%u\n", handled, written, dropped,
         bad_index);
  table->core_->hsa_queue_create_fn = real_queue_create;
}
