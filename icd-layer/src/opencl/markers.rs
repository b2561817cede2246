//! cltap's perf-marker extension: `clBeginPerfMarkerCLTAP(name, group)` and
//! `clEndPerfMarkerCLTAP()`, handed out by `clGetExtensionFunctionAddress*`
//! whatever the driver answers (without cltap the application gets NULL and
//! skips its markers). They are marked `[local]` in the API description, so
//! the generated name look-up tables lead here. A marker is recorded like
//! any call, so it reaches the API log, the timeline and the `.atp`
//! Perfmarker section in the order the thread made it.

use super::api::id;
use crate::bracket;
use crate::guard::guard;
use std::cell::Cell;
use std::ffi::c_char;

const CL_SUCCESS: i32 = 0;
const CL_INVALID_VALUE: i32 = -30;
const CL_INVALID_OPERATION: i32 = -59;

thread_local! {
    /// Markers begun and not yet ended on this thread.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Begins a marker on this thread. `group` may be NULL (no group).
///
/// # Safety
/// Called through the C ABI: every argument is as this entry's C
/// declaration defines it (each pointer valid for what the entry reads and
/// writes through it, or NULL where the API allows NULL).
pub unsafe extern "C" fn clBeginPerfMarkerCLTAP(name: *const c_char, group: *const c_char) -> i32 {
    guard(CL_INVALID_OPERATION, || begin(name, group))
}

/// # Safety
/// Each pointer argument must be valid for the reads and writes this
/// function makes through it (or NULL where it checks for NULL), and each
/// handle or function pointer must be of the kind its type names.
unsafe fn begin(name: *const c_char, group: *const c_char) -> i32 {
    let id = id::clBeginPerfMarkerCLTAP;
    let t = bracket::enter(&cltap::meta::FUNCTIONS[id], &[name as u64, group as u64]);
    let r = if name.is_null() {
        CL_INVALID_VALUE
    } else {
        let _ = DEPTH.try_with(|d| d.set(d.get() + 1));
        CL_SUCCESS
    };
    bracket::finish_call(id, t, r as u32 as u64, &[name as u64, group as u64], r != CL_SUCCESS);
    r
}

/// Ends the innermost marker of this thread; `CL_INVALID_OPERATION` when
/// none is open.
///
/// # Safety
/// Called through the C ABI: every argument is as this entry's C
/// declaration defines it (each pointer valid for what the entry reads and
/// writes through it, or NULL where the API allows NULL).
pub unsafe extern "C" fn clEndPerfMarkerCLTAP() -> i32 {
    guard(CL_INVALID_OPERATION, || end())
}

/// # Safety
/// Each pointer argument must be valid for the reads and writes this
/// function makes through it (or NULL where it checks for NULL), and each
/// handle or function pointer must be of the kind its type names.
unsafe fn end() -> i32 {
    let id = id::clEndPerfMarkerCLTAP;
    let t = bracket::enter(&cltap::meta::FUNCTIONS[id], &[]);
    let open = DEPTH.try_with(|d| {
        let n = d.get();
        d.set(n.saturating_sub(1));
        n > 0
    });
    let r = if open.unwrap_or(false) { CL_SUCCESS } else { CL_INVALID_OPERATION };
    bracket::finish_call(id, t, r as u32 as u64, &[], r != CL_SUCCESS);
    r
}
