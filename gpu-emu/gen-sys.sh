#!/usr/bin/env bash
# Regenerates src/sys.rs from the installed headers (apt-get install bindgen libhsakmt-dev libhsa-runtime-dev).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '#include <hsakmttypes.h>\n#include <hsa/amd_hsa_signal.h>\n#include <hsa/amd_hsa_queue.h>\n' >"$tmp/w.h"
types='HsaVersionInfo|HsaSystemProperties|HsaNodeProperties|HsaMemoryProperties|HsaCacheProperties|HsaIoLinkProperties'
types+='|HsaMemFlags|HsaMemMapFlags|HsaEvent|HsaEventDescriptor|HsaQueueResource|HsaPointerInfo|HsaClockCounters'
types+='|HsaGpuTileConfig|HsaMemoryAccessFault|amd_signal_t|amd_queue_t|HSAKMT_STATUS|HSA_HEAPTYPE|HSA_EVENTTYPE'
types+='|HSA_QUEUE_TYPE|HSA_QUEUE_PRIORITY|HSA_IOLINKTYPE|HSA_POINTER_TYPE|HsaSharedMemoryHandle'
types+='|HsaGraphicsResourceInfo|HsaSVMAttribute|HsaMemoryRange|HsaCacheType'
{
  sed -n '1,7p' "$here/src/sys.rs"
  bindgen "$tmp/w.h" --no-layout-tests --no-doc-comments --with-derive-default --no-prepend-enum-name \
    --allowlist-type "$types" --allowlist-var 'HSA_EVENTTIMEOUT_.*' --use-core --default-enum-style=consts \
    -- -I/usr/include/hsa
} | sed "/^#\[repr(align(4))\]$/d" >"$tmp/sys.rs"
mv "$tmp/sys.rs" "$here/src/sys.rs"
