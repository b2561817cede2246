//! ICD mode: cltap is the driver the loader sees. The application receives
//! cltap's handles, which lead to the generated wrappers (see build.rs);
//! the functions the ICD answers itself are written here.

use super::api::{id, slot};
use super::drivers::{state, Gefafp};
use super::exts;
use crate::bracket;
use crate::guard::{guard, guard_at};
use cltap::icd::handles::HandleSpace;
use std::ffi::{c_char, c_void, CStr};

#[allow(clippy::all, unused_unsafe, unused_parens)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/icd.rs"));
}
use generated::ENTRIES;
pub use generated::ICD_TABLE;

/// The handle space; its handles lead to [`ICD_TABLE`].
pub fn handles() -> &'static HandleSpace {
    super::handles::space(&ICD_TABLE as *const _ as *const c_void)
}

/// # Safety
/// `platforms` is NULL or writable for `num_entries` handles; `num_platforms` NULL or writable.
pub unsafe extern "C" fn clIcdGetPlatformIDsKHR(
    num_entries: u32,
    platforms: *mut c_void,
    num_platforms: *mut c_void,
) -> i32 {
    let r = guard(-1001, || {
        let st = state();
        if (num_entries == 0 && !platforms.is_null()) || (platforms.is_null() && num_platforms.is_null()) {
            return -30;
        }
        let hs = handles();
        let out = platforms as *mut *mut c_void;
        for (i, p) in st.platforms.iter().take(num_entries as usize).enumerate() {
            // SAFETY: `out.add(i)` is valid for this access (# Safety).
            unsafe { *out.add(i) = hs.wrap(*p) };
        }
        if !num_platforms.is_null() {
            // SAFETY: `(num_platforms as *mut u32)` is valid for this access, as the caller promises (# Safety).
            unsafe { *(num_platforms as *mut u32) = st.platforms.len() as u32 };
        }
        if st.platforms.is_empty() {
            -1001 // CL_PLATFORM_NOT_FOUND_KHR
        } else {
            0
        }
    });
    bracket::done(id::clIcdGetPlatformIDsKHR, r != 0);
    r
}

/// # Safety
/// `platforms` is NULL or writable for `num_entries` handles; `num_platforms` NULL or writable.
pub unsafe extern "C" fn clGetPlatformIDs(num_entries: u32, platforms: *mut c_void, num_platforms: *mut c_void) -> i32 {
    // SAFETY: `clIcdGetPlatformIDsKHR`'s # Safety follows from this fn's.
    unsafe { clIcdGetPlatformIDsKHR(num_entries, platforms, num_platforms) }
}

/// The ICD's answer for a name, given what the driver answered.
///
/// # Safety
/// `name` is a NUL-terminated string; `real` is NULL or the driver's entry of that name.
unsafe fn answer_for(name: *const c_char, real: *mut c_void) -> *mut c_void {
    if let Some(own) = exts::own(&ENTRIES, name) {
        return own;
    }
    if real.is_null() {
        return real;
    }
    match exts::entry(&ENTRIES, name) {
        Some(e) if !e.f.is_null() => e.f as *mut c_void,
        _ => {
            exts::note_unknown_extension(name, false);
            std::ptr::null_mut()
        }
    }
}

/// # Safety
/// `name` is NULL or a NUL-terminated string.
pub unsafe extern "C" fn clGetExtensionFunctionAddress(name: *mut c_void) -> *mut c_void {
    let name = name as *const c_char;
    if name.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: `name` is a NUL-terminated string, live while read (# Safety).
    if unsafe { CStr::from_ptr(name) }.to_bytes() == b"clIcdGetPlatformIDsKHR" {
        return clIcdGetPlatformIDsKHR as *mut c_void;
    }
    guard(std::ptr::null_mut(), || {
        let st = state();
        // SAFETY: `g` gets arguments its C declaration accepts.
        let real = st.gefa.iter().map(|g| unsafe { g(name) }).find(|p| !p.is_null()).unwrap_or(std::ptr::null_mut());
        // SAFETY: `answer_for`'s # Safety follows from this fn's.
        unsafe { answer_for(name, real) }
    })
}

/// # Safety
/// `platform` is one of cltap's platforms; `name` NULL or a NUL-terminated string.
pub unsafe extern "C" fn clGetExtensionFunctionAddressForPlatform(
    platform: *mut c_void,
    name: *mut c_void,
) -> *mut c_void {
    const NAME: &str = "clGetExtensionFunctionAddressForPlatform";
    let real_p = guard_at(NAME, std::ptr::null_mut(), || handles().unwrap(platform));
    if real_p.is_null() || name.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: `object_slot`: the object is a live ICD object, its dispatch table first (# Safety).
    let fp = unsafe { cltap::icd_table::object_slot(real_p, slot::clGetExtensionFunctionAddressForPlatform) };
    let id = id::clGetExtensionFunctionAddressForPlatform;
    let t = crate::guard::part(NAME, || bracket::enter(&cltap::meta::FUNCTIONS[id], &[platform as u64, name as u64]))
        .unwrap_or(bracket::Enter::OFF);
    let real = if fp.is_null() {
        std::ptr::null_mut()
    } else {
        // SAFETY: the entry called here gets arguments its C declaration accepts.
        unsafe { std::mem::transmute::<*const c_void, Gefafp>(fp)(real_p, name as *const c_char) }
    };
    // SAFETY: `answer_for`'s # Safety follows from this fn's.
    let out = guard(std::ptr::null_mut(), || unsafe { answer_for(name as *const c_char, real) });
    crate::guard::part(NAME, || {
        bracket::finish_call(id, t, out as u64, &[platform as u64, name as u64], out.is_null())
    });
    out
}

/// # Safety
/// None beyond the C ABI.
pub unsafe extern "C" fn clUnloadCompiler() -> i32 {
    for p in &state().platforms {
        // SAFETY: `object_slot`: the object is a live ICD object, its dispatch table first (# Safety).
        let f = unsafe { cltap::icd_table::object_slot(*p, slot::clUnloadPlatformCompiler) };
        if !f.is_null() {
            // SAFETY: the entry called here gets arguments its C declaration accepts.
            unsafe { std::mem::transmute::<*const c_void, unsafe extern "C" fn(*mut c_void) -> i32>(f)(*p) };
        }
    }
    bracket::done(id::clUnloadCompiler, false);
    0
}
