//! Loader-layer mode: the loader hands cltap the next table in the chain
//! and takes cltap's table in return. Handles are the driver's own; nothing
//! is translated. The wrappers and the table are generated (see build.rs);
//! the two name look-ups are written here.

use super::api::{id, slot, WINDOWS_SLOTS};
use super::exts;
use super::next::{ext_record, NEXT};
use crate::bracket;
use crate::guard::guard;
use cltap::exts::key_of;
use std::ffi::{c_char, c_void};

#[allow(clippy::all, unused_unsafe, unused_parens)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/layer.rs"));
}
use generated::{ENTRIES, LAYER_TABLE};

const CL_LAYER_API_VERSION: u32 = 0x4240;
const CL_LAYER_NAME: u32 = 0x4241;
const CL_LAYER_API_VERSION_100: u32 = 100;
const LAYER_NAME: &[u8] = b"cltap\0";

/// # Safety
/// `value` is NULL or writable for `size` bytes; `size_ret` NULL or writable.
pub unsafe fn get_layer_info(param_name: u32, size: usize, value: *mut c_void, size_ret: *mut usize) -> i32 {
    let bytes: &[u8] = match param_name {
        CL_LAYER_API_VERSION => &CL_LAYER_API_VERSION_100.to_ne_bytes(),
        CL_LAYER_NAME => LAYER_NAME,
        _ => return -30, // CL_INVALID_VALUE
    };
    if !value.is_null() {
        if size < bytes.len() {
            return -30;
        }
        // SAFETY: the copy's source is readable and its destination writable for the count (# Safety).
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), value as *mut u8, bytes.len()) };
    }
    if !size_ret.is_null() {
        // SAFETY: `size_ret` is valid for this access, as the caller promises (# Safety).
        unsafe { *size_ret = bytes.len() };
    }
    0
}

/// # Safety
/// Arguments as `clInitLayer` declares them: `target_dispatch` holds `num_entries` entries,
/// `num_entries_ret` and `layer_dispatch_ret` are writable.
pub unsafe fn init_layer(
    num_entries: u32,
    target: *const c_void,
    num_entries_ret: *mut u32,
    layer_dispatch_ret: *mut *const c_void,
) -> i32 {
    if target.is_null() || num_entries_ret.is_null() || layer_dispatch_ret.is_null() {
        return -30;
    }
    super::front::config();
    let n = (num_entries as usize).min(cltap::icd_table::SLOTS);
    // SAFETY: `fill`'s # Safety follows from this fn's.
    unsafe { NEXT.fill(target as *const *const c_void, n) };
    // SAFETY: `num_entries_ret`, `layer_dispatch_ret` are valid for this access, as the caller promises (# Safety).
    unsafe {
        *num_entries_ret = n as u32;
        *layer_dispatch_ret = table(n);
    }
    0
}

/// cltap's table; Windows-only slots are passed through as the target has them.
fn table(n: usize) -> *const c_void {
    static TABLE: std::sync::OnceLock<Box<cltap::icd_table::Table>> = std::sync::OnceLock::new();
    let t = TABLE.get_or_init(|| {
        let mut t = Box::new(cltap::icd_table::Table { slots: LAYER_TABLE.slots });
        for &s in WINDOWS_SLOTS {
            t.slots[s] = if s < n { NEXT.get(s) } else { std::ptr::null() };
        }
        t
    });
    &**t as *const cltap::icd_table::Table as *const c_void
}

/// Swaps the driver's pointer for cltap's wrapper of the same function.
///
/// # Safety
/// `name` is a NUL-terminated string; `real` is NULL or the driver's entry of that name.
unsafe fn substitute(name: *const c_char, real: *mut c_void, key: *const c_void) -> *mut c_void {
    if let Some(own) = exts::own(&ENTRIES, name) {
        return own;
    }
    if real.is_null() {
        return real;
    }
    match exts::entry(&ENTRIES, name) {
        Some(e) if !e.f.is_null() => {
            if let Some(x) = e.ext {
                ext_record(key, x, real);
            }
            // ocl-icd 2.3.1 hands a layer 149 slots; a later core function is found by name only,
            // and without cltap the application would get (and call) the driver's own pointer.
            if let Some(slot) = e.slot {
                NEXT.adopt(slot, real);
            }
            e.f as *mut c_void
        }
        _ => {
            exts::note_unknown_extension(name, true);
            real
        }
    }
}

/// # Safety
/// `name` is NULL or a NUL-terminated string.
pub unsafe extern "C" fn clGetExtensionFunctionAddress(name: *mut c_void) -> *mut c_void {
    const SLOT: usize = slot::clGetExtensionFunctionAddress;
    let f = NEXT.get(SLOT);
    if f.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: the address is that entry's, and this type its C prototype.
    let f: unsafe extern "C" fn(*mut c_void) -> *mut c_void = unsafe { std::mem::transmute(f) };
    let id = id::clGetExtensionFunctionAddress;
    let t = bracket::enter(&cltap::meta::FUNCTIONS[id], &[name as u64]);
    // SAFETY: `f` gets arguments its C declaration accepts.
    let real = unsafe { f(name) };
    // SAFETY: `substitute`'s # Safety follows from this fn's.
    let out = guard(real, || unsafe { substitute(name as *const c_char, real, std::ptr::null()) });
    bracket::finish_call(id, t, out as u64, &[name as u64], out.is_null());
    out
}

/// # Safety
/// `platform` is a platform of the next layer's; `name` NULL or a NUL-terminated string.
pub unsafe extern "C" fn clGetExtensionFunctionAddressForPlatform(
    platform: *mut c_void,
    name: *mut c_void,
) -> *mut c_void {
    const SLOT: usize = slot::clGetExtensionFunctionAddressForPlatform;
    let f = NEXT.get(SLOT);
    if f.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: the address is that entry's, and this type its C prototype.
    let f: unsafe extern "C" fn(*mut c_void, *mut c_void) -> *mut c_void = unsafe { std::mem::transmute(f) };
    let id = id::clGetExtensionFunctionAddressForPlatform;
    let t = bracket::enter(&cltap::meta::FUNCTIONS[id], &[platform as u64, name as u64]);
    // SAFETY: `f` gets arguments its C declaration accepts.
    let real = unsafe { f(platform, name) };
    // SAFETY: `substitute`'s # Safety follows from this fn's.
    let out = guard(real, || unsafe { substitute(name as *const c_char, real, key_of(platform)) });
    bracket::finish_call(id, t, out as u64, &[platform as u64, name as u64], out.is_null());
    out
}
