#!/bin/bash
# Issue 40 on the H200: cltap's device timing beside CLIntercept's, with
# less noise than bench-2026-11-29e: six rounds; within a round every
# configuration runs three stream processes of each kind, the
# configurations in an order that turns by one each round, and each
# process is pinned to the same four cores. The figure per configuration
# and round is the median of its three processes (each the minimum of 7
# repetitions after a warm-up, as `cltap bench` takes it).
# B: the folder holding bin/cltap, libcltap_layer.so and CLIntercept's
# libOpenCL.so.1 in cli/ (default: this script's folder). OUT: where
# rounds.txt and host.txt go.
B=${B:-$(cd "$(dirname "$0")" && pwd)}
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1; [ -e $NV ] || NV=/usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1
C=$B/bin/cltap; L=$B/libcltap_layer.so; W=/tmp/w; mkdir -p $W $OUT
PIN="taskset -c 4-7"
{ nproc; nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv; uname -r; date -u; lscpu | grep 'Model name'; } > $OUT/host.txt 2>&1
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
  env "${e[@]}" timeout 60 $PIN $C bench --child $2 --iterations $3 2>>$OUT/stderr.txt | sed "s/^/$r $1 $2 $4 /"
}
MODES=(none cli dt dtlog log)
for r in 1 2 3 4 5 6; do
  order=("${MODES[@]:$((r % 5))}" "${MODES[@]:0:$((r % 5))}")
  for k in 1 2 3; do
    for m in "${order[@]}"; do one $m stream:2000:none 0 $k; one $m stream:2000:event 0 $k; done
  done
  for m in "${order[@]}"; do one $m calls 50000 1; done
done > $OUT/rounds.txt
tail -c 4000 $OUT/stderr.txt > $OUT/stderr-tail.txt; rm -f $OUT/stderr.txt
echo done; date -u
