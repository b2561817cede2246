#!/bin/bash
# Device timing on NVIDIA: no layer, CLIntercept 3.0.6, cltap before (old) and after (new) the reader thread, alternated.
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1
export OCL_ICD_FILENAMES=$NV OCL_ICD_VENDORS=$NV PROBE_QUICK=1
D=$(cd "$(dirname "$0")" && pwd)
for i in 1 2 3; do
  echo "== round $i: no layer"; timeout 60 $D/probe | grep queue
  echo "== round $i: CLIntercept DevicePerformanceTiming"
  LD_LIBRARY_PATH=$D/clilib CLI_OpenCLFileName=/usr/lib/x86_64-linux-gnu/libOpenCL.so.1 CLI_DevicePerformanceTiming=1 CLI_DumpDir=/tmp/cli-$i timeout 100 $D/probe 2>&1 | grep "queue, "
  for L in old new; do LIB=$D/libcltap_layer.so; [ $L = new ] && LIB=$D/new.so
    echo "== round $i: cltap $L"
    OPENCL_LAYERS=$LIB CLTAP_DEVICE_TIMING=1 CLTAP_API_LOG=0 CLTAP_OUTPUT_DIR=/tmp/o-$L-$i timeout 100 $D/probe 2>&1 | grep "queue, "
  done
done
for i in 1 2; do for L in old new; do LIB=$D/libcltap_layer.so; [ $L = new ] && LIB=$D/new.so
  echo "== bench round $i layer $L"; timeout 120 $D/cltap bench --driver $NV --layer $LIB --only stream 2>&1 | tail -4
done; done
grep -i -A3 "enqueueNDRange" /tmp/cli-1/clintercept_report.txt | head -8
