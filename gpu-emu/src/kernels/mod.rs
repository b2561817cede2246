//! What a kernel dispatch runs: the kernel's own machine code, on the shader core
//! (`gfx906::dispatch`). The kernel object is identified once per object and allocation (and
//! cached): its code (a `gfx906::Code` over the allocation it lies in, decoded as it runs) and a
//! name for logs and faults on demand: a code-object kernel's from the code object ([`elf`]),
//! ROCr's own blit kernels' from their header.

pub mod elf;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cltap::hsa::packet::KernelDispatch;
use gfx906::dispatch::{self, Dispatch, Options, Outcome, Packet};
use gfx906::{Code, Fault, Ranges};

pub use elf::{ArgSlot, NamedKernel};

/// `amd_kernel_code_t.kernel_code_entry_byte_offset` of ROCr's blit kernels: the header's size.
const AMD_KERNEL_CODE_SIZE: i64 = 256;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kernel {
    /// One of ROCr's blit kernels (`amd_blit_kernel.cpp`), named by its shader.
    Blit(&'static str),
    Named(NamedKernel),
    /// A kernel object in an allocation but without a name the emulator can find.
    Unnamed,
    /// A kernel object in no allocation: its dispatch faults.
    Unknown,
}

impl Kernel {
    pub fn name(&self) -> Option<&str> {
        match self {
            Kernel::Named(k) => Some(&k.name),
            Kernel::Blit(b) => Some(b),
            Kernel::Unnamed | Kernel::Unknown => None,
        }
    }

    /// How logs name it.
    pub fn label(&self) -> String {
        match self {
            Kernel::Blit(b) => format!("ROCr blit {b}"),
            other => other.name().unwrap_or("unknown kernel").to_string(),
        }
    }
}

/// A kernel object identified: what it is called and the code it runs (None when the object lies
/// in no allocation).
pub struct Loaded {
    pub kernel: Kernel,
    pub code: Option<Code>,
}

/// Kernels identified, by kernel object, with the number of the allocation they were found in:
/// freed memory may hold another kernel at the same address later, in an allocation with another
/// number.
static CACHE: Mutex<Option<HashMap<u64, Identified>>> = Mutex::new(None);

/// An allocation's number and the kernel found in it.
type Identified = (u64, Arc<Loaded>);

/// Identifies the kernel at `kernel_object`, once per object and allocation.
pub fn identify(kernel_object: u64) -> Arc<Loaded> {
    let Some((start, size, serial)) = crate::memory::allocation(kernel_object as usize) else {
        return Arc::new(Loaded { kernel: Kernel::Unknown, code: None });
    };
    let cached = CACHE.lock().unwrap_or_else(|e| e.into_inner()).as_ref().and_then(|c| c.get(&kernel_object).cloned());
    if let Some((_, k)) = cached.filter(|(s, _)| *s == serial) {
        return k;
    }
    // SAFETY: a live allocation of the emulator's table (page-aligned, so 4-byte aligned), which
    // the application keeps while it dispatches the kernels in it; a later allocation at the same
    // address has another number and gets a Code of its own.
    let code = unsafe { Code::in_memory(start as u64, (start + size) as u64) };
    let found = Arc::new(Loaded { kernel: resolve(kernel_object as usize, start, size), code: Some(code) });
    CACHE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(HashMap::new)
        .insert(kernel_object, (serial, found.clone()));
    found
}

fn resolve(kd: usize, start: usize, size: usize) -> Kernel {
    if let Some(k) = elf::find(kd, start, start + size) {
        return Kernel::Named(k);
    }
    blit_name(kd, start + size).map_or(Kernel::Unnamed, Kernel::Blit)
}

/// ROCr's blit shaders told apart by the SGPR and VGPR granules ROCr writes into
/// COMPUTE_PGM_RSRC1 from each shader's declared counts (CopyAligned 32/12, CopyMisaligned 23/10,
/// Fill 19/8), behind a header whose first 16 bytes ROCr leaves zero.
fn blit_name(kd: usize, end: usize) -> Option<&'static str> {
    if kd.checked_add(64)? > end {
        return None;
    }
    // SAFETY: 64 bytes inside a live allocation of the emulator's memory table.
    let header = unsafe { std::slice::from_raw_parts(kd as *const u8, 64) };
    let entry = i64::from_le_bytes(header[16..24].try_into().ok()?);
    if entry != AMD_KERNEL_CODE_SIZE || header[..16].iter().any(|&b| b != 0) {
        return None;
    }
    let rsrc1 = u32::from_le_bytes(header[48..52].try_into().ok()?);
    match (rsrc1 >> 6 & 0xf, rsrc1 & 0x3f) {
        (3, 2) => Some("CopyAligned"),
        (2, 2) => Some("CopyMisaligned"),
        (2, 1) => Some("Fill"),
        _ => None,
    }
}

