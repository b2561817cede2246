/* cltap HSA test double -- the AMDGPU metadata note of a code object (v3 and
 * later: NT_AMDGPU_METADATA, owner "AMDGPU", a MessagePack map). Only what
 * executable symbols report is read: per kernel its .symbol,
 * .kernarg_segment_size, .kernarg_segment_align, .group_segment_fixed_size,
 * .private_segment_fixed_size and .uses_dynamic_stack. */
#include "metadata.h"

#include <elf.h>
#include <string.h>

#define NT_AMDGPU_METADATA 32

typedef struct {
  const uint8_t* p;
  const uint8_t* end;
  bool bad;
} cur;

static bool need(cur* c, size_t n) {
  if (c->bad || (size_t)(c->end - c->p) < n) {
    c->bad = true;
    return false;
  }
  return true;
}

static uint64_t be(cur* c, int n) {
  if (!need(c, (size_t)n)) return 0;
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v = v << 8 | c->p[i];
  c->p += n;
  return v;
}

/* The next value if it is an unsigned integer or a bool; else skipped. */
static bool read_uint(cur* c, uint64_t* out);
static void skip(cur* c, int depth);

/* A string value: its bytes and length, or NULL if not a string. */
static const char* read_str(cur* c, size_t* len) {
  if (!need(c, 1)) return NULL;
  uint8_t t = *c->p;
  size_t n;
  if ((t & 0xe0) == 0xa0) {
    n = t & 0x1f;
    c->p++;
  } else if (t == 0xd9) {
    c->p++;
    n = be(c, 1);
  } else if (t == 0xda) {
    c->p++;
    n = be(c, 2);
  } else if (t == 0xdb) {
    c->p++;
    n = be(c, 4);
  } else {
    skip(c, 0);
    return NULL;
  }
  if (!need(c, n)) return NULL;
  const char* s = (const char*)c->p;
  c->p += n;
  *len = n;
  return s;
}

/* The count of a map (pairs) or array, or -1 (value skipped) if it is not
 * one of the kind asked for. */
static int64_t read_container(cur* c, bool map) {
  if (!need(c, 1)) return -1;
  uint8_t t = *c->p;
  if (map ? (t & 0xf0) == 0x80 : (t & 0xf0) == 0x90) {
    c->p++;
    return t & 0x0f;
  }
  if (t == (map ? 0xde : 0xdc)) {
    c->p++;
    return (int64_t)be(c, 2);
  }
  if (t == (map ? 0xdf : 0xdd)) {
    c->p++;
    return (int64_t)be(c, 4);
  }
  skip(c, 0);
  return -1;
}

static void skip(cur* c, int depth) {
  if (depth > 32 || !need(c, 1)) {
    c->bad = true;
    return;
  }
  uint8_t t = *c->p++;
  size_t n = 0;
  if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3) return;
  if ((t & 0xf0) == 0x80 || (t & 0xf0) == 0x90) {
    n = (t & 0x0f) * ((t & 0xf0) == 0x80 ? 2 : 1);
    for (size_t i = 0; i < n && !c->bad; i++) skip(c, depth + 1);
    return;
  }
  if ((t & 0xe0) == 0xa0) {
    n = t & 0x1f;
  } else {
    switch (t) {
      case 0xc4: case 0xd9: n = be(c, 1); break;
      case 0xc5: case 0xda: n = be(c, 2); break;
      case 0xc6: case 0xdb: n = be(c, 4); break;
      case 0xc7: n = be(c, 1) + 1; break;
      case 0xc8: n = be(c, 2) + 1; break;
      case 0xc9: n = be(c, 4) + 1; break;
      case 0xca: n = 4; break;
      case 0xcb: n = 8; break;
      case 0xcc: case 0xd0: n = 1; break;
      case 0xcd: case 0xd1: n = 2; break;
      case 0xce: case 0xd2: n = 4; break;
      case 0xcf: case 0xd3: n = 8; break;
      case 0xd4: n = 2; break;
      case 0xd5: n = 3; break;
      case 0xd6: n = 5; break;
      case 0xd7: n = 9; break;
      case 0xd8: n = 17; break;
      case 0xdc: case 0xdd: {
        uint64_t k = be(c, t == 0xdc ? 2 : 4);
        for (uint64_t i = 0; i < k && !c->bad; i++) skip(c, depth + 1);
        return;
      }
      case 0xde: case 0xdf: {
        uint64_t k = be(c, t == 0xde ? 2 : 4);
        for (uint64_t i = 0; i < 2 * k && !c->bad; i++) skip(c, depth + 1);
        return;
      }
      default: c->bad = true; return;
    }
  }
  if (need(c, n)) c->p += n;
}

