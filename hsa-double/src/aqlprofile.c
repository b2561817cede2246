/* cltap HSA test double -- an AQLprofile double.
 *
 * ROCr hands out libhsa-amd-aqlprofile64.so's functions through
 * hsa_system_get_major_extension_table(HSA_EXTENSION_AMD_AQLPROFILE, 1, ...);
 * the double answers with these, which behave as hsa_ven_amd_aqlprofile.h
 * documents for PMC profiles on its gfx906 agent (trace profiles are
 * refused). A profile's start/stop/read packets point at the double's own
 * commands in the profile's command buffer (pm4.c), which the packet
 * processor runs; the counters read the values of the invented model in
 * pmc_model.c.
 *
 * Sizes: hsa_ven_amd_aqlprofile_start(profile, NULL) sets the command and
 * output buffer sizes in the profile, as rocprofiler v1 expects;
 * get_info(COMMAND_BUFFER_SIZE / PMC_DATA_SIZE) gives the same numbers.
 * Failures return an hsa_status_t and leave a message for
 * hsa_ven_amd_aqlprofile_error_string (per thread).
 *
 * CLTAP_HSA_DOUBLE_AQLPROFILE=0 makes the extension absent, as on a machine
 * without the aqlprofile library. */
#include "pmc.h"
#include "hsa_ven_amd_aqlprofile.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef hsa_ven_amd_aqlprofile_profile_t profile_t;
typedef hsa_ven_amd_aqlprofile_event_t event_t;
typedef hsa_ven_amd_aqlprofile_info_data_t info_data_t;

/* pmc.h mirrors the header; keep them in step. */
_Static_assert(sizeof(event_t) == sizeof(dbl_pmc_event), "event layout");
_Static_assert(offsetof(event_t, block_index) == offsetof(dbl_pmc_event, index), "event layout");
_Static_assert(offsetof(event_t, counter_id) == offsetof(dbl_pmc_event, counter), "event layout");
_Static_assert(sizeof(hsa_ext_amd_aql_pm4_packet_t) == 64, "an AQL packet");
#define SAME_BLOCK(n) ((int)HSA_VEN_AMD_AQLPROFILE_BLOCK_NAME_##n == (int)DBL_BLOCK_##n)
_Static_assert(SAME_BLOCK(CPC) && SAME_BLOCK(CPF) && SAME_BLOCK(GRBM) && SAME_BLOCK(SPI) && SAME_BLOCK(SQ) &&
                   SAME_BLOCK(TA) && SAME_BLOCK(TCA) && SAME_BLOCK(TCC) && SAME_BLOCK(TCP) && SAME_BLOCK(TD),
               "block ids");

static __thread char last_error[256] = "no error";

/* Leaves a message for error_string. */
static void note(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
  dbl_log("aqlprofile: %s", last_error);
}
#define fail(st, ...) (note(__VA_ARGS__), (st))

static bool is_gfx906(hsa_agent_t agent) { return dbl_agent_get(agent) == &dbl_gpu_agent; }

static const dbl_pmc_event* events_of(const profile_t* p) { return (const dbl_pmc_event*)p->events; }

static uint32_t aql_version_major(void) { return HSA_AQLPROFILE_VERSION_MAJOR; }
static uint32_t aql_version_minor(void) { return HSA_AQLPROFILE_VERSION_MINOR; }

