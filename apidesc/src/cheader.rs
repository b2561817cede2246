//! `include/cltap.h`, cltap's tracer API for tools, written from the two
//! API descriptions: a function id per described function, a parameter
//! struct per function (a pointer to each parameter, so a callback can read
//! and change them), and the tracer functions `libcltap_layer.so` exports.
//!
//! The OpenCL structs use the types of Khronos' `<CL/cl.h>` (OpenCL 3.0
//! headers) where that header has them; a type only an extension header has
//! (or only a newer one) gets a `cltap_` typedef of its underlying type, so
//! the header compiles against any 3.0 `cl.h`. The HSA structs use ROCr's
//! own types (`<hsa/hsa.h>` and its extension headers).

use crate::types::{self, callback_kind, is_dispatchable};
use crate::{Api, CallbackKind, Function, RetKind};
use std::fmt::Write;

/// Domains of the id space (the id's high 16 bits).
pub const DOMAIN_OPENCL: u32 = 0;
pub const DOMAIN_HSA: u32 = 1;

/// `<CL/cl.h>` (and `cl_platform.h`) types used as they are.
const CL_CORE: &[&str] = &[
    "void",
    "char",
    "unsigned char",
    "unsigned int",
    "size_t",
    "intptr_t",
    "wchar_t",
    "cl_int",
    "cl_uint",
    "cl_ulong",
    "cl_bool",
    "cl_bitfield",
    "cl_properties",
    "cl_GLenum",
    "cl_GLint",
    "cl_GLuint",
    "cl_device_type",
    "cl_platform_info",
    "cl_device_info",
    "cl_command_queue_properties",
    "cl_device_partition_property",
    "cl_context_properties",
    "cl_context_info",
    "cl_queue_properties",
    "cl_command_queue_info",
    "cl_mem_flags",
    "cl_svm_mem_flags",
    "cl_mem_object_type",
    "cl_mem_info",
    "cl_mem_migration_flags",
    "cl_image_info",
    "cl_buffer_create_type",
    "cl_addressing_mode",
    "cl_filter_mode",
    "cl_sampler_info",
    "cl_map_flags",
    "cl_pipe_properties",
    "cl_pipe_info",
    "cl_program_info",
    "cl_program_build_info",
    "cl_kernel_info",
    "cl_kernel_arg_info",
    "cl_kernel_work_group_info",
    "cl_kernel_sub_group_info",
    "cl_event_info",
    "cl_profiling_info",
    "cl_sampler_properties",
    "cl_kernel_exec_info",
    "cl_mem_properties",
    "cl_image_format",
    "cl_image_desc",
    "cl_buffer_region",
];

