//! The HSA entries behind rocprofiler v1's `allocate`, `device`, `memcopy`,
//! `ksymbol` and `codeobj` callbacks, as 5.2.3's `HsaInterceptor` has them
//! (`src/core/hsa_interceptor.h`). Put in front of cltap's own entries
//! (`hsa::in_front::put_in_front`) when a tool sets such a callback, which it
//! does while it loads, before `OnLoad` installs the tables; each calls
//! cltap's entry (so the call is recorded as ever), then the callback. The
//! callbacks are called only while a tool's settings left
//! `hsa_intercepting` on, as in 5.2.3.
//!
//! Where 5.2.3 aborts the process when the runtime's call fails, these
//! return its status and call nothing back.

use super::hsa_callbacks::{issue, wanted};
use crate::hsa::api::id;
use crate::hsa::in_front::{next, put_in_front as install};
use crate::hsa::wrappers::orig;
use cltap::tools::rocprofiler::abi_ext::{
    cb_id, AllocateData, CodeobjData, DeviceData, HsaCallbackData, KsymbolData, MemcopyData,
};
use std::ffi::{c_char, c_void};

const OK: u32 = 0;
const HSA_EXTENSION_AMD_LOADER: u16 = 0x201;
const REGION_INFO_SEGMENT: u32 = 0;
const REGION_INFO_GLOBAL_FLAGS: u32 = 1;
const POOL_INFO_SEGMENT: u32 = 0;
const POOL_INFO_GLOBAL_FLAGS: u32 = 1;
const AGENT_INFO_DEVICE: u32 = 17;
const SEGMENT_GLOBAL: u32 = 0;
const GLOBAL_FLAG_COARSE_GRAINED: u32 = 4;
const SYMBOL_INFO_TYPE: u32 = 0;
const SYMBOL_INFO_NAME_LENGTH: u32 = 1;
const SYMBOL_INFO_NAME: u32 = 2;
const SYMBOL_INFO_KERNEL_OBJECT: u32 = 22;
const SYMBOL_KIND_KERNEL: u32 = 1;

/// Puts every entry in front of cltap's (once a tool set a callback).
pub fn put_in_front() {
    install(id::hsa_memory_allocate, memory_allocate as *const () as usize);
    install(id::hsa_memory_assign_agent, memory_assign_agent as *const () as usize);
    install(id::hsa_amd_agents_allow_access, agents_allow_access as *const () as usize);
    install(id::hsa_amd_memory_pool_allocate, pool_allocate as *const () as usize);
    install(id::hsa_amd_memory_pool_free, pool_free as *const () as usize);
    install(id::hsa_memory_copy, memory_copy as *const () as usize);
    install(id::hsa_amd_memory_async_copy, async_copy as *const () as usize);
    install(id::hsa_executable_freeze, executable_freeze as *const () as usize);
    install(id::hsa_executable_destroy, executable_destroy as *const () as usize);
}

fn on(id: u32) -> bool {
    cltap::tools::toollib::hsa_intercepting() && wanted(id)
}

/// cltap's own entry of function `f`, as the type `T`.
///
/// # Safety
/// `T` is that function's pointer type.
unsafe fn cltaps<T: Copy>(f: usize) -> Option<T> {
    let p = next(f);
    // SAFETY: `transmute_copy`'s # Safety follows from this fn's: `T` is that function's pointer type (# Safety).
    (p != 0).then(|| unsafe { std::mem::transmute_copy::<usize, T>(&p) })
}

/// A runtime info query `(handle, attribute, *value)` answering a u32.
fn info_u32(f: usize, handle: u64, attribute: u32) -> u32 {
    let g = orig(f);
    let mut v = 0u32;
    if g != 0 {
        // SAFETY: the runtime's `*_get_info` entry; the attributes asked answer 4 bytes.
        unsafe {
            let g: unsafe extern "C" fn(u64, u32, *mut c_void) -> u32 = std::mem::transmute(g);
            g(handle, attribute, &mut v as *mut u32 as *mut c_void);
        }
    }
    v
}

fn allocate(ptr: *const c_void, size: usize, segment: u32, global_flag: u32, is_code: bool) {
    let data = HsaCallbackData { allocate: AllocateData { ptr, size, segment, global_flag, is_code: is_code as i32 } };
    issue(cb_id::ALLOCATE, &data);
}

