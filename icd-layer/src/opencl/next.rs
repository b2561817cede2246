//! Loader-layer mode's view of the driver: the next table in the chain,
//! which the loader hands cltap, and the driver's pointers for extension
//! functions, found through it. Handles are the driver's own; nothing is
//! translated.

use cltap::exts::{key_of, ExtTable};
use cltap::icd_table::Next;
use std::ffi::c_void;

pub static NEXT: Next = Next::new();
static EXTS: ExtTable = ExtTable::new();

/// The prepare handler's part (`crate::fork`): the extension table's lock.
pub(crate) fn hold_for_fork() {
    EXTS.hold_for_fork();
}

/// The pointer recorded for driver `key`, NULL if none.
pub fn ext_lookup(key: *const c_void, ext: usize) -> *const c_void {
    EXTS.lookup_exact(key, ext)
}

pub fn ext_record(key: *const c_void, ext: usize, f: *const c_void) {
    EXTS.record(key, ext, f);
}

/// The driver's pointer for extension function `ext`, found from a driver handle.
///
/// # Safety
/// `handle` is NULL or a live object of the next layer, its dispatch table first.
#[inline(always)]
pub unsafe fn ext_ptr(ext: usize, handle: *mut c_void) -> *const c_void {
    // SAFETY: `key_of`: the handle is NULL or a live object (# Safety).
    EXTS.lookup(unsafe { key_of(handle) }, ext)
}
