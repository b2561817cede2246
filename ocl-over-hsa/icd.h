/* cltap OpenCL-over-HSA test double -- internal declarations.
 *
 * This is a TEST DOUBLE, not AMD's OpenCL runtime: a small OpenCL ICD that
 * runs on Debian's real ROCr (on the emulated gfx906 of gpu-emu/ where there is
 * no AMD GPU) the way ROCclr runs on ROCr. Each command queue owns an HSA queue and a worker thread that
 * writes the AQL packets; programs are compiled by clang-15 into gfx906 code
 * objects and loaded through the HSA executable API. Every HSA call goes
 * through the exported hsa_* functions, so an HSA tool that replaced entries
 * of the API table (cltap through HSA_TOOLS_LIB) sees each one. On gpu-emu
 * these kernels have no CPU implementation: they compute nothing.
 */
#ifndef CLTAP_OCL_ICD_H
#define CLTAP_OCL_ICD_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#include <CL/cl_icd.h>

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hsa.h"
#include "hsa_ext_amd.h"

#define OCL_HIDDEN __attribute__((visibility("hidden")))
#define OCL_EXPORT __attribute__((visibility("default")))

#define OCL_PLATFORM_NAME "cltap OpenCL-over-HSA test double"
#define OCL_VENDOR "cltap test double"
#define OCL_ICD_SUFFIX "HSADBL"

/* ---- the dispatch table (icd_table.c) ----
 * Every slot of struct _cl_icd_dispatch has a function ocl_<name> with the
 * header's exact signature. icd_table.c defines a weak stub for each (it
 * answers CL_INVALID_OPERATION, or NULL with CL_INVALID_OPERATION in
 * errcode_ret); the files below define the implemented ones, which the
 * linker prefers. */
#define OCL_SLOT(index, ret, name, params, kind, err) ret CL_API_CALL ocl_##name params OCL_HIDDEN;
#define OCL_SLOT_OPAQUE(index, name)
#include "icd_slots.h"
#undef OCL_SLOT
#undef OCL_SLOT_OPAQUE
extern const struct _cl_icd_dispatch ocl_dispatch OCL_HIDDEN;

/* ---- objects ----
 * Every object starts with the dispatch pointer, as the ICD loaders require.
 * `magic` tells the kind (a stale or foreign handle fails validation) and
 * `refs` counts the application's and the runtime's references. */
typedef struct ocl_header {
  const struct _cl_icd_dispatch* dispatch;
  uint32_t magic;
  int32_t refs;
} ocl_header;

enum {
  OCL_MAGIC_PLATFORM = 0x4f504c54, /* "OPLT" */
  OCL_MAGIC_DEVICE = 0x4f444556,
  OCL_MAGIC_CONTEXT = 0x4f435458,
  OCL_MAGIC_QUEUE = 0x4f515545,
  OCL_MAGIC_MEM = 0x4f4d454d,
  OCL_MAGIC_PROGRAM = 0x4f50524f,
  OCL_MAGIC_KERNEL = 0x4f4b524e,
  OCL_MAGIC_EVENT = 0x4f45564e,
};

void ocl_header_init(ocl_header* h, uint32_t magic) OCL_HIDDEN;
/* True when `obj` is a live object of that kind. */
bool ocl_valid(const void* obj, uint32_t magic) OCL_HIDDEN;
void ocl_retain(ocl_header* h) OCL_HIDDEN;
/* Drops one reference; true when it was the last. */
bool ocl_unref(ocl_header* h) OCL_HIDDEN;
cl_uint ocl_refcount(const ocl_header* h) OCL_HIDDEN;

struct _cl_platform_id {
  ocl_header hdr;
};

/* What clGetDeviceInfo answers, read from the GPU agent once. */
typedef struct ocl_device_props {
  char name[64];
  char isa[64];
  uint32_t compute_units;
  uint32_t max_clock_mhz;
  uint32_t wavefront;
  uint32_t max_workgroup;
  uint64_t global_mem;
  uint64_t local_mem;
  uint32_t l2_cache;
  uint32_t cacheline;
  hsa_profile_t profile;
} ocl_device_props;

