//! Facts about the C types that appear in the description.

use crate::{CallbackKind, PropKind};

/// Handles of objects whose first field is an ICD dispatch table: the loader
/// routes calls through them, so ICD mode must wrap them.
pub const DISPATCHABLE: &[&str] = &[
    "cl_platform_id",
    "cl_device_id",
    "cl_context",
    "cl_command_queue",
    "cl_mem",
    "cl_program",
    "cl_kernel",
    "cl_event",
    "cl_sampler",
];

/// Handles that only reach the driver through extension function pointers.
pub const OPAQUE_HANDLES: &[&str] = &[
    "cl_semaphore_khr",
    "cl_command_buffer_khr",
    "cl_mutable_command_khr",
    "cl_accelerator_intel",
];

pub fn is_dispatchable(t: &str) -> bool {
    DISPATCHABLE.contains(&t)
}

pub fn is_handle(t: &str) -> bool {
    is_dispatchable(t) || OPAQUE_HANDLES.contains(&t)
}

pub fn prop_kind(t: &str) -> Option<PropKind> {
    Some(match t {
        "cl_context_properties" => PropKind::Context,
        "cl_queue_properties" | "cl_queue_properties_khr" => PropKind::Queue,
        "cl_mem_properties" => PropKind::Mem,
        "cl_sampler_properties" => PropKind::Sampler,
        "cl_pipe_properties" => PropKind::Pipe,
        "cl_device_partition_property" | "cl_device_partition_property_ext" => PropKind::Partition,
        "cl_semaphore_properties_khr" => PropKind::Semaphore,
        "cl_command_buffer_properties_khr" => PropKind::CommandBuffer,
        "cl_mem_properties_intel" => PropKind::MemIntel,
        "cl_command_properties_khr" => PropKind::Command,
        _ => return None,
    })
}

pub fn callback_kind(t: &str) -> Option<CallbackKind> {
    Some(match t {
        "cl_cb_context_notify" => CallbackKind::ContextNotify,
        "cl_cb_program_notify" => CallbackKind::ProgramNotify,
        "cl_cb_event_notify" => CallbackKind::EventNotify,
        "cl_cb_mem_notify" => CallbackKind::MemNotify,
        "cl_cb_context_destructor" => CallbackKind::ContextDestructor,
        "cl_cb_svm_free" => CallbackKind::SvmFree,
        "cl_cb_native_kernel" => CallbackKind::NativeKernel,
        _ => return None,
    })
}

/// Strips one trailing `*` and a leading `const`.
pub fn pointee(c_type: &str) -> &str {
    let t = c_type.strip_suffix('*').unwrap_or(c_type).trim_end();
    let t = t.strip_suffix("const").unwrap_or(t).trim_end();
    t.strip_prefix("const ").unwrap_or(t)
}

pub fn is_pointer(c_type: &str) -> bool {
    c_type.ends_with('*')
}

pub fn is_const_pointer(c_type: &str) -> bool {
    is_pointer(c_type) && c_type.starts_with("const ")
}

/// The Rust type a parameter of this C type is carried as in generated code.
/// Pointers, handles and callbacks are all pointer-sized; scalars keep their
/// OpenCL type name, resolved against `cltap::sys` (opencl-sys plus the few
/// extension types it lacks), so the compiler checks every width.
pub fn rust_type(c_type: &str) -> String {
    if is_pointer(c_type) || is_handle(c_type) || callback_kind(c_type).is_some() {
        return "*mut ::core::ffi::c_void".to_string();
    }
    match c_type {
        "size_t" => "usize".to_string(),
        "intptr_t" => "isize".to_string(),
        "unsigned int" => "u32".to_string(),
        t => format!("::cltap::sys::{t}"),
    }
}

/// Whether a by-value type can be carried (see [`rust_type`]): anything the
/// compiler can resolve against `cltap::sys`, or a plain C integer.
pub fn abi_ok(c_type: &str) -> Option<()> {
    let ok = is_pointer(c_type)
        || is_handle(c_type)
        || callback_kind(c_type).is_some()
        || matches!(c_type, "size_t" | "intptr_t" | "unsigned int")
        || c_type.starts_with("cl_")
        || c_type.starts_with("CL");
    ok.then_some(())
}
