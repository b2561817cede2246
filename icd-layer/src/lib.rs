//! `libcltap_layer.so`: the C-ABI shell of cltap. It is loaded either as an
//! OpenCL loader layer (`OPENCL_LAYERS`) or as an ICD (`OCL_ICD_VENDORS`,
//! `OCL_ICD_FILENAMES`) that loads the real drivers behind it, and it is an
//! HSA tool library (`HSA_TOOLS_LIB`: `OnLoad`, `OnUnload`). Everything
//! that is not ABI lives in the `cltap` crate.
//!
//! One folder per API over a shared bottom. Each module imports only those
//! below it (`A → B`: A uses B); any of `opencl/` may use the bottom, and
//! the bottom imports nothing above it:
//!
//! ```text
//! lib.rs (the exported symbols) → opencl::layer, opencl::icd, life, guard
//! opencl::layer   loader-layer mode, its generated wrappers and table
//!                 → front, next, lws, devtime, markers, exts, programs, dumps, api
//! opencl::icd     ICD mode, its generated wrappers and table
//!                 → drivers, handles, trampolines, lws, devtime, markers, exts, programs, dumps, api
//! opencl::lws     → drivers, next, handles, api
//! opencl::drivers → front, api
//! opencl::front   → devtime, exts, api
//! opencl::devtime → handles, api
//! opencl::markers → api
//! opencl::programs → api (program dumps, the build-options override)
//! opencl::controls → api (event checks, execution controls)
//! opencl::dumps   → nothing of opencl (argument dumps, injection, capture)
//! opencl::{exts, next, handles, trampolines, api} → nothing of opencl
//! hsa::onload     OnLoad/OnUnload: saves the runtime's table entries, installs
//!                 the wrappers → wrappers, unload, api
//! hsa::wrappers   the generated wrappers → unload, api
//! hsa::unload     the trace's end at hsa_shut_down → nothing of hsa
//! hsa::api        names, ids, the tables' layout → nothing
//! (any of hsa/ may use the bottom; hsa/ and opencl/ never import each other)
//! ---------------- bottom ----------------
//! life    (configuration read once, start-up, finish) → bracket, config
//! bracket (enter, exit, done, missing, finish_call), config, guard → nothing
//! ```

#![allow(non_snake_case)]

mod bracket;
mod config;
mod fork;
mod guard;
mod hsa;
mod life;
mod opencl;
mod tools;

use guard::guard;
use opencl::{icd, layer};
use std::ffi::{c_char, c_void};

// ---- Loader-layer entry points (cl_loader_layers) ----

/// # Safety
/// `value` is NULL or writable for `size` bytes; `size_ret` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn clGetLayerInfo(param_name: u32, size: usize, value: *mut c_void, size_ret: *mut usize) -> i32 {
    // SAFETY: `get_layer_info`'s # Safety follows from this fn's.
    guard(-30, || unsafe { layer::get_layer_info(param_name, size, value, size_ret) })
}

/// # Safety
/// `target` holds `num_entries` entries of the next layer's table; `num_entries_ret` and
/// `layer_dispatch_ret` are writable.
#[no_mangle]
pub unsafe extern "C" fn clInitLayer(
    num_entries: u32,
    target: *const c_void,
    num_entries_ret: *mut u32,
    layer_dispatch_ret: *mut *const c_void,
) -> i32 {
    // SAFETY: `init_layer`'s # Safety follows from this fn's.
    guard(-30, || unsafe { layer::init_layer(num_entries, target, num_entries_ret, layer_dispatch_ret) })
}

/// # Safety
/// As [`clInitLayer`] (`_properties` is not read).
#[no_mangle]
pub unsafe extern "C" fn clInitLayerWithProperties(
    num_entries: u32,
    target: *const c_void,
    num_entries_ret: *mut u32,
    layer_dispatch_ret: *mut *const c_void,
    _properties: *const c_void,
) -> i32 {
    // SAFETY: `init_layer`'s # Safety follows from this fn's.
    guard(-30, || unsafe { layer::init_layer(num_entries, target, num_entries_ret, layer_dispatch_ret) })
}

