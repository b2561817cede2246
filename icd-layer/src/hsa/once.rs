//! cltap named twice in `HSA_TOOLS_LIB` (a user's setting plus
//! `cltap run --hsa`): ROCr calls `OnLoad` once per name. Two names of one
//! file (the same path twice, or two paths to the same inode) are one image
//! for the dynamic linker, so the second `OnLoad` reaches this image again:
//! it returns true at once, installing nothing and recording nothing a
//! second time. A copy of the file is a second image with its own state;
//! it would record every call again into the same files, so it stands aside
//! too (one stderr line naming both), found by the first image's wrappers
//! already sitting in the core table.

use std::ffi::{c_void, CStr};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

/// The first `OnLoad`'s answer: 0 while none has answered, then 1 (true)
/// or 2 (false).
static ANSWER: AtomicU8 = AtomicU8::new(0);
static LOADED: AtomicBool = AtomicBool::new(false);
static ASIDE: AtomicBool = AtomicBool::new(false);

/// True the first time this image's `OnLoad` runs.
pub fn first_load() -> bool {
    !LOADED.swap(true, Ordering::AcqRel)
}

/// What a later `OnLoad` of this image answers: what the first answered.
pub fn first_answer() -> bool {
    ANSWER.load(Ordering::Acquire) != 2
}

/// The first `OnLoad` answers `ok`.
pub fn answered(ok: bool) -> bool {
    ANSWER.store(if ok { 1 } else { 2 }, Ordering::Release);
    ok
}

/// This image found another copy of cltap in place and does nothing.
pub fn stood_aside() -> bool {
    ASIDE.load(Ordering::Acquire)
}

/// The file of another image of cltap that owns `entry` (a core-table
/// entry as the runtime hands it over), if one does: this image then
/// stands aside.
///
/// # Safety
/// `entry` is 0 or a code address.
pub unsafe fn other_copy(entry: usize) -> Option<String> {
    if entry == 0 {
        return None;
    }
    // SAFETY: all-zero bytes are a valid value of this C struct: `entry` is 0 or a code address (# Safety).
    let mut theirs: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: all-zero bytes are a valid value of this C struct, as the caller promises (# Safety).
    let mut ours: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: `dladdr`'s # Safety follows from this fn's.
    if unsafe { libc::dladdr(entry as *const c_void, &mut theirs) } == 0
        || unsafe { libc::dladdr(first_load as *const c_void, &mut ours) } == 0
        || theirs.dli_fbase == ours.dli_fbase
        || theirs.dli_fname.is_null()
    {
        return None;
    }
    // SAFETY: `dlopen`'s # Safety follows from this fn's.
    let h = unsafe { libc::dlopen(theirs.dli_fname, libc::RTLD_NOLOAD | libc::RTLD_LAZY) };
    if h.is_null() {
        return None;
    }
    // Symbols only cltap exports together: an HSA tool that is also an
    // OpenCL loader layer.
    // SAFETY: `dlsym`'s # Safety follows from this fn's.
    let cltap = ["HSA_AMD_TOOL_PRIORITY", "clInitLayer", "OnLoad"]
        .iter()
        .all(|s| !unsafe { libc::dlsym(h, format!("{s}\0").as_ptr() as *const libc::c_char) }.is_null());
    // SAFETY: `dlclose`'s # Safety follows from this fn's.
    unsafe { libc::dlclose(h) };
    if !cltap {
        return None;
    }
    ASIDE.store(true, Ordering::Release);
    // SAFETY: `theirs.dli_fname` is a NUL-terminated string, live while read, as the caller promises (# Safety).
    Some(unsafe { CStr::from_ptr(theirs.dli_fname) }.to_string_lossy().into_owned())
}

/// This image's own file (for the line saying which copy stands aside).
pub fn own_file() -> String {
    // SAFETY: dladdr on a function of this image.
    unsafe {
        let mut ours: libc::Dl_info = std::mem::zeroed();
        if libc::dladdr(first_load as *const c_void, &mut ours) == 0 || ours.dli_fname.is_null() {
            return "?".into();
        }
        CStr::from_ptr(ours.dli_fname).to_string_lossy().into_owned()
    }
}