/// Extension types, by what Khronos' headers define them as.
const CL_EXT: &[(&str, &str)] = &[
    ("CLeglDisplayKHR", "void*"),
    ("CLeglImageKHR", "void*"),
    ("CLeglSyncKHR", "void*"),
    ("cl_GLsync", "void*"),
    ("cl_gl_object_type", "cl_uint"),
    ("cl_gl_context_info", "cl_uint"),
    ("cl_gl_texture_info", "cl_uint"),
    ("cl_egl_image_properties_khr", "intptr_t"),
    ("cl_accelerator_intel", "void*"),
    ("cl_accelerator_info_intel", "cl_uint"),
    ("cl_accelerator_type_intel", "cl_uint"),
    ("cl_perfcounter_amd", "void*"),
    ("cl_perfcounter_property", "cl_ulong"),
    ("cl_perfcounter_info", "cl_uint"),
    ("cl_set_device_clock_mode_input_amd", "cl_uint"),
    ("cl_threadtrace_amd", "void*"),
    ("cl_thread_trace_param", "cl_uint"),
    ("cl_threadtrace_info", "cl_uint"),
    ("cl_threadtrace_command_name_amd", "cl_uint"),
    ("cl_file_amd", "void*"),
    ("cl_file_flags_amd", "cl_uint"),
    ("cl_file_info_amd", "cl_uint"),
    ("cl_kernel_info_amd", "cl_uint"),
    ("cl_mem_advice_intel", "cl_uint"),
    ("cl_mem_info_intel", "cl_uint"),
    ("cl_mem_properties_intel", "cl_properties"),
    ("cl_svm_mem_flags_arm", "cl_bitfield"),
    ("cl_kernel_exec_info_arm", "cl_uint"),
    ("cl_import_properties_arm", "intptr_t"),
    ("cl_command_buffer_khr", "void*"),
    ("cl_command_buffer_info_khr", "cl_uint"),
    ("cl_command_buffer_properties_khr", "cl_properties"),
    ("cl_command_buffer_update_type_khr", "cl_uint"),
    ("cl_command_properties_khr", "cl_properties"),
    ("cl_mutable_command_khr", "void*"),
    ("cl_mutable_command_info_khr", "cl_uint"),
    ("cl_sync_point_khr", "cl_uint"),
    ("cl_semaphore_khr", "void*"),
    ("cl_semaphore_info_khr", "cl_uint"),
    ("cl_semaphore_payload_khr", "cl_ulong"),
    ("cl_semaphore_properties_khr", "cl_properties"),
    ("cl_external_semaphore_handle_type_khr", "cl_uint"),
    ("cl_device_partition_property_ext", "cl_ulong"),
    ("cl_queue_properties_khr", "cl_properties"),
    ("cl_mem_device_address_ext", "cl_ulong"),
];

/// The extension types and what they are, for a check of their widths.
pub fn cl_ext_types() -> &'static [(&'static str, &'static str)] {
    CL_EXT
}

/// Callback types that only ROCr's `hsa_api_trace.h` (a C++ header)
/// defines, written out as it has them.
const HSA_TRACE_TYPES: &[(&str, &str)] = &[
    (
        "hsa_amd_queue_intercept_handler",
        "typedef void (*cltap_hsa_amd_queue_intercept_handler)(const void* pkts, uint64_t pkt_count, uint64_t user_pkt_index, void* data, void (*writer)(const void* pkts, uint64_t pkt_count));",
    ),
    ("hsa_amd_runtime_queue_notifier", "typedef void (*cltap_hsa_amd_runtime_queue_notifier)(const hsa_queue_t* queue, hsa_agent_t agent, void* data);"),
];

/// The C function types behind api/FORMAT.md's callback names.
pub(crate) fn cl_callback(k: CallbackKind) -> Option<(&'static str, &'static str)> {
    Some(match k {
        CallbackKind::ContextNotify => {
            ("void", "const char* errinfo, const void* private_info, size_t cb, void* user_data")
        }
        CallbackKind::ProgramNotify => ("void", "cl_program program, void* user_data"),
        CallbackKind::EventNotify => ("void", "cl_event event, cl_int event_command_status, void* user_data"),
        CallbackKind::MemNotify => ("void", "cl_mem memobj, void* user_data"),
        CallbackKind::ContextDestructor => ("void", "cl_context context, void* user_data"),
        CallbackKind::SvmFree => {
            ("void", "cl_command_queue queue, cl_uint num_svm_pointers, void* svm_pointers[], void* user_data")
        }
        CallbackKind::NativeKernel => ("void", "void* args"),
        CallbackKind::Hsa => return None,
    })
}

/// A C type split as `const`/`volatile` qualifiers, base, stars.
fn split(c_type: &str) -> (&str, &str, &str) {
    let stars = c_type.len() - c_type.trim_end_matches('*').len();
    let body = c_type[..c_type.len() - stars].trim_end();
    let mut q = 0;
    for w in ["const ", "volatile "] {
        if body[q..].starts_with(w) {
            q += w.len();
        }
    }
    (&body[..q], &body[q..], &c_type[c_type.len() - stars..])
}

