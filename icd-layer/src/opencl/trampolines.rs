//! ICD mode: callbacks that receive handles. The driver calls cltap's
//! trampoline with its own handle; the trampoline calls the application's
//! function with cltap's handle and the application's user data. Each of
//! these callbacks runs once per registration, so its pair is freed then.

use cltap::icd::handles::HandleSpace;
use std::ffi::c_void;

struct Pair {
    cb: *mut c_void,
    ud: *mut c_void,
    /// The handle space the wrapper translated with.
    hs: &'static HandleSpace,
}

/// # Safety
/// `cb` is NULL or the application's callback of the shape `tramp` forwards to; `ud` is its data.
unsafe fn pack(
    hs: &'static HandleSpace,
    cb: *mut c_void,
    ud: *mut c_void,
    tramp: *mut c_void,
) -> (*mut c_void, *mut c_void) {
    if cb.is_null() {
        return (cb, ud);
    }
    (tramp, Box::into_raw(Box::new(Pair { cb, ud, hs })) as *mut c_void)
}

/// # Safety
/// `ud` is what [`pack`] returned, not yet unpacked by a callback that runs once.
unsafe fn unpack(ud: *mut c_void) -> Pair {
    // SAFETY: `ud as *mut Pair` came from `Box::into_raw` and is freed once (# Safety).
    *unsafe { Box::from_raw(ud as *mut Pair) }
}

macro_rules! trampoline {
    ($name:ident, $tramp:ident, ($($arg:ident: $t:ty),*), |$h:ident| $wrap:expr) => {
        /// # Safety
        /// `cb` is NULL or the application's callback of this trampoline's shape; `ud` is its data.
        pub unsafe fn $name(hs: &'static HandleSpace, cb: *mut c_void, ud: *mut c_void) -> (*mut c_void, *mut c_void) {
            // SAFETY: `pack`'s # Safety follows from this fn's.
            unsafe { pack(hs, cb, ud, $tramp as *mut c_void) }
        }
        /// # Safety
        /// Called by the driver with the callback's arguments and the `ud` [`pack`] made, once.
        unsafe extern "C" fn $tramp($($arg: $t,)* ud: *mut c_void) {
            // SAFETY: `unpack`'s # Safety follows from this fn's.
            let p = unsafe { unpack(ud) };
            // SAFETY: the address is that entry's, and this type its C prototype.
            let f: unsafe extern "C" fn($($t,)* *mut c_void) = unsafe { std::mem::transmute(p.cb) };
            let $h = p.hs;
            // A panic in cltap's part: the application's callback still
            // runs, with the driver's values (docs/architecture.md#panics).
            let ($($arg,)*) = crate::guard::guard_at(stringify!($tramp), ($($arg,)*), || $wrap);
            // SAFETY: `f` gets arguments its C declaration accepts.
            unsafe { f($($arg,)* p.ud) }
        }
    };
}

trampoline!(program_notify, tramp_program, (program: *mut c_void), |h| (h.wrap(program),));
trampoline!(mem_notify, tramp_mem, (memobj: *mut c_void), |h| (h.wrap(memobj),));
trampoline!(context_destructor, tramp_context, (context: *mut c_void), |h| (h.wrap(context),));
trampoline!(event_notify, tramp_event, (event: *mut c_void, status: i32), |h| (h.wrap(event), status));
trampoline!(svm_free, tramp_svm_free, (queue: *mut c_void, n: u32, ptrs: *mut *mut c_void), |h| (h.wrap(queue), n, ptrs));
