//! What cltap reports of a dispatched kernel object: its name and its
//! 64-byte kernel descriptor. As rocprofiler v1 does, both come from the
//! runtime, not from the application's own look-ups: the AMD loader
//! extension (`HSA_EXTENSION_AMD_LOADER`) gives the executable a kernel
//! object belongs to and a host-readable copy of its descriptor, and the
//! executable's kernel symbols give the names. One executable's symbols
//! are read once, at the first dispatch of any of its kernels.

use super::api::id;
use super::wrappers::orig;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

const HSA_STATUS_SUCCESS: u32 = 0;
const HSA_STATUS_ERROR: u32 = 0x1000;
const HSA_EXTENSION_AMD_LOADER: u16 = 0x201;
const HSA_SYMBOL_KIND_KERNEL: u32 = 1;
const SYMBOL_INFO_TYPE: u32 = 0;
const SYMBOL_INFO_NAME_LENGTH: u32 = 1;
const SYMBOL_INFO_NAME: u32 = 2;
const SYMBOL_INFO_KERNEL_OBJECT: u32 = 22;
/// An AMDHSA kernel descriptor (code object v3 and later).
pub const DESCRIPTOR_SIZE: usize = 64;

/// `hsa_ven_amd_loader_1_00_pfn_t`: the first three entries, common to
/// every version of the table.
#[repr(C)]
#[derive(Clone, Copy)]
struct LoaderTable {
    query_host_address: Option<unsafe extern "C" fn(*const c_void, *mut *const c_void) -> u32>,
    query_segment_descriptors: Option<unsafe extern "C" fn(*mut c_void, *mut usize) -> u32>,
    query_executable: Option<unsafe extern "C" fn(*const c_void, *mut u64) -> u32>,
}

/// What is known of one kernel object.
#[derive(Debug, Default)]
pub struct Kernel {
    /// Shared: every dispatch's record and count take it.
    pub name: Option<Arc<str>>,
    /// The executable it belongs to (0 when unknown).
    executable: u64,
    /// Recorded (`KIND_HSA_KERNEL`) when first resolved.
    pub descriptor: Option<[u8; DESCRIPTOR_SIZE]>,
    /// False for a kernel only named while another of its executable was
    /// resolved: its descriptor is still to be read.
    resolved: bool,
    /// Its name as rocprofiler v1 gives it to tools (demangled), made once.
    v1_name: OnceLock<Option<std::ffi::CString>>,
}

impl Kernel {
    /// The kernel's name as rocprofiler v1 gives it to its callbacks
    /// (`names::demangle`), worked out at the first call.
    pub fn v1_name(&self) -> Option<&std::ffi::CStr> {
        self.v1_name.get_or_init(|| self.name.as_deref().map(super::names::demangle)).as_deref()
    }
}

pub(crate) static KERNELS: RwLock<Option<HashMap<u64, Arc<Kernel>>>> = RwLock::new(None);
static LOADER: OnceLock<Option<LoaderTable>> = OnceLock::new();

/// The kernel behind `object`, resolved on its first dispatch.
pub fn lookup(object: u64) -> Arc<Kernel> {
    if let Some(k) = KERNELS
        .read()
        .unwrap_or_else(PoisonError::into_inner)
        .as_ref()
        .and_then(|m| m.get(&object))
        .filter(|k| k.resolved)
    {
        return k.clone();
    }
    let found = resolve(object);
    let mut w = KERNELS.write().unwrap_or_else(PoisonError::into_inner);
    let m = w.get_or_insert_with(HashMap::new);
    for (o, name) in found.names {
        m.entry(o).or_insert_with(|| {
            Arc::new(Kernel {
                name: Some(name.into()),
                executable: found.executable,
                descriptor: None,
                resolved: false,
                v1_name: OnceLock::new(),
            })
        });
    }
    let k = m.entry(object).or_default();
    if !k.resolved {
        *k = Arc::new(Kernel {
            name: k.name.clone(),
            executable: found.executable,
            descriptor: found.descriptor,
            resolved: true,
            v1_name: OnceLock::new(),
        });
        if let Some(d) = &k.descriptor {
            let words: Vec<u64> =
                d.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
            cltap::trace::local::record_kind::<{ cltap::trace::record::KIND_HSA_KERNEL }>(
                object,
                0,
                0,
                &words,
                k.name.as_deref(),
            );
        }
    }
    k.clone()
}