struct _cl_device_id {
  ocl_header hdr;
  ocl_device_props props;
};

extern struct _cl_platform_id ocl_the_platform OCL_HIDDEN;
extern struct _cl_device_id ocl_the_device OCL_HIDDEN;

/* ---- the HSA side (runtime.c) ---- */
typedef struct ocl_hsa {
  hsa_agent_t gpu;
  hsa_agent_t cpu;
  hsa_amd_memory_pool_t kernarg_pool; /* system pool with KERNARG_INIT, as ROCclr */
  hsa_amd_memory_pool_t device_pool;  /* the GPU's coarse-grained global pool */
  hsa_amd_memory_pool_t host_pool;    /* fine-grained system memory (ALLOC_HOST_PTR) */
  uint64_t timestamp_hz;
} ocl_hsa;
extern ocl_hsa ocl_rt OCL_HIDDEN;

/* Opens HSA (hsa_init) if it is not open and finds the GPU agent: at the
 * first clGetPlatformIDs. CL_SUCCESS, or CL_DEVICE_NOT_FOUND without a
 * GPU. HSA then stays open until the process exits (runtime.c). */
cl_int ocl_runtime_open(void) OCL_HIDDEN;
/* A queue exists / is gone: at exit the queues an application leaked are
 * torn down before HSA is shut down. */
void ocl_runtime_queue_link(cl_command_queue q) OCL_HIDDEN;
void ocl_runtime_queue_unlink(cl_command_queue q) OCL_HIDDEN;
/* AQL dispatches submitted by this ICD (test hook). */
void ocl_runtime_count_dispatch(void) OCL_HIDDEN;
uint64_t ocl_runtime_dispatches(void) OCL_HIDDEN;
/* Host time in ns, CLOCK_MONOTONIC, as ROCclr's Os::timeNanos (ROCr's
 * timestamps count CLOCK_BOOTTIME on gpu-emu, as KFD's: never earlier). */
uint64_t ocl_now_ns(void) OCL_HIDDEN;
/* HSA system-clock ticks (what the dispatch and copy profiling calls
 * return) to ns, by HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY. */
uint64_t ocl_system_ticks_to_ns(uint64_t ticks) OCL_HIDDEN;
void ocl_log(const char* fmt, ...) OCL_HIDDEN __attribute__((format(printf, 1, 2)));

/* ---- info answers (info.c) ----
 * The clGet*Info contract: copy `src` when `value` is given and large
 * enough (CL_INVALID_VALUE when too small), report the size when asked. */
cl_int ocl_info(size_t size, void* value, size_t* size_ret, const void* src, size_t src_size) OCL_HIDDEN;
cl_int ocl_info_str(size_t size, void* value, size_t* size_ret, const char* s) OCL_HIDDEN;
cl_int ocl_info_uint(size_t size, void* value, size_t* size_ret, cl_uint v) OCL_HIDDEN;
cl_int ocl_info_ulong(size_t size, void* value, size_t* size_ret, cl_ulong v) OCL_HIDDEN;
cl_int ocl_info_size(size_t size, void* value, size_t* size_ret, size_t v) OCL_HIDDEN;
cl_int ocl_info_ptr(size_t size, void* value, size_t* size_ret, const void* v) OCL_HIDDEN;
cl_int ocl_info_bool(size_t size, void* value, size_t* size_ret, bool v) OCL_HIDDEN;
static inline void ocl_set_err(cl_int* errcode_ret, cl_int e) {
  if (errcode_ret) *errcode_ret = e;
}

/* ---- contexts (context.c) ---- */
struct _cl_context {
  ocl_header hdr;
  cl_context_properties props[3]; /* CL_CONTEXT_PLATFORM, platform, 0 */
  size_t props_size;              /* bytes the application passed, 0 for none */
};
void ocl_context_retain(cl_context c) OCL_HIDDEN;
void ocl_context_release(cl_context c) OCL_HIDDEN;

