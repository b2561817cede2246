/* cltap HSA test double -- hsa_init/hsa_shut_down, tool loading, system
 * information, status strings and extensions. */
#include "double.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t init_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static int ref_count;

#define MAX_TOOLS 32
static void* tools[MAX_TOOLS];
static int tool_count;

uint64_t dbl_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void dbl_log(const char* fmt, ...) {
  const char* v = getenv("CLTAP_HSA_DOUBLE_VERBOSE");
  if (!v || !*v || strcmp(v, "0") == 0) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "[cltap HSA test double] ");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

hsa_status_t dbl_unimplemented(const char* name) {
  dbl_log("%s is not implemented by the test double: HSA_STATUS_ERROR", name);
  return HSA_STATUS_ERROR;
}

bool dbl_is_open(void) { return __atomic_load_n(&ref_count, __ATOMIC_ACQUIRE) > 0; }

/* HSA_TOOLS_LIB splitting as ROCr's parse_tool_names: names are separated by
 * spaces; "..." quotes a name with spaces; a backslash takes the next
 * character literally. Returns the number of names, each malloc'ed. */
static int parse_tool_names(const char* s, char** out, int max) {
  int n = 0;
  size_t cap = strlen(s) + 1;
  char* name = malloc(cap);
  size_t len = 0;
  bool quoted = false;
  for (const char* p = s; *p; p++) {
    char c = *p;
    if (c == '\\') {
      if (p[1]) name[len++] = *++p;
    } else if (c == '"') {
      if (quoted) {
        quoted = false;
        name[len] = 0;
        if (n < max) out[n++] = strdup(name);
        len = 0;
      } else {
        quoted = true;
      }
    } else if (c == ' ' && !quoted) {
      name[len] = 0;
      if (n < max) out[n++] = strdup(name);
      len = 0;
    } else {
      name[len++] = c;
    }
  }
  if (len) {
    name[len] = 0;
    if (n < max) out[n++] = strdup(name);
  }
  free(name);
  return n;
}

/* ROCr 5.2.3 Runtime::LoadTools: dlopen each library of HSA_TOOLS_LIB in
 * order and call its OnLoad(table, runtime version, failed count, failed
 * names). A tool whose OnLoad returns false is closed and passed to the later
 * tools as failed. A library that cannot be opened is only reported (with
 * HSA_TOOLS_REPORT_LOAD_FAILURE=1), as ROCr does: it is not in the failed list. */
static void load_tools(void) {
  const char* env = getenv("HSA_TOOLS_LIB");
  if (!env || !*env) return;
  const char* rep = getenv("HSA_TOOLS_REPORT_LOAD_FAILURE");
  bool report = rep && strcmp(rep, "1") == 0;
  char* names[MAX_TOOLS];
  int n = parse_tool_names(env, names, MAX_TOOLS);
  const char* failed[MAX_TOOLS + 1];
  uint64_t failed_count = 0;
  for (int i = 0; i < n; i++) {
    if (names[i][0] == 0) continue;
    void* lib = dlopen(names[i], RTLD_LAZY);
    if (!lib) {
      if (report) fprintf(stderr, "Tool lib \"%s\" failed to load.\n", names[i]);
      dbl_log("tool %s: %s", names[i], dlerror());
      continue;
    }
    hsa_tool_on_load_t on_load = (hsa_tool_on_load_t)dlsym(lib, "OnLoad");
    if (on_load) {
      failed[failed_count] = NULL;
      if (!on_load(&dbl_api_root, dbl_api_root.version.major_id, failed_count, failed)) {
        dbl_log("tool %s: OnLoad returned false", names[i]);
        failed[failed_count++] = names[i];
        dlclose(lib);
        continue;
      }
    }
    dbl_log("tool %s loaded", names[i]);
    if (tool_count < MAX_TOOLS) tools[tool_count++] = lib;
  }
  for (int i = 0; i < n; i++) free(names[i]);
}

static void unload_tools(void) {
  for (int i = tool_count; i > 0; i--) {
    hsa_tool_on_unload_t on_unload = (hsa_tool_on_unload_t)dlsym(tools[i - 1], "OnUnload");
    if (on_unload) on_unload();
  }
  /* As ROCr: put the table back in case a tool did not. */
  dbl_tables_reset();
}

