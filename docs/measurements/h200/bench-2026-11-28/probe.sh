#!/bin/bash
# Device run, 2026-11-28 (session 14): what makes a recorded cheap call
# bimodal from one process to the next on the lent hosts (45-52 against
# 66-80 ns for clSetKernelArg, the same build, one lease). Each line is one
# process of `cltap bench --child calls` (7 alternated repetitions of
# ITER calls of each cheap call through the loader and the layer, and of
# the driver's own entry), trace only (CLTAP_RENDER=0), under a condition:
#   free      : as the bench runs it
#   noaslr    : setarch -R (the same addresses in every process)
#   env+K     : no ASLR, the environment grown by K bytes (the stack moves)
#   cpu:LIST  : taskset -c LIST (the process's threads confined to LIST)
# Printed per process: the condition, then for each call the layer's ns,
# the driver's own ns and their difference, and the CPUs the threads were
# on when sampled halfway (ps -L psr).
# and the child's own rdtsc (ns). CONDS=free: only `free`, 6 a round,
# each followed by `nolayer` (the loader alone).
# Usage: probe.sh DRIVER LAYER CLTAP [ROUNDS]
DRV=$1; LAYER=$2; CLTAP=$3; ROUNDS=${4:-4}; ITER=${ITER:-200000}
OUTD=$(mktemp -d)
one() { # one COND PREFIX...
  local cond=$1; shift
  rm -rf $OUTD/run; mkdir -p $OUTD/run
  env -i PATH=$PATH HOME=$HOME LD_LIBRARY_PATH=$LD_LIBRARY_PATH PAD=$PAD OCL_ICD_VENDORS=$DRV OCL_ICD_FILENAMES=$DRV \
    OPENCL_LAYERS=${LAYERV-$LAYER} CLTAP_RENDER=0 CLTAP_OUTPUT_DIR=$OUTD/run \
    "$@" $CLTAP bench --child calls --iterations $ITER > $OUTD/o.txt 2>&1 &
  local pid=$!
  sleep ${SAMPLE_AT:-1.5}
  local cpus=$(ps -L -o psr=,comm= -p $pid 2>/dev/null | awk '{printf "%s:%s ", $2, $1}')
  wait $pid
  python3 - "$cond" "$cpus" $OUTD/o.txt <<'PY'
import sys
cond, cpus, path = sys.argv[1], sys.argv[2], sys.argv[3]
v = {}
for l in open(path):
    p = l.split()
    if len(p) == 2:
        try: v[p[0]] = float(p[1])
        except ValueError: pass
out = [cond.ljust(14)]
for f in ("clSetKernelArg", "clGetPlatformInfo", "clGetEventInfo"):
    if f in v and f + ".direct" in v:
        out.append("%s %.1f-%.1f=%+.1f" % (f[2:], v[f], v[f + ".direct"], v[f] - v[f + ".direct"]))
if "rdtsc" in v:
    out.append("rdtsc %.1f" % v["rdtsc"])
print("  ".join(out), " |", cpus)
PY
}
lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket|NUMA' 
for c in /sys/devices/system/cpu/cpu[0-9]*; do echo -n "$(basename $c):$(cat $c/topology/thread_siblings_list 2>/dev/null) "; done; echo
N=$(nproc)
for r in $(seq 1 $ROUNDS); do
  echo "=== round $r $(date -u +%T)"
  if [ "$CONDS" = free ]; then for i in 1 2 3 4 5 6; do one free; LAYERV= one nolayer; done; continue; fi
  one free
  one free
  one noaslr setarch -R
  one noaslr setarch -R
  for k in 0 1024 2048 3072; do PAD=$(head -c $k /dev/zero | tr '\0' x) one env+$k setarch -R; done
  one cpu:1 taskset -c 1
  one cpu:1,2 taskset -c 1,2
  if [ $N -ge 4 ]; then one cpu:1,$((N/2+1)) taskset -c 1,$((N/2+1)); one cpu:1-3 taskset -c 1-3; fi
done
rm -rf $OUTD
