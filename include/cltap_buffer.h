/* cltap_buffer.h: buffered delivery of cltap's trace records to a tool
 * (the model of ROCprofiler-SDK's buffered services).
 *
 * A tool creates a buffer, says which records it takes, and receives them
 * in batches through its callback, on cltap's background thread
 * "cltap-tools" (never one of the application's threads). Each record is
 * one record of the binary trace (<app>.<pid>.cltrace) in its wide form
 * (docs/trace-format.md, "Wide records"), so a tool sees what the files hold.
 *
 * These functions are exported by libcltap_layer.so. A tool loaded through
 * ROCP_TOOL_LIB needs no link flag for them: cltap makes its library's
 * symbols global before it loads tools (build the tool with
 * `gcc -shared -fPIC tool.c -o tool.so`).
 *
 * When records arrive: a record reaches the buffers when its chunk of the
 * trace is rendered (a thread's chunk is rendered when it fills past
 * CLTAP_BUFFER_WATERMARK, when the thread ends, and at the end of the
 * process), or at a flush, which takes what the trace holds at that moment.
 * At the end of the process every buffer's rest is delivered, then each
 * tool's OnUnloadTool is called. With CLTAP_RENDER=0, or when a bad
 * setting turned cltap into a pure pass-through, no record arrives.
 *
 * Watermark: after a record is stored, a buffer filled to its watermark or
 * beyond is handed to the callback. A 4096-byte buffer with a 48-byte
 * watermark takes six 8-byte records before the callback; as every trace
 * record is 48 bytes or more, such a buffer delivers each record alone.
 *
 * Policy, for a record that does not fit in what is left of the buffer:
 *   CLTAP_BUFFER_POLICY_LOSSLESS  the buffer is swapped for an empty one
 *       and delivered; nothing is ever dropped. When the callback is still
 *       busy with the previous batch, cltap's renderer waits for it (the
 *       application does not: its records wait in the trace file).
 *   CLTAP_BUFFER_POLICY_DISCARD   the record is dropped and counted; a
 *       buffer at its watermark is delivered only when the callback is
 *       free, and one below it only by a flush. The count arrives with the
 *       next batch (drop_count).
 */
#ifndef CLTAP_BUFFER_H
#define CLTAP_BUFFER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CLTAP_BUFFER_SUCCESS = 0,
    /* size 0 or over 1 GiB, watermark past the (rounded) size, an unknown
     * policy, a NULL callback or id pointer */
    CLTAP_BUFFER_ERROR_INVALID_ARGUMENT = 1,
    /* no buffer has this id (never created, or destroyed) */
    CLTAP_BUFFER_ERROR_NOT_FOUND = 2,
    /* flush or destroy called from a buffer callback: the delivery thread
     * would wait for itself */
    CLTAP_BUFFER_ERROR_IN_CALLBACK = 3,
    CLTAP_BUFFER_ERROR_INTERNAL = 4
} cltap_buffer_status_t;

typedef enum {
    CLTAP_BUFFER_POLICY_DISCARD = 1,
    CLTAP_BUFFER_POLICY_LOSSLESS = 2
} cltap_buffer_policy_t;

/* Record classes a buffer takes (cltap_configure_buffer), or-ed. */
#define CLTAP_RECORDS_API      0x1u /* OpenCL calls and HSA calls */
#define CLTAP_RECORDS_DISPATCH 0x2u /* HSA kernel dispatches, async-copy times, agents, kernel descriptors */
#define CLTAP_RECORDS_COUNTER  0x4u /* counters per dispatch, the counter plan, OpenCL kernel information */
#define CLTAP_RECORDS_ALL      0xFFFFFFFFu /* every record, kinds added later included */

/* Record kinds (cltap_record_header_t.kind); formats/src/cltrace/record.rs
 * describes each. */
#define CLTAP_RECORD_OPENCL_CALL   0 /* fn_id: index in api/opencl.api */
#define CLTAP_RECORD_HSA_CALL      1 /* fn_id: index in api/hsa.api */
#define CLTAP_RECORD_HSA_DISPATCH  2
#define CLTAP_RECORD_HSA_COPY      3
#define CLTAP_RECORD_HSA_AGENT     4
#define CLTAP_RECORD_HSA_COUNTERS  5
#define CLTAP_RECORD_COUNTER_PLAN  6
#define CLTAP_RECORD_KERNEL_INFO   7
#define CLTAP_RECORD_HSA_KERNEL    8

