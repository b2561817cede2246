#!/bin/bash
# issue 40 experiment: where a profiled stream's time goes on NVIDIA, and
# whether reading completed events during the burst (lower GPU mark) helps
B=$(cd "$(dirname "$0")" && pwd)
ROUNDS=${ROUNDS:-3} K=${K:-4}
read -r -a MODES <<< "${MODES:-none prof cli dt4096 dt256 dt64}"
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1; [ -e $NV ] || NV=/usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1
C=$B/bin/cltap; L=$B/libcltap_layer.so; W=/tmp/w; mkdir -p $W $OUT
PIN="taskset -c 4-7"
{ nproc; nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm,pstate --format=csv; uname -r; date -u; lscpu | grep -E 'Model name|NUMA|Thread'; } > $OUT/host.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,pstate,power.draw --format=csv,noheader -lms 100 > $OUT/clocks.txt 2>&1 &
SMI=$!
one() { # MODE EVENTS K
  rm -rf $W/*
  local e=(OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV) ev=$2
  case $1 in
    none) ;;
    prof) [ $ev = none ] && ev=profiled || ev=read;;
    cli) e+=(LD_LIBRARY_PATH=$B/cli:/usr/lib/x86_64-linux-gnu CLI_DevicePerformanceTiming=1 CLI_OpenCLFileName=/usr/lib/x86_64-linux-gnu/libOpenCL.so.1 CLI_DumpDir=$W);;
    dtlog) e+=(OPENCL_LAYERS=$L CLTAP_OUTPUT_DIR=$W CLTAP_DEVICE_TIMING=1);;
    skip) e+=(OPENCL_LAYERS=$L CLTAP_OUTPUT_DIR=$W CLTAP_API_LOG=0 CLTAP_DEVICE_TIMING=1 XSKIP=1);;
    dt*) e+=(OPENCL_LAYERS=$L CLTAP_OUTPUT_DIR=$W CLTAP_API_LOG=0 CLTAP_DEVICE_TIMING=1 XMARK=${1#dt});;
  esac
  local t0=$(date +%s.%N)
  env "${e[@]}" timeout 60 $PIN $C bench --child stream:${N:-2000}:$ev 2>>$OUT/stderr.txt | tr '\n' ' ' | sed "s/^/$r $1 $2 $3 $t0 /"; echo
}
n=${#MODES[@]}
for r in $(seq 1 $ROUNDS); do
  order=("${MODES[@]:$((r % n))}" "${MODES[@]:0:$((r % n))}")
  for k in $(seq 1 $K); do
    for m in "${order[@]}"; do one $m none $k; one $m event $k; done
  done
done > $OUT/${NAME:-x1}.txt
kill $SMI
tail -c 4000 $OUT/stderr.txt > $OUT/stderr-tail.txt; rm -f $OUT/stderr.txt
echo done; date -u
