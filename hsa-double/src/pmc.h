/* cltap HSA test double -- performance counters: the gfx906 blocks the
 * double models, the values it invents for them, and the double's own
 * PM4-like commands that carry a profile from the AQLprofile functions
 * (aqlprofile.c) to the packet processor (pm4.c).
 *
 * hsa_ven_amd_aqlprofile.h defines a constant, so only aqlprofile.c may
 * include it; the types here mirror the few parts the others need, and
 * aqlprofile.c checks at compile time that they agree. */
#ifndef CLTAP_HSA_DOUBLE_PMC_H
#define CLTAP_HSA_DOUBLE_PMC_H

#include "double.h"

/* hsa_ven_amd_aqlprofile_block_name_t values of the modelled blocks. */
enum {
  DBL_BLOCK_CPC = 0,
  DBL_BLOCK_CPF = 1,
  DBL_BLOCK_GRBM = 3,
  DBL_BLOCK_SPI = 5,
  DBL_BLOCK_SQ = 6,
  DBL_BLOCK_TA = 10,
  DBL_BLOCK_TCA = 11,
  DBL_BLOCK_TCC = 12,
  DBL_BLOCK_TCP = 13,
  DBL_BLOCK_TD = 14,
};

/* Counter ids of every modelled block are below this (gfx906's TCC has
 * its EA1 events at 256 and up). */
#define DBL_PMC_COUNTER_LIMIT 512u
/* SQ counters give one sample per shader engine, as on gfx9. */
#define DBL_SHADER_ENGINES 4u

/* hsa_ven_amd_aqlprofile_event_t. */
typedef struct dbl_pmc_event {
  uint32_t block;
  uint32_t index;
  uint32_t counter;
} dbl_pmc_event;

typedef struct dbl_pmc_block {
  uint32_t id;
  const char* name;
  uint32_t instances;
  uint32_t slots; /* counters one instance can count at once */
  bool per_se;    /* one sample per shader engine */
} dbl_pmc_block;

/* ---- the model (pmc_model.c) ---- */
const dbl_pmc_block* dbl_pmc_block_get(uint32_t id) DBL_HIDDEN;
const dbl_pmc_block* dbl_pmc_block_named(const char* name) DBL_HIDDEN;
/* NULL when the event is valid on the double's gfx906, else why not. */
const char* dbl_pmc_event_problem(const dbl_pmc_event* e) DBL_HIDDEN;
/* Samples the event delivers (1, or one per shader engine); the event is valid. */
uint32_t dbl_pmc_event_samples(const dbl_pmc_event* e) DBL_HIDDEN;
uint32_t dbl_pmc_sample_count(const dbl_pmc_event* events, uint32_t count) DBL_HIDDEN;
/* What one dispatch adds to sample `sample` of a valid event. */
uint64_t dbl_pmc_value(const dbl_pmc_event* e, uint32_t sample, const dbl_dispatch_shape* s,
                       const dbl_agent* a) DBL_HIDDEN;

/* ---- commands and buffers (pm4.c) ----
 *
 * The PMC data (output) buffer: a header, then one uint64_t per sample in
 * the order of the profile's events. The packet processor writes the
 * samples, then the count, then the magic; hsa_ven_amd_aqlprofile_start
 * clears the magic, so iterate_data can tell that no stop or read ran. */
typedef struct dbl_pmc_data {
  uint32_t magic;
  uint32_t sample_count;
  uint64_t samples[];
} dbl_pmc_data;
#define DBL_PMC_DATA_MAGIC 0x44434d50u /* "PMCD" */

/* Bytes of command buffer and of PMC data buffer a profile needs. */
uint32_t dbl_pm4_command_size(uint32_t event_count) DBL_HIDDEN;
uint32_t dbl_pm4_data_size(uint32_t sample_count) DBL_HIDDEN;

enum dbl_pm4_op { DBL_PM4_START = 1, DBL_PM4_STOP = 2, DBL_PM4_READ = 3 };
/* Writes the command `op` of a profile into its command buffer `cmd` (of
 * dbl_pm4_command_size(count) bytes) and points the AQL packet `pkt` at it:
 * bytes 2 to 55, all but the header and the completion signal. */
void dbl_pm4_write(enum dbl_pm4_op op, void* cmd, const dbl_pmc_event* events, uint32_t count, void* data,
                   uint32_t data_size, uint8_t* pkt) DBL_HIDDEN;
/* Whether `pkt` is a PM4 IB packet as dbl_pm4_write makes them. */
bool dbl_pm4_is_ib(const uint8_t* pkt) DBL_HIDDEN;

#endif
