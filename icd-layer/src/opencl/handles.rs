//! ICD mode's handles: the space cltap's own handles come from, and the
//! translations the generated wrappers make of arguments and answers that
//! hold handles (docs/platform-facts.md#the-dispatch-table-and-icd-handles).

use cltap::icd::handles::HandleSpace;
use cltap::icd::props::{self, Shape};
use std::ffi::c_void;
use std::sync::OnceLock;

/// Room for this many distinct driver objects (16 bytes each, reserved, not
/// committed).
const HANDLE_CAPACITY: usize = 1 << 26;

static HANDLES: OnceLock<HandleSpace> = OnceLock::new();

/// The handle space if ICD mode has started, without starting it.
pub fn if_ready() -> Option<&'static HandleSpace> {
    HANDLES.get()
}

/// The handle space, reserved on first use; its handles lead to `dispatch`
/// (cltap's ICD table).
pub fn space(dispatch: *const c_void) -> &'static HandleSpace {
    HANDLES.get_or_init(|| {
        let hs = HandleSpace::reserve(HANDLE_CAPACITY).unwrap_or_else(|e| {
            cltap::warn!("{e}; retrying with a smaller handle space");
            HandleSpace::reserve(1 << 16).expect("reserve 1 MiB of address space")
        });
        hs.set_dispatch(dispatch);
        hs
    })
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
        d.buffer = hs.unwrap(d.buffer);
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

/// Gives the application cltap's handles in an info answer that holds
/// the driver's. Inlined into each wrapper, with `func` a constant there.
#[inline(always)]
pub unsafe fn info_out(hs: &HandleSpace, func: &str, param_name: u32, buf: *mut c_void, size: usize, written: usize) {
    if let Some(a) = cltap::icd::info::answer(func, param_name) {
        cltap::icd::info::translate(buf, size.min(written), a, |v| hs.wrap(v as *mut c_void) as u64);
    }
}
