//! `libcltap_layer.so`: the C-ABI shell of cltap. It is loaded either as an
//! OpenCL loader layer (`OPENCL_LAYERS`) or as an ICD (`OCL_ICD_VENDORS`,
//! `OCL_ICD_FILENAMES`) that loads the real drivers behind it. Everything
//! that is not ABI lives in the `cltap` crate.

#![allow(clippy::missing_safety_doc, non_snake_case)]

mod gen {
    #![allow(clippy::all, unused_unsafe, unused_parens)]
    include!(concat!(env!("OUT_DIR"), "/generated.rs"));
}
mod devtime;
mod icd_mode;
mod layer_mode;
mod lws;
mod markers;
mod rt;
mod trampolines;

use std::ffi::{c_char, c_void, CStr};

/// The described function with this C name.
pub(crate) fn entry(name: *const c_char) -> Option<&'static gen::Entry> {
    if name.is_null() {
        return None;
    }
    let n = unsafe { CStr::from_ptr(name) }.to_bytes();
    gen::ENTRIES.iter().find(|e| e.name.as_bytes() == n)
}

// ---- Loader-layer entry points (cl_loader_layers) ----

#[no_mangle]
pub unsafe extern "C" fn clGetLayerInfo(param_name: u32, size: usize, value: *mut c_void, size_ret: *mut usize) -> i32 {
    rt::guard(-30, || layer_mode::get_layer_info(param_name, size, value, size_ret))
}

#[no_mangle]
pub unsafe extern "C" fn clInitLayer(
    num_entries: u32,
    target: *const c_void,
    num_entries_ret: *mut u32,
    layer_dispatch_ret: *mut *const c_void,
) -> i32 {
    rt::guard(-30, || layer_mode::init_layer(num_entries, target, num_entries_ret, layer_dispatch_ret))
}

#[no_mangle]
pub unsafe extern "C" fn clInitLayerWithProperties(
    num_entries: u32,
    target: *const c_void,
    num_entries_ret: *mut u32,
    layer_dispatch_ret: *mut *const c_void,
    _properties: *const c_void,
) -> i32 {
    rt::guard(-30, || layer_mode::init_layer(num_entries, target, num_entries_ret, layer_dispatch_ret))
}

#[no_mangle]
pub unsafe extern "C" fn clDeinitLayer() -> i32 {
    rt::guard(0, || {
        rt::finish();
        0
    })
}

// ---- ICD entry points (cl_khr_icd) ----

#[no_mangle]
pub unsafe extern "C" fn clIcdGetPlatformIDsKHR(num_entries: u32, platforms: *mut c_void, num_platforms: *mut u32) -> i32 {
    icd_mode::clIcdGetPlatformIDsKHR(num_entries, platforms, num_platforms as *mut c_void)
}

#[no_mangle]
pub unsafe extern "C" fn clGetExtensionFunctionAddress(name: *const c_char) -> *mut c_void {
    icd_mode::clGetExtensionFunctionAddress(name as *mut c_void)
}

#[no_mangle]
pub unsafe extern "C" fn clGetPlatformInfo(
    platform: *mut c_void,
    param_name: u32,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> i32 {
    type F = unsafe extern "C" fn(*mut c_void, u32, usize, *mut c_void, *mut c_void) -> i32;
    let f: F = std::mem::transmute(gen::ICD_TABLE.slots[gen::slot::clGetPlatformInfo]);
    f(platform, param_name, size, value, size_ret as *mut c_void)
}
