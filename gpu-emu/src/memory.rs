//! Memory. "VRAM" and system memory alike are anonymous host mappings (`MAP_NORESERVE`, so ROCr's
//! 4 GiB scratch reservation costs nothing until touched); the GPU address of everything is its host
//! address. A table of allocations and registrations answers pointer information, user data and
//! lets the command processor find the allocation a kernel object lies in.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::sys::*;
use crate::topology::{valid_node, CPU_NODE, GPU_NODE};

/// Numbers every allocation and registration, so that what was found in
/// one (a kernel) is never taken for what a later one at the same address
/// holds.
static SERIAL: AtomicU64 = AtomicU64::new(1);

struct Block {
    /// This allocation's number (see [`SERIAL`]).
    serial: u64,
    size: u64,
    node: u32,
    flags: u32,
    kind: HSA_POINTER_TYPE,
    user_data: usize,
    /// Kept in the table so the pointers handed out by `hsaKmtQueryPointerInfo` stay valid.
    mapped: Box<[u32]>,
    /// Ours to `munmap`.
    owned: bool,
}

static BLOCKS: Mutex<BTreeMap<usize, Block>> = Mutex::new(BTreeMap::new());

fn page_round(size: u64) -> usize {
    let page = 4096u64;
    (size.max(1).div_ceil(page) * page) as usize
}

/// The (base, size) of the allocation or registration holding `addr`.
pub fn containing(addr: usize) -> Option<(usize, usize)> {
    allocation(addr).map(|(base, size, _)| (base, size))
}

/// The allocation `addr` lies in: its start, size and number (a new
/// allocation at the same address has another).
pub fn allocation(addr: usize) -> Option<(usize, usize, u64)> {
    let blocks = BLOCKS.lock().unwrap_or_else(|e| e.into_inner());
    let (&base, b) = blocks.range(..=addr).next_back()?;
    (addr < base + b.size as usize).then_some((base, b.size as usize, b.serial))
}

/// Every allocation and registration as (start, end) address ranges, end exclusive: what the
/// shader core may touch during a dispatch (taken at its start).
pub fn ranges() -> Vec<(u64, u64)> {
    let blocks = BLOCKS.lock().unwrap_or_else(|e| e.into_inner());
    union(blocks.iter().map(|(&base, b)| (base as u64, base as u64 + b.size)))
}

/// Ranges (start, end) sorted by start, merged where they overlap or touch: a registration of
/// host memory may lie inside another or straddle its end, and an access valid in their union is
/// valid.
fn union(ranges: impl Iterator<Item = (u64, u64)>) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = ranges.collect();
    v.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(v.len());
    for (s, e) in v {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

fn with_block<R>(addr: usize, f: impl FnOnce(usize, &mut Block) -> R) -> Option<R> {
    let mut blocks = BLOCKS.lock().unwrap_or_else(|e| e.into_inner());
    let (&base, b) = blocks.range_mut(..=addr).next_back()?;
    (addr < base + b.size as usize).then(|| f(base, b))
}

/// Maps `size` bytes of host memory and records it; returns its address.
pub fn allocate(node: u32, size: u64, flags: u32) -> Option<usize> {
    let len = page_round(size);
    // SAFETY: an anonymous private mapping at an address of the kernel's choosing.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return None;
    }
    let block = Block {
        size: len as u64,
        node,
        flags,
        kind: HSA_POINTER_ALLOCATED,
        user_data: 0,
        mapped: Box::new([]),
        owned: true,
        serial: SERIAL.fetch_add(1, Ordering::Relaxed),
    };
    BLOCKS.lock().unwrap_or_else(|e| e.into_inner()).insert(p as usize, block);
    Some(p as usize)
}

/// Forgets the block at `addr` and unmaps it if it was ours.
pub fn free(addr: usize) -> bool {
    let removed = BLOCKS.lock().unwrap_or_else(|e| e.into_inner()).remove(&addr);
    match removed {
        Some(b) => {
            if b.owned {
                // SAFETY: a mapping this module made, of this length.
                unsafe { libc::munmap(addr as *mut libc::c_void, b.size as usize) };
            }
            true
        }
        None => false,
    }
}

fn flags_value(f: HsaMemFlags) -> u32 {
    // SAFETY: every bit pattern is a valid u32.
    unsafe { f.__bindgen_anon_1.Value }
}

