#!/usr/bin/env bash
# Runs a command on cltap's emulated gfx906 GPU (gpu-emu/, a GPU emulator for tests, never a driver):
#
#   scripts/gpu-emu.sh -- CMD [ARGS...]
#
# Builds the emulator if needed (cargo, release) and links it as libhsakmt.so.1 (the ROCT thunk's
# soname, every hsaKmt* symbol at version HSAKMT_1) into target/gpu-emu/, or $GPU_EMU_OUT, then
# runs CMD with that folder first on LD_LIBRARY_PATH. Debian's own libhsa-runtime64.so.1 (ROCr) is
# what CMD loads; only the thunk under it is replaced. The emulated AQLprofile
# (libhsa-amd-aqlprofile64.so, which ROCr dlopens) is linked too, into target/gpu-emu/aqlprofile/,
# and put on the path unless GPU_EMU_AQLPROFILE=0.
#
# rocminfo checks for the amdgpu driver before hsa_init (`lsmod | grep amdgpu`, and /dev/kfd opened
# read-write): scripts/fake-driver.sh meets exactly those two checks, as root in a private mount
# namespace, otherwise (or with GPU_EMU_SHIM=1) with the LD_PRELOAD shim built from
# gpu-emu/shim.c into target/gpu-emu/libgpu-emu-shim.so.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${GPU_EMU_OUT:-$root/target/gpu-emu}"

usage() {
  echo "usage: $0 -- CMD [ARGS...]" >&2
  exit 2
}

[[ "${1:-}" == "--" ]] && shift
[[ $# -ge 1 ]] || usage

(cd "$root" && cargo build --release --quiet -p cltap-gpu-emu) >&2
target_dir="$(cd "$root" && cargo metadata --format-version 1 --no-deps 2>/dev/null | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
archive="${target_dir:-$root/target}/release/libhsakmt_emu.a"
# link LIBRARY SONAME VERSION_SCRIPT: one shared library from the crate's archive, relinked when
# the archive or the script is newer.
link() {
  if [[ ! -e "$1" || "$archive" -nt "$1" || "$3" -nt "$1" ]]; then
    mkdir -p "$(dirname "$1")"
    gcc -shared -o "$1.tmp.$$" -Wl,--whole-archive "$archive" -Wl,--no-whole-archive \
      -Wl,-soname,"$2" -Wl,--version-script="$3" -Wl,--gc-sections -lpthread -ldl -lm -lgcc_s
    mv "$1.tmp.$$" "$1"
  fi
}
link "$out/libhsakmt.so.1" libhsakmt.so.1 "$root/gpu-emu/hsakmt.ver"
# The emulated AQLprofile, in a folder of its own so that GPU_EMU_AQLPROFILE=0 can leave it
# out (ROCr then has no hsa_ven_amd_aqlprofile extension, as on a machine without the library).
link "$out/aqlprofile/libhsa-amd-aqlprofile64.so" libhsa-amd-aqlprofile64.so "$root/gpu-emu/aqlprofile.ver"
path="$out"
[[ "${GPU_EMU_AQLPROFILE:-1}" == 0 ]] || path="$path:$out/aqlprofile"
export LD_LIBRARY_PATH="$path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

shim="$out/libgpu-emu-shim.so"
if [[ ! -e "$shim" || "$root/gpu-emu/shim.c" -nt "$shim" ]]; then
  gcc -std=c11 -O2 -fPIC -shared -Wall -Wextra -fvisibility=hidden -o "$shim.tmp.$$" "$root/gpu-emu/shim.c" -ldl -pthread
  mv "$shim.tmp.$$" "$shim"
fi
FAKE_DRIVER_SHIM="${GPU_EMU_SHIM:-}" exec "$root/scripts/fake-driver.sh" "$out/ns" "$shim" -- "$@"
