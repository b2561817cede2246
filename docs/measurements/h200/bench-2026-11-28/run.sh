#!/bin/bash
# Device run, 2026-11-28 (session 14): the README's build at 2e7171c (a fresh
# clone's scripts/test.sh build), stripped.
#  run.sh bench : the full `cltap bench` (throughput at 10 M calls), then
#    probe.sh's `free` condition (6 processes with the layer, each followed
#    by one with no layer).
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1
[ -e $NV ] || NV=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null)
mkdir -p $OUT
{ nproc; nvidia-smi -L; uname -r; date -u; df -h /tmp | tail -1; lscpu | grep 'Model name'; uptime; } > $OUT/host-bench.txt 2>&1
date -u
timeout 400 $B/bin/cltap bench --driver $NV --layer $B/libcltap_layer.so --throughput-calls 10000000 > $OUT/bench-main.txt 2>&1
echo "rc $?"; cat $OUT/bench-main.txt; date -u
CONDS=free timeout 150 $B/probe.sh $NV $B/libcltap_layer.so $B/bin/cltap 1 > $OUT/probe-after.txt 2>&1
cat $OUT/probe-after.txt
