//! rocprofiler v1's public types, laid out as `inc/rocprofiler.h` of
//! ROCm/rocprofiler declares them at tag `rocm-5.2.3` (the header is the
//! same from 5.0.0 to 5.4.x; 5.5 wraps it for v2). `include/rocprofiler/
//! rocprofiler.h` is cltap's C re-declaration; `tests/rocprofiler_v1.rs`
//! compiles it with gcc and compares every offset below with gcc's.
//!
//! C enums are `int`-sized: they are `u32` fields here, with the values as
//! constants. The `const` assertions are the x86-64 offsets worked out from
//! the real header, so that a change to these types that breaks the ABI
//! fails the build, not just the test.

use crate::hsa::aqlprofile::Parameter;
use std::ffi::{c_char, c_void};

/// `ROCPROFILER_VERSION_MAJOR` / `_MINOR` of the header followed: the
/// library reports the same (rocprofiler 5.x's `rocprofiler_version_major`
/// returns the macro).
pub const VERSION_MAJOR: u32 = 8;
pub const VERSION_MINOR: u32 = 0;

/// `hsa_status_t` values used here (`hsa.h`).
pub mod status {
    pub const SUCCESS: u32 = 0x0;
    pub const INFO_BREAK: u32 = 0x1;
    pub const ERROR: u32 = 0x1000;
    pub const INVALID_ARGUMENT: u32 = 0x1001;
    pub const NOT_INITIALIZED: u32 = 0x100B;
}

/// `rocprofiler_feature_kind_t`.
pub const FEATURE_KIND_METRIC: u32 = 0;
pub const FEATURE_KIND_TRACE: u32 = 1;
pub const FEATURE_KIND_SPM_MOD: u32 = 2;
pub const FEATURE_KIND_PCSMP_MOD: u32 = 4;

/// `rocprofiler_data_kind_t`.
pub const DATA_KIND_UNINIT: u32 = 0;
pub const DATA_KIND_INT32: u32 = 1;
pub const DATA_KIND_INT64: u32 = 2;
pub const DATA_KIND_FLOAT: u32 = 3;
pub const DATA_KIND_DOUBLE: u32 = 4;
pub const DATA_KIND_BYTES: u32 = 5;

/// `rocprofiler_mode_t` (a mask).
pub const MODE_STANDALONE: u32 = 1;
pub const MODE_CREATEQUEUE: u32 = 2;
pub const MODE_SINGLEGROUP: u32 = 4;

/// `rocprofiler_info_kind_t`.
pub const INFO_KIND_METRIC: u32 = 0;
pub const INFO_KIND_METRIC_COUNT: u32 = 1;
pub const INFO_KIND_TRACE: u32 = 2;
pub const INFO_KIND_TRACE_COUNT: u32 = 3;
pub const INFO_KIND_TRACE_PARAMETER: u32 = 4;
pub const INFO_KIND_TRACE_PARAMETER_COUNT: u32 = 5;

/// `hsa_agent_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Agent {
    pub handle: u64,
}

/// `result_bytes` of `rocprofiler_data_t` (trace output; never filled by cltap).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct DataBytes {
    pub ptr: *mut c_void,
    pub size: u32,
    pub instance_count: u32,
    pub copy: bool,
}

/// The anonymous union of `rocprofiler_data_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union DataValue {
    pub result_int32: u32,
    pub result_int64: u64,
    pub result_float: f32,
    pub result_double: f64,
    pub result_bytes: DataBytes,
}

/// `rocprofiler_data_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Data {
    pub kind: u32,
    pub value: DataValue,
}

impl Data {
    pub const UNINIT: Data = Data {
        kind: DATA_KIND_UNINIT,
        value: DataValue {
            result_bytes: DataBytes { ptr: std::ptr::null_mut(), size: 0, instance_count: 0, copy: false },
        },
    };

    pub fn int64(v: u64) -> Data {
        let mut d = Data::UNINIT;
        d.kind = DATA_KIND_INT64;
        d.value.result_int64 = v;
        d
    }

    pub fn double(v: f64) -> Data {
        let mut d = Data::UNINIT;
        d.kind = DATA_KIND_DOUBLE;
        d.value.result_double = v;
        d
    }
}

impl std::fmt::Debug for Data {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // SAFETY: the kind says which member was written; all are plain data.
        unsafe {
            match self.kind {
                DATA_KIND_INT64 => write!(f, "Int64({})", self.value.result_int64),
                DATA_KIND_DOUBLE => write!(f, "Double({})", self.value.result_double),
                DATA_KIND_INT32 => write!(f, "Int32({})", self.value.result_int32),
                DATA_KIND_FLOAT => write!(f, "Float({})", self.value.result_float),
                k => write!(f, "Data(kind {k})"),
            }
        }
    }
}

