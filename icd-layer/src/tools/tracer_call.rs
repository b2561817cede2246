//! What the generated wrappers' traced path calls after the forwarded call
//! (`tracer_shim` in build.rs; `cltap::tools::tracer::enter` before it).

use std::ffi::c_void;

// Each OpenCL extension type that `include/cltap.h` writes as its
// underlying type is checked here to have that width.
include!(concat!(env!("OUT_DIR"), "/cltap_h_widths.rs"));

/// Runs the epilogues `e` owes, with a pointer to the call's result (NULL
/// for a function returning nothing).
///
/// # Safety
/// As `cltap::tools::tracer::exit`: `e` comes from this call's `enter`.
#[inline(always)]
pub unsafe fn exit<R>(e: cltap::tools::tracer::Entered, slot: usize, params: *mut c_void, r: &R) {
    if e.any() {
        let result = if std::mem::size_of::<R>() == 0 { std::ptr::null() } else { r as *const R as *const c_void };
        // SAFETY: `exit`'s # Safety follows from this fn's: As `cltap::tools::tracer::exit`: `e` comes from this
        // call's `enter` (# Safety).
        unsafe { cltap::tools::tracer::exit(e, slot, params, result) };
    }
}
