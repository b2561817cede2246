//! Generates the layer's wrappers and dispatch tables from `api/opencl.api`.
//! Each described function gets two wrappers: one for loader-layer mode
//! (forward to the next table) and one for ICD mode (translate handles, call
//! the driver through its object's table). See `api/FORMAT.md`.
//!
//! From `api/hsa.api` it generates one wrapper per HSA table entry and the
//! tables' layout for `OnLoad`, after holding the description to ROCr's
//! `hsa_api_trace.h` (see [`hsa_layout`] and `api/HSA.md`).

use cltap_apidesc::types::{is_dispatchable, is_handle, rust_type};
use cltap_apidesc::{Api, CallbackKind, Dispatch, Function, Len, Param, PropKind, RetKind, Role};
use std::collections::HashMap;
use std::fmt::Write;

/// Functions whose wrappers are written by hand in `src/opencl/layer.rs`.
const LAYER_SPECIAL: &[&str] = &["clGetExtensionFunctionAddress", "clGetExtensionFunctionAddressForPlatform"];
/// Functions whose wrappers are written by hand in `src/opencl/icd.rs`.
const ICD_SPECIAL: &[&str] = &[
    "clGetPlatformIDs",
    "clIcdGetPlatformIDsKHR",
    "clGetExtensionFunctionAddress",
    "clGetExtensionFunctionAddressForPlatform",
    "clUnloadCompiler",
];

fn main() {
    let desc = concat!(env!("CARGO_MANIFEST_DIR"), "/../api/opencl.api");
    println!("cargo:rerun-if-changed={desc}");
    println!("cargo:rerun-if-changed=build.rs");
    // Calls from the layer to its own exported symbols must never be bound
    // to a loader's same-named export (FACTS.md §4).
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic");
    let text = std::fs::read_to_string(desc).expect("read api/opencl.api");
    let api = match cltap_apidesc::parse(&text) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let ext_idx = ext_indices(&api);
    // Three files, so that the layer's modules import one another one way:
    // the names and numbers (`src/opencl/api.rs`) below everything, each
    // mode's wrappers and tables at the top of that mode's module.
    for (file, text) in [("api.rs", generate_api(&api, &ext_idx)), ("layer.rs", generate_mode(&api, &ext_idx, Mode::Layer)), ("icd.rs", generate_mode(&api, &ext_idx, Mode::Icd))] {
        std::fs::write(out.join(file), text).unwrap_or_else(|e| panic!("write {file}: {e}"));
    }
    hsa(&out);
}

// ---------------------------------------------------------------- HSA ----

/// Stops the build with `msg` (cargo shows it under the build script's stderr).
fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(1);
}

/// The description of the HSA tables, held to the header, and the code
/// generated from it: `hsa_api.rs` (names, ids, the tables' layout) and
/// `hsa_wrappers.rs` (one wrapper per entry, the saved originals).
fn hsa(out: &std::path::Path) {
    let desc = concat!(env!("CARGO_MANIFEST_DIR"), "/../api/hsa.api");
    println!("cargo:rerun-if-changed={desc}");
    let text = std::fs::read_to_string(desc).unwrap_or_else(|e| fail(&format!("read api/hsa.api: {e}")));
    let api = cltap_apidesc::parse_hsa(&text).unwrap_or_else(|e| fail(&e.to_string()));
    let layout = hsa_layout(&api);
    for (file, text) in [("hsa_api.rs", generate_hsa_api(&api, &layout)), ("hsa_wrappers.rs", generate_hsa_wrappers(&api))] {
        std::fs::write(out.join(file), text).unwrap_or_else(|e| panic!("write {file}: {e}"));
    }
}

/// Per `@table`: (name, HsaApiTable offset, size in bytes, major version).
struct Layout {
    tables: Vec<(String, usize, usize, u32)>,
    version_bytes: usize,
    root_bytes: usize,
    root_major: u32,
}

/// Sizes in bytes FACTS.md §5 gives for Debian 12's 5.2.3 header, as a check
/// of the scanner's arithmetic: `ApiTableVersion` (4 × uint32_t), then one
/// pointer per entry; `HsaApiTable` is a version and 4 pointers.
const KNOWN_SIZES: [(&str, usize); 6] = [
    ("ApiTableVersion", 16),
    ("HsaApiTable", 48),
    ("CoreApiTable", 1016),
    ("AmdExtTable", 400),
    ("FinalizerExtTable", 64),
    ("ImageExtTable", 120),
];

