#!/bin/bash
# Device run, 2026-11-27, before midnight (session 13). The bundle: bin/cltap and
# libcltap_layer.so from the README's build (`scripts/demo.sh` in a fresh
# clone of main at 24ce9e4), stripped; for `ab`, the layer at 9c7090c
# (the record path) and old/ = the layer at 24ce9e4.
#  run.sh bench : the full `cltap bench` (throughput at 10 M calls).
#  run.sh rounds : `cltap bench --only host,calls,stream` ROUNDS times (the
#    cheap calls within each run, and the stream with the driver's own
#    floor for device times).
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=${NV:-/usr/lib/libnvidia-opencl.so.1}
[ -e $NV ] || NV=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null)
mkdir -p $OUT
{ nproc; nvidia-smi -L; uname -r; date -u; df -h /tmp | tail -1; lscpu | grep 'Model name'; uptime; } > $OUT/host-$1.txt 2>&1
if [ "$1" = bench ]; then
  date -u
  timeout 560 $B/bin/cltap bench --driver $NV --layer $B/libcltap_layer.so --throughput-calls 10000000 > $OUT/bench-main.txt 2>&1
  echo "rc $?"; cat $OUT/bench-main.txt; date -u
  exit 0
fi
if [ "$1" = rounds ]; then
  for i in $(seq 1 ${ROUNDS:-3}); do
    echo "=== round $i $(date -u +%T)"
    timeout 170 $B/bin/cltap bench --driver $NV --layer $B/libcltap_layer.so --only host,calls,stream --disk-mib 0 2>&1
  done | tee $OUT/rounds.txt
  exit 0
fi
if [ "$1" = ab ]; then
  # The record path (9c7090c, libcltap_layer.so) against the layer before
  # it (24ce9e4, old/libcltap_layer.so), driven by the same bin/cltap:
  # `--only host,calls`, alternated, ROUNDS rounds.
  for i in $(seq 1 ${ROUNDS:-3}); do
    for v in old new; do
      if [ $v = old ]; then l=$B/old/libcltap_layer.so; else l=$B/libcltap_layer.so; fi
      echo "=== $v $(date -u +%T)"
      timeout 150 $B/bin/cltap bench --driver $NV --layer $l --only host,calls --disk-mib 0 2>&1
    done
  done | tee $OUT/ab.txt
  exit 0
fi
