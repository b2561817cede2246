/* cltap HSA test double -- the performance-counter model of its gfx906.
 *
 * Which blocks exist (with their instances and counter slots), which events
 * are valid, and what each counter reads after a dispatch. The values are
 * the double's INVENTED model, deterministic functions of the dispatch
 * shape (dispatch_model.c), chosen so that tests can compute every derived
 * metric by hand; they are not what a GPU would count. Event ids are
 * gfx9's, as in rocprofiler's test/tool/gfx_metrics.xml. README.md
 * ("AQLprofile double") has the table. */
#include "pmc.h"

#include <string.h>

static const dbl_pmc_block blocks[] = {
    {DBL_BLOCK_GRBM, "GRBM", 1, 2, false}, {DBL_BLOCK_SQ, "SQ", 1, 8, true},   {DBL_BLOCK_TA, "TA", 16, 2, false},
    {DBL_BLOCK_TD, "TD", 16, 2, false},    {DBL_BLOCK_TCP, "TCP", 16, 4, false}, {DBL_BLOCK_TCC, "TCC", 16, 4, false},
    {DBL_BLOCK_TCA, "TCA", 2, 4, false},   {DBL_BLOCK_SPI, "SPI", 1, 4, false}, {DBL_BLOCK_CPC, "CPC", 1, 2, false},
    {DBL_BLOCK_CPF, "CPF", 1, 2, false},
};
#define BLOCK_COUNT (sizeof blocks / sizeof blocks[0])

/* gfx9 event ids of the counters that read something; every other valid
 * event reads 0. */
enum {
  GRBM_COUNT = 0,
  GRBM_GUI_ACTIVE = 2,
  SQ_WAVES = 4,
  SQ_INSTS_VALU = 26,
  SQ_INSTS_VMEM_WR = 27,
  SQ_INSTS_VMEM_RD = 28,
  SQ_INSTS_SALU = 30,
  SQ_INSTS_SMEM = 31,
  SQ_INSTS_LDS = 34,
  SQ_WAIT_INST_LDS = 63,
  SQ_ACTIVE_INST_VALU = 71,
  SQ_THREAD_CYCLES_VALU = 85,
  TA_TA_BUSY = 15,
  TA_FLAT_READ_WAVEFRONTS = 101,
  TA_FLAT_WRITE_WAVEFRONTS = 102,
  TCC_HIT = 20,
  TCC_MISS = 22,
  TCC_EA_WRREQ = 29,
  TCC_EA_RDREQ = 41,
};

/* GRBM_GUI_ACTIVE lags GRBM_COUNT by this many cycles. */
#define GUI_IDLE_CYCLES 100u

const dbl_pmc_block* dbl_pmc_block_get(uint32_t id) {
  for (size_t i = 0; i < BLOCK_COUNT; i++)
    if (blocks[i].id == id) return &blocks[i];
  return NULL;
}

const dbl_pmc_block* dbl_pmc_block_named(const char* name) {
  if (!name) return NULL;
  for (size_t i = 0; i < BLOCK_COUNT; i++)
    if (strcmp(blocks[i].name, name) == 0) return &blocks[i];
  return NULL;
}

const char* dbl_pmc_event_problem(const dbl_pmc_event* e) {
  const dbl_pmc_block* b = dbl_pmc_block_get(e->block);
  if (!b) return "block not modelled on the double's gfx906";
  if (e->index >= b->instances) return "block index not below the block's instance count";
  if (e->counter >= DBL_PMC_COUNTER_LIMIT) return "counter id not below 512";
  return NULL;
}

uint32_t dbl_pmc_event_samples(const dbl_pmc_event* e) {
  const dbl_pmc_block* b = dbl_pmc_block_get(e->block);
  return b && b->per_se ? DBL_SHADER_ENGINES : 1;
}

uint32_t dbl_pmc_sample_count(const dbl_pmc_event* events, uint32_t count) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < count; i++) n += dbl_pmc_event_samples(&events[i]);
  return n;
}

/* Instance i's part of `total` spread over n instances: equal parts, the
 * remainder one each to the lowest instances. */
static uint64_t share(uint64_t total, uint32_t i, uint32_t n) { return total / n + (i < total % n ? 1 : 0); }

static uint64_t grbm_count(const dbl_dispatch_shape* s, const dbl_agent* a) {
  return s->nominal_ns * a->max_clock_mhz / 1000;
}

/* Work-group g runs on shader engine g % 4: the waves engine `se` got. */
static uint64_t waves_on_se(const dbl_dispatch_shape* s, uint32_t se) {
  return share(s->workgroups, se, DBL_SHADER_ENGINES) * s->waves_per_group;
}

static uint64_t sq_value(uint32_t counter, uint32_t se, const dbl_dispatch_shape* s) {
  const uint64_t w = waves_on_se(s, se);
  switch (counter) {
    case SQ_WAVES: return w;
    case SQ_INSTS_VALU: return 12 * w;
    case SQ_INSTS_VMEM_WR: return w;
    case SQ_INSTS_VMEM_RD: return 2 * w;
    case SQ_INSTS_SALU: return 5 * w;
    case SQ_INSTS_SMEM: return 3 * w;
    case SQ_INSTS_LDS: return s->group_segment_size > 0 ? 4 * w : 0;
    case SQ_WAIT_INST_LDS: return 0;
    case SQ_ACTIVE_INST_VALU: return 12 * 4 * w;
    /* Not a per-wave count: the total is spread evenly over the engines. */
    case SQ_THREAD_CYCLES_VALU: return share(12 * s->work_items, se, DBL_SHADER_ENGINES);
    default: return 0;
  }
}

uint64_t dbl_pmc_value(const dbl_pmc_event* e, uint32_t sample, const dbl_dispatch_shape* s, const dbl_agent* a) {
  const uint32_t n = dbl_pmc_block_get(e->block)->instances;
  switch (e->block) {
    case DBL_BLOCK_GRBM:
      if (e->counter == GRBM_COUNT) return grbm_count(s, a);
      if (e->counter == GRBM_GUI_ACTIVE) {
        uint64_t c = grbm_count(s, a);
        return c > GUI_IDLE_CYCLES ? c - GUI_IDLE_CYCLES : 0;
      }
      return 0;
    case DBL_BLOCK_SQ: return sq_value(e->counter, sample, s);
    case DBL_BLOCK_TA:
      switch (e->counter) {
        /* Busy half the time on as many instances as there are work-groups
         * (the index of a valid event is below 16 already). */
        case TA_TA_BUSY: return e->index < s->workgroups ? grbm_count(s, a) / 2 : 0;
        case TA_FLAT_READ_WAVEFRONTS: return share(2 * s->waves, e->index, n);
        case TA_FLAT_WRITE_WAVEFRONTS: return share(s->waves, e->index, n);
        default: return 0;
      }
    case DBL_BLOCK_TCC:
      switch (e->counter) {
        case TCC_HIT: return share(s->work_items / 4, e->index, n);
        case TCC_MISS: return share(s->work_items / 16, e->index, n);
        case TCC_EA_RDREQ: return share(s->work_items / 16, e->index, n);
        case TCC_EA_WRREQ: return share(s->work_items / 64, e->index, n);
        default: return 0;
      }
    default: return 0; /* TCP_TCP_TA_DATA_STALL_CYCLES (TCP 6) included: no stalls */
  }
}
