/* rocprofiler.h: cltap's declaration of the rocprofiler v1 library API
 * that libcltap_layer.so exports.
 *
 * It follows the public header of ROCm/rocprofiler, inc/rocprofiler.h at
 * tag rocm-5.2.3 (identical from rocm-5.0.0 to rocm-5.4.x): version 8.0.
 * Every type below has that header's layout, so a tool built against the
 * real header works with cltap and one built against this works with
 * rocprofiler. tests/rocprofiler_v1.rs compiles this file with gcc and
 * compares the size and offsets of each structure with cltap's Rust copy
 * (src/tools/rocprofiler/abi.rs), which also asserts the x86-64 offsets
 * worked out from the real header.
 *
 * Left out, because cltap does not export them: the context pool
 * (rocprofiler_pool_*), the HSA API callbacks (rocprofiler_set_hsa_callbacks),
 * feature sets (rocprofiler_add_feature, rocprofiler_features_set_open),
 * rocprofiler_get_time and rocprofiler_queue_create_profiled.
 * Added: rocprofiler_errno (from rocprofiler's library API documentation; not in ROCm's header).
 * docs/rocprofiler-v1.md says what each function does with cltap and which
 * ones return an error because they need a real GPU.
 *
 * Build a tool with: -I<cltap>/include/rocprofiler -I/usr/include/hsa */
#ifndef CLTAP_ROCPROFILER_V1_H
#define CLTAP_ROCPROFILER_V1_H

#include <stdbool.h>
#include <stdint.h>

#include <amd_hsa_kernel_code.h>
#include <hsa.h>
#include <hsa_ext_amd.h>
#include <hsa_ven_amd_aqlprofile.h>

/* rocprofiler_settings_t and the OnLoadToolProp / OnLoadTool / OnUnloadTool
 * entry points of a ROCP_TOOL_LIB tool. */
#include "../rocprofiler_settings.h"

#define ROCPROFILER_VERSION_MAJOR 8
#define ROCPROFILER_VERSION_MINOR 0

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version and errors ------------------------------------------------ */

uint32_t rocprofiler_version_major(void);
uint32_t rocprofiler_version_minor(void);

/* The calling thread's last failure as text ("" if none); valid until the
 * thread's next failed call. */
hsa_status_t rocprofiler_error_string(const char** str);

/* cltap (rocprofiler's library API documentation): the status the calling thread's last failed call
 * returned, HSA_STATUS_SUCCESS if none. */
hsa_status_t rocprofiler_errno(void);

/* ---- Features and data ------------------------------------------------- */

typedef enum {
  ROCPROFILER_FEATURE_KIND_METRIC = 0,
  ROCPROFILER_FEATURE_KIND_TRACE = 1,
  ROCPROFILER_FEATURE_KIND_SPM_MOD = 2,
  ROCPROFILER_FEATURE_KIND_PCSMP_MOD = 4
} rocprofiler_feature_kind_t;

typedef hsa_ven_amd_aqlprofile_parameter_t rocprofiler_parameter_t;

typedef enum {
  ROCPROFILER_DATA_KIND_UNINIT = 0,
  ROCPROFILER_DATA_KIND_INT32 = 1,
  ROCPROFILER_DATA_KIND_INT64 = 2,
  ROCPROFILER_DATA_KIND_FLOAT = 3,
  ROCPROFILER_DATA_KIND_DOUBLE = 4,
  ROCPROFILER_DATA_KIND_BYTES = 5
} rocprofiler_data_kind_t;

/* A feature's result: cltap writes INT64 for a hardware counter (the sum
 * of its samples and block instances), DOUBLE for a derived metric. */
typedef struct {
  rocprofiler_data_kind_t kind;
  union {
    uint32_t result_int32;
    uint64_t result_int64;
    float result_float;
    double result_double;
    struct {
      void* ptr;
      uint32_t size;
      uint32_t instance_count;
      bool copy;
    } result_bytes; /* trace output: never filled by cltap */
  };
} rocprofiler_data_t;

/* One requested feature; the array is the tool's and must outlive the
 * context, which writes each feature's `data`. */
typedef struct {
  rocprofiler_feature_kind_t kind;
  union {
    const char* name; /* a metric of the catalog, NAME[i] or BLOCK:EVENT */
    struct {
      const char* block;
      uint32_t event;
    } counter;
  };
  const rocprofiler_parameter_t* parameters;
  uint32_t parameter_count;
  rocprofiler_data_t data;
} rocprofiler_feature_t;

