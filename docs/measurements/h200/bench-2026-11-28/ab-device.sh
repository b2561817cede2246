#!/bin/bash
# Device run, 2026-11-28 (session 14): the layer at 847683e (the record path
# reads the TSC directly; tail calls from the fast path) against old/ = the
# layer at 2e7171c, both driven by bin/cltap at 847683e: probe.sh's `one`
# (trace only), alternated, ROUNDS pairs; then the same pairs in
# pass-through (CLTAP_API_LOG=0).
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1
[ -e $NV ] || NV=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null)
mkdir -p $OUT
{ nproc; nvidia-smi -L; uname -r; date -u; lscpu | grep 'Model name'; } > $OUT/host-ab.txt 2>&1
run() { # run MODE_LABEL EXTRA_ENV...
  for i in $(seq 1 ${ROUNDS:-6}); do
    for v in old new; do
      L=$B/libcltap_layer.so; [ $v = old ] && L=$B/old/libcltap_layer.so
      SAMPLE_AT=1.5 bash -c "source <(sed -n '/^one()/,/^}/p' $B/probe.sh); DRV=$NV LAYER=$L CLTAP=$B/bin/cltap ITER=200000 OUTD=\$(mktemp -d); one $v-$1 ${*:2}"
    done
  done
}
{ run trace; run pass env CLTAP_API_LOG=0; } 2>&1 | tee $OUT/ab.txt