/* ---- buffers (buffer.c) ---- */
struct _cl_mem {
  ocl_header hdr;
  cl_context context;
  cl_mem_flags flags;
  size_t size;
  void* host_ptr; /* CL_MEM_USE_HOST_PTR's pointer */
  void* address;  /* what a kernel sees: pool memory, or the locked host pointer */
  bool locked;    /* address came from hsa_amd_memory_lock */
};
void ocl_mem_retain(cl_mem m) OCL_HIDDEN;
void ocl_mem_release(cl_mem m) OCL_HIDDEN;

/* ---- code object metadata (codeobj.c) ---- */
typedef enum {
  OCL_ARG_BY_VALUE,
  OCL_ARG_GLOBAL_BUFFER,
  OCL_ARG_DYNAMIC_LDS,
  OCL_ARG_UNSUPPORTED, /* images, samplers, pipes, queues */
  OCL_ARG_HIDDEN_GLOBAL_OFFSET_X,
  OCL_ARG_HIDDEN_GLOBAL_OFFSET_Y,
  OCL_ARG_HIDDEN_GLOBAL_OFFSET_Z,
  OCL_ARG_HIDDEN_BLOCK_COUNT_X,
  OCL_ARG_HIDDEN_BLOCK_COUNT_Y,
  OCL_ARG_HIDDEN_BLOCK_COUNT_Z,
  OCL_ARG_HIDDEN_GROUP_SIZE_X,
  OCL_ARG_HIDDEN_GROUP_SIZE_Y,
  OCL_ARG_HIDDEN_GROUP_SIZE_Z,
  OCL_ARG_HIDDEN_REMAINDER_X,
  OCL_ARG_HIDDEN_REMAINDER_Y,
  OCL_ARG_HIDDEN_REMAINDER_Z,
  OCL_ARG_HIDDEN_GRID_DIMS,
  OCL_ARG_HIDDEN_OTHER, /* printf buffer, hostcall, default queue...: zero */
} ocl_arg_kind;

typedef struct ocl_arg_meta {
  char* name;
  char* type_name;
  uint32_t offset;
  uint32_t size;
  uint32_t pointee_align;
  ocl_arg_kind kind;
} ocl_arg_meta;

typedef struct ocl_kernel_meta {
  char* name;
  char* symbol; /* "NAME.kd" */
  uint32_t arg_count;      /* all arguments, hidden ones included */
  uint32_t explicit_count; /* the ones the application sets: first in the list */
  ocl_arg_meta* args;
  uint32_t reqd_workgroup[3];
  uint32_t max_flat_workgroup;
} ocl_kernel_meta;

/* Reads the NT_AMDGPU_METADATA note (msgpack) of an AMDGPU ELF code object.
 * Returns 0 and the kernels, or -1 with a reason in `why`. */
int ocl_read_code_object(const uint8_t* elf, size_t size, ocl_kernel_meta** kernels, size_t* count,
                         const char** why) OCL_HIDDEN;
void ocl_free_kernel_meta(ocl_kernel_meta* kernels, size_t count) OCL_HIDDEN;

/* ---- compiling (compile.c) ---- */
/* Compiles OpenCL C `source` for `gpu` (e.g. "gfx906") with clang-15 in a
 * private temporary folder. Returns 0 with the code object, or -1; `log`
 * (malloc'ed, always set) holds the compiler's output. */
int ocl_compile(const char* source, const char* options, const char* gpu, uint8_t** binary, size_t* binary_size,
                char** log) OCL_HIDDEN;
/* OpenCL C defining the work-item functions (prelude.c). */
extern const char ocl_prelude[] OCL_HIDDEN;

