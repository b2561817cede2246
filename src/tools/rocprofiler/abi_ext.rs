//! The rest of rocprofiler 5.2.3's `inc/rocprofiler.h`: the context pool's
//! types and the HSA callbacks' (`rocprofiler_set_hsa_callbacks`), laid out
//! as gcc lays out that header on x86-64 (`tests/rocprofiler_v1.rs` holds
//! them to it field by field).

use std::ffi::{c_char, c_void};

/// `rocprofiler_pool_entry_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct PoolEntry {
    pub context: *mut c_void,
    pub payload: *mut c_void,
}

/// `rocprofiler_pool_handler_t`.
pub type PoolHandler = unsafe extern "C" fn(*const PoolEntry, *mut c_void) -> bool;

/// `rocprofiler_pool_properties_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct PoolProperties {
    pub num_entries: u32,
    pub payload_bytes: u32,
    pub handler: Option<PoolHandler>,
    pub handler_arg: *mut c_void,
}

/// `rocprofiler_hsa_cb_id_t`.
pub mod cb_id {
    pub const ALLOCATE: u32 = 0;
    pub const DEVICE: u32 = 1;
    pub const MEMCOPY: u32 = 2;
    pub const SUBMIT: u32 = 3;
    pub const KSYMBOL: u32 = 4;
    pub const CODEOBJ: u32 = 5;
}

/// `allocate` of `rocprofiler_hsa_callback_data_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct AllocateData {
    pub ptr: *const c_void,
    /// 0: the area is freed.
    pub size: usize,
    pub segment: u32,
    pub global_flag: u32,
    pub is_code: i32,
}

/// `device`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DeviceData {
    pub device_type: u32,
    pub id: u32,
    pub agent: u64,
    pub ptr: *const c_void,
}

/// `memcopy`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct MemcopyData {
    pub dst: *const c_void,
    pub src: *const c_void,
    pub size: usize,
}

/// `submit`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct SubmitData {
    pub packet: *const c_void,
    /// Not NULL for a kernel dispatch.
    pub kernel_name: *const c_char,
    pub queue: *mut c_void,
    pub device_type: u32,
    pub device_id: u32,
}

/// `ksymbol`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct KsymbolData {
    pub object: u64,
    pub name: *const c_char,
    pub name_length: u32,
    pub unload: i32,
}

/// `codeobj`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CodeobjData {
    pub storage_type: u32,
    pub storage_file: i32,
    pub memory_base: u64,
    pub memory_size: u64,
    pub load_base: u64,
    pub load_size: u64,
    pub load_delta: u64,
    pub uri_length: u32,
    pub uri: *mut c_char,
    pub unload: i32,
}

/// `rocprofiler_hsa_callback_data_t`: one member per callback id.
#[repr(C)]
#[derive(Clone, Copy)]
pub union HsaCallbackData {
    pub allocate: AllocateData,
    pub device: DeviceData,
    pub memcopy: MemcopyData,
    pub submit: SubmitData,
    pub ksymbol: KsymbolData,
    pub codeobj: CodeobjData,
}

/// `rocprofiler_hsa_callback_fun_t`.
pub type HsaCallback = unsafe extern "C" fn(u32, *const HsaCallbackData, *mut c_void) -> u32;

/// `rocprofiler_hsa_callbacks_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct HsaCallbacks {
    pub allocate: Option<HsaCallback>,
    pub device: Option<HsaCallback>,
    pub memcopy: Option<HsaCallback>,
    pub submit: Option<HsaCallback>,
    pub ksymbol: Option<HsaCallback>,
    pub codeobj: Option<HsaCallback>,
}

/// `rocprofiler_time_id_t`: CLOCK_REALTIME … CLOCK_MONOTONIC_RAW.
pub const TIME_ID_COUNT: u32 = 5;

const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(size_of::<PoolEntry>() == 16 && size_of::<PoolProperties>() == 24);
    assert!(size_of::<HsaCallbackData>() == 72 && offset_of!(CodeobjData, uri) == 56);
    assert!(size_of::<HsaCallbacks>() == 48);
};

/// Sizes and offsets, named as in C, for the layout test.
pub fn layout() -> Vec<(&'static str, usize)> {
    use std::mem::{offset_of as off, size_of};
    vec![
        ("rocprofiler_pool_entry_t", size_of::<PoolEntry>()),
        ("rocprofiler_pool_entry_t.context", off!(PoolEntry, context)),
        ("rocprofiler_pool_entry_t.payload", off!(PoolEntry, payload)),
        ("rocprofiler_pool_properties_t", size_of::<PoolProperties>()),
        ("rocprofiler_pool_properties_t.num_entries", off!(PoolProperties, num_entries)),
        ("rocprofiler_pool_properties_t.payload_bytes", off!(PoolProperties, payload_bytes)),
        ("rocprofiler_pool_properties_t.handler", off!(PoolProperties, handler)),
        ("rocprofiler_pool_properties_t.handler_arg", off!(PoolProperties, handler_arg)),
        ("rocprofiler_hsa_callback_data_t", size_of::<HsaCallbackData>()),
        ("rocprofiler_hsa_callback_data_t.allocate.size", off!(AllocateData, size)),
        ("rocprofiler_hsa_callback_data_t.allocate.is_code", off!(AllocateData, is_code)),
        ("rocprofiler_hsa_callback_data_t.device.ptr", off!(DeviceData, ptr)),
        ("rocprofiler_hsa_callback_data_t.memcopy.size", off!(MemcopyData, size)),
        ("rocprofiler_hsa_callback_data_t.submit.queue", off!(SubmitData, queue)),
        ("rocprofiler_hsa_callback_data_t.submit.device_id", off!(SubmitData, device_id)),
        ("rocprofiler_hsa_callback_data_t.ksymbol.name", off!(KsymbolData, name)),
        ("rocprofiler_hsa_callback_data_t.ksymbol.unload", off!(KsymbolData, unload)),
        ("rocprofiler_hsa_callback_data_t.codeobj.uri", off!(CodeobjData, uri)),
        ("rocprofiler_hsa_callback_data_t.codeobj.unload", off!(CodeobjData, unload)),
        ("rocprofiler_hsa_callbacks_t", size_of::<HsaCallbacks>()),
        ("rocprofiler_hsa_callbacks_t.submit", off!(HsaCallbacks, submit)),
        ("rocprofiler_hsa_callbacks_t.codeobj", off!(HsaCallbacks, codeobj)),
    ]
}