/// Which API a type is written for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dialect {
    OpenCl,
    Hsa,
}

/// The type the header writes for `c_type`; the `cltap_` typedefs it needs
/// are added to `typedefs` (name, definition).
fn c_type_for(c_type: &str, d: Dialect, typedefs: &mut Vec<(String, String)>) -> Result<String, String> {
    let (quals, base, stars) = split(c_type);
    let mut add = |name: String, def: String| {
        if !typedefs.iter().any(|(n, _)| *n == name) {
            typedefs.push((name.clone(), def));
        }
        name
    };
    let mapped = match d {
        Dialect::OpenCl => {
            if CL_CORE.contains(&base) || is_dispatchable(base) {
                base.to_string()
            } else if let Some((_, under)) = CL_EXT.iter().find(|(n, _)| *n == base) {
                let name = format!("cltap_{base}");
                add(name.clone(), format!("typedef {under} {name}; /* {base} */"))
            } else if let Some((ret, args)) = callback_kind(base).and_then(cl_callback) {
                let name = format!("cltap_{base}");
                add(name.clone(), format!("typedef {ret} (CL_CALLBACK* {name})({args});"))
            } else {
                return Err(format!("`{base}`: not a <CL/cl.h> type nor in apidesc/src/cheader.rs's extension types"));
            }
        }
        Dialect::Hsa => match types::hsa_callback(base) {
            _ if HSA_TRACE_TYPES.iter().any(|(n, _)| *n == base) => {
                let (_, def) = HSA_TRACE_TYPES.iter().find(|(n, _)| *n == base).unwrap();
                add(format!("cltap_{base}"), def.to_string())
            }
            // The header's own callback typedefs stand for themselves.
            Some(t) if !t.contains('(') => base.to_string(),
            Some(t) => {
                let name = format!("cltap_{base}");
                add(name.clone(), format!("typedef {};", t.replacen("(*)", &format!("(*{name})"), 1)))
            }
            None => base.to_string(),
        },
    };
    Ok(format!("{quals}{mapped}{stars}"))
}

/// The C type of a function's result, as the epilogue's `result` points at it.
fn result_type(f: &Function) -> &str {
    match f.ret {
        RetKind::Void => "void (result is NULL)",
        _ => &f.ret_type,
    }
}

fn params_struct(s: &mut String, f: &Function, d: Dialect, typedefs: &mut Vec<(String, String)>) -> Result<(), String> {
    if f.params.is_empty() {
        writeln!(s, "/* {}: no parameters (params is NULL); result: {}. */", f.name, result_type(f)).unwrap();
        return Ok(());
    }
    writeln!(s, "/* {}: result: {}. */", f.name, result_type(f)).unwrap();
    writeln!(s, "typedef struct cltap_params_{} {{", f.name).unwrap();
    for p in &f.params {
        let t = c_type_for(&p.c_type, d, typedefs).map_err(|e| format!("{}({}): {e}", f.name, p.name))?;
        writeln!(s, "    {t}* {};", p.name).unwrap();
    }
    writeln!(s, "}} cltap_params_{};", f.name).unwrap();
    Ok(())
}

/// One API's parameter structs, behind the typedefs they use.
fn api_structs(api: &Api, d: Dialect) -> Result<String, String> {
    let (mut typedefs, mut body) = (Vec::new(), String::new());
    for f in &api.functions {
        params_struct(&mut body, f, d, &mut typedefs)?;
    }
    let mut s = String::new();
    for (_, def) in &typedefs {
        writeln!(s, "{def}").unwrap();
    }
    s.push('\n');
    s.push_str(&body);
    Ok(s)
}