/// The host address of a kernel object (its code object's kernel
/// descriptor, readable by the host), as the loader extension gives it;
/// the object itself where the loader cannot tell (rocprofiler 5.2.3's
/// `kernel_code`).
pub fn host_address(object: u64) -> u64 {
    let Some(host) = loader().and_then(|t| t.query_host_address) else { return object };
    let mut p: *const c_void = std::ptr::null();
    // SAFETY: the loader's entry, as hsa_ven_amd_loader.h defines it.
    let ok = unsafe { host(object as *const c_void, &mut p) } == HSA_STATUS_SUCCESS;
    if ok && !p.is_null() {
        p as u64
    } else {
        object
    }
}

struct Found {
    executable: u64,
    names: Vec<(u64, String)>,
    descriptor: Option<[u8; DESCRIPTOR_SIZE]>,
}

fn loader() -> Option<LoaderTable> {
    *LOADER.get_or_init(|| {
        let get = orig(id::hsa_system_get_major_extension_table);
        if get == 0 {
            return None;
        }
        let mut t = LoaderTable { query_host_address: None, query_segment_descriptors: None, query_executable: None };
        // SAFETY: the runtime's entry; it fills at most `size` bytes of `t`.
        let r = unsafe {
            let get: unsafe extern "C" fn(u16, u16, usize, *mut c_void) -> u32 = std::mem::transmute(get);
            get(
                HSA_EXTENSION_AMD_LOADER,
                1,
                std::mem::size_of::<LoaderTable>(),
                &mut t as *mut LoaderTable as *mut c_void,
            )
        };
        (r == HSA_STATUS_SUCCESS).then_some(t)
    })
}

fn resolve(object: u64) -> Found {
    let mut found = Found { executable: 0, names: Vec::new(), descriptor: None };
    let Some(t) = loader() else { return found };
    // SAFETY: the loader's entries, with arguments as hsa_ven_amd_loader.h defines them;
    // the descriptor is copied from the host address the loader gives for it.
    unsafe {
        if let Some(host) = t.query_host_address {
            let mut p: *const c_void = std::ptr::null();
            if host(object as *const c_void, &mut p) == HSA_STATUS_SUCCESS && !p.is_null() {
                found.descriptor = Some(std::ptr::read_unaligned(p as *const [u8; DESCRIPTOR_SIZE]));
            }
        }
        if let Some(exe) = t.query_executable {
            let mut e = 0u64;
            if exe(object as *const c_void, &mut e) == HSA_STATUS_SUCCESS && e != 0 {
                found.executable = e;
                found.names = kernel_symbols(e);
            }
        }
    }
    found
}

type SymbolGetInfo = unsafe extern "C" fn(u64, u32, *mut c_void) -> u32;

/// Every kernel symbol of an executable: `(kernel object, name)`.
fn kernel_symbols(executable: u64) -> Vec<(u64, String)> {
    let iterate = orig(id::hsa_executable_iterate_symbols);
    let info = orig(id::hsa_executable_symbol_get_info);
    if iterate == 0 || info == 0 {
        return Vec::new();
    }
    struct Walk {
        info: SymbolGetInfo,
        out: Vec<(u64, String)>,
    }
    /// # Safety
    /// Called by the symbol iteration with the `data` its caller gave it.
    unsafe extern "C" fn each(_exe: u64, symbol: u64, data: *mut c_void) -> u32 {
        // SAFETY: `(data as *mut Walk)` is valid for this access (# Safety).
        let w = unsafe { &mut *(data as *mut Walk) };
        crate::guard::guard((), || {
            // SAFETY: `kernel_symbol`'s # Safety follows from this fn's.
            if let Some(k) = unsafe { kernel_symbol(w.info, symbol) } {
                w.out.push(k);
            }
        });
        HSA_STATUS_SUCCESS
    }
    // SAFETY: the runtime's entries; `walk` outlives the iteration.
    unsafe {
        let mut walk = Walk { info: std::mem::transmute::<usize, SymbolGetInfo>(info), out: Vec::new() };
        let iterate: unsafe extern "C" fn(u64, unsafe extern "C" fn(u64, u64, *mut c_void) -> u32, *mut c_void) -> u32 =
            std::mem::transmute(iterate);
        iterate(executable, each, &mut walk as *mut Walk as *mut c_void);
        walk.out
    }
}

