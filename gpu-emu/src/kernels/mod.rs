//! What a kernel dispatch runs. The kernel object is identified once (and cached): a kernel of a
//! loaded code object by its name ([`elf`]), one of ROCr's own blit kernels by its header
//! ([`blit`]). Named kernels run a CPU implementation looked up by name: HIP's ROCclr copy and fill
//! kernels ([`rocclr`]) and the registered user kernels ([`registry`]); a kernel without one
//! completes without doing anything.

pub mod blit;
pub mod elf;
pub mod registry;
pub mod rocclr;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cltap::hsa::packet::KernelDispatch;

pub use elf::{ArgSlot, NamedKernel};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kernel {
    Blit(blit::BlitKind),
    Named(NamedKernel),
    Unknown,
}

impl Kernel {
    pub fn name(&self) -> Option<&str> {
        match self {
            Kernel::Named(k) => Some(&k.name),
            Kernel::Blit(b) => Some(b.name()),
            Kernel::Unknown => None,
        }
    }
}

/// What a CPU implementation of a kernel sees: the packet and its explicit arguments.
pub struct Launch<'a> {
    pub dispatch: &'a KernelDispatch,
    pub args: &'a [ArgSlot],
}

impl Launch<'_> {
    /// Work-items in the grid (all dimensions).
    pub fn grid_items(&self) -> u64 {
        self.dispatch.grid_size.iter().map(|&g| u64::from(g.max(1))).product()
    }

    fn raw(&self, index: usize, size: usize) -> Option<u64> {
        let slot = self.args.get(index)?;
        if slot.size < size || self.dispatch.kernarg_address == 0 {
            return None;
        }
        let at = self.dispatch.kernarg_address as usize + slot.offset;
        let mut bytes = [0u8; 8];
        // SAFETY: the kernarg segment the packet names, `slot.size` bytes at the slot's offset.
        unsafe { std::ptr::copy_nonoverlapping(at as *const u8, bytes.as_mut_ptr(), size) };
        Some(u64::from_le_bytes(bytes))
    }

    /// Explicit argument `index` as a 64-bit value (pointers, ulong).
    pub fn u64(&self, index: usize) -> Option<u64> {
        self.raw(index, 8)
    }

    /// Explicit argument `index` as a 32-bit value (uint, int, float bits).
    pub fn u32(&self, index: usize) -> Option<u32> {
        self.raw(index, 4).map(|v| v as u32)
    }
}

/// A CPU implementation of a kernel.
pub type KernelFn = fn(&Launch);

/// Kernels identified, by kernel object, with the number of the
/// allocation they were found in: freed memory may hold another kernel at
/// the same address later, in an allocation with another number.
static CACHE: Mutex<Option<HashMap<u64, Identified>>> = Mutex::new(None);

/// An allocation's number and the kernel found in it.
type Identified = (u64, Arc<Kernel>);

/// Identifies the kernel at `kernel_object`, once per object and allocation.
pub fn identify(kernel_object: u64) -> Arc<Kernel> {
    let Some((start, size, serial)) = crate::memory::allocation(kernel_object as usize) else {
        return Arc::new(Kernel::Unknown);
    };
    let cached = CACHE.lock().unwrap_or_else(|e| e.into_inner()).as_ref().and_then(|c| c.get(&kernel_object).cloned());
    if let Some((_, k)) = cached.filter(|(s, _)| *s == serial) {
        return k;
    }
    let found = Arc::new(resolve(kernel_object as usize, start, size));
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
    blit::recognise(kd, start + size).map_or(Kernel::Unknown, Kernel::Blit)
}

/// Runs the kernel's CPU implementation, if it has one.
pub fn execute(kernel: &Kernel, d: &KernelDispatch) {
    match kernel {
        Kernel::Blit(kind) => blit::run(*kind, d.kernarg_address as usize),
        Kernel::Named(k) => {
            let launch = Launch { dispatch: d, args: &k.args };
            if let Some(f) = rocclr::lookup(&k.name).or_else(|| registry::lookup(&k.name)) {
                f(&launch);
            }
        }
        Kernel::Unknown => {}
    }
}
