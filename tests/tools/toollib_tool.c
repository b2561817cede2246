/* A ROCP_TOOL_LIB tool for tests/tool_lib.rs, built in variants:
 *   -DTOOL_NAME='"a"'  its name in what it writes
 *   -DWITH_PROP        exports OnLoadToolProp (else only OnLoadTool)
 * Every variant exports OnUnloadTool.
 *
 * It appends one line per event to $TOOLLIB_OUT:
 *   load NAME prop intercept_mode=.. code_obj_tracking=.. memcopy_tracking=..
 *        trace_size=.. trace_local=.. timeout=.. timestamp_on=..
 *        hsa_intercepting=.. k_concurrent=.. opt_mode=.. obj_dumping=..
 *   load NAME plain
 *   unload NAME trace_finished=F log_trailer=T log_calls=N
 * where, at OnUnloadTool, F is the FINISHED bit of the binary trace's
 * header and T whether the API log already ends with its "# end:" trailer
 * (both files found in $CLTAP_OUTPUT_DIR), N the API log's call lines.
 * cltap must call OnUnloadTool before it finishes either file: F=0, T=0.
 *
 * With TOOLLIB_INTERCEPT=1, OnLoadToolProp asks for HSA dispatch
 * interception with timestamps (intercept_mode=1, timestamp_on=1). */
#include "../../include/rocprofiler_settings.h"
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef TOOL_NAME
#define TOOL_NAME "tool"
#endif

static void say(const char *line) {
    const char *out = getenv("TOOLLIB_OUT");
    if (!out) return;
    int fd = open(out, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) return;
    /* One write per line: several tools append to the same file. */
    if (write(fd, line, strlen(line)) < 0) {
    }
    close(fd);
}

#ifdef WITH_PROP
void OnLoadToolProp(rocprofiler_settings_t *s) {
    char line[512];
    snprintf(line, sizeof line,
             "load %s prop intercept_mode=%u code_obj_tracking=%u memcopy_tracking=%u trace_size=%u "
             "trace_local=%u timeout=%llu timestamp_on=%u hsa_intercepting=%u k_concurrent=%u "
             "opt_mode=%u obj_dumping=%u\n",
             TOOL_NAME, s->intercept_mode, s->code_obj_tracking, s->memcopy_tracking, s->trace_size,
             s->trace_local, (unsigned long long)s->timeout, s->timestamp_on, s->hsa_intercepting,
             s->k_concurrent, s->opt_mode, s->obj_dumping);
    say(line);
    const char *ask = getenv("TOOLLIB_INTERCEPT");
    if (ask && !strcmp(ask, "1")) {
        s->intercept_mode = 1;
        s->timestamp_on = 1;
    }
}
#else
void OnLoadTool(void) { say("load " TOOL_NAME " plain\n"); }
#endif

/* The one file of $CLTAP_OUTPUT_DIR whose name ends with `suffix`. */
static int find(const char *suffix, char *path, size_t cap) {
    const char *dir = getenv("CLTAP_OUTPUT_DIR");
    DIR *d = opendir(dir ? dir : ".");
    if (!d) return 0;
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name), k = strlen(suffix);
        if (n > k && !strcmp(e->d_name + n - k, suffix)) {
            snprintf(path, cap, "%s/%s", dir ? dir : ".", e->d_name);
            found++;
        }
    }
    closedir(d);
    return found == 1;
}

void OnUnloadTool(void) {
    char path[4096], line[512];
    int finished = -1, trailer = -1;
    long calls = -1;
    if (find(".cltrace", path, sizeof path)) {
        FILE *f = fopen(path, "rb");
        unsigned char h[32];
        if (f && fread(h, 1, sizeof h, f) == sizeof h) {
            unsigned flags = h[28] | h[29] << 8 | h[30] << 16 | (unsigned)h[31] << 24;
            finished = (int)(flags & 1);
        }
        if (f) fclose(f);
    }
    if (find(".apilog", path, sizeof path)) {
        FILE *f = fopen(path, "r");
        if (f) {
            static char buf[1 << 16];
            trailer = 0;
            calls = 0;
            while (fgets(buf, sizeof buf, f)) {
                if (!strncmp(buf, "# end:", 6)) trailer = 1;
                if (!strncmp(buf, "TID ", 4)) calls++;
            }
            fclose(f);
        }
    }
    snprintf(line, sizeof line, "unload %s trace_finished=%d log_trailer=%d log_calls=%ld\n", TOOL_NAME,
             finished, trailer, calls);
    say(line);
}
