#!/usr/bin/env bash
# Runs a command on the cltap HSA test double instead of ROCr:
#
#   scripts/hsa-double.sh -- CMD [ARGS...]
#
# Builds the double if needed (make -C hsa-double runtime, into
# target/hsa-double/, or $CLTAP_HSA_DOUBLE_OUT), then runs CMD with
# LD_LIBRARY_PATH ahead of the system's libhsa-runtime64.so.1.
#
# ROCm tools such as rocminfo check for the amdgpu driver before hsa_init;
# scripts/fake-driver.sh meets exactly those checks (as root in a private
# mount namespace, otherwise or with CLTAP_HSA_DOUBLE_SHIM=1 with the
# LD_PRELOAD shim libhsa-double-shim.so).
# Example: scripts/hsa-double.sh -- rocminfo
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${CLTAP_HSA_DOUBLE_OUT:-$root/target/hsa-double}"

usage() {
  echo "usage: $0 -- CMD [ARGS...]" >&2
  exit 2
}

[[ "${1:-}" == "--" ]] && shift
[[ $# -ge 1 ]] || usage

make -s -C "$root/hsa-double" OUT="$out" runtime >&2

export LD_LIBRARY_PATH="$out${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

FAKE_DRIVER_SHIM="${CLTAP_HSA_DOUBLE_SHIM:-}" exec "$root/scripts/fake-driver.sh" "$out/ns" "$out/libhsa-double-shim.so" -- "$@"
