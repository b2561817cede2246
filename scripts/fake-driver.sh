#!/usr/bin/env bash
# Runs CMD where ROCm tools' checks for the amdgpu driver pass, and nothing
# else changes. rocminfo, for one, runs `lsmod | grep amdgpu` and opens
# /dev/kfd read-write before hsa_init; the emulated GPU needs neither. Used
# by scripts/gpu-emu.sh:
#
#   scripts/fake-driver.sh STAGE SHIM -- CMD [ARGS...]
#
# Two ways, chosen here:
#   - as root (CI), a private mount namespace (unshare -m): a stub `lsmod`
#     first on PATH and an empty file at /dev/kfd, both on a tmpfs mounted
#     at STAGE and seen by CMD alone;
#   - otherwise, or with FAKE_DRIVER_SHIM=1, the LD_PRELOAD library SHIM
#     (built from gpu-emu/shim.c: popen of lsmod and open of /dev/kfd only).
set -euo pipefail

[[ $# -ge 4 && "$3" == "--" ]] || { echo "usage: $0 STAGE SHIM -- CMD [ARGS...]" >&2; exit 2; }
stage=$1 shim=$2
shift 3

if [[ "${FAKE_DRIVER_NS:-}" == inside ]]; then
  # Inside the private mount namespace: nothing mounted here is seen outside,
  # and it all goes away with the namespace.
  unset FAKE_DRIVER_NS
  mkdir -p "$stage"
  mount -t tmpfs cltap-fake-driver "$stage"
  mkdir "$stage/bin" "$stage/dev" "$stage/upper" "$stage/work"
  printf '#!/bin/sh\n# cltap: what `lsmod | grep amdgpu` needs to see.\necho "Module                  Size  Used by"\necho "amdgpu                     1  0"\n' >"$stage/bin/lsmod"
  chmod +x "$stage/bin/lsmod"
  # /dev/kfd: an overlay over /dev adds one empty file; the mounts under /dev
  # (pts, shm, mqueue...) are bound back on top so they behave as before.
  mount --rbind /dev "$stage/dev"
  mount -t overlay cltap-fake-driver -o "lowerdir=/dev,upperdir=$stage/upper,workdir=$stage/work" /dev
  while read -r sub; do
    [[ "$sub" == /dev/* && -d "$stage$sub" && -d "$sub" ]] && mount --rbind "$stage$sub" "$sub"
  done < <(findmnt -rn -o TARGET | awk '$1 ~ "^/dev/" && split($1, p, "/") == 3' | sort -u)
  : >/dev/kfd
  export PATH="$stage/bin:$PATH"
  exec "$@"
fi

if [[ "${FAKE_DRIVER_SHIM:-}" != 1 && $(id -u) -eq 0 ]] && unshare -m --propagation private true 2>/dev/null; then
  FAKE_DRIVER_NS=inside exec unshare -m --propagation private "$BASH" "${BASH_SOURCE[0]}" "$stage" "$shim" -- "$@"
fi

export LD_PRELOAD="$shim${LD_PRELOAD:+ $LD_PRELOAD}"
exec "$@"