fn device(agent: u64, id: u32, ptr: *const c_void) {
    let device_type = info_u32(id::hsa_agent_get_info, agent, AGENT_INFO_DEVICE);
    issue(cb_id::DEVICE, &HsaCallbackData { device: DeviceData { device_type, id, agent, ptr } });
}

/// # Safety
/// `ptr` is writable.
unsafe extern "C" fn memory_allocate(region: u64, size: usize, ptr: *mut *mut c_void) -> u32 {
    type F = unsafe extern "C" fn(u64, usize, *mut *mut c_void) -> u32;
    // SAFETY: `cltaps`: `T` is the named function's pointer type (# Safety).
    let Some(f) = (unsafe { cltaps::<F>(id::hsa_memory_allocate) }) else { return 0x1000 };
    // SAFETY: `f` gets arguments its C declaration accepts.
    let r = unsafe { f(region, size, ptr) };
    if r == OK && !ptr.is_null() && on(cb_id::ALLOCATE) {
        crate::guard::guard((), || {
            let seg = info_u32(id::hsa_region_get_info, region, REGION_INFO_SEGMENT);
            let flags = info_u32(id::hsa_region_get_info, region, REGION_INFO_GLOBAL_FLAGS);
            // SAFETY: `ptr` is valid for this access, as the caller promises (# Safety).
            unsafe { allocate(*ptr, size, seg, flags, false) };
        });
    }
    r
}

/// # Safety
/// `ptr` is memory the runtime allocated.
unsafe extern "C" fn memory_assign_agent(ptr: *mut c_void, agent: u64, access: u32) -> u32 {
    type F = unsafe extern "C" fn(*mut c_void, u64, u32) -> u32;
    // SAFETY: `cltaps`: `T` is the named function's pointer type (# Safety).
    let Some(f) = (unsafe { cltaps::<F>(id::hsa_memory_assign_agent) }) else { return 0x1000 };
    // SAFETY: `f` gets arguments its C declaration accepts.
    let r = unsafe { f(ptr, agent, access) };
    if r == OK && on(cb_id::DEVICE) {
        // 5.2.3 gives the device's type and the pointer here, no id or agent.
        crate::guard::guard((), || {
            let device_type = info_u32(id::hsa_agent_get_info, agent, AGENT_INFO_DEVICE);
            issue(cb_id::DEVICE, &HsaCallbackData { device: DeviceData { device_type, id: 0, agent: 0, ptr } });
        });
    }
    r
}

/// # Safety
/// `agents` holds `n` agent handles; `flags` is NULL; `ptr` is memory the runtime allocated.
unsafe extern "C" fn agents_allow_access(n: u32, agents: *const u64, flags: *const u32, ptr: *const c_void) -> u32 {
    type F = unsafe extern "C" fn(u32, *const u64, *const u32, *const c_void) -> u32;
    // SAFETY: `cltaps`: `T` is the named function's pointer type (# Safety).
    let Some(f) = (unsafe { cltaps::<F>(id::hsa_amd_agents_allow_access) }) else { return 0x1000 };
    // SAFETY: `f` gets arguments its C declaration accepts.
    let r = unsafe { f(n, agents, flags, ptr) };
    if r == OK && !agents.is_null() && on(cb_id::DEVICE) {
        crate::guard::guard((), || {
            // SAFETY: `agents` holds that many initialised elements while the slice is used, as the caller promises
            // (# Safety).
            for a in unsafe { std::slice::from_raw_parts(agents, n as usize) } {
                device(*a, super::agent::index_of(*a), ptr);
            }
        });
    }
    r
}

/// # Safety
/// `ptr` is writable.
unsafe extern "C" fn pool_allocate(pool: u64, size: usize, flags: u32, ptr: *mut *mut c_void) -> u32 {
    type F = unsafe extern "C" fn(u64, usize, u32, *mut *mut c_void) -> u32;
    // SAFETY: `cltaps`: `T` is the named function's pointer type (# Safety).
    let Some(f) = (unsafe { cltaps::<F>(id::hsa_amd_memory_pool_allocate) }) else { return 0x1000 };
    // SAFETY: `f` gets arguments its C declaration accepts.
    let r = unsafe { f(pool, size, flags, ptr) };
    if r == OK && size != 0 && !ptr.is_null() && on(cb_id::ALLOCATE) {
        crate::guard::guard((), || {
            let seg = info_u32(id::hsa_amd_memory_pool_get_info, pool, POOL_INFO_SEGMENT);
            let gf = info_u32(id::hsa_amd_memory_pool_get_info, pool, POOL_INFO_GLOBAL_FLAGS);
            // SAFETY: `ptr` is valid for this access, as the caller promises (# Safety).
            unsafe { allocate(*ptr, size, seg, gf, false) };
        });
    }
    r
}

