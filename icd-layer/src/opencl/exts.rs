//! What `clGetExtensionFunctionAddress*` hands out: the described function
//! of a name, cltap's own functions (the perf markers, marked `[local]`),
//! and the names cltap does not know.

use std::ffi::{c_char, c_void, CStr};

/// A described function, as one mode's name look-up table holds it
/// (generated: `ENTRIES` in `layer.rs` and `icd.rs`).
pub struct Entry {
    pub name: &'static str,
    /// Its index in the per-driver table of extension functions.
    pub ext: Option<usize>,
    /// Its slot in the ICD dispatch table, if it has one.
    pub slot: Option<usize>,
    /// Implemented by cltap itself.
    pub local: bool,
    /// The mode's wrapper; NULL for a Windows-only slot.
    pub f: *const c_void,
}

unsafe impl Sync for Entry {}

/// The described function with this C name.
pub fn entry(entries: &'static [Entry], name: *const c_char) -> Option<&'static Entry> {
    if name.is_null() {
        return None;
    }
    let n = unsafe { CStr::from_ptr(name) }.to_bytes();
    entries.iter().find(|e| e.name.as_bytes() == n)
}

/// cltap's own function for `name`, when it is one of its extensions. It is
/// handed out whatever the driver answers (without cltap the application
/// gets NULL and skips its markers).
pub fn own(entries: &'static [Entry], name: *const c_char) -> Option<*mut c_void> {
    entry(entries, name).filter(|e| e.local).map(|e| e.f as *mut c_void)
}

/// ICD mode's table of the real drivers' extension functions (`drivers`),
/// here so that the fork handler reaches it without depending on them.
pub(crate) static DRIVERS: cltap::exts::ExtTable = cltap::exts::ExtTable::new();

pub(crate) static UNKNOWN_SEEN: cltap::fork::lock::Mutex<Vec<String>> = cltap::fork::lock::Mutex::new(Vec::new());

/// Records, once per name, that an extension function cltap does not know
/// was asked for. In layer mode the driver's own pointer is handed out (it
/// receives the driver's handles); in ICD mode it would receive cltap's
/// handles, so NULL is returned instead.
pub fn note_unknown_extension(name: *const c_char, passed_through: bool) {
    if name.is_null() {
        return;
    }
    let n = unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned();
    let mut seen = UNKNOWN_SEEN.lock();
    if seen.contains(&n) {
        return;
    }
    if !passed_through {
        // Hiding changes what the application sees, so it is said at once.
        cltap::warn!("{n}: extension function unknown to cltap; in ICD mode it is hidden (NULL). Use layer mode (OPENCL_LAYERS) to reach it");
    }
    seen.push(n);
}

/// Unknown extension functions asked for so far, for the end-of-run report.
pub fn unknown_extensions() -> Vec<String> {
    UNKNOWN_SEEN.lock().clone()
}