/// `counter` of the feature's name union (a counter by block and event).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct FeatureCounter {
    pub block: *const c_char,
    pub event: u32,
}

/// The anonymous union of `rocprofiler_feature_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union FeatureName {
    pub name: *const c_char,
    pub counter: FeatureCounter,
}

/// `rocprofiler_feature_t`. Its `data` is inline (the library API documentation's draft has a pointer).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Feature {
    pub kind: u32,
    pub u: FeatureName,
    /// `rocprofiler_parameter_t` is `hsa_ven_amd_aqlprofile_parameter_t`.
    pub parameters: *const Parameter,
    pub parameter_count: u32,
    pub data: Data,
}

impl Feature {
    /// A metric feature named `name` (which must outlive the feature).
    pub fn metric(name: *const c_char) -> Feature {
        // Written through `counter` so that all 16 bytes of the union are
        // initialised; `name` shares `counter.block`'s bytes.
        Feature {
            kind: FEATURE_KIND_METRIC,
            u: FeatureName { counter: FeatureCounter { block: name, event: 0 } },
            parameters: std::ptr::null(),
            parameter_count: 0,
            data: Data::UNINIT,
        }
    }
}

/// `rocprofiler_group_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Group {
    pub index: u32,
    pub features: *mut *mut Feature,
    pub feature_count: u32,
    pub context: *mut c_void,
}

impl Group {
    pub const EMPTY: Group =
        Group { index: 0, features: std::ptr::null_mut(), feature_count: 0, context: std::ptr::null_mut() };
}

/// `rocprofiler_handler_t`: called when a group's data is ready.
pub type Handler = unsafe extern "C" fn(Group, *mut c_void) -> bool;

/// `rocprofiler_properties_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Properties {
    pub queue: *mut c_void,
    pub queue_depth: u32,
    pub handler: Option<Handler>,
    pub handler_arg: *mut c_void,
}

/// `rocprofiler_dispatch_record_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DispatchRecord {
    pub dispatch: u64,
    pub begin: u64,
    pub end: u64,
    pub complete: u64,
}

/// `rocprofiler_callback_data_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CallbackData {
    pub agent: Agent,
    pub agent_index: u32,
    /// `const hsa_queue_t*`.
    pub queue: *const c_void,
    pub queue_index: u64,
    pub queue_id: u32,
    /// `hsa_signal_t`: the application's completion signal.
    pub completion_signal: u64,
    /// `const hsa_kernel_dispatch_packet_t*`.
    pub packet: *const c_void,
    pub kernel_name: *const c_char,
    pub kernel_object: u64,
    /// `const amd_kernel_code_t*`.
    pub kernel_code: *const c_void,
    pub thread_id: u32,
    pub record: *const DispatchRecord,
}

/// `rocprofiler_callback_t`.
pub type DispatchCallback = unsafe extern "C" fn(*const CallbackData, *mut c_void, *mut Group) -> u32;
/// The queue create and destroy callbacks: `hsa_status_t (*)(hsa_queue_t*, void*)`.
pub type QueueCallback = unsafe extern "C" fn(*mut c_void, *mut c_void) -> u32;

/// `rocprofiler_queue_callbacks_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct QueueCallbacks {
    pub dispatch: Option<DispatchCallback>,
    pub create: Option<QueueCallback>,
    pub destroy: Option<QueueCallback>,
}

/// `metric` of `rocprofiler_info_data_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct InfoMetric {
    pub name: *const c_char,
    pub instances: u32,
    /// NULL for a hardware counter.
    pub expr: *const c_char,
    pub description: *const c_char,
    pub block_name: *const c_char,
    pub block_counters: u32,
}

/// `trace` of `rocprofiler_info_data_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct InfoTrace {
    pub name: *const c_char,
    pub description: *const c_char,
    pub parameter_count: u32,
}

/// `trace_parameter` of `rocprofiler_info_data_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct InfoTraceParameter {
    pub code: u32,
    pub trace_name: *const c_char,
    pub parameter_name: *const c_char,
    pub description: *const c_char,
}

/// The anonymous union of `rocprofiler_info_data_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union InfoUnion {
    pub metric: InfoMetric,
    pub trace: InfoTrace,
    pub trace_parameter: InfoTraceParameter,
}

