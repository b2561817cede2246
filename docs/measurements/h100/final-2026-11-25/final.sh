#!/bin/bash
# Final device run: the bench (stream, throughput, rendering) with this session's layer, then the trace fuzz target (format 2 reader).
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1
D=$(cd "$(dirname "$0")" && pwd)
cd /tmp
timeout 200 $D/dt/cltap bench --driver $NV --layer $D/dt/new.so --only host,stream,throughput --throughput-calls 10000000 2>&1 | tee $OUT/bench.txt
mkdir -p /tmp/fz/work /tmp/fz/art /tmp/fz/min; cp -r $D/../fuzz/corpus/trace/. /tmp/fz/work/
timeout 380 $D/fuzz/trace -fork=15 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -max_total_time=330 -rss_limit_mb=2048 -timeout=20 -artifact_prefix=/tmp/fz/art/ /tmp/fz/work > $OUT/fuzz-trace.log 2>&1
echo "fuzz rc $?"; tail -5 $OUT/fuzz-trace.log; ls -la /tmp/fz/art | head
n=$(ls /tmp/fz/art | wc -l); echo "findings: $n"; [ "$n" -gt 0 ] && tar czf $OUT/artifacts.tgz -C /tmp/fz art
ls /tmp/fz/work | wc -l
