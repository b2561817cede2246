#!/bin/bash
# Device run 2 for issue 40 (h-devtime): the reading policy again, now
# that a read asks fewer driver calls. Four alternated rounds of no layer,
# CLIntercept, this layer's device timing (`dt`: GPU queues read by the
# reader thread, woken at the application's synchronisation) and the same
# source with the application's clFinish, waits and blocking enqueues
# reading every list on its own thread (`sync`: CLIntercept's policy; the
# reader still reads at a list's mark and every 20 ms), API log off: the
# stream without and with an app event, and the calls child.
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
    dt) e+=(OPENCL_LAYERS=$L CLTAP_OUTPUT_DIR=$W CLTAP_API_LOG=0 CLTAP_DEVICE_TIMING=1);;
    dtlog) e+=(OPENCL_LAYERS=$L CLTAP_OUTPUT_DIR=$W CLTAP_DEVICE_TIMING=1);;
    log) e+=(OPENCL_LAYERS=$L CLTAP_OUTPUT_DIR=$W);;
  esac
  env "${e[@]}" timeout 60 $C bench --child $2 --iterations $3 2>>$OUT/stderr.txt | sed "s/^/$r $1 $2 /"
}
for r in 1 2 3 4; do
  for m in none cli dt sync; do
    one $m stream:2000:none 0; one $m stream:2000:event 0; one $m calls 50000
  done
done > $OUT/rounds2.txt
tail -c 4000 $OUT/stderr.txt > $OUT/stderr-tail.txt; rm -f $OUT/stderr.txt
echo done; date -u
