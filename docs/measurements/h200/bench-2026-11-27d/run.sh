#!/bin/bash
# Device run, 2026-11-27 night (session 11).
#  run.sh calls : per-call cost, configurations alternated over three rounds:
#    none (no layer); fwd (libfwd_layer.so, a C layer that only forwards);
#    old (old/: main at eae506d, before the fast path) and new (the fast
#    path) as a pass-through (CLTAP_API_LOG=0, the summary's tally on),
#    the same without the tally (CLTAP_SUMMARY=0), trace only and API log.
#    `calls` is the bench's cheap-call child (ns per call, min of 7 x
#    200,000); k1 / k8 the wall ns of 5,000,000 clSetKernelArg on 1 thread /
#    1,250,000 on each of 8 threads.
#  run.sh bench : the README's build's full `cltap bench` on NVIDIA.
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=${NV:-/usr/lib/libnvidia-opencl.so.1}
[ -e $NV ] || NV=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null)
mkdir -p $OUT
{ nproc; nvidia-smi -L; uname -r; date -u; df -h /tmp | tail -1; lscpu | grep 'Model name'; } > $OUT/host.txt 2>&1
if [ "$1" = where ]; then
  # The new build's recorded calls with the trace on ext4 (/tmp) and on
  # tmpfs (/dev/shm), and with nothing but the opening and completing
  # (CLTAP_LOG_FILTER leaving the measured calls out: pass-through cost),
  # three rounds.
  for round in 1 2 3; do
    for d in /tmp/cw /dev/shm/cw; do
      rm -rf $d; mkdir -p $d
      e=(env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV CLTAP_OUTPUT_DIR=$d OPENCL_LAYERS=$B/libcltap_layer.so CLTAP_RENDER=0)
      c=$("${e[@]}" $B/bin/cltap bench --child calls --iterations 200000 | grep -v -e Enqueue -e Platform | tr '\n' ' '); rm -rf $d/*
      k1=$("${e[@]}" $B/bin/cltap bench --child kthreads:1:5000000 --iterations 0 | sed 's/calling_ns //'); rm -rf $d/*
      echo "$round trace-only ${d%/cw} | $c| k1 $k1"
      rm -rf $d
    done
    c=$(env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV $B/bin/cltap bench --child calls --iterations 200000 | grep -v -e Enqueue -e Platform | tr '\n' ' ')
    echo "$round none | $c"
  done 2>&1 | tee $OUT/where.txt
  exit 0
fi
if [ "$1" = percall ]; then
  # Recorded calls only, old (eae506d) and new alternated over 5 rounds:
  # `calls` min of 7 x 200,000 per call; k1 wall ns of 5,000,000
  # clSetKernelArg on one thread.
  od=$(mktemp -d)
  one() { local label=$1 layer=$2; shift 2
    local e=(env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV CLTAP_OUTPUT_DIR=$od)
    [ "$layer" != none ] && e+=(OPENCL_LAYERS=$layer)
    local c k1
    c=$("${e[@]}" "$@" $B/bin/cltap bench --child calls --iterations 200000 | grep -v -e Enqueue -e Platform | tr '\n' ' '); rm -rf $od/*
    k1=$("${e[@]}" "$@" $B/bin/cltap bench --child kthreads:1:5000000 --iterations 0 | sed 's/calling_ns //'); rm -rf $od/*
    echo "$label | $c| k1 $k1"; }
  for round in 1 2 3 4 5; do
    one none none
    one old-log $B/old/libcltap_layer.so
    one new-log $B/libcltap_layer.so
    one old-trace $B/old/libcltap_layer.so CLTAP_RENDER=0
    one new-trace $B/libcltap_layer.so CLTAP_RENDER=0
  done 2>&1 | tee $OUT/percall.txt
  rm -rf $od; exit 0
fi
if [ "$1" = both ]; then
  # The bench of the build before this session (old/: main at eae506d)
  # and of this one, alternated on the same machine.
  for i in $(seq 1 ${ROUNDS:-1}); do
    for v in old new; do
      if [ $v = old ]; then c=$B/old/bin/cltap; l=$B/old/libcltap_layer.so; else c=$B/bin/cltap; l=$B/libcltap_layer.so; fi
      echo "=== $v $(date -u +%T)"
      timeout 280 $c bench --driver $NV --layer $l --only host,calls,throughput --throughput-calls 10000000 2>&1
    done
  done | tee -a $OUT/bench-both.txt
  exit 0
fi
if [ "$1" = bench ]; then
  date -u
  timeout 560 $B/bin/cltap bench --driver $NV --layer $B/libcltap_layer.so --throughput-calls 10000000 > $OUT/bench-main.txt 2>&1
  echo "rc $?"; cat $OUT/bench-main.txt; date -u
  exit 0
fi
od=$(mktemp -d)
child() { # label layer [env...]
  local label=$1 layer=$2; shift 2
  local e=(env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV CLTAP_OUTPUT_DIR=$od)
  [ "$layer" != none ] && e+=(OPENCL_LAYERS=$layer)
  local c k1 k8
  c=$("${e[@]}" "$@" $B/bin/cltap bench --child calls --iterations 200000 | grep -v Enqueue | tr '\n' ' '); rm -rf $od/*
  k1=$("${e[@]}" "$@" $B/bin/cltap bench --child kthreads:1:5000000 --iterations 0 | sed 's/calling_ns //'); rm -rf $od/*
  k8=$("${e[@]}" "$@" $B/bin/cltap bench --child kthreads:8:1250000 --iterations 0 | sed 's/calling_ns //'); rm -rf $od/*
  echo "$label | $c| k1 $k1 k8 $k8"
}
date -u
for round in 1 2 3; do
  child none none
  child fwd $B/libfwd_layer.so
  child old-pt $B/old/libcltap_layer.so CLTAP_API_LOG=0
  child new-pt $B/libcltap_layer.so CLTAP_API_LOG=0
  child old-pt-nosum $B/old/libcltap_layer.so CLTAP_API_LOG=0 CLTAP_SUMMARY=0
  child new-pt-nosum $B/libcltap_layer.so CLTAP_API_LOG=0 CLTAP_SUMMARY=0
  child old-trace $B/old/libcltap_layer.so CLTAP_RENDER=0
  child new-trace $B/libcltap_layer.so CLTAP_RENDER=0
  child new-log $B/libcltap_layer.so
done 2>&1 | tee $OUT/calls.txt
rm -rf $od
date -u