/// # Safety
/// `ptr` is memory the runtime allocated, not yet freed.
unsafe extern "C" fn pool_free(ptr: *mut c_void) -> u32 {
    type F = unsafe extern "C" fn(*mut c_void) -> u32;
    // SAFETY: `cltaps`: `T` is the named function's pointer type (# Safety).
    let Some(f) = (unsafe { cltaps::<F>(id::hsa_amd_memory_pool_free) }) else { return 0x1000 };
    // Before the free, as 5.2.3: the area is still the application's.
    if on(cb_id::ALLOCATE) {
        crate::guard::guard((), || allocate(ptr, 0, 0, 0, false));
    }
    // SAFETY: `f` gets arguments its C declaration accepts.
    unsafe { f(ptr) }
}

fn memcopy(dst: *const c_void, src: *const c_void, size: usize) {
    issue(cb_id::MEMCOPY, &HsaCallbackData { memcopy: MemcopyData { dst, src, size } });
}

/// # Safety
/// `src` readable and `dst` writable for `size` bytes.
unsafe extern "C" fn memory_copy(dst: *mut c_void, src: *const c_void, size: usize) -> u32 {
    type F = unsafe extern "C" fn(*mut c_void, *const c_void, usize) -> u32;
    // SAFETY: `cltaps`: `T` is the named function's pointer type (# Safety).
    let Some(f) = (unsafe { cltaps::<F>(id::hsa_memory_copy) }) else { return 0x1000 };
    // SAFETY: `f` gets arguments its C declaration accepts.
    let r = unsafe { f(dst, src, size) };
    if r == OK && on(cb_id::MEMCOPY) {
        crate::guard::guard((), || memcopy(dst, src, size));
    }
    r
}

/// # Safety
/// As `hsa_amd_memory_async_copy`: `src` readable and `dst` writable for `size` bytes,
/// `dep_signals` holding `deps` signals.
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn async_copy(
    dst: *mut c_void,
    dst_agent: u64,
    src: *const c_void,
    src_agent: u64,
    size: usize,
    deps: u32,
    dep_signals: *const u64,
    signal: u64,
) -> u32 {
    type F = unsafe extern "C" fn(*mut c_void, u64, *const c_void, u64, usize, u32, *const u64, u64) -> u32;
    // SAFETY: `cltaps`: `T` is the named function's pointer type (# Safety).
    let Some(f) = (unsafe { cltaps::<F>(id::hsa_amd_memory_async_copy) }) else { return 0x1000 };
    // SAFETY: `f` gets arguments its C declaration accepts.
    let r = unsafe { f(dst, dst_agent, src, src_agent, size, deps, dep_signals, signal) };
    if r == OK && on(cb_id::MEMCOPY) {
        crate::guard::guard((), || memcopy(dst, src, size));
    }
    r
}

/// `hsa_ven_amd_loader_1_01_pfn_t`, to its loaded-code-object entries.
#[repr(C)]
#[derive(Clone, Copy)]
struct Loader {
    _query_host_address: usize,
    _query_segment_descriptors: usize,
    _query_executable: usize,
    iterate_loaded_code_objects:
        Option<unsafe extern "C" fn(u64, unsafe extern "C" fn(u64, u64, *mut c_void) -> u32, *mut c_void) -> u32>,
    loaded_code_object_get_info: Option<unsafe extern "C" fn(u64, u32, *mut c_void) -> u32>,
}

