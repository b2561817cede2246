#!/usr/bin/env bash
# The full test suite, from a fresh clone: install what is missing, build,
# run every unit and integration test against the real drivers and loaders.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release --workspace
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test --release --workspace 2>&1 | tee "$log"
# One closing line over every test binary, for whoever reads only the end.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
