#!/usr/bin/env bash
# Runs the C test programs and clinfo on a machine's own OpenCL driver,
# without cltap, in loader-layer mode and in ICD mode, and reports whether
# each run printed and returned exactly the same. Used for the NVIDIA H200
# verification (docs/measurements/h200.md); needs only bash, coreutils and clinfo there.
#   scripts/device-run.sh BUNDLE OUTDIR
# BUNDLE holds libcltap_layer.so and bin/<programs>, built on the dev machine.
set -u
B=$(cd "$1" && pwd); OUT=$2; mkdir -p "$OUT"
L=$B/libcltap_layer.so
NV=""
for c in /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 /usr/lib/libnvidia-opencl.so.1 /usr/local/nvidia/lib64/libnvidia-opencl.so.1; do
  [ -e "$c" ] && { NV=$c; break; }
done
[ -n "$NV" ] || NV=$(ldconfig -p | awk '/libnvidia-opencl.so.1/{print $NF; exit}')
[ -n "$NV" ] || { echo "no libnvidia-opencl.so.1 found" | tee "$OUT/report.txt"; exit 1; }
E=$(mktemp -d)
CUDA_LIB=/usr/local/cuda/targets/x86_64-linux/lib
R=$OUT/report.txt; D=$OUT/diffs.txt; : > "$R"; : > "$D"; : > "$OUT/plain-outputs.txt"
{ echo "driver: $NV"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null; uname -r; } >> "$R"
export POCL_CACHE_DIR=$E/pocl
LOGS=$E/logs; mkdir -p "$LOGS"
run() { # loader mode prog args...
  local loader=$1 mode=$2; shift 2
  local -a env=(env -u OCL_ICD_VENDORS -u OCL_ICD_FILENAMES -u OPENCL_LAYERS)
  case $loader in
    ocl-icd) env+=(LD_LIBRARY_PATH=$OCL_ICD_DIR);;
    cuda-khronos) env+=(LD_LIBRARY_PATH=$CUDA_LIB);;
  esac
  [ "$mode" = plain ] || env+=(CLTAP_SUMMARY=1 CLTAP_OUTPUT_DIR=$LOGS)
  # ocl-icd reads OCL_ICD_VENDORS (a library path), the Khronos loader
  # OCL_ICD_FILENAMES: setting both selects one driver with either.
  case $mode in
    plain) env+=(OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV);;
    layer) env+=(OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV OPENCL_LAYERS=$L);;
    icd)   env+=(OCL_ICD_VENDORS=$L OCL_ICD_FILENAMES=$L CLTAP_ICD_FILENAMES=$NV);;
  esac
  "${env[@]}" timeout 300 "$@"
}
# Both loaders, each picked explicitly: Debian/Ubuntu's ocl-icd and the
# Khronos-based loader CUDA ships.
OCL_ICD_DIR=/usr/lib/x86_64-linux-gnu
loaders=""
for dir in $OCL_ICD_DIR $CUDA_LIB; do
  lib=$dir/libOpenCL.so.1; [ -e "$lib" ] || continue
  if grep -qa "OCL Icd free software" "$lib"; then loaders="$loaders ocl-icd"; else loaders="$loaders cuda-khronos"; fi
  echo "loader: $lib" >> "$R"
done
printf '%-16s %-13s %-6s %-14s %-14s %s\n' program loader plain layer icd note >> "$R"
for loader in $loaders; do
  for p in "$B"/bin/* clinfo; do
    name=$(basename "$p"); args=()
    run $loader plain "$p" "${args[@]}" > $E/plain.out 2> $E/plain.err; rp=$?
    { echo "=== $name via $loader, without cltap: rc=$rp"; cat $E/plain.out; sed 's/^/stderr: /' $E/plain.err; } >> "$OUT/plain-outputs.txt"
    res=(); note=""
    for m in layer icd; do
      run $loader $m "$p" "${args[@]}" > $E/$m.out 2> $E/$m.err; rm_=$?
      if [ $rm_ = $rp ] && cmp -s $E/plain.out $E/$m.out; then res+=("same(rc=$rm_)"); else res+=("DIFF(rc=$rm_)");
        { echo "=== $name $loader $m (plain rc=$rp, $m rc=$rm_)"; diff $E/plain.out $E/$m.out | head -40; echo "--- stderr"; head -20 $E/$m.err; } >> "$D"; fi
      # The tally cltap prints at exit proves the call went through it.
      grep -q "calls passed through" $E/$m.err && note="$note $m:active" || note="$note $m:NOT-ACTIVE"
    done
    printf '%-16s %-13s %-6s %-14s %-14s %s\n' "$name" "$loader" "rc=$rp" "${res[0]}" "${res[1]}" "$note" >> "$R"
    [ "$name" = clinfo ] && [ "$loader" = ocl-icd ] && cp $E/plain.out "$OUT/clinfo-nvidia.txt"
  done
done
# The call tally through cltap, to show the calls really passed through it.
run ocl-icd layer "$B/bin/enqueue" > /dev/null 2> "$OUT/tally-layer.txt"
run ocl-icd icd "$B/bin/enqueue" > /dev/null 2> "$OUT/tally-icd.txt"
# One API log from the real GPU, for the record.
rm -f "$LOGS"/*.apilog
run ocl-icd layer env CLTAP_LOG_DECODE=1 "$B/bin/vecadd" > /dev/null 2>&1
cp "$LOGS"/vecadd.*.apilog "$OUT/vecadd-nvidia.apilog" 2>/dev/null
cat "$R"
