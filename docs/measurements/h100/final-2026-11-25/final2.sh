#!/bin/bash
# The stream bench with the final layer, then the fuzz targets other than trace at once (2 workers each).
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1
D=$(cd "$(dirname "$0")" && pwd)
R=$(cd "$D/.." && pwd)
mkdir -p /tmp/p && tar xzf $D/pack.tgz -C /tmp/p
cd /tmp
for i in 1 2; do timeout 100 /tmp/p/dt/cltap bench --driver $NV --layer /tmp/p/dt/new.so --only stream 2>&1 | tail -5; done | tee $OUT/stream.txt
sed -i 's/^TARGETS=.*/TARGETS="apilog atp counters metrics rocp_input memory"/' $R/fuzz/long-run.sh
timeout 470 bash $R/fuzz/long-run.sh 360 2 /tmp/p/fuzz /tmp/fz > $OUT/fuzz-summary.txt 2>&1; echo "long-run rc $?" >> $OUT/fuzz-summary.txt
cat $OUT/fuzz-summary.txt
tar czf $OUT/fuzz-logs.tgz -C /tmp/fz log artifacts
