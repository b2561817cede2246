#!/bin/bash
# Device run, 2026-11-27 afternoon: `run.sh bench`, the README's build's
# full bench on NVIDIA (after the direct API-log writer); `run.sh`, two
# experiments with a scratch layer (x/, never committed: x.patch):
#  - capture: which part of a recorded call's cost goes where (XCLTAP_MODE:
#    base; raw = fixed 8-byte words instead of varints; recycle / rawrecycle
#    = the thread's one chunk reused; nopublish = the chunk's `used` never
#    stored; nocaptures = no argument contents; opened = the opened part
#    only, nothing after the call; nostore = nothing written);
#  - device timing: the reader's mark (XCLTAP_BOUND, 256 today) and its
#    period (XCLTAP_PERIOD_MS, 20 today) on a stream of small kernels.
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1
[ -e $NV ] || NV=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null)
mkdir -p $OUT
{ nproc; nvidia-smi -L; uname -r; date -u; df -h /tmp | tail -1; lscpu | grep 'Model name'; } > $OUT/host.txt 2>&1
if [ "$1" = bench ]; then
  echo "== main: full bench"; date -u
  timeout 500 $B/bin/cltap bench --driver $NV --layer $B/libcltap_layer.so --throughput-calls 10000000 > $OUT/bench-main.txt 2>&1
  echo "rc $?"; cat $OUT/bench-main.txt
  exit 0
fi
echo "== capture experiment"; date -u
od=$(mktemp -d)
child() { # mode what
  env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV OPENCL_LAYERS=$B/x/libcltap_layer.so CLTAP_RENDER=0 CLTAP_OUTPUT_DIR=$od XCLTAP_MODE=$1 \
    $B/bin/cltap bench --child $2 --iterations 200000; rm -f $od/*
}
for round in 1 2 3; do
  for m in base raw recycle rawrecycle nopublish nocaptures opened nostore; do
    echo "$round $m $(child $m calls 2>&1 | grep -v Enqueue | tr '\n' ' ') kthreads1 $(child $m kthreads:1:10000000 | sed 's/calling_ns //')"
  done
  echo "$round none $(env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV $B/bin/cltap bench --child calls --iterations 200000 | grep -v Enqueue | tr '\n' ' ') kthreads1 $(env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV $B/bin/cltap bench --child kthreads:1:10000000 --iterations 0 | sed 's/calling_ns //')"
done 2>&1 | tee $OUT/capture.txt
rm -rf $od
echo "== device-timing experiment"; date -u
timeout 240 $B/devtime.sh $B/bin/cltap $B/x/libcltap_layer.so $NV 2 2>&1 | tee $OUT/devtime.txt
date -u
