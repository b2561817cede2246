//! Topology: node 0 is the host CPU, node 1 the emulated gfx906 (a Vega 20 as KFD describes one:
//! 60 CUs of 4 SIMDs, 64-wide waves, 64 KiB LDS, 16 GiB of "VRAM" that is host memory), each with
//! one memory bank, the GPU with its L1 and L2 caches, and a PCIe link each way. ROCr builds its
//! CPU and GPU agents, memory pools and link information from exactly these answers.

use crate::sys::*;

pub const CPU_NODE: u32 = 0;
pub const GPU_NODE: u32 = 1;
const NUM_NODES: u32 = 2;

/// KFD's interface version: ≥ 1.4 or ROCr disables gfx906 for its SRAMECC reporting.
const KFD_MAJOR: u32 = 1;
const KFD_MINOR: u32 = 8;

/// The GPU's "VRAM" size as reported; backed lazily by host memory (`MAP_NORESERVE`).
pub const VRAM_BYTES: u64 = 16 << 30;
/// ROCr's `FComputeIdLo` for the GPU's first SIMD, as KFD numbers GPU compute ids.
const GPU_COMPUTE_ID_LO: u32 = 0x8000_1000;
const GPU_CUS: u32 = 60;
const SIMDS_PER_CU: u32 = 4;

pub fn valid_node(node: u32) -> bool {
    node < NUM_NODES
}

fn utf16_name(dst: &mut [u16; 64], s: &str) {
    for (d, c) in dst.iter_mut().zip(s.encode_utf16().take(63)) {
        *d = c;
    }
}

fn ascii_name(dst: &mut [u8; 64], s: &str) {
    for (d, c) in dst.iter_mut().zip(s.bytes().take(63)) {
        *d = c;
    }
}

fn cpu_count() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
}

fn host_memory_bytes() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let (pages, size) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    (pages.max(1) as u64) * (size.max(1) as u64)
}

pub fn node_properties(node: u32) -> Option<HsaNodeProperties> {
    let mut p = HsaNodeProperties::default();
    match node {
        CPU_NODE => {
            p.NumCPUCores = cpu_count();
            p.NumMemoryBanks = 1;
            p.NumCaches = 3;
            p.NumIOLinks = 1;
            p.CComputeIdLo = 0;
            p.MaxEngineClockMhzCCompute = 2000;
            p.WaveFrontSize = 0;
            ascii_name(&mut p.AMDName, "CPU (gpu-emu host)");
            utf16_name(&mut p.MarketingName, "CPU (gpu-emu host)");
        }
        GPU_NODE => {
            p.NumFComputeCores = GPU_CUS * SIMDS_PER_CU;
            p.NumMemoryBanks = 3;
            p.NumCaches = 2;
            p.NumIOLinks = 1;
            p.FComputeIdLo = GPU_COMPUTE_ID_LO;
            // SAFETY: writing the bit-field view of a zeroed union.
            unsafe {
                p.Capability.ui32.set_QueueSizePowerOfTwo(1);
                p.Capability.ui32.set_QueueSize32bit(1);
                p.Capability.ui32.set_WatchPointsTotalBits(2);
                // 2: the gfx9 doorbell, a 64-bit store of the packet index.
                p.Capability.ui32.set_DoorbellType(2);
                p.EngineId.ui32.set_uCode(440);
                p.EngineId.ui32.set_Major(9);
                p.EngineId.ui32.set_Minor(0);
                p.EngineId.ui32.set_Stepping(6);
                p.uCodeEngineVersions.__bindgen_anon_1.set_uCodeSDMA(430);
            }
            p.MaxWavesPerSIMD = 10;
            p.LDSSizeInKB = 64;
            p.GDSSizeInKB = 0;
            p.WaveFrontSize = 64;
            p.NumShaderBanks = 4;
            p.NumArrays = 4;
            p.NumCUPerArray = 15;
            p.NumSIMDPerCU = SIMDS_PER_CU;
            p.MaxSlotsScratchCU = 32;
            p.VendorId = 0x1002;
            p.DeviceId = 0x66a1;
            p.LocationId = 0x0300;
            p.LocalMemSize = VRAM_BYTES;
            p.MaxEngineClockMhzFCompute = 1725;
            p.DrmRenderMinor = 128;
            p.HiveID = 0;
            p.NumSdmaEngines = 2;
            p.NumSdmaXgmiEngines = 0;
            p.NumSdmaQueuesPerEngine = 8;
            p.NumCpQueues = 24;
            p.NumGws = 0;
            p.UniqueID = 0x6e75_2d65_6d75_0906;
            ascii_name(&mut p.AMDName, "Vega20");
            utf16_name(&mut p.MarketingName, "gfx906 emulated by cltap gpu-emu");
        }
        _ => return None,
    }
    Some(p)
}

