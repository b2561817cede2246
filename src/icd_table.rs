//! The ICD dispatch table as a flat array of slots. The generated code knows
//! which function sits in which slot; this module only owns the storage.

use std::ffi::c_void;
use std::sync::atomic::{AtomicPtr, Ordering};

/// Entries in `struct _cl_icd_dispatch` (opencl-sys 0.6.5, OpenCL 3.1).
pub const SLOTS: usize = 150;

/// Layout-compatible with `struct _cl_icd_dispatch`.
#[repr(C)]
pub struct Table {
    pub slots: [*const c_void; SLOTS],
}

// The tables are immutable after construction and only hold code addresses.
unsafe impl Sync for Table {}
unsafe impl Send for Table {}

/// The table a layer forwards to: filled once by `clInitLayer`, read on every
/// call with a relaxed load (a plain `mov` on x86-64).
pub struct Next {
    slots: [AtomicPtr<c_void>; SLOTS],
}

impl Next {
    pub const fn new() -> Self {
        Self { slots: [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS] }
    }

    /// Copies the first `n` entries of `target` (a loader may hand fewer
    /// entries than cltap knows: ocl-icd 2.3.1 passes 149).
    ///
    /// # Safety
    /// `target` must point at `n` readable pointer-sized entries.
    pub unsafe fn fill(&self, target: *const *const c_void, n: usize) {
        for i in 0..SLOTS {
            // SAFETY: `target.add(i)` is valid for this access: `target` must point at `n` readable pointer-sized
            // entries (# Safety).
            let p = if i < n { unsafe { *target.add(i) } } else { std::ptr::null() };
            self.slots[i].store(p as *mut c_void, Ordering::Release);
        }
    }

    /// Takes `f` as slot `slot`'s entry when the table the loader handed had none (a loader's table
    /// shorter than the driver's: the driver's pointer, found by name, then serves calls through
    /// cltap's wrapper as the loader's own lookup would have served them without cltap). An entry
    /// already there is kept.
    pub fn adopt(&self, slot: usize, f: *const c_void) {
        if slot < SLOTS && !f.is_null() {
            let _ = self.slots[slot].compare_exchange(
                std::ptr::null_mut(),
                f as *mut c_void,
                Ordering::AcqRel,
                Ordering::Relaxed,
            );
        }
    }

    #[inline(always)]
    pub fn get(&self, slot: usize) -> *const c_void {
        self.slots[slot].load(Ordering::Relaxed)
    }
}

impl Default for Next {
    fn default() -> Self {
        Self::new()
    }
}

/// Reads slot `slot` of the dispatch table that object `obj` carries.
///
/// # Safety
/// `obj` must be a live ICD object (its first field a dispatch table pointer).
#[inline(always)]
pub unsafe fn object_slot(obj: *mut c_void, slot: usize) -> *const c_void {
    // SAFETY: `(obj as *const *const *const c_void)` is valid for this access: `obj` must be a live ICD object (its
    // first field a dispatch table pointer) (# Safety).
    let table = unsafe { *(obj as *const *const *const c_void) };
    if table.is_null() {
        return std::ptr::null();
    }
    // SAFETY: `table.add(slot)` is valid for this access, as the caller promises (# Safety).
    unsafe { *table.add(slot) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_copies_only_what_the_loader_gave() {
        let next = Next::new();
        let src: Vec<*const c_void> = (1..=149usize).map(|i| i as *const c_void).collect();
        unsafe { next.fill(src.as_ptr(), src.len()) };
        assert_eq!(next.get(0) as usize, 1);
        assert_eq!(next.get(148) as usize, 149);
        assert!(next.get(149).is_null());
    }

    #[test]
    fn object_slot_reads_through_the_first_field() {
        let table: Vec<*const c_void> = (0..SLOTS).map(|i| (i * 8) as *const c_void).collect();
        let mut obj: [*const c_void; 2] = [table.as_ptr() as *const c_void, std::ptr::null()];
        let p = unsafe { object_slot(obj.as_mut_ptr() as *mut c_void, 7) };
        assert_eq!(p as usize, 56);
    }
}
