/* cltap OpenCL-over-HSA test double -- what a code object says about its
 * kernels: the NT_AMDGPU_METADATA note (type 32, owner "AMDGPU") of an
 * AMDGPU ELF (code object v3 and later), a msgpack map whose
 * "amdhsa.kernels" array lists each kernel's name, symbol, argument layout
 * (offset, size, value kind) and work-group limits. AMD's runtime sets
 * kernel arguments from the same note; the segment sizes themselves are
 * read through hsa_executable_symbol_get_info (kernel.c). */
#include "icd.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#define NT_AMDGPU_METADATA_TYPE 32

/* ---- a msgpack reader: just what the note uses ---- */

typedef struct mp {
  const uint8_t* p;
  const uint8_t* end;
  bool bad;
} mp;

static uint64_t be(mp* m, int n) {
  if (m->bad || m->end - m->p < n) {
    m->bad = true;
    return 0;
  }
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v = v << 8 | m->p[i];
  m->p += n;
  return v;
}

static uint8_t tag(mp* m) { return (uint8_t)be(m, 1); }

static void skip_bytes(mp* m, uint64_t n) {
  if (m->bad || (uint64_t)(m->end - m->p) < n)
    m->bad = true;
  else
    m->p += n;
}

/* Lengths of a map or array; -1 (and `bad`) for anything else. */
static int64_t container(mp* m, bool map) {
  uint8_t t = tag(m);
  if (map && (t & 0xf0) == 0x80) return t & 0x0f;
  if (!map && (t & 0xf0) == 0x90) return t & 0x0f;
  if (t == (map ? 0xde : 0xdc)) return (int64_t)be(m, 2);
  if (t == (map ? 0xdf : 0xdd)) return (int64_t)be(m, 4);
  m->bad = true;
  return -1;
}

/* A string: points into the note, not NUL-terminated. */
static bool str(mp* m, const char** s, size_t* len) {
  uint8_t t = tag(m);
  uint64_t n;
  if ((t & 0xe0) == 0xa0)
    n = t & 0x1f;
  else if (t == 0xd9)
    n = be(m, 1);
  else if (t == 0xda)
    n = be(m, 2);
  else if (t == 0xdb)
    n = be(m, 4);
  else {
    m->bad = true;
    return false;
  }
  *s = (const char*)m->p;
  *len = (size_t)n;
  skip_bytes(m, n);
  return !m->bad;
}

static uint64_t uint_value(mp* m) {
  uint8_t t = tag(m);
  if (t <= 0x7f) return t;
  if (t >= 0xcc && t <= 0xcf) return be(m, 1 << (t - 0xcc));
  if (t >= 0xd0 && t <= 0xd3) return be(m, 1 << (t - 0xd0)); /* signed but never negative here */
  m->bad = true;
  return 0;
}

static void skip(mp* m, int depth) {
  if (depth > 32) {
    m->bad = true;
    return;
  }
  uint8_t t = tag(m);
  if (m->bad) return;
  if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3) return;
  if ((t & 0xf0) == 0x80 || t == 0xde || t == 0xdf) {
    m->p--;
    int64_t n = container(m, true);
    for (int64_t i = 0; i < n * 2 && !m->bad; i++) skip(m, depth + 1);
    return;
  }
  if ((t & 0xf0) == 0x90 || t == 0xdc || t == 0xdd) {
    m->p--;
    int64_t n = container(m, false);
    for (int64_t i = 0; i < n && !m->bad; i++) skip(m, depth + 1);
    return;
  }
  uint64_t n;
  if ((t & 0xe0) == 0xa0) {
    n = t & 0x1f;
  } else {
    switch (t) {
      case 0xc4: case 0xd9: n = be(m, 1); break;
      case 0xc5: case 0xda: n = be(m, 2); break;
      case 0xc6: case 0xdb: n = be(m, 4); break;
      case 0xcc: case 0xd0: n = 1; break;
      case 0xcd: case 0xd1: n = 2; break;
      case 0xce: case 0xd2: case 0xca: n = 4; break;
      case 0xcf: case 0xd3: case 0xcb: n = 8; break;
      case 0xd4: n = 2; break; /* fixext: type byte + data */
      case 0xd5: n = 3; break;
      case 0xd6: n = 5; break;
      case 0xd7: n = 9; break;
      case 0xd8: n = 17; break;
      case 0xc7: n = be(m, 1) + 1; break;
      case 0xc8: n = be(m, 2) + 1; break;
      case 0xc9: n = be(m, 4) + 1; break;
      default: m->bad = true; return;
    }
  }
  skip_bytes(m, n);
}

static bool key_is(const char* s, size_t len, const char* want) {
  return strlen(want) == len && memcmp(s, want, len) == 0;
}

