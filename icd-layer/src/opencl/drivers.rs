//! ICD mode's real drivers: cltap is the driver the loader sees. It loads
//! the real drivers behind it, in the order the loaders would, and keeps
//! each driver's pointers for extension functions (docs/platform-facts.md#the-dispatch-table-and-icd-handles).

use super::api::{slot, EXT_NAMES};
use super::exts::DRIVERS as EXTS;
use crate::guard::guard;
use cltap::exts::key_of;
use cltap::icd::vendors;
use std::ffi::{c_char, c_void, CString};
use std::sync::OnceLock;

static STATE: OnceLock<State> = OnceLock::new();

pub struct State {
    /// Driver platforms in the order the application sees them.
    pub platforms: Vec<*mut c_void>,
    /// Each driver's `clGetExtensionFunctionAddress`, for name look-ups
    /// without a platform.
    pub gefa: Vec<unsafe extern "C" fn(*const c_char) -> *mut c_void>,
}

unsafe impl Send for State {}
unsafe impl Sync for State {}

pub fn state() -> &'static State {
    STATE.get_or_init(|| guard(State { platforms: Vec::new(), gefa: Vec::new() }, load_drivers))
}

type IcdGetPlatformIds = unsafe extern "C" fn(u32, *mut *mut c_void, *mut u32) -> i32;
type Gefa = unsafe extern "C" fn(*const c_char) -> *mut c_void;
pub type Gefafp = unsafe extern "C" fn(*mut c_void, *const c_char) -> *mut c_void;

fn load_drivers() -> State {
    let cfg = super::front::config();
    let vendors_env = std::env::var("OCL_ICD_VENDORS").ok();
    let cands = vendors::candidates(
        cfg.icd_filenames.as_deref(),
        vendors_env.as_deref(),
        std::path::Path::new(vendors::DEFAULT_VENDOR_DIR),
    );
    let mut st = State { platforms: Vec::new(), gefa: Vec::new() };
    let mut tried = Vec::new();
    for c in cands {
        if vendors::is_self(&c.library) {
            continue;
        }
        match unsafe { load_one(&c.library) } {
            Ok((gefa, plats)) => {
                st.gefa.push(gefa);
                for p in plats {
                    unsafe { record_extensions(p, gefa) };
                    st.platforms.push(p);
                }
            }
            Err(why) => tried.push(format!("{} (from {}): {why}", c.library.display(), c.source)),
        }
    }
    if st.platforms.is_empty() {
        let list = if tried.is_empty() { "no driver is configured".to_string() } else { tried.join("; ") };
        cltap::warn!(
            "ICD mode found no real OpenCL driver, so it reports zero platforms. Tried: {list}. \
             Set CLTAP_ICD_FILENAMES to the driver libraries (colon-separated)."
        );
    } else if !tried.is_empty() {
        cltap::warn!("ICD mode skipped drivers that could not be used: {}", tried.join("; "));
    }
    st
}

/// # Safety
/// Loads the library at `path` and runs its initialisers: it must be an OpenCL ICD driver.
unsafe fn load_one(path: &std::path::Path) -> Result<(Gefa, Vec<*mut c_void>), String> {
    // SAFETY: `open`'s # Safety follows from this fn's.
    let lib = unsafe { libloading::os::unix::Library::open(Some(path), libc::RTLD_NOW | libc::RTLD_LOCAL) }
        .map_err(|e| e.to_string())?;
    // SAFETY: the symbol's type is its C prototype, as the caller promises (# Safety).
    let gefa: Gefa = *unsafe { lib.get::<Gefa>(b"clGetExtensionFunctionAddress\0") }
        .map_err(|_| "no clGetExtensionFunctionAddress: not an OpenCL ICD".to_string())?;
    // SAFETY: the symbol's type is its C prototype, as the caller promises (# Safety).
    let get_ids: IcdGetPlatformIds = match unsafe { lib.get::<IcdGetPlatformIds>(b"clIcdGetPlatformIDsKHR\0") } {
        Ok(f) => *f,
        Err(_) => {
            // SAFETY: `gefa` gets arguments its C declaration accepts.
            let p = unsafe { gefa(c"clIcdGetPlatformIDsKHR".as_ptr()) };
            if p.is_null() {
                return Err("no clIcdGetPlatformIDsKHR: not an OpenCL ICD".into());
            }
            // SAFETY: the address is that entry's, and this type its C prototype.
            unsafe { std::mem::transmute::<*mut c_void, IcdGetPlatformIds>(p) }
        }
    };
    let mut n = 0u32;
    // SAFETY: `get_ids` gets arguments its C declaration accepts.
    let r = unsafe { get_ids(0, std::ptr::null_mut(), &mut n) };
    if r != 0 || n == 0 {
        return Err(format!("clIcdGetPlatformIDsKHR found no platform (status {r})"));
    }
    let mut v = vec![std::ptr::null_mut(); n as usize];
    // SAFETY: `get_ids` gets arguments its C declaration accepts.
    let r = unsafe { get_ids(n, v.as_mut_ptr(), std::ptr::null_mut()) };
    if r != 0 {
        return Err(format!("clIcdGetPlatformIDsKHR failed with status {r}"));
    }
    // SAFETY: `key_of`: the handle is NULL or a live object (# Safety).
    v.retain(|p| !p.is_null() && !unsafe { key_of(*p) }.is_null());
    // Drivers stay loaded for the life of the process, as with the loaders.
    std::mem::forget(lib);
    Ok((gefa, v))
}

/// Resolves every described extension function on one driver platform.
///
/// # Safety
/// `platform` is a live platform of the driver whose extension lookup `gefa` is.
unsafe fn record_extensions(platform: *mut c_void, gefa: Gefa) {
    // SAFETY: `object_slot`: the object is a live ICD object, its dispatch table first (# Safety).
    let fp = unsafe { cltap::icd_table::object_slot(platform, slot::clGetExtensionFunctionAddressForPlatform) };
    for (x, name) in EXT_NAMES.iter().enumerate() {
        let name = CString::new(*name).unwrap();
        let p = if fp.is_null() {
            // SAFETY: `gefa` gets arguments its C declaration accepts.
            unsafe { gefa(name.as_ptr()) }
        } else {
            // SAFETY: the entry called here gets arguments its C declaration accepts.
            unsafe { std::mem::transmute::<*const c_void, Gefafp>(fp)(platform, name.as_ptr()) }
        };
        // SAFETY: `key_of`: the handle is NULL or a live object (# Safety).
        EXTS.record(unsafe { key_of(platform) }, x, p);
    }
}

pub fn default_platform() -> *mut c_void {
    state().platforms.first().copied().unwrap_or(std::ptr::null_mut())
}

/// # Safety
/// `real` is NULL or a live object of a loaded driver, its dispatch table first.
#[inline(always)]
pub unsafe fn ext_ptr(ext: usize, real: *mut c_void) -> *const c_void {
    // SAFETY: `key_of`: the handle is NULL or a live object (# Safety).
    EXTS.lookup(unsafe { key_of(real) }, ext)
}
