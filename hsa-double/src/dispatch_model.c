/* cltap HSA test double -- the dispatch model: what a kernel dispatch "did".
 *
 * The double runs no GPU code, yet tools expect dispatches to take time and
 * hardware counters to count something. Both follow from the packet alone,
 * so that a test can compute every value by hand:
 *
 *   WI  = grid_x * grid_y * grid_z                  (work-items)
 *   WG  = prod over dims of ceil(grid / workgroup)  (work-groups)
 *   WGS = workgroup_x * workgroup_y * workgroup_z   (work-group size)
 *   W   = WG * ceil(WGS / 64)                       (wavefronts of 64)
 *   T   = min(2000 + WI / 16, 1000000) ns           (nominal duration)
 *
 * Only the dimensions the packet's setup field names count; the others are
 * taken as 1. A work-group size of 0 (invalid) is taken as 1 so that nothing
 * divides by zero. Products saturate at UINT64_MAX. This is the double's
 * invented model, not how a GPU behaves. */
#include "double.h"

#include <errno.h>
#include <time.h>

#define NOMINAL_BASE_NS 2000ull
#define NOMINAL_ITEMS_PER_NS 16ull
#define NOMINAL_CAP_NS 1000000ull
#define WAVE_SIZE 64ull

static uint64_t mul_sat(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

void dbl_dispatch_shape_of(const hsa_kernel_dispatch_packet_t* p, dbl_dispatch_shape* out) {
  unsigned dims = (p->setup >> HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS) &
                  ((1u << HSA_KERNEL_DISPATCH_PACKET_SETUP_WIDTH_DIMENSIONS) - 1);
  if (dims < 1) dims = 1;
  if (dims > 3) dims = 3;
  const uint64_t grid[3] = {p->grid_size_x, p->grid_size_y, p->grid_size_z};
  const uint64_t wg[3] = {p->workgroup_size_x, p->workgroup_size_y, p->workgroup_size_z};
  uint64_t items = 1, groups = 1, group_size = 1;
  for (unsigned d = 0; d < dims; d++) {
    uint64_t w = wg[d] ? wg[d] : 1;
    items = mul_sat(items, grid[d]);
    groups = mul_sat(groups, (grid[d] + w - 1) / w);
    group_size = mul_sat(group_size, w);
  }
  out->work_items = items;
  out->workgroups = groups;
  out->workgroup_size = group_size;
  out->waves_per_group = (group_size + WAVE_SIZE - 1) / WAVE_SIZE;
  out->waves = mul_sat(groups, out->waves_per_group);
  uint64_t t = NOMINAL_BASE_NS + items / NOMINAL_ITEMS_PER_NS;
  out->nominal_ns = t > NOMINAL_CAP_NS ? NOMINAL_CAP_NS : t;
  out->group_segment_size = p->group_segment_size;
}

void dbl_sleep_until(uint64_t deadline) {
  /* An absolute deadline: a wake-up that comes early (a signal) simply
   * sleeps again, and the time the host function took is not added twice. */
  struct timespec ts = {(time_t)(deadline / 1000000000ull), (long)(deadline % 1000000000ull)};
  while (dbl_now() < deadline) {
    int rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    if (rc != 0 && rc != EINTR) break;
  }
}
