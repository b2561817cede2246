#!/usr/bin/env bash
# AMD's OpenCL runtime (ROCm-OpenCL-Runtime and ROCclr, tag rocm-5.2.3, unmodified), built once per
# machine from the two upstream archives, for the tests that run OpenCL on AMD's own stack over
# Debian's ROCr and the emulated gfx906 (docs/amd-opencl.md).
#
#   scripts/amdocl.sh           # build it unless it is cached; print the library's path
#   scripts/amdocl.sh --path    # print the cached library's path, or fail without building
#   scripts/amdocl.sh --clinfo  # print the path of AMD's clinfo built beside it (same rules as --path)
#   scripts/amdocl.sh --ocltst  # print the folder of AMD's ocltst and its modules (same rules as --path)
#
# The archives are looked for in ../shared/amd-opencl/ next to the clone (AMDOCL_ARCHIVES moves
# that). The build is cached outside the clone, in ${XDG_CACHE_HOME:-$HOME/.cache}/cltap/amdocl/KEY/,
# so every clone on the machine (CI's included) shares it. KEY is a prefix of the sha256 of the two
# archives' pinned checksums and of this recipe's revision: another release, or another recipe,
# is another folder. This script is the one place that knows the path; the tests ask it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

ocl=ROCm-OpenCL-Runtime-rocm-5.2.3
rocclr=ROCclr-rocm-5.2.3
ocl_sha=69d95e229ab935c89fd0623c04af137e377df36d341a0cc059791e8444d13e61
rocclr_sha=9cef7777def6993bfce5ee56ae0e7e54ae43fa81c4ea307918b018f3bd99962f
# Raised whenever the build below changes what it produces, so that no cache of an older recipe
# is taken for this one.
recipe=2

archives="${AMDOCL_ARCHIVES:-$(cd "$root/.." && pwd)/shared/amd-opencl}"
key=$(printf '%s %s %s\n' "$ocl_sha" "$rocclr_sha" "$recipe" | sha256sum | cut -c1-16)
cache="${XDG_CACHE_HOME:-$HOME/.cache}/cltap/amdocl"
dir="$cache/$key"
lib="$dir/lib/libamdocl64.so"
clinfo="$dir/bin/clinfo"
ocltst="$dir/ocltst"

built() {
  [ -e "$dir/.done" ] && [ -f "$lib" ] && [ -x "$clinfo" ] && [ -x "$ocltst/ocltst" ] && [ -f "$ocltst/libTestLog.so" ]
}

case "${1:-}" in
  --path|--clinfo|--ocltst)
    if ! built; then
      echo "amdocl: AMD's OpenCL runtime is not built in $dir: run scripts/setup.sh (it needs $archives/$ocl.tar.xz and $rocclr.tar.xz)" >&2
      exit 1
    fi
    case "$1" in --path) echo "$lib" ;; --clinfo) echo "$clinfo" ;; *) echo "$ocltst" ;; esac
    exit 0 ;;
  "") ;;
  *) echo "usage: $0 [--path | --clinfo | --ocltst]" >&2; exit 2 ;;
esac

if built; then echo "$lib"; exit 0; fi

missing=()
for a in "$ocl" "$rocclr"; do [ -f "$archives/$a.tar.xz" ] || missing+=("$a.tar.xz"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "amdocl: AMD's OpenCL runtime cannot be built: no ${missing[*]} in $archives, and no build cached in $dir (docs/amd-opencl.md)" >&2
  exit 1
fi
got_ocl=$(sha256sum "$archives/$ocl.tar.xz" | cut -d' ' -f1)
got_rocclr=$(sha256sum "$archives/$rocclr.tar.xz" | cut -d' ' -f1)
if [ "$got_ocl" != "$ocl_sha" ] || [ "$got_rocclr" != "$rocclr_sha" ]; then
  echo "amdocl: the archives in $archives are not the pinned rocm-5.2.3 ones (sha256 $got_ocl, $got_rocclr)" >&2
  exit 1
fi

mkdir -p "$cache"
# Two setups at once on one machine (parallel CI jobs) build once: the second waits, then finds it.
exec 9>"$cache/.lock"
flock 9
if built; then echo "$lib"; exit 0; fi

work="$cache/$key.build.$$"
rm -rf "$work"; mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
echo "setup: building AMD's OpenCL runtime (rocm-5.2.3) into $dir, 10 to 15 minutes on 2 cores; log in $work/build.log" >&2
start=$(date +%s)
tar xJf "$archives/$ocl.tar.xz" -C "$work"
tar xJf "$archives/$rocclr.tar.xz" -C "$work"
# Its find modules guess sibling folders named rocclr and opencl; the two paths say where they are.
# BUILD_ICD=OFF: the system's loader (ocl-icd) loads it, not the Khronos loader bundled in its tree.
# BUILD_TESTS=ON adds AMD's own test suite, ocltst: a driver program and its test modules
# (oclruntime, oclperf), linked against the system's loader like any application. ocltst needs its
# log library (libTestLog.so) beside it: with BUILD_RPATH_USE_ORIGIN its run path is $ORIGIN, not
# the build tree that is dropped below.
if ! { cmake -S "$work/$ocl" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DUSE_COMGR_LIBRARY=ON \
         -DBUILD_ICD=OFF -DBUILD_TESTS=ON -DCMAKE_BUILD_RPATH_USE_ORIGIN=ON \
         -DROCCLR_PATH="$work/$rocclr" -DAMD_OPENCL_PATH="$work/$ocl" &&
       make -C "$work/build" -j"$(nproc)" amdocl clinfo ocltst oclruntime oclperf; } >"$work/build.log" 2>&1; then
  tail -n 30 "$work/build.log" >&2
  echo "amdocl: the build failed (last lines above)" >&2
  exit 1
fi
mkdir -p "$work/out/lib" "$work/out/bin"
cp "$work/build/amdocl/libamdocl64.so" "$work/out/lib/"
cp "$work/build/tools/clinfo/clinfo" "$work/out/bin/"
mkdir -p "$work/out/ocltst"
cp "$work/build/tests/ocltst/ocltst" "$work/build/tests/ocltst/libTestLog.so" \
   "$work/build/tests/ocltst/liboclruntime.so" "$work/build/tests/ocltst/liboclperf.so" "$work/out/ocltst/"
cp "$work/build.log" "$work/out/"
touch "$work/out/.done"
rm -rf "$dir"
mv "$work/out" "$dir"
echo "setup: AMD's OpenCL runtime built in $(( $(date +%s) - start )) s" >&2
echo "$lib"
