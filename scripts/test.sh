#!/usr/bin/env bash
# The full test suite, from a fresh clone: install what is missing, build,
# run every unit and integration test against the real drivers and loaders.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release --workspace
cargo test --release --workspace