/* cltap_record_header_t.flags */
#define CLTAP_RECORD_FLAG_CMD  1 /* cmd_id holds a command id */
#define CLTAP_RECORD_FLAG_OK   2 /* the call succeeded; its outputs were captured */
#define CLTAP_RECORD_FLAG_DONE 4 /* the call returned (always set in delivered records) */

/* A record: this 48-byte header, nargs argument words (uint64_t), then
 * captures (cltap_record_capture_t, then `bytes` of data padded to 8)
 * up to len bytes. Records are 8-byte aligned. */
typedef struct {
    uint32_t len;      /* the whole record, bytes, a multiple of 8 */
    uint16_t fn_id;
    uint8_t nargs;
    uint8_t flags;
    uint32_t tid;      /* the calling thread (kernel thread id) */
    uint16_t kind;     /* CLTAP_RECORD_* */
    uint16_t reserved;
    uint64_t cmd_id;
    uint64_t t0;       /* the trace's clock at entry and exit (see the trace header) */
    uint64_t t1;
    uint64_t ret;      /* the result */
} cltap_record_header_t;

typedef struct {
    uint8_t param;     /* the argument it belongs to; 255: not an argument */
    uint8_t tag;       /* 1 input array, 2 bytes, 3 string, 4 one output value,
                        * 5 output array, 6 property list, 7 local size chosen */
    uint16_t reserved;
    uint32_t bytes;    /* data that follows */
    uint64_t total;    /* the length the application had, before truncation */
} cltap_record_capture_t;

/* The argument words of a record. */
static inline const uint64_t *cltap_record_args(const cltap_record_header_t *r) {
    return (const uint64_t *)(r + 1);
}

typedef struct {
    uint64_t handle; /* never 0 for a buffer that exists */
} cltap_buffer_id_t;

/* Receives a batch: `count` records in the order rendered (each thread's in
 * the order it made its calls), and the records dropped since the previous
 * batch. The records are valid until the callback returns. */
typedef void (*cltap_buffer_callback_t)(cltap_buffer_id_t buffer,
                                        const cltap_record_header_t *const *records,
                                        size_t count, void *user_data,
                                        uint64_t drop_count);

/* A buffer of `size` bytes, rounded up to the page size
 * (sysconf(_SC_PAGESIZE)), delivering at `watermark` bytes (0 to the
 * rounded size). It takes no record until configured. */
cltap_buffer_status_t cltap_create_buffer(size_t size, size_t watermark,
                                          cltap_buffer_policy_t policy,
                                          cltap_buffer_callback_t callback,
                                          void *user_data,
                                          cltap_buffer_id_t *buffer);

/* The record classes the buffer takes (CLTAP_RECORDS_*); replaces the
 * previous choice, 0 takes none. Several buffers may take the same
 * records: each gets its own copy. A buffer receives the records rendered
 * after it is configured: from a tool's OnLoadTool, every record of the run. */
cltap_buffer_status_t cltap_configure_buffer(cltap_buffer_id_t buffer, uint32_t records);

/* Gives the buffer every complete record the trace holds now, on every
 * thread, delivers what it holds, and returns once the callback has
 * returned. One exception: a thread other than the caller's that is still
 * running may hold back its newest record when that record has no
 * captured contents (cltap cannot tell from outside whether its header is
 * fully written); it follows with that thread's next record, or at the
 * end. Not from a callback. */
cltap_buffer_status_t cltap_flush_buffer(cltap_buffer_id_t buffer);

/* Flushes the buffer, then removes it. Not from a callback. */
cltap_buffer_status_t cltap_destroy_buffer(cltap_buffer_id_t buffer);

/* "CLTAP_BUFFER_SUCCESS", ... */
const char *cltap_buffer_status_string(cltap_buffer_status_t status);

/* The name of a record's function ("clEnqueueNDRangeKernel",
 * "hsa_queue_create") for call records, of its kind otherwise
 * ("hsa dispatch"); "unknown" for what this cltap does not know. */
const char *cltap_record_name(const cltap_record_header_t *record);

#ifdef __cplusplus
}
#endif

#endif /* CLTAP_BUFFER_H */
