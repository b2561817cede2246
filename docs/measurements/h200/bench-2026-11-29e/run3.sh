#!/bin/bash
# Device run 3 for issue 40 (h-devtime): no layer, CLIntercept, `sync`
# (as in run2.sh) and `quiet`: the same, with a GPU queue's list read by
# the reader only past 4,096 held events (not every 20 ms, not at 256), so
# that within a burst shorter than that no read of cltap's runs beside the
# application's enqueues; API log off, and `quiet` with the API log
# (`quietlog`).
# B: the folder holding bin/cltap, libcltap_layer.so, old/libcltap_layer.so
# and CLIntercept's libOpenCL.so.1 in cli/ (default: this script's folder).
B=${B:-$(cd "$(dirname "$0")" && pwd)}
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
    sync) e+=(OPENCL_LAYERS=$B/sync/libcltap_layer.so CLTAP_OUTPUT_DIR=$W CLTAP_API_LOG=0 CLTAP_DEVICE_TIMING=1);;
    quiet) e+=(OPENCL_LAYERS=$B/quiet/libcltap_layer.so CLTAP_OUTPUT_DIR=$W CLTAP_API_LOG=0 CLTAP_DEVICE_TIMING=1);;
    quietlog) e+=(OPENCL_LAYERS=$B/quiet/libcltap_layer.so CLTAP_OUTPUT_DIR=$W CLTAP_DEVICE_TIMING=1);;
    dt) e+=(OPENCL_LAYERS=$L CLTAP_OUTPUT_DIR=$W CLTAP_API_LOG=0 CLTAP_DEVICE_TIMING=1);;
    dtlog) e+=(OPENCL_LAYERS=$L CLTAP_OUTPUT_DIR=$W CLTAP_DEVICE_TIMING=1);;
    log) e+=(OPENCL_LAYERS=$L CLTAP_OUTPUT_DIR=$W);;
  esac
  env "${e[@]}" timeout 60 $C bench --child $2 --iterations $3 2>>$OUT/stderr.txt | sed "s/^/$r $1 $2 /"
}
for r in 1 2 3 4; do
  for m in none cli sync quiet quietlog; do
    one $m stream:2000:none 0; one $m stream:2000:event 0; one $m calls 50000
  done
done > $OUT/rounds3.txt
tail -c 4000 $OUT/stderr.txt > $OUT/stderr-tail.txt; rm -f $OUT/stderr.txt
echo done; date -u