/// Holds `api/hsa.api` to ROCr's `hsa_api_trace.h` (Debian's
/// libhsa-runtime-dev; `CLTAP_HSA_HEADER` names another copy): each
/// `@table` section's names, in order, are its struct's members without
/// `_fn`; each table is its version plus one pointer per entry, of the sizes
/// FACTS.md §5 gives; `HsaApiTable` points at core, amd, finalizer, image in
/// that order. Then every declaration's result and parameter types against
/// the signatures clang read from the same header
/// (`hsa-double/include/hsa_double_api_list.h`). Any difference stops the
/// build: a wrapper in the wrong entry would call the wrong function.
fn hsa_layout(api: &cltap_apidesc::Api) -> Layout {
    use cltap_apidesc::hsa_header;
    println!("cargo:rerun-if-env-changed=CLTAP_HSA_HEADER");
    let path = std::env::var("CLTAP_HSA_HEADER").unwrap_or_else(|_| "/usr/include/hsa/hsa_api_trace.h".to_string());
    println!("cargo:rerun-if-changed={path}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        fail(&format!(
            "cannot read {path} ({e}): cltap's HSA tables (api/hsa.api) are checked against ROCr's header at build time. \
             Install Debian's libhsa-runtime-dev (`apt-get install libhsa-runtime-dev`; scripts/setup.sh installs it)."
        ))
    });
    let h = hsa_header::scan(&text).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    hsa_header::check(api, &h).unwrap_or_else(|e| fail(&format!("{e} (the header: {path})")));
    let mut sizes = vec![("ApiTableVersion".to_string(), h.version_bytes), ("HsaApiTable".to_string(), h.root_bytes)];
    sizes.extend(h.tables.iter().map(|t| (t.name.clone(), t.bytes)));
    for (name, want) in KNOWN_SIZES {
        let got = sizes.iter().find(|(n, _)| n == name).map(|(_, b)| *b);
        if got != Some(want) {
            fail(&format!("{path}: {name} comes to {got:?} bytes, FACTS.md §5 says {want}"));
        }
    }
    let mut tables = Vec::new();
    for (api_name, s) in hsa_header::STRUCTS {
        let t = h.table(s).expect("checked");
        let ours = api.tables.iter().find(|t| t.name == api_name).expect("checked");
        // 8 bytes per entry after the version: what `minor_id` is compared with.
        assert_eq!(t.bytes, h.version_bytes + 8 * ours.entries);
        tables.push((api_name.to_string(), h.root_offset(api_name).expect("checked"), t.bytes, t.major));
    }
    let list = concat!(env!("CARGO_MANIFEST_DIR"), "/../hsa-double/include/hsa_double_api_list.h");
    println!("cargo:rerun-if-changed={list}");
    let list_text = std::fs::read_to_string(list).unwrap_or_else(|e| fail(&format!("read {list}: {e}")));
    hsa_header::check_signatures(api, &list_text).unwrap_or_else(|e| fail(&e));
    Layout { tables, version_bytes: h.version_bytes, root_bytes: h.root_bytes, root_major: h.root_major }
}

/// Names, ids, which function is `[init]` and `[shutdown]`, and the tables'
/// layout: plain constants for `src/hsa/`.
fn generate_hsa_api(api: &Api, l: &Layout) -> String {
    let mut s = String::new();
    let n = api.functions.len();
    writeln!(s, "// @generated by icd-layer/build.rs from api/hsa.api and hsa_api_trace.h. Do not edit.").unwrap();
    writeln!(s, "/// HSA functions cltap wraps (every table entry).\npub const COUNT: usize = {n};").unwrap();
    writeln!(s, "pub static NAMES: [&str; {n}] = [").unwrap();
    for f in &api.functions {
        writeln!(s, "    {:?},", f.name).unwrap();
    }
    writeln!(s, "];").unwrap();
    writeln!(s, "#[allow(non_upper_case_globals, dead_code)] pub mod id {{").unwrap();
    for (i, f) in api.functions.iter().enumerate() {
        writeln!(s, "    pub const {}: usize = {i};", f.name).unwrap();
    }
    writeln!(s, "}}").unwrap();
    let opt = |i: Option<usize>| i.map_or("None".to_string(), |i| format!("Some({i})"));
    writeln!(s, "/// `[init]`: the call during which the runtime loads its tools.\npub const INIT: Option<usize> = {};", opt(api.functions.iter().position(|f| f.init))).unwrap();
    writeln!(s, "/// `[shutdown]`: the call during which the runtime unloads them.\n#[allow(dead_code)] pub const SHUTDOWN: Option<usize> = {};", opt(api.functions.iter().position(|f| f.shutdown))).unwrap();
    writeln!(s, "/// `sizeof(ApiTableVersion)`: a table's entries start after it.\npub const VERSION_BYTES: usize = {};", l.version_bytes).unwrap();
    writeln!(s, "/// `sizeof(HsaApiTable)`, and its major version.\npub const ROOT_BYTES: usize = {};\npub const ROOT_MAJOR: u32 = {};", l.root_bytes, l.root_major).unwrap();
    writeln!(s, "/// The four tables, in `HsaApiTable`'s order.\npub const TABLES: [TableLayout; {}] = [", l.tables.len()).unwrap();
    for (name, offset, bytes, major) in &l.tables {
        let t = api.tables.iter().find(|t| &t.name == name).unwrap();
        writeln!(s, "    TableLayout {{ name: {name:?}, root_offset: {offset}, first: {}, entries: {}, bytes: {bytes}, major: {major} }},", t.first, t.entries).unwrap();
    }
    writeln!(s, "];").unwrap();
    s
}