/// `rocprofiler_info_data_t` (passed by value to the info callbacks).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct InfoData {
    pub agent_index: u32,
    pub kind: u32,
    pub u: InfoUnion,
}

impl std::fmt::Debug for InfoData {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "InfoData(agent {}, kind {})", self.agent_index, self.kind)
    }
}

/// `rocprofiler_info_query_t`: a union without a tag.
#[repr(C)]
#[derive(Clone, Copy)]
pub union InfoQuery {
    pub info_kind: u32,
    pub trace_name: *const c_char,
}

/// `hsa_status_t (*)(const rocprofiler_info_data_t, void*)`.
pub type InfoCallback = unsafe extern "C" fn(InfoData, *mut c_void) -> u32;

// The real header's x86-64 layout.
const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(size_of::<Data>() == 32 && offset_of!(Data, value) == 8);
    assert!(size_of::<Feature>() == 72);
    assert!(
        offset_of!(Feature, u) == 8
            && offset_of!(Feature, parameters) == 24
            && offset_of!(Feature, parameter_count) == 32
            && offset_of!(Feature, data) == 40
    );
    assert!(size_of::<Group>() == 32 && offset_of!(Group, feature_count) == 16 && offset_of!(Group, context) == 24);
    assert!(size_of::<Properties>() == 32 && offset_of!(Properties, handler) == 16);
    assert!(size_of::<DispatchRecord>() == 32);
    assert!(size_of::<CallbackData>() == 96);
    assert!(
        offset_of!(CallbackData, queue_id) == 32
            && offset_of!(CallbackData, completion_signal) == 40
            && offset_of!(CallbackData, thread_id) == 80
            && offset_of!(CallbackData, record) == 88
    );
    assert!(size_of::<QueueCallbacks>() == 24);
    assert!(size_of::<InfoData>() == 56 && offset_of!(InfoData, u) == 8);
    assert!(offset_of!(InfoMetric, block_counters) == 40);
    assert!(size_of::<InfoQuery>() == 8);
};