/// Where a dispatch packet came from: its address, its queue's `amd_queue_t` and its index.
#[derive(Debug, Clone, Copy)]
pub struct Origin {
    pub packet_address: u64,
    pub queue_address: u64,
    pub dispatch_id: u64,
}

/// Host threads the work-groups of a dispatch run on.
fn threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Runs the kernel's code for the dispatch `d` on the shader core, against the memory the GPU
/// has mapped now (every allocation and registration, taken at the dispatch's start).
pub fn execute(k: &Loaded, d: &KernelDispatch, origin: Origin) -> Result<Outcome, Fault> {
    let Some(code) = &k.code else {
        let at = d.kernel_object;
        return Err(Fault::Memory { pc: at, addr: at, len: 64, name: "kernel descriptor" });
    };
    let mem = Ranges::new(crate::memory::ranges());
    let dispatch = Dispatch {
        packet: Packet {
            setup: d.setup,
            workgroup_size: d.workgroup_size,
            grid_size: d.grid_size,
            private_segment_size: d.private_segment_size,
            group_segment_size: d.group_segment_size,
            kernel_object: d.kernel_object,
            kernarg_address: d.kernarg_address,
        },
        packet_address: origin.packet_address,
        queue_address: origin.queue_address,
        dispatch_id: origin.dispatch_id,
    };
    dispatch::run(&dispatch, &mem, code, &Options { threads: threads(), ..Default::default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ROCr's blit header for a shader of `sgprs` and `vgprs`, as `AssembleShader` writes it.
    fn header(sgprs: u32, vgprs: u32) -> Vec<u32> {
        let mut h = vec![0u32; 64];
        h[4] = 256;
        h[12] = (((sgprs - 1) / 8) << 6) | ((vgprs - 1) / 4);
        h
    }

    #[test]
    fn rocr_blits_are_named_by_their_granules() {
        for (s, v, name) in [(32, 12, "CopyAligned"), (23, 10, "CopyMisaligned"), (19, 8, "Fill")] {
            let h = header(s, v);
            let at = h.as_ptr() as usize;
            assert_eq!(blit_name(at, at + 256), Some(name));
        }
        let mut h = header(32, 12);
        h[0] = 1;
        let at = h.as_ptr() as usize;
        assert_eq!(blit_name(at, at + 256), None, "a code-object descriptor's sizes are not zero");
        assert_eq!(blit_name(at, at + 32), None);
    }

    #[test]
    fn a_reused_kernel_object_address_is_identified_again() {
        let p = crate::memory::allocate(crate::topology::GPU_NODE, 4096, 0).unwrap();
        let h = header(19, 8);
        // SAFETY: the allocation just made, 4096 bytes.
        unsafe { std::ptr::copy_nonoverlapping(h.as_ptr(), p as *mut u32, 64) };
        assert_eq!(identify(p as u64).kernel, Kernel::Blit("Fill"));
        assert!(crate::memory::free(p));
        let q = crate::memory::allocate(crate::topology::GPU_NODE, 4096, 0).unwrap();
        let h = header(32, 12);
        // SAFETY: as above.
        unsafe { std::ptr::copy_nonoverlapping(h.as_ptr(), q as *mut u32, 64) };
        if p == q {
            assert_eq!(identify(q as u64).kernel, Kernel::Blit("CopyAligned"));
        }
        assert!(crate::memory::free(q));
        assert_eq!(identify(q as u64).kernel, Kernel::Unknown);
    }
}
