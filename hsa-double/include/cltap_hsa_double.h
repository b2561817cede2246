/* cltap HSA test double -- test hooks.
 *
 * The double (libhsa-runtime64.so.1 built from hsa-double/) stands in for
 * ROCr when no AMD GPU exists. Besides the HSA API (symbol version ROCR_1) it
 * exports these few functions, under the symbol version CLTAP_HSA_DOUBLE, so
 * that tests can see what the "GPU" did. A program that wants to run on real
 * ROCr too should look them up with dlsym rather than link them.
 */
#ifndef CLTAP_HSA_DOUBLE_H
#define CLTAP_HSA_DOUBLE_H

#include <stdint.h>
#include "hsa.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel dispatch packets processed so far, on all queues, since the library
 * was loaded. */
uint64_t cltap_double_dispatch_count(void);

/* Packets the packet processor of `queue` has completed (all types). For a
 * queue made by hsa_amd_queue_intercept_create these are the packets that
 * came out of the interceptors, not those the application wrote. Returns 0
 * for a queue the double does not know. */
uint64_t cltap_double_packets_seen(const hsa_queue_t* queue);

/* The same, counting only packets whose header type is `type`
 * (hsa_packet_type_t). */
uint64_t cltap_double_packets_seen_type(const hsa_queue_t* queue, uint32_t type);

/* The host function that "runs" a kernel: called by the packet processor for
 * each dispatch of a kernel whose symbol name is `kernel_name` (with or
 * without the ".kd" suffix), before the completion signal is decremented.
 * The packet's kernarg_address points at the arguments the application wrote.
 * Registering the same name again replaces the function; fn == NULL removes
 * it. Returns 0, or -1 when out of room. */
typedef void (*cltap_double_kernel_fn)(const hsa_kernel_dispatch_packet_t* packet, void* data);
int cltap_double_set_kernel_handler(const char* kernel_name, cltap_double_kernel_fn fn, void* data);

#ifdef __cplusplus
}
#endif

#endif
