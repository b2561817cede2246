#!/bin/bash
# Device run 2 for issue 40 (h-perf): the reading policy as an experiment.
# Four alternated rounds of no layer, CLIntercept, cltap device timing
# (reader thread, as landed: `dt`) and the same layer with every queue read
# on the application's thread (at its marks and synchronisation points, the
# CPU devices' policy: `app`, built from the landed source with
# `set_read_by_enqueue(true)`), API log off; the stream without and with an
# app event; plus the stream with the API log on, each policy.
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1; [ -e $NV ] || NV=/usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1
C=$B/bin/cltap; W=/tmp/w; mkdir -p $W $OUT
one() { # MODE SPEC
  rm -rf $W/*
  local e=(OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV)
  case $1 in
    none) ;;
    cli) e+=(LD_LIBRARY_PATH=$B/cli:/usr/lib/x86_64-linux-gnu CLI_DevicePerformanceTiming=1 CLI_OpenCLFileName=/usr/lib/x86_64-linux-gnu/libOpenCL.so.1 CLI_DumpDir=$W);;
    dt) e+=(OPENCL_LAYERS=$B/libcltap_layer.so CLTAP_OUTPUT_DIR=$W CLTAP_API_LOG=0 CLTAP_DEVICE_TIMING=1);;
    app) e+=(OPENCL_LAYERS=$B/variant/libcltap_layer.so CLTAP_OUTPUT_DIR=$W CLTAP_API_LOG=0 CLTAP_DEVICE_TIMING=1);;
    dtlog) e+=(OPENCL_LAYERS=$B/libcltap_layer.so CLTAP_OUTPUT_DIR=$W CLTAP_DEVICE_TIMING=1);;
    applog) e+=(OPENCL_LAYERS=$B/variant/libcltap_layer.so CLTAP_OUTPUT_DIR=$W CLTAP_DEVICE_TIMING=1);;
  esac
  env "${e[@]}" timeout 60 $C bench --child $2 --iterations 0 2>/dev/null | sed "s/^/$r $1 $2 /"
  # every command's four times: the device-time records in the trace
  case $1 in dt|app|dtlog|applog) echo "$r $1 $2 files $(cd $W && for f in *; do [ -f $f ] && echo -n "$f:$(wc -l <$f) "; done)";; esac
}
for r in 1 2 3 4; do
  for m in none cli dt app dtlog applog; do
    one $m stream:2000:none; one $m stream:2000:event
  done
done > $OUT/rounds2.txt
echo done; date -u
