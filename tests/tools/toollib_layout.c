/* Prints the layout gcc gives cltap's C copy of rocprofiler_settings_t
 * (include/rocprofiler_settings.h), one "name offset" line per field and
 * "sizeof N", for tests/tool_lib.rs to compare with the Rust copy. */
#include "../../include/rocprofiler_settings.h"
#include <stddef.h>
#include <stdio.h>

#define FIELD(f) printf(#f " %zu\n", offsetof(rocprofiler_settings_t, f))

int main(void) {
    FIELD(intercept_mode);
    FIELD(code_obj_tracking);
    FIELD(memcopy_tracking);
    FIELD(trace_size);
    FIELD(trace_local);
    FIELD(timeout);
    FIELD(timestamp_on);
    FIELD(hsa_intercepting);
    FIELD(k_concurrent);
    FIELD(opt_mode);
    FIELD(obj_dumping);
    printf("sizeof %zu\n", sizeof(rocprofiler_settings_t));
    return 0;
}