fn loader() -> Option<Loader> {
    static L: std::sync::OnceLock<Option<Loader>> = std::sync::OnceLock::new();
    *L.get_or_init(|| {
        let get = orig(id::hsa_system_get_major_extension_table);
        if get == 0 {
            return None;
        }
        let mut t = Loader {
            _query_host_address: 0,
            _query_segment_descriptors: 0,
            _query_executable: 0,
            iterate_loaded_code_objects: None,
            loaded_code_object_get_info: None,
        };
        // SAFETY: the runtime's entry; it fills at most `size` bytes of `t`.
        let r = unsafe {
            let get: unsafe extern "C" fn(u16, u16, usize, *mut c_void) -> u32 = std::mem::transmute(get);
            get(HSA_EXTENSION_AMD_LOADER, 1, std::mem::size_of::<Loader>(), &mut t as *mut Loader as *mut c_void)
        };
        (r == OK).then_some(t)
    })
}

/// One loaded code object: `codeobj`, then `allocate` of its code (5.2.3's
/// `CodeObjectCallback`; `arg` is the unload flag).
///
/// # Safety
/// Called by the loader's iteration with the `arg` [`each_code_object`]'s caller gave it.
unsafe extern "C" fn each_code_object(_exe: u64, lco: u64, arg: *mut c_void) -> u32 {
    let unload = !arg.is_null();
    crate::guard::guard((), || {
        let Some(get) = loader().and_then(|l| l.loaded_code_object_get_info) else { return };
        let u64_of = |attr: u32| {
            let mut v = 0u64;
            // SAFETY: `get` gets arguments its C declaration accepts.
            unsafe { get(lco, attr, &mut v as *mut u64 as *mut c_void) };
            v
        };
        let mut storage_type = 0u32;
        // SAFETY: `get` gets arguments its C declaration accepts.
        unsafe { get(lco, 4, &mut storage_type as *mut u32 as *mut c_void) };
        let mut storage_file: i32 = -1;
        let (mut memory_base, mut memory_size) = (0, 0);
        match storage_type {
            1 => {
                // SAFETY: `get` gets arguments its C declaration accepts.
                unsafe { get(lco, 7, &mut storage_file as *mut i32 as *mut c_void) };
            }
            2 => {
                memory_base = u64_of(5);
                memory_size = u64_of(6);
            }
            _ => {}
        }
        let (load_base, load_size, load_delta) = (u64_of(9), u64_of(10), u64_of(8));
        let mut uri_length = 0u32;
        // SAFETY: `get` gets arguments its C declaration accepts.
        unsafe { get(lco, 11, &mut uri_length as *mut u32 as *mut c_void) };
        // The URI is the tool's, malloc'ed, as 5.2.3 hands it over.
        // SAFETY: `calloc`'s # Safety follows from this fn's.
        let uri = unsafe { libc::calloc(uri_length as usize + 1, 1) } as *mut c_char;
        if !uri.is_null() {
            // SAFETY: `get` gets arguments its C declaration accepts.
            unsafe { get(lco, 12, uri as *mut c_void) };
        }
        if storage_type != 0 && wanted(cb_id::CODEOBJ) {
            let data = HsaCallbackData {
                codeobj: CodeobjData {
                    storage_type,
                    storage_file,
                    memory_base,
                    memory_size,
                    load_base,
                    load_size,
                    load_delta,
                    uri_length,
                    uri,
                    unload: unload as i32,
                },
            };
            issue(cb_id::CODEOBJ, &data);
        }
        if wanted(cb_id::ALLOCATE) {
            let size = if unload { 0 } else { load_size as usize };
            allocate(load_base as *const c_void, size, SEGMENT_GLOBAL, GLOBAL_FLAG_COARSE_GRAINED, true);
        }
    });
    OK
}

fn code_objects(exe: u64, unload: bool) {
    if let Some(it) = loader().and_then(|l| l.iterate_loaded_code_objects) {
        // SAFETY: the loader's entry; the flag travels as the argument.
        unsafe { it(exe, each_code_object, unload as usize as *mut c_void) };
    }
}