static bool read_uint(cur* c, uint64_t* out) {
  if (!need(c, 1)) return false;
  uint8_t t = *c->p;
  if (t <= 0x7f) {
    c->p++;
    *out = t;
    return true;
  }
  if (t == 0xc2 || t == 0xc3) {
    c->p++;
    *out = t == 0xc3;
    return true;
  }
  if (t >= 0xcc && t <= 0xcf) {
    c->p++;
    *out = be(c, 1 << (t - 0xcc));
    return !c->bad;
  }
  skip(c, 0);
  return false;
}

static bool key_is(const char* k, size_t n, const char* want) { return strlen(want) == n && memcmp(k, want, n) == 0; }

static void parse_kernel(cur* c, dbl_kernel_meta_fn fn, void* arg) {
  int64_t pairs = read_container(c, true);
  dbl_kernel_meta m;
  memset(&m, 0, sizeof m);
  for (int64_t i = 0; i < pairs && !c->bad; i++) {
    size_t n;
    const char* k = read_str(c, &n);
    if (!k) {
      skip(c, 0);
      continue;
    }
    uint64_t v;
    if (key_is(k, n, ".symbol")) {
      size_t sn;
      const char* s = read_str(c, &sn);
      if (s && sn < sizeof m.symbol) {
        memcpy(m.symbol, s, sn);
        m.symbol[sn] = 0;
      }
    } else if (key_is(k, n, ".kernarg_segment_size")) {
      if (read_uint(c, &v)) m.kernarg_size = (uint32_t)v, m.have |= DBL_META_KERNARG_SIZE;
    } else if (key_is(k, n, ".kernarg_segment_align")) {
      if (read_uint(c, &v)) m.kernarg_align = (uint32_t)v, m.have |= DBL_META_KERNARG_ALIGN;
    } else if (key_is(k, n, ".group_segment_fixed_size")) {
      if (read_uint(c, &v)) m.group_size = (uint32_t)v, m.have |= DBL_META_GROUP;
    } else if (key_is(k, n, ".private_segment_fixed_size")) {
      if (read_uint(c, &v)) m.private_size = (uint32_t)v, m.have |= DBL_META_PRIVATE;
    } else if (key_is(k, n, ".uses_dynamic_stack")) {
      if (read_uint(c, &v)) m.dynamic_stack = v != 0, m.have |= DBL_META_DYNAMIC_STACK;
    } else {
      skip(c, 0);
    }
  }
  if (!c->bad && m.symbol[0]) fn(&m, arg);
}

static int parse_metadata(const uint8_t* p, size_t len, dbl_kernel_meta_fn fn, void* arg) {
  cur c = {p, p + len, false};
  int64_t pairs = read_container(&c, true);
  for (int64_t i = 0; i < pairs && !c.bad; i++) {
    size_t n;
    const char* k = read_str(&c, &n);
    if (k && key_is(k, n, "amdhsa.kernels")) {
      int64_t kernels = read_container(&c, false);
      for (int64_t j = 0; j < kernels && !c.bad; j++) parse_kernel(&c, fn, arg);
    } else {
      skip(&c, 0);
    }
  }
  return c.bad ? -1 : 0;
}

int dbl_read_kernel_metadata(const uint8_t* elf, size_t size, dbl_kernel_meta_fn fn, void* arg) {
  const Elf64_Ehdr* eh = (const Elf64_Ehdr*)elf;
  if (size < sizeof *eh || eh->e_phoff > size || (size - eh->e_phoff) / sizeof(Elf64_Phdr) < eh->e_phnum) return -1;
  const Elf64_Phdr* ph = (const Elf64_Phdr*)(elf + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; i++) {
    if (ph[i].p_type != PT_NOTE || ph[i].p_offset > size || ph[i].p_filesz > size - ph[i].p_offset) continue;
    const uint8_t* p = elf + ph[i].p_offset;
    const uint8_t* end = p + ph[i].p_filesz;
    while ((size_t)(end - p) >= 12) {
      uint32_t namesz, descsz, type;
      memcpy(&namesz, p, 4);
      memcpy(&descsz, p + 4, 4);
      memcpy(&type, p + 8, 4);
      size_t name_pad = (namesz + 3u) & ~3u, desc_pad = (descsz + 3u) & ~3u;
      if ((size_t)(end - p) - 12 < name_pad || (size_t)(end - p) - 12 - name_pad < descsz) break;
      const char* name = (const char*)p + 12;
      const uint8_t* desc = p + 12 + name_pad;
      if (type == NT_AMDGPU_METADATA && namesz == 7 && memcmp(name, "AMDGPU", 7) == 0)
        return parse_metadata(desc, descsz, fn, arg);
      if ((size_t)(end - p) - 12 - name_pad < desc_pad) break;
      p += 12 + name_pad + desc_pad;
    }
  }
  return -1;
}
