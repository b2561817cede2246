//! Opening and closing "KFD", and the calls ROCr imports that the emulated GPU only answers: no
//! debugger, no trap handler to install, no SVM, no IPC or graphics interop.

use crate::sys::*;

#[no_mangle]
pub extern "C" fn hsaKmtOpenKFD() -> HSAKMT_STATUS {
    crate::guard(|| {
        crate::watchdog::start();
        HSAKMT_STATUS_SUCCESS
    })
}

#[no_mangle]
pub extern "C" fn hsaKmtCloseKFD() -> HSAKMT_STATUS {
    HSAKMT_STATUS_SUCCESS
}

/// NOT_SUPPORTED: ROCr then runs without KFD exception debugging (its queue errors arrive through
/// the queue's inactive signal).
#[no_mangle]
pub extern "C" fn hsaKmtRuntimeEnable(_r_debug: *mut libc::c_void, _setup_ttmp: bool) -> HSAKMT_STATUS {
    HSAKMT_STATUS_NOT_SUPPORTED
}

#[no_mangle]
pub extern "C" fn hsaKmtRuntimeDisable() -> HSAKMT_STATUS {
    HSAKMT_STATUS_SUCCESS
}

#[no_mangle]
pub extern "C" fn hsaKmtSetTrapHandler(
    _node: u32,
    _base: *mut libc::c_void,
    _size: u64,
    _buffer: *mut libc::c_void,
    _buffer_size: u64,
) -> HSAKMT_STATUS {
    HSAKMT_STATUS_SUCCESS
}

#[no_mangle]
pub extern "C" fn hsaKmtSVMSetAttr(
    _a: *mut libc::c_void,
    _s: u64,
    _n: u32,
    _attrs: *mut libc::c_void,
) -> HSAKMT_STATUS {
    HSAKMT_STATUS_NOT_SUPPORTED
}

#[no_mangle]
pub extern "C" fn hsaKmtSVMGetAttr(
    _a: *mut libc::c_void,
    _s: u64,
    _n: u32,
    _attrs: *mut libc::c_void,
) -> HSAKMT_STATUS {
    HSAKMT_STATUS_NOT_SUPPORTED
}

#[no_mangle]
pub extern "C" fn hsaKmtShareMemory(_a: *mut libc::c_void, _s: u64, _h: *mut HsaSharedMemoryHandle) -> HSAKMT_STATUS {
    HSAKMT_STATUS_NOT_SUPPORTED
}

#[no_mangle]
pub extern "C" fn hsaKmtRegisterSharedHandle(
    _h: *const HsaSharedMemoryHandle,
    _a: *mut *mut libc::c_void,
    _s: *mut u64,
) -> HSAKMT_STATUS {
    HSAKMT_STATUS_NOT_SUPPORTED
}

#[no_mangle]
pub extern "C" fn hsaKmtRegisterSharedHandleToNodes(
    _h: *const HsaSharedMemoryHandle,
    _a: *mut *mut libc::c_void,
    _s: *mut u64,
    _n: u64,
    _nodes: *mut u32,
) -> HSAKMT_STATUS {
    HSAKMT_STATUS_NOT_SUPPORTED
}

#[no_mangle]
pub extern "C" fn hsaKmtRegisterGraphicsHandleToNodes(
    _h: u64,
    _info: *mut HsaGraphicsResourceInfo,
    _n: u64,
    _nodes: *mut u32,
) -> HSAKMT_STATUS {
    HSAKMT_STATUS_NOT_SUPPORTED
}
