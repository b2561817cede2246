#!/bin/bash
# issue 40: the calls (info-query shapes) at 5061f98, whose bench takes the
# cheap calls' repetitions in turn; twice.
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1; [ -e $NV ] || NV=/usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1
{ nproc; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv; uname -r; date -u; lscpu | grep -E 'Model name'; } > $OUT/host.txt 2>&1
for i in 1 2; do
  $B/bin/cltap bench --only calls --driver $NV --layer $B/libcltap_layer.so > $OUT/calls$i.txt 2>&1
  echo "run $i: rc $?" >> $OUT/host.txt
done