/// The whole header. Fails, naming the function and parameter, on a type
/// it cannot write.
pub fn tracer_header(ocl: &Api, hsa: &Api) -> Result<String, String> {
    let mut s = String::from(HEAD);
    writeln!(s, "#define CLTAP_API_OPENCL_COUNT {}u", ocl.functions.len()).unwrap();
    writeln!(s, "#define CLTAP_API_HSA_COUNT {}u\n", hsa.functions.len()).unwrap();
    writeln!(s, "typedef enum cltap_api_id {{").unwrap();
    for (domain, prefix, api) in [(DOMAIN_OPENCL, "OPENCL", ocl), (DOMAIN_HSA, "HSA", hsa)] {
        for (i, f) in api.functions.iter().enumerate() {
            writeln!(s, "    CLTAP_API_{prefix}_{} = 0x{:05x},", f.name, (domain << 16) | i as u32).unwrap();
        }
    }
    writeln!(s, "    CLTAP_API_ID_FORCE_32BIT = 0x7fffffff\n}} cltap_api_id_t;\n").unwrap();
    s.push_str(TRACER);
    s.push_str(OPENCL_OPEN);
    s.push_str(&api_structs(ocl, Dialect::OpenCl)?);
    s.push_str("#endif /* CLTAP_NO_OPENCL */\n\n");
    s.push_str(HSA_OPEN);
    s.push_str(&api_structs(hsa, Dialect::Hsa)?);
    s.push_str("#endif /* CLTAP_NO_HSA */\n");
    s.push_str(TAIL);
    Ok(s)
}

const HEAD: &str = r#"/*
 * cltap.h: cltap's tracer API, for tools running inside an application that
 * cltap intercepts (Level Zero's tracer model, for OpenCL and HSA calls).
 *
 * @generated by icd-layer/build.rs (apidesc/src/cheader.rs) from
 * api/opencl.api and api/hsa.api. Do not edit: change the descriptions and
 * rebuild; tests/tracer.rs checks that this copy is the generated one.
 * Documentation and a complete example: docs/tracer.md.
 *
 * - A tracer has prologue and epilogue callbacks per function. A callback
 *   gets the function's id, a pointer to the call's parameter struct
 *   (cltap_params_<function>: a pointer to each parameter; a prologue may
 *   change the parameters through them and the call gets the new values),
 *   the call's result (epilogue; NULL in a prologue and for void
 *   functions), the tracer's user data, and the call's instance data: a
 *   uint64_t slot per call and tracer, 0 when the prologue starts, whose
 *   value the epilogue receives.
 * - Pairing: if a prologue ran for a call, its epilogue runs, even when the
 *   tracer is disabled meanwhile; if it did not (tracer enabled mid-call),
 *   the epilogue does not. Epilogues run in the reverse order of the
 *   prologues (tracers in creation order).
 * - Calls made on a thread while one of its callbacks runs are not traced.
 * - cltap_tracer_destroy waits until no other thread is in one of the
 *   tracer's callbacks or between its prologue and epilogue; the calling
 *   thread's own pending epilogues are skipped. After it returns no
 *   callback of the tracer runs. It may be called from inside a traced call
 *   or a callback.
 * - Callbacks can be changed only while the tracer is disabled.
 * - All functions may be called from any thread.
 */
#ifndef CLTAP_H
#define CLTAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library these functions are in. It has this soname, so a tool finds
 * the copy the OpenCL loader or the HSA runtime loaded with
 * dlopen(CLTAP_LIBRARY, RTLD_NOW | RTLD_NOLOAD). */
#define CLTAP_LIBRARY "libcltap_layer.so"

/* ---- Function ids ---------------------------------------------------------
 * One 32-bit space: the domain in the high 16 bits, the function's position
 * in its API description (api/opencl.api, api/hsa.api) in the low 16. */
#define CLTAP_DOMAIN_OPENCL 0u
#define CLTAP_DOMAIN_HSA 1u
#define CLTAP_API_ID(domain, index) (((uint32_t)(domain) << 16) | (uint32_t)(index))
#define CLTAP_API_DOMAIN(api_id) ((uint32_t)(api_id) >> 16)
#define CLTAP_API_INDEX(api_id) ((uint32_t)(api_id) & 0xffffu)
"#;

