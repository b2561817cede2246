#!/bin/bash
# This machine, 2026-11-28 (session 14): ab-here.sh N LAYER_A LAYER_B runs probe.sh's `one`
# for layer A then B, N times (A: the layer at c0a20b3; B: the variant named
# by the output file: prefetchw-here.txt, fence-here.txt, moved-here.txt).
# Run from the repository root, with absolute paths to the layers.
P=$(cd "$(dirname "$0")" && pwd)/probe.sh
CLTAP=${CLTAP:-$PWD/target/release/cltap}
DRV=${DRV:-/usr/lib/x86_64-linux-gnu/libpocl.so.2}
for i in $(seq 1 $1); do
  for v in A B; do
    L=$2; [ $v = B ] && L=$3
    ITER=${ITER:-100000} CONDS=one SAMPLE_AT=0.2 bash -c "source <(sed -n '/^one()/,/^}/p' $P); DRV=$DRV LAYER=$L CLTAP=$CLTAP OUTD=\$(mktemp -d); one $v"
  done
done
