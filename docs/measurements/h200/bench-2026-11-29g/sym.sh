#!/bin/bash
tar xJf ../perf.tar.xz -C /tmp
printf '#!/bin/sh\nLD_LIBRARY_PATH=/tmp/perf/lib exec /tmp/perf/perf "$@"\n' > /tmp/pf; chmod +x /tmp/pf; PF=/tmp/pf
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
NV=/usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1; [ -e $NV ] || NV=/usr/lib/libnvidia-opencl.so.1
mkdir -p /tmp/w
for spec in ${SPECS:-2000:none 20000:none}; do
  E="OPENCL_LAYERS=$PWD/libcltap_layer.so CLTAP_OUTPUT_DIR=/tmp/w CLTAP_API_LOG=0 CLTAP_DEVICE_TIMING=1"
  echo "== $spec"
  $PF record -q -F 25000 -o /tmp/p.data -- env LD_LIBRARY_PATH=$LD_LIBRARY_PATH OCL_ICD_VENDORS=$NV OCL_ICD_FILENAMES=$NV $E taskset -c 4-7 bin/cltap bench --child stream:$spec
  $PF report -i /tmp/p.data --no-children --dsos libcltap_layer.so --sort sym --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -40
  $PF report -i /tmp/p.data --no-children --sort comm --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -8
  $PF report -i /tmp/p.data --no-children --comm cltap-devtime --sort dso,sym --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -8
done