fn hsa_rust(c_type: &str, role: &Role) -> String {
    if let Role::ByValue { size } = role {
        return format!("ByValue<{}>", size / 8);
    }
    cltap_apidesc::types::hsa_rust_type(c_type).unwrap_or_else(|| panic!("{c_type}: checked by the parser"))
}

/// One `extern "C"` wrapper per HSA function: open the call's record,
/// forward to the saved original entry, complete the record, return the
/// result unchanged. `[shutdown]` also lets cltap finish its trace once
/// the call (inside which the runtime ran `OnUnload`) has been recorded.
fn generate_hsa_wrappers(api: &Api) -> String {
    let mut s = String::new();
    let n = api.functions.len();
    writeln!(s, "// @generated by icd-layer/build.rs from api/hsa.api. Do not edit.").unwrap();
    writeln!(s, "/// The runtime's own entries, saved by `OnLoad` (0: not replaced).").unwrap();
    writeln!(s, "pub static ORIG: [::core::sync::atomic::AtomicUsize; {n}] = [const {{ ::core::sync::atomic::AtomicUsize::new(0) }}; {n}];").unwrap();
    writeln!(s, "/// cltap's wrapper for each function id.\npub static WRAPPERS: Wrappers = Wrappers([").unwrap();
    for f in &api.functions {
        writeln!(s, "    hsa_{} as *const ::core::ffi::c_void,", f.name).unwrap();
    }
    writeln!(s, "]);").unwrap();
    for (id, f) in api.functions.iter().enumerate() {
        let params: Vec<String> = f.params.iter().map(|p| format!("p_{}: {}", p.name, hsa_rust(&p.c_type, &p.role))).collect();
        let types: Vec<String> = f.params.iter().map(|p| hsa_rust(&p.c_type, &p.role)).collect();
        let args: Vec<String> = f.params.iter().map(|p| format!("p_{}", p.name)).collect();
        // The record's words: what the application passed (a struct passed
        // by value is not recorded).
        let words: Vec<String> = f.params.iter().map(|p| match p.role {
            Role::ByValue { .. } => "0u64".to_string(),
            _ => format!("p_{} as u64", p.name),
        }).collect();
        let ret = match f.ret {
            RetKind::Void => "()".to_string(),
            RetKind::Status => "u32".to_string(),
            _ => cltap_apidesc::types::hsa_rust_type(&f.ret_type).expect("checked by the parser"),
        };
        let (ret_word, failed) = match f.ret {
            RetKind::Void => ("0u64", "false"),
            RetKind::Status => ("r as u64", "!::cltap::trace::capture::hsa_status_ok(r as u64)"),
            _ => ("r as u64", "false"),
        };
        writeln!(s, "#[allow(non_snake_case, unused_variables, clippy::all)]").unwrap();
        writeln!(s, "unsafe extern \"C\" fn hsa_{}({}) -> {ret} {{", f.name, params.join(", ")).unwrap();
        writeln!(s, "    let f: unsafe extern \"C\" fn({}) -> {ret} = ::core::mem::transmute(ORIG[{id}].load(::core::sync::atomic::Ordering::Acquire));", types.join(", ")).unwrap();
        writeln!(s, "    let __app = [{}];", words.join(", ")).unwrap();
        if f.shutdown {
            writeln!(s, "    let __sd = crate::hsa::unload::ShutDown::begin();").unwrap();
        }
        writeln!(s, "    let __t = crate::bracket::enter_hsa({id}, &__app);").unwrap();
        writeln!(s, "    let r = f({});", args.join(", ")).unwrap();
        writeln!(s, "    if __t.on {{ crate::bracket::exit_hsa({id}, __t, {ret_word}, &__app); }} else {{ crate::bracket::done_hsa({id}, {failed}); }}").unwrap();
        if f.shutdown {
            writeln!(s, "    __sd.end();").unwrap();
        }
        writeln!(s, "    r\n}}").unwrap();
    }
    s
}

/// Extension-only functions are numbered for the per-driver pointer table.
fn ext_indices(api: &Api) -> HashMap<String, usize> {
    let mut ext_idx = HashMap::new();
    for f in api.functions.iter().filter(|f| f.slot.is_none() && !f.local) {
        let i = ext_idx.len();
        ext_idx.insert(f.name.clone(), i);
    }
    assert!(ext_idx.len() <= 256, "raise cltap::exts::MAX_EXTS");
    ext_idx
}

