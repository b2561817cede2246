#!/bin/bash
# Pass-through A/B on the GPU host: the layer before the per-thread tally
# (notally/) and after (./), alternated; ns per call, min over 7 reps.
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1
od=$(mktemp -d)
for round in 1 2 3 4 5; do
  for L in notally new; do
    lib=$B/libcltap_layer.so; [ $L = notally ] && lib=$B/notally/libcltap_layer.so
    echo "$round $L pass-through $(env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV OPENCL_LAYERS=$lib CLTAP_API_LOG=0 CLTAP_OUTPUT_DIR=$od $B/bin/cltap bench --child calls --iterations 200000 | grep -v Enqueue | tr '\n' ' ')"
  done
  echo "$round none $(env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV $B/bin/cltap bench --child calls --iterations 200000 | grep -v Enqueue | tr '\n' ' ')"
done
