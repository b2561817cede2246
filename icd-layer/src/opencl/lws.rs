//! The work-group size a driver picks for an NDRange enqueued with a NULL
//! local size, for the API log's "Internally calculated local_work_size"
//! line. The wrappers of functions marked `[lws]` in the API description
//! ask for it (see build.rs). It is asked of the driver through
//! cl_khr_suggested_local_work_size, directly (never through cltap's own
//! wrappers, so it is not logged); a driver without that extension gets no
//! line, never a guess.

use super::api::{slot, EXT_NAMES};
use super::{drivers, handles, next};
use cltap::exts::key_of;
use std::ffi::c_void;

type Suggest = unsafe extern "C" fn(*mut c_void, *mut c_void, u32, *const usize, *const usize, *mut usize) -> i32;

const NAME: &str = "clGetKernelSuggestedLocalWorkSizeKHR";
/// Marks a driver known not to have the extension.
const ABSENT: *const c_void = std::ptr::dangling::<c_void>();

fn ext_index() -> Option<usize> {
    // Looked up once: this runs on every NDRange with a NULL local size.
    static X: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    *X.get_or_init(|| EXT_NAMES.iter().position(|n| *n == NAME))
}

/// In layer mode the queue is the driver's: find (once per driver) the
/// driver's function through the next table.
///
/// # Safety
/// `queue` is a live command queue of the driver (layer mode: the driver's own handle).
unsafe fn layer_fn(queue: *mut c_void, x: usize) -> Option<Suggest> {
    // SAFETY: `key_of`: the handle is NULL or a live object (# Safety).
    let key = unsafe { key_of(queue) };
    let mut f = next::ext_lookup(key, x);
    if f.is_null() {
        f = ABSENT;
        let next = |slot: usize| next::NEXT.get(slot);
        let (qi, di, fp) = (
            next(slot::clGetCommandQueueInfo),
            next(slot::clGetDeviceInfo),
            next(slot::clGetExtensionFunctionAddressForPlatform),
        );
        if !qi.is_null() && !di.is_null() && !fp.is_null() {
            type Info = unsafe extern "C" fn(*mut c_void, u32, usize, *mut c_void, *mut usize) -> i32;
            // SAFETY: the address is that entry's, and this type its C prototype.
            let (qi, di) = (unsafe { std::mem::transmute::<*const c_void, Info>(qi) }, unsafe {
                std::mem::transmute::<*const c_void, Info>(di)
            });
            // SAFETY: the address is that entry's, and this type its C prototype.
            let fp: unsafe extern "C" fn(*mut c_void, *const i8) -> *mut c_void = unsafe { std::mem::transmute(fp) };
            let (mut dev, mut plat): (*mut c_void, *mut c_void) = (std::ptr::null_mut(), std::ptr::null_mut());
            // SAFETY: `qi` is the entry its name says, called with arguments its C declaration accepts; `di` gets
            // arguments its C declaration accepts.
            if unsafe { qi(queue, 0x1091, 8, &mut dev as *mut _ as *mut c_void, std::ptr::null_mut()) } == 0
                && unsafe { di(dev, 0x1031, 8, &mut plat as *mut _ as *mut c_void, std::ptr::null_mut()) } == 0
            {
                // SAFETY: `fp` gets arguments its C declaration accepts.
                let p = unsafe { fp(plat, c"clGetKernelSuggestedLocalWorkSizeKHR".as_ptr()) };
                if !p.is_null() {
                    f = p;
                }
            }
        }
        next::ext_record(key, x, f);
    }
    // SAFETY: the address is that entry's, and this type its C prototype.
    (f != ABSENT && !f.is_null()).then(|| unsafe { std::mem::transmute::<*const c_void, Suggest>(f) })
}

/// The driver's choice for this enqueue, or None when it cannot say.
///
/// # Safety
/// `args` are the arguments of a successful call to a function marked
/// `[lws]` (they begin as `clEnqueueNDRangeKernel`'s).
pub unsafe fn suggested(args: &[u64]) -> Option<([usize; 3], usize)> {
    let x = ext_index()?;
    let (mut queue, mut kernel) = (args[0] as *mut c_void, args[1] as *mut c_void);
    let dim = (args[2] as u32).min(3);
    let f = match handles::if_ready() {
        Some(hs) if hs.is_ours(queue) => {
            queue = hs.unwrap(queue);
            kernel = hs.unwrap(kernel);
            // SAFETY: `ext_ptr`'s # Safety follows from this fn's.
            let p = unsafe { drivers::ext_ptr(x, queue) };
            // SAFETY: the address is that entry's, and this type its C prototype.
            (!p.is_null()).then(|| unsafe { std::mem::transmute::<*const c_void, Suggest>(p) })
        }
        // SAFETY: `layer_fn`'s # Safety follows from this fn's.
        _ => unsafe { layer_fn(queue, x) },
    }?;
    let mut out = [0usize; 3];
    // SAFETY: `f` gets arguments its C declaration accepts.
    let r = unsafe { f(queue, kernel, dim, args[3] as *const usize, args[4] as *const usize, out.as_mut_ptr()) };
    (r == 0 && dim > 0).then_some((out, dim as usize))
}