/* ---- programs (program.c) ---- */
struct _cl_program {
  ocl_header hdr;
  cl_context context;
  pthread_mutex_t lock;
  char* source;
  uint8_t* binary;
  size_t binary_size;
  char* options;
  char* log;
  cl_build_status status;
  bool loaded;
  hsa_code_object_reader_t reader;
  hsa_executable_t executable;
  ocl_kernel_meta* kernels;
  size_t kernel_count;
  uint32_t live_kernels; /* clBuildProgram refuses while kernels exist */
};
void ocl_program_retain(cl_program p) OCL_HIDDEN;
void ocl_program_release(cl_program p) OCL_HIDDEN;

/* ---- kernels (kernel.c) ---- */
typedef struct ocl_arg_value {
  bool set;
  cl_mem mem;       /* OCL_ARG_GLOBAL_BUFFER: the buffer, or NULL */
  size_t lds_bytes; /* OCL_ARG_DYNAMIC_LDS */
} ocl_arg_value;

struct _cl_kernel {
  ocl_header hdr;
  cl_program program;
  const ocl_kernel_meta* meta;
  uint64_t kernel_object;
  uint32_t kernarg_size;
  uint32_t kernarg_align;
  uint32_t group_size;   /* static LDS */
  uint32_t private_size; /* scratch per work-item */
  uint8_t* kernarg;      /* the explicit arguments as set so far */
  ocl_arg_value* values;
};
void ocl_kernel_retain(cl_kernel k) OCL_HIDDEN;
void ocl_kernel_release(cl_kernel k) OCL_HIDDEN;
uint32_t ocl_kernel_max_workgroup(cl_kernel k) OCL_HIDDEN;
/* The group segment (LDS) a dispatch needs with the arguments set now: the
 * kernel's static LDS, then each __local argument, 16-byte aligned. With
 * `kernarg`, writes each __local argument's LDS offset there. */
uint64_t ocl_kernel_group_size(cl_kernel k, uint8_t* kernarg) OCL_HIDDEN;

/* ---- events (event.c) ---- */
struct _cl_event {
  ocl_header hdr;
  cl_context context;
  cl_command_queue queue;
  cl_command_type type;
  cl_int status; /* guarded by ocl_event_lock */
  bool profiled;
  cl_ulong queued, submit, start, end;
  /* clSetEventCallback: guarded by ocl_event_lock. */
  struct ocl_event_callback* callbacks;
};
/* A new event (one reference, the caller's) for a command of `q`. */
cl_event ocl_event_new(cl_command_queue q, cl_command_type type) OCL_HIDDEN;
void ocl_event_retain(cl_event e) OCL_HIDDEN;
void ocl_event_release(cl_event e) OCL_HIDDEN;
void ocl_event_set_status(cl_event e, cl_int status) OCL_HIDDEN;
cl_int ocl_event_status(cl_event e) OCL_HIDDEN;
/* Waits until `e` completed or failed; returns its final status. */
cl_int ocl_event_wait(cl_event e) OCL_HIDDEN;

/* ---- commands and queues (command.h, queue.c, aql.c) ---- */
typedef struct ocl_command ocl_command;

struct _cl_command_queue {
  ocl_header hdr;
  cl_context context;
  cl_command_queue_properties properties;
  cl_queue_properties props_array[5];
  size_t props_array_size;
  hsa_queue_t* hsa_queue;
  /* The struct itself lives while the application holds the queue or an
   * event of it still points at it (see queue.c). */
  int32_t memory_refs;
  pthread_t worker;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  ocl_command* head;
  ocl_command* tail;
  uint64_t enqueued;
  uint64_t completed;
  bool stop;
  cl_command_queue next_live; /* runtime.c's list of live queues */
};
void ocl_queue_hold_memory(cl_command_queue q) OCL_HIDDEN;
void ocl_queue_drop_memory(cl_command_queue q) OCL_HIDDEN;
/* Stops the worker after the queued commands and destroys the HSA queue
 * (the last application reference, or the library destructor). */
void ocl_queue_teardown(cl_command_queue q) OCL_HIDDEN;

#endif
