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
/// Each pointer argument must be valid for the reads and writes this
/// function makes through it (or NULL where it checks for NULL), and each
/// handle or function pointer must be of the kind its type names.
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
/// Each pointer argument must be valid for the reads and writes this
/// function makes through it (or NULL where it checks for NULL), and each
/// handle or function pointer must be of the kind its type names.
unsafe fn unpack(ud: *mut c_void) -> Pair {
    *Box::from_raw(ud as *mut Pair)
}

macro_rules! trampoline {
    ($name:ident, $tramp:ident, ($($arg:ident: $t:ty),*), |$h:ident| $wrap:expr) => {
        /// # Safety
        /// Each pointer argument must be valid for the reads and writes this
        /// function makes through it (or NULL where it checks for NULL), and each
        /// handle or function pointer must be of the kind its type names.
        pub unsafe fn $name(hs: &'static HandleSpace, cb: *mut c_void, ud: *mut c_void) -> (*mut c_void, *mut c_void) {
            pack(hs, cb, ud, $tramp as *mut c_void)
        }
        /// # Safety
        /// Called through the C ABI: every argument is as this entry's C
        /// declaration defines it (each pointer valid for what the entry reads and
        /// writes through it, or NULL where the API allows NULL).
        unsafe extern "C" fn $tramp($($arg: $t,)* ud: *mut c_void) {
            let p = unpack(ud);
            let f: unsafe extern "C" fn($($t,)* *mut c_void) = std::mem::transmute(p.cb);
            let $h = p.hs;
            // A panic in cltap's part: the application's callback still
            // runs, with the driver's values (docs/architecture.md#panics).
            let ($($arg,)*) = crate::guard::guard_at(stringify!($tramp), ($($arg,)*), || $wrap);
            f($($arg,)* p.ud)
        }
    };
}

trampoline!(program_notify, tramp_program, (program: *mut c_void), |h| (h.wrap(program),));
trampoline!(mem_notify, tramp_mem, (memobj: *mut c_void), |h| (h.wrap(memobj),));
trampoline!(context_destructor, tramp_context, (context: *mut c_void), |h| (h.wrap(context),));
trampoline!(event_notify, tramp_event, (event: *mut c_void, status: i32), |h| (h.wrap(event), status));
trampoline!(svm_free, tramp_svm_free, (queue: *mut c_void, n: u32, ptrs: *mut *mut c_void), |h| (h.wrap(queue), n, ptrs));
