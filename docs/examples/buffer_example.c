/* buffer_example.c: a complete cltap tool. It takes every API record
 * (OpenCL and HSA calls) through a cltap buffer and, at the end, prints on
 * stderr how many calls it saw, how many failed, and the most frequent one.
 *
 * Build:  gcc -std=c11 -O2 -shared -fPIC -I include docs/examples/buffer_example.c -o buffer_example.so
 * Run:    ROCP_TOOL_LIB=$PWD/buffer_example.so cltap run -- ./my_app
 *
 * The tool does not link to cltap: cltap makes its own symbols visible to
 * the tools it loads. */
#include "cltap_buffer.h"
#include <stdio.h>
#include <string.h>

#define MAX_NAMES 512

static cltap_buffer_id_t buffer;
static struct {
    const char *name;
    unsigned long calls;
} seen[MAX_NAMES];
static unsigned long records, failed, dropped;

/* Called on cltap's background thread with a batch of records. */
static void on_records(cltap_buffer_id_t id, const cltap_record_header_t *const *recs, size_t count,
                       void *user_data, uint64_t drop_count) {
    (void)id;
    (void)user_data;
    dropped += drop_count;
    for (size_t i = 0; i < count; i++) {
        const cltap_record_header_t *r = recs[i];
        records++;
        if (!(r->flags & CLTAP_RECORD_FLAG_OK)) failed++;
        /* Names are static strings: compare the pointers. */
        const char *name = cltap_record_name(r);
        for (int k = 0; k < MAX_NAMES; k++) {
            if (!seen[k].name) seen[k].name = name;
            if (seen[k].name == name) {
                seen[k].calls++;
                break;
            }
        }
    }
}

/* cltap calls this once, at start-up. */
void OnLoadTool(void) {
    /* 64 KiB, delivered at 48 KiB; lossless: no record is ever dropped. */
    cltap_buffer_status_t s = cltap_create_buffer(64 << 10, 48 << 10, CLTAP_BUFFER_POLICY_LOSSLESS,
                                                  on_records, NULL, &buffer);
    if (s == CLTAP_BUFFER_SUCCESS) s = cltap_configure_buffer(buffer, CLTAP_RECORDS_API);
    if (s != CLTAP_BUFFER_SUCCESS)
        fprintf(stderr, "buffer_example: %s\n", cltap_buffer_status_string(s));
}

/* cltap calls this at the end, once every record has been delivered. */
void OnUnloadTool(void) {
    int top = 0;
    for (int k = 1; k < MAX_NAMES && seen[k].name; k++)
        if (seen[k].calls > seen[top].calls) top = k;
    fprintf(stderr, "buffer_example: %lu calls, %lu failed, %lu dropped; most frequent: %s (%lu)\n",
            records, failed, dropped, seen[top].name ? seen[top].name : "none", seen[top].calls);
}
