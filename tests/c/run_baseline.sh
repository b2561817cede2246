#!/usr/bin/env bash
# Builds every C client test and runs each one twice in the 6 baseline
# configurations (2 ICD loaders x 3 drivers), without the interposer.
# Reports, per program and configuration, the exit codes of both runs and
# whether the two runs printed identical stdout.  Exits 0 iff every run exited
# 0 and every pair of transcripts was identical.
#
# Usage: tests/c/run_baseline.sh [OUT_DIR] [PROGRAM...]
#   OUT_DIR defaults to tests/c/build; transcripts land in OUT_DIR/baseline/.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OUT="${1:-$HERE/build}"
[ $# -gt 0 ] && shift
OUT="$(mkdir -p "$OUT" && cd "$OUT" && pwd)"

POCL=/usr/lib/x86_64-linux-gnu/libpocl.so.2
OCLGRIND=/usr/lib/oclgrind/liboclgrind-rt-icd.so
INTEL_LIB="$ROOT/.deps/intel/lib"
INTEL="$INTEL_LIB/libintelocl.so"
KHRONOS="$ROOT/.deps/intel/khronos"
TIMEOUT="${TIMEOUT:-300}"

make -s -C "$HERE" OUT="$OUT" all || { echo "build failed"; exit 1; }

if [ $# -gt 0 ]; then PROGS="$*"; else PROGS="$(make -s -C "$HERE" print-tests)"; fi
CONFIGS="ocl-icd+pocl ocl-icd+oclgrind ocl-icd+intel khronos+pocl khronos+oclgrind khronos+intel"
EMPTY_VENDORS="$(mktemp -d)"
POCL_CACHE="$(mktemp -d)"
trap 'rm -rf "$EMPTY_VENDORS" "$POCL_CACHE"' EXIT

# run_in CONFIG PROG ARGS... : runs the program against exactly one driver.
run_in() {
    local cfg="$1"; shift
    local drv
    case "$cfg" in
        *+pocl) drv="$POCL" ;;
        *+oclgrind) drv="$OCLGRIND" ;;
        *+intel) drv="$INTEL" ;;
    esac
    case "$cfg" in
        ocl-icd+intel)
            env LD_LIBRARY_PATH="$INTEL_LIB" OCL_ICD_VENDORS="$drv" POCL_CACHE_DIR="$POCL_CACHE" timeout "$TIMEOUT" "$@" ;;
        ocl-icd+*)
            env OCL_ICD_VENDORS="$drv" POCL_CACHE_DIR="$POCL_CACHE" timeout "$TIMEOUT" "$@" ;;
        khronos+*)
            env LD_LIBRARY_PATH="$KHRONOS:$INTEL_LIB" OCL_ICD_VENDORS="$EMPTY_VENDORS" OCL_ICD_FILENAMES="$drv" \
                POCL_CACHE_DIR="$POCL_CACHE" timeout "$TIMEOUT" "$@" ;;
    esac
}

LOGDIR="$OUT/baseline"
mkdir -p "$LOGDIR"
status=0
printf '%-16s %-18s %-6s %-6s %-10s\n' program config run1 run2 stdout
printf '%-16s %-18s %-6s %-6s %-10s\n' ---------------- ------------------ ------ ------ ----------
for prog in $PROGS; do
    for cfg in $CONFIGS; do
        args=()
        # The sample takes the element count; Oclgrind is a slow simulator.
        if [ "$prog" = vecadd ] && [ "${cfg#*+}" = oclgrind ]; then args=(4096); fi
        base="$LOGDIR/$prog.$cfg"
        run_in "$cfg" "$OUT/$prog" "${args[@]}" >"$base.1.out" 2>"$base.1.err"; rc1=$?
        run_in "$cfg" "$OUT/$prog" "${args[@]}" >"$base.2.out" 2>"$base.2.err"; rc2=$?
        if cmp -s "$base.1.out" "$base.2.out"; then same=identical; else same=DIFFERENT; fi
        printf '%-16s %-18s %-6s %-6s %-10s\n' "$prog" "$cfg" "$rc1" "$rc2" "$same"
        if [ "$rc1" != 0 ] || [ "$rc2" != 0 ] || [ "$same" != identical ]; then status=1; fi
    done
done
if [ $status = 0 ]; then echo "baseline: all OK"; else echo "baseline: FAILURES (transcripts in $LOGDIR)"; fi
exit $status