/// `(kernel object, name)` of a kernel symbol; None for other symbols.
///
/// # Safety
/// `info` is the runtime's `hsa_executable_symbol_get_info`.
unsafe fn kernel_symbol(info: SymbolGetInfo, symbol: u64) -> Option<(u64, String)> {
    let mut kind = u32::MAX;
    // SAFETY: `info` is the entry its name says, called with arguments its C declaration accepts: `info` is the
    // runtime's `hsa_executable_symbol_get_info` (# Safety).
    if unsafe { info(symbol, SYMBOL_INFO_TYPE, &mut kind as *mut u32 as *mut c_void) } != HSA_STATUS_SUCCESS
        || kind != HSA_SYMBOL_KIND_KERNEL
    {
        return None;
    }
    let mut object = 0u64;
    // SAFETY: `info` gets arguments its C declaration accepts.
    if unsafe { info(symbol, SYMBOL_INFO_KERNEL_OBJECT, &mut object as *mut u64 as *mut c_void) } != HSA_STATUS_SUCCESS
        || object == 0
    {
        return None;
    }
    let mut len = 0u32;
    // SAFETY: `info` gets arguments its C declaration accepts.
    if unsafe { info(symbol, SYMBOL_INFO_NAME_LENGTH, &mut len as *mut u32 as *mut c_void) } != HSA_STATUS_SUCCESS
        || len == 0
        || len > 4096
    {
        return None;
    }
    let mut buf = vec![0u8; len as usize + 1];
    // SAFETY: `info` gets arguments its C declaration accepts.
    if unsafe { info(symbol, SYMBOL_INFO_NAME, buf.as_mut_ptr() as *mut c_void) } != HSA_STATUS_SUCCESS {
        return None;
    }
    buf.truncate(len as usize);
    if let Some(z) = buf.iter().position(|b| *b == 0) {
        buf.truncate(z);
    }
    Some((object, String::from_utf8_lossy(&buf).into_owned()))
}

/// Forgets the kernels of an executable the application destroys: a later
/// executable may be loaded at the same addresses, with other kernels.
fn forget_executable(executable: u64) {
    if let Some(m) = KERNELS.write().unwrap_or_else(PoisonError::into_inner).as_mut() {
        m.retain(|_, k| k.executable != executable);
    }
}

/// What `OnLoad` puts in the core table's `hsa_executable_destroy` entry
/// when intercepting (the only time kernels are looked up).
pub fn executable_destroy_entry() -> usize {
    executable_destroy as *const () as usize
}

/// `hsa_executable_destroy`, as the application calls it.
///
/// # Safety
/// `executable` is a live executable of the application, destroyed here once.
unsafe extern "C" fn executable_destroy(mut executable: u64) -> u32 {
    // SAFETY: `executable_destroy_recorded`'s # Safety follows from this fn's.
    super::traced::traced!(id::hsa_executable_destroy, (executable), unsafe { executable_destroy_recorded(executable) })
}

/// # Safety
/// `executable` is a handle the application may destroy (its own, live).
unsafe fn executable_destroy_recorded(executable: u64) -> u32 {
    let app = [executable];
    let t = crate::guard::part("hsa_executable_destroy", || {
        crate::bracket::enter_hsa(::cltap::meta::hsa_described::hsa_executable_destroy, &app)
    })
    .unwrap_or(crate::bracket::Enter::OFF);
    crate::guard::guard((), || forget_executable(executable));
    let f = orig(id::hsa_executable_destroy);
    let r = if f == 0 {
        HSA_STATUS_ERROR
    } else {
        // SAFETY: the address is that entry's, and this type its C prototype.
        let f: unsafe extern "C" fn(u64) -> u32 = unsafe { std::mem::transmute(f) };
        // SAFETY: `f` gets arguments its C declaration accepts.
        unsafe { f(executable) }
    };
    crate::guard::part("hsa_executable_destroy", || {
        if t.on {
            crate::bracket::exit_hsa(::cltap::meta::hsa_described::hsa_executable_destroy, t, r as u64, &app);
        } else {
            crate::bracket::done_hsa(id::hsa_executable_destroy, !cltap::trace::capture::hsa_status_ok(r as u64));
        }
    });
    r
}
