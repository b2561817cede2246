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
/// `name` and `group` are NULL or NUL-terminated strings.
pub unsafe extern "C" fn clBeginPerfMarkerCLTAP(name: *const c_char, group: *const c_char) -> i32 {
    // SAFETY: `begin`'s # Safety follows from this fn's.
    guard(CL_INVALID_OPERATION, || unsafe { begin(name, group) })
}

/// # Safety
/// `name` and `group` are NULL or NUL-terminated strings.
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
/// None beyond the C ABI.
pub unsafe extern "C" fn clEndPerfMarkerCLTAP() -> i32 {
    // SAFETY: `end`'s # Safety follows from this fn's.
    guard(CL_INVALID_OPERATION, || unsafe { end() })
}

/// # Safety
/// Called from the C ABI entry only (it reads this thread's marker stack).
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
