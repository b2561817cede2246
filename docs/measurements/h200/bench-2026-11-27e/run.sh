#!/bin/bash
# Device run, 2026-11-27 late night (session 12). The bundle: bin/cltap and
# libcltap_layer.so built at f442587 (captures unrolled per function),
# old/libcltap_layer.so built at fc2551a (the session before), both
# stripped; the same bin/cltap drives both layers.
#  run.sh percall : recorded calls, old and new alternated over 5 rounds:
#    `calls` is the bench's cheap-call child (ns per call, min of 7 x
#    200,000); k1 the wall ns of 5,000,000 clSetKernelArg on one thread.
#  run.sh both : `cltap bench --only host,calls,throughput` of old and new,
#    alternated (ROUNDS times).
#  run.sh bench : the full `cltap bench` of the new build.
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=${NV:-/usr/lib/libnvidia-opencl.so.1}
[ -e $NV ] || NV=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null)
mkdir -p $OUT
{ nproc; nvidia-smi -L; uname -r; date -u; df -h /tmp | tail -1; lscpu | grep 'Model name'; uptime; } > $OUT/host.txt 2>&1
if [ "$1" = percall ]; then
  od=$(mktemp -d)
  one() { local label=$1 layer=$2; shift 2
    local e=(env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV CLTAP_OUTPUT_DIR=$od)
    [ "$layer" != none ] && e+=(OPENCL_LAYERS=$layer)
    local c k1
    c=$("${e[@]}" "$@" $B/bin/cltap bench --child calls --iterations 200000 | grep -v -e Enqueue | tr '\n' ' '); rm -rf $od/*
    k1=$("${e[@]}" "$@" $B/bin/cltap bench --child kthreads:1:5000000 --iterations 0 | sed 's/calling_ns //'); rm -rf $od/*
    echo "$label | $c| k1 $k1"; }
  for round in 1 2 3 4 5; do
    one none none
    one old-trace $B/old/libcltap_layer.so CLTAP_RENDER=0
    one new-trace $B/libcltap_layer.so CLTAP_RENDER=0
    one old-log $B/old/libcltap_layer.so
    one new-log $B/libcltap_layer.so
  done 2>&1 | tee $OUT/percall.txt
  rm -rf $od; exit 0
fi
if [ "$1" = both ]; then
  for i in $(seq 1 ${ROUNDS:-1}); do
    for v in old new; do
      if [ $v = old ]; then l=$B/old/libcltap_layer.so; else l=$B/libcltap_layer.so; fi
      echo "=== $v $(date -u +%T)"
      timeout 200 $B/bin/cltap bench --driver $NV --layer $l --only host,calls,throughput --throughput-calls 10000000 2>&1
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
if [ "$1" = pin ]; then
  # Where the calling thread runs: the new build's trace-only calls child,
  # unpinned and pinned to CPU sets (the trace's preparer thread follows
  # the process's mask), three rounds.
  lscpu -e > $OUT/topology.txt 2>&1
  od=$(mktemp -d)
  for round in 1 2 3; do
    for set in all 3 3,4 3,11 none; do
      e=(env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV CLTAP_OUTPUT_DIR=$od OPENCL_LAYERS=$B/libcltap_layer.so CLTAP_RENDER=0)
      [ $set = none ] && e=(env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV)
      p=(); [ $set != all ] && [ $set != none ] && p=(taskset -c $set)
      c=$("${p[@]}" "${e[@]}" $B/bin/cltap bench --child calls --iterations 200000 | grep -v -e Enqueue -e Platform | tr '\n' ' '); rm -rf $od/*
      echo "$round $set | $c"
    done
  done 2>&1 | tee $OUT/pin.txt
  rm -rf $od; exit 0
fi
if [ "$1" = aslr ]; then
  # Whether the slow runs follow the process's address layout: the new
  # build's trace-only calls child with the kernel's address randomisation
  # (as always) and without it (setarch -R: the same layout every run),
  # alternated, ROUNDS rounds.
  od=$(mktemp -d)
  for round in $(seq 1 ${ROUNDS:-8}); do
    for m in random fixed; do
      p=(); [ $m = fixed ] && p=(setarch $(uname -m) -R)
      c=$("${p[@]}" env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV CLTAP_OUTPUT_DIR=$od OPENCL_LAYERS=$B/libcltap_layer.so CLTAP_RENDER=0 $B/bin/cltap bench --child calls --iterations 200000 | grep -v -e Enqueue -e Platform | tr '\n' ' '); rm -rf $od/*
      echo "$round $m | $c"
    done
  done 2>&1 | tee $OUT/aslr.txt
  rm -rf $od; exit 0
fi
if [ "$1" = inproc ]; then
  # `cltap bench --only host,calls` (each call also timed against the
  # driver's own entry in the same run, and each run's own rdtsc), the
  # layers before (old/) and after (f442587) alternated, ROUNDS rounds.
  for i in $(seq 1 ${ROUNDS:-3}); do
    for v in old new; do
      if [ $v = old ]; then l=$B/old/libcltap_layer.so; else l=$B/libcltap_layer.so; fi
      echo "=== $v $(date -u +%T)"
      timeout 150 $B/bin/cltap bench --driver $NV --layer $l --only host,calls --disk-mib 0 2>&1
    done
  done | tee -a $OUT/inproc.txt
  exit 0
fi
