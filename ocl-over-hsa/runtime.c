/* cltap OpenCL-over-HSA test double -- the HSA side: hsa_init, the GPU
 * agent and its memory pools, the device's properties, and shutting HSA
 * down again.
 *
 * HSA is opened once, lazily (the first clGetPlatformIDs: ROCclr
 * initialises at platform discovery), and stays open to the end of the
 * process, as in AMD's runtime. Shutting it down whenever the last context
 * is released would make the next context run hsa_init again, and ROCr (and
 * the HSA test double) would load the HSA_TOOLS_LIB tools again each time.
 * At exit an atexit handler, registered after hsa_init loaded the tools and
 * so run before theirs, joins the workers of queues the application leaked
 * and calls hsa_shut_down: the tools' OnUnload runs while the process is
 * still whole. The library destructor does the same if a loader unloads the
 * ICD first. */
#include "icd.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

ocl_hsa ocl_rt;

static pthread_mutex_t rt_lock = PTHREAD_MUTEX_INITIALIZER;
static bool hsa_open;
static bool props_known;
static bool exit_handler;
static cl_command_queue live_queues;
static uint64_t dispatches;

void ocl_log(const char* fmt, ...) {
  const char* v = getenv("HSADBL_OCL_VERBOSE");
  if (!v || !*v || strcmp(v, "0") == 0) return;
  /* One write per line: the emulator logs from other threads, and a line
   * written in pieces could be cut by one of its lines. */
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "[cltap OpenCL-over-HSA test double] %s\n", msg);
}

uint64_t ocl_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t ocl_system_ticks_to_ns(uint64_t ticks) {
  uint64_t hz = ocl_rt.timestamp_hz ? ocl_rt.timestamp_hz : 1000000000ull;
  return (uint64_t)((unsigned __int128)ticks * 1000000000u / hz);
}

void ocl_runtime_count_dispatch(void) { __atomic_add_fetch(&dispatches, 1, __ATOMIC_RELAXED); }
uint64_t ocl_runtime_dispatches(void) { return __atomic_load_n(&dispatches, __ATOMIC_RELAXED); }

/* ---- discovery ---- */

static hsa_status_t find_agents(hsa_agent_t agent, void* data) {
  hsa_device_type_t type;
  if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS) return HSA_STATUS_SUCCESS;
  bool* found_gpu = data;
  if (type == HSA_DEVICE_TYPE_GPU && !*found_gpu) {
    hsa_agent_feature_t features = 0;
    hsa_agent_get_info(agent, HSA_AGENT_INFO_FEATURE, &features);
    if (features & HSA_AGENT_FEATURE_KERNEL_DISPATCH) {
      ocl_rt.gpu = agent;
      *found_gpu = true;
    }
  } else if (type == HSA_DEVICE_TYPE_CPU && ocl_rt.cpu.handle == 0) {
    ocl_rt.cpu = agent;
  }
  return HSA_STATUS_SUCCESS;
}

typedef struct pool_search {
  bool gpu;
  bool kernarg, device, host, group;
  uint64_t group_size;
} pool_search;

static hsa_status_t find_pools(hsa_amd_memory_pool_t pool, void* data) {
  pool_search* s = data;
  hsa_amd_segment_t segment;
  if (hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment) != HSA_STATUS_SUCCESS)
    return HSA_STATUS_SUCCESS;
  if (segment == HSA_AMD_SEGMENT_GROUP && s->gpu && !s->group) {
    size_t size = 0;
    hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &size);
    s->group_size = size;
    s->group = true;
    return HSA_STATUS_SUCCESS;
  }
  if (segment != HSA_AMD_SEGMENT_GLOBAL) return HSA_STATUS_SUCCESS;
  bool alloc = false;
  uint32_t flags = 0;
  hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc);
  hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
  if (!alloc) return HSA_STATUS_SUCCESS;
  if (s->gpu) {
    if (!s->device && (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED)) {
      ocl_rt.device_pool = pool;
      s->device = true;
    }
  } else {
    if (!s->kernarg && (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT)) {
      ocl_rt.kernarg_pool = pool;
      s->kernarg = true;
    }
    if (!s->host && (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED)) {
      ocl_rt.host_pool = pool;
      s->host = true;
    }
  }
  return HSA_STATUS_SUCCESS;
}

