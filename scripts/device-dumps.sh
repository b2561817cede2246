#!/bin/bash
# Argument dumps, capture and replay of one kernel on a machine's own driver
# (the NVIDIA H200, docs/debugging.md#on-the-gpu-machine): the application's
# output with and without cltap, the before/after dumps of its wrong
# enqueue, the capture replayed on the same driver, and (where the bundle
# has them) the capture replayed on PoCL here or a PoCL capture replayed on
# NVIDIA.
#   BUNDLE=dir scripts/device-dumps.sh OUTDIR
# BUNDLE holds libcltap_layer.so, bin/cltap and bin/dumps (tests/c/special/dumps.c,
# built with gcc -std=c11 -O1 dumps.c -o dumps -lOpenCL), and optionally
# capture-pocl/ (a capture made on PoCL by the tests). DRIVER overrides the
# driver library (default: NVIDIA's), so the script can be tried on PoCL first.
# Prints one line per check, "ok" or "FAILED", and exits 1 if any failed.
B=$(cd "${BUNDLE:?set BUNDLE}" && pwd); OUT=${1:?output dir}; mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
NV=${DRIVER:-/usr/lib/libnvidia-opencl.so.1}
# ocl-icd's loader: CUDA's own libOpenCL ignores OPENCL_LAYERS (docs/measurements/h200.md).
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
export CLTAP_LAYER=$B/libcltap_layer.so OCL_ICD_VENDORS=$NV
echo "driver: $NV"
failed=0
check() { if "$@"; then echo "ok: $CHECK"; else echo "FAILED: $CHECK"; failed=1; fi; }
"$B/bin/dumps" > "$OUT/plain.txt" 2>&1
for mode in layer icd; do
  d=$OUT/$mode; mkdir -p "$d"
  (cd "$d" && "$B/bin/cltap" run --mode $mode --driver "$NV" --dump-args both --dump-enqueues 2 --capture \
      -- "$B/bin/dumps" > stdout.txt 2> stderr.txt)
  CHECK="$mode: the application's output is the same as without cltap"; check cmp -s "$OUT/plain.txt" "$d/stdout.txt"
  dd=$(ls -d "$d"/*.dumps)
  "$B/bin/cltap" dumps diff "$dd/before" "$dd/after" > "$d/diff.txt"
  CHECK="$mode: dumps diff names the one argument enqueue 2 changed"
  check grep -q "^e000002-scale.a1.m2.bin: changed" "$d/diff.txt"
  cap=$(ls -d "$d"/*.capture/e000002-scale)
  "$B/bin/cltap" replay "$cap" --driver "$NV" > "$d/replay.txt" 2>&1
  CHECK="$mode: the capture replays on the same driver with the same results"
  check grep -q "results match" "$d/replay.txt"
  grep -h "waited" "$d/stderr.txt" | head -1
done
if [ -d "$B/capture-pocl" ]; then
  "$B/bin/cltap" replay "$B/capture-pocl" --driver "$NV" > "$OUT/replay-pocl-capture.txt" 2>&1
  CHECK="a capture made on PoCL replays on this driver with the same results"
  check grep -q "results match" "$OUT/replay-pocl-capture.txt"
fi
exit $failed
