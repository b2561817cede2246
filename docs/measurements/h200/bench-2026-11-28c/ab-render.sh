#!/bin/bash
# Device run, 2026-11-28 (session 16): rendering on many threads. One
# trace of 10 M clGetPlatformInfo records on 8 threads (the bench's
# throughput loop, trace only), then `cltap render --threads T` into the
# trace's folder (ext4) for T in 1 2 4 8 16, with A = cltap at a43085d
# (each worker writes its text at its place with pwrite; the kernel
# serialises the writers on the file's lock) and B = the same with one
# user-space lock around those writes, alternated 3 times. Prints wall,
# user and system seconds per render.
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1
[ -e $NV ] || NV=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null)
W=/tmp/ab-render; rm -rf $W; mkdir -p $W/t $W/o
OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV OPENCL_LAYERS=$B/libcltap_layer.so CLTAP_OUTPUT_DIR=$W/t CLTAP_RENDER=0 \
  $B/bin/cltap bench --child threads:8:1250000 --iterations 0
T=$(ls $W/t/*.cltrace); ls -la $T
TIMEFORMAT='%R %U %S'
for round in 1 2 3; do
  for bin in A:$B/bin/cltap B:$B/cltap-lock; do
    for th in 1 2 4 8 16; do
      r=$( { time ${bin#*:} render --threads $th --output $W/o $T >/dev/null 2>&1; } 2>&1 )
      sz=$(stat -c %s $W/o/*.apilog); rm -f $W/o/*
      echo "round $round ${bin%%:*} threads $th wall/user/sys $r bytes $sz"
    done
  done
done
rm -rf $W
