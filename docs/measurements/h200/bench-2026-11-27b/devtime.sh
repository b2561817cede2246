#!/bin/bash
# Device-timing experiment: the reader's mark (XCLTAP_BOUND) and period
# (XCLTAP_PERIOD_MS) varied; host µs per enqueue of a stream of N small
# kernels, clFinish included (the child prints ns), min of 7 after a warm-up.
# usage: devtime.sh <cltap> <scratch layer> <driver> [rounds]
C=$1; L=$2; D=$3; R=${4:-2}
od=$(mktemp -d)
run() { # n ev env...
  local n=$1 ev=$2; shift 2
  env OCL_ICD_VENDORS=$D OCL_ICD_FILENAMES=$D CLTAP_OUTPUT_DIR=$od "$@" $C bench --child stream:$n:$ev --iterations 0 | grep '^stream' | awk '{printf "%.2f", $2/1000}'
  rm -f $od/*
}
for round in $(seq $R); do
  for n in 2000 20000; do
    for ev in none event; do
      line="$round n=$n $ev none=$(run $n $ev)"
      for cfg in 256:20 4096:20 65536:20 256:1000 65536:1000; do
        b=${cfg%:*}; p=${cfg#*:}
        line="$line b$b/p$p=$(run $n $ev OPENCL_LAYERS=$L CLTAP_DEVICE_TIMING=1 CLTAP_API_LOG=0 XCLTAP_BOUND=$b XCLTAP_PERIOD_MS=$p)"
      done
      echo "$line"
    done
  done
done
rm -rf $od
