/* cltap HSA test double -- agents, ISA, caches, memory pools and regions.
 *
 * Two agents, fixed so that tests never depend on the host: a CPU agent
 * (node 0) and a GPU agent "gfx906" (node 1, 60 compute units, wavefront 64).
 * Pool and region handles are the same objects, as in ROCr. */
#include "double.h"

#include <string.h>

#define AGENT_MAGIC 0x434c544150414754ull /* "CLTAPAGT" */
#define POOL_MAGIC 0x434c544150504f4cull  /* "CLTAPPOL" */
#define ISA_MAGIC 0x434c544150495341ull   /* "CLTAPISA" */
#define CACHE_MAGIC 0x434c544150434348ull /* "CLTAPCCH" */

#define GIB (1024ull * 1024 * 1024)
#define PUBLIC_NAME_SIZE 64

dbl_agent dbl_cpu_agent = {
    .magic = AGENT_MAGIC,
    .device = HSA_DEVICE_TYPE_CPU,
    .name = "cltap-cpu",
    .product_name = "cltap HSA test double (CPU)",
    .node = 0,
    .compute_units = 4,
    .max_clock_mhz = 3000,
    .chip_id = 0,
    .cache_sizes = {32 * 1024, 512 * 1024, 16 * 1024 * 1024, 0},
    .pool_count = 2,
    .pools =
        {
            {POOL_MAGIC, &dbl_cpu_agent, HSA_AMD_SEGMENT_GLOBAL,
             HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT | HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED,
             16 * GIB, true, 4096, 4096, true},
            {POOL_MAGIC, &dbl_cpu_agent, HSA_AMD_SEGMENT_GLOBAL,
             HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED, 16 * GIB, true, 4096, 4096, false},
        },
};

dbl_agent dbl_gpu_agent = {
    .magic = AGENT_MAGIC,
    .device = HSA_DEVICE_TYPE_GPU,
    .name = "gfx906",
    .product_name = "cltap HSA test double (gfx906)",
    .node = 1,
    .compute_units = 60,
    .max_clock_mhz = 1725,
    .chip_id = 0x66a1,
    .cache_sizes = {16 * 1024, 8 * 1024 * 1024, 0, 0},
    .pool_count = 2,
    .pools =
        {
            {POOL_MAGIC, &dbl_gpu_agent, HSA_AMD_SEGMENT_GLOBAL,
             HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED, 16 * GIB, true, 4096, 4096, false},
            {POOL_MAGIC, &dbl_gpu_agent, HSA_AMD_SEGMENT_GROUP, 0, 64 * 1024, false, 0, 0, false},
        },
};

static dbl_agent* const all_agents[] = {&dbl_cpu_agent, &dbl_gpu_agent};

static const char ISA_NAME[] = "amdgcn-amd-amdhsa--gfx906";
static const struct {
  uint64_t magic;
} the_isa = {ISA_MAGIC};

typedef struct dbl_cache {
  uint64_t magic;
  const char* name;
  uint8_t level;
  uint32_t size;
} dbl_cache;
static const dbl_cache gpu_caches[] = {
    {CACHE_MAGIC, "L1", 1, 16 * 1024},
    {CACHE_MAGIC, "L2", 2, 8 * 1024 * 1024},
};
static const dbl_cache cpu_caches[] = {
    {CACHE_MAGIC, "L1", 1, 32 * 1024},
    {CACHE_MAGIC, "L2", 2, 512 * 1024},
    {CACHE_MAGIC, "L3", 3, 16 * 1024 * 1024},
};

dbl_agent* dbl_agent_get(hsa_agent_t agent) {
  for (size_t i = 0; i < sizeof all_agents / sizeof all_agents[0]; i++)
    if (agent.handle == (uint64_t)(uintptr_t)all_agents[i]) return all_agents[i];
  return NULL;
}

dbl_pool* dbl_pool_get(uint64_t handle) {
  for (size_t i = 0; i < sizeof all_agents / sizeof all_agents[0]; i++)
    for (int p = 0; p < all_agents[i]->pool_count; p++)
      if (handle == (uint64_t)(uintptr_t)&all_agents[i]->pools[p]) return &all_agents[i]->pools[p];
  return NULL;
}

static bool is_isa(hsa_isa_t isa) { return isa.handle == (uint64_t)(uintptr_t)&the_isa; }

static hsa_isa_t isa_handle(void) {
  hsa_isa_t h = {(uint64_t)(uintptr_t)&the_isa};
  return h;
}