// ---- The collection window, from the application (include/cltap.h) ----

/// Closes the collection window until `cltap_resume`: calls are forwarded
/// and nothing is recorded, counted or timed.
#[no_mangle]
pub extern "C" fn cltap_pause() {
    guard((), || life::set_paused(true))
}

/// Opens the collection window again (or, with `CLTAP_START_PAUSED=1`, for
/// the first time).
#[no_mangle]
pub extern "C" fn cltap_resume() {
    guard((), || life::set_paused(false))
}

/// # Safety
/// Called by the loader once, after the application's last OpenCL call.
#[no_mangle]
pub unsafe extern "C" fn clDeinitLayer() -> i32 {
    guard(0, || {
        life::finish();
        0
    })
}

// ---- HSA tool library (ROCr's HSA_TOOLS_LIB) ----

/// ROCr releases after 5.2.3 also take as a tool any library already in the
/// process that exports this symbol (cltap loaded as an OpenCL layer over an
/// OpenCL runtime built on ROCr), after the `HSA_TOOLS_LIB` ones, in
/// increasing order of it. 25 loads cltap before rocprofiler (1025) and
/// roctracer (50, 1050): its wrappers are then the innermost, and it records
/// the calls as the runtime receives them. ROCr 5.2.3 (Debian 12) ignores
/// it. See api/HSA.md.
#[no_mangle]
#[used]
pub static HSA_AMD_TOOL_PRIORITY: u32 = 25;

/// # Safety
/// `table` is ROCr's `HsaApiTable`, writable during the call, called on the loading thread.
#[no_mangle]
pub unsafe extern "C" fn OnLoad(
    table: *mut c_void,
    _runtime_version: u64,
    _failed_tool_count: u64,
    _failed_tool_names: *const *const c_char,
) -> bool {
    // SAFETY: `on_load`'s # Safety follows from this fn's.
    guard(true, || unsafe { hsa::onload::on_load(table as *mut hsa::onload::ApiTableVersion) })
}

/// # Safety
/// Called by ROCr once, at its shutdown, after [`OnLoad`].
#[no_mangle]
pub unsafe extern "C" fn OnUnload() {
    guard((), hsa::onload::on_unload)
}

// ---- ICD entry points (cl_khr_icd) ----

/// # Safety
/// `platforms` is NULL or writable for `num_entries` handles; `num_platforms` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn clIcdGetPlatformIDsKHR(
    num_entries: u32,
    platforms: *mut c_void,
    num_platforms: *mut u32,
) -> i32 {
    // SAFETY: `clIcdGetPlatformIDsKHR`'s # Safety follows from this fn's.
    unsafe { icd::clIcdGetPlatformIDsKHR(num_entries, platforms, num_platforms as *mut c_void) }
}

/// # Safety
/// `name` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn clGetExtensionFunctionAddress(name: *const c_char) -> *mut c_void {
    // SAFETY: `clGetExtensionFunctionAddress`'s # Safety follows from this fn's.
    unsafe { icd::clGetExtensionFunctionAddress(name as *mut c_void) }
}

/// # Safety
/// `value` is NULL or writable for `size` bytes; `size_ret` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn clGetPlatformInfo(
    platform: *mut c_void,
    param_name: u32,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> i32 {
    type F = unsafe extern "C" fn(*mut c_void, u32, usize, *mut c_void, *mut c_void) -> i32;
    // SAFETY: the address is that entry's, and this type its C prototype.
    let f: F = unsafe { std::mem::transmute(icd::ICD_TABLE.slots[opencl::api::slot::clGetPlatformInfo]) };
    // SAFETY: `f` gets arguments its C declaration accepts.
    unsafe { f(platform, param_name, size, value, size_ret as *mut c_void) }
}
