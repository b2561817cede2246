#!/usr/bin/env bash
# Installs what cltap's build, sample and tests need on a fresh Debian 12 machine.
# Idempotent: each step is skipped when its result is already present.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sudo_=""; [ "$(id -u)" = 0 ] || sudo_="sudo"

# The second line is for the AMD side: Debian's ROCr (libhsa-runtime64) and
# its headers, a real HSA client, and Debian's clang for real gfx906 code
# objects. The third is for the emulated gfx906 (gpu-emu/) they run on: the
# ROCT thunk's headers, and Debian's HIP (hipcc, libamdhip64). The fourth builds
# AMD's OpenCL runtime (scripts/amdocl.sh) over the comgr and device libraries
# that HIP brings. gdb writes the stacks of an emulated-GPU program that the
# tests' watchdog finds still running (docs/gpu-emu.md#the-watchdog).
apt_pkgs=(pocl-opencl-icd ocl-icd-libopencl1 ocl-icd-opencl-dev ocl-icd-dev
          opencl-c-headers clinfo oclgrind gcc
          libhsa-runtime-dev rocminfo clang-15 lld-15 g++ make binutils
          libhsakmt-dev hipcc libamdhip64-dev llvm-15
          cmake mesa-common-dev libnuma-dev libelf-dev libgl-dev libamd-comgr-dev rocm-device-libs
          gdb)
missing=()
for p in "${apt_pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: apt-get install ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo_ apt-get update -qq
  $sudo_ apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Intel's CPU runtime and the Khronos loader ship only as PyPI wheels. Their
# shared libraries sit in each wheel's *.data/data/lib; `pip install --target`
# drops those, so the wheels are downloaded and unpacked into a git-ignored folder.
dep="$root/.deps/intel"
if [ ! -e "$dep/.done" ]; then
  echo "setup: pip download intel-opencl-rt intel-cmplr-lib-rt tbb, unpack into .deps/intel"
  rm -rf "$dep"; mkdir -p "$dep/wheels" "$dep/lib"
  python3 -m pip download -q --disable-pip-version-check --only-binary=:all: \
      -d "$dep/wheels" intel-opencl-rt==2026.2.0 intel-cmplr-lib-rt==2026.2.0 tbb==2023.2.0
  for w in "$dep"/wheels/*.whl; do
    python3 - "$w" "$dep/lib" <<'PY'
import sys, zipfile, os
whl, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(whl) as z:
    for n in z.namelist():
        parts = n.split("/")
        if len(parts) >= 4 and parts[0].endswith(".data") and parts[1] == "data" and parts[2] == "lib" and parts[-1]:
            dst = os.path.join(out, *parts[3:])
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with z.open(n) as src, open(dst, "wb") as f:
                f.write(src.read())
PY
  done
  rm -rf "$dep/wheels"
  # The wheel's libOpenCL is the Khronos loader. It gets a folder of its own so
  # that putting Intel's runtime dependencies on LD_LIBRARY_PATH never also
  # swaps the application's loader.
  mkdir -p "$dep/khronos"; mv "$dep"/lib/libOpenCL.so* "$dep/khronos/"
  [ -e "$dep/lib/libintelocl.so" ] && [ -e "$dep/khronos/libOpenCL.so.1" ] || { echo "setup: Intel runtime libraries missing after unpack" >&2; exit 1; }
  touch "$dep/.done"
fi
# Perfetto's own schema (perfetto_trace_pb2) and the protobuf runtime it was
# generated for, with which the tests check every .pftrace the suite writes.
# Installed into a git-ignored folder (PERFETTO_PYTHONPATH overrides where), not
# into the system's Python.
py="${PERFETTO_PYTHONPATH:-$root/.deps/py}"
if [ ! -e "$py/.done" ]; then
  echo "setup: pip install perfetto protobuf into $py"
  rm -rf "$py"; mkdir -p "$py"
  python3 -m pip install -q --disable-pip-version-check --no-warn-script-location --target "$py" \
      perfetto==0.59.1 protobuf==6.31.1
  PYTHONPATH="$py" python3 -c 'from perfetto.protos.perfetto.trace import perfetto_trace_pb2' \
      || { echo "setup: perfetto_trace_pb2 does not import from $py" >&2; exit 1; }
  touch "$py/.done"
fi
# AMD's OpenCL runtime, built once per machine into a cache outside the clone;
# without its archives or a cached build, setup fails with the line saying so.
amdocl=$("$root/scripts/amdocl.sh")
echo "setup: AMD's OpenCL runtime: $amdocl"
echo "setup: done"