static char* dup_str(mp* m) {
  const char* s;
  size_t len;
  return str(m, &s, &len) ? strndup(s, len) : NULL;
}

/* ---- the kernel entries ---- */

static const struct {
  const char* name;
  ocl_arg_kind kind;
} KINDS[] = {
    {"by_value", OCL_ARG_BY_VALUE},
    {"global_buffer", OCL_ARG_GLOBAL_BUFFER},
    {"dynamic_shared_pointer", OCL_ARG_DYNAMIC_LDS},
    {"hidden_global_offset_x", OCL_ARG_HIDDEN_GLOBAL_OFFSET_X},
    {"hidden_global_offset_y", OCL_ARG_HIDDEN_GLOBAL_OFFSET_Y},
    {"hidden_global_offset_z", OCL_ARG_HIDDEN_GLOBAL_OFFSET_Z},
    {"hidden_block_count_x", OCL_ARG_HIDDEN_BLOCK_COUNT_X},
    {"hidden_block_count_y", OCL_ARG_HIDDEN_BLOCK_COUNT_Y},
    {"hidden_block_count_z", OCL_ARG_HIDDEN_BLOCK_COUNT_Z},
    {"hidden_group_size_x", OCL_ARG_HIDDEN_GROUP_SIZE_X},
    {"hidden_group_size_y", OCL_ARG_HIDDEN_GROUP_SIZE_Y},
    {"hidden_group_size_z", OCL_ARG_HIDDEN_GROUP_SIZE_Z},
    {"hidden_remainder_x", OCL_ARG_HIDDEN_REMAINDER_X},
    {"hidden_remainder_y", OCL_ARG_HIDDEN_REMAINDER_Y},
    {"hidden_remainder_z", OCL_ARG_HIDDEN_REMAINDER_Z},
    {"hidden_grid_dims", OCL_ARG_HIDDEN_GRID_DIMS},
};

static ocl_arg_kind arg_kind(const char* s, size_t len) {
  for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++)
    if (key_is(s, len, KINDS[i].name)) return KINDS[i].kind;
  if (len > 7 && memcmp(s, "hidden_", 7) == 0) return OCL_ARG_HIDDEN_OTHER;
  return OCL_ARG_UNSUPPORTED;
}

static bool is_hidden(ocl_arg_kind k) { return k >= OCL_ARG_HIDDEN_GLOBAL_OFFSET_X; }

static void read_arg(mp* m, ocl_arg_meta* a) {
  int64_t n = container(m, true);
  for (int64_t i = 0; i < n && !m->bad; i++) {
    const char* k;
    size_t kl;
    if (!str(m, &k, &kl)) return;
    if (key_is(k, kl, ".name")) {
      a->name = dup_str(m);
    } else if (key_is(k, kl, ".type_name")) {
      a->type_name = dup_str(m);
    } else if (key_is(k, kl, ".offset")) {
      a->offset = (uint32_t)uint_value(m);
    } else if (key_is(k, kl, ".size")) {
      a->size = (uint32_t)uint_value(m);
    } else if (key_is(k, kl, ".pointee_align")) {
      a->pointee_align = (uint32_t)uint_value(m);
    } else if (key_is(k, kl, ".value_kind")) {
      const char* v;
      size_t vl;
      if (str(m, &v, &vl)) a->kind = arg_kind(v, vl);
    } else {
      skip(m, 0);
    }
  }
}

static void read_kernel(mp* m, ocl_kernel_meta* km) {
  int64_t n = container(m, true);
  for (int64_t i = 0; i < n && !m->bad; i++) {
    const char* k;
    size_t kl;
    if (!str(m, &k, &kl)) return;
    if (key_is(k, kl, ".name")) {
      km->name = dup_str(m);
    } else if (key_is(k, kl, ".symbol")) {
      km->symbol = dup_str(m);
    } else if (key_is(k, kl, ".max_flat_workgroup_size")) {
      km->max_flat_workgroup = (uint32_t)uint_value(m);
    } else if (key_is(k, kl, ".reqd_workgroup_size")) {
      int64_t dims = container(m, false);
      for (int64_t d = 0; d < dims && !m->bad; d++) {
        uint64_t v = uint_value(m);
        if (d < 3) km->reqd_workgroup[d] = (uint32_t)v;
      }
    } else if (key_is(k, kl, ".args")) {
      int64_t count = container(m, false);
      if (count < 0 || count > 1024) {
        m->bad = true;
        return;
      }
      km->args = calloc((size_t)count + 1, sizeof *km->args);
      if (!km->args) {
        m->bad = true;
        return;
      }
      km->arg_count = (uint32_t)count;
      for (int64_t a = 0; a < count && !m->bad; a++) {
        km->args[a].kind = OCL_ARG_UNSUPPORTED;
        read_arg(m, &km->args[a]);
      }
    } else {
      skip(m, 0);
    }
  }
  /* Explicit arguments come first; the hidden ones follow them. */
  while (km->explicit_count < km->arg_count && !is_hidden(km->args[km->explicit_count].kind)) km->explicit_count++;
}