/* ---- Contexts and groups ----------------------------------------------- */

typedef void rocprofiler_t;

/* A group is one pass: the features it completes, and its context. */
typedef struct {
  unsigned index;
  rocprofiler_feature_t** features;
  uint32_t feature_count;
  rocprofiler_t* context;
} rocprofiler_group_t;

typedef enum {
  ROCPROFILER_MODE_STANDALONE = 1,  /* refused by cltap: needs a real GPU */
  ROCPROFILER_MODE_CREATEQUEUE = 2, /* refused by cltap: needs a real GPU */
  ROCPROFILER_MODE_SINGLEGROUP = 4
} rocprofiler_mode_t;

/* Called (on the runtime's signal thread) when a group's data is ready. */
typedef bool (*rocprofiler_handler_t)(rocprofiler_group_t group, void* arg);

typedef struct {
  hsa_queue_t* queue;
  uint32_t queue_depth;
  rocprofiler_handler_t handler;
  void* handler_arg;
} rocprofiler_properties_t;

hsa_status_t rocprofiler_open(hsa_agent_t agent, rocprofiler_feature_t* features,
                              uint32_t feature_count, rocprofiler_t** context,
                              uint32_t mode, rocprofiler_properties_t* properties);
hsa_status_t rocprofiler_close(rocprofiler_t* context);
hsa_status_t rocprofiler_reset(rocprofiler_t* context, uint32_t group_index);
hsa_status_t rocprofiler_get_agent(rocprofiler_t* context, hsa_agent_t* agent);
hsa_status_t rocprofiler_group_count(const rocprofiler_t* context, uint32_t* group_count);
hsa_status_t rocprofiler_get_group(rocprofiler_t* context, uint32_t group_index,
                                   rocprofiler_group_t* group);
hsa_status_t rocprofiler_get_metrics(const rocprofiler_t* context);

typedef hsa_ven_amd_aqlprofile_data_callback_t rocprofiler_trace_data_callback_t;
hsa_status_t rocprofiler_iterate_trace_data(rocprofiler_t* context,
                                            rocprofiler_trace_data_callback_t callback,
                                            void* data);

/* ---- Sampling ---------------------------------------------------------- */

/* Standalone sampling: HSA_STATUS_ERROR with cltap (no queue of its own on
 * a real GPU). */
hsa_status_t rocprofiler_start(rocprofiler_t* context, uint32_t group_index);
hsa_status_t rocprofiler_stop(rocprofiler_t* context, uint32_t group_index);
hsa_status_t rocprofiler_read(rocprofiler_t* context, uint32_t group_index);
/* Waits for a group returned from a dispatch callback, writes its data. */
hsa_status_t rocprofiler_get_data(rocprofiler_t* context, uint32_t group_index);

hsa_status_t rocprofiler_group_start(rocprofiler_group_t* group);
hsa_status_t rocprofiler_group_stop(rocprofiler_group_t* group);
hsa_status_t rocprofiler_group_read(rocprofiler_group_t* group);
hsa_status_t rocprofiler_group_get_data(rocprofiler_group_t* group);

/* ---- Queue callbacks --------------------------------------------------- */

typedef struct {
  uint64_t dispatch; /* ns, at submission */
  uint64_t begin;    /* ns; 0 with cltap (see docs/rocprofiler-v1.md) */
  uint64_t end;      /* ns; 0 with cltap */
  uint64_t complete; /* ns, when the values were read */
} rocprofiler_dispatch_record_t;

typedef struct {
  hsa_agent_t agent;
  uint32_t agent_index;
  const hsa_queue_t* queue;
  uint64_t queue_index;
  uint32_t queue_id;
  hsa_signal_t completion_signal;
  const hsa_kernel_dispatch_packet_t* packet;
  const char* kernel_name; /* valid during the callback */
  uint64_t kernel_object;
  const amd_kernel_code_t* kernel_code; /* the kernel object's host address (its kernel descriptor) */
  uint32_t thread_id;
  const rocprofiler_dispatch_record_t* record; /* with ROCP_HSA_INTERCEPT=2; the tool's to free() */
} rocprofiler_callback_data_t;

typedef hsa_status_t (*rocprofiler_callback_t)(const rocprofiler_callback_data_t* callback_data,
                                               void* user_data, rocprofiler_group_t* group);

