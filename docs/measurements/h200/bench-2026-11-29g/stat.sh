#!/bin/bash
# syscall counts and dso profile per configuration (issue 40 experiment)
tar xJf ../perf.tar.xz -C /tmp
printf '#!/bin/sh\nLD_LIBRARY_PATH=/tmp/perf/lib exec /tmp/perf/perf "$@"\n' > /tmp/pf; chmod +x /tmp/pf; PF=/tmp/pf
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1; [ -e $NV ] || NV=/usr/lib/libnvidia-opencl.so.1
mkdir -p /tmp/w
for spec in ${SPECS:-2000:none 2000:event 20000:none}; do
for m in prof cli dt; do
  ev=${spec#*:}; n=${spec%:*}
  case $m in
    prof) E=""; [ $ev = none ] && ev=profiled || ev=read;;
    dt) E="OPENCL_LAYERS=$PWD/libcltap_layer.so CLTAP_OUTPUT_DIR=/tmp/w CLTAP_API_LOG=0 CLTAP_DEVICE_TIMING=1";;
    cli) E="LD_LIBRARY_PATH=$PWD/cli:/usr/lib/x86_64-linux-gnu CLI_DevicePerformanceTiming=1 CLI_OpenCLFileName=/usr/lib/x86_64-linux-gnu/libOpenCL.so.1 CLI_DumpDir=/tmp/w";;
  esac
  echo "== $m $spec"
  $PF stat -x, -e syscalls:sys_enter_ioctl,syscalls:sys_enter_futex,syscalls:sys_enter_clock_gettime,syscalls:sys_enter_write,syscalls:sys_enter_mmap -- env LD_LIBRARY_PATH=$LD_LIBRARY_PATH OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV $E taskset -c 4-7 bin/cltap bench --child stream:$n:$ev 2>&1 | grep -v '^$'
  $PF record -q -F 20000 -o /tmp/p.data -- env LD_LIBRARY_PATH=$LD_LIBRARY_PATH OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV $E taskset -c 4-7 bin/cltap bench --child stream:$n:$ev >/dev/null 2>&1
  $PF report -i /tmp/p.data --no-children --sort dso --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -8
  $PF report -i /tmp/p.data --no-children --sort sym --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -4
done; done
