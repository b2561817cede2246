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
 * them. */
#include "double.h"
#include "metadata.h"

#include <elf.h>
#include <errno.h>
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

typedef struct dbl_reader {
  uint64_t magic;
  uint8_t* data;
  size_t size;
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

typedef struct dbl_loaded {
  uint64_t magic;
  struct dbl_loaded* next;
  void* memory;
  size_t size;
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

static pthread_mutex_t exec_lock = PTHREAD_MUTEX_INITIALIZER;
static dbl_executable* executables;

/* ---- readers ---- */

static dbl_reader* reader_get(hsa_code_object_reader_t r) {
  dbl_reader* p = (dbl_reader*)(uintptr_t)r.handle;
  return p && p->magic == READER_MAGIC ? p : NULL;
}

static bool looks_like_elf(const uint8_t* d, size_t n) {
  return n >= sizeof(Elf64_Ehdr) && memcmp(d, ELFMAG, SELFMAG) == 0;
}

static hsa_status_t reader_new(uint8_t* data, size_t size, hsa_code_object_reader_t* out) {
  if (!looks_like_elf(data, size)) {
    free(data);
    return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
  }
  dbl_reader* r = malloc(sizeof *r);
  if (!r) {
    free(data);
    return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  }
  r->magic = READER_MAGIC;
  r->data = data;
  r->size = size;
  out->handle = (uint64_t)(uintptr_t)r;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_code_object_reader_create_from_memory(const void* code_object, size_t size,
                                                           hsa_code_object_reader_t* code_object_reader) {
  DBL_CHECK_OPEN();
  if (!code_object || size == 0 || !code_object_reader) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  uint8_t* copy = malloc(size);
  if (!copy) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  memcpy(copy, code_object, size);
  return reader_new(copy, size, code_object_reader);
}

hsa_status_t dbl_hsa_code_object_reader_create_from_file(hsa_file_t file,
                                                         hsa_code_object_reader_t* code_object_reader) {
  DBL_CHECK_OPEN();
  if (!code_object_reader) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  off_t end = lseek(file, 0, SEEK_END);
  if (end <= 0 || lseek(file, 0, SEEK_SET) != 0) return HSA_STATUS_ERROR_INVALID_FILE;
  uint8_t* data = malloc((size_t)end);
  if (!data) return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
  size_t got = 0;
  while (got < (size_t)end) {
    ssize_t n = read(file, data + got, (size_t)end - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      free(data);
      return HSA_STATUS_ERROR_INVALID_FILE;
    }
    got += (size_t)n;
  }
  return reader_new(data, got, code_object_reader);
}

hsa_status_t dbl_hsa_code_object_reader_destroy(hsa_code_object_reader_t code_object_reader) {
  DBL_CHECK_OPEN();
  dbl_reader* r = reader_get(code_object_reader);
  if (!r) return HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER;
  r->magic = 0;
  free(r->data);
  free(r);
  return HSA_STATUS_SUCCESS;
}

/* ---- executables ---- */

static dbl_executable* exec_get(hsa_executable_t e) {
  dbl_executable* p = (dbl_executable*)(uintptr_t)e.handle;
  return p && p->magic == EXEC_MAGIC ? p : NULL;
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
  pthread_mutex_lock(&exec_lock);
  e->next = executables;
  executables = e;
  pthread_mutex_unlock(&exec_lock);
  executable->handle = (uint64_t)(uintptr_t)e;
  return HSA_STATUS_SUCCESS;
}

hsa_status_t dbl_hsa_executable_create(hsa_profile_t profile, hsa_executable_state_t executable_state,
                                       const char* options, hsa_executable_t* executable) {
  (void)executable_state;
  return dbl_hsa_executable_create_alt(profile, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, options, executable);
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
    l->magic = 0;
    free(l->memory);
    free(l);
  }
  e->magic = 0;
  free(e);
}

hsa_status_t dbl_hsa_executable_destroy(hsa_executable_t executable) {
  DBL_CHECK_OPEN();
  pthread_mutex_lock(&exec_lock);
  dbl_executable* e = exec_get(executable);
  if (!e) {
    pthread_mutex_unlock(&exec_lock);
    return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  }
  for (dbl_executable** pp = &executables; *pp; pp = &(*pp)->next)
    if (*pp == e) {
      *pp = e->next;
      break;
    }
  pthread_mutex_unlock(&exec_lock);
  exec_free(e);
  return HSA_STATUS_SUCCESS;
}

void dbl_executables_shutdown(void) {
  pthread_mutex_lock(&exec_lock);
  while (executables) {
    dbl_executable* e = executables;
    executables = e->next;
    exec_free(e);
  }
  pthread_mutex_unlock(&exec_lock);
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

/* Loads the code object of `r` for agent `a` into `e` (exec_lock held). */
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

  /* Symbols: the static table if present, else the dynamic one. */
  const Elf64_Shdr* sh = (const Elf64_Shdr*)(d + eh->e_shoff);
  const Elf64_Shdr* symtab = NULL;
  for (int i = 0; i < eh->e_shnum; i++)
    if (sh[i].sh_type == SHT_SYMTAB) symtab = &sh[i];
  if (!symtab)
    for (int i = 0; i < eh->e_shnum; i++)
      if (sh[i].sh_type == SHT_DYNSYM) symtab = &sh[i];
  hsa_status_t st = HSA_STATUS_SUCCESS;
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
  l->next = e->loaded;
  e->loaded = l;
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
  free(mem);
  free(l);
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
  pthread_mutex_lock(&exec_lock);
  dbl_executable* e = exec_get(executable);
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
  pthread_mutex_unlock(&exec_lock);
  return st;
}

hsa_status_t dbl_hsa_executable_freeze(hsa_executable_t executable, const char* options) {
  (void)options;
  DBL_CHECK_OPEN();
  pthread_mutex_lock(&exec_lock);
  dbl_executable* e = exec_get(executable);
  hsa_status_t st = HSA_STATUS_SUCCESS;
  if (!e)
    st = HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  else if (e->state == HSA_EXECUTABLE_STATE_FROZEN)
    st = HSA_STATUS_ERROR_FROZEN_EXECUTABLE;
  else
    e->state = HSA_EXECUTABLE_STATE_FROZEN;
  pthread_mutex_unlock(&exec_lock);
  return st;
}

hsa_status_t dbl_hsa_executable_get_info(hsa_executable_t executable, hsa_executable_info_t attribute,
                                         void* value) {
  DBL_CHECK_OPEN();
  dbl_executable* e = exec_get(executable);
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
  if (!exec_get(executable)) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
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
  dbl_executable* e = exec_get(executable);
  if (!e) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
  if (!name || !symbol) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
  /* Without an agent only program symbols match, and there are none: every
   * symbol of an agent code object is an agent symbol. */
  if (!agent) return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
  dbl_agent* a = dbl_agent_get(*agent);
  if (!a) return HSA_STATUS_ERROR_INVALID_AGENT;
  hsa_status_t st = HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
  pthread_mutex_lock(&exec_lock);
  for (size_t i = 0; i < e->symbol_count; i++)
    if (e->symbols[i]->agent == a && strcmp(e->symbols[i]->name, name) == 0) {
      *symbol = symbol_handle(e->symbols[i]);
      st = HSA_STATUS_SUCCESS;
      break;
    }
  pthread_mutex_unlock(&exec_lock);
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
  dbl_executable* e = exec_get(executable);
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
  dbl_executable* e = exec_get(executable);
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
  if (!exec_get(executable)) return HSA_STATUS_ERROR_INVALID_EXECUTABLE;
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
  pthread_mutex_lock(&exec_lock);
  for (dbl_executable* e = executables; e && !found; e = e->next)
    for (size_t i = 0; i < e->symbol_count; i++)
      if (e->symbols[i]->kind == HSA_SYMBOL_KIND_KERNEL && e->symbols[i]->address == kernel_object) {
        snprintf(buf, len, "%s", e->symbols[i]->name);
        found = buf;
        break;
      }
  pthread_mutex_unlock(&exec_lock);
  return found;
}
