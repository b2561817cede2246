//! The buffer API of `include/cltap_buffer.h`, exported by the layer: C
//! types in, `cltap::tools::buffer_registry` behind. No panic crosses these
//! functions (each runs under `guard`), and a C callback is only ever called
//! on the registry's delivery thread.

use crate::guard::guard;
use cltap::tools::buffer::Policy;
use cltap::tools::buffer_registry::{Callback, RegistryError, GLOBAL};
use std::ffi::{c_char, c_void, CString};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// `cltap_buffer_id_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct BufferId {
    pub handle: u64,
}

/// `cltap_buffer_status_t`.
const SUCCESS: i32 = 0;
const INVALID_ARGUMENT: i32 = 1;
const NOT_FOUND: i32 = 2;
const IN_CALLBACK: i32 = 3;
const INTERNAL: i32 = 4;

/// `cltap_buffer_policy_t`.
const POLICY_DISCARD: u32 = 1;
const POLICY_LOSSLESS: u32 = 2;

/// `cltap_buffer_callback_t`.
type CCallback = unsafe extern "C" fn(BufferId, *const *const c_void, usize, *mut c_void, u64);

fn status(r: Result<(), RegistryError>) -> i32 {
    match r {
        Ok(()) => SUCCESS,
        Err(RegistryError::NotFound) => NOT_FOUND,
        Err(RegistryError::InCallback) => IN_CALLBACK,
        Err(RegistryError::Buffer(_)) => INVALID_ARGUMENT,
    }
}

/// Says once why buffers will stay empty, when they will.
fn warn_if_no_records() {
    static SAID: AtomicBool = AtomicBool::new(false);
    let cfg = super::config();
    let why = if !super::recording() {
        "cltap records nothing (a bad setting, reported above)"
    } else if !cfg.records_calls() {
        "cltap records no calls"
    } else if !cfg.render {
        "CLTAP_RENDER=0: records reach buffers as they are rendered, and nothing is rendered"
    } else {
        return;
    };
    if !SAID.swap(true, Ordering::AcqRel) {
        cltap::warn!("cltap_create_buffer: {why}; buffers will receive no records");
    }
}

/// # Safety
/// `buffer` is NULL or writable; `callback` is NULL or a function of the header's type accepting
/// `user_data`.
#[no_mangle]
pub unsafe extern "C" fn cltap_create_buffer(
    size: usize,
    watermark: usize,
    policy: u32,
    callback: Option<CCallback>,
    user_data: *mut c_void,
    buffer: *mut BufferId,
) -> i32 {
    guard(INTERNAL, || {
        let policy = match policy {
            POLICY_DISCARD => Policy::Discard,
            POLICY_LOSSLESS => Policy::Lossless,
            _ => return INVALID_ARGUMENT,
        };
        let (Some(f), false) = (callback, buffer.is_null()) else { return INVALID_ARGUMENT };
        let data = user_data as usize;
        let cb: Callback = Arc::new(move |id, records, drops| {
            let ptrs: Vec<*const c_void> = records.iter().map(|r| r.as_ptr() as *const c_void).collect();
            // SAFETY: the tool's callback, with the arguments the header documents.
            unsafe { f(BufferId { handle: id }, ptrs.as_ptr(), ptrs.len(), data as *mut c_void, drops) };
        });
        match GLOBAL.create(size, watermark, policy, cb) {
            Ok(id) => {
                // SAFETY: `buffer` is valid for this access (# Safety).
                unsafe { *buffer = BufferId { handle: id } };
                warn_if_no_records();
                SUCCESS
            }
            Err(e) => status(Err(e)),
        }
    })
}

/// # Safety
/// None beyond the C ABI: `buffer` is an id, checked.
#[no_mangle]
pub unsafe extern "C" fn cltap_configure_buffer(buffer: BufferId, records: u32) -> i32 {
    guard(INTERNAL, || status(GLOBAL.configure(buffer.handle, records)))
}

/// # Safety
/// None beyond the C ABI: `buffer` is an id, checked.
#[no_mangle]
pub unsafe extern "C" fn cltap_flush_buffer(buffer: BufferId) -> i32 {
    guard(INTERNAL, || status(GLOBAL.flush(buffer.handle)))
}

/// # Safety
/// None beyond the C ABI: `buffer` is an id, checked.
#[no_mangle]
pub unsafe extern "C" fn cltap_destroy_buffer(buffer: BufferId) -> i32 {
    guard(INTERNAL, || status(GLOBAL.destroy(buffer.handle)))
}

#[no_mangle]
pub extern "C" fn cltap_buffer_status_string(s: i32) -> *const c_char {
    match s {
        SUCCESS => c"CLTAP_BUFFER_SUCCESS",
        INVALID_ARGUMENT => c"CLTAP_BUFFER_ERROR_INVALID_ARGUMENT",
        NOT_FOUND => c"CLTAP_BUFFER_ERROR_NOT_FOUND",
        IN_CALLBACK => c"CLTAP_BUFFER_ERROR_IN_CALLBACK",
        INTERNAL => c"CLTAP_BUFFER_ERROR_INTERNAL",
        _ => c"unknown status",
    }
    .as_ptr()
}

/// Every function's name, NUL-terminated, by `meta::global_index`.
fn names() -> &'static [CString] {
    static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
    NAMES.get_or_init(|| {
        (0..).map_while(cltap::meta::by_global_index).map(|f| CString::new(f.name).unwrap_or_default()).collect()
    })
}

/// # Safety
/// `record` is NULL or a record a buffer delivered, read during its callback.
#[no_mangle]
pub unsafe extern "C" fn cltap_record_name(record: *const c_void) -> *const c_char {
    use cltap::trace::record::*;
    guard(c"unknown".as_ptr(), || {
        if record.is_null() {
            return c"unknown".as_ptr();
        }
        // SAFETY: the caller passes a record header (48 bytes).
        // SAFETY: `record as *const Header` is readable (# Safety).
        let h: Header = unsafe { std::ptr::read_unaligned(record as *const Header) };
        if let Some(n) = cltap::meta::global_index(h.kind, h.fn_id).and_then(|i| names().get(i)) {
            return n.as_ptr();
        }
        match h.kind {
            KIND_HSA_DISPATCH => c"hsa dispatch",
            KIND_HSA_COPY => c"hsa async copy",
            KIND_HSA_AGENT => c"hsa agent",
            KIND_HSA_COUNTERS => c"hsa counters",
            KIND_COUNTER_PLAN => c"counter plan",
            KIND_KERNEL_INFO => c"kernel info",
            KIND_HSA_KERNEL => c"hsa kernel",
            KIND_NOTE => c"note",
            _ => c"unknown",
        }
        .as_ptr()
    })
}
