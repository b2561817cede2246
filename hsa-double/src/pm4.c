/* cltap HSA test double -- PM4 IB packets and the counters they arm.
 *
 * AQLprofile's start/stop/read functions (aqlprofile.c) fill 64-byte
 * vendor-specific AQL packets that, as ROCr's, carry a PM4 INDIRECT_BUFFER
 * command (AmdFormat 1) pointing into the profile's command buffer. What the
 * buffer holds is the double's own: PM4 type-3 NOP packets (a real command
 * processor would skip them) whose payload starts with the magic "CLTD" and
 * one of three commands:
 *
 *   START session event_count {block index counter}*   arm the events
 *   STOP  session data_address data_size                write the values, disarm
 *   READ  session data_address data_size                write the values
 *
 * `session` is the command buffer's address: a STOP or READ only writes
 * what the START of the same profile armed on the same queue. The packet
 * processor runs these commands in queue order (dbl_pm4_execute); each
 * kernel dispatch between START and STOP adds its modelled values
 * (pmc_model.c) to the armed counters (dbl_pmc_on_dispatch). The state is
 * per queue and only its processor thread touches it, so concurrent queues
 * and threads each count their own dispatches. */
#include "pmc.h"

#include <stdlib.h>
#include <string.h>

#define PM4_TYPE3 3u
#define PM4_TYPE2 2u
#define IT_NOP 0x10u
#define IT_INDIRECT_BUFFER 0x3fu
#define IB_SIZE_MASK 0xfffffu
#define IB_VALID (1u << 23)
#define CLTD_MAGIC 0x44544c43u /* "CLTD" */
#define PKT_FORMAT_OFFSET 2
#define PKT_IB_OFFSET 4
#define PKT_DW_REMAIN_OFFSET 20
#define PKT_SIGNAL_OFFSET 56
#define IB_DW_COUNT_REMAIN 10u /* the dwords of the packet after the IB command, as ROCr sets it */
#define SECTION_ALIGN 256u
/* Body dwords: magic, op, session (2), then the command's own. */
#define START_BODY(n) (5u + 3u * (n))
#define STOP_BODY 7u

typedef struct dbl_pmc_state dbl_pmc_state;
struct dbl_pmc_state {
  bool armed;
  uint64_t session;
  uint32_t event_count, sample_count;
  uint32_t event_capacity, sample_capacity;
  dbl_pmc_event* events;
  uint64_t* values;
};

static uint32_t type3_header(uint32_t opcode, uint32_t body_dwords) {
  return (PM4_TYPE3 << 30) | ((body_dwords - 1) << 16) | (opcode << 8);
}

static uint32_t align_up(uint32_t v, uint32_t a) { return (v + a - 1) & ~(a - 1); }

/* The command buffer: START at 0; STOP and READ after it, 256-aligned. */
static uint32_t stop_offset(uint32_t event_count) { return align_up(4 * (1 + START_BODY(event_count)), SECTION_ALIGN); }
static uint32_t read_offset(uint32_t event_count) { return stop_offset(event_count) + 4 * (1 + STOP_BODY); }

uint32_t dbl_pm4_command_size(uint32_t event_count) { return read_offset(event_count) + 4 * (1 + STOP_BODY); }

uint32_t dbl_pm4_data_size(uint32_t sample_count) {
  return (uint32_t)(sizeof(dbl_pmc_data) + (size_t)sample_count * sizeof(uint64_t));
}

static void put64(uint32_t* dw, uint64_t v) {
  dw[0] = (uint32_t)v;
  dw[1] = (uint32_t)(v >> 32);
}

static uint64_t get64(const uint32_t* dw) { return (uint64_t)dw[0] | ((uint64_t)dw[1] << 32); }