/// One kernel symbol: `ksymbol` (5.2.3's `KernelSymbolCallback`; `arg` is
/// the unload flag: then no name, as in 5.2.3).
///
/// # Safety
/// Called by the runtime's symbol iteration with the `arg` its caller gave it.
unsafe extern "C" fn each_symbol(_exe: u64, symbol: u64, arg: *mut c_void) -> u32 {
    let unload = !arg.is_null();
    crate::guard::guard((), || {
        let info = orig(id::hsa_executable_symbol_get_info);
        if info == 0 {
            return;
        }
        // SAFETY: the address is that entry's, and this type its C prototype.
        let info: unsafe extern "C" fn(u64, u32, *mut c_void) -> u32 = unsafe { std::mem::transmute(info) };
        let mut kind = u32::MAX;
        // SAFETY: `info` gets arguments its C declaration accepts.
        unsafe { info(symbol, SYMBOL_INFO_TYPE, &mut kind as *mut u32 as *mut c_void) };
        if kind != SYMBOL_KIND_KERNEL {
            return;
        }
        let mut object = 0u64;
        // SAFETY: `info` gets arguments its C declaration accepts.
        unsafe { info(symbol, SYMBOL_INFO_KERNEL_OBJECT, &mut object as *mut u64 as *mut c_void) };
        let name = if unload {
            None
        } else {
            let mut len = 0u32;
            // SAFETY: `info` gets arguments its C declaration accepts.
            unsafe { info(symbol, SYMBOL_INFO_NAME_LENGTH, &mut len as *mut u32 as *mut c_void) };
            let mut buf = vec![0u8; len as usize + 1];
            // SAFETY: `info` gets arguments its C declaration accepts.
            unsafe { info(symbol, SYMBOL_INFO_NAME, buf.as_mut_ptr() as *mut c_void) };
            buf.truncate(buf.iter().position(|b| *b == 0).unwrap_or(len as usize));
            Some((crate::hsa::names::demangle(&String::from_utf8_lossy(&buf)), len))
        };
        // The name is the tool's, malloc'ed, as 5.2.3 hands it over
        // (rocprofiler's own tool keeps it and deletes it at unload).
        // SAFETY: `strdup`'s # Safety follows from this fn's.
        let owned = name.as_ref().map_or(std::ptr::null_mut(), |(n, _)| unsafe { libc::strdup(n.as_ptr()) });
        let data = HsaCallbackData {
            ksymbol: KsymbolData {
                object,
                name: owned,
                // 5.2.3 gives the symbol's own length (not the demangled name's).
                name_length: name.as_ref().map_or(0, |(_, l)| *l),
                unload: unload as i32,
            },
        };
        issue(cb_id::KSYMBOL, &data);
    });
    OK
}

fn symbols(exe: u64, unload: bool) {
    let it = orig(id::hsa_executable_iterate_symbols);
    if it != 0 {
        // SAFETY: the runtime's entry; the flag travels as the argument.
        unsafe {
            let it: unsafe extern "C" fn(u64, unsafe extern "C" fn(u64, u64, *mut c_void) -> u32, *mut c_void) -> u32 =
                std::mem::transmute(it);
            it(exe, each_symbol, unload as usize as *mut c_void);
        }
    }
}

/// # Safety
/// `exe` is a live executable; `options` is NULL or a NUL-terminated string.
unsafe extern "C" fn executable_freeze(exe: u64, options: *const c_char) -> u32 {
    type F = unsafe extern "C" fn(u64, *const c_char) -> u32;
    // SAFETY: `cltaps`: `T` is the named function's pointer type (# Safety).
    let Some(f) = (unsafe { cltaps::<F>(id::hsa_executable_freeze) }) else { return 0x1000 };
    // SAFETY: `f` gets arguments its C declaration accepts.
    let r = unsafe { f(exe, options) };
    if r == OK && cltap::tools::toollib::hsa_intercepting() {
        if wanted(cb_id::CODEOBJ) || wanted(cb_id::ALLOCATE) {
            code_objects(exe, false);
        }
        if wanted(cb_id::KSYMBOL) {
            symbols(exe, false);
        }
    }
    r
}

/// # Safety
/// `exe` is a live executable, destroyed here once.
unsafe extern "C" fn executable_destroy(exe: u64) -> u32 {
    type F = unsafe extern "C" fn(u64) -> u32;
    // SAFETY: `cltaps`: `T` is the named function's pointer type (# Safety).
    let Some(f) = (unsafe { cltaps::<F>(id::hsa_executable_destroy) }) else { return 0x1000 };
    // Before the executable is gone, as 5.2.3.
    if cltap::tools::toollib::hsa_intercepting() {
        if wanted(cb_id::ALLOCATE) {
            code_objects(exe, true);
        }
        if wanted(cb_id::KSYMBOL) {
            symbols(exe, true);
        }
    }
    // SAFETY: `f` gets arguments its C declaration accepts.
    unsafe { f(exe) }
}
