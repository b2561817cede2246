//! Kernel names as rocprofiler 5.2.3 gives them to its callbacks: the
//! kernel symbol's name demangled by the C++ runtime's `__cxa_demangle`
//! (a code object v3 symbol `_Z7add_onePf.kd` reads
//! `add_one(float*) [clone .kd]`), the name itself where it is not a C++
//! name or no C++ runtime is loaded. Each name is worked out once.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::OnceLock;

type Demangle = unsafe extern "C" fn(*const c_char, *mut c_char, *mut usize, *mut c_int) -> *mut c_char;

fn demangler() -> Option<Demangle> {
    static F: OnceLock<usize> = OnceLock::new();
    let f = *F.get_or_init(|| {
        // SAFETY: looking a symbol up in what the process has loaded.
        unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"__cxa_demangle".as_ptr()) as usize }
    });
    // SAFETY: `__cxa_demangle` has this signature (the Itanium C++ ABI).
    (f != 0).then(|| unsafe { std::mem::transmute::<usize, Demangle>(f) })
}

/// The name v1 gives for the kernel symbol `name`.
pub fn demangle(name: &str) -> CString {
    let raw = CString::new(name).unwrap_or_default();
    let Some(f) = demangler().filter(|_| name.starts_with("_Z")) else { return raw };
    let mut status: c_int = -1;
    // SAFETY: a NUL-terminated name; the result is malloc'ed, freed here.
    unsafe {
        let out = f(raw.as_ptr(), std::ptr::null_mut(), std::ptr::null_mut(), &mut status);
        if out.is_null() {
            return raw;
        }
        let s = CStr::from_ptr(out).to_owned();
        libc::free(out as *mut c_void);
        if status == 0 {
            s
        } else {
            raw
        }
    }
}