#[no_mangle]
pub extern "C" fn hsaKmtAllocMemory(
    node: u32,
    size: u64,
    flags: HsaMemFlags,
    out: *mut *mut libc::c_void,
) -> HSAKMT_STATUS {
    crate::guard(|| {
        if out.is_null() || !valid_node(node) || size == 0 {
            return HSAKMT_STATUS_INVALID_PARAMETER;
        }
        match allocate(node, size, flags_value(flags)) {
            Some(p) => {
                // SAFETY: checked non-null.
                unsafe { *out = p as *mut libc::c_void };
                HSAKMT_STATUS_SUCCESS
            }
            None => HSAKMT_STATUS_NO_MEMORY,
        }
    })
}

#[no_mangle]
pub extern "C" fn hsaKmtFreeMemory(addr: *mut libc::c_void, _size: u64) -> HSAKMT_STATUS {
    crate::guard(|| if free(addr as usize) { HSAKMT_STATUS_SUCCESS } else { HSAKMT_STATUS_INVALID_PARAMETER })
}

/// Host memory ROCr locks ("pins") for the GPU: recorded so pointer information knows it; memory
/// already known (an allocation of ours) stays as it is; a registration again at the same address
/// covers the larger of the two sizes.
#[no_mangle]
pub extern "C" fn hsaKmtRegisterMemoryWithFlags(
    addr: *mut libc::c_void,
    size: u64,
    flags: HsaMemFlags,
) -> HSAKMT_STATUS {
    crate::guard(|| {
        if addr.is_null() || size == 0 {
            return HSAKMT_STATUS_INVALID_PARAMETER;
        }
        let mut blocks = BLOCKS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = blocks.get_mut(&(addr as usize)).filter(|b| !b.owned) {
            b.size = b.size.max(size);
        }
        blocks.entry(addr as usize).or_insert(Block {
            size,
            node: CPU_NODE,
            flags: flags_value(flags),
            kind: HSA_POINTER_REGISTERED_USER,
            user_data: 0,
            mapped: Box::new([]),
            owned: false,
            serial: SERIAL.fetch_add(1, Ordering::Relaxed),
        });
        HSAKMT_STATUS_SUCCESS
    })
}

#[no_mangle]
pub extern "C" fn hsaKmtDeregisterMemory(addr: *mut libc::c_void) -> HSAKMT_STATUS {
    crate::guard(|| {
        let mut blocks = BLOCKS.lock().unwrap_or_else(|e| e.into_inner());
        match blocks.get(&(addr as usize)) {
            Some(b) if !b.owned => {
                blocks.remove(&(addr as usize));
                HSAKMT_STATUS_SUCCESS
            }
            Some(_) => HSAKMT_STATUS_SUCCESS,
            None => HSAKMT_STATUS_MEMORY_NOT_REGISTERED,
        }
    })
}

fn map_to(addr: *mut libc::c_void, alt: *mut u64, nodes: &[u32]) -> HSAKMT_STATUS {
    let known = with_block(addr as usize, |_, b| b.mapped = nodes.into()).is_some();
    if !known {
        return HSAKMT_STATUS_INVALID_PARAMETER;
    }
    if !alt.is_null() {
        // SAFETY: checked non-null; the GPU sees host addresses unchanged.
        unsafe { alt.write_unaligned(addr as u64) };
    }
    HSAKMT_STATUS_SUCCESS
}

#[no_mangle]
pub extern "C" fn hsaKmtMapMemoryToGPU(addr: *mut libc::c_void, _size: u64, alt: *mut u64) -> HSAKMT_STATUS {
    crate::guard(|| map_to(addr, alt, &[GPU_NODE]))
}

#[no_mangle]
pub extern "C" fn hsaKmtMapMemoryToGPUNodes(
    addr: *mut libc::c_void,
    _size: u64,
    alt: *mut u64,
    _flags: HsaMemMapFlags,
    count: u64,
    nodes: *mut u32,
) -> HSAKMT_STATUS {
    crate::guard(|| {
        let list: Vec<u32> = if nodes.is_null() {
            vec![GPU_NODE]
        } else {
            // SAFETY: the caller's array of `count` node ids.
            unsafe { std::slice::from_raw_parts(nodes, count as usize) }.to_vec()
        };
        map_to(addr, alt, &list)
    })
}

#[no_mangle]
pub extern "C" fn hsaKmtUnmapMemoryToGPU(addr: *mut libc::c_void) -> HSAKMT_STATUS {
    crate::guard(|| {
        with_block(addr as usize, |_, b| b.mapped = Box::new([]));
        HSAKMT_STATUS_SUCCESS
    })
}

