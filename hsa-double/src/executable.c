/* cltap HSA test double -- code object readers and executables.
 *
 * A code object is a 64-bit AMDGPU ELF (code object v3 and later). Loading
 * copies its PT_LOAD segments into host memory at their relative addresses
 * (no relocation is applied). Its global symbols become executable symbols:
 * "NAME.kd" objects are kernels, whose kernel_object is the address of the
 * kernel descriptor in the loaded copy and whose segment sizes come from the
 * descriptor (group_segment_fixed_size at 0, private_segment_fixed_size at 4,
 * kernarg_size at 8), overridden by the AMDGPU metadata note where it has
 * them (as ROCr takes them from there), with the kernarg alignment; other
 * objects are variables. Symbol names keep the ".kd" suffix, as ROCr reports
 * them.
 *
 * Each loaded code object keeps its own copy of the ELF and where it came
 * from (file or memory, a URI), for the AMD loader extension (loader_ext.c). */
#include "executable.h"
#include "metadata.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READER_MAGIC 0x434c544152445221ull
#define EXEC_MAGIC 0x434c544145584543ull
#define SYMBOL_MAGIC 0x434c544153594d42ull
#define LCO_MAGIC 0x434c54414c434f21ull

#define DBL_EF_AMDGPU_MACH 0x0ffu
#define DBL_EF_AMDGPU_MACH_GFX906 0x02fu
#define KD_USES_DYNAMIC_STACK (1u << 11) /* kernel_code_properties bit */

pthread_mutex_t dbl_exec_lock = PTHREAD_MUTEX_INITIALIZER;
dbl_executable* dbl_executables;

/* ---- readers ---- */

static dbl_reader* reader_get(hsa_code_object_reader_t r) {
  dbl_reader* p = (dbl_reader*)(uintptr_t)r.handle;
  return p && p->magic == READER_MAGIC ? p : NULL;
}

static bool looks_like_elf(const uint8_t* d, size_t n) {
  return n >= sizeof(Elf64_Ehdr) && memcmp(d, ELFMAG, SELFMAG) == 0;
}