static void put_name(void* value, const char* s) {
  memset(value, 0, PUBLIC_NAME_SIZE);
  strncpy((char*)value, s, PUBLIC_NAME_SIZE - 1);
}

hsa_status_t dbl_hsa_iterate_agents(hsa_status_t (*callback)(hsa_agent_t, void*), void* data) {
  DBL_CHECK_OPEN();
  if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (size_t i = 0; i < sizeof all_agents / sizeof all_agents[0]; i++) {
    hsa_status_t st = callback(dbl_agent_handle(all_agents[i]), data);
    if (st != HSA_STATUS_SUCCESS) return st;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_agent_get_info(hsa_agent_t agent_handle, hsa_agent_info_t attribute, void* value) {
  DBL_CHECK_OPEN();
  dbl_agent* a = dbl_agent_get(agent_handle);
  if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const bool gpu = a->device == HSA_DEVICE_TYPE_GPU;
  switch ((int)attribute) {
    case HSA_AGENT_INFO_NAME: put_name(value, a->name); break;
    case HSA_AGENT_INFO_VENDOR_NAME: put_name(value, DBL_VENDOR); break;
    case HSA_AGENT_INFO_FEATURE:
      *(hsa_agent_feature_t*)value = gpu ? HSA_AGENT_FEATURE_KERNEL_DISPATCH : (hsa_agent_feature_t)0;
      break;
    case HSA_AGENT_INFO_MACHINE_MODEL: *(hsa_machine_model_t*)value = HSA_MACHINE_MODEL_LARGE; break;
    case HSA_AGENT_INFO_PROFILE: *(hsa_profile_t*)value = HSA_PROFILE_BASE; break;
    case HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
      *(hsa_default_float_rounding_mode_t*)value = HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR;
      break;
    case HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES:
      *(uint32_t*)value = HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR;
      break;
    case HSA_AGENT_INFO_FAST_F16_OPERATION: *(bool*)value = gpu; break;
    case HSA_AGENT_INFO_WAVEFRONT_SIZE: *(uint32_t*)value = gpu ? 64 : 0; break;
    case HSA_AGENT_INFO_WORKGROUP_MAX_DIM: {
      uint16_t* d = value;
      d[0] = d[1] = d[2] = gpu ? 1024 : 0;
      break;
    }
    case HSA_AGENT_INFO_WORKGROUP_MAX_SIZE: *(uint32_t*)value = gpu ? 1024 : 0; break;
    case HSA_AGENT_INFO_GRID_MAX_DIM: {
      hsa_dim3_t* d = value;
      d->x = d->y = d->z = gpu ? UINT32_MAX : 0;
      break;
    }
    case HSA_AGENT_INFO_GRID_MAX_SIZE: *(uint32_t*)value = gpu ? UINT32_MAX : 0; break;
    case HSA_AGENT_INFO_FBARRIER_MAX_SIZE: *(uint32_t*)value = gpu ? 32 : 0; break;
    case HSA_AGENT_INFO_QUEUES_MAX: *(uint32_t*)value = gpu ? 128 : 0; break;
    case HSA_AGENT_INFO_QUEUE_MIN_SIZE: *(uint32_t*)value = gpu ? 64 : 0; break;
    case HSA_AGENT_INFO_QUEUE_MAX_SIZE: *(uint32_t*)value = gpu ? 131072 : 0; break;
    case HSA_AGENT_INFO_QUEUE_TYPE: *(hsa_queue_type32_t*)value = HSA_QUEUE_TYPE_MULTI; break;
    case HSA_AGENT_INFO_NODE: *(uint32_t*)value = a->node; break;
    case HSA_AGENT_INFO_DEVICE: *(hsa_device_type_t*)value = a->device; break;
    case HSA_AGENT_INFO_CACHE_SIZE: memcpy(value, a->cache_sizes, sizeof a->cache_sizes); break;
    case HSA_AGENT_INFO_ISA: *(hsa_isa_t*)value = gpu ? isa_handle() : (hsa_isa_t){0}; break;
    case HSA_AGENT_INFO_EXTENSIONS: memset(value, 0, 128); break;
    case HSA_AGENT_INFO_VERSION_MAJOR: *(uint16_t*)value = 1; break;
    case HSA_AGENT_INFO_VERSION_MINOR: *(uint16_t*)value = 1; break;
    case HSA_AMD_AGENT_INFO_CHIP_ID: *(uint32_t*)value = a->chip_id; break;
    case HSA_AMD_AGENT_INFO_CACHELINE_SIZE: *(uint32_t*)value = 64; break;
    case HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT: *(uint32_t*)value = a->compute_units; break;
    case HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY: *(uint32_t*)value = a->max_clock_mhz; break;
    case HSA_AMD_AGENT_INFO_DRIVER_NODE_ID: *(uint32_t*)value = a->node; break;
    case HSA_AMD_AGENT_INFO_MAX_ADDRESS_WATCH_POINTS: *(uint32_t*)value = gpu ? 4 : 0; break;
    case HSA_AMD_AGENT_INFO_BDFID: *(uint32_t*)value = gpu ? 0x0300 : 0; break;
    case HSA_AMD_AGENT_INFO_MEMORY_WIDTH: *(uint32_t*)value = gpu ? 4096 : 0; break;
    case HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY: *(uint32_t*)value = gpu ? 1000 : 0; break;
    case HSA_AMD_AGENT_INFO_PRODUCT_NAME: put_name(value, a->product_name); break;
    case HSA_AMD_AGENT_INFO_MAX_WAVES_PER_CU: *(uint32_t*)value = gpu ? 40 : 0; break;
    case HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU: *(uint32_t*)value = gpu ? 4 : 0; break;
    case HSA_AMD_AGENT_INFO_NUM_SHADER_ENGINES: *(uint32_t*)value = gpu ? 4 : 0; break;
    case HSA_AMD_AGENT_INFO_NUM_SHADER_ARRAYS_PER_SE: *(uint32_t*)value = gpu ? 1 : 0; break;
    case HSA_AMD_AGENT_INFO_HDP_FLUSH: memset(value, 0, sizeof(hsa_amd_hdp_flush_t)); break;
    case HSA_AMD_AGENT_INFO_DOMAIN: *(uint32_t*)value = 0; break;
    case HSA_AMD_AGENT_INFO_COOPERATIVE_QUEUES: *(bool*)value = gpu; break;
    case HSA_AMD_AGENT_INFO_UUID: strcpy((char*)value, gpu ? "GPU-XX" : "CPU-XX"); break;
    case HSA_AMD_AGENT_INFO_ASIC_REVISION: *(uint32_t*)value = gpu ? 1 : 0; break;
    case HSA_AMD_AGENT_INFO_SVM_DIRECT_HOST_ACCESS: *(bool*)value = true; break;
    case HSA_AMD_AGENT_INFO_COOPERATIVE_COMPUTE_UNIT_COUNT:
      *(uint32_t*)value = gpu ? a->compute_units : 0;
      break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_agent_get_exception_policies(hsa_agent_t agent, hsa_profile_t profile,
                                                  uint16_t* mask) {
  DBL_CHECK_OPEN();
  if (!dbl_agent_get(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!mask || (profile != HSA_PROFILE_BASE && profile != HSA_PROFILE_FULL))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *mask = 0;
  return HSA_STATUS_SUCCESS;
}

/* ---- ISA ---- */

hsa_status_t dbl_hsa_agent_iterate_isas(hsa_agent_t agent, hsa_status_t (*callback)(hsa_isa_t, void*),
                                        void* data) {
  DBL_CHECK_OPEN();
  dbl_agent* a = dbl_agent_get(agent);
  if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (a->device != HSA_DEVICE_TYPE_GPU) return HSA_STATUS_SUCCESS;
  return callback(isa_handle(), data);
}

hsa_status_t dbl_hsa_isa_from_name(const char* name, hsa_isa_t* isa) {
  DBL_CHECK_OPEN();
  if (!name || !isa) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (strcmp(name, ISA_NAME) != 0) return HSA_STATUS_ERROR_INVALID_ISA_NAME;
  *isa = isa_handle();
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_isa_get_info_alt(hsa_isa_t isa, hsa_isa_info_t attribute, void* value) {
  DBL_CHECK_OPEN();
  if (!is_isa(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch ((int)attribute) {
    /* Length and name include the terminating NUL, as ROCr's. */
    case HSA_ISA_INFO_NAME_LENGTH: *(uint32_t*)value = sizeof ISA_NAME; break;
    case HSA_ISA_INFO_NAME: memcpy(value, ISA_NAME, sizeof ISA_NAME); break;
    case HSA_ISA_INFO_MACHINE_MODELS: {
      bool* b = value;
      b[HSA_MACHINE_MODEL_SMALL] = false;
      b[HSA_MACHINE_MODEL_LARGE] = true;
      break;
    }
    case HSA_ISA_INFO_PROFILES: {
      bool* b = value;
      b[HSA_PROFILE_BASE] = true;
      b[HSA_PROFILE_FULL] = false;
      break;
    }
    case HSA_ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES:
    case HSA_ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES: {
      bool* b = value;
      b[HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT] = false;
      b[HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO] = false;
      b[HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR] = true;
      break;
    }
    case HSA_ISA_INFO_FAST_F16_OPERATION: *(bool*)value = true; break;
    case HSA_ISA_INFO_WORKGROUP_MAX_DIM: {
      uint16_t* d = value;
      d[0] = d[1] = d[2] = 1024;
      break;
    }
    case HSA_ISA_INFO_WORKGROUP_MAX_SIZE: *(uint32_t*)value = 1024; break;
    case HSA_ISA_INFO_GRID_MAX_DIM: {
      hsa_dim3_t* d = value;
      d->x = d->y = d->z = UINT32_MAX;
      break;
    }
    case HSA_ISA_INFO_GRID_MAX_SIZE: *(uint64_t*)value = UINT32_MAX; break;
    case HSA_ISA_INFO_FBARRIER_MAX_SIZE: *(uint32_t*)value = 32; break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_isa_get_info(hsa_isa_t isa, hsa_isa_info_t attribute, uint32_t index, void* value) {
  DBL_CHECK_OPEN();
  if (!is_isa(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch ((int)attribute) {
    case HSA_ISA_INFO_CALL_CONVENTION_COUNT: *(uint32_t*)value = 1; return HSA_STATUS_SUCCESS;
    case HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONT_SIZE:
      if (index != 0) return HSA_STATUS_ERROR_INVALID_INDEX;
      *(uint32_t*)value = 64;
      return HSA_STATUS_SUCCESS;
    case HSA_ISA_INFO_CALL_CONVENTION_INFO_WAVEFRONTS_PER_COMPUTE_UNIT:
      if (index != 0) return HSA_STATUS_ERROR_INVALID_INDEX;
      *(uint32_t*)value = 40;
      return HSA_STATUS_SUCCESS;
    default:
      if (index != 0) return HSA_STATUS_ERROR_INVALID_INDEX;
      return dbl_hsa_isa_get_info_alt(isa, attribute, value);
  }
}

hsa_status_t dbl_hsa_isa_compatible(hsa_isa_t code_object_isa, hsa_isa_t agent_isa, bool* result) {
  DBL_CHECK_OPEN();
  if (!is_isa(code_object_isa) || !is_isa(agent_isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  if (!result) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = true;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_isa_get_exception_policies(hsa_isa_t isa, hsa_profile_t profile, uint16_t* mask) {
  DBL_CHECK_OPEN();
  if (!is_isa(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  if (!mask || (profile != HSA_PROFILE_BASE && profile != HSA_PROFILE_FULL))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *mask = 0;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_isa_get_round_method(hsa_isa_t isa, hsa_fp_type_t fp_type,
                                          hsa_flush_mode_t flush_mode, hsa_round_method_t* round_method) {
  (void)fp_type;
  (void)flush_mode;
  DBL_CHECK_OPEN();
  if (!is_isa(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  if (!round_method) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *round_method = HSA_ROUND_METHOD_SINGLE;
  return HSA_STATUS_SUCCESS;
}

/* The one wavefront (64 lanes) of the ISA. */
static const struct {
  uint64_t magic;
} the_wavefront = {ISA_MAGIC + 1};

hsa_status_t dbl_hsa_isa_iterate_wavefronts(hsa_isa_t isa, hsa_status_t (*callback)(hsa_wavefront_t, void*),
                                            void* data) {
  DBL_CHECK_OPEN();
  if (!is_isa(isa)) return HSA_STATUS_ERROR_INVALID_ISA;
  if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  hsa_wavefront_t w = {(uint64_t)(uintptr_t)&the_wavefront};
  return callback(w, data);
}

hsa_status_t dbl_hsa_wavefront_get_info(hsa_wavefront_t wavefront, hsa_wavefront_info_t attribute,
                                        void* value) {
  DBL_CHECK_OPEN();
  if (wavefront.handle != (uint64_t)(uintptr_t)&the_wavefront) return HSA_STATUS_ERROR_INVALID_WAVEFRONT;
  if (!value || attribute != HSA_WAVEFRONT_INFO_SIZE) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *(uint32_t*)value = 64;
  return HSA_STATUS_SUCCESS;
}

/* ---- caches ---- */

hsa_status_t dbl_hsa_agent_iterate_caches(hsa_agent_t agent, hsa_status_t (*callback)(hsa_cache_t, void*),
                                          void* data) {
  DBL_CHECK_OPEN();
  dbl_agent* a = dbl_agent_get(agent);
  if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const dbl_cache* c = a->device == HSA_DEVICE_TYPE_GPU ? gpu_caches : cpu_caches;
  size_t n = a->device == HSA_DEVICE_TYPE_GPU ? sizeof gpu_caches / sizeof gpu_caches[0]
                                              : sizeof cpu_caches / sizeof cpu_caches[0];
  for (size_t i = 0; i < n; i++) {
    hsa_cache_t h = {(uint64_t)(uintptr_t)&c[i]};
    hsa_status_t st = callback(h, data);
    if (st != HSA_STATUS_SUCCESS) return st;
  }
  return HSA_STATUS_SUCCESS;
}

static const dbl_cache* cache_get(hsa_cache_t cache) {
  for (size_t i = 0; i < sizeof gpu_caches / sizeof gpu_caches[0]; i++)
    if (cache.handle == (uint64_t)(uintptr_t)&gpu_caches[i]) return &gpu_caches[i];
  for (size_t i = 0; i < sizeof cpu_caches / sizeof cpu_caches[0]; i++)
    if (cache.handle == (uint64_t)(uintptr_t)&cpu_caches[i]) return &cpu_caches[i];
  return NULL;
}

hsa_status_t dbl_hsa_cache_get_info(hsa_cache_t cache, hsa_cache_info_t attribute, void* value) {
  DBL_CHECK_OPEN();
  const dbl_cache* c = cache_get(cache);
  if (!c) return HSA_STATUS_ERROR_INVALID_CACHE;
  if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch ((int)attribute) {
    /* Length counts the NUL that NAME writes, so that a buffer of that
     * length (as rocminfo allocates) holds the name. */
    case HSA_CACHE_INFO_NAME_LENGTH: *(uint32_t*)value = (uint32_t)strlen(c->name) + 1; break;
    case HSA_CACHE_INFO_NAME: memcpy(value, c->name, strlen(c->name) + 1); break;
    case HSA_CACHE_INFO_LEVEL: *(uint8_t*)value = c->level; break;
    case HSA_CACHE_INFO_SIZE: *(uint32_t*)value = c->size; break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

/* ---- memory pools ---- */

static hsa_amd_memory_pool_t pool_handle(dbl_pool* p) {
  hsa_amd_memory_pool_t h = {(uint64_t)(uintptr_t)p};
  return h;
}

hsa_status_t dbl_hsa_amd_agent_iterate_memory_pools(hsa_agent_t agent,
                                                    hsa_status_t (*callback)(hsa_amd_memory_pool_t, void*),
                                                    void* data) {
  DBL_CHECK_OPEN();
  dbl_agent* a = dbl_agent_get(agent);
  if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (int i = 0; i < a->pool_count; i++) {
    hsa_status_t st = callback(pool_handle(&a->pools[i]), data);
    if (st != HSA_STATUS_SUCCESS) return st;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t memory_pool,
                                              hsa_amd_memory_pool_info_t attribute, void* value) {
  DBL_CHECK_OPEN();
  dbl_pool* p = dbl_pool_get(memory_pool.handle);
  if (!p) return (hsa_status_t)HSA_STATUS_ERROR_INVALID_MEMORY_POOL;
  if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch ((int)attribute) {
    case HSA_AMD_MEMORY_POOL_INFO_SEGMENT: *(hsa_amd_segment_t*)value = p->segment; break;
    case HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS: *(uint32_t*)value = p->global_flags; break;
    case HSA_AMD_MEMORY_POOL_INFO_SIZE: *(size_t*)value = p->size; break;
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED: *(bool*)value = p->alloc_allowed; break;
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE: *(size_t*)value = p->granule; break;
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT: *(size_t*)value = p->alignment; break;
    case HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL: *(bool*)value = p->accessible_by_all; break;
    case HSA_AMD_MEMORY_POOL_INFO_ALLOC_MAX_SIZE: *(size_t*)value = p->alloc_allowed ? p->size : 0; break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_amd_agent_memory_pool_get_info(hsa_agent_t agent, hsa_amd_memory_pool_t memory_pool,
                                                    hsa_amd_agent_memory_pool_info_t attribute,
                                                    void* value) {
  DBL_CHECK_OPEN();
  dbl_agent* a = dbl_agent_get(agent);
  if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
  dbl_pool* p = dbl_pool_get(memory_pool.handle);
  if (!p) return (hsa_status_t)HSA_STATUS_ERROR_INVALID_MEMORY_POOL;
  if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  bool own = p->owner == a;
  switch ((int)attribute) {
    case HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS: {
      hsa_amd_memory_pool_access_t acc;
      if (own || p->accessible_by_all)
        acc = HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT;
      else if (p->segment != HSA_AMD_SEGMENT_GLOBAL)
        acc = HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED;
      else
        acc = HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT;
      *(hsa_amd_memory_pool_access_t*)value = acc;
      break;
    }
    case HSA_AMD_AGENT_MEMORY_POOL_INFO_NUM_LINK_HOPS: *(uint32_t*)value = own ? 0 : 1; break;
    case HSA_AMD_AGENT_MEMORY_POOL_INFO_LINK_INFO: {
      hsa_amd_memory_pool_link_info_t* l = value;
      memset(l, 0, sizeof *l);
      if (!own) {
        l->min_latency = l->max_latency = 1;
        l->min_bandwidth = l->max_bandwidth = 16000;
        l->link_type = HSA_AMD_LINK_INFO_TYPE_PCIE;
        l->numa_distance = 20;
      }
      break;
    }
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

/* ---- regions: the same objects as the pools. As in ROCr, a GPU agent's
 * regions include the system (CPU) ones, where kernarg memory lives. ---- */

hsa_status_t dbl_hsa_agent_iterate_regions(hsa_agent_t agent, hsa_status_t (*callback)(hsa_region_t, void*),
                                           void* data) {
  DBL_CHECK_OPEN();
  dbl_agent* a = dbl_agent_get(agent);
  if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (int i = 0; i < a->pool_count; i++) {
    hsa_region_t r = {(uint64_t)(uintptr_t)&a->pools[i]};
    hsa_status_t st = callback(r, data);
    if (st != HSA_STATUS_SUCCESS) return st;
  }
  if (a->device == HSA_DEVICE_TYPE_GPU) {
    for (int i = 0; i < dbl_cpu_agent.pool_count; i++) {
      hsa_region_t r = {(uint64_t)(uintptr_t)&dbl_cpu_agent.pools[i]};
      hsa_status_t st = callback(r, data);
      if (st != HSA_STATUS_SUCCESS) return st;
    }
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_region_get_info(hsa_region_t region, hsa_region_info_t attribute, void* value) {
  DBL_CHECK_OPEN();
  dbl_pool* p = dbl_pool_get(region.handle);
  if (!p) return HSA_STATUS_ERROR_INVALID_REGION;
  if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch ((int)attribute) {
    case HSA_REGION_INFO_SEGMENT: *(hsa_region_segment_t*)value = (hsa_region_segment_t)p->segment; break;
    case HSA_REGION_INFO_GLOBAL_FLAGS: {
      uint32_t f = 0;
      if (p->global_flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) f |= HSA_REGION_GLOBAL_FLAG_KERNARG;
      if (p->global_flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) f |= HSA_REGION_GLOBAL_FLAG_FINE_GRAINED;
      if (p->global_flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) f |= HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED;
      *(uint32_t*)value = f;
      break;
    }
    case HSA_REGION_INFO_SIZE: *(size_t*)value = p->size; break;
    case HSA_REGION_INFO_ALLOC_MAX_SIZE: *(size_t*)value = p->alloc_allowed ? p->size : 0; break;
    case HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE: *(uint32_t*)value = 0; break;
    case HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED: *(bool*)value = p->alloc_allowed; break;
    case HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE: *(size_t*)value = p->granule; break;
    case HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT: *(size_t*)value = p->alignment; break;
    case HSA_AMD_REGION_INFO_HOST_ACCESSIBLE: *(bool*)value = p->owner->device == HSA_DEVICE_TYPE_CPU; break;
    case HSA_AMD_REGION_INFO_BASE: *(void**)value = NULL; break;
    case HSA_AMD_REGION_INFO_BUS_WIDTH: *(uint32_t*)value = p->owner->device == HSA_DEVICE_TYPE_GPU ? 4096 : 0; break;
    case HSA_AMD_REGION_INFO_MAX_CLOCK_FREQUENCY:
      *(uint32_t*)value = p->owner->device == HSA_DEVICE_TYPE_GPU ? 1000 : 0;
      break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}
