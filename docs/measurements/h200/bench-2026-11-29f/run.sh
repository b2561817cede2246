#!/bin/bash
# Issue 40 on the H200: cltap's device timing beside CLIntercept's, in
# rounds; within a round every configuration runs K stream processes of
# each kind (2,000 kernels, no app event / app event), the configurations
# in an order that turns by one each round, every process pinned to the
# same four cores; then, per configuration, a stream of 20,000 kernels
# (LONG=1) and a calls child (CALLS=1). The runs of the README:
#   run 1: ROUNDS=6 K=3 LONG=0 CALLS=1 NAME=rounds   (the landed layer)
#   run 2: ROUNDS=4 K=3 LONG=1 CALLS=0 NAME=rounds2 MODES="none cli a b c"
#          (a, b, c: the reading policies of one build, XPOLICY=a|b|c)
#   run 3: ROUNDS=4 K=4 LONG=1 CALLS=1 NAME=rounds3  (the trace's part done)
#   run 4: the same, NAME=rounds4                     (the final layer)
# B: the folder holding bin/cltap, libcltap_layer.so and CLIntercept's
# libOpenCL.so.1 in cli/ (default: this script's folder). OUT: where
# $NAME.txt and host.txt go.
B=${B:-$(cd "$(dirname "$0")" && pwd)}
ROUNDS=${ROUNDS:-4} K=${K:-4} LONG=${LONG:-1} CALLS=${CALLS:-1} NAME=${NAME:-rounds4}
read -r -a MODES <<< "${MODES:-none cli dt dtlog log}"
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1; [ -e $NV ] || NV=/usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1
C=$B/bin/cltap; L=$B/libcltap_layer.so; W=/tmp/w; mkdir -p $W $OUT
PIN="taskset -c 4-7"
{ nproc; nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv; uname -r; date -u; lscpu | grep 'Model name'; } > $OUT/host.txt 2>&1
one() { # MODE SPEC ITER K
  rm -rf $W/*
  local e=(OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV)
  case $1 in
    none) ;;
    cli) e+=(LD_LIBRARY_PATH=$B/cli:/usr/lib/x86_64-linux-gnu CLI_DevicePerformanceTiming=1 CLI_OpenCLFileName=/usr/lib/x86_64-linux-gnu/libOpenCL.so.1 CLI_DumpDir=$W);;
    dt) e+=(OPENCL_LAYERS=$L CLTAP_OUTPUT_DIR=$W CLTAP_API_LOG=0 CLTAP_DEVICE_TIMING=1);;
    a|b|c) e+=(OPENCL_LAYERS=$L CLTAP_OUTPUT_DIR=$W CLTAP_API_LOG=0 CLTAP_DEVICE_TIMING=1 XPOLICY=$1);;
    dtlog) e+=(OPENCL_LAYERS=$L CLTAP_OUTPUT_DIR=$W CLTAP_DEVICE_TIMING=1);;
    log) e+=(OPENCL_LAYERS=$L CLTAP_OUTPUT_DIR=$W);;
  esac
  env "${e[@]}" timeout 60 $PIN $C bench --child $2 --iterations $3 2>>$OUT/stderr.txt | sed "s/^/$r $1 $2 $4 /"
}
n=${#MODES[@]}
for r in $(seq 1 $ROUNDS); do
  order=("${MODES[@]:$((r % n))}" "${MODES[@]:0:$((r % n))}")
  for k in $(seq 1 $K); do
    for m in "${order[@]}"; do one $m stream:2000:none 0 $k; one $m stream:2000:event 0 $k; done
  done
  for m in "${order[@]}"; do
    [ $LONG = 1 ] && one $m stream:20000:none 0 1
    [ $CALLS = 1 ] && one $m calls 50000 1
  done
done > $OUT/$NAME.txt
tail -c 4000 $OUT/stderr.txt > $OUT/stderr-tail.txt; rm -f $OUT/stderr.txt
echo done; date -u
