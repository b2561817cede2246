#!/bin/bash
# Device run for issue 40 (h-perf): four alternated rounds of no layer,
# CLIntercept (DevicePerformanceTiming=1), cltap device timing (API log
# off), cltap device timing + API log, cltap API log alone: the stream of
# 2,000 small kernels without and with an app event, and the calls child
# (clGetEventInfo, the info-query shapes). Then the calls part of cltap
# bench with this layer and the one before the change (info queries).
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1; [ -e $NV ] || NV=/usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1
C=$B/bin/cltap; L=$B/libcltap_layer.so; W=/tmp/w; mkdir -p $W $OUT
{ nproc; nvidia-smi -L; uname -r; date -u; lscpu | grep 'Model name'; ls -la /usr/lib/x86_64-linux-gnu/libOpenCL* $NV; } > $OUT/host.txt 2>&1
one() { # MODE SPEC ITER
  rm -rf $W/*
  local e=(OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV)
  case $1 in
    none) ;;
    cli) e+=(LD_LIBRARY_PATH=$B/cli:/usr/lib/x86_64-linux-gnu CLI_DevicePerformanceTiming=1 CLI_OpenCLFileName=/usr/lib/x86_64-linux-gnu/libOpenCL.so.1 CLI_DumpDir=$W);;
    dt) e+=(OPENCL_LAYERS=$L CLTAP_OUTPUT_DIR=$W CLTAP_API_LOG=0 CLTAP_DEVICE_TIMING=1);;
    dtlog) e+=(OPENCL_LAYERS=$L CLTAP_OUTPUT_DIR=$W CLTAP_DEVICE_TIMING=1);;
    log) e+=(OPENCL_LAYERS=$L CLTAP_OUTPUT_DIR=$W);;
  esac
  env "${e[@]}" timeout 60 $C bench --child $2 --iterations $3 2>$W/../stderr.$1 | sed "s/^/$r $1 $2 /"
}
for r in 1 2 3 4; do
  for m in none cli dt dtlog log; do
    one $m stream:2000:none 0; one $m stream:2000:event 0; one $m calls 50000
  done
done > $OUT/rounds.txt
cp /tmp/stderr.cli $OUT/cli-stderr.txt 2>/dev/null; ls -R /tmp/w > $OUT/cli-dump.txt 2>&1
for L2 in $L $B/old/libcltap_layer.so; do echo "== $L2"; timeout 150 $C bench --driver $NV --layer $L2 --only calls --iterations 100000 2>&1; done > $OUT/calls.txt
echo done; date -u