void dbl_pm4_write(enum dbl_pm4_op op, void* cmd, const dbl_pmc_event* events, uint32_t count, void* data,
                   uint32_t data_size, uint8_t* pkt) {
  const uint64_t session = (uint64_t)(uintptr_t)cmd;
  uint32_t offset, body;
  if (op == DBL_PM4_START) {
    offset = 0;
    body = START_BODY(count);
  } else {
    offset = op == DBL_PM4_STOP ? stop_offset(count) : read_offset(count);
    body = STOP_BODY;
  }
  uint32_t* dw = (uint32_t*)((uint8_t*)cmd + offset);
  dw[0] = type3_header(IT_NOP, body);
  dw[1] = CLTD_MAGIC;
  dw[2] = op;
  put64(&dw[3], session);
  if (op == DBL_PM4_START) {
    dw[5] = count;
    for (uint32_t i = 0; i < count; i++) {
      dw[6 + 3 * i] = events[i].block;
      dw[7 + 3 * i] = events[i].index;
      dw[8 + 3 * i] = events[i].counter;
    }
  } else {
    put64(&dw[5], (uint64_t)(uintptr_t)data);
    dw[7] = data_size;
  }

  /* The AQL packet: AmdFormat PM4 IB, then INDIRECT_BUFFER(address, dwords). */
  const uint64_t ib = (uint64_t)(uintptr_t)dw;
  const uint32_t ib_cmd[4] = {type3_header(IT_INDIRECT_BUFFER, 3), (uint32_t)ib & ~3u, (uint32_t)(ib >> 32),
                              ((1 + body) & IB_SIZE_MASK) | IB_VALID};
  const uint16_t format = DBL_AMD_PACKET_TYPE_PM4_IB;
  const uint32_t remain = IB_DW_COUNT_REMAIN;
  memset(pkt + PKT_FORMAT_OFFSET, 0, PKT_SIGNAL_OFFSET - PKT_FORMAT_OFFSET);
  memcpy(pkt + PKT_FORMAT_OFFSET, &format, sizeof format);
  memcpy(pkt + PKT_IB_OFFSET, ib_cmd, sizeof ib_cmd);
  memcpy(pkt + PKT_DW_REMAIN_OFFSET, &remain, sizeof remain);
}

bool dbl_pm4_is_ib(const uint8_t* pkt) {
  uint16_t format;
  uint32_t ib0;
  memcpy(&format, pkt + PKT_FORMAT_OFFSET, sizeof format);
  memcpy(&ib0, pkt + PKT_IB_OFFSET, sizeof ib0);
  return format == DBL_AMD_PACKET_TYPE_PM4_IB && ib0 == type3_header(IT_INDIRECT_BUFFER, 3);
}

/* ---- the packet processor's side ---- */

static bool grow(void** p, uint32_t* capacity, uint32_t want, size_t elem) {
  if (want <= *capacity) return true;
  void* n = realloc(*p, (size_t)want * elem);
  if (!n) return false;
  *p = n;
  *capacity = want;
  return true;
}

static void arm(dbl_queue* q, const uint32_t* body, uint32_t body_dwords) {
  const uint64_t session = get64(&body[2]);
  const uint32_t count = body[4];
  if (body_dwords < START_BODY(0) || count > (body_dwords - START_BODY(0)) / 3) {
    dbl_log("queue %llu: PM4 START with %u events does not fit its %u dwords", (unsigned long long)q->amd.hsa_queue.id,
            count, body_dwords);
    return;
  }
  if (!q->pmc && !(q->pmc = calloc(1, sizeof *q->pmc))) return;
  dbl_pmc_state* st = q->pmc;
  st->armed = false;
  if (!grow((void**)&st->events, &st->event_capacity, count, sizeof *st->events)) return;
  for (uint32_t i = 0; i < count; i++) {
    dbl_pmc_event e = {body[5 + 3 * i], body[6 + 3 * i], body[7 + 3 * i]};
    if (dbl_pmc_event_problem(&e)) {
      dbl_log("queue %llu: PM4 START with an invalid event: not armed", (unsigned long long)q->amd.hsa_queue.id);
      return;
    }
    st->events[i] = e;
  }
  const uint32_t samples = dbl_pmc_sample_count(st->events, count);
  if (!grow((void**)&st->values, &st->sample_capacity, samples, sizeof *st->values)) return;
  memset(st->values, 0, (size_t)samples * sizeof *st->values);
  st->session = session;
  st->event_count = count;
  st->sample_count = samples;
  st->armed = true;
  dbl_log("queue %llu: counters armed (%u events, %u samples)", (unsigned long long)q->amd.hsa_queue.id, count, samples);
}