/// Names, ids and slot numbers: plain constants, for the hand-written code.
fn generate_api(api: &Api, ext_idx: &HashMap<String, usize>) -> String {
    let mut s = String::new();
    let n = api.functions.len();
    assert!(n <= 512, "raise cltap::calls::MAX_FUNCTIONS");
    writeln!(s, "// @generated by icd-layer/build.rs from api/opencl.api. Do not edit.").unwrap();
    writeln!(s, "pub static NAMES: [&str; {n}] = [").unwrap();
    for f in &api.functions {
        writeln!(s, "    {:?},", f.name).unwrap();
    }
    writeln!(s, "];").unwrap();
    // Extension functions by their index in the per-driver pointer table.
    let mut by_ext: Vec<(&String, &usize)> = ext_idx.iter().collect();
    by_ext.sort_by_key(|(_, i)| **i);
    writeln!(s, "pub static EXT_NAMES: [&str; {}] = [", by_ext.len()).unwrap();
    for (name, _) in by_ext {
        writeln!(s, "    {name:?},").unwrap();
    }
    writeln!(s, "];").unwrap();
    // Function ids by name, for the hand-written code.
    writeln!(s, "#[allow(non_upper_case_globals, dead_code)] pub mod id {{").unwrap();
    for (i, f) in api.functions.iter().enumerate() {
        writeln!(s, "    pub const {}: usize = {i};", f.name).unwrap();
    }
    writeln!(s, "}}").unwrap();
    // Slot numbers by name, for the hand-written special cases.
    writeln!(s, "#[allow(non_upper_case_globals, dead_code)] pub mod slot {{").unwrap();
    for f in api.functions.iter().filter(|f| f.slot.is_some()) {
        writeln!(s, "    pub const {}: usize = {};", f.name, f.slot.unwrap()).unwrap();
    }
    writeln!(s, "}}").unwrap();
    writeln!(s, "pub static WINDOWS_SLOTS: &[usize] = &{:?};",
        api.functions.iter().filter(|f| f.windows_only).filter_map(|f| f.slot).collect::<Vec<_>>()).unwrap();
    s
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Layer,
    Icd,
}

/// One mode's wrappers, its dispatch table and its name look-up table.
fn generate_mode(api: &Api, ext_idx: &HashMap<String, usize>, mode: Mode) -> String {
    let mut s = String::new();
    let n = api.functions.len();
    writeln!(s, "// @generated by icd-layer/build.rs from api/opencl.api. Do not edit.").unwrap();
    let wrapper = |f: &Function| if mode == Mode::Layer { layer_fn(f) } else { icd_fn(f) };

    // Name lookup for clGetExtensionFunctionAddress*: every described function.
    writeln!(s, "pub static ENTRIES: [crate::opencl::exts::Entry; {n}] = [").unwrap();
    for f in &api.functions {
        let ext = match ext_idx.get(&f.name) {
            Some(i) => format!("Some({i})"),
            None => "None".into(),
        };
        let p = if f.windows_only {
            "::core::ptr::null()".to_string()
        } else if f.local {
            format!("crate::opencl::markers::{} as *const ::core::ffi::c_void", f.name)
        } else {
            format!("{} as *const ::core::ffi::c_void", wrapper(f))
        };
        writeln!(s, "    crate::opencl::exts::Entry {{ name: {:?}, ext: {ext}, local: {}, f: {p} }},", f.name, f.local).unwrap();
    }
    writeln!(s, "];").unwrap();

    // The dispatch table.
    let table = if mode == Mode::Layer { "LAYER_TABLE" } else { "ICD_TABLE" };
    writeln!(s, "pub static {table}: ::cltap::dispatch::Table = ::cltap::dispatch::Table {{ slots: [").unwrap();
    for (slot, f) in api.by_slot().iter().enumerate() {
        let f = f.expect("every slot is described");
        if f.windows_only {
            writeln!(s, "    ::core::ptr::null(), // {slot} {} (Windows only)", f.name).unwrap();
        } else {
            writeln!(s, "    {} as *const ::core::ffi::c_void, // {slot}", wrapper(f)).unwrap();
        }
    }
    writeln!(s, "] }};").unwrap();

    for (id, f) in api.functions.iter().enumerate() {
        if f.windows_only || f.local {
            continue;
        }
        let ext = ext_idx.get(&f.name).copied();
        match mode {
            Mode::Layer if !LAYER_SPECIAL.contains(&f.name.as_str()) => layer_wrapper(&mut s, f, id, ext),
            Mode::Icd if !ICD_SPECIAL.contains(&f.name.as_str()) => icd_wrapper(&mut s, f, id, ext),
            _ => {}
        }
    }
    s
}

fn layer_fn(f: &Function) -> String {
    if LAYER_SPECIAL.contains(&f.name.as_str()) {
        format!("crate::opencl::layer::{}", f.name)
    } else {
        format!("layer_{}", f.name)
    }
}

fn icd_fn(f: &Function) -> String {
    if ICD_SPECIAL.contains(&f.name.as_str()) {
        format!("crate::opencl::icd::{}", f.name)
    } else {
        format!("icd_{}", f.name)
    }
}

