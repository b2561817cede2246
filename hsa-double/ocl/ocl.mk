# cltap OpenCL-over-HSA test double (hsa-double/ocl/): an OpenCL ICD over the
# HSA runtime test double, shaped like AMD's runtime. Included at the end of
# hsa-double/Makefile (it uses OUT, CC, HSA_INC, CLANG and LIB from there).
#
#   make -C hsa-double ocl        $(OUT)/libcltap-ocl-over-hsa.so and a .icd file naming it
#   make -C hsa-double ocl-stubs  lists the dispatch-table slots that only answer CL_INVALID_OPERATION
#   make -C hsa-double ocl-regen  regenerates ocl/icd_slots.h from /usr/include/CL/cl_icd.h
OCL_SRCS := $(wildcard ocl/*.c)
OCL_OBJS := $(patsubst ocl/%.c,$(OUT)/obj/ocl/%.o,$(OCL_SRCS))
OCL_HEADERS := $(wildcard ocl/*.h)
OCL_ICD := $(OUT)/libcltap-ocl-over-hsa.so
OCL_CFLAGS := -std=c11 -O2 -g -fPIC -pthread -Wall -Wextra -Wno-unused-parameter \
              -Wno-missing-field-initializers -fvisibility=hidden -I$(HSA_INC)

all: ocl

ocl: $(OCL_ICD) $(OUT)/cltap-ocl-over-hsa.icd

$(OUT)/obj/ocl/%.o: ocl/%.c $(OCL_HEADERS) | $(OUT)/obj/ocl
	$(CC) $(OCL_CFLAGS) -c $< -o $@

# Linked against the double by soname, found next to it ($ORIGIN) unless
# LD_LIBRARY_PATH names another libhsa-runtime64.so.1 first. -Bsymbolic:
# the library's own calls never bind to a loader's same-named functions.
$(OCL_ICD): $(OCL_OBJS) ocl/exports.map $(OUT)/libhsa-runtime64.so
	$(CC) -shared -pthread $(LDFLAGS) -o $@ $(OCL_OBJS) -L$(OUT) -lhsa-runtime64 -ldl \
	  -Wl,-rpath,'$$ORIGIN' -Wl,-Bsymbolic -Wl,--version-script=ocl/exports.map -Wl,-z,defs

# For OCL_ICD_VENDORS=<folder or this file> (ocl-icd) or /etc/OpenCL/vendors.
$(OUT)/cltap-ocl-over-hsa.icd: | $(OUT)
	echo "$(abspath $(OCL_ICD))" > $@

$(OUT)/obj/ocl:
	mkdir -p $@

# A slot is a stub when no file but icd_table.c defines its ocl_<name>.
ocl-stubs: $(OCL_OBJS)
	@nm $(OUT)/obj/ocl/icd_table.o | awk '$$2 == "W" {sub(/^ocl_/, "", $$3); print $$3}' | \
	  while read f; do nm $(filter-out $(OUT)/obj/ocl/icd_table.o,$(OCL_OBJS)) | grep -q " T ocl_$$f$$" || echo $$f; done

ocl-regen:
	cd ocl && python3 gen_slots.py $(CLANG) icd_slots.h

.PHONY: ocl ocl-stubs ocl-regen
