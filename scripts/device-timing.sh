#!/bin/bash
# Device-timing run on a GPU machine (docs/measurements/h200.md): tests/c/special/big.c
# (a 4 GiB copy, a 2^28-float vector add) in layer and ICD mode.
#   scripts/device-timing.sh OUTDIR, with BUNDLE=dir holding libcltap_layer.so and bin/big
# (build big with: gcc -O2 tests/c/special/big.c -o BUNDLE/bin/big -lOpenCL).
B=${BUNDLE:?set BUNDLE}; OUT=$1
NV=/usr/lib/libnvidia-opencl.so.1
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
for mode in layer icd; do
  D=$OUT/$mode; mkdir -p $D
  if [ $mode = layer ]; then E="OCL_ICD_VENDORS=$NV OPENCL_LAYERS=$B/libcltap_layer.so"; else E="OCL_ICD_VENDORS=$B/libcltap_layer.so CLTAP_ICD_FILENAMES=$NV"; fi
  ( cd $D && env $E CLTAP_DEVICE_TIMING=1 CLTAP_SUMMARY=1 CLTAP_OUTPUT_DIR=$D $B/bin/big > stdout.txt 2> stderr.txt; echo "rc=$?" >> stdout.txt )
  echo "== $mode"; cat $D/stdout.txt; grep -A20 "device time" $D/stderr.txt
done
# Plain, for comparison of the program's own output.
env OCL_ICD_VENDORS=$NV $B/bin/big > $OUT/plain.txt; echo "rc=$?" >> $OUT/plain.txt; echo "== plain"; cat $OUT/plain.txt
# Same programs with device timing on, through the layer: still identical?
for p in $B/bin/*; do n=$(basename $p); [ $n = big ] && continue
  a=$(env OCL_ICD_VENDORS=$NV $p 2>&1; echo rc=$?); b=$(env OCL_ICD_VENDORS=$NV OPENCL_LAYERS=$B/libcltap_layer.so CLTAP_DEVICE_TIMING=1 CLTAP_OUTPUT_DIR=/tmp $p 2>&1; echo rc=$?)
  [ "$a" = "$b" ] && echo "$n timed: same" || echo "$n timed: DIFF"
done