typedef struct {
  rocprofiler_callback_t dispatch;
  hsa_status_t (*create)(hsa_queue_t* queue, void* data);  /* each intercept queue made */
  hsa_status_t (*destroy)(hsa_queue_t* queue, void* data); /* each intercept queue destroyed */
} rocprofiler_queue_callbacks_t;

hsa_status_t rocprofiler_set_queue_callbacks(rocprofiler_queue_callbacks_t callbacks, void* data);
hsa_status_t rocprofiler_remove_queue_callbacks(void);
hsa_status_t rocprofiler_start_queue_callbacks(void);
hsa_status_t rocprofiler_stop_queue_callbacks(void);

/* ---- Info --------------------------------------------------------------- */

typedef enum {
  ROCPROFILER_INFO_KIND_METRIC = 0,
  ROCPROFILER_INFO_KIND_METRIC_COUNT = 1,
  ROCPROFILER_INFO_KIND_TRACE = 2,
  ROCPROFILER_INFO_KIND_TRACE_COUNT = 3,
  ROCPROFILER_INFO_KIND_TRACE_PARAMETER = 4,
  ROCPROFILER_INFO_KIND_TRACE_PARAMETER_COUNT = 5
} rocprofiler_info_kind_t;

typedef union {
  rocprofiler_info_kind_t info_kind;
  struct {
    const char* trace_name;
  } trace_parameter;
} rocprofiler_info_query_t;

typedef struct {
  uint32_t agent_index;
  rocprofiler_info_kind_t kind;
  union {
    struct {
      const char* name;
      uint32_t instances;      /* block instances; 1 for a derived metric */
      const char* expr;        /* NULL for a hardware counter */
      const char* description;
      const char* block_name;  /* NULL for a derived metric */
      uint32_t block_counters; /* counter slots of the block */
    } metric;
    struct {
      const char* name;
      const char* description;
      uint32_t parameter_count;
    } trace;
    struct {
      uint32_t code;
      const char* trace_name;
      const char* parameter_name;
      const char* description;
    } trace_parameter;
  };
} rocprofiler_info_data_t;

/* METRIC_COUNT and TRACE_COUNT (0) write a uint32_t; other kinds are
 * HSA_STATUS_ERROR, as in rocprofiler 5.2.3. */
hsa_status_t rocprofiler_get_info(const hsa_agent_t* agent, rocprofiler_info_kind_t kind, void* data);
hsa_status_t rocprofiler_iterate_info(const hsa_agent_t* agent, rocprofiler_info_kind_t kind,
                                      hsa_status_t (*callback)(const rocprofiler_info_data_t info, void* data),
                                      void* data);
hsa_status_t rocprofiler_query_info(const hsa_agent_t* agent, rocprofiler_info_query_t query,
                                    hsa_status_t (*callback)(const rocprofiler_info_data_t info, void* data),
                                    void* data);

/* ---- Feature sets, time, profiled queues -------------------------------- */

typedef void rocprofiler_feature_set_t;

/* Declared by rocprofiler 5.2.3's header, defined nowhere in 5.2.3: cltap
 * exports them returning HSA_STATUS_ERROR. */
hsa_status_t rocprofiler_add_feature(const rocprofiler_feature_t* feature, rocprofiler_feature_set_t* features_set);
hsa_status_t rocprofiler_features_set_open(hsa_agent_t agent, rocprofiler_feature_set_t* features_set,
                                           rocprofiler_t** context, uint32_t mode,
                                           rocprofiler_properties_t* properties);

typedef enum {
  ROCPROFILER_TIME_ID_CLOCK_REALTIME = 0,
  ROCPROFILER_TIME_ID_CLOCK_REALTIME_COARSE = 1,
  ROCPROFILER_TIME_ID_CLOCK_MONOTONIC = 2,
  ROCPROFILER_TIME_ID_CLOCK_MONOTONIC_COARSE = 3,
  ROCPROFILER_TIME_ID_CLOCK_MONOTONIC_RAW = 4,
} rocprofiler_time_id_t;

hsa_status_t rocprofiler_get_time(rocprofiler_time_id_t time_id, uint64_t timestamp, uint64_t* value_ns,
                                  uint64_t* error_ns);

hsa_status_t rocprofiler_queue_create_profiled(hsa_agent_t agent_handle, uint32_t size, hsa_queue_type32_t type,
                                               void (*callback)(hsa_status_t status, hsa_queue_t* source,
                                                                void* data),
                                               void* data, uint32_t private_segment_size,
                                               uint32_t group_segment_size, hsa_queue_t** queue);