static int read_metadata(mp* m, ocl_kernel_meta** kernels, size_t* count) {
  int64_t n = container(m, true);
  for (int64_t i = 0; i < n && !m->bad; i++) {
    const char* k;
    size_t kl;
    if (!str(m, &k, &kl)) break;
    if (!key_is(k, kl, "amdhsa.kernels")) {
      skip(m, 0);
      continue;
    }
    int64_t nk = container(m, false);
    if (nk < 0 || nk > 4096) return -1;
    *kernels = calloc((size_t)nk + 1, sizeof **kernels);
    if (!*kernels) return -1;
    *count = (size_t)nk;
    for (int64_t j = 0; j < nk && !m->bad; j++) read_kernel(m, &(*kernels)[j]);
    return m->bad ? -1 : 0;
  }
  return -1;
}

/* ---- the note ---- */

static bool in_file(size_t size, uint64_t off, uint64_t len) { return off <= size && len <= size - off; }

static const uint8_t* find_note(const uint8_t* d, size_t size, size_t* desc_size) {
  const Elf64_Ehdr* eh = (const Elf64_Ehdr*)d;
  if (!in_file(size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr))) return NULL;
  const Elf64_Shdr* sh = (const Elf64_Shdr*)(d + eh->e_shoff);
  for (int i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_NOTE || !in_file(size, sh[i].sh_offset, sh[i].sh_size)) continue;
    const uint8_t* p = d + sh[i].sh_offset;
    const uint8_t* end = p + sh[i].sh_size;
    while ((size_t)(end - p) >= sizeof(Elf64_Nhdr)) {
      const Elf64_Nhdr* nh = (const Elf64_Nhdr*)p;
      size_t name_len = (nh->n_namesz + 3u) & ~3u, desc_len = (nh->n_descsz + 3u) & ~3u;
      const uint8_t* name = p + sizeof *nh;
      if ((size_t)(end - name) < name_len || (size_t)(end - name - name_len) < nh->n_descsz) break;
      if (nh->n_type == NT_AMDGPU_METADATA_TYPE && nh->n_namesz == 7 && memcmp(name, "AMDGPU", 7) == 0) {
        *desc_size = nh->n_descsz;
        return name + name_len;
      }
      if ((size_t)(end - name - name_len) < desc_len) break;
      p = name + name_len + desc_len;
    }
  }
  return NULL;
}

int ocl_read_code_object(const uint8_t* elf, size_t size, ocl_kernel_meta** kernels, size_t* count,
                         const char** why) {
  *kernels = NULL;
  *count = 0;
  if (size < sizeof(Elf64_Ehdr) || memcmp(elf, ELFMAG, SELFMAG) != 0 || elf[EI_CLASS] != ELFCLASS64 ||
      ((const Elf64_Ehdr*)elf)->e_machine != EM_AMDGPU) {
    *why = "not a 64-bit AMDGPU ELF code object";
    return -1;
  }
  size_t desc_size = 0;
  const uint8_t* desc = find_note(elf, size, &desc_size);
  if (!desc) {
    *why = "the code object has no AMDGPU metadata note (code object v3 or later is needed)";
    return -1;
  }
  mp m = {desc, desc + desc_size, false};
  if (read_metadata(&m, kernels, count) != 0) {
    ocl_free_kernel_meta(*kernels, *count);
    *kernels = NULL;
    *count = 0;
    *why = "the AMDGPU metadata note could not be read";
    return -1;
  }
  for (size_t i = 0; i < *count; i++)
    if (!(*kernels)[i].name || !(*kernels)[i].symbol) {
      ocl_free_kernel_meta(*kernels, *count);
      *kernels = NULL;
      *count = 0;
      *why = "a kernel in the AMDGPU metadata has no .name or .symbol";
      return -1;
    }
  return 0;
}

void ocl_free_kernel_meta(ocl_kernel_meta* kernels, size_t count) {
  if (!kernels) return;
  for (size_t i = 0; i < count; i++) {
    for (uint32_t a = 0; kernels[i].args && a < kernels[i].arg_count; a++) {
      free(kernels[i].args[a].name);
      free(kernels[i].args[a].type_name);
    }
    free(kernels[i].args);
    free(kernels[i].name);
    free(kernels[i].symbol);
  }
  free(kernels);
}
