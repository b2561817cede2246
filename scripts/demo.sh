#!/usr/bin/env bash
# The main job: the bundled sample application under the cltap layer on PoCL,
# with the table of calls that passed through.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release --workspace
mkdir -p samples/build
gcc -std=c11 -O2 -Wall -DCL_TARGET_OPENCL_VERSION=300 samples/vecadd.c -o samples/build/vecadd -lOpenCL
export OCL_ICD_VENDORS=/usr/lib/x86_64-linux-gnu/libpocl.so.2
exec target/release/cltap run --atp --timeline -- samples/build/vecadd "$@"