const TRACER: &str = r#"/* ---- Status codes ---------------------------------------------------------- */
typedef int32_t cltap_status_t;
#define CLTAP_SUCCESS 0
#define CLTAP_ERROR_INVALID_ARGUMENT 1 /* a required pointer is NULL */
#define CLTAP_ERROR_INVALID_TRACER 2   /* not a tracer, or destroyed */
#define CLTAP_ERROR_INVALID_API_ID 3   /* no function has this id */
#define CLTAP_ERROR_INVALID_DOMAIN 4
#define CLTAP_ERROR_TRACER_ENABLED 5   /* callbacks change only while disabled */
#define CLTAP_ERROR_PASS_THROUGH 6     /* cltap's configuration is invalid: it only forwards calls */
#define CLTAP_ERROR_INTERNAL 7

/* ---- Tracers --------------------------------------------------------------- */
typedef struct cltap_tracer_s* cltap_tracer_t;

/* params: the function's cltap_params_<function>* (NULL if it has no
 * parameters). result: the function's result (epilogue; NULL in a prologue
 * and for void functions). instance_data: this call's slot for this tracer. */
typedef void (*cltap_tracer_callback_t)(uint32_t api_id, void* params, const void* result,
                                        void* user_data, uint64_t* instance_data);

/* A new tracer, disabled and without callbacks. */
cltap_status_t cltap_tracer_create(void* user_data, cltap_tracer_t* tracer);
/* The callbacks of one function (NULL: none). */
cltap_status_t cltap_tracer_set_callback(cltap_tracer_t tracer, uint32_t api_id,
                                         cltap_tracer_callback_t prologue,
                                         cltap_tracer_callback_t epilogue);
/* The same callbacks for every function of a domain. */
cltap_status_t cltap_tracer_set_domain_callbacks(cltap_tracer_t tracer, uint32_t domain,
                                                 cltap_tracer_callback_t prologue,
                                                 cltap_tracer_callback_t epilogue);
cltap_status_t cltap_tracer_enable(cltap_tracer_t tracer);
cltap_status_t cltap_tracer_disable(cltap_tracer_t tracer);
cltap_status_t cltap_tracer_destroy(cltap_tracer_t tracer);
/* The function's name, or NULL for an unknown id. */
const char* cltap_api_name(uint32_t api_id);
/* A short description of a status code. */
const char* cltap_status_string(cltap_status_t status);
/* The text of the cltap.h the library was built with. */
const char* cltap_tracer_header(void);

/* The same functions as pointer types, for dlsym. */
typedef cltap_status_t (*cltap_tracer_create_fn)(void*, cltap_tracer_t*);
typedef cltap_status_t (*cltap_tracer_set_callback_fn)(cltap_tracer_t, uint32_t, cltap_tracer_callback_t,
                                                       cltap_tracer_callback_t);
typedef cltap_status_t (*cltap_tracer_set_domain_callbacks_fn)(cltap_tracer_t, uint32_t,
                                                               cltap_tracer_callback_t,
                                                               cltap_tracer_callback_t);
typedef cltap_status_t (*cltap_tracer_enable_fn)(cltap_tracer_t);
typedef cltap_status_t (*cltap_tracer_disable_fn)(cltap_tracer_t);
typedef cltap_status_t (*cltap_tracer_destroy_fn)(cltap_tracer_t);
typedef const char* (*cltap_api_name_fn)(uint32_t);
typedef const char* (*cltap_status_string_fn)(cltap_status_t);

