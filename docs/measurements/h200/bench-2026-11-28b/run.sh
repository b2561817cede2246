#!/bin/bash
# Device run, 2026-11-28 (session 15): ICD mode's record path (fa6b13e)
# against the layer at 2c987e6 (old-layer.so), both driven by the new
# cltap: ab-icd.sh alternated 6 times; then `cltap bench --only host,calls`
# with the new layer (the calls part ends with ICD mode).
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1
[ -e $NV ] || NV=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null)
mkdir -p $OUT
{ nproc; nvidia-smi -L; uname -r; date -u; lscpu | grep 'Model name'; } > $OUT/host.txt 2>&1
CLTAP=$B/bin/cltap DRV=$NV timeout 300 bash $B/ab-icd.sh 6 $B/old-layer.so $B/libcltap_layer.so 2>&1 | tee $OUT/ab-icd.txt
echo "=== bench $(date -u +%T)"; timeout 200 $B/bin/cltap bench --driver $NV --layer $B/libcltap_layer.so --only host,calls --disk-mib 0 2>&1 | tee $OUT/calls.txt
