//! ICD mode: cltap is the driver the loader sees. It loads the real drivers,
//! hands out wrapped handles, and routes each call to the driver that owns
//! the object (FACTS.md §3).

use crate::{gen, rt};
use cltap::exts::{key_of, ExtTable};
use cltap::icd::handles::HandleSpace;
use cltap::icd::props::{self, Shape};
use cltap::icd::vendors;
use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::OnceLock;

/// Room for this many distinct driver objects (16 bytes each, reserved, not
/// committed).
const HANDLE_CAPACITY: usize = 1 << 26;

static HANDLES: OnceLock<HandleSpace> = OnceLock::new();
static EXTS: ExtTable = ExtTable::new();
static STATE: OnceLock<State> = OnceLock::new();

struct State {
    /// Driver platforms in the order the application sees them.
    platforms: Vec<*mut c_void>,
    /// Each driver's `clGetExtensionFunctionAddress`, for name look-ups
    /// without a platform.
    gefa: Vec<unsafe extern "C" fn(*const c_char) -> *mut c_void>,
}

unsafe impl Send for State {}
unsafe impl Sync for State {}

/// The handle space if ICD mode has started, without starting it.
pub fn handles_if_ready() -> Option<&'static HandleSpace> {
    HANDLES.get()
}

pub fn handles() -> &'static HandleSpace {
    HANDLES.get_or_init(|| {
        let hs = HandleSpace::reserve(HANDLE_CAPACITY).unwrap_or_else(|e| {
            cltap::warn!("{e}; retrying with a smaller handle space");
            HandleSpace::reserve(1 << 16).expect("reserve 1 MiB of address space")
        });
        hs.set_dispatch(&gen::ICD_TABLE as *const _ as *const c_void);
        hs
    })
}

fn state() -> &'static State {
    STATE.get_or_init(|| rt::guard(State { platforms: Vec::new(), gefa: Vec::new() }, load_drivers))
}

type IcdGetPlatformIds = unsafe extern "C" fn(u32, *mut *mut c_void, *mut u32) -> i32;
type Gefa = unsafe extern "C" fn(*const c_char) -> *mut c_void;
type Gefafp = unsafe extern "C" fn(*mut c_void, *const c_char) -> *mut c_void;

