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
    "cl_perfcounter_amd",
    "cl_threadtrace_amd",
    "cl_file_amd",
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
        "cl_perfcounter_property" => PropKind::PerfCounterAmd,
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

// ---- HSA (`api/hsa.api`, api/HSA.md) ----

/// HSA handles passed by value: structs of one `uint64_t handle` (one
/// integer register, as a `uint64_t` would be), and `hsa_ext_module_t`, a
/// pointer. Printed as 16 hex digits.
pub const HSA_HANDLES: &[&str] = &[
    "hsa_agent_t",
    "hsa_signal_t",
    "hsa_signal_group_t",
    "hsa_region_t",
    "hsa_isa_t",
    "hsa_wavefront_t",
    "hsa_cache_t",
    "hsa_code_object_t",
    "hsa_code_symbol_t",
    "hsa_code_object_reader_t",
    "hsa_executable_t",
    "hsa_executable_symbol_t",
    "hsa_loaded_code_object_t",
    "hsa_callback_data_t",
    "hsa_amd_memory_pool_t",
    "hsa_ext_program_t",
    "hsa_ext_module_t",
    "hsa_ext_image_t",
    "hsa_ext_sampler_t",
];

/// HSA scalars: the C type, the Rust type it is carried as, its size in
/// bytes. Enums are 4 bytes (every HSA enum is non-negative, so gcc makes
/// them `unsigned int`); the sizes are checked against the headers by
/// `tests/hsa_trace.rs`.
pub const HSA_SCALARS: &[(&str, &str, usize)] = &[
    ("bool", "bool", 1),
    ("uint16_t", "u16", 2),
    ("uint32_t", "u32", 4),
    ("uint64_t", "u64", 8),
    ("int32_t", "i32", 4),
    ("int", "i32", 4),
    ("size_t", "usize", 8),
    ("hsa_signal_value_t", "i64", 8),
    ("hsa_file_t", "i32", 4),
    ("hsa_queue_type32_t", "u32", 4),
    ("hsa_status_t", "u32", 4),
    ("hsa_access_permission_t", "u32", 4),
    ("hsa_agent_info_t", "u32", 4),
    ("hsa_cache_info_t", "u32", 4),
    ("hsa_code_object_info_t", "u32", 4),
    ("hsa_code_object_type_t", "u32", 4),
    ("hsa_code_symbol_info_t", "u32", 4),
    ("hsa_default_float_rounding_mode_t", "u32", 4),
    ("hsa_executable_info_t", "u32", 4),
    ("hsa_executable_state_t", "u32", 4),
    ("hsa_executable_symbol_info_t", "u32", 4),
    ("hsa_flush_mode_t", "u32", 4),
    ("hsa_fp_type_t", "u32", 4),
    ("hsa_isa_info_t", "u32", 4),
    ("hsa_machine_model_t", "u32", 4),
    ("hsa_profile_t", "u32", 4),
    ("hsa_region_info_t", "u32", 4),
    ("hsa_round_method_t", "u32", 4),
    ("hsa_signal_condition_t", "u32", 4),
    ("hsa_system_info_t", "u32", 4),
    ("hsa_wait_state_t", "u32", 4),
    ("hsa_wavefront_info_t", "u32", 4),
    ("hsa_amd_agent_memory_pool_info_t", "u32", 4),
    ("hsa_amd_coherency_type_t", "u32", 4),
    ("hsa_amd_copy_direction_t", "u32", 4),
    ("hsa_amd_memory_pool_info_t", "u32", 4),
    ("hsa_amd_queue_priority_t", "u32", 4),
    ("hsa_ext_image_data_layout_t", "u32", 4),
    ("hsa_ext_image_geometry_t", "u32", 4),
    ("hsa_ext_program_info_t", "u32", 4),
];

/// HSA callbacks: the name `api/hsa.api` uses and the C function-pointer
/// type it stands for, written as clang prints it (as in
/// `hsa-api/hsa_api_list.h`). The header's own typedefs
/// stand for themselves.
pub const HSA_CALLBACKS: &[(&str, &str)] = &[
    ("hsa_cb_agent", "hsa_status_t (*)(hsa_agent_t, void *)"),
    ("hsa_cb_region", "hsa_status_t (*)(hsa_region_t, void *)"),
    ("hsa_cb_isa", "hsa_status_t (*)(hsa_isa_t, void *)"),
    ("hsa_cb_wavefront", "hsa_status_t (*)(hsa_wavefront_t, void *)"),
    ("hsa_cb_cache", "hsa_status_t (*)(hsa_cache_t, void *)"),
    ("hsa_cb_memory_pool", "hsa_status_t (*)(hsa_amd_memory_pool_t, void *)"),
    ("hsa_cb_code_symbol", "hsa_status_t (*)(hsa_code_object_t, hsa_code_symbol_t, void *)"),
    ("hsa_cb_executable_symbol", "hsa_status_t (*)(hsa_executable_t, hsa_executable_symbol_t, void *)"),
    ("hsa_cb_agent_symbol", "hsa_status_t (*)(hsa_executable_t, hsa_agent_t, hsa_executable_symbol_t, void *)"),
    ("hsa_cb_module", "hsa_status_t (*)(hsa_ext_program_t, hsa_ext_module_t, void *)"),
    ("hsa_cb_serialize_alloc", "hsa_status_t (*)(size_t, hsa_callback_data_t, void **)"),
    ("hsa_cb_queue_error", "void (*)(hsa_status_t, hsa_queue_t *, void *)"),
    ("hsa_cb_async", "void (*)(void *)"),
    ("hsa_cb_alloc", "void *(*)(size_t)"),
    ("hsa_amd_signal_handler", "hsa_amd_signal_handler"),
    ("hsa_amd_system_event_callback_t", "hsa_amd_system_event_callback_t"),
    ("hsa_amd_queue_intercept_handler", "hsa_amd_queue_intercept_handler"),
    ("hsa_amd_runtime_queue_notifier", "hsa_amd_runtime_queue_notifier"),
    ("hsa_amd_deallocation_callback_t", "hsa_amd_deallocation_callback_t"),
];

