#!/bin/bash
# Device run, 2026-11-27 evening.
#  run.sh bench : the README's build's full `cltap bench` on NVIDIA;
#  run.sh calls : the per-call cost, configurations alternated over three
#                 rounds: no layer; fwd (libfwd_layer.so, a C layer that only
#                 forwards: the loader's own layering floor); cltap's layer
#                 before (old/: main at 34a769e) and after (per-function
#                 capture) as a pass-through, trace only and API log; and
#                 the pass-through without the summary's call tally
#                 (CLTAP_SUMMARY=0). `calls` is the bench's cheap-call child
#                 (ns per call, min of 7 × 200,000); k1 / k8 the wall time in
#                 ns of 5,000,000 clSetKernelArg on 1 thread / 1,250,000 on
#                 each of 8 threads.
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=${NV:-/usr/lib/libnvidia-opencl.so.1}
[ -e $NV ] || NV=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null)
mkdir -p $OUT
{ nproc; nvidia-smi -L; uname -r; date -u; df -h /tmp | tail -1; lscpu | grep 'Model name'; } > $OUT/host.txt 2>&1
if [ "$1" = repeat ]; then
  for i in 1 2; do
    date -u
    timeout 280 $B/bin/cltap bench --driver $NV --layer $B/libcltap_layer.so --only host,calls,throughput --throughput-calls 10000000 2>&1 | tee -a $OUT/bench-repeat.txt
  done
  exit 0
fi
if [ "$1" = bench ]; then
  date -u
  timeout 560 $B/bin/cltap bench --driver $NV --layer $B/libcltap_layer.so --throughput-calls 10000000 > $OUT/bench-main.txt 2>&1
  echo "rc $?"; cat $OUT/bench-main.txt; date -u
  exit 0
fi
if [ "$1" = render ]; then
  # The API log rendered from one 10 M-record trace (8 threads ×
  # 1,250,000 clGetPlatformInfo, as the bench's) on 1 … 16 threads into
  # the folder (ext4) and into tmpfs: bin/cltap writes each chunk's text
  # with pwrite at its offset; x/cltap is the same build with the
  # shared-mapping patch (../render-2026-11-27/mmap.patch), on with
  # XCLTAP_MMAP=1. Then the pass-through's 8-thread loop with a layer
  # that a bad setting turned into a pure pass-through.
  date -u
  t=/tmp/rt; rm -rf $t; mkdir -p $t/trace
  env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV OPENCL_LAYERS=$B/libcltap_layer.so CLTAP_RENDER=0 CLTAP_OUTPUT_DIR=$t/trace $B/bin/cltap bench --child threads:8:1250000 --iterations 0
  T=$(ls $t/trace/*.cltrace); ls -la $T
  for round in 1 2; do
    for dest in $t/out /dev/shm/rt-out; do
      for n in 1 2 4 8 16; do
        for v in pwrite mmap; do
          rm -rf $dest; mkdir -p $dest
          if [ $v = pwrite ]; then c=$B/bin/cltap; e=; else c=$B/x/cltap; e=XCLTAP_MMAP=1; fi
          echo "$(/usr/bin/time -f "$round $v ${dest#/} t$n %e s (user %U sys %S)" env $e $c render --threads $n --output $dest $T 2>&1 >/dev/null | tail -1) log $(stat -c %s $dest/*.apilog 2>/dev/null) B"
        done
      done
    done
  done 2>&1 | tee $OUT/render.txt
  rm -rf $t /dev/shm/rt-out
  od=$(mktemp -d)
  for round in 1 2 3; do
    for cfg in none pt bad; do
      case $cfg in none) e=();; pt) e=(OPENCL_LAYERS=$B/libcltap_layer.so CLTAP_API_LOG=0);; bad) e=(OPENCL_LAYERS=$B/libcltap_layer.so CLTAP_BUFFER_POLICY=bogus);; esac
      echo "$round $cfg k8 $(env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV CLTAP_OUTPUT_DIR=$od "${e[@]}" $B/bin/cltap bench --child kthreads:8:1250000 --iterations 0 2>/dev/null | sed 's/calling_ns //') k1 $(env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV CLTAP_OUTPUT_DIR=$od "${e[@]}" $B/bin/cltap bench --child kthreads:1:5000000 --iterations 0 2>/dev/null | sed 's/calling_ns //')"
      rm -rf $od/*
    done
  done 2>&1 | tee $OUT/passthrough.txt
  rm -rf $od; date -u
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
  child new-pt-nosum $B/libcltap_layer.so CLTAP_API_LOG=0 CLTAP_SUMMARY=0
  child old-trace $B/old/libcltap_layer.so CLTAP_RENDER=0
  child new-trace $B/libcltap_layer.so CLTAP_RENDER=0
  child old-log $B/old/libcltap_layer.so
  child new-log $B/libcltap_layer.so
done 2>&1 | tee $OUT/calls.txt
rm -rf $od
date -u