fn load_drivers() -> State {
    let cfg = rt::config();
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

unsafe fn load_one(path: &std::path::Path) -> Result<(Gefa, Vec<*mut c_void>), String> {
    let lib = libloading::os::unix::Library::open(Some(path), libc::RTLD_NOW | libc::RTLD_LOCAL)
        .map_err(|e| e.to_string())?;
    let gefa: Gefa = *lib
        .get::<Gefa>(b"clGetExtensionFunctionAddress\0")
        .map_err(|_| "no clGetExtensionFunctionAddress: not an OpenCL ICD".to_string())?;
    let get_ids: IcdGetPlatformIds = match lib.get::<IcdGetPlatformIds>(b"clIcdGetPlatformIDsKHR\0") {
        Ok(f) => *f,
        Err(_) => {
            let p = gefa(c"clIcdGetPlatformIDsKHR".as_ptr());
            if p.is_null() {
                return Err("no clIcdGetPlatformIDsKHR: not an OpenCL ICD".into());
            }
            std::mem::transmute::<*mut c_void, IcdGetPlatformIds>(p)
        }
    };
    let mut n = 0u32;
    let r = get_ids(0, std::ptr::null_mut(), &mut n);
    if r != 0 || n == 0 {
        return Err(format!("clIcdGetPlatformIDsKHR found no platform (status {r})"));
    }
    let mut v = vec![std::ptr::null_mut(); n as usize];
    let r = get_ids(n, v.as_mut_ptr(), std::ptr::null_mut());
    if r != 0 {
        return Err(format!("clIcdGetPlatformIDsKHR failed with status {r}"));
    }
    v.retain(|p| !p.is_null() && !key_of(*p).is_null());
    // Drivers stay loaded for the life of the process, as with the loaders.
    std::mem::forget(lib);
    Ok((gefa, v))
}

/// Resolves every described extension function on one driver platform.
unsafe fn record_extensions(platform: *mut c_void, gefa: Gefa) {
    let fp = cltap::dispatch::object_slot(platform, gen::slot::clGetExtensionFunctionAddressForPlatform);
    for e in gen::ENTRIES.iter() {
        let Some(x) = e.ext else { continue };
        let name = CString::new(e.name).unwrap();
        let p = if fp.is_null() {
            gefa(name.as_ptr())
        } else {
            std::mem::transmute::<*const c_void, Gefafp>(fp)(platform, name.as_ptr())
        };
        EXTS.record(key_of(platform), x, p);
    }
}

pub fn default_platform() -> *mut c_void {
    state().platforms.first().copied().unwrap_or(std::ptr::null_mut())
}

#[inline(always)]
pub unsafe fn ext_ptr(ext: usize, real: *mut c_void) -> *const c_void {
    EXTS.lookup(key_of(real), ext)
}

/// A handle array translated for the driver: on the stack when small.
pub struct Unwrapped {
    small: [*mut c_void; 16],
    big: Vec<*mut c_void>,
    n: usize,
}

impl Unwrapped {
    #[inline]
    pub unsafe fn new(hs: &HandleSpace, src: *const *mut c_void, n: usize) -> Self {
        let mut u = Unwrapped { small: [std::ptr::null_mut(); 16], big: Vec::new(), n: 0 };
        if src.is_null() || n == 0 {
            return u;
        }
        u.n = n;
        if n <= u.small.len() {
            for i in 0..n {
                u.small[i] = hs.unwrap(*src.add(i));
            }
        } else {
            u.big = (0..n).map(|i| hs.unwrap(*src.add(i))).collect();
        }
        u
    }

    /// The translated array, or `orig` when there was nothing to translate.
    #[inline]
    pub fn ptr(&self, orig: *mut c_void) -> *mut c_void {
        if self.n == 0 {
            orig
        } else if self.n <= self.small.len() {
            self.small.as_ptr() as *mut c_void
        } else {
            self.big.as_ptr() as *mut c_void
        }
    }
}

/// A copy of an application's `cl_image_desc` whose `buffer` field holds
/// the driver's handle.
pub struct ImageDesc(Option<cltap::sys::cl_image_desc>);

impl ImageDesc {
    pub unsafe fn new(hs: &HandleSpace, desc: *mut c_void) -> Self {
        if desc.is_null() {
            return ImageDesc(None);
        }
        let mut d = std::ptr::read_unaligned(desc as *const cltap::sys::cl_image_desc);
        if !hs.is_ours(d.buffer as *const c_void) {
            return ImageDesc(None);
        }
        d.buffer = hs.unwrap(d.buffer as *mut c_void) as _;
        ImageDesc(Some(d))
    }

    pub fn ptr(&self, orig: *mut c_void) -> *mut c_void {
        match &self.0 {
            Some(d) => d as *const _ as *mut c_void,
            None => orig,
        }
    }
}

pub unsafe fn props_in(hs: &HandleSpace, list: *mut c_void, shape: Shape) -> Option<Vec<u64>> {
    props::translate(list as *const u64, shape, |v| hs.unwrap(v as *mut c_void) as u64)
}

/// `clSetKernelArg` values that are handles (buffers, images, samplers,
/// queues) are swapped for the driver's.
pub unsafe fn kernel_arg(hs: &HandleSpace, value: *mut c_void, size: usize, slot: &mut *mut c_void) -> *mut c_void {
    if size == std::mem::size_of::<*mut c_void>() && !value.is_null() {
        let v = *(value as *const *mut c_void);
        if hs.is_ours(v) {
            *slot = hs.unwrap(v);
            return slot as *mut *mut c_void as *mut c_void;
        }
    }
    value
}

pub unsafe fn wrap_array(hs: &HandleSpace, a: *mut *mut c_void, n: usize) {
    for i in 0..n {
        *a.add(i) = hs.wrap(*a.add(i));
    }
}

pub unsafe fn info_out(hs: &HandleSpace, func: &str, param_name: u32, buf: *mut c_void, size: usize, written: usize) {
    if let Some(a) = cltap::icd::info::answer(func, param_name) {
        cltap::icd::info::translate(buf, size.min(written), a, |v| hs.wrap(v as *mut c_void) as u64);
    }
}

static UNKNOWN_SEEN: parking_lot::Mutex<Vec<String>> = parking_lot::Mutex::new(Vec::new());

/// Records, once per name, that an extension function cltap does not know
/// was asked for. In layer mode the driver's own pointer is handed out (it
/// receives the driver's handles); in ICD mode it would receive cltap's
/// handles, so NULL is returned instead.
pub fn note_unknown_extension(name: *const c_char, passed_through: bool) {
    if name.is_null() {
        return;
    }
    let n = unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned();
    let mut seen = UNKNOWN_SEEN.lock();
    if seen.contains(&n) {
        return;
    }
    if !passed_through {
        // Hiding changes what the application sees, so it is said at once.
        cltap::warn!("{n}: extension function unknown to cltap; in ICD mode it is hidden (NULL). Use layer mode (OPENCL_LAYERS) to reach it");
    }
    seen.push(n);
}

/// Unknown extension functions asked for so far, for the end-of-run report.
pub fn unknown_extensions() -> Vec<String> {
    UNKNOWN_SEEN.lock().clone()
}

// ---- Functions the ICD answers itself ----

pub unsafe extern "C" fn clIcdGetPlatformIDsKHR(num_entries: u32, platforms: *mut c_void, num_platforms: *mut c_void) -> i32 {
    let r = rt::guard(-1001, || {
        let st = state();
        if (num_entries == 0 && !platforms.is_null()) || (platforms.is_null() && num_platforms.is_null()) {
            return -30;
        }
        let hs = handles();
        let out = platforms as *mut *mut c_void;
        for (i, p) in st.platforms.iter().take(num_entries as usize).enumerate() {
            *out.add(i) = hs.wrap(*p);
        }
        if !num_platforms.is_null() {
            *(num_platforms as *mut u32) = st.platforms.len() as u32;
        }
        if st.platforms.is_empty() {
            -1001 // CL_PLATFORM_NOT_FOUND_KHR
        } else {
            0
        }
    });
    rt::done(gen::id::clIcdGetPlatformIDsKHR, r != 0);
    r
}

pub unsafe extern "C" fn clGetPlatformIDs(num_entries: u32, platforms: *mut c_void, num_platforms: *mut c_void) -> i32 {
    clIcdGetPlatformIDsKHR(num_entries, platforms, num_platforms)
}

/// The ICD's answer for a name, given what the driver answered.
unsafe fn answer_for(name: *const c_char, real: *mut c_void) -> *mut c_void {
    if let Some(own) = crate::markers::own(name) {
        return own;
    }
    if real.is_null() {
        return real;
    }
    match crate::entry(name) {
        Some(e) if !e.icd.is_null() => e.icd as *mut c_void,
        _ => {
            note_unknown_extension(name, false);
            std::ptr::null_mut()
        }
    }
}

pub unsafe extern "C" fn clGetExtensionFunctionAddress(name: *mut c_void) -> *mut c_void {
    let name = name as *const c_char;
    if name.is_null() {
        return std::ptr::null_mut();
    }
    if CStr::from_ptr(name).to_bytes() == b"clIcdGetPlatformIDsKHR" {
        return clIcdGetPlatformIDsKHR as *mut c_void;
    }
    rt::guard(std::ptr::null_mut(), || {
        let st = state();
        let real = st.gefa.iter().map(|g| g(name)).find(|p| !p.is_null()).unwrap_or(std::ptr::null_mut());
        answer_for(name, real)
    })
}

pub unsafe extern "C" fn clGetExtensionFunctionAddressForPlatform(platform: *mut c_void, name: *mut c_void) -> *mut c_void {
    let real_p = handles().unwrap(platform);
    if real_p.is_null() || name.is_null() {
        return std::ptr::null_mut();
    }
    let fp = cltap::dispatch::object_slot(real_p, gen::slot::clGetExtensionFunctionAddressForPlatform);
    let id = gen::id::clGetExtensionFunctionAddressForPlatform;
    let t = rt::enter(id, &[platform as u64, name as u64]);
    let real = if fp.is_null() {
        std::ptr::null_mut()
    } else {
        std::mem::transmute::<*const c_void, Gefafp>(fp)(real_p, name as *const c_char)
    };
    let out = rt::guard(std::ptr::null_mut(), || answer_for(name as *const c_char, real));
    rt::finish_call(id, t, out as u64, &[platform as u64, name as u64], out.is_null());
    out
}

pub unsafe extern "C" fn clUnloadCompiler() -> i32 {
    for p in &state().platforms {
        let f = cltap::dispatch::object_slot(*p, gen::slot::clUnloadPlatformCompiler);
        if !f.is_null() {
            std::mem::transmute::<*const c_void, unsafe extern "C" fn(*mut c_void) -> i32>(f)(*p);
        }
    }
    rt::done(gen::id::clUnloadCompiler, false);
    0
}