static void close_tools(void) {
  for (int i = 0; i < tool_count; i++) dlclose(tools[i]);
  tool_count = 0;
}

hsa_status_t dbl_hsa_init(void) {
  pthread_mutex_lock(&init_lock);
  if (ref_count == INT32_MAX) {
    pthread_mutex_unlock(&init_lock);
    return HSA_STATUS_ERROR_REFCOUNT_OVERFLOW;
  }
  /* Counted before the tools load, so that their OnLoad may call the API. */
  if (__atomic_add_fetch(&ref_count, 1, __ATOMIC_ACQ_REL) == 1) {
    dbl_log("hsa_init: runtime loaded");
    load_tools();
  }
  pthread_mutex_unlock(&init_lock);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_shut_down(void) {
  pthread_mutex_lock(&init_lock);
  if (ref_count == 0) {
    pthread_mutex_unlock(&init_lock);
    return HSA_STATUS_ERROR_NOT_INITIALIZED;
  }
  if (ref_count == 1) {
    unload_tools();
    dbl_queues_shutdown();
    dbl_async_shutdown();
    dbl_executables_shutdown();
    dbl_memory_shutdown();
    close_tools();
    dbl_log("hsa_shut_down: runtime unloaded");
  }
  __atomic_sub_fetch(&ref_count, 1, __ATOMIC_ACQ_REL);
  pthread_mutex_unlock(&init_lock);
  return HSA_STATUS_SUCCESS;
}

static bool extension_version(uint16_t extension, uint16_t version_major, uint16_t* max_minor);

hsa_status_t dbl_hsa_system_get_info(hsa_system_info_t attribute, void* value) {
  DBL_CHECK_OPEN();
  if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch ((int)attribute) {
    case HSA_SYSTEM_INFO_VERSION_MAJOR: *(uint16_t*)value = 1; break;
    case HSA_SYSTEM_INFO_VERSION_MINOR: *(uint16_t*)value = 1; break;
    case HSA_SYSTEM_INFO_TIMESTAMP: *(uint64_t*)value = dbl_now(); break;
    case HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY: *(uint64_t*)value = 1000000000ull; break;
    case HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT: *(uint64_t*)value = UINT64_MAX; break;
    case HSA_SYSTEM_INFO_ENDIANNESS: *(hsa_endianness_t*)value = HSA_ENDIANNESS_LITTLE; break;
    case HSA_SYSTEM_INFO_MACHINE_MODEL: *(hsa_machine_model_t*)value = HSA_MACHINE_MODEL_LARGE; break;
    case HSA_SYSTEM_INFO_EXTENSIONS: { /* a bit per supported extension id */
      uint8_t* bits = value;
      memset(bits, 0, 128);
      if (extension_version(HSA_EXTENSION_AMD_LOADER, 1, NULL))
        bits[HSA_EXTENSION_AMD_LOADER / 8] |= (uint8_t)(1u << (HSA_EXTENSION_AMD_LOADER % 8));
      if (extension_version(HSA_EXTENSION_AMD_AQLPROFILE, 1, NULL))
        bits[HSA_EXTENSION_AMD_AQLPROFILE / 8] |= (uint8_t)(1u << (HSA_EXTENSION_AMD_AQLPROFILE % 8));
      break;
    }
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

static const char* extension_name(uint16_t ext) {
  switch (ext) {
    case HSA_EXTENSION_FINALIZER: return "HSA_EXTENSION_FINALIZER";
    case HSA_EXTENSION_IMAGES: return "HSA_EXTENSION_IMAGES";
    case HSA_EXTENSION_PERFORMANCE_COUNTERS: return "HSA_EXTENSION_PERFORMANCE_COUNTERS";
    case HSA_EXTENSION_PROFILING_EVENTS: return "HSA_EXTENSION_PROFILING_EVENTS";
    case HSA_EXTENSION_AMD_PROFILER: return "HSA_EXTENSION_AMD_PROFILER";
    case HSA_EXTENSION_AMD_LOADER: return "HSA_EXTENSION_AMD_LOADER";
    case HSA_EXTENSION_AMD_AQLPROFILE: return "HSA_EXTENSION_AMD_AQLPROFILE";
    default: return NULL;
  }
}

hsa_status_t dbl_hsa_extension_get_name(uint16_t extension, const char** name) {
  DBL_CHECK_OPEN();
  if (!name) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const char* n = extension_name(extension);
  *name = n ? n : "HSA_EXTENSION_INVALID";
  return n ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

/* The vendor extensions the double provides: the AMD loader (1.00 to 1.03)
 * and AQLprofile (1.00). The others (finalizer, images, AMD profiler) are
 * not supported. Gives the highest minor version of `version_major`. */
static bool extension_version(uint16_t extension, uint16_t version_major, uint16_t* max_minor) {
  switch (extension) {
    case HSA_EXTENSION_AMD_LOADER: return dbl_loader_ext_supported(version_major, max_minor);
    case HSA_EXTENSION_AMD_AQLPROFILE: return dbl_aqlprofile_supported(version_major, max_minor);
    default: return false;
  }
}

hsa_status_t dbl_hsa_system_extension_supported(uint16_t extension, uint16_t version_major,
                                                uint16_t version_minor, bool* result) {
  DBL_CHECK_OPEN();
  if (!result || !extension_name(extension)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  uint16_t max_minor = 0;
  *result = extension_version(extension, version_major, &max_minor) && version_minor <= max_minor;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_system_major_extension_supported(uint16_t extension, uint16_t version_major,
                                                      uint16_t* version_minor, bool* result) {
  DBL_CHECK_OPEN();
  if (!result || !version_minor || !extension_name(extension))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  uint16_t max_minor = 0;
  *result = extension_version(extension, version_major, &max_minor);
  if (*result) *version_minor = max_minor;
  return HSA_STATUS_SUCCESS;
}

/* The table of exactly version major.minor (1.00 and 1.01 of the loader
 * have different sizes). */
hsa_status_t dbl_hsa_system_get_extension_table(uint16_t extension, uint16_t version_major,
                                                uint16_t version_minor, void* table) {
  DBL_CHECK_OPEN();
  if (!table || !extension_name(extension)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  uint16_t max_minor = 0;
  if (!extension_version(extension, version_major, &max_minor) || version_minor > max_minor) {
    dbl_log("extension table %s %u.%02u requested: not provided", extension_name(extension), version_major,
            version_minor);
    return HSA_STATUS_ERROR;
  }
  if (extension == HSA_EXTENSION_AMD_LOADER)
    dbl_loader_ext_fill(table, dbl_loader_ext_table_size(version_minor));
  else
    dbl_aqlprofile_fill(table, dbl_aqlprofile_table_size(version_minor));
  return HSA_STATUS_SUCCESS;
}

/* The newest table of `version_major`, cut to `table_length` bytes. */
hsa_status_t dbl_hsa_system_get_major_extension_table(uint16_t extension, uint16_t version_major,
                                                      size_t table_length, void* table) {
  DBL_CHECK_OPEN();
  if (!table || !extension_name(extension)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if (!extension_version(extension, version_major, NULL)) {
    dbl_log("extension table %s %u requested: not provided", extension_name(extension), version_major);
    return HSA_STATUS_ERROR;
  }
  if (extension == HSA_EXTENSION_AMD_LOADER)
    dbl_loader_ext_fill(table, table_length);
  else
    dbl_aqlprofile_fill(table, table_length);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_agent_extension_supported(uint16_t extension, hsa_agent_t agent,
                                               uint16_t version_major, uint16_t version_minor,
                                               bool* result) {
  (void)version_major;
  (void)version_minor;
  DBL_CHECK_OPEN();
  if (!dbl_agent_get(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!result || !extension_name(extension)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = false;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_agent_major_extension_supported(uint16_t extension, hsa_agent_t agent,
                                                     uint16_t version_major,
                                                     uint16_t* version_minor, bool* result) {
  (void)version_major;
  DBL_CHECK_OPEN();
  if (!dbl_agent_get(agent)) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!result || !version_minor || !extension_name(extension))
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = false;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_status_string(hsa_status_t status, const char** str) {
  if (!str) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const char* s;
  switch ((int)status) {
#define S(code, text) \
  case code: s = #code ": " text; break;
    S(HSA_STATUS_SUCCESS, "The function has been executed successfully.")
    S(HSA_STATUS_INFO_BREAK, "A traversal over a list of elements has been interrupted by the application before completing.")
    S(HSA_STATUS_ERROR, "A generic error has occurred.")
    S(HSA_STATUS_ERROR_INVALID_ARGUMENT, "One of the actual arguments does not meet a precondition stated in the documentation of the corresponding formal argument.")
    S(HSA_STATUS_ERROR_INVALID_QUEUE_CREATION, "The requested queue creation is not valid.")
    S(HSA_STATUS_ERROR_INVALID_ALLOCATION, "The requested allocation is not valid.")
    S(HSA_STATUS_ERROR_INVALID_AGENT, "The agent is invalid.")
    S(HSA_STATUS_ERROR_INVALID_REGION, "The memory region is invalid.")
    S(HSA_STATUS_ERROR_INVALID_SIGNAL, "The signal is invalid.")
    S(HSA_STATUS_ERROR_INVALID_QUEUE, "The queue is invalid.")
    S(HSA_STATUS_ERROR_OUT_OF_RESOURCES, "The runtime failed to allocate the necessary resources.")
    S(HSA_STATUS_ERROR_INVALID_PACKET_FORMAT, "The AQL packet is malformed.")
    S(HSA_STATUS_ERROR_RESOURCE_FREE, "An error has been detected while releasing a resource.")
    S(HSA_STATUS_ERROR_NOT_INITIALIZED, "An API other than hsa_init has been invoked while the reference count of the HSA runtime is zero.")
    S(HSA_STATUS_ERROR_REFCOUNT_OVERFLOW, "The maximum reference count for the object has been reached.")
    S(HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS, "The arguments passed to a functions are not compatible.")
    S(HSA_STATUS_ERROR_INVALID_INDEX, "The index is invalid.")
    S(HSA_STATUS_ERROR_INVALID_ISA, "The instruction set architecture is invalid.")
    S(HSA_STATUS_ERROR_INVALID_ISA_NAME, "The instruction set architecture name is invalid.")
    S(HSA_STATUS_ERROR_INVALID_CODE_OBJECT, "The code object is invalid.")
    S(HSA_STATUS_ERROR_INVALID_EXECUTABLE, "The executable is invalid.")
    S(HSA_STATUS_ERROR_FROZEN_EXECUTABLE, "The executable is frozen.")
    S(HSA_STATUS_ERROR_INVALID_SYMBOL_NAME, "There is no symbol with the given name.")
    S(HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED, "The variable is already defined.")
    S(HSA_STATUS_ERROR_VARIABLE_UNDEFINED, "The variable is undefined.")
    S(HSA_STATUS_ERROR_EXCEPTION, "An HSAIL operation resulted in a hardware exception.")
    S(HSA_STATUS_ERROR_INVALID_CODE_SYMBOL, "The code object symbol is invalid.")
    S(HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL, "The executable symbol is invalid.")
    S(HSA_STATUS_ERROR_INVALID_FILE, "The file descriptor is invalid.")
    S(HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER, "The code object reader is invalid.")
    S(HSA_STATUS_ERROR_INVALID_CACHE, "The cache is invalid.")
    S(HSA_STATUS_ERROR_INVALID_WAVEFRONT, "The wavefront is invalid.")
    S(HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP, "The signal group is invalid.")
    S(HSA_STATUS_ERROR_INVALID_RUNTIME_STATE, "The HSA runtime is not in the configuration state.")
    S(HSA_STATUS_ERROR_FATAL, "The queue received an error that may require process termination.")
    S(HSA_STATUS_ERROR_INVALID_MEMORY_POOL, "The memory pool is invalid.")
    S(HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION, "The agent accessed memory beyond the maximum legal address.")
    S(HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION, "The agent executed an invalid shader instruction.")
    S(HSA_STATUS_ERROR_MEMORY_FAULT, "The agent attempted to access an inaccessible address.")
    S(HSA_STATUS_CU_MASK_REDUCED, "The CU mask was successfully set but the mask attempted to enable a CU which was disabled for the process.")
#undef S
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  *str = s;
  return HSA_STATUS_SUCCESS;
}
