#!/bin/bash
# usage: bench.sh ROUNDS dest(shm|dir) threads variants...   variant = name=cmd-prefix
R=$1; dest=$2; t=$3; shift 3
T=$(ls /tmp/hpar/traced/*.cltrace)
case $dest in shm) base=/dev/shm/hpar/b;; dir) base=/tmp/hpar/b;; esac
for r in $(seq 1 $R); do
  for v in "$@"; do
    name=${v%%=*}; cmd=${v#*=}
    rm -rf $base; mkdir -p $base; sync
    /usr/bin/time -f "$name $dest t$t %e %U %S" env $cmd render --threads $t --output $base $T 2>&1 >/dev/null | tail -1
  done
done
rm -rf $base