#[no_mangle]
pub extern "C" fn hsaKmtQueryPointerInfo(ptr: *const libc::c_void, info: *mut HsaPointerInfo) -> HSAKMT_STATUS {
    crate::guard(|| {
        if info.is_null() {
            return HSAKMT_STATUS_INVALID_PARAMETER;
        }
        let found = with_block(ptr as usize, |base, b| {
            let mut i = HsaPointerInfo {
                Type: b.kind,
                Node: b.node,
                CPUAddress: base as *mut libc::c_void,
                GPUAddress: base as u64,
                SizeInBytes: b.size,
                NRegisteredNodes: b.mapped.len() as u32,
                NMappedNodes: b.mapped.len() as u32,
                RegisteredNodes: b.mapped.as_ptr(),
                MappedNodes: b.mapped.as_ptr(),
                UserData: b.user_data as *mut libc::c_void,
                ..Default::default()
            };
            i.MemFlags.__bindgen_anon_1.Value = b.flags;
            i
        });
        let (status, i) = match found {
            Some(i) => (HSAKMT_STATUS_SUCCESS, i),
            None => (HSAKMT_STATUS_ERROR, HsaPointerInfo { Type: HSA_POINTER_UNKNOWN, ..Default::default() }),
        };
        // SAFETY: checked non-null.
        unsafe { info.write_unaligned(i) };
        status
    })
}

#[no_mangle]
pub extern "C" fn hsaKmtSetMemoryUserData(ptr: *const libc::c_void, data: *mut libc::c_void) -> HSAKMT_STATUS {
    crate::guard(|| match with_block(ptr as usize, |_, b| b.user_data = data as usize) {
        Some(()) => HSAKMT_STATUS_SUCCESS,
        None => HSAKMT_STATUS_INVALID_PARAMETER,
    })
}

#[no_mangle]
pub extern "C" fn hsaKmtSetMemoryPolicy(
    _node: u32,
    _default: u32,
    _alternate: u32,
    _addr: *mut libc::c_void,
    _size: u64,
) -> HSAKMT_STATUS {
    HSAKMT_STATUS_SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_answer_pointer_information_inside_their_range() {
        let p = allocate(GPU_NODE, 10_000, 0).unwrap();
        assert_eq!(containing(p + 9_999), Some((p, 12_288)));
        let mut info = HsaPointerInfo::default();
        assert_eq!(hsaKmtSetMemoryUserData((p + 5) as *const _, 77 as *mut _), HSAKMT_STATUS_SUCCESS);
        assert_eq!(hsaKmtQueryPointerInfo((p + 100) as *const _, &mut info), HSAKMT_STATUS_SUCCESS);
        let (kind, base, size, user) = (info.Type, info.CPUAddress as usize, info.SizeInBytes, info.UserData as usize);
        assert_eq!((kind, base, size, user), (HSA_POINTER_ALLOCATED, p, 12_288, 77));
        assert!(free(p));
        assert_eq!(hsaKmtQueryPointerInfo(p as *const _, &mut info), HSAKMT_STATUS_ERROR);
        let kind = info.Type;
        assert_eq!(kind, HSA_POINTER_UNKNOWN);
    }

    #[test]
    fn what_the_gpu_may_touch_is_the_union_of_every_range() {
        // Nested, straddling and touching ranges merge; a gap stays a gap.
        let u = union([(100, 200), (120, 150), (190, 260), (260, 300), (400, 500)].into_iter());
        assert_eq!(u, [(100, 300), (400, 500)]);
    }

    #[test]
    fn a_registration_again_at_one_address_covers_the_larger_size() {
        let mut host = vec![0u8; 8192];
        let p = host.as_mut_ptr() as *mut libc::c_void;
        let flags = HsaMemFlags::default();
        assert_eq!(hsaKmtRegisterMemoryWithFlags(p, 100, flags), HSAKMT_STATUS_SUCCESS);
        assert_eq!(hsaKmtRegisterMemoryWithFlags(p, 6000, flags), HSAKMT_STATUS_SUCCESS);
        assert_eq!(containing(p as usize + 5999), Some((p as usize, 6000)));
        assert_eq!(hsaKmtDeregisterMemory(p), HSAKMT_STATUS_SUCCESS);
        assert_eq!(containing(p as usize), None);
    }
}
