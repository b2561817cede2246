#!/bin/bash
# Device run, 2026-11-28 (session 16): the README's build at 612826b (a
# fresh clone's scripts/demo.sh), the final measurement for issue 18: the
# full bench once, then `--only host,calls` twice (layer mode and ICD mode,
# each within its run).
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1
[ -e $NV ] || NV=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null)
mkdir -p $OUT
{ nproc; nvidia-smi -L; uname -r; date -u; lscpu | grep 'Model name'; } > $OUT/host-final.txt 2>&1
echo "=== full $(date -u +%T)"; timeout 330 $B/bin/cltap bench --driver $NV --layer $B/libcltap_layer.so > $OUT/bench-final.txt 2>&1
for i in 1 2; do echo "=== run $i $(date -u +%T)"; timeout 120 $B/bin/cltap bench --driver $NV --layer $B/libcltap_layer.so --only host,calls --disk-mib 0 2>&1; done > $OUT/calls-final.txt
tail -40 $OUT/bench-final.txt