fn ret_rust(f: &Function) -> String {
    match f.ret {
        RetKind::Void => "()".into(),
        _ => rust_type(&f.ret_type),
    }
}

fn signature(f: &Function) -> (String, String, String) {
    let params: Vec<String> = f.params.iter().map(|p| format!("{}: {}", p.name, rust_type(&p.c_type))).collect();
    let types: Vec<String> = f.params.iter().map(|p| rust_type(&p.c_type)).collect();
    let args: Vec<String> = f.params.iter().map(|p| p.name.clone()).collect();
    (params.join(", "), format!("unsafe extern \"C\" fn({}) -> {}", types.join(", "), ret_rust(f)), args.join(", "))
}

fn size_ret_param(f: &Function) -> &str {
    &f.params
        .iter()
        .find(|p| p.name.ends_with("size_ret") && p.role == Role::OutValue)
        .unwrap_or_else(|| panic!("{}: an info result needs a *_size_ret parameter", f.name))
        .name
}

fn errcode_param(f: &Function) -> Option<&Param> {
    f.params.iter().find(|p| p.role == Role::Errcode)
}

/// The statement that returns `code` from the wrapper in this function's way.
fn fail_with(f: &Function, code: &str) -> String {
    let set_err = errcode_param(f)
        .map(|p| format!("if !{0}.is_null() {{ *({0} as *mut i32) = {code}; }} ", p.name))
        .unwrap_or_default();
    match f.ret {
        RetKind::Status => format!("return {code};"),
        RetKind::Handle | RetKind::Pointer => format!("{set_err}return ::core::ptr::null_mut();"),
        RetKind::Void => "return;".into(),
        RetKind::Scalar => "return ::core::mem::zeroed();".into(),
    }
}

/// The arguments as the application passed them, one word each.
fn arg_words(f: &Function) -> String {
    let w: Vec<String> = f.params.iter().map(|p| format!("{} as u64", p.name)).collect();
    format!("[{}]", w.join(", "))
}

fn ret_word(f: &Function) -> &'static str {
    match f.ret {
        RetKind::Void => "0u64",
        _ => "r as u64",
    }
}

fn failed_expr(f: &Function) -> &'static str {
    match f.ret {
        RetKind::Status => "r != 0",
        RetKind::Handle => "r.is_null()",
        _ => "false",
    }
}

fn len_expr(l: &Len) -> String {
    match l {
        Len::Param(p) => format!("({p} as usize)"),
        Len::Const(n) => format!("{n}usize"),
    }
}

/// The parameter that selects the driver, as a pointer expression.
fn dispatch_param(f: &Function) -> Option<&Param> {
    match f.dispatch {
        Dispatch::Param(i) => Some(&f.params[i]),
        Dispatch::None => None,
    }
}

/// Whether device timing hooks into this function.
fn devtime_kind(f: &Function) -> Option<&'static str> {
    Some(match f.name.as_str() {
        "clCreateCommandQueue" => "queue_bits",
        "clCreateCommandQueueWithProperties" | "clCreateCommandQueueWithPropertiesKHR" => "queue_list",
        "clGetCommandQueueInfo" => "queue_info",
        "clGetEventProfilingInfo" => "profiling_info",
        n if n.starts_with("clEnqueue") && f.has_event_out() && f.params.first().is_some_and(|p| p.c_type == "cl_command_queue") => "enqueue",
        _ => return None,
    })
}

/// Device timing, before the call: the driver sees profiling forced on and
/// cltap's own event where the application passed none.
fn devtime_pre(s: &mut String, f: &Function) {
    match devtime_kind(f) {
        Some("queue_bits") => {
            writeln!(s, "    let __app_props = properties;").unwrap();
            writeln!(s, "    let properties = ::cltap::devtime::queues::force_bits(properties);").unwrap();
        }
        Some("queue_list") => {
            writeln!(s, "    let __app_props = properties;").unwrap();
            writeln!(s, "    let __forced = ::cltap::devtime::queues::force_list(properties as *const u64);").unwrap();
            writeln!(s, "    let properties = __forced.as_ref().map_or(properties, |v| v.as_ptr() as *mut ::core::ffi::c_void);").unwrap();
        }
        Some("queue_info") => {
            writeln!(s, "    if let Some(c) = crate::opencl::devtime::answer_queue_info(command_queue, param_name, param_value_size, param_value, param_value_size_ret as *mut usize) {{ return c; }}").unwrap();
        }
        Some("profiling_info") => {
            writeln!(s, "    if let Some(c) = crate::opencl::devtime::refuse_profiling(event) {{ return c; }}").unwrap();
        }
        Some("enqueue") => {
            writeln!(s, "    let mut __own_ev: *mut ::core::ffi::c_void = ::core::ptr::null_mut();").unwrap();
            writeln!(s, "    let __own = event.is_null() && ::cltap::devtime::on();").unwrap();
            writeln!(s, "    let __enq_t0 = if ::cltap::devtime::on() {{ ::cltap::trace::tsc::now() }} else {{ 0 }};").unwrap();
            writeln!(s, "    let event = if __own {{ &mut __own_ev as *mut _ as *mut ::core::ffi::c_void }} else {{ event }};").unwrap();
        }
        _ => {}
    }
}

