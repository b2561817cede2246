//! Versions and errors, and [`call`], the frame of every other entry point:
//! its body runs under `guard`, and a failure becomes the thread's last
//! error (`rocprofiler_errno`, `rocprofiler_error_string`) and the call's
//! status.

use cltap::tools::rocprofiler::abi::{self, status};
use cltap::tools::rocprofiler::error::{self, RocpError};
use std::ffi::c_char;

/// Runs `body` as the v1 function `name`.
pub fn call(name: &str, body: impl FnOnce() -> Result<(), RocpError>) -> u32 {
    let r = crate::guard::guard(Err(RocpError::Internal), body);
    error::answer(name, r)
}

/// `uint32_t rocprofiler_version_major()`: the header's major (8 in ROCm 5.x).
#[no_mangle]
pub extern "C" fn rocprofiler_version_major() -> u32 {
    abi::VERSION_MAJOR
}

/// `uint32_t rocprofiler_version_minor()`.
#[no_mangle]
pub extern "C" fn rocprofiler_version_minor() -> u32 {
    abi::VERSION_MINOR
}

/// `hsa_status_t rocprofiler_error_string(const char** str)`: the calling
/// thread's last failure, "" if none.
///
/// # Safety
/// `str` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_error_string(str: *mut *const c_char) -> u32 {
    call("rocprofiler_error_string", || {
        if str.is_null() {
            return Err(RocpError::Null("str"));
        }
        // SAFETY: `str` is valid for this access (# Safety).
        unsafe { *str = error::last_message() };
        Ok(())
    })
}

/// `hsa_status_t rocprofiler_errno()` (rocprofiler's library API documentation's; not in ROCm 5.x's
/// header, declared in cltap's): the status of the calling thread's last
/// failed call, `HSA_STATUS_SUCCESS` if none.
#[no_mangle]
pub extern "C" fn rocprofiler_errno() -> u32 {
    crate::guard::guard(status::ERROR, error::last_status)
}
