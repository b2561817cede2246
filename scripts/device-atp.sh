#!/bin/bash
# The checks the H200 still owes (docs/measurements/h200.md): the .atp and perf markers of
# the sample, the clock method NVIDIA's driver gives, and `queues` with device
# timing against the run without cltap.
#   BUNDLE=dir scripts/device-atp.sh OUTDIR
# BUNDLE holds libcltap_layer.so, bin/cltap and bin/<programs> (vecadd,
# queues, big), built on the dev machine. DRIVER overrides the driver library
# (default: NVIDIA's), so the script can be tried on PoCL first.
B=${BUNDLE:?set BUNDLE}; OUT=${1:?output dir}; mkdir -p "$OUT"
NV=${DRIVER:-/usr/lib/libnvidia-opencl.so.1}
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
run_atp() { # name prog args...
  local name=$1; shift
  local d=$OUT/$name; mkdir -p "$d"
  ( cd "$d" && OCL_ICD_VENDORS=$NV CLTAP_LAYER=$B/libcltap_layer.so \
      "$B/bin/cltap" run --mode layer --atp --timeline --output "$d" -- "$@" > stdout.txt 2> stderr.txt
    echo "rc=$?" >> stdout.txt )
  echo "== $name"; cat "$d/stdout.txt"; grep -E "host clock|device time per|files written" -A3 "$d/stderr.txt"
  "$B/bin/cltap" report "$d"/*.atp > "$d/report.txt" 2>&1; echo "report rc=$?"
}
run_atp vecadd "$B/bin/vecadd" 16777216
run_atp big "$B/bin/big"
# queues, with device timing, against the run without cltap.
a=$(OCL_ICD_VENDORS=$NV "$B/bin/queues" 2>&1; echo rc=$?)
for mode in layer icd; do
  if [ $mode = layer ]; then E="OCL_ICD_VENDORS=$NV OPENCL_LAYERS=$B/libcltap_layer.so"; else E="OCL_ICD_VENDORS=$B/libcltap_layer.so CLTAP_ICD_FILENAMES=$NV"; fi
  b=$(env $E CLTAP_DEVICE_TIMING=1 CLTAP_OUTPUT_DIR=$OUT "$B/bin/queues" 2>&1; echo rc=$?)
  if [ "$a" = "$b" ]; then echo "queues timed $mode: same"; else echo "queues timed $mode: DIFF"; diff <(echo "$a") <(echo "$b") | head -10; fi
done