/* All of them, as cltap_tracer_api_load fills them in. */
typedef struct cltap_tracer_api {
    cltap_tracer_create_fn create;
    cltap_tracer_set_callback_fn set_callback;
    cltap_tracer_set_domain_callbacks_fn set_domain_callbacks;
    cltap_tracer_enable_fn enable;
    cltap_tracer_disable_fn disable;
    cltap_tracer_destroy_fn destroy;
    cltap_api_name_fn api_name;
    cltap_status_string_fn status_string;
} cltap_tracer_api_t;

/* ---- The collection window (docs/collection.md) -------------------------- */
/* Outside the window calls are forwarded and nothing is recorded, counted or
 * timed. cltap_pause closes it, cltap_resume opens it (CLTAP_START_PAUSED=1:
 * closed until the first cltap_resume). Each opening and closing is in the
 * files with its time and reason. Both do nothing when cltap passes calls
 * through (a bad setting, a rank not traced). */
void cltap_pause(void);
void cltap_resume(void);
typedef void (*cltap_pause_fn)(void);
typedef void (*cltap_resume_fn)(void);

#ifndef CLTAP_NO_DLOPEN
#include <dlfcn.h>
#include <string.h>
/* dlsym's answer into a function pointer, without a cast ISO C forbids. */
static inline void cltap_sym_(void* lib, const char* name, void* fn_slot) {
    void* p = dlsym(lib, name);
    memcpy(fn_slot, &p, sizeof p);
}
/* Fills `api` from the cltap already loaded in the process (never loads
 * another copy). Returns 0, or -1 when cltap is not loaded (yet: the OpenCL
 * loader loads it at the application's first OpenCL call, the HSA runtime
 * in hsa_init) or lacks a function. */