static hsa_status_t aql_error_string(const char** str) {
  if (!str) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *str = last_error;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t aql_validate_event(hsa_agent_t agent, const event_t* event, bool* result) {
  if (!event || !result) return fail(HSA_STATUS_ERROR_INVALID_ARGUMENT, "validate_event: NULL event or result");
  if (!is_gfx906(agent)) return fail(HSA_STATUS_ERROR_INVALID_AGENT, "validate_event: not the double's gfx906 agent");
  const char* why = dbl_pmc_event_problem((const dbl_pmc_event*)event);
  *result = why == NULL;
  if (why)
    note("event (block %u, index %u, counter %u): %s", (unsigned)event->block_name, event->block_index,
         event->counter_id, why);
  return HSA_STATUS_SUCCESS;
}

/* A PMC profile the double can run: its agent, type, events, and no more
 * events on one block instance than it has counter slots (callers must
 * split such sets over passes). Gives the number of samples. */
static hsa_status_t check_profile(const profile_t* p, uint32_t* samples) {
  if (!p) return fail(HSA_STATUS_ERROR_INVALID_ARGUMENT, "NULL profile");
  if (!is_gfx906(p->agent)) return fail(HSA_STATUS_ERROR_INVALID_AGENT, "profile agent is not the double's gfx906");
  if (p->type != HSA_VEN_AMD_AQLPROFILE_EVENT_TYPE_PMC)
    return fail(HSA_STATUS_ERROR, "only PMC profiles are supported by the double (type %d)", (int)p->type);
  if (!p->events || p->event_count == 0) return fail(HSA_STATUS_ERROR_INVALID_ARGUMENT, "profile without events");
  const dbl_pmc_event* ev = events_of(p);
  for (uint32_t i = 0; i < p->event_count; i++) {
    const char* why = dbl_pmc_event_problem(&ev[i]);
    if (why)
      return fail(HSA_STATUS_ERROR_INVALID_ARGUMENT, "event %u (block %u, index %u, counter %u): %s", i, ev[i].block,
                  ev[i].index, ev[i].counter, why);
    uint32_t same = 1;
    for (uint32_t j = 0; j < i; j++) same += ev[j].block == ev[i].block && ev[j].index == ev[i].index;
    const dbl_pmc_block* b = dbl_pmc_block_get(ev[i].block);
    if (same > b->slots)
      return fail(HSA_STATUS_ERROR_INVALID_ARGUMENT,
                  "more than %u events on %s[%u], which has %u counters: split them over several passes", b->slots,
                  b->name, ev[i].index, b->slots);
  }
  *samples = dbl_pmc_sample_count(ev, p->event_count);
  return HSA_STATUS_SUCCESS;
}

/* The profile's buffers exist, are aligned and are large enough. */
static hsa_status_t check_buffers(const profile_t* p, uint32_t samples) {
  const uint32_t cmd = dbl_pm4_command_size(p->event_count), data = dbl_pm4_data_size(samples);
  if (!p->command_buffer.ptr || ((uintptr_t)p->command_buffer.ptr & 3) || p->command_buffer.size < cmd)
    return fail(HSA_STATUS_ERROR_INVALID_ARGUMENT, "command buffer %p of %u bytes: %u bytes, 4-aligned, needed",
                p->command_buffer.ptr, p->command_buffer.size, cmd);
  if (!p->output_buffer.ptr || ((uintptr_t)p->output_buffer.ptr & 7) || p->output_buffer.size < data)
    return fail(HSA_STATUS_ERROR_INVALID_ARGUMENT, "output buffer %p of %u bytes: %u bytes, 8-aligned, needed",
                p->output_buffer.ptr, p->output_buffer.size, data);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t make_packet(enum dbl_pm4_op op, const profile_t* p, hsa_ext_amd_aql_pm4_packet_t* pkt) {
  uint32_t samples;
  hsa_status_t st = check_profile(p, &samples);
  if (st != HSA_STATUS_SUCCESS) return st;
  if (!pkt) return fail(HSA_STATUS_ERROR_INVALID_ARGUMENT, "NULL packet");
  if ((st = check_buffers(p, samples)) != HSA_STATUS_SUCCESS) return st;
  if (op == DBL_PM4_START) ((dbl_pmc_data*)p->output_buffer.ptr)->magic = 0; /* no data until a stop or read ran */
  dbl_pm4_write(op, p->command_buffer.ptr, events_of(p), p->event_count, p->output_buffer.ptr, p->output_buffer.size,
                (uint8_t*)pkt);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t aql_start(profile_t* p, hsa_ext_amd_aql_pm4_packet_t* pkt) {
  if (p && !pkt) {
    /* The size query. */
    uint32_t samples;
    hsa_status_t st = check_profile(p, &samples);
    if (st != HSA_STATUS_SUCCESS) return st;
    p->command_buffer.size = dbl_pm4_command_size(p->event_count);
    p->output_buffer.size = dbl_pm4_data_size(samples);
    return HSA_STATUS_SUCCESS;
  }
  return make_packet(DBL_PM4_START, p, pkt);
}

static hsa_status_t aql_stop(const profile_t* p, hsa_ext_amd_aql_pm4_packet_t* pkt) {
  return make_packet(DBL_PM4_STOP, p, pkt);
}

static hsa_status_t aql_read(const profile_t* p, hsa_ext_amd_aql_pm4_packet_t* pkt) {
  return make_packet(DBL_PM4_READ, p, pkt);
}

static uint16_t aql_header(hsa_packet_type_t type) {
  return (uint16_t)((type << HSA_PACKET_HEADER_TYPE) | (1 << HSA_PACKET_HEADER_BARRIER) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_ACQUIRE_FENCE_SCOPE) |
                    (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_RELEASE_FENCE_SCOPE));
}

/* Legacy (gfx8) devices take a 192-byte blob instead of the packet. The
 * double's blob is three AQL packets the processor runs like the original:
 * a barrier-AND (acquire), the PM4 packet, and a barrier-AND that carries
 * the original's completion signal. */
static hsa_status_t aql_legacy_get_pm4(const hsa_ext_amd_aql_pm4_packet_t* pkt, void* data) {
  if (!pkt || !data) return fail(HSA_STATUS_ERROR_INVALID_ARGUMENT, "legacy_get_pm4: NULL packet or data");
  if (!dbl_pm4_is_ib((const uint8_t*)pkt)) return fail(HSA_STATUS_ERROR_INVALID_ARGUMENT, "legacy_get_pm4: not a PM4 packet");
  hsa_barrier_and_packet_t acquire, release;
  memset(&acquire, 0, sizeof acquire);
  acquire.header = aql_header(HSA_PACKET_TYPE_BARRIER_AND);
  release = acquire;
  release.completion_signal = pkt->completion_signal;
  hsa_ext_amd_aql_pm4_packet_t body = *pkt;
  body.header = aql_header(HSA_PACKET_TYPE_VENDOR_SPECIFIC);
  body.completion_signal.handle = 0;
  uint8_t* out = data;
  memcpy(out, &acquire, 64);
  memcpy(out + 64, &body, 64);
  memcpy(out + 128, &release, 64);
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t aql_iterate_data(const profile_t* p, hsa_ven_amd_aqlprofile_data_callback_t cb, void* data) {
  uint32_t samples;
  hsa_status_t st = check_profile(p, &samples);
  if (st != HSA_STATUS_SUCCESS) return st;
  if (!cb) return fail(HSA_STATUS_ERROR_INVALID_ARGUMENT, "iterate_data: NULL callback");
  const dbl_pmc_data* out = p->output_buffer.ptr;
  if (!out || p->output_buffer.size < dbl_pm4_data_size(samples))
    return fail(HSA_STATUS_ERROR_INVALID_ARGUMENT, "iterate_data: output buffer missing or too small");
  if (__atomic_load_n(&out->magic, __ATOMIC_ACQUIRE) != DBL_PMC_DATA_MAGIC)
    return fail(HSA_STATUS_ERROR, "iterate_data: no counter data: the profile's stop or read packet has not run");
  if (out->sample_count != samples)
    return fail(HSA_STATUS_ERROR, "iterate_data: the data holds %u samples, the profile's events %u", out->sample_count,
                samples);
  const dbl_pmc_event* ev = events_of(p);
  uint32_t k = 0;
  for (uint32_t i = 0; i < p->event_count; i++) {
    const uint32_t n = dbl_pmc_event_samples(&ev[i]);
    /* sample_id counts within the event: 0 starts a new event, and a
     * consumer sums an event's samples (rocprofiler v1 does). */
    for (uint32_t s = 0; s < n; s++, k++) {
      info_data_t info;
      memset(&info, 0, sizeof info);
      info.sample_id = s;
      info.pmc_data.event = p->events[i];
      info.pmc_data.result = out->samples[k];
      st = cb(HSA_VEN_AMD_AQLPROFILE_INFO_PMC_DATA, &info, data);
      if (st == HSA_STATUS_INFO_BREAK) return HSA_STATUS_SUCCESS;
      if (st != HSA_STATUS_SUCCESS) return st;
    }
  }
  return HSA_STATUS_SUCCESS;
}

/* get_info(PMC_DATA): the sample `sample_id` of the event in `wanted`, or
 * with sample_id UINT32_MAX the sum of its samples. */
static hsa_status_t pick_sample(hsa_ven_amd_aqlprofile_info_type_t type, info_data_t* got, void* arg) {
  info_data_t* wanted = arg;
  if (type != HSA_VEN_AMD_AQLPROFILE_INFO_PMC_DATA || memcmp(&got->pmc_data.event, &wanted->pmc_data.event, sizeof(event_t)))
    return HSA_STATUS_SUCCESS;
  if (wanted->sample_id == UINT32_MAX) {
    wanted->pmc_data.result += got->pmc_data.result;
    return HSA_STATUS_SUCCESS;
  }
  if (wanted->sample_id != got->sample_id) return HSA_STATUS_SUCCESS;
  wanted->pmc_data.result = got->pmc_data.result;
  return HSA_STATUS_INFO_BREAK;
}

static hsa_status_t aql_get_info(const profile_t* p, hsa_ven_amd_aqlprofile_info_type_t attribute, void* value) {
  if (!value) return fail(HSA_STATUS_ERROR_INVALID_ARGUMENT, "get_info: NULL value");
  uint32_t samples;
  hsa_status_t st;
  switch ((int)attribute) {
    case HSA_VEN_AMD_AQLPROFILE_INFO_COMMAND_BUFFER_SIZE:
      if ((st = check_profile(p, &samples)) != HSA_STATUS_SUCCESS) return st;
      *(uint32_t*)value = dbl_pm4_command_size(p->event_count);
      return HSA_STATUS_SUCCESS;
    case HSA_VEN_AMD_AQLPROFILE_INFO_PMC_DATA_SIZE:
      if ((st = check_profile(p, &samples)) != HSA_STATUS_SUCCESS) return st;
      *(uint32_t*)value = dbl_pm4_data_size(samples);
      return HSA_STATUS_SUCCESS;
    case HSA_VEN_AMD_AQLPROFILE_INFO_PMC_DATA:
      ((info_data_t*)value)->pmc_data.result = 0;
      return aql_iterate_data(p, pick_sample, value);
    case HSA_VEN_AMD_AQLPROFILE_INFO_BLOCK_COUNTERS: {
      /* The block of the profile's first event. */
      if (!p || !is_gfx906(p->agent)) return fail(HSA_STATUS_ERROR_INVALID_AGENT, "get_info: not the double's gfx906");
      const dbl_pmc_block* b = p->events && p->event_count ? dbl_pmc_block_get(p->events[0].block_name) : NULL;
      if (!b) return fail(HSA_STATUS_ERROR_INVALID_ARGUMENT, "get_info(BLOCK_COUNTERS): no modelled block in events[0]");
      *(uint32_t*)value = b->slots;
      return HSA_STATUS_SUCCESS;
    }
    case HSA_VEN_AMD_AQLPROFILE_INFO_BLOCK_ID: {
      if (!p || !is_gfx906(p->agent)) return fail(HSA_STATUS_ERROR_INVALID_AGENT, "get_info: not the double's gfx906");
      hsa_ven_amd_aqlprofile_id_query_t* q = value;
      const dbl_pmc_block* b = dbl_pmc_block_named(q->name);
      if (!b) return fail(HSA_STATUS_ERROR_INVALID_ARGUMENT, "get_info(BLOCK_ID): block %s not modelled", q->name ? q->name : "(null)");
      q->id = b->id;
      q->instance_count = b->instances;
      return HSA_STATUS_SUCCESS;
    }
    case HSA_VEN_AMD_AQLPROFILE_INFO_TRACE_DATA:
    case HSA_VEN_AMD_AQLPROFILE_INFO_ENABLE_CMD:
    case HSA_VEN_AMD_AQLPROFILE_INFO_DISABLE_CMD:
      return fail(HSA_STATUS_ERROR, "get_info(%d): traces and SPM are not supported by the double", (int)attribute);
    default: return fail(HSA_STATUS_ERROR_INVALID_ARGUMENT, "get_info: unknown attribute %d", (int)attribute);
  }
}

/* ---- the extension table ---- */

bool dbl_aqlprofile_supported(uint16_t version_major, uint16_t* max_minor) {
  const char* env = getenv("CLTAP_HSA_DOUBLE_AQLPROFILE");
  if (env && strcmp(env, "0") == 0) return false;
  if (version_major != hsa_ven_amd_aqlprofile_VERSION_MAJOR) return false;
  if (max_minor) *max_minor = 0;
  return true;
}

size_t dbl_aqlprofile_table_size(uint16_t version_minor) {
  return version_minor == 0 ? sizeof(hsa_ven_amd_aqlprofile_1_00_pfn_t) : 0;
}

void dbl_aqlprofile_fill(void* table, size_t length) {
  const hsa_ven_amd_aqlprofile_1_00_pfn_t t = {
      .hsa_ven_amd_aqlprofile_version_major = aql_version_major,
      .hsa_ven_amd_aqlprofile_version_minor = aql_version_minor,
      .hsa_ven_amd_aqlprofile_error_string = aql_error_string,
      .hsa_ven_amd_aqlprofile_validate_event = aql_validate_event,
      .hsa_ven_amd_aqlprofile_start = aql_start,
      .hsa_ven_amd_aqlprofile_stop = aql_stop,
      .hsa_ven_amd_aqlprofile_read = aql_read,
      .hsa_ven_amd_aqlprofile_legacy_get_pm4 = aql_legacy_get_pm4,
      .hsa_ven_amd_aqlprofile_get_info = aql_get_info,
      .hsa_ven_amd_aqlprofile_iterate_data = aql_iterate_data,
  };
  memcpy(table, &t, length < sizeof t ? length : sizeof t);
}