static void read_device_props(pool_search* gpu_pools) {
  ocl_device_props* p = &ocl_the_device.props;
  hsa_agent_get_info(ocl_rt.gpu, HSA_AGENT_INFO_NAME, p->name);
  hsa_isa_t isa;
  if (hsa_agent_get_info(ocl_rt.gpu, HSA_AGENT_INFO_ISA, &isa) == HSA_STATUS_SUCCESS) {
    uint32_t len = 0;
    if (hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME_LENGTH, &len) == HSA_STATUS_SUCCESS && len < sizeof p->isa)
      hsa_isa_get_info_alt(isa, HSA_ISA_INFO_NAME, p->isa);
  }
  hsa_agent_get_info(ocl_rt.gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, &p->compute_units);
  hsa_agent_get_info(ocl_rt.gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY, &p->max_clock_mhz);
  hsa_agent_get_info(ocl_rt.gpu, (hsa_agent_info_t)HSA_AMD_AGENT_INFO_CACHELINE_SIZE, &p->cacheline);
  hsa_agent_get_info(ocl_rt.gpu, HSA_AGENT_INFO_WAVEFRONT_SIZE, &p->wavefront);
  hsa_agent_get_info(ocl_rt.gpu, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE, &p->max_workgroup);
  hsa_agent_get_info(ocl_rt.gpu, HSA_AGENT_INFO_PROFILE, &p->profile);
  uint32_t caches[4] = {0};
  hsa_agent_get_info(ocl_rt.gpu, HSA_AGENT_INFO_CACHE_SIZE, caches);
  p->l2_cache = caches[1];
  size_t global = 0;
  hsa_amd_memory_pool_get_info(ocl_rt.device_pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &global);
  p->global_mem = global;
  p->local_mem = gpu_pools->group ? gpu_pools->group_size : 65536;
  if (p->max_workgroup == 0 || p->max_workgroup > 1024) p->max_workgroup = 1024;
  if (p->wavefront == 0) p->wavefront = 64;
}

static cl_int open_locked(void) {
  if (hsa_open) return CL_SUCCESS;
  hsa_status_t st = hsa_init();
  if (st != HSA_STATUS_SUCCESS) {
    ocl_log("hsa_init failed: %#x", (unsigned)st);
    return CL_DEVICE_NOT_FOUND;
  }
  /* Handles may change between one hsa_init and the next: find them again. */
  memset(&ocl_rt, 0, sizeof ocl_rt);
  bool found_gpu = false;
  hsa_iterate_agents(find_agents, &found_gpu);
  pool_search gpu_pools = {.gpu = true}, cpu_pools = {.gpu = false};
  if (found_gpu) {
    hsa_amd_agent_iterate_memory_pools(ocl_rt.gpu, find_pools, &gpu_pools);
    if (ocl_rt.cpu.handle) hsa_amd_agent_iterate_memory_pools(ocl_rt.cpu, find_pools, &cpu_pools);
  }
  if (!found_gpu || !gpu_pools.device || !cpu_pools.kernarg) {
    ocl_log("no GPU agent with a device pool and a kernarg pool");
    hsa_shut_down();
    return CL_DEVICE_NOT_FOUND;
  }
  if (!cpu_pools.host) ocl_rt.host_pool = ocl_rt.kernarg_pool;
  hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &ocl_rt.timestamp_hz);
  if (!props_known) {
    read_device_props(&gpu_pools);
    props_known = true;
  }
  hsa_open = true;
  ocl_log("HSA open: GPU agent %s", ocl_the_device.props.name);
  return CL_SUCCESS;
}

static void shutdown_all(void);

cl_int ocl_runtime_open(void) {
  pthread_mutex_lock(&rt_lock);
  cl_int err = open_locked();
  if (err == CL_SUCCESS && !exit_handler) exit_handler = atexit(shutdown_all) == 0;
  pthread_mutex_unlock(&rt_lock);
  return err;
}

void ocl_runtime_queue_link(cl_command_queue q) {
  pthread_mutex_lock(&rt_lock);
  q->next_live = live_queues;
  live_queues = q;
  pthread_mutex_unlock(&rt_lock);
}

void ocl_runtime_queue_unlink(cl_command_queue q) {
  pthread_mutex_lock(&rt_lock);
  for (cl_command_queue* pp = &live_queues; *pp; pp = &(*pp)->next_live)
    if (*pp == q) {
      *pp = q->next_live;
      break;
    }
  pthread_mutex_unlock(&rt_lock);
}

/* Joins the workers of queues never released (their commands finish
 * first), so that no thread of ours runs on into a runtime that is gone,
 * then shuts HSA down. Runs once: at exit, or at unload, whichever is first. */
static void shutdown_all(void) {
  for (;;) {
    pthread_mutex_lock(&rt_lock);
    cl_command_queue q = live_queues;
    pthread_mutex_unlock(&rt_lock);
    if (!q) break;
    ocl_log("a command queue was never released: its worker is stopped at exit");
    ocl_queue_teardown(q);
    ocl_runtime_queue_unlink(q); /* done by the teardown, unless another thread was tearing it down */
  }
  pthread_mutex_lock(&rt_lock);
  if (hsa_open) {
    hsa_open = false;
    hsa_shut_down();
    ocl_log("HSA shut down");
  }
  pthread_mutex_unlock(&rt_lock);
}

__attribute__((destructor)) static void ocl_unload(void) { shutdown_all(); }