static void write_out(dbl_queue* q, const uint32_t* body, bool stop) {
  const uint64_t session = get64(&body[2]);
  dbl_pmc_data* out = (dbl_pmc_data*)(uintptr_t)get64(&body[4]);
  const uint32_t size = body[6];
  dbl_pmc_state* st = q->pmc;
  if (!st || !st->armed || st->session != session) {
    dbl_log("queue %llu: PM4 %s of a profile not started on this queue: nothing written",
            (unsigned long long)q->amd.hsa_queue.id, stop ? "STOP" : "READ");
    return;
  }
  if (!out || size < dbl_pm4_data_size(st->sample_count)) {
    dbl_log("queue %llu: PMC data buffer of %u bytes too small for %u samples", (unsigned long long)q->amd.hsa_queue.id,
            size, st->sample_count);
  } else {
    memcpy(out->samples, st->values, (size_t)st->sample_count * sizeof *st->values);
    out->sample_count = st->sample_count;
    /* Last, so that a reader that sees the magic sees the samples. */
    __atomic_store_n(&out->magic, DBL_PMC_DATA_MAGIC, __ATOMIC_RELEASE);
  }
  if (stop) st->armed = false;
}

/* One command of the double: the body of a type-3 NOP packet. */
static void run_command(dbl_queue* q, const uint32_t* body, uint32_t body_dwords) {
  if (body_dwords < 2 || body[0] != CLTD_MAGIC) return; /* a NOP of someone else's: skipped */
  switch (body[1]) {
    case DBL_PM4_START: arm(q, body, body_dwords); return;
    case DBL_PM4_STOP:
    case DBL_PM4_READ:
      if (body_dwords >= STOP_BODY) write_out(q, body, body[1] == DBL_PM4_STOP);
      return;
    default:
      dbl_log("queue %llu: unknown double PM4 command %u", (unsigned long long)q->amd.hsa_queue.id, body[1]);
  }
}

void dbl_pm4_execute(dbl_queue* q, const uint8_t* pkt) {
  if (!dbl_pm4_is_ib(pkt)) {
    dbl_log("queue %llu: PM4 packet without an INDIRECT_BUFFER command: ignored", (unsigned long long)q->amd.hsa_queue.id);
    return;
  }
  uint32_t ib[4];
  memcpy(ib, pkt + PKT_IB_OFFSET, sizeof ib);
  /* As a GPU would, the processor trusts the address: it is the tool's. */
  const uint32_t* dw = (const uint32_t*)(uintptr_t)(((uint64_t)ib[2] << 32) | ib[1]);
  const uint32_t size = ib[3] & IB_SIZE_MASK;
  if (!dw || !(ib[3] & IB_VALID)) return;
  for (uint32_t i = 0; i < size;) {
    const uint32_t h = dw[i];
    if (h >> 30 == PM4_TYPE2) { /* filler */
      i++;
      continue;
    }
    const uint32_t body = ((h >> 16) & 0x3fffu) + 1;
    if (h >> 30 != PM4_TYPE3 || body > size - i - 1) {
      dbl_log("queue %llu: malformed PM4 at dword %u of the IB: rest skipped", (unsigned long long)q->amd.hsa_queue.id, i);
      return;
    }
    if (((h >> 8) & 0xffu) == IT_NOP) run_command(q, &dw[i + 1], body);
    i += 1 + body;
  }
}

void dbl_pmc_on_dispatch(dbl_queue* q, const dbl_dispatch_shape* shape) {
  dbl_pmc_state* st = q->pmc;
  if (!st || !st->armed) return;
  uint32_t k = 0;
  for (uint32_t i = 0; i < st->event_count; i++) {
    const uint32_t n = dbl_pmc_event_samples(&st->events[i]);
    for (uint32_t s = 0; s < n; s++, k++) st->values[k] += dbl_pmc_value(&st->events[i], s, shape, q->agent);
  }
}

void dbl_pmc_queue_free(dbl_queue* q) {
  if (!q->pmc) return;
  free(q->pmc->events);
  free(q->pmc->values);
  free(q->pmc);
  q->pmc = NULL;
}