/// Every structure's size and every field's offset, named as in C
/// (`struct.field`, union members through their path), for the layout test.
pub fn layout() -> Vec<(String, usize)> {
    use std::mem::{offset_of as off, size_of};
    let mut v: Vec<(&str, usize)> = Vec::new();
    let f = off!(Feature, u);
    v.extend([
        ("rocprofiler_feature_t", size_of::<Feature>()),
        ("rocprofiler_feature_t.kind", off!(Feature, kind)),
        ("rocprofiler_feature_t.name", f),
        ("rocprofiler_feature_t.counter.block", f + off!(FeatureCounter, block)),
        ("rocprofiler_feature_t.counter.event", f + off!(FeatureCounter, event)),
        ("rocprofiler_feature_t.parameters", off!(Feature, parameters)),
        ("rocprofiler_feature_t.parameter_count", off!(Feature, parameter_count)),
        ("rocprofiler_feature_t.data", off!(Feature, data)),
    ]);
    let d = off!(Data, value);
    v.extend([
        ("rocprofiler_data_t", size_of::<Data>()),
        ("rocprofiler_data_t.kind", off!(Data, kind)),
        ("rocprofiler_data_t.result_int32", d),
        ("rocprofiler_data_t.result_int64", d),
        ("rocprofiler_data_t.result_float", d),
        ("rocprofiler_data_t.result_double", d),
        ("rocprofiler_data_t.result_bytes.ptr", d + off!(DataBytes, ptr)),
        ("rocprofiler_data_t.result_bytes.size", d + off!(DataBytes, size)),
        ("rocprofiler_data_t.result_bytes.instance_count", d + off!(DataBytes, instance_count)),
        ("rocprofiler_data_t.result_bytes.copy", d + off!(DataBytes, copy)),
    ]);
    v.extend([
        ("rocprofiler_group_t", size_of::<Group>()),
        ("rocprofiler_group_t.index", off!(Group, index)),
        ("rocprofiler_group_t.features", off!(Group, features)),
        ("rocprofiler_group_t.feature_count", off!(Group, feature_count)),
        ("rocprofiler_group_t.context", off!(Group, context)),
        ("rocprofiler_properties_t", size_of::<Properties>()),
        ("rocprofiler_properties_t.queue", off!(Properties, queue)),
        ("rocprofiler_properties_t.queue_depth", off!(Properties, queue_depth)),
        ("rocprofiler_properties_t.handler", off!(Properties, handler)),
        ("rocprofiler_properties_t.handler_arg", off!(Properties, handler_arg)),
        ("rocprofiler_dispatch_record_t", size_of::<DispatchRecord>()),
        ("rocprofiler_dispatch_record_t.dispatch", off!(DispatchRecord, dispatch)),
        ("rocprofiler_dispatch_record_t.begin", off!(DispatchRecord, begin)),
        ("rocprofiler_dispatch_record_t.end", off!(DispatchRecord, end)),
        ("rocprofiler_dispatch_record_t.complete", off!(DispatchRecord, complete)),
    ]);
    v.extend([
        ("rocprofiler_callback_data_t", size_of::<CallbackData>()),
        ("rocprofiler_callback_data_t.agent", off!(CallbackData, agent)),
        ("rocprofiler_callback_data_t.agent_index", off!(CallbackData, agent_index)),
        ("rocprofiler_callback_data_t.queue", off!(CallbackData, queue)),
        ("rocprofiler_callback_data_t.queue_index", off!(CallbackData, queue_index)),
        ("rocprofiler_callback_data_t.queue_id", off!(CallbackData, queue_id)),
        ("rocprofiler_callback_data_t.completion_signal", off!(CallbackData, completion_signal)),
        ("rocprofiler_callback_data_t.packet", off!(CallbackData, packet)),
        ("rocprofiler_callback_data_t.kernel_name", off!(CallbackData, kernel_name)),
        ("rocprofiler_callback_data_t.kernel_object", off!(CallbackData, kernel_object)),
        ("rocprofiler_callback_data_t.kernel_code", off!(CallbackData, kernel_code)),
        ("rocprofiler_callback_data_t.thread_id", off!(CallbackData, thread_id)),
        ("rocprofiler_callback_data_t.record", off!(CallbackData, record)),
        ("rocprofiler_queue_callbacks_t", size_of::<QueueCallbacks>()),
        ("rocprofiler_queue_callbacks_t.dispatch", off!(QueueCallbacks, dispatch)),
        ("rocprofiler_queue_callbacks_t.create", off!(QueueCallbacks, create)),
        ("rocprofiler_queue_callbacks_t.destroy", off!(QueueCallbacks, destroy)),
    ]);
    let u = off!(InfoData, u);
    v.extend([
        ("rocprofiler_info_data_t", size_of::<InfoData>()),
        ("rocprofiler_info_data_t.agent_index", off!(InfoData, agent_index)),
        ("rocprofiler_info_data_t.kind", off!(InfoData, kind)),
        ("rocprofiler_info_data_t.metric.name", u + off!(InfoMetric, name)),
        ("rocprofiler_info_data_t.metric.instances", u + off!(InfoMetric, instances)),
        ("rocprofiler_info_data_t.metric.expr", u + off!(InfoMetric, expr)),
        ("rocprofiler_info_data_t.metric.description", u + off!(InfoMetric, description)),
        ("rocprofiler_info_data_t.metric.block_name", u + off!(InfoMetric, block_name)),
        ("rocprofiler_info_data_t.metric.block_counters", u + off!(InfoMetric, block_counters)),
        ("rocprofiler_info_data_t.trace.name", u + off!(InfoTrace, name)),
        ("rocprofiler_info_data_t.trace.description", u + off!(InfoTrace, description)),
        ("rocprofiler_info_data_t.trace.parameter_count", u + off!(InfoTrace, parameter_count)),
        ("rocprofiler_info_data_t.trace_parameter.code", u + off!(InfoTraceParameter, code)),
        ("rocprofiler_info_data_t.trace_parameter.trace_name", u + off!(InfoTraceParameter, trace_name)),
        ("rocprofiler_info_data_t.trace_parameter.parameter_name", u + off!(InfoTraceParameter, parameter_name)),
        ("rocprofiler_info_data_t.trace_parameter.description", u + off!(InfoTraceParameter, description)),
        ("rocprofiler_info_query_t", size_of::<InfoQuery>()),
        ("rocprofiler_info_query_t.info_kind", 0),
        ("rocprofiler_info_query_t.trace_parameter.trace_name", 0),
    ]);
    v.extend(super::abi_ext::layout());
    let mut out: Vec<(String, usize)> = v.into_iter().map(|(n, o)| (n.to_string(), o)).collect();
    for (n, o) in crate::tools::toollib_settings::RocprofilerSettings::layout() {
        let name =
            if n == "sizeof" { "rocprofiler_settings_t".to_string() } else { format!("rocprofiler_settings_t.{n}") };
        out.push((name, o));
    }
    out
}
