//! Kernel names for the device records: asked of the driver, and kept in
//! `cltap::devtime::kernels` for the kernel's life (made, last reference
//! released).

use super::super::api::slot;
use super::{fork_handlers, info_fn, read};
use cltap::devtime::{enqueue, kernels, on};
use std::ffi::c_void;

const CL_KERNEL_REFERENCE_COUNT: u32 = 0x1192;

/// # Safety
/// `kernel` is NULL or a kernel of the driver's that is alive.
pub(super) unsafe fn kernel_name(kernel: *mut c_void) -> Option<std::sync::Arc<str>> {
    // SAFETY: as this function's # Safety.
    unsafe { kernel_id(kernel) }.and_then(kernels::name_of)
}

/// The index of the kernel's interned name (see `cltap::devtime::kernels`).
///
/// # Safety
/// `kernel` is NULL or a kernel of the driver's that is alive.
#[inline]
pub(super) unsafe fn kernel_id(kernel: *mut c_void) -> Option<u32> {
    if kernel.is_null() {
        return None;
    }
    kernels::id(kernel as usize, || {
        // SAFETY: a non-NULL `kernel` is the driver's (# Safety).
        let f = unsafe { info_fn(kernel, slot::clGetKernelInfo) }?;
        let mut buf = [0u8; 256];
        let mut n = 0usize;
        // SAFETY: `f` gets arguments its C declaration accepts.
        if unsafe { f(kernel, 0x1190, buf.len(), buf.as_mut_ptr() as *mut c_void, &mut n) } != 0 {
            return None;
        }
        Some(enqueue::info_string(&buf, n))
    })
}

/// Kernels were made (the driver's handles `ks`): a name kept for a
/// released kernel at one of their addresses is not theirs.
///
/// # Safety
/// `ks` is NULL or holds `n` kernels the driver just made.
pub unsafe fn kernels_made(ks: *const *mut c_void, n: usize) {
    if !on() || ks.is_null() {
        return;
    }
    fork_handlers();
    // SAFETY: `ks as *const usize` holds that many initialised elements while the slice is used (# Safety).
    let ks = unsafe { std::slice::from_raw_parts(ks as *const usize, n) };
    kernels::made(ks);
}

/// Before the application's `clReleaseKernel` (the driver's handle): the
/// kernel's reference count, where a name is kept for it. Asked of the
/// driver, which the application's count is: nothing changes it.
///
/// # Safety
/// `kernel` is a live kernel of the driver.
pub unsafe fn kernel_refs(kernel: *mut c_void) -> Option<Option<u32>> {
    if !on() || kernel.is_null() || !kernels::known(kernel as usize) {
        return None;
    }
    // SAFETY: `info_fn`'s conditions follow from this fn's; `read`: `f` is the info query of the handle's kind, its
    // answer exactly a `T` (# Safety).
    Some(
        unsafe { info_fn(kernel, slot::clGetKernelInfo) }
            .and_then(|f| unsafe { read::<u32>(f, kernel, CL_KERNEL_REFERENCE_COUNT) }),
    )
}

/// After it: the name is forgotten with the kernel's last reference.
pub fn kernel_released(kernel: *mut c_void, before: Option<Option<u32>>, status: i32) {
    if let Some(before) = before {
        kernels::released(kernel as usize, before, status);
    }
}
