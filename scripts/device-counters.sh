#!/bin/bash
# Counters on a machine's own OpenCL driver (the NVIDIA H200, docs/measurements/h200.md):
# `--counters` must give each NDRange's kernel statistics, NA for hardware
# counters (none are reachable through OpenCL there) and change nothing the
# application prints; then the benchmark, three times, for the device-timing
# cost that needed repeating.
#   BUNDLE=dir scripts/device-counters.sh OUTDIR
# BUNDLE holds libcltap_layer.so, bin/cltap and bin/vecadd, built on the dev
# machine. DRIVER overrides the driver library (default: NVIDIA's).
B=$(cd "${BUNDLE:?set BUNDLE}" && pwd); OUT=${1:?output dir}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
NV=${DRIVER:-/usr/lib/libnvidia-opencl.so.1}
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
export CLTAP_LAYER=$B/libcltap_layer.so OCL_ICD_VENDORS=$NV
echo "driver: $NV"
for mode in layer icd; do
  d=$OUT/counters-$mode; mkdir -p "$d"
  (cd "$d" && "$B/bin/vecadd" > plain.txt 2>&1; echo "rc=$?" >> plain.txt
   "$B/bin/cltap" run --no-summary --mode $mode --driver "$NV" --counters SQ_WAVES,GPUBusy -- "$B/bin/vecadd" > stdout.txt 2> stderr.txt; echo "rc=$?" >> stdout.txt)
  if cmp -s "$d/plain.txt" "$d/stdout.txt"; then echo "$mode: output identical"; else echo "$mode: OUTPUT DIFFERS"; diff "$d/plain.txt" "$d/stdout.txt"; fi
  grep -h "cannot be counted" "$d/stderr.txt"
  grep -hv '^#' "$d"/*[0-9].csv; grep -hv '^#' "$d"/*.occupancy | cut -d, -f1-16
done
rm -f "$OUT"/*/*.cltrace
for i in 1 2 3; do
  echo "== cltap bench, run $i"
  "$B/bin/cltap" bench --driver "$NV" --layer "$CLTAP_LAYER" --throughput-calls 2000000 > "$OUT/bench-$i.txt" 2>&1
  grep -i "enqueue\|event" "$OUT/bench-$i.txt"
done
nproc; grep -m1 "model name" /proc/cpuinfo
