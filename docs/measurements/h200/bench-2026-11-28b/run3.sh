#!/bin/bash
# Device run, 2026-11-28 (session 15), an H100 lease, the build at
# b98a12e: `cltap bench --only host,calls` three times (layer mode and ICD
# mode, each within its run).
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1
[ -e $NV ] || NV=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null)
mkdir -p $OUT
{ nproc; nvidia-smi -L; uname -r; date -u; lscpu | grep 'Model name'; } > $OUT/host3.txt 2>&1
for i in 1 2 3; do echo "=== run $i $(date -u +%T)"; timeout 150 $B/bin/cltap bench --driver $NV --layer $B/libcltap_layer.so --only host,calls --disk-mib 0 2>&1; done > $OUT/calls3.txt