/// Device timing, right after the call (handles are still the driver's).
fn devtime_post(s: &mut String, f: &Function) {
    match devtime_kind(f) {
        Some("queue_bits") => writeln!(s, "    crate::opencl::devtime::remember_bits(r as *mut ::core::ffi::c_void, __app_props);").unwrap(),
        Some("queue_list") => writeln!(s, "    crate::opencl::devtime::remember_list(r as *mut ::core::ffi::c_void, __app_props);").unwrap(),
        Some("enqueue") => {
            let ok = match f.ret {
                RetKind::Status => "r == 0",
                _ => "!r.is_null()",
            };
            writeln!(s, "    if ::cltap::devtime::on() {{ crate::opencl::devtime::track({}, __t.cmd, __enq_t0, {ok}, event, __own, &{}); }}", "ID", "__app").unwrap();
        }
        _ => {}
    }
}

/// After the call: the record completed, or the call counted. A function
/// marked `[lws]` also records, for a successful call with a NULL local
/// size, the local size the driver chose, and with counters asked for, its
/// kernel's statistics (`opencl::kinfo`).
fn bracket_exit(s: &mut String, f: &Function, id: usize) {
    let (ret, failed) = (ret_word(f), failed_expr(f));
    let exit = if f.lws {
        let l = f.param_index("local_work_size").expect("[lws] is checked by the parser");
        format!("crate::bracket::exit_with_lws({id}, __t, {ret}, &__app, {failed}, || if __app[{l}] == 0 && r == 0 {{ crate::opencl::lws::suggested(&__app) }} else {{ None }}); if r == 0 && crate::opencl::kinfo::on() {{ crate::opencl::kinfo::record(__t.cmd, &__app) }}")
    } else {
        format!("crate::bracket::exit({id}, __t, {ret}, &__app, {failed})")
    };
    writeln!(s, "    if __t.on {{ {exit}; }} else {{ crate::bracket::done({id}, {failed}); }}").unwrap();
}

fn layer_wrapper(s: &mut String, f: &Function, id: usize, ext: Option<usize>) {
    let (params, fty, args) = signature(f);
    let ret = ret_rust(f);
    writeln!(s, "#[allow(non_snake_case, unused_variables, clippy::all)]").unwrap();
    writeln!(s, "unsafe extern \"C\" fn layer_{}({params}) -> {ret} {{", f.name).unwrap();
    match (f.slot, ext) {
        (Some(slot), _) => {
            writeln!(s, "    let f = crate::opencl::next::NEXT.get({slot});").unwrap();
            // The loader's entry is always there, but the driver's may be
            // empty (FACTS.md §8): look in the object's own table first.
            if let Some(p) = dispatch_param(f).filter(|p| p.role == Role::Handle && is_dispatchable(&p.c_type)) {
                writeln!(s, "    if !{0}.is_null() && ::cltap::dispatch::object_slot({0} as *mut ::core::ffi::c_void, {slot}).is_null() {{ crate::bracket::missing({id}); {1} }}", p.name, fail_with(f, "-59")).unwrap();
            }
        }
        (None, Some(e)) => {
            let key = match dispatch_param(f) {
                Some(p) => key_source(p, false),
                None => "::core::ptr::null_mut()".into(),
            };
            writeln!(s, "    let f = crate::opencl::next::ext_ptr({e}, {key});").unwrap()
        }
        (None, None) => unreachable!(),
    }
    writeln!(s, "    if f.is_null() {{ crate::bracket::missing({id}); {} }}", fail_with(f, "-59")).unwrap();
    writeln!(s, "    let f: {fty} = ::core::mem::transmute(f);").unwrap();
    // The log shows the application's arguments, not cltap's substitutes.
    writeln!(s, "    let __app = {};", arg_words(f)).unwrap();
    devtime_pre(s, f);
    writeln!(s, "    let __t = crate::bracket::enter({id}, &__app);").unwrap();
    writeln!(s, "    let r = f({args});").unwrap();
    let mut post = String::new();
    devtime_post(&mut post, f);
    s.push_str(&post.replace("track(ID,", &format!("track({id},")));
    bracket_exit(s, f, id);
    writeln!(s, "    r\n}}").unwrap();
}

/// A driver handle from which the driver can be recognised.
fn key_source(p: &Param, _icd: bool) -> String {
    match &p.role {
        Role::InArray { len } => format!(
            "(if {0}.is_null() || {1} == 0 {{ ::core::ptr::null_mut() }} else {{ *({0} as *const *mut ::core::ffi::c_void) }})",
            p.name,
            len_expr(len)
        ),
        Role::Properties(_) => format!(
            "(::cltap::icd::props::context_platform({} as *const u64).unwrap_or(0) as *mut ::core::ffi::c_void)",
            p.name
        ),
        _ => format!("({} as *mut ::core::ffi::c_void)", p.name),
    }
}

