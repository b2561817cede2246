/* cltap HSA test double -- the AMD loader extension (hsa_ven_amd_loader.h,
 * HSA_EXTENSION_AMD_LOADER, version 1.03).
 *
 * Tools such as rocprofiler find the kernel behind a dispatch's
 * kernel_object with it: query_executable gives the executable that holds
 * the address, whose kernel symbols then name it; query_host_address gives
 * a host-readable address of the descriptor. In the double "device" memory
 * is host memory, so a host address is the device address itself, for any
 * address inside a loaded code object. As in ROCr, the functions are
 * exported under their own names (symbol version ROCR_1) and are also
 * handed out through hsa_system_get_(major_)extension_table. */
#include "executable.h"

#include <stdlib.h>
#include <string.h>

static hsa_executable_t exec_handle(dbl_executable* e) {
  hsa_executable_t h = {(uint64_t)(uintptr_t)e};
  return h;
}

static hsa_loaded_code_object_t loaded_handle(dbl_loaded* l) {
  hsa_loaded_code_object_t h = {(uint64_t)(uintptr_t)l};
  return h;
}

DBL_EXPORT hsa_status_t hsa_ven_amd_loader_query_host_address(const void* device_address, const void** host_address) {
  DBL_CHECK_OPEN();
  if (!device_address || !host_address) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  pthread_mutex_lock(&dbl_exec_lock);
  const bool found = dbl_loaded_at((uint64_t)(uintptr_t)device_address) != NULL;
  pthread_mutex_unlock(&dbl_exec_lock);
  if (!found) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *host_address = device_address;
  return HSA_STATUS_SUCCESS;
}