/* Takes `data` (malloc'ed). A reader made from memory by default. */
static hsa_status_t reader_new(uint8_t* data, size_t size, dbl_reader** out) {
  if (!looks_like_elf(data, size)) {
    free(data);
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  }
  dbl_reader* r = calloc(1, sizeof *r);
  if (!r) {
    free(data);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  r->magic = READER_MAGIC;
  r->data = data;
  r->size = size;
  r->storage = HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY;
  r->fd = -1;
  *out = r;
  return HSA_STATUS_SUCCESS;
}

static hsa_code_object_reader_t reader_handle(dbl_reader* r) {
  hsa_code_object_reader_t h = {(uint64_t)(uintptr_t)r};
  return h;
}

hsa_status_t dbl_hsa_code_object_reader_create_from_memory(const void* code_object, size_t size,
                                                           hsa_code_object_reader_t* code_object_reader) {
  DBL_CHECK_OPEN();
  if (!code_object || size == 0 || !code_object_reader) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  uint8_t* copy = malloc(size);
  if (!copy) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  memcpy(copy, code_object, size);
  dbl_reader* r;
  hsa_status_t st = reader_new(copy, size, &r);
  if (st == HSA_STATUS_SUCCESS) *code_object_reader = reader_handle(r);
  return st;
}

/* Reads `size` bytes at `offset` of `file` (size 0: to the end). */
static hsa_status_t read_file(hsa_file_t file, size_t offset, size_t size, uint8_t** data, size_t* got_size) {
  off_t end = lseek(file, 0, SEEK_END);
  if (end <= 0 || (size_t)end <= offset) return HSA_STATUS_ERROR_INVALID_FILE;
  if (size == 0) size = (size_t)end - offset;
  if (size > (size_t)end - offset) return HSA_STATUS_ERROR_INVALID_FILE;
  uint8_t* d = malloc(size);
  if (!d) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  size_t got = 0;
  while (got < size) {
    ssize_t n = pread(file, d + got, size - got, (off_t)(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      free(d);
      return HSA_STATUS_ERROR_INVALID_FILE;
    }
    got += (size_t)n;
  }
  *data = d;
  *got_size = got;
  return HSA_STATUS_SUCCESS;
}

static hsa_status_t reader_from_file(hsa_file_t file, size_t offset, size_t size,
                                     hsa_code_object_reader_t* code_object_reader) {
  uint8_t* data;
  size_t got;
  hsa_status_t st = read_file(file, offset, size, &data, &got);
  if (st != HSA_STATUS_SUCCESS) return st;
  dbl_reader* r;
  if ((st = reader_new(data, got, &r)) != HSA_STATUS_SUCCESS) return st;
  r->storage = HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_FILE;
  r->fd = file;
  r->offset = offset;
  r->whole_file = offset == 0 && size == 0;
  /* The path now: the application may close the descriptor after loading. */
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", file);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n > 0) {
    path[n] = 0;
    r->path = strdup(path);
  }
  *code_object_reader = reader_handle(r);
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_code_object_reader_create_from_file(hsa_file_t file,
                                                         hsa_code_object_reader_t* code_object_reader) {
  DBL_CHECK_OPEN();
  if (!code_object_reader) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return reader_from_file(file, 0, 0, code_object_reader);
}

/* AMD loader extension 1.02. */
DBL_EXPORT hsa_status_t hsa_ven_amd_loader_code_object_reader_create_from_file_with_offset_size(
    hsa_file_t file, size_t offset, size_t size, hsa_code_object_reader_t* code_object_reader) {
  DBL_CHECK_OPEN();
  if (!code_object_reader || size == 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return reader_from_file(file, offset, size, code_object_reader);
}

hsa_status_t dbl_hsa_code_object_reader_destroy(hsa_code_object_reader_t code_object_reader) {
  DBL_CHECK_OPEN();
  dbl_reader* r = reader_get(code_object_reader);
  if (!r) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  r->magic = 0;
  free(r->data);
  free(r->path);
  free(r);
  return HSA_STATUS_SUCCESS;
}

/* ---- executables ---- */

dbl_executable* dbl_exec_get(hsa_executable_t e) {
  dbl_executable* p = (dbl_executable*)(uintptr_t)e.handle;
  return p && p->magic == EXEC_MAGIC ? p : NULL;
}

dbl_loaded* dbl_loaded_get(hsa_loaded_code_object_t lco) {
  dbl_loaded* p = (dbl_loaded*)(uintptr_t)lco.handle;
  return p && p->magic == LCO_MAGIC ? p : NULL;
}

dbl_loaded* dbl_loaded_at(uint64_t address) {
  for (dbl_executable* e = dbl_executables; e; e = e->next)
    for (dbl_loaded* l = e->loaded; l; l = l->next)
      if (address >= (uint64_t)(uintptr_t)l->memory && address - (uint64_t)(uintptr_t)l->memory < l->size) return l;
  return NULL;
}

static dbl_symbol* symbol_get(hsa_executable_symbol_t s) {
  dbl_symbol* p = (dbl_symbol*)(uintptr_t)s.handle;
  return p && p->magic == SYMBOL_MAGIC ? p : NULL;
}

static hsa_executable_symbol_t symbol_handle(dbl_symbol* s) {
  hsa_executable_symbol_t h = {(uint64_t)(uintptr_t)s};
  return h;
}

hsa_status_t dbl_hsa_executable_create_alt(hsa_profile_t profile,
                                           hsa_default_float_rounding_mode_t default_float_rounding_mode,
                                           const char* options, hsa_executable_t* executable) {
  (void)options;
  DBL_CHECK_OPEN();
  if (!executable || (profile != HSA_PROFILE_BASE && profile != HSA_PROFILE_FULL) ||
      default_float_rounding_mode > HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR)
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  dbl_executable* e = calloc(1, sizeof *e);
  if (!e) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  e->magic = EXEC_MAGIC;
  e->profile = profile;
  e->rounding = default_float_rounding_mode;
  e->state = HSA_EXECUTABLE_STATE_UNFROZEN;
  pthread_mutex_lock(&dbl_exec_lock);
  e->next = dbl_executables;
  dbl_executables = e;
  pthread_mutex_unlock(&dbl_exec_lock);
  executable->handle = (uint64_t)(uintptr_t)e;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_executable_create(hsa_profile_t profile, hsa_executable_state_t executable_state,
                                       const char* options, hsa_executable_t* executable) {
  (void)executable_state;
  return dbl_hsa_executable_create_alt(profile, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, options, executable);
}

static void loaded_free(dbl_loaded* l) {
  l->magic = 0;
  free(l->memory);
  free(l->segments);
  free(l->elf);
  free(l->path);
  free(l->uri);
  free(l);
}

static void exec_free(dbl_executable* e) {
  for (size_t i = 0; i < e->symbol_count; i++) {
    e->symbols[i]->magic = 0;
    free(e->symbols[i]->name);
    free(e->symbols[i]);
  }
  free(e->symbols);
  while (e->loaded) {
    dbl_loaded* l = e->loaded;
    e->loaded = l->next;
    loaded_free(l);
  }
  e->magic = 0;
  free(e);
}

hsa_status_t dbl_hsa_executable_destroy(hsa_executable_t executable) {
  DBL_CHECK_OPEN();
  pthread_mutex_lock(&dbl_exec_lock);
  dbl_executable* e = dbl_exec_get(executable);
  if (!e) {
    pthread_mutex_unlock(&dbl_exec_lock);
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  }
  for (dbl_executable** pp = &dbl_executables; *pp; pp = &(*pp)->next)
    if (*pp == e) {
      *pp = e->next;
      break;
    }
  pthread_mutex_unlock(&dbl_exec_lock);
  exec_free(e);
  return HSA_STATUS_SUCCESS;
}

void dbl_executables_shutdown(void) {
  pthread_mutex_lock(&dbl_exec_lock);
  while (dbl_executables) {
    dbl_executable* e = dbl_executables;
    dbl_executables = e->next;
    exec_free(e);
  }
  pthread_mutex_unlock(&dbl_exec_lock);
}

static bool in_file(size_t size, uint64_t off, uint64_t len) { return off <= size && len <= size - off; }

struct meta_ctx {
  dbl_executable* e;
  size_t from, to;
};

static void apply_meta(const dbl_kernel_meta* m, void* arg) {
  struct meta_ctx* c = arg;
  for (size_t i = c->from; i < c->to; i++) {
    dbl_symbol* s = c->e->symbols[i];
    if (s->kind != HSA_SYMBOL_KIND_KERNEL || strcmp(s->name, m->symbol) != 0) continue;
    if (m->have & DBL_META_KERNARG_SIZE) s->kernarg_size = m->kernarg_size;
    if (m->have & DBL_META_KERNARG_ALIGN) s->kernarg_align = m->kernarg_align;
    if (m->have & DBL_META_GROUP) s->group_size = m->group_size;
    if (m->have & DBL_META_PRIVATE) s->private_size = m->private_size;
    if (m->have & DBL_META_DYNAMIC_STACK) s->dynamic_callstack = m->dynamic_stack;
    dbl_log("metadata of %s: kernarg %u (align %u), group %u, private %u", s->name, s->kernarg_size,
            s->kernarg_align, s->group_size, s->private_size);
  }
}

/* `path` as a URI path: bytes outside [a-zA-Z0-9/_.~-] become %XX. */
static char* uri_encode(const char* path) {
  static const char hex[] = "0123456789ABCDEF";
  char* out = malloc(strlen(path) * 3 + 1);
  if (!out) return NULL;
  char* o = out;
  for (const unsigned char* p = (const unsigned char*)path; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("/_.~-", *p)) {
      *o++ = (char)*p;
    } else {
      *o++ = '%';
      *o++ = hex[*p >> 4];
      *o++ = hex[*p & 15];
    }
  }
  *o = 0;
  return out;
}

/* The URI ROCr gives a loaded code object (hsa_ven_amd_loader.h):
 * file://PATH[#offset=N&size=N] for a file, memory://PID#offset=0xADDR&size=N
 * for memory (the double's own copy of the code object). */
static char* make_uri(const dbl_loaded* l, const dbl_reader* r) {
  char* uri = NULL;
  if (l->storage == HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_FILE) {
    char fallback[64];
    snprintf(fallback, sizeof fallback, "/proc/self/fd/%d", r->fd);
    char* enc = uri_encode(l->path ? l->path : fallback);
    if (!enc) return NULL;
    int rc = r->whole_file ? asprintf(&uri, "file://%s", enc)
                           : asprintf(&uri, "file://%s#offset=%zu&size=%zu", enc, r->offset, r->size);
    free(enc);
    return rc < 0 ? NULL : uri;
  }
  if (asprintf(&uri, "memory://%d#offset=0x%llx&size=%zu", (int)getpid(), (unsigned long long)(uintptr_t)l->elf,
               l->elf_size) < 0)
    return NULL;
  return uri;
}

/* What the loader extension tells of a loaded code object: its segments,
 * a copy of the ELF, where it came from. */
static hsa_status_t describe(dbl_loaded* l, dbl_executable* e, dbl_agent* a, const dbl_reader* r, const Elf64_Phdr* ph,
                             int phnum, uint64_t lo) {
  l->exe = e;
  l->agent = a;
  l->vaddr_base = lo;
  l->storage = r->storage;
  l->fd = r->fd;
  size_t n = 0;
  for (int i = 0; i < phnum; i++) n += ph[i].p_type == PT_LOAD;
  l->segments = calloc(n, sizeof *l->segments);
  l->elf = malloc(r->size);
  l->path = r->path ? strdup(r->path) : NULL;
  if (!l->segments || !l->elf || (r->path && !l->path)) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  for (int i = 0; i < phnum; i++)
    if (ph[i].p_type == PT_LOAD) {
      dbl_segment* s = &l->segments[l->segment_count++];
      s->vaddr = ph[i].p_vaddr;
      s->memsz = ph[i].p_memsz;
      s->offset = ph[i].p_offset; /* from the start of the code object */
    }
  memcpy(l->elf, r->data, r->size);
  l->elf_size = r->size;
  l->uri = make_uri(l, r);
  return l->uri ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_OUT_OF_RESOURCES;
}

/* Loads the code object of `r` for agent `a` into `e` (dbl_exec_lock held). */
static hsa_status_t load(dbl_executable* e, dbl_agent* a, dbl_reader* r, dbl_loaded** out) {
  const uint8_t* d = r->data;
  const Elf64_Ehdr* eh = (const Elf64_Ehdr*)d;
  if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_machine != EM_AMDGPU)
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  if ((eh->e_flags & DBL_EF_AMDGPU_MACH) != DBL_EF_AMDGPU_MACH_GFX906) {
    dbl_log("code object for e_flags machine 0x%x, not gfx906", eh->e_flags & DBL_EF_AMDGPU_MACH);
    return HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
  }
  if (!in_file(r->size, eh->e_phoff, (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr)) ||
      !in_file(r->size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)))
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  const Elf64_Phdr* ph = (const Elf64_Phdr*)(d + eh->e_phoff);
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int i = 0; i < eh->e_phnum; i++) {
    if (ph[i].p_type != PT_LOAD) continue;
    if (!in_file(r->size, ph[i].p_offset, ph[i].p_filesz) || ph[i].p_filesz > ph[i].p_memsz)
      return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    if (ph[i].p_vaddr < lo) lo = ph[i].p_vaddr;
    if (ph[i].p_vaddr + ph[i].p_memsz > hi) hi = ph[i].p_vaddr + ph[i].p_memsz;
  }
  if (lo == UINT64_MAX) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  size_t span = (size_t)(hi - lo);
  dbl_loaded* l = calloc(1, sizeof *l);
  uint8_t* mem = aligned_alloc(4096, (span + 4095) & ~(size_t)4095);
  if (!l || !mem) {
    free(l);
    free(mem);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  memset(mem, 0, (span + 4095) & ~(size_t)4095);
  for (int i = 0; i < eh->e_phnum; i++)
    if (ph[i].p_type == PT_LOAD) memcpy(mem + (ph[i].p_vaddr - lo), d + ph[i].p_offset, ph[i].p_filesz);
  l->magic = LCO_MAGIC;
  l->memory = mem;
  l->size = span;
  hsa_status_t st = describe(l, e, a, r, ph, eh->e_phnum, lo);
  if (st != HSA_STATUS_SUCCESS) goto fail;

  /* Symbols: the static table if present, else the dynamic one. */
  const Elf64_Shdr* sh = (const Elf64_Shdr*)(d + eh->e_shoff);
  const Elf64_Shdr* symtab = NULL;
  for (int i = 0; i < eh->e_shnum; i++)
    if (sh[i].sh_type == SHT_SYMTAB) symtab = &sh[i];
  if (!symtab)
    for (int i = 0; i < eh->e_shnum; i++)
      if (sh[i].sh_type == SHT_DYNSYM) symtab = &sh[i];
  const size_t first_new = e->symbol_count;
  if (symtab) {
    if (symtab->sh_link >= eh->e_shnum || !in_file(r->size, symtab->sh_offset, symtab->sh_size)) {
      st = HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
      goto fail;
    }
    const Elf64_Shdr* strtab = &sh[symtab->sh_link];
    if (!in_file(r->size, strtab->sh_offset, strtab->sh_size)) {
      st = HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
      goto fail;
    }
    const char* strs = (const char*)d + strtab->sh_offset;
    const Elf64_Sym* syms = (const Elf64_Sym*)(d + symtab->sh_offset);
    size_t n = symtab->sh_size / sizeof(Elf64_Sym);
    for (size_t i = 0; i < n; i++) {
      const Elf64_Sym* s = &syms[i];
      int bind = ELF64_ST_BIND(s->st_info), type = ELF64_ST_TYPE(s->st_info);
      if ((bind != STB_GLOBAL && bind != STB_WEAK) || type != STT_OBJECT || s->st_shndx == SHN_UNDEF) continue;
      if (s->st_name >= strtab->sh_size || s->st_value < lo || s->st_value + s->st_size > hi) continue;
      const char* name = strs + s->st_name;
      size_t len = strnlen(name, strtab->sh_size - s->st_name);
      dbl_symbol* sym = calloc(1, sizeof *sym);
      dbl_symbol** grown = realloc(e->symbols, (e->symbol_count + 1) * sizeof *grown);
      if (!sym || !grown || !(sym->name = strndup(name, len))) {
        if (sym) free(sym);
        if (grown) e->symbols = grown;
        st = HSA_STATUS_ERROR_OUT_OF_RESOURCES;
        goto fail;
      }
      e->symbols = grown;
      sym->magic = SYMBOL_MAGIC;
      sym->exe = e;
      sym->agent = a;
      sym->address = (uint64_t)(uintptr_t)(mem + (s->st_value - lo));
      sym->size = s->st_size;
      if (len > 3 && strcmp(name + len - 3, ".kd") == 0 && s->st_size >= 64) {
        const uint8_t* kd = (const uint8_t*)(uintptr_t)sym->address;
        uint16_t props;
        sym->kind = HSA_SYMBOL_KIND_KERNEL;
        memcpy(&sym->group_size, kd + 0, 4);
        memcpy(&sym->private_size, kd + 4, 4);
        memcpy(&sym->kernarg_size, kd + 8, 4);
        memcpy(&props, kd + 56, 2);
        sym->dynamic_callstack = (props & KD_USES_DYNAMIC_STACK) != 0;
        sym->kernarg_align = 16;
      } else {
        sym->kind = HSA_SYMBOL_KIND_VARIABLE;
      }
      e->symbols[e->symbol_count++] = sym;
      dbl_log("loaded symbol %s (%s) at %#llx", sym->name, sym->kind == HSA_SYMBOL_KIND_KERNEL ? "kernel" : "variable",
              (unsigned long long)sym->address);
    }
  }
  struct meta_ctx ctx = {e, first_new, e->symbol_count};
  if (dbl_read_kernel_metadata(d, r->size, apply_meta, &ctx) != 0) dbl_log("code object: no usable metadata note");
  dbl_loaded** tail = &e->loaded; /* kept in load order */
  while (*tail) tail = &(*tail)->next;
  *tail = l;
  *out = l;
  return HSA_STATUS_SUCCESS;
fail:
  /* Drop the symbols of this load: they point into mem. */
  while (e->symbol_count && e->symbols[e->symbol_count - 1]->address >= (uint64_t)(uintptr_t)mem &&
         e->symbols[e->symbol_count - 1]->address < (uint64_t)(uintptr_t)mem + span) {
    dbl_symbol* s = e->symbols[--e->symbol_count];
    free(s->name);
    free(s);
  }
  loaded_free(l);
  return st;
}

hsa_status_t dbl_hsa_executable_load_agent_code_object(hsa_executable_t executable, hsa_agent_t agent,
                                                       hsa_code_object_reader_t code_object_reader,
                                                       const char* options,
                                                       hsa_loaded_code_object_t* loaded_code_object) {
  (void)options;
  DBL_CHECK_OPEN();
  dbl_agent* a = dbl_agent_get(agent);
  if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
  dbl_reader* r = reader_get(code_object_reader);
  if (!r) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  pthread_mutex_lock(&dbl_exec_lock);
  dbl_executable* e = dbl_exec_get(executable);
  hsa_status_t st;
  if (!e) {
    st = HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  } else if (e->state == HSA_EXECUTABLE_STATE_FROZEN) {
    st = HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  } else if (a->device != HSA_DEVICE_TYPE_GPU) {
    st = HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS;
  } else {
    dbl_loaded* l = NULL;
    st = load(e, a, r, &l);
    if (st == HSA_STATUS_SUCCESS && loaded_code_object) loaded_code_object->handle = (uint64_t)(uintptr_t)l;
  }
  pthread_mutex_unlock(&dbl_exec_lock);
  return st;
}

hsa_status_t dbl_hsa_executable_freeze(hsa_executable_t executable, const char* options) {
  (void)options;
  DBL_CHECK_OPEN();
  pthread_mutex_lock(&dbl_exec_lock);
  dbl_executable* e = dbl_exec_get(executable);
  hsa_status_t st = HSA_STATUS_SUCCESS;
  if (!e)
    st = HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  else if (e->state == HSA_EXECUTABLE_STATE_FROZEN)
    st = HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  else
    e->state = HSA_EXECUTABLE_STATE_FROZEN;
  pthread_mutex_unlock(&dbl_exec_lock);
  return st;
}

hsa_status_t dbl_hsa_executable_get_info(hsa_executable_t executable, hsa_executable_info_t attribute,
                                         void* value) {
  DBL_CHECK_OPEN();
  dbl_executable* e = dbl_exec_get(executable);
  if (!e) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  switch ((int)attribute) {
    case HSA_EXECUTABLE_INFO_PROFILE: *(hsa_profile_t*)value = e->profile; break;
    case HSA_EXECUTABLE_INFO_STATE: *(hsa_executable_state_t*)value = e->state; break;
    case HSA_EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE:
      *(hsa_default_float_rounding_mode_t*)value = e->rounding;
      break;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_executable_validate(hsa_executable_t executable, uint32_t* result) {
  DBL_CHECK_OPEN();
  if (!dbl_exec_get(executable)) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!result) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  *result = 0;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_executable_validate_alt(hsa_executable_t executable, const char* options,
                                             uint32_t* result) {
  (void)options;
  return dbl_hsa_executable_validate(executable, result);
}

/* ---- symbols ---- */

static hsa_status_t find_symbol(hsa_executable_t executable, const char* name, const hsa_agent_t* agent,
                                hsa_executable_symbol_t* symbol) {
  DBL_CHECK_OPEN();
  dbl_executable* e = dbl_exec_get(executable);
  if (!e) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!name || !symbol) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  /* Without an agent only program symbols match, and there are none: every
   * symbol of an agent code object is an agent symbol. */
  if (!agent) return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
  dbl_agent* a = dbl_agent_get(*agent);
  if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
  hsa_status_t st = HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
  pthread_mutex_lock(&dbl_exec_lock);
  for (size_t i = 0; i < e->symbol_count; i++)
    if (e->symbols[i]->agent == a && strcmp(e->symbols[i]->name, name) == 0) {
      *symbol = symbol_handle(e->symbols[i]);
      st = HSA_STATUS_SUCCESS;
      break;
    }
  pthread_mutex_unlock(&dbl_exec_lock);
  return st;
}

hsa_status_t dbl_hsa_executable_get_symbol_by_name(hsa_executable_t executable, const char* symbol_name,
                                                   const hsa_agent_t* agent, hsa_executable_symbol_t* symbol) {
  return find_symbol(executable, symbol_name, agent, symbol);
}

hsa_status_t dbl_hsa_executable_get_symbol(hsa_executable_t executable, const char* module_name,
                                           const char* symbol_name, hsa_agent_t agent, int32_t call_convention,
                                           hsa_executable_symbol_t* symbol) {
  (void)module_name;
  (void)call_convention;
  return find_symbol(executable, symbol_name, &agent, symbol);
}

hsa_status_t dbl_hsa_executable_iterate_symbols(hsa_executable_t executable,
                                                hsa_status_t (*callback)(hsa_executable_t, hsa_executable_symbol_t,
                                                                         void*),
                                                void* data) {
  DBL_CHECK_OPEN();
  dbl_executable* e = dbl_exec_get(executable);
  if (!e) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (size_t i = 0; i < e->symbol_count; i++) {
    hsa_status_t st = callback(executable, symbol_handle(e->symbols[i]), data);
    if (st != HSA_STATUS_SUCCESS) return st;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_executable_iterate_agent_symbols(
    hsa_executable_t executable, hsa_agent_t agent,
    hsa_status_t (*callback)(hsa_executable_t, hsa_agent_t, hsa_executable_symbol_t, void*), void* data) {
  DBL_CHECK_OPEN();
  dbl_executable* e = dbl_exec_get(executable);
  if (!e) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  dbl_agent* a = dbl_agent_get(agent);
  if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
  if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  for (size_t i = 0; i < e->symbol_count; i++) {
    if (e->symbols[i]->agent != a) continue;
    hsa_status_t st = callback(executable, agent, symbol_handle(e->symbols[i]), data);
    if (st != HSA_STATUS_SUCCESS) return st;
  }
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_executable_iterate_program_symbols(
    hsa_executable_t executable, hsa_status_t (*callback)(hsa_executable_t, hsa_executable_symbol_t, void*),
    void* data) {
  (void)data;
  DBL_CHECK_OPEN();
  if (!dbl_exec_get(executable)) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!callback) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  return HSA_STATUS_SUCCESS; /* no program symbols */
}

hsa_status_t dbl_hsa_executable_symbol_get_info(hsa_executable_symbol_t executable_symbol,
                                                hsa_executable_symbol_info_t attribute, void* value) {
  DBL_CHECK_OPEN();
  dbl_symbol* s = symbol_get(executable_symbol);
  if (!s) return HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL;
  if (!value) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  const bool kernel = s->kind == HSA_SYMBOL_KIND_KERNEL;
  switch ((int)attribute) {
    case HSA_EXECUTABLE_SYMBOL_INFO_TYPE: *(hsa_symbol_kind_t*)value = s->kind; return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH: *(uint32_t*)value = (uint32_t)strlen(s->name); return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_NAME: /* not NUL-terminated */
      memcpy(value, s->name, strlen(s->name));
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME_LENGTH: *(uint32_t*)value = 0; return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_MODULE_NAME: return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_AGENT: *(hsa_agent_t*)value = dbl_agent_handle(s->agent); return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE:
      *(hsa_symbol_linkage_t*)value = HSA_SYMBOL_LINKAGE_PROGRAM;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION: *(bool*)value = true; return HSA_STATUS_SUCCESS;
    default: break;
  }
  if (kernel) {
    switch ((int)attribute) {
      case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT: *(uint64_t*)value = s->address; return HSA_STATUS_SUCCESS;
      case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE: *(uint32_t*)value = s->kernarg_size; return HSA_STATUS_SUCCESS;
      case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT:
        *(uint32_t*)value = s->kernarg_align;
        return HSA_STATUS_SUCCESS;
      case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE: *(uint32_t*)value = s->group_size; return HSA_STATUS_SUCCESS;
      case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE: *(uint32_t*)value = s->private_size; return HSA_STATUS_SUCCESS;
      case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK: *(bool*)value = s->dynamic_callstack; return HSA_STATUS_SUCCESS;
      case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_CALL_CONVENTION: *(uint32_t*)value = 0; return HSA_STATUS_SUCCESS;
      default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
  }
  switch ((int)attribute) {
    case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS: *(uint64_t*)value = s->address; return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALLOCATION:
      *(hsa_variable_allocation_t*)value = HSA_VARIABLE_ALLOCATION_AGENT;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SEGMENT:
      *(hsa_variable_segment_t*)value = HSA_VARIABLE_SEGMENT_GLOBAL;
      return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ALIGNMENT: *(uint32_t*)value = 8; return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE: *(uint32_t*)value = (uint32_t)s->size; return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_IS_CONST: *(bool*)value = false; return HSA_STATUS_SUCCESS;
    default: return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  }
}

const char* dbl_kernel_name(uint64_t kernel_object, char* buf, size_t len) {
  const char* found = NULL;
  pthread_mutex_lock(&dbl_exec_lock);
  for (dbl_executable* e = dbl_executables; e && !found; e = e->next)
    for (size_t i = 0; i < e->symbol_count; i++)
      if (e->symbols[i]->kind == HSA_SYMBOL_KIND_KERNEL && e->symbols[i]->address == kernel_object) {
        snprintf(buf, len, "%s", e->symbols[i]->name);
        found = buf;
        break;
      }
  pthread_mutex_unlock(&dbl_exec_lock);
  return found;
}