pub fn hsa_is_handle(t: &str) -> bool {
    HSA_HANDLES.contains(&t)
}

/// The Rust type and size of an HSA scalar.
pub fn hsa_scalar(t: &str) -> Option<(&'static str, usize)> {
    HSA_SCALARS.iter().find(|(c, _, _)| *c == t).map(|(_, r, n)| (*r, *n))
}

/// The C type an HSA callback name stands for.
pub fn hsa_callback(t: &str) -> Option<&'static str> {
    HSA_CALLBACKS.iter().find(|(n, _)| *n == t).map(|(_, c)| *c)
}

/// The size of one element of an HSA type: scalars, handles, pointers.
pub fn hsa_size(t: &str) -> Option<usize> {
    if is_pointer(t) || hsa_is_handle(t) || hsa_callback(t).is_some() {
        return Some(8);
    }
    hsa_scalar(t).map(|(_, n)| n)
}

/// The Rust type a by-value HSA parameter or result is carried as in
/// generated code; `None` for a type of unknown width. Handles are `u64`,
/// pointers and callbacks `*mut c_void`.
pub fn hsa_rust_type(c_type: &str) -> Option<String> {
    if is_pointer(c_type) || hsa_callback(c_type).is_some() || c_type == "hsa_ext_module_t" {
        return Some("*mut ::core::ffi::c_void".to_string());
    }
    if hsa_is_handle(c_type) {
        return Some("u64".to_string());
    }
    hsa_scalar(c_type).map(|(r, _)| r.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every HSA scalar's size and every `[struct=N]`, as gcc sees them in
    /// Debian's headers (libhsa-runtime-dev and gcc: scripts/setup.sh).
    #[test]
    fn hsa_sizes_are_the_headers() {
        assert!(
            std::path::Path::new("/usr/include/hsa/hsa.h").is_file(),
            "/usr/include/hsa/hsa.h is missing: install libhsa-runtime-dev (scripts/setup.sh)"
        );
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../api/hsa.api")).unwrap();
        let api = crate::parse_hsa(&text).unwrap();
        let mut checks: Vec<(String, usize)> = HSA_SCALARS.iter().map(|(c, _, n)| (c.to_string(), *n)).collect();
        checks.extend(HSA_HANDLES.iter().map(|h| (h.to_string(), 8)));
        for f in &api.functions {
            for p in &f.params {
                if let crate::Role::ByValue { size } = p.role {
                    checks.push((p.c_type.clone(), size as usize));
                }
            }
        }
        let dir = std::env::temp_dir().join(format!("cltap-apidesc-sizes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut c = String::from("#include <stdio.h>\n#include <stdbool.h>\n#include \"hsa.h\"\n#include \"hsa_ext_amd.h\"\n#include \"hsa_ext_image.h\"\n#include \"hsa_ext_finalize.h\"\nint main(void) {\n");
        for (t, _) in &checks {
            c += &format!("  printf(\"%zu %zu\\n\", sizeof({t}), _Alignof({t}));\n");
        }
        c += "  return 0;\n}\n";
        std::fs::write(dir.join("sizes.c"), c).unwrap();
        let built = std::process::Command::new("gcc")
            .args(["-std=c11", "-I/usr/include/hsa", "-o"])
            .arg(dir.join("sizes"))
            .arg(dir.join("sizes.c"))
            .status()
            .expect("run gcc");
        let out = std::process::Command::new(dir.join("sizes")).output();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(built.success(), "sizes.c does not compile");
        let out = String::from_utf8(out.unwrap().stdout).unwrap();
        let got: Vec<&str> = out.lines().collect();
        assert_eq!(got.len(), checks.len());
        for ((t, want), line) in checks.iter().zip(got) {
            let (size, align) = line.split_once(' ').unwrap();
            assert_eq!(size.parse::<usize>().unwrap(), *want, "sizeof({t})");
            // Carried as a word, an integer of its size or `[u64; N]`.
            let align: usize = align.parse().unwrap();
            assert!(align == (*want).min(8), "_Alignof({t}) = {align}");
        }
    }
}
