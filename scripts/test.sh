#!/usr/bin/env bash
# The full test suite, from a fresh clone: install what is missing, check
# formatting and lints, build, run every unit and integration test against
# the real drivers and loaders.
#
#   scripts/test.sh              # once (CI runs this)
#   scripts/test.sh --repeat N   # the test binaries N times over one build
#
# Every test binary runs even when one fails; the closing line counts every
# test of every round, so a test that fails once in N rounds is seen.
set -euo pipefail
cd "$(dirname "$0")/.."
repeat=1
while [ $# -gt 0 ]; do
  case "$1" in
    --repeat) repeat="${2:?--repeat needs a count}"; shift 2 ;;
    --repeat=*) repeat="${1#--repeat=}"; shift ;;
    *) echo "usage: $0 [--repeat N]" >&2; exit 2 ;;
  esac
done
case "$repeat" in ''|*[!0-9]*|0) echo "scripts/test.sh: --repeat '$repeat': a count of 1 or more is accepted" >&2; exit 2 ;; esac

bash scripts/setup.sh
cargo fmt --all --check
cargo clippy --workspace --all-targets --release -- -D warnings
cargo build --release --workspace
log=$(mktemp); rlog=$(mktemp)
trap 'rm -f "$log" "$rlog"' EXIT
status=0
for round in $(seq 1 "$repeat"); do
  [ "$repeat" = 1 ] || echo "=== round $round of $repeat"
  set +e
  cargo test --release --workspace --no-fail-fast 2>&1 | tee "$rlog"
  s=${PIPESTATUS[0]}
  set -e
  # A round whose binaries could not all run (a build error, a crash of
  # the harness) has no failing "test result" line: it counts as one
  # failure so it cannot go unseen.
  if [ "$s" != 0 ]; then
    status=$s
    grep -q '^test result: FAILED' "$rlog" || echo "test result: FAILED. 0 passed; 1 failed (round $round did not complete)" >>"$rlog"
  fi
  cat "$rlog" >>"$log"
done
# Each round's failing tests by name, so a rare failure is named.
grep -E '^test .* \.\.\. FAILED$' "$log" | sort | uniq -c | sed 's/^/failed: /' || true
awk '
  /^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
  END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
exit "$status"
