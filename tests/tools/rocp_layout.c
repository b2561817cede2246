/* The layout of include/rocprofiler/rocprofiler.h as gcc sees it: one line
 * "name value" per structure size and field offset, named as
 * src/tools/rocprofiler/abi.rs's layout() names them. tests/rocprofiler_v1.rs
 * compares the two. */
#include <stddef.h>
#include <stdio.h>

#include "rocprofiler.h"

#define SIZE(t) printf("%s %zu\n", #t, sizeof(t))
#define OFF(t, f) printf("%s.%s %zu\n", #t, #f, offsetof(t, f))

int main(void) {
  SIZE(rocprofiler_feature_t);
  OFF(rocprofiler_feature_t, kind);
  OFF(rocprofiler_feature_t, name);
  OFF(rocprofiler_feature_t, counter.block);
  OFF(rocprofiler_feature_t, counter.event);
  OFF(rocprofiler_feature_t, parameters);
  OFF(rocprofiler_feature_t, parameter_count);
  OFF(rocprofiler_feature_t, data);

  SIZE(rocprofiler_data_t);
  OFF(rocprofiler_data_t, kind);
  OFF(rocprofiler_data_t, result_int32);
  OFF(rocprofiler_data_t, result_int64);
  OFF(rocprofiler_data_t, result_float);
  OFF(rocprofiler_data_t, result_double);
  OFF(rocprofiler_data_t, result_bytes.ptr);
  OFF(rocprofiler_data_t, result_bytes.size);
  OFF(rocprofiler_data_t, result_bytes.instance_count);
  OFF(rocprofiler_data_t, result_bytes.copy);

  SIZE(rocprofiler_group_t);
  OFF(rocprofiler_group_t, index);
  OFF(rocprofiler_group_t, features);
  OFF(rocprofiler_group_t, feature_count);
  OFF(rocprofiler_group_t, context);

  SIZE(rocprofiler_properties_t);
  OFF(rocprofiler_properties_t, queue);
  OFF(rocprofiler_properties_t, queue_depth);
  OFF(rocprofiler_properties_t, handler);
  OFF(rocprofiler_properties_t, handler_arg);

  SIZE(rocprofiler_dispatch_record_t);
  OFF(rocprofiler_dispatch_record_t, dispatch);
  OFF(rocprofiler_dispatch_record_t, begin);
  OFF(rocprofiler_dispatch_record_t, end);
  OFF(rocprofiler_dispatch_record_t, complete);

  SIZE(rocprofiler_callback_data_t);
  OFF(rocprofiler_callback_data_t, agent);
  OFF(rocprofiler_callback_data_t, agent_index);
  OFF(rocprofiler_callback_data_t, queue);
  OFF(rocprofiler_callback_data_t, queue_index);
  OFF(rocprofiler_callback_data_t, queue_id);
  OFF(rocprofiler_callback_data_t, completion_signal);
  OFF(rocprofiler_callback_data_t, packet);
  OFF(rocprofiler_callback_data_t, kernel_name);
  OFF(rocprofiler_callback_data_t, kernel_object);
  OFF(rocprofiler_callback_data_t, kernel_code);
  OFF(rocprofiler_callback_data_t, thread_id);
  OFF(rocprofiler_callback_data_t, record);

  SIZE(rocprofiler_queue_callbacks_t);
  OFF(rocprofiler_queue_callbacks_t, dispatch);
  OFF(rocprofiler_queue_callbacks_t, create);
  OFF(rocprofiler_queue_callbacks_t, destroy);

  SIZE(rocprofiler_info_data_t);
  OFF(rocprofiler_info_data_t, agent_index);
  OFF(rocprofiler_info_data_t, kind);
  OFF(rocprofiler_info_data_t, metric.name);
  OFF(rocprofiler_info_data_t, metric.instances);
  OFF(rocprofiler_info_data_t, metric.expr);
  OFF(rocprofiler_info_data_t, metric.description);
  OFF(rocprofiler_info_data_t, metric.block_name);
  OFF(rocprofiler_info_data_t, metric.block_counters);
  OFF(rocprofiler_info_data_t, trace.name);
  OFF(rocprofiler_info_data_t, trace.description);
  OFF(rocprofiler_info_data_t, trace.parameter_count);
  OFF(rocprofiler_info_data_t, trace_parameter.code);
  OFF(rocprofiler_info_data_t, trace_parameter.trace_name);
  OFF(rocprofiler_info_data_t, trace_parameter.parameter_name);
  OFF(rocprofiler_info_data_t, trace_parameter.description);

  SIZE(rocprofiler_info_query_t);
  OFF(rocprofiler_info_query_t, info_kind);
  OFF(rocprofiler_info_query_t, trace_parameter.trace_name);

  SIZE(rocprofiler_settings_t);
  OFF(rocprofiler_settings_t, intercept_mode);
  OFF(rocprofiler_settings_t, code_obj_tracking);
  OFF(rocprofiler_settings_t, memcopy_tracking);
  OFF(rocprofiler_settings_t, trace_size);
  OFF(rocprofiler_settings_t, trace_local);
  OFF(rocprofiler_settings_t, timeout);
  OFF(rocprofiler_settings_t, timestamp_on);
  OFF(rocprofiler_settings_t, hsa_intercepting);
  OFF(rocprofiler_settings_t, k_concurrent);
  OFF(rocprofiler_settings_t, opt_mode);
  OFF(rocprofiler_settings_t, obj_dumping);
  SIZE(rocprofiler_pool_entry_t);
  OFF(rocprofiler_pool_entry_t, context);
  OFF(rocprofiler_pool_entry_t, payload);
  SIZE(rocprofiler_pool_properties_t);
  OFF(rocprofiler_pool_properties_t, num_entries);
  OFF(rocprofiler_pool_properties_t, payload_bytes);
  OFF(rocprofiler_pool_properties_t, handler);
  OFF(rocprofiler_pool_properties_t, handler_arg);
  SIZE(rocprofiler_hsa_callback_data_t);
  OFF(rocprofiler_hsa_callback_data_t, allocate.size);
  OFF(rocprofiler_hsa_callback_data_t, allocate.is_code);
  OFF(rocprofiler_hsa_callback_data_t, device.ptr);
  OFF(rocprofiler_hsa_callback_data_t, memcopy.size);
  OFF(rocprofiler_hsa_callback_data_t, submit.queue);
  OFF(rocprofiler_hsa_callback_data_t, submit.device_id);
  OFF(rocprofiler_hsa_callback_data_t, ksymbol.name);
  OFF(rocprofiler_hsa_callback_data_t, ksymbol.unload);
  OFF(rocprofiler_hsa_callback_data_t, codeobj.uri);
  OFF(rocprofiler_hsa_callback_data_t, codeobj.unload);
  SIZE(rocprofiler_hsa_callbacks_t);
  OFF(rocprofiler_hsa_callbacks_t, submit);
  OFF(rocprofiler_hsa_callbacks_t, codeobj);
  return 0;
}