/* ---- Context pool ------------------------------------------------------- */

typedef void rocprofiler_pool_t;

typedef struct {
  rocprofiler_t* context;
  void* payload;
} rocprofiler_pool_entry_t;

typedef bool (*rocprofiler_pool_handler_t)(const rocprofiler_pool_entry_t* entry, void* arg);

typedef struct {
  uint32_t num_entries;
  uint32_t payload_bytes;
  rocprofiler_pool_handler_t handler;
  void* handler_arg;
} rocprofiler_pool_properties_t;

hsa_status_t rocprofiler_pool_open(hsa_agent_t agent, rocprofiler_feature_t* features, uint32_t feature_count,
                                   rocprofiler_pool_t** pool, uint32_t mode,
                                   rocprofiler_pool_properties_t* properties);
hsa_status_t rocprofiler_pool_close(rocprofiler_pool_t* pool);
hsa_status_t rocprofiler_pool_fetch(rocprofiler_pool_t* pool, rocprofiler_pool_entry_t* entry);
hsa_status_t rocprofiler_pool_flush(rocprofiler_pool_t* pool);
/* Declared by 5.2.3, defined nowhere in 5.2.3: HSA_STATUS_ERROR. */
hsa_status_t rocprofiler_pool_release(rocprofiler_pool_entry_t* entry);
hsa_status_t rocprofiler_pool_iterate(rocprofiler_pool_t* pool,
                                      hsa_status_t (*callback)(rocprofiler_pool_entry_t* entry, void* data),
                                      void* data);

/* ---- HSA callbacks ------------------------------------------------------ */

typedef enum {
  ROCPROFILER_HSA_CB_ID_ALLOCATE = 0,
  ROCPROFILER_HSA_CB_ID_DEVICE = 1,
  ROCPROFILER_HSA_CB_ID_MEMCOPY = 2,
  ROCPROFILER_HSA_CB_ID_SUBMIT = 3,
  ROCPROFILER_HSA_CB_ID_KSYMBOL = 4,
  ROCPROFILER_HSA_CB_ID_CODEOBJ = 5
} rocprofiler_hsa_cb_id_t;

typedef struct {
  union {
    struct {
      const void* ptr;
      size_t size; /* 0: freed */
      hsa_amd_segment_t segment;
      hsa_amd_memory_pool_global_flag_t global_flag;
      int is_code;
    } allocate;
    struct {
      hsa_device_type_t type;
      uint32_t id;
      hsa_agent_t agent;
      const void* ptr;
    } device;
    struct {
      const void* dst;
      const void* src;
      size_t size;
    } memcopy;
    struct {
      const void* packet;
      const char* kernel_name; /* not NULL for a kernel dispatch */
      hsa_queue_t* queue;
      uint32_t device_type;
      uint32_t device_id;
    } submit;
    struct {
      uint64_t object;
      const char* name;
      uint32_t name_length;
      int unload;
    } ksymbol;
    struct {
      uint32_t storage_type;
      int storage_file;
      uint64_t memory_base;
      uint64_t memory_size;
      uint64_t load_base;
      uint64_t load_size;
      uint64_t load_delta;
      uint32_t uri_length;
      char* uri;
      int unload;
    } codeobj;
  };
} rocprofiler_hsa_callback_data_t;

typedef hsa_status_t (*rocprofiler_hsa_callback_fun_t)(rocprofiler_hsa_cb_id_t id,
                                                       const rocprofiler_hsa_callback_data_t* data, void* arg);

/* Called as rocprofiler 5.2.3 calls them (docs/rocprofiler-v1.md). */
typedef struct {
  rocprofiler_hsa_callback_fun_t allocate;
  rocprofiler_hsa_callback_fun_t device;
  rocprofiler_hsa_callback_fun_t memcopy;
  rocprofiler_hsa_callback_fun_t submit;
  rocprofiler_hsa_callback_fun_t ksymbol;
  rocprofiler_hsa_callback_fun_t codeobj;
} rocprofiler_hsa_callbacks_t;

hsa_status_t rocprofiler_set_hsa_callbacks(const rocprofiler_hsa_callbacks_t callbacks, void* arg);

#ifdef __cplusplus
}
#endif

#endif /* CLTAP_ROCPROFILER_V1_H */
