#!/usr/bin/env bash
# The full test suite, from a fresh clone: install what is missing, build,
# run every unit and integration test against the real drivers and loaders.
# Every test binary runs even when one fails; the closing line counts them all.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release --workspace
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
cargo test --release --workspace --no-fail-fast 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
# A binary that could not run (a build error, a crash of the harness) has no
# "test result" line: it is counted as one failure so it cannot go unseen.
awk -v status="$status" '
  /^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
  END { if (status != 0 && f == 0) f = 1; printf "tests: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
