/* cltap HSA test double -- code object readers, executables and loaded
 * code objects: the structures executable.c builds and the AMD loader
 * extension (loader_ext.c) reads. */
#ifndef CLTAP_HSA_DOUBLE_EXECUTABLE_H
#define CLTAP_HSA_DOUBLE_EXECUTABLE_H

#include "double.h"
#include "hsa_ven_amd_loader.h"

typedef struct dbl_reader {
  uint64_t magic;
  uint8_t* data;
  size_t size;
  /* Where the code object came from, for the loader extension. */
  hsa_ven_amd_loader_code_object_storage_type_t storage;
  int fd;          /* FILE: the descriptor the application passed */
  char* path;      /* FILE: its path, read when the reader was made (may be NULL) */
  size_t offset;   /* FILE: where the code object starts in it */
  bool whole_file; /* FILE: the reader took the whole file */
} dbl_reader;

typedef struct dbl_executable dbl_executable;

typedef struct dbl_symbol {
  uint64_t magic;
  dbl_executable* exe;
  dbl_agent* agent;
  char* name;
  hsa_symbol_kind_t kind;
  uint64_t address;
  uint64_t size;
  uint32_t kernarg_size;
  uint32_t kernarg_align;
  uint32_t group_size;
  uint32_t private_size;
  bool dynamic_callstack;
} dbl_symbol;

/* One PT_LOAD segment of a loaded code object. */
typedef struct dbl_segment {
  uint64_t vaddr;  /* in the ELF */
  uint64_t memsz;
  uint64_t offset; /* of its bytes in the ELF */
} dbl_segment;

/* A code object loaded into an executable: every PT_LOAD segment copied
 * into one host allocation at its address relative to the lowest one. */
typedef struct dbl_loaded {
  uint64_t magic;
  struct dbl_loaded* next; /* in load order */
  dbl_executable* exe;
  dbl_agent* agent;
  void* memory;
  size_t size;
  uint64_t vaddr_base; /* the lowest PT_LOAD address: memory - vaddr_base is the load delta */
  size_t segment_count;
  dbl_segment* segments;
  uint8_t* elf; /* the double's own copy of the code object, kept while loaded */
  size_t elf_size;
  hsa_ven_amd_loader_code_object_storage_type_t storage;
  int fd;
  char* path;
  char* uri;
} dbl_loaded;

struct dbl_executable {
  uint64_t magic;
  dbl_executable* next;
  hsa_profile_t profile;
  hsa_default_float_rounding_mode_t rounding;
  hsa_executable_state_t state;
  dbl_loaded* loaded;
  size_t symbol_count;
  dbl_symbol** symbols;
};

/* Guards the list of executables and everything in them. */
extern pthread_mutex_t dbl_exec_lock DBL_HIDDEN;
extern dbl_executable* dbl_executables DBL_HIDDEN;
dbl_executable* dbl_exec_get(hsa_executable_t e) DBL_HIDDEN;
dbl_loaded* dbl_loaded_get(hsa_loaded_code_object_t l) DBL_HIDDEN;
/* The loaded code object whose memory holds `address` (dbl_exec_lock held). */
dbl_loaded* dbl_loaded_at(uint64_t address) DBL_HIDDEN;

#endif