DBL_EXPORT hsa_status_t hsa_ven_amd_loader_query_executable(const void* device_address, hsa_executable_t* executable) {
  DBL_CHECK_OPEN();
  if (!device_address || !executable) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  pthread_mutex_lock(&dbl_exec_lock);
  dbl_loaded* l = dbl_loaded_at((uint64_t)(uintptr_t)device_address);
  if (l) *executable = exec_handle(l->exe);
  pthread_mutex_unlock(&dbl_exec_lock);
  return l ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

static void fill_descriptor(hsa_ven_amd_loader_segment_descriptor_t* d, const dbl_loaded* l, const dbl_segment* s) {
  memset(d, 0, sizeof *d);
  d->agent = dbl_agent_handle(l->agent);
  d->executable = exec_handle(l->exe);
  d->code_object_storage_type = l->storage;
  /* A file whose path could not be read (no /proc) is described by the
   * double's copy of it instead. */
  if (l->storage == HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_FILE && l->path) {
    d->code_object_storage_base = l->path;
    d->code_object_storage_size = strlen(l->path) + 1;
  } else {
    d->code_object_storage_type = HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY;
    d->code_object_storage_base = l->elf;
    d->code_object_storage_size = l->elf_size;
  }
  d->code_object_storage_offset = s->offset;
  d->segment_base = (const uint8_t*)l->memory + (s->vaddr - l->vaddr_base);
  d->segment_size = s->memsz;
}

/* As ROCr: *num == 0 with no array asks for the count; otherwise the array
 * must hold exactly as many descriptors as there are segments. */
DBL_EXPORT hsa_status_t hsa_ven_amd_loader_query_segment_descriptors(
    hsa_ven_amd_loader_segment_descriptor_t* segment_descriptors, size_t* num_segment_descriptors) {
  DBL_CHECK_OPEN();
  if (!num_segment_descriptors) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  if ((*num_segment_descriptors == 0) != (segment_descriptors == NULL)) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  pthread_mutex_lock(&dbl_exec_lock);
  size_t total = 0;
  for (dbl_executable* e = dbl_executables; e; e = e->next)
    for (dbl_loaded* l = e->loaded; l; l = l->next) total += l->segment_count;
  hsa_status_t st = HSA_STATUS_SUCCESS;
  if (*num_segment_descriptors == 0) {
    *num_segment_descriptors = total;
  } else if (*num_segment_descriptors != total) {
    st = HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
  } else {
    size_t i = 0;
    for (dbl_executable* e = dbl_executables; e; e = e->next)
      for (dbl_loaded* l = e->loaded; l; l = l->next)
        for (size_t k = 0; k < l->segment_count; k++) fill_descriptor(&segment_descriptors[i++], l, &l->segments[k]);
  }
  pthread_mutex_unlock(&dbl_exec_lock);
  return st;
}

/* Iterations copy the handles first and call back without the lock, so a
 * callback may call into the double again. */
DBL_EXPORT hsa_status_t hsa_ven_amd_loader_executable_iterate_loaded_code_objects(
    hsa_executable_t executable,
    hsa_status_t (*callback)(hsa_executable_t executable, hsa_loaded_code_object_t loaded_code_object, void* data),
    void* data) {
  DBL_CHECK_OPEN();
  if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  pthread_mutex_lock(&dbl_exec_lock);
  dbl_executable* e = dbl_exec_get(executable);
  size_t n = 0;
  if (e)
    for (dbl_loaded* l = e->loaded; l; l = l->next) n++;
  hsa_loaded_code_object_t* all = n ? malloc(n * sizeof *all) : NULL;
  if (all) {
    n = 0;
    for (dbl_loaded* l = e->loaded; l; l = l->next) all[n++] = loaded_handle(l);
  }
  pthread_mutex_unlock(&dbl_exec_lock);
  if (!e) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (n && !all) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  hsa_status_t st = HSA_STATUS_SUCCESS;
  for (size_t i = 0; i < n && st == HSA_STATUS_SUCCESS; i++) st = callback(executable, all[i], data);
  free(all);
  return st;
}

DBL_EXPORT hsa_status_t hsa_ven_amd_loader_iterate_executables(hsa_status_t (*callback)(hsa_executable_t executable,
                                                                                       void* data),
                                                               void* data) {
  DBL_CHECK_OPEN();
  if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  pthread_mutex_lock(&dbl_exec_lock);
  size_t n = 0;
  for (dbl_executable* e = dbl_executables; e; e = e->next) n++;
  hsa_executable_t* all = n ? malloc(n * sizeof *all) : NULL;
  if (all) {
    n = 0;
    for (dbl_executable* e = dbl_executables; e; e = e->next) all[n++] = exec_handle(e);
  }
  pthread_mutex_unlock(&dbl_exec_lock);
  if (n && !all) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  hsa_status_t st = HSA_STATUS_SUCCESS;
  for (size_t i = 0; i < n && st == HSA_STATUS_SUCCESS; i++) st = callback(all[i], data);
  free(all);
  return st;
}

static hsa_status_t loaded_info(const dbl_loaded* l, int attribute, void* value) {
  const bool file = l->storage == HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_FILE;
  switch (attribute) {
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_EXECUTABLE: *(hsa_executable_t*)value = exec_handle(l->exe); break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_KIND:
      *(uint32_t*)value = HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_KIND_AGENT;
      break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_AGENT: *(hsa_agent_t*)value = dbl_agent_handle(l->agent); break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_TYPE: *(uint32_t*)value = l->storage; break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_BASE:
      if (file) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
      *(uint64_t*)value = (uint64_t)(uintptr_t)l->elf;
      break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_SIZE:
      if (file) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
      *(uint64_t*)value = l->elf_size;
      break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_FILE:
      if (!file) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
      *(int*)value = l->fd;
      break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_DELTA:
      *(int64_t*)value = (int64_t)((uint64_t)(uintptr_t)l->memory - l->vaddr_base);
      break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE: *(uint64_t*)value = (uint64_t)(uintptr_t)l->memory; break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE: *(uint64_t*)value = l->size; break;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI_LENGTH: *(uint32_t*)value = (uint32_t)strlen(l->uri); break;
    /* Exactly URI_LENGTH bytes, as ROCr copies them: room for the NUL is the caller's. */
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_URI: memcpy(value, l->uri, strlen(l->uri)); break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

DBL_EXPORT hsa_status_t hsa_ven_amd_loader_loaded_code_object_get_info(
    hsa_loaded_code_object_t loaded_code_object, hsa_ven_amd_loader_loaded_code_object_info_t attribute, void* value) {
  DBL_CHECK_OPEN();
  if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  pthread_mutex_lock(&dbl_exec_lock);
  dbl_loaded* l = dbl_loaded_get(loaded_code_object);
  hsa_status_t st = l ? loaded_info(l, (int)attribute, value) : HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  pthread_mutex_unlock(&dbl_exec_lock);
  return st;
}

/* ---- the extension table ---- */

bool dbl_loader_ext_supported(uint16_t version_major, uint16_t* max_minor) {
  if (version_major != 1) return false;
  if (max_minor) *max_minor = 3;
  return true;
}

size_t dbl_loader_ext_table_size(uint16_t version_minor) {
  switch (version_minor) {
    case 0: return sizeof(hsa_ven_amd_loader_1_00_pfn_t);
    case 1: return sizeof(hsa_ven_amd_loader_1_01_pfn_t);
    case 2: return sizeof(hsa_ven_amd_loader_1_02_pfn_t);
    case 3: return sizeof(hsa_ven_amd_loader_1_03_pfn_t);
    default: return 0;
  }
}

void dbl_loader_ext_fill(void* table, size_t length) {
  /* Each version's table starts with the previous one's entries. */
  const hsa_ven_amd_loader_1_03_pfn_t t = {
      .hsa_ven_amd_loader_query_host_address = hsa_ven_amd_loader_query_host_address,
      .hsa_ven_amd_loader_query_segment_descriptors = hsa_ven_amd_loader_query_segment_descriptors,
      .hsa_ven_amd_loader_query_executable = hsa_ven_amd_loader_query_executable,
      .hsa_ven_amd_loader_executable_iterate_loaded_code_objects =
          hsa_ven_amd_loader_executable_iterate_loaded_code_objects,
      .hsa_ven_amd_loader_loaded_code_object_get_info = hsa_ven_amd_loader_loaded_code_object_get_info,
      .hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size =
          hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size,
      .hsa_ven_amd_loader_iterate_executables = hsa_ven_amd_loader_iterate_executables,
  };
  memcpy(table, &t, length < sizeof t ? length : sizeof t);
}