fn bank(heap: HSA_HEAPTYPE, size: u64, base: u64, width: u32, clock: u32) -> HsaMemoryProperties {
    let mut m = HsaMemoryProperties { HeapType: heap, Width: width, MemoryClockMax: clock, ..Default::default() };
    m.__bindgen_anon_1.SizeInBytes = size;
    m.VirtualBaseAddress = base;
    m
}

/// The GPU's banks: "VRAM", and the LDS and scratch apertures (GPU-side address ranges that ROCr
/// needs to know of; nothing on the host is mapped there), at the bases KFD gives a gfx9 dGPU.
fn memory_banks(node: u32) -> Vec<HsaMemoryProperties> {
    if node == GPU_NODE {
        vec![
            bank(HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC, VRAM_BYTES, 0, 4096, 1000),
            bank(HSA_HEAPTYPE_GPU_LDS, 64 << 10, 0x1_0000_0000_0000, 0, 0),
            bank(HSA_HEAPTYPE_GPU_SCRATCH, 4 << 30, 0x2_0000_0000_0000, 0, 0),
        ]
    } else {
        vec![bank(HSA_HEAPTYPE_SYSTEM, host_memory_bytes(), 0, 64, 3200)]
    }
}

fn cache(processor: u32, level: u32, size_kb: u32, gpu: bool) -> HsaCacheProperties {
    let mut c = HsaCacheProperties {
        ProcessorIdLow: processor,
        CacheLevel: level,
        CacheSize: size_kb,
        CacheLineSize: 64,
        CacheLinesPerTag: 1,
        CacheAssociativity: 16,
        CacheLatency: 1,
        ..Default::default()
    };
    // SAFETY: writing the bit-field view of a zeroed union.
    unsafe {
        c.CacheType.ui32.set_Data(1);
        if gpu {
            c.CacheType.ui32.set_HSACU(1);
        } else {
            c.CacheType.ui32.set_CPU(1);
        }
    }
    c
}

fn io_link(from: u32, to: u32) -> HsaIoLinkProperties {
    HsaIoLinkProperties {
        IoLinkType: HSA_IOLINKTYPE_PCIEXPRESS,
        VersionMajor: 3,
        VersionMinor: 0,
        NodeFrom: from,
        NodeTo: to,
        Weight: 20,
        MinimumLatency: 0,
        MaximumLatency: 0,
        MinimumBandwidth: 0,
        MaximumBandwidth: 0,
        RecTransferSize: 0,
        ..Default::default()
    }
}

/// Copies `items` into the caller's array of `count` entries; more asked than exist is an error.
fn fill<T: Copy>(out: *mut T, count: u32, items: &[T]) -> HSAKMT_STATUS {
    if out.is_null() || count as usize > items.len() {
        return HSAKMT_STATUS_INVALID_PARAMETER;
    }
    for (i, item) in items.iter().take(count as usize).enumerate() {
        // SAFETY: the caller's array holds `count` entries.
        unsafe { out.add(i).write_unaligned(*item) };
    }
    HSAKMT_STATUS_SUCCESS
}

#[no_mangle]
pub extern "C" fn hsaKmtGetVersion(info: *mut HsaVersionInfo) -> HSAKMT_STATUS {
    crate::guard(|| {
        if info.is_null() {
            return HSAKMT_STATUS_INVALID_PARAMETER;
        }
        let v = HsaVersionInfo { KernelInterfaceMajorVersion: KFD_MAJOR, KernelInterfaceMinorVersion: KFD_MINOR };
        // SAFETY: checked non-null.
        unsafe { info.write_unaligned(v) };
        HSAKMT_STATUS_SUCCESS
    })
}

