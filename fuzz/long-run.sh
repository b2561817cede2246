#!/bin/bash
# Long runs of every fuzz target at once, for a many-core host:
#   fuzz/long-run.sh [SECONDS] [FORKS] [BIN_DIR] [OUT]
# Each target runs with libFuzzer's -fork=FORKS for SECONDS from the seeds in
# fuzz/corpus/<target>; its corpus is then minimised (-merge=1). OUT (a
# folder, default /tmp/cltap-fuzz) gets min/<target>, artifacts/<target>
# (crashes, hangs, ooms: each a finding) and log/<target>.log.
# BIN_DIR holds the targets built by `cargo fuzz build -O` (the default), or
# copies of them carried to another machine.
set -u
SECS=${1:-3600}; FORKS=${2:-2}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${3:-$ROOT/fuzz/target/x86_64-unknown-linux-gnu/release}
F=${4:-/tmp/cltap-fuzz}
TARGETS="apilog atp counters metrics rocp_input trace memory rocpd"
rm -rf "$F/work"
for t in $TARGETS; do
  mkdir -p "$F/work/$t" "$F/artifacts/$t" "$F/min/$t" "$F/log"
  cp -r "$ROOT/fuzz/corpus/$t/." "$F/work/$t/"
  ( "$BIN/$t" -fork="$FORKS" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$SECS" \
      -rss_limit_mb=2048 -timeout=20 -artifact_prefix="$F/artifacts/$t/" "$F/work/$t" > "$F/log/$t.log" 2>&1
    "$BIN/$t" -merge=1 "$F/min/$t" "$F/work/$t" "$ROOT/fuzz/corpus/$t" >> "$F/log/$t.merge.log" 2>&1 ) &
done
wait
rm -rf "$F/work"
found=0
for t in $TARGETS; do
  n=$(find "$F/artifacts/$t" -type f | wc -l); found=$((found + n))
  echo "$t: $(find "$F/min/$t" -type f | wc -l) inputs in the minimised corpus, $n findings; $(grep cov: "$F/log/$t.log" | tail -1)"
done
[ "$found" -eq 0 ]
