/* A ROCP_TOOL_LIB tool for tests/buffers.rs: one cltap buffer, set up from
 * the environment, whose batches it writes down.
 *   BUFFER_OUT       file prefix: PREFIX.records gets every record received,
 *                    as received (raw bytes, back to back); PREFIX.batches
 *                    one line per batch: "batch COUNT BYTES DROPS THREAD"
 *                    (THREAD: the delivering thread's name), then the
 *                    lines of OnUnloadTool
 *   BUFFER_SIZE, BUFFER_WATERMARK (bytes), BUFFER_POLICY (lossless, discard),
 *   BUFFER_KINDS     CLTAP_RECORDS_* mask (decimal; default API records)
 *   BUFFER_SLOW_US   microseconds each callback takes (a slow tool)
 * It exports buffer_tool_flush() for a program that flushes mid-run: it
 * returns the records received once the flush returned, or -1 on error.
 * It writes with write(2), unbuffered, and only in the process that loaded
 * it: a child of fork keeps cltap's buffers (and calls the callback) but
 * writes nothing. */
#define _GNU_SOURCE
#include "../../include/cltap_buffer.h"
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static cltap_buffer_id_t id;
static int records = -1, batches = -1;
static pid_t loader;
static long received;
static int first = 1;
static int flush_in_callback = -1;

static long env(const char *name, long dflt) {
    const char *v = getenv(name);
    return v ? strtol(v, NULL, 10) : dflt;
}

static void on_batch(cltap_buffer_id_t b, const cltap_record_header_t *const *recs, size_t count,
                     void *data, uint64_t drops) {
    (void)data;
    if (b.handle != id.handle || getpid() != loader) return;
    if (first) {
        /* Must be refused: this thread would wait for itself. */
        flush_in_callback = cltap_flush_buffer(b);
        first = 0;
    }
    size_t bytes = 0;
    for (size_t i = 0; i < count; i++) {
        if (write(records, recs[i], recs[i]->len) != (ssize_t)recs[i]->len) abort();
        bytes += recs[i]->len;
    }
    received += (long)count;
    char name[32] = "?";
    pthread_getname_np(pthread_self(), name, sizeof name);
    dprintf(batches, "batch %zu %zu %llu %s\n", count, bytes, (unsigned long long)drops, name);
    long slow = env("BUFFER_SLOW_US", 0);
    if (slow > 0) usleep((useconds_t)slow);
}

void OnLoadTool(void) {
    const char *prefix = getenv("BUFFER_OUT");
    if (!prefix) return;
    char path[4096];
    loader = getpid();
    snprintf(path, sizeof path, "%s.records", prefix);
    records = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    snprintf(path, sizeof path, "%s.batches", prefix);
    batches = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const char *pol = getenv("BUFFER_POLICY");
    cltap_buffer_policy_t policy =
        pol && !strcmp(pol, "discard") ? CLTAP_BUFFER_POLICY_DISCARD : CLTAP_BUFFER_POLICY_LOSSLESS;
    cltap_buffer_status_t s = cltap_create_buffer((size_t)env("BUFFER_SIZE", 4096),
                                                  (size_t)env("BUFFER_WATERMARK", 4096), policy,
                                                  on_batch, NULL, &id);
    dprintf(batches, "create %s %llu\n", cltap_buffer_status_string(s), (unsigned long long)id.handle);
    if (s == CLTAP_BUFFER_SUCCESS)
        s = cltap_configure_buffer(id, (uint32_t)env("BUFFER_KINDS", CLTAP_RECORDS_API));
    dprintf(batches, "configure %s\n", cltap_buffer_status_string(s));
}

long buffer_tool_flush(void) {
    cltap_buffer_status_t s = cltap_flush_buffer(id);
    return s == CLTAP_BUFFER_SUCCESS ? received : -1;
}

void OnUnloadTool(void) {
    if (batches < 0 || getpid() != loader) return;
    /* Every record was delivered before OnUnloadTool: nothing is left. */
    long before = received;
    cltap_buffer_status_t s = cltap_flush_buffer(id);
    dprintf(batches, "unload received=%ld flush=%s after_flush=%ld flush_in_callback=%d\n", before,
            cltap_buffer_status_string(s), received, flush_in_callback);
    s = cltap_destroy_buffer(id);
    dprintf(batches, "destroy %s again=%s\n", cltap_buffer_status_string(s),
            cltap_buffer_status_string(cltap_flush_buffer(id)));
    close(batches);
    close(records);
    batches = -1;
}