#[no_mangle]
pub extern "C" fn hsaKmtAcquireSystemProperties(props: *mut HsaSystemProperties) -> HSAKMT_STATUS {
    crate::guard(|| {
        if props.is_null() {
            return HSAKMT_STATUS_INVALID_PARAMETER;
        }
        let p = HsaSystemProperties { NumNodes: NUM_NODES, PlatformOem: 0, PlatformId: 0, PlatformRev: 0 };
        // SAFETY: checked non-null.
        unsafe { props.write_unaligned(p) };
        HSAKMT_STATUS_SUCCESS
    })
}

#[no_mangle]
pub extern "C" fn hsaKmtReleaseSystemProperties() -> HSAKMT_STATUS {
    HSAKMT_STATUS_SUCCESS
}

#[no_mangle]
pub extern "C" fn hsaKmtGetNodeProperties(node: u32, props: *mut HsaNodeProperties) -> HSAKMT_STATUS {
    crate::guard(|| match (node_properties(node), props.is_null()) {
        (Some(p), false) => {
            // SAFETY: checked non-null.
            unsafe { props.write_unaligned(p) };
            HSAKMT_STATUS_SUCCESS
        }
        _ => HSAKMT_STATUS_INVALID_PARAMETER,
    })
}

#[no_mangle]
pub extern "C" fn hsaKmtGetNodeMemoryProperties(node: u32, count: u32, out: *mut HsaMemoryProperties) -> HSAKMT_STATUS {
    crate::guard(
        || {
            if valid_node(node) {
                fill(out, count, &memory_banks(node))
            } else {
                HSAKMT_STATUS_INVALID_PARAMETER
            }
        },
    )
}

#[no_mangle]
pub extern "C" fn hsaKmtGetNodeCacheProperties(
    node: u32,
    _processor_id: u32,
    count: u32,
    out: *mut HsaCacheProperties,
) -> HSAKMT_STATUS {
    crate::guard(|| match node {
        GPU_NODE => fill(out, count, &[cache(GPU_COMPUTE_ID_LO, 1, 16, true), cache(GPU_COMPUTE_ID_LO, 2, 4096, true)]),
        CPU_NODE => fill(out, count, &[cache(0, 1, 32, false), cache(0, 2, 512, false), cache(0, 3, 16384, false)]),
        _ => HSAKMT_STATUS_INVALID_PARAMETER,
    })
}

#[no_mangle]
pub extern "C" fn hsaKmtGetNodeIoLinkProperties(node: u32, count: u32, out: *mut HsaIoLinkProperties) -> HSAKMT_STATUS {
    crate::guard(|| match node {
        GPU_NODE => fill(out, count, &[io_link(GPU_NODE, CPU_NODE)]),
        CPU_NODE => fill(out, count, &[io_link(CPU_NODE, GPU_NODE)]),
        _ => HSAKMT_STATUS_INVALID_PARAMETER,
    })
}

/// gfx906 without XNACK (as Debian's gfx906 code objects are built).
#[no_mangle]
pub extern "C" fn hsaKmtGetXNACKMode(enable: *mut i32) -> HSAKMT_STATUS {
    crate::guard(|| {
        if enable.is_null() {
            return HSAKMT_STATUS_INVALID_PARAMETER;
        }
        // SAFETY: checked non-null.
        unsafe { *enable = 0 };
        HSAKMT_STATUS_SUCCESS
    })
}

#[no_mangle]
pub extern "C" fn hsaKmtSetXNACKMode(enable: i32) -> HSAKMT_STATUS {
    if enable == 0 {
        HSAKMT_STATUS_SUCCESS
    } else {
        HSAKMT_STATUS_NOT_SUPPORTED
    }
}

/// gfx9 has no tile-mode tables: the counts come back 0 with an address configuration (HIP asserts
/// that this call succeeds).
#[no_mangle]
pub extern "C" fn hsaKmtGetTileConfig(node: u32, config: *mut HsaGpuTileConfig) -> HSAKMT_STATUS {
    crate::guard(|| {
        if config.is_null() || node != GPU_NODE {
            return HSAKMT_STATUS_INVALID_PARAMETER;
        }
        // SAFETY: checked non-null; the caller's struct.
        unsafe {
            let mut c = config.read_unaligned();
            c.NumTileConfigs = 0;
            c.NumMacroTileConfigs = 0;
            c.GbAddrConfig = 0x2a11_4042;
            c.NumBanks = 16;
            c.NumRanks = 2;
            config.write_unaligned(c);
        }
        HSAKMT_STATUS_SUCCESS
    })
}
