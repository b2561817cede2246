/* cltap HSA test double -- reading the AMDGPU metadata note. */
#ifndef CLTAP_HSA_DOUBLE_METADATA_H
#define CLTAP_HSA_DOUBLE_METADATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
  DBL_META_KERNARG_SIZE = 1,
  DBL_META_KERNARG_ALIGN = 2,
  DBL_META_GROUP = 4,
  DBL_META_PRIVATE = 8,
  DBL_META_DYNAMIC_STACK = 16,
};

typedef struct dbl_kernel_meta {
  char symbol[256]; /* "name.kd" */
  unsigned have;    /* DBL_META_* bits: which fields the note gave */
  uint32_t kernarg_size, kernarg_align, group_size, private_size;
  bool dynamic_stack;
} dbl_kernel_meta;

typedef void (*dbl_kernel_meta_fn)(const dbl_kernel_meta* meta, void* arg);

/* Calls fn for each kernel of the code object's metadata note. Returns 0, or
 * -1 when there is no note or it is malformed (kernels found before the
 * fault were passed on). */
int dbl_read_kernel_metadata(const uint8_t* elf, size_t size, dbl_kernel_meta_fn fn, void* arg)
    __attribute__((visibility("hidden")));

#endif
