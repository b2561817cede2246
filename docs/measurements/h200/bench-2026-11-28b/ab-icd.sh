#!/bin/bash
# ab-icd.sh N LAYER_A LAYER_B: the bench's calls child in ICD mode (cltap as
# the loader's driver, trace only), layer A then B then no layer, N times;
# ns per call for the three cheap calls. In ICD mode the child's ".direct"
# entry goes through cltap too, so each figure is absolute: compare it
# with the no-layer run's. WITH_LAYER=1 adds a run of layer B in layer
# mode (OPENCL_LAYERS). Absolute paths; run from the repository root.
CLTAP=${CLTAP:-$PWD/target/release/cltap}
DRV=${DRV:-/usr/lib/x86_64-linux-gnu/libpocl.so.2}
ITER=${ITER:-100000}
for i in $(seq 1 $1); do
  for v in A B none ${WITH_LAYER:+layer}; do
    O=$(mktemp -d)
    case $v in
      A) E="OCL_ICD_VENDORS=$2 OCL_ICD_FILENAMES=$2 CLTAP_ICD_FILENAMES=$DRV" ;;
      B) E="OCL_ICD_VENDORS=$3 OCL_ICD_FILENAMES=$3 CLTAP_ICD_FILENAMES=$DRV" ;;
      none) E="OCL_ICD_VENDORS=$DRV OCL_ICD_FILENAMES=$DRV" ;;
      layer) E="OCL_ICD_VENDORS=$DRV OCL_ICD_FILENAMES=$DRV OPENCL_LAYERS=$3" ;;
    esac
    env -i PATH=$PATH HOME=$HOME LD_LIBRARY_PATH=$LD_LIBRARY_PATH $E CLTAP_RENDER=0 CLTAP_OUTPUT_DIR=$O \
      $CLTAP bench --child calls --iterations $ITER > $O/o.txt 2>&1
    [ $v = none ] || ls $O/*.cltrace >/dev/null 2>&1 || echo "$v: no trace"
    awk -v v=$v '$1=="clSetKernelArg"{s=$2} $1=="clGetPlatformInfo"{p=$2} $1=="clGetEventInfo"{e=$2} $1=="rdtsc"{r=$2}
      END{printf "%-5s SetKernelArg %6.1f  GetPlatformInfo %6.1f  GetEventInfo %6.1f  rdtsc %.1f\n", v, s, p, e, r}' $O/o.txt
    rm -rf $O
  done
done
