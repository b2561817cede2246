#!/bin/bash
# Issue 40, runs 3 and 4 (rounds3.txt, rounds4.txt: the OUT name was changed), over the final layer: a command a
# read completes is kept without an allocation also where no trace takes it
# (device timing alone, the API log off: the spill file and the tables).
# Four rounds; within a round every configuration runs four stream
# processes of each kind (2,000 kernels, no app event / app event), one of
# 20,000 kernels and one calls child, the configurations in an order that
# turns by one each round, every process pinned to the same four cores.
# B: the folder holding bin/cltap, libcltap_layer.so and CLIntercept's
# libOpenCL.so.1 in cli/ (default: this script's folder). OUT: where
# rounds4.txt and host.txt go.
B=${B:-$(cd "$(dirname "$0")" && pwd)}
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
    dtlog) e+=(OPENCL_LAYERS=$L CLTAP_OUTPUT_DIR=$W CLTAP_DEVICE_TIMING=1);;
    log) e+=(OPENCL_LAYERS=$L CLTAP_OUTPUT_DIR=$W);;
  esac
  env "${e[@]}" timeout 60 $PIN $C bench --child $2 --iterations $3 2>>$OUT/stderr.txt | sed "s/^/$r $1 $2 $4 /"
}
MODES=(none cli dt dtlog log)
for r in 1 2 3 4; do
  order=("${MODES[@]:$((r % 5))}" "${MODES[@]:0:$((r % 5))}")
  for k in 1 2 3 4; do
    for m in "${order[@]}"; do one $m stream:2000:none 0 $k; one $m stream:2000:event 0 $k; done
  done
  for m in "${order[@]}"; do one $m stream:20000:none 0 1; one $m calls 50000 1; done
done > $OUT/rounds4.txt  # run 3: rounds3.txt
tail -c 4000 $OUT/stderr.txt > $OUT/stderr-tail.txt; rm -f $OUT/stderr.txt
echo done; date -u
