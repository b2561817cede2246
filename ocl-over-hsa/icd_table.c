/* cltap OpenCL-over-HSA test double -- the ICD dispatch table and the stubs
 * of what it does not implement.
 *
 * Neither ocl-icd nor the Khronos loader checks a slot for NULL before
 * calling through it, so every slot gets a function. The stubs are generated
 * from the header's own signatures (icd_slots.h, by gen_slots.py): each is a
 * weak ocl_<name> of the exact type, so the implemented ones in the other
 * files replace them at link time and the compiler checks every signature. */
#include "icd.h"

static cl_int unimplemented(const char* name) {
  ocl_log("%s is not implemented by the test double: CL_INVALID_OPERATION", name);
  return CL_INVALID_OPERATION;
}

#define OCL_STUB_INT(name, err) return unimplemented(#name);
#define OCL_STUB_VOID(name, err) unimplemented(#name);
#define OCL_STUB_NULL(name, err) \
  unimplemented(#name);          \
  return NULL;
#define OCL_STUB_ERRCODE(name, err)                  \
  cl_int e_ = unimplemented(#name);                  \
  if (err) *err = e_;                                \
  return NULL;

#define OCL_SLOT(index, ret, name, params, kind, err) \
  __attribute__((weak)) ret CL_API_CALL ocl_##name params { kind(name, err) }
#define OCL_SLOT_OPAQUE(index, name)
#include "icd_slots.h"
#undef OCL_SLOT
#undef OCL_SLOT_OPAQUE

/* Slots the header types as void* on this OS (Direct3D sharing): never
 * called on Linux, but not NULL either. */
static cl_int CL_API_CALL opaque_stub(void) { return unimplemented("a Direct3D sharing function"); }

#define OCL_SLOT(index, ret, name, params, kind, err) .name = ocl_##name,
#define OCL_SLOT_OPAQUE(index, name) .name = (void*)opaque_stub,
const struct _cl_icd_dispatch ocl_dispatch = {
#include "icd_slots.h"
};
#undef OCL_SLOT
#undef OCL_SLOT_OPAQUE

_Static_assert(sizeof(struct _cl_icd_dispatch) == OCL_SLOT_COUNT * sizeof(void*),
               "icd_slots.h covers every slot of the installed cl_icd.h (make ocl-regen)");