/// The status an ICD driver would give for a missing selecting object.
fn invalid_code(p: &Param) -> i32 {
    match (&p.role, p.c_type.as_str()) {
        (Role::Handle, "cl_platform_id") => -32,
        (Role::Handle, "cl_device_id") => -33,
        (Role::Handle, "cl_context") => -34,
        (Role::Handle, "cl_command_queue") => -36,
        (Role::Handle, "cl_mem") => -38,
        (Role::Handle, "cl_sampler") => -41,
        (Role::Handle, "cl_program") => -44,
        (Role::Handle, "cl_kernel") => -48,
        (Role::Handle, "cl_event") => -58,
        (Role::Handle, "cl_command_buffer_khr") => -1138,
        (Role::Handle, "cl_semaphore_khr") => -1142,
        (Role::Properties(_), _) => -32,
        _ => -30,
    }
}

fn translates_props(k: PropKind) -> Option<&'static str> {
    match k {
        PropKind::Context => Some("::cltap::icd::props::Shape::Context"),
        PropKind::Mem | PropKind::Semaphore | PropKind::MemIntel => Some("::cltap::icd::props::Shape::DeviceLists"),
        _ => None,
    }
}

fn icd_wrapper(s: &mut String, f: &Function, id: usize, ext: Option<usize>) {
    let (params, fty, args) = signature(f);
    let ret = ret_rust(f);
    writeln!(s, "#[allow(non_snake_case, unused_variables, unused_mut, clippy::all)]").unwrap();
    writeln!(s, "unsafe extern \"C\" fn icd_{}({params}) -> {ret} {{", f.name).unwrap();
    writeln!(s, "    let hs = crate::opencl::icd::handles();").unwrap();
    // The log shows the application's view: its handles, its pointers.
    writeln!(s, "    let __app = {};", arg_words(f)).unwrap();
    // Before the call: the driver must see its own handles.
    for p in &f.params {
        let n = &p.name;
        match &p.role {
            Role::Handle => writeln!(s, "    let {n} = hs.unwrap({n} as *mut ::core::ffi::c_void) as {};", rust_type(&p.c_type)).unwrap(),
            Role::InArray { len } if is_handle(p.pointee()) => {
                writeln!(s, "    let __arr_{n} = crate::opencl::handles::Unwrapped::new(hs, {n} as *const *mut ::core::ffi::c_void, {});", len_expr(len)).unwrap();
                writeln!(s, "    let {n} = __arr_{n}.ptr({n});").unwrap();
            }
            Role::InArray { .. } if p.pointee() == "cl_image_desc" => {
                // `cl_image_desc.buffer` names the buffer an image is made from.
                writeln!(s, "    let __desc_{n} = crate::opencl::handles::ImageDesc::new(hs, {n});").unwrap();
                writeln!(s, "    let {n} = __desc_{n}.ptr({n});").unwrap();
            }
            Role::Properties(k) => {
                if let Some(shape) = translates_props(*k) {
                    writeln!(s, "    let __props_{n} = crate::opencl::handles::props_in(hs, {n}, {shape});").unwrap();
                    writeln!(s, "    let {n} = __props_{n}.as_ref().map_or({n}, |v| v.as_ptr() as *mut ::core::ffi::c_void);").unwrap();
                }
            }
            Role::InBytes { len } if n == "arg_value" => {
                writeln!(s, "    let mut __argv_{n}: *mut ::core::ffi::c_void = ::core::ptr::null_mut();").unwrap();
                writeln!(s, "    let {n} = crate::opencl::handles::kernel_arg(hs, {n}, {}, &mut __argv_{n});", len_expr(len)).unwrap();
            }
            Role::Callback(k) => {
                let kind = match k {
                    CallbackKind::ProgramNotify => Some("program_notify"),
                    CallbackKind::EventNotify => Some("event_notify"),
                    CallbackKind::MemNotify => Some("mem_notify"),
                    CallbackKind::ContextDestructor => Some("context_destructor"),
                    CallbackKind::SvmFree => Some("svm_free"),
                    CallbackKind::ContextNotify | CallbackKind::NativeKernel | CallbackKind::Hsa => None,
                };
                if let Some(kind) = kind {
                    let ud = f.params.iter().skip_while(|q| q.name != *n).nth(1).filter(|q| q.role == Role::UserData);
                    let ud = ud.expect("a translated callback has user data").name.clone();
                    writeln!(s, "    let ({n}, {ud}) = crate::opencl::trampolines::{kind}(hs, {n}, {ud});").unwrap();
                }
            }
            Role::OutArray { count: Some(c), .. } if is_dispatchable(p.pointee()) => {
                let cp = f.params.iter().find(|q| &q.name == c).unwrap();
                writeln!(s, "    let mut __count_{c}: {} = 0;", rust_type(cp.pointee())).unwrap();
                // Only when handles will come back: the driver must still see
                // the application's NULLs where it validates them.
                writeln!(s, "    let {c} = if {c}.is_null() && !{n}.is_null() {{ &mut __count_{c} as *mut _ as *mut ::core::ffi::c_void }} else {{ {c} }};").unwrap();
            }
            Role::InfoResult { .. } => {
                // The answer's length is needed to translate it; the driver
                // writes it to a local when the application passed NULL.
                let sr = size_ret_param(f);
                writeln!(s, "    let mut __size_ret: usize = 0;").unwrap();
                writeln!(s, "    let {sr} = if {sr}.is_null() && !{n}.is_null() {{ &mut __size_ret as *mut usize as *mut ::core::ffi::c_void }} else {{ {sr} }};").unwrap();
            }
            _ => {}
        }
    }
    // Choose the driver.
    match dispatch_param(f) {
        Some(p) => {
            writeln!(s, "    let __obj = {};", key_source(p, true)).unwrap();
            if matches!(p.role, Role::Properties(_)) {
                writeln!(s, "    let __obj = if __obj.is_null() {{ crate::opencl::drivers::default_platform() }} else {{ __obj }};").unwrap();
            }
            writeln!(s, "    if __obj.is_null() {{ {} }}", fail_with(f, &invalid_code(p).to_string())).unwrap();
            match (f.slot, ext) {
                (Some(slot), _) => writeln!(s, "    let f = ::cltap::dispatch::object_slot(__obj, {slot});").unwrap(),
                (None, Some(e)) => writeln!(s, "    let f = crate::opencl::drivers::ext_ptr({e}, __obj);").unwrap(),
                _ => unreachable!(),
            }
        }
        None => match ext {
            Some(e) => writeln!(s, "    let f = crate::opencl::drivers::ext_ptr({e}, ::core::ptr::null_mut());").unwrap(),
            None => panic!("{}: slot function without a selecting parameter must be special-cased", f.name),
        },
    }
    writeln!(s, "    if f.is_null() {{ crate::bracket::missing({id}); {} }}", fail_with(f, "-59")).unwrap();
    writeln!(s, "    let f: {fty} = ::core::mem::transmute(f);").unwrap();
    devtime_pre(s, f);
    writeln!(s, "    let __t = crate::bracket::enter({id}, &__app);").unwrap();
    writeln!(s, "    let r = f({args});").unwrap();
    let mut post = String::new();
    devtime_post(&mut post, f);
    s.push_str(&post.replace("track(ID,", &format!("track({id},")));
    // After the call: the application must see cltap's handles.
    let ok = match f.ret {
        RetKind::Status => "r == 0",
        _ => "true",
    };
    for p in &f.params {
        let n = &p.name;
        match &p.role {
            Role::OutHandle if is_dispatchable(p.pointee()) => {
                let own = if devtime_kind(f) == Some("enqueue") && n == "event" { " && !__own" } else { "" };
                writeln!(s, "    if {ok}{own} && !{n}.is_null() {{ let h = {n} as *mut *mut ::core::ffi::c_void; *h = hs.wrap(*h); }}").unwrap();
            }
            Role::OutArray { cap, count } if is_dispatchable(p.pointee()) => {
                let n_expr = match count {
                    Some(c) => {
                        let cp = f.params.iter().find(|q| &q.name == c).unwrap();
                        format!("if {c}.is_null() {{ 0 }} else {{ ({} as usize).min(*({c} as *const {}) as usize) }}", len_expr(cap), rust_type(cp.pointee()))
                    }
                    None => len_expr(cap),
                };
                writeln!(s, "    if {ok} && !{n}.is_null() {{ crate::opencl::handles::wrap_array(hs, {n} as *mut *mut ::core::ffi::c_void, {n_expr}); }}").unwrap();
            }
            Role::InfoResult { size } => {
                let sel = f
                    .params
                    .iter()
                    .find(|q| q.name == "param_name")
                    .unwrap_or_else(|| panic!("{}: info result without param_name", f.name));
                let sr = size_ret_param(f);
                writeln!(s, "    if {ok} && !{n}.is_null() {{ crate::opencl::handles::info_out(hs, {:?}, {} as u32, {n}, {size}, *({sr} as *const usize)); }}", f.name, sel.name).unwrap();
            }
            _ => {}
        }
    }
    if f.ret == RetKind::Handle && is_dispatchable(&f.ret_type) {
        writeln!(s, "    let r = hs.wrap(r as *mut ::core::ffi::c_void) as {};", rust_type(&f.ret_type)).unwrap();
    }
    bracket_exit(s, f, id);
    writeln!(s, "    r\n}}").unwrap();
}
