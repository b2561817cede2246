#!/usr/bin/env bash
# Runs a command on the cltap HSA test double instead of ROCr:
#
#   scripts/hsa-double.sh -- CMD [ARGS...]
#
# Builds the double if needed (make -C hsa-double runtime, into
# target/hsa-double/, or $CLTAP_HSA_DOUBLE_OUT), then runs CMD with
# LD_LIBRARY_PATH ahead of the system's libhsa-runtime64.so.1.
#
# ROCm tools such as rocminfo check for the amdgpu driver before hsa_init:
# they run `lsmod | grep amdgpu` and open /dev/kfd read-write. Two ways to
# satisfy exactly those two checks, nothing else:
#   - as root (CI), a private mount namespace (unshare -m): a stub `lsmod`
#     first on PATH and an empty file at /dev/kfd, both visible only to CMD;
#   - otherwise, or with CLTAP_HSA_DOUBLE_SHIM=1, the LD_PRELOAD shim
#     libhsa-double-shim.so (popen of lsmod and open of /dev/kfd only).
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

if [[ "${CLTAP_HSA_DOUBLE_NS:-}" == inside ]]; then
  # Inside the private mount namespace: nothing mounted here is seen outside,
  # and it all goes away with the namespace.
  unset CLTAP_HSA_DOUBLE_NS
  stage="$out/ns"
  mkdir -p "$stage"
  mount -t tmpfs cltap-hsa-double "$stage"
  mkdir "$stage/bin" "$stage/dev" "$stage/upper" "$stage/work"
  printf '#!/bin/sh\n# cltap HSA test double: what `lsmod | grep amdgpu` needs to see.\necho "Module                  Size  Used by"\necho "amdgpu                     1  0"\n' >"$stage/bin/lsmod"
  chmod +x "$stage/bin/lsmod"
  # /dev/kfd: an overlay over /dev adds one empty file; the mounts under /dev
  # (pts, shm, mqueue...) are bound back on top so they behave as before.
  mount --rbind /dev "$stage/dev"
  mount -t overlay cltap-hsa-double -o "lowerdir=/dev,upperdir=$stage/upper,workdir=$stage/work" /dev
  while read -r sub; do
    [[ "$sub" == /dev/* && -d "$stage$sub" && -d "$sub" ]] && mount --rbind "$stage$sub" "$sub"
  done < <(findmnt -rn -o TARGET | awk '$1 ~ "^/dev/" && split($1, p, "/") == 3' | sort -u)
  : >/dev/kfd
  export PATH="$stage/bin:$PATH"
  exec "$@"
fi

if [[ "${CLTAP_HSA_DOUBLE_SHIM:-}" != 1 && $(id -u) -eq 0 ]] && unshare -m --propagation private true 2>/dev/null; then
  CLTAP_HSA_DOUBLE_NS=inside exec unshare -m --propagation private "$BASH" "${BASH_SOURCE[0]}" -- "$@"
fi

export LD_PRELOAD="$out/libhsa-double-shim.so${LD_PRELOAD:+ $LD_PRELOAD}"
exec "$@"
