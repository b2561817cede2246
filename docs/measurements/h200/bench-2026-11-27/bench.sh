#!/bin/bash
# Device run: the README's build's full bench on NVIDIA, then the capture
# experiment (a layer that recycles its chunk, and one that stores nothing).
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1
[ -e $NV ] || NV=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null)
mkdir -p $OUT
{ nproc; nvidia-smi -L; uname -r; date -u; df -h /tmp | tail -1; } > $OUT/host.txt 2>&1
echo "== main: full bench"; date -u
timeout 330 $B/bin/cltap bench --driver $NV --layer $B/libcltap_layer.so --throughput-calls 10000000 > $OUT/bench-main.txt 2>&1
echo "rc $?"; cat $OUT/bench-main.txt
echo "== experiment"; date -u
od=$(mktemp -d)
child() { # mode what
  env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV OPENCL_LAYERS=$B/x/libcltap_layer.so CLTAP_RENDER=0 CLTAP_OUTPUT_DIR=$od XCLTAP_MODE=$1 \
    $B/x/cltap bench --child $2 --iterations 200000; rm -f $od/*
}
for round in 1 2 3; do for m in base recycle nostore; do
  echo "-- round $round mode $m"
  child $m calls 2>&1 | grep -v Enqueue
  for t in 1 8; do echo "kthreads $t $(child $m kthreads:$t:10000000 | sed 's/calling_ns //')"; done
done; done 2>&1 | tee $OUT/experiment.txt
echo "-- no layer"
for t in 1 8; do echo "kthreads $t $(env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV $B/x/cltap bench --child kthreads:$t:10000000 --iterations 0 | sed 's/calling_ns //')"; done | tee -a $OUT/experiment.txt
env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV $B/x/cltap bench --child calls --iterations 200000 | grep -v Enqueue | tee -a $OUT/experiment.txt
date -u