static inline int cltap_tracer_api_load(cltap_tracer_api_t* api) {
    void* lib = dlopen(CLTAP_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
    if (lib == NULL) return -1;
    cltap_sym_(lib, "cltap_tracer_create", &api->create);
    cltap_sym_(lib, "cltap_tracer_set_callback", &api->set_callback);
    cltap_sym_(lib, "cltap_tracer_set_domain_callbacks", &api->set_domain_callbacks);
    cltap_sym_(lib, "cltap_tracer_enable", &api->enable);
    cltap_sym_(lib, "cltap_tracer_disable", &api->disable);
    cltap_sym_(lib, "cltap_tracer_destroy", &api->destroy);
    cltap_sym_(lib, "cltap_api_name", &api->api_name);
    cltap_sym_(lib, "cltap_status_string", &api->status_string);
    /* cltap stays loaded until the process ends: the reference is not needed. */
    dlclose(lib);
    return api->create && api->set_callback && api->set_domain_callbacks && api->enable &&
                   api->disable && api->destroy && api->api_name && api->status_string
               ? 0
               : -1;
}
/* cltap_pause (paused != 0) or cltap_resume, when cltap is loaded; without
 * it, nothing. Returns 0 when cltap took the call, else -1. */
static inline int cltap_window_pause(int paused) {
    void* lib = dlopen(CLTAP_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
    if (lib == NULL) return -1;
    void (*fn)(void) = NULL;
    cltap_sym_(lib, paused ? "cltap_pause" : "cltap_resume", &fn);
    dlclose(lib);
    if (fn == NULL) return -1;
    fn();
    return 0;
}
#endif /* CLTAP_NO_DLOPEN */

"#;

const OPENCL_OPEN: &str = r#"/* ---- OpenCL parameter structs (define CLTAP_NO_OPENCL to leave them out) --- */
#ifndef CLTAP_NO_OPENCL
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#if CL_TARGET_OPENCL_VERSION < 300
#error "cltap.h's OpenCL structs need CL_TARGET_OPENCL_VERSION 300 (or define CLTAP_NO_OPENCL)"
#endif
#include <CL/cl.h>

"#;

const HSA_OPEN: &str = r#"/* ---- HSA parameter structs (define CLTAP_NO_HSA to leave them out) -------- */
#ifndef CLTAP_NO_HSA
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ext_finalize.h>
#include <hsa/hsa_ext_image.h>

"#;

const TAIL: &str = r#"
#ifdef __cplusplus
}
#endif

#endif /* CLTAP_H */
"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn apis() -> (Api, Api) {
        let read = |f: &str| std::fs::read_to_string(format!("{}/../api/{f}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        (crate::parse(&read("opencl.api")).unwrap(), crate::parse_hsa(&read("hsa.api")).unwrap())
    }

    #[test]
    fn splits_types() {
        assert_eq!(split("const size_t*"), ("const ", "size_t", "*"));
        assert_eq!(split("volatile hsa_signal_value_t**"), ("volatile ", "hsa_signal_value_t", "**"));
        assert_eq!(split("const unsigned char**"), ("const ", "unsigned char", "**"));
        assert_eq!(split("cl_uint"), ("", "cl_uint", ""));
    }

    #[test]
    fn maps_types() {
        let mut t = Vec::new();
        assert_eq!(c_type_for("const cl_event*", Dialect::OpenCl, &mut t).unwrap(), "const cl_event*");
        assert_eq!(
            c_type_for("const cl_semaphore_khr*", Dialect::OpenCl, &mut t).unwrap(),
            "const cltap_cl_semaphore_khr*"
        );
        assert_eq!(c_type_for("cl_cb_event_notify", Dialect::OpenCl, &mut t).unwrap(), "cltap_cl_cb_event_notify");
        assert_eq!(c_type_for("hsa_cb_agent", Dialect::Hsa, &mut t).unwrap(), "cltap_hsa_cb_agent");
        assert_eq!(c_type_for("hsa_amd_signal_handler", Dialect::Hsa, &mut t).unwrap(), "hsa_amd_signal_handler");
        assert_eq!(
            c_type_for("hsa_amd_runtime_queue_notifier", Dialect::Hsa, &mut t).unwrap(),
            "cltap_hsa_amd_runtime_queue_notifier"
        );
        assert!(t.iter().any(|(_, d)| d == "typedef void* cltap_cl_semaphore_khr; /* cl_semaphore_khr */"));
        assert!(t.iter().any(|(_, d)| d == "typedef hsa_status_t (*cltap_hsa_cb_agent)(hsa_agent_t, void *);"));
        assert!(c_type_for("cl_unheard_of", Dialect::OpenCl, &mut t).unwrap_err().contains("cl_unheard_of"));
    }

    #[test]
    fn the_header_has_ids_and_structs() {
        let (ocl, hsa) = apis();
        let h = tracer_header(&ocl, &hsa).unwrap();
        let ndr = ocl.functions.iter().position(|f| f.name == "clEnqueueNDRangeKernel").unwrap();
        assert!(h.contains(&format!("    CLTAP_API_OPENCL_clEnqueueNDRangeKernel = 0x{ndr:05x},\n")));
        let q = hsa.functions.iter().position(|f| f.name == "hsa_queue_create").unwrap();
        assert!(h.contains(&format!("    CLTAP_API_HSA_hsa_queue_create = 0x{:05x},\n", 0x10000 + q)));
        assert!(h.contains(
            "typedef struct cltap_params_clEnqueueNDRangeKernel {\n    cl_command_queue* command_queue;\n    cl_kernel* kernel;\n    cl_uint* work_dim;\n    const size_t** global_work_offset;\n"
        ));
        assert!(h.contains("typedef struct cltap_params_hsa_queue_create {\n    hsa_agent_t* agent;\n"));
        assert!(h.contains("    hsa_queue_t*** queue;\n} cltap_params_hsa_queue_create;"));
        assert!(h.contains("/* hsa_init: no parameters (params is NULL); result: hsa_status_t. */"));
        // Every typedef a struct uses comes before the first struct.
        let first = h.find("typedef struct cltap_params_").unwrap();
        assert!(h.find("cltap_cl_cb_context_notify)(").unwrap() < first);
    }
}
