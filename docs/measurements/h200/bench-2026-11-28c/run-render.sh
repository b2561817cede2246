#!/bin/bash
# Device run, 2026-11-28 (session 16), the build at a43085d: the host part
# and the throughput part twice, with the rendering rows' CPU time per
# record and the kernel's write alone.
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1
[ -e $NV ] || NV=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null)
mkdir -p $OUT
{ nproc; nvidia-smi -L; uname -r; date -u; lscpu | grep 'Model name'; } > $OUT/host-render.txt 2>&1
for i in 1 2; do echo "=== run $i $(date -u +%T)"; timeout 280 $B/bin/cltap bench --driver $NV --layer $B/libcltap_layer.so --only host,throughput --throughput-calls 10000000 2>&1; done > $OUT/render.txt
cat $OUT/render.txt | grep -A9 "^rendering\|rdtsc (one\|sequential"
