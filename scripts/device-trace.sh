#!/bin/bash
# The binary trace on a machine's own driver (the NVIDIA H200, docs/measurements/h200.md):
# deaths of the application in both modes, a crash inside the driver, and
# the benchmark.
#   BUNDLE=dir scripts/device-trace.sh OUTDIR
# BUNDLE holds libcltap_layer.so, bin/cltap and bin/calls, built on the dev
# machine. DRIVER overrides the driver library (default: NVIDIA's), so the
# script can be tried on PoCL first.
B=$(cd "${BUNDLE:?set BUNDLE}" && pwd); OUT=${1:?output dir}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
NV=${DRIVER:-/usr/lib/libnvidia-opencl.so.1}
# ocl-icd's loader: CUDA's own libOpenCL ignores OPENCL_LAYERS (docs/measurements/h200.md).
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
export CLTAP_LAYER=$B/libcltap_layer.so OCL_ICD_VENDORS=$NV
echo "driver: $NV"
# 1000 numbered calls, then a death: the API log must hold exactly them.
count() { grep -c "cl_platform_info param_name = 2306, size_t param_value_size = [1-9][0-9]*, void\* param_value = 0000000000000000" "$1"/*.apilog; }
for mode in layer icd; do
  for how in segv kill _exit quick_exit abort; do
    d=$OUT/death-$mode-$how; mkdir -p "$d"
    (cd "$d" && "$B/bin/cltap" run --no-summary --mode $mode --driver "$NV" -- "$B/bin/calls" die $how 1000 > stdout.txt 2> stderr.txt; echo "rc=$?" >> stdout.txt)
    echo "$mode $how: $(count "$d") of 1000 calls in the log; $(grep -h "application" "$d/stderr.txt" | head -1)"
  done
  d=$OUT/crash-$mode; mkdir -p "$d"
  (cd "$d" && "$B/bin/cltap" run --no-summary --mode $mode --driver "$NV" -- "$B/bin/calls" driver-crash 100 > stdout.txt 2> stderr.txt; echo "rc=$?" >> stdout.txt)
  echo "$mode driver crash: $(count "$d") calls before it; $(grep -h "application" "$d/stderr.txt" | head -1)"
  echo "  last line: $(grep -h '^TID' "$d"/*.apilog | tail -1 | sed 's/.*clGetPlatformInfo/clGetPlatformInfo/')"
done
# A trace left without the launcher, rendered afterwards.
d=$OUT/render; mkdir -p "$d"
(cd "$d" && OPENCL_LAYERS=$CLTAP_LAYER CLTAP_OUTPUT_DIR=$d "$B/bin/calls" die kill 1000 > /dev/null 2>&1; "$B/bin/cltap" render "$d"/*.cltrace --output "$d/out" > /dev/null 2>&1)
echo "cltap render after SIGKILL: $(count "$d/out") of 1000 calls"
rm -f "$OUT"/*/*.cltrace "$OUT"/*/*/*.cltrace
echo "== cltap bench"
"$B/bin/cltap" bench --driver "$NV" --layer "$CLTAP_LAYER" 2>&1 | tee "$OUT/bench.txt"
nproc; grep -m1 "model name" /proc/cpuinfo; df -h "$OUT" | tail -1
