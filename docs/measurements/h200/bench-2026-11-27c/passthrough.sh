#!/bin/bash
# Why cltap's pure pass-through doubles an 8-thread clSetKernelArg loop.
B=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/libnvidia-opencl.so.1
[ -e $NV ] || NV=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 2>/dev/null)
mkdir -p $OUT
P=$(command -v perf || ls /usr/bin/perf* /usr/lib/linux-tools*/perf 2>/dev/null | head -1)
echo "perf: $P"; lscpu | grep -E "Thread|Core|Socket|Model name|NUMA node\(s\)|L1d|L2|L3"
od=$(mktemp -d)
run() { env OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV CLTAP_OUTPUT_DIR=$od "$@"; rm -rf $od/*; }
for cfg in none bad fwd; do
  case $cfg in none) e=();; bad) e=(OPENCL_LAYERS=$B/libcltap_layer.dbg.so CLTAP_BUFFER_POLICY=bogus);; fwd) e=(OPENCL_LAYERS=$B/libfwd_layer.so);; esac
  for t in 1 2 4 8; do
    echo "$cfg t$t $(run "${e[@]}" $B/bin/cltap bench --child kthreads:$t:$((10000000/t)) --iterations 0 2>/dev/null) $(run "${e[@]}" $B/bin/cltap bench --child kthreads:$t:$((10000000/t)) --iterations 0 2>/dev/null)"
  done
done | tee $OUT/scaling.txt
# pinned: 8 threads on 8 distinct cores?
echo "taskset 0-7:"; for cfg in none bad; do case $cfg in none) e=();; bad) e=(OPENCL_LAYERS=$B/libcltap_layer.dbg.so CLTAP_BUFFER_POLICY=bogus);; esac; echo "$cfg $(run "${e[@]}" taskset -c 0-7 $B/bin/cltap bench --child kthreads:8:1250000 --iterations 0 2>/dev/null)"; done | tee -a $OUT/scaling.txt
if [ -n "$P" ]; then
  for cfg in none bad; do
    case $cfg in none) e=();; bad) e=(OPENCL_LAYERS=$B/libcltap_layer.dbg.so CLTAP_BUFFER_POLICY=bogus);; esac
    echo "== perf stat $cfg"
    run "${e[@]}" $P stat -e task-clock,cycles,instructions,cache-misses,branch-misses,context-switches,cpu-migrations,page-faults $B/bin/cltap bench --child kthreads:8:1250000 --iterations 0 2>&1 | tail -20
  done 2>&1 | tee $OUT/perfstat.txt
  run OPENCL_LAYERS=$B/libcltap_layer.dbg.so CLTAP_BUFFER_POLICY=bogus $P record -o $od/../perf.data -F 5000 $B/bin/cltap bench --child kthreads:8:1250000 --iterations 0 >/dev/null 2>&1
  $P report -i $od/../perf.data --stdio --sort dso,symbol 2>/dev/null | head -60 | tee $OUT/perfreport.txt
fi
rm -rf $od
