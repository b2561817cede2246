//! Kernel names for the device records: asked of the driver, and kept in
//! `cltap::devtime::kernels` for the kernel's life (made, last reference
//! released).

use super::super::api::slot;
use super::{fork_handlers, info_fn, read};
use cltap::devtime::{enqueue, kernels, on};
use std::ffi::c_void;

const CL_KERNEL_REFERENCE_COUNT: u32 = 0x1192;

/// # Safety
/// Each pointer argument must be valid for the reads and writes this
/// function makes through it (or NULL where it checks for NULL), and each
/// handle or function pointer must be of the kind its type names.
pub(super) unsafe fn kernel_name(kernel: *mut c_void) -> Option<std::sync::Arc<str>> {
    kernel_id(kernel).and_then(kernels::name_of)
}

/// The index of the kernel's interned name (see `cltap::devtime::kernels`).
///
/// # Safety
/// Each pointer argument must be valid for the reads and writes this
/// function makes through it (or NULL where it checks for NULL), and each
/// handle or function pointer must be of the kind its type names.
#[inline]
pub(super) unsafe fn kernel_id(kernel: *mut c_void) -> Option<u32> {
    if kernel.is_null() {
        return None;
    }
    kernels::id(kernel as usize, || {
        let f = info_fn(kernel, slot::clGetKernelInfo)?;
        let mut buf = [0u8; 256];
        let mut n = 0usize;
        if f(kernel, 0x1190, buf.len(), buf.as_mut_ptr() as *mut c_void, &mut n) != 0 {
            return None;
        }
        Some(enqueue::info_string(&buf, n))
    })
}

/// Kernels were made (the driver's handles `ks`): a name kept for a
/// released kernel at one of their addresses is not theirs.
///
/// # Safety
/// Each pointer argument must be valid for the reads and writes this
/// function makes through it (or NULL where it checks for NULL), and each
/// handle or function pointer must be of the kind its type names.
pub unsafe fn kernels_made(ks: *const *mut c_void, n: usize) {
    if !on() || ks.is_null() {
        return;
    }
    fork_handlers();
    let ks = std::slice::from_raw_parts(ks as *const usize, n);
    kernels::made(ks);
}

/// Before the application's `clReleaseKernel` (the driver's handle): the
/// kernel's reference count, where a name is kept for it. Asked of the
/// driver, which the application's count is: nothing changes it.
///
/// # Safety
/// Each pointer argument must be valid for the reads and writes this
/// function makes through it (or NULL where it checks for NULL), and each
/// handle or function pointer must be of the kind its type names.
pub unsafe fn kernel_refs(kernel: *mut c_void) -> Option<Option<u32>> {
    if !on() || kernel.is_null() || !kernels::known(kernel as usize) {
        return None;
    }
    Some(info_fn(kernel, slot::clGetKernelInfo).and_then(|f| read::<u32>(f, kernel, CL_KERNEL_REFERENCE_COUNT)))
}

/// After it: the name is forgotten with the kernel's last reference.
pub fn kernel_released(kernel: *mut c_void, before: Option<Option<u32>>, status: i32) {
    if let Some(before) = before {
        kernels::released(kernel as usize, before, status);
    }
}
