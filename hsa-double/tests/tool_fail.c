/* cltap HSA test double -- a tool library whose OnLoad refuses to load: the
 * runtime closes it and reports it to the tools loaded after it. */
#include <stdio.h>

#include "hsa_api_trace_c.h"

__attribute__((visibility("default"))) bool OnLoad(HsaApiTable* t, uint64_t runtime_version,
                                                   uint64_t failed_tool_count, const char* const* failed_tool_names) {
  (void)t;
  (void)runtime_version;
  (void)failed_tool_names;
  printf("tool_fail: OnLoad failed_tool_count=%llu: returning false\n", (unsigned long long)failed_tool_count);
  fflush(stdout);
  return false;
}

__attribute__((visibility("default"))) void OnUnload(void) {
  printf("tool_fail: FAIL OnUnload called on a tool that did not load\n");
  fflush(stdout);
}
