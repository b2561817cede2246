#!/bin/bash
# issue 40: the landed read at the synchronisation (9c8754a, dt) beside the
# hand-off of long GPU lists to the reader (dtn), CLIntercept, no layer.
# Modes: none (no layer), prof (no layer, profiled queue; with an event:
# read as device timing reads), cli (CLIntercept DevicePerformanceTiming),
# dt (landed, API log off), dtn (hand-off, API log off), dtlogn (hand-off, API log on).
B=$(cd "$(dirname "$0")" && pwd)
ROUNDS=${ROUNDS:-6} K=${K:-10}
read -r -a MODES <<< "${MODES:-none prof cli dt dtn dtlogn}"
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1; [ -e $NV ] || NV=/usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1
W=/tmp/w; mkdir -p $W $OUT
PIN="taskset -c 4-7"
{ nproc; nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm,pstate --format=csv; uname -r; date -u; lscpu | grep -E 'Model name|NUMA|Thread'; } > $OUT/host.txt 2>&1
one() { # MODE EVENTS K
  rm -rf $W/*
  local e=(OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV) ev=$2 C=$B/new/bin/cltap
  case $1 in
    none) ;;
    prof) [ $ev = none ] && ev=profiled || ev=read;;
    cli) e+=(LD_LIBRARY_PATH=$B/cli:/usr/lib/x86_64-linux-gnu CLI_DevicePerformanceTiming=1 CLI_OpenCLFileName=/usr/lib/x86_64-linux-gnu/libOpenCL.so.1 CLI_DumpDir=$W);;
    dt) C=$B/landed/bin/cltap; e+=(OPENCL_LAYERS=$B/landed/libcltap_layer.so CLTAP_OUTPUT_DIR=$W CLTAP_API_LOG=0 CLTAP_DEVICE_TIMING=1);;
    dtn) e+=(OPENCL_LAYERS=$B/new/libcltap_layer.so CLTAP_OUTPUT_DIR=$W CLTAP_API_LOG=0 CLTAP_DEVICE_TIMING=1);;
    dtlogn) e+=(OPENCL_LAYERS=$B/new/libcltap_layer.so CLTAP_OUTPUT_DIR=$W CLTAP_DEVICE_TIMING=1);;
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
tail -c 4000 $OUT/stderr.txt > $OUT/stderr-tail.txt; rm -f $OUT/stderr.txt
python3 $B/table.py $OUT/${NAME:-x1}.txt > $OUT/${NAME:-x1}-table.txt
echo done; date -u
# Nothing lost: one more process of the hand-off build, its summary's commands counted.
rm -rf $W/*
for ev in none event; do
env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV OPENCL_LAYERS=$B/new/libcltap_layer.so CLTAP_OUTPUT_DIR=$W CLTAP_API_LOG=0 CLTAP_DEVICE_TIMING=1 CLTAP_SUMMARY=1 timeout 60 $B/new/bin/cltap bench --child stream:2000:$ev > /dev/null 2>&1
python3 -c "
import json,glob,sys
s=json.load(open(glob.glob('$W/*.summary.json')[0]))
c=s['commands']; k=[x for x in c if x['kernel']]
ok=all(0<x['queued']<=x['submit']<=x['start']<=x['end'] for x in c)
print('$ev: commands',len(c),'kernels',len(k),'ordered',ok,'pending_at_exit',s['pending_at_exit'])" >> $OUT/verify.txt
rm -rf $W/*
done
