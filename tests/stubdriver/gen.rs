//! Writes the two generated halves of tests/stub_driver.rs's C code from
//! `api/opencl.api`: one stub driver entry per described function (around
//! `stub_base.c`), and one caller per function in the test program (around
//! `caller_base.c`). Nothing per function is written by hand: a new
//! description gets its entry and its call here, and its coverage is
//! checked by the test.

use cltap_apidesc::cheader::cl_ext_types;
use cltap_apidesc::types::{callback_kind, is_handle, is_pointer, pointee};
use cltap_apidesc::{Api, CallbackKind, Function, Len, RetKind, Role};
use std::collections::HashSet;
use std::fmt::Write;

/// The C type a value of `c_type` is carried as: every pointer, handle and
/// callback as `void*`, extension scalars as what Khronos' headers define
/// them as, the rest by their own name from `<CL/cl.h>`/`<CL/cl_gl.h>`.
pub fn carrier(c_type: &str) -> String {
    if is_pointer(c_type) || is_handle(c_type) || callback_kind(c_type).is_some() {
        return "void*".into();
    }
    match cl_ext_types().iter().find(|(n, _)| *n == c_type) {
        Some((_, what)) => what.to_string(),
        None => c_type.to_string(),
    }
}

fn word(c_type: &str, v: &str) -> String {
    if carrier(c_type) == "void*" {
        format!("(uint64_t)(uintptr_t){v}")
    } else {
        format!("(uint64_t){v}")
    }
}

fn len(f: &Function, l: &Len) -> String {
    match l {
        Len::Param(p) => format!("(size_t)a{}", f.param_index(p).unwrap()),
        Len::Const(n) => n.to_string(),
    }
}

/// The element type of an array parameter, as carried.
fn elem(c_type: &str) -> String {
    carrier(pointee(c_type))
}

fn proto(f: &Function, name: &str) -> String {
    let ps: Vec<String> = f.params.iter().enumerate().map(|(i, p)| format!("{} a{i}", carrier(&p.c_type))).collect();
    let ps = if ps.is_empty() { "void".into() } else { ps.join(", ") };
    format!("{} CL_API_CALL {name}({ps})", carrier(&f.ret_type))
}

fn fn_type(f: &Function) -> String {
    let ps: Vec<String> = f.params.iter().map(|p| carrier(&p.c_type)).collect();
    let ps = if ps.is_empty() { "void".into() } else { ps.join(", ") };
    format!("{} (CL_API_CALL*)({ps})", carrier(&f.ret_type))
}

/// Parameters another parameter counts elements of, and those it counts bytes of.
fn lens(f: &Function) -> (HashSet<String>, HashSet<String>) {
    let (mut elems, mut bytes) = (HashSet::new(), HashSet::new());
    for p in &f.params {
        match &p.role {
            Role::InArray { len: Len::Param(n) } | Role::InStrings { len: Len::Param(n) } => {
                elems.insert(n.clone());
            }
            Role::OutArray { cap: Len::Param(n), .. } => {
                elems.insert(n.clone());
            }
            Role::InBytes { len: Len::Param(n) } => {
                bytes.insert(n.clone());
            }
            Role::InfoResult { size } => {
                bytes.insert(size.clone());
            }
            _ => {}
        }
    }
    (elems, bytes)
}

fn is_lookup(f: &Function) -> bool {
    f.name.starts_with("clGetExtensionFunctionAddress")
}

/// Whether the driver hands out handles in this call: it then succeeds, as
/// a driver returns handles only on success.
fn makes_handles(f: &Function) -> bool {
    f.ret == RetKind::Handle
        || f.params
            .iter()
            .any(|p| p.role == Role::OutHandle || matches!(p.role, Role::OutArray { .. }) && is_handle(p.pointee()))
}

/// Out values written by the entry as a count or an answer's size.
fn set_elsewhere(f: &Function) -> HashSet<String> {
    let mut s = HashSet::new();
    for p in &f.params {
        if let Role::OutArray { count: Some(c), .. } = &p.role {
            s.insert(c.clone());
        }
    }
    if f.params.iter().any(|p| matches!(p.role, Role::InfoResult { .. })) {
        if let Some(p) = f.params.iter().find(|p| p.name.ends_with("size_ret")) {
            s.insert(p.name.clone());
        }
    }
    s
}

/// A callback whose arguments hold no handle.
fn plain_callback(r: &Role) -> bool {
    matches!(r, Role::Callback(CallbackKind::ContextNotify | CallbackKind::NativeKernel))
}

fn stub_entry(s: &mut String, f: &Function) {
    let n = &f.name;
    writeln!(s, "static {} {{", proto(f, &format!("stub_{n}"))).unwrap();
    writeln!(s, "    rec r;\n    rec_begin(&r, \"{n}\");").unwrap();
    for (i, p) in f.params.iter().enumerate() {
        let a = format!("a{i}");
        let line = match &p.role {
            Role::Scalar | Role::HostPtr => format!("tok_word(&r, {});", word(&p.c_type, &a)),
            Role::Handle => format!("tok_handle(&r, {a});"),
            // A callback that receives no handle needs no trampoline in ICD
            // mode: it must reach the driver as the application passed it.
            Role::UserData if i > 0 && plain_callback(&f.params[i - 1].role) => {
                format!("tok_kept(&r, 'u', (uintptr_t){a});")
            }
            Role::Callback(_) if plain_callback(&p.role) => format!("tok_kept(&r, 'c', (uintptr_t){a});"),
            Role::UserData => format!("tok_loose(&r, 'u', (uintptr_t){a});"),
            Role::Callback(_) => format!("tok_loose(&r, 'c', (uintptr_t){a});"),
            Role::InArray { len: l } => {
                format!("tok_bytes(&r, {a}, {a} ? {} * sizeof({}) : 0);", len(f, l), elem(&p.c_type))
            }
            Role::InBytes { len: l } => format!("tok_bytes(&r, {a}, {});", len(f, l)),
            Role::InString => format!("tok_str(&r, {a});"),
            Role::InStrings { len: l } => format!("tok_strs(&r, (const char* const*){a}, {});", len(f, l)),
            Role::Properties(_) => format!("tok_props(&r, {a});"),
            Role::OutValue | Role::OutHandle | Role::OutArray { .. } | Role::InfoResult { .. } | Role::Errcode => {
                format!("tok_out(&r, {a});")
            }
            Role::ByValue { .. } => panic!("{n}: a struct by value in api/opencl.api"),
        };
        writeln!(s, "    {line}").unwrap();
    }
    writeln!(s, "    uint64_t h = r.h;\n    int real = 0;\n    (void)h;\n    (void)real;").unwrap();
    let elsewhere = set_elsewhere(f);
    for (i, p) in f.params.iter().enumerate() {
        let a = format!("a{i}");
        let k = i + 1;
        match &p.role {
            Role::OutValue if !elsewhere.contains(&p.name) => {
                writeln!(s, "    if ({a}) fill({a}, sizeof({}), h, {k});", elem(&p.c_type)).unwrap()
            }
            Role::OutHandle => writeln!(s, "    if ({a}) *(void**){a} = obj_for(mix(h ^ {k}));").unwrap(),
            Role::OutArray { cap, count } => {
                let e = elem(&p.c_type);
                let platform = p.pointee() == "cl_platform_id";
                writeln!(s, "    {{\n        size_t cap = {};", len(f, cap)).unwrap();
                if is_handle(p.pointee()) {
                    let total = if platform { "1" } else { "cap ? cap : 2" };
                    let obj =
                        if platform { "(void*)&platform_obj" } else { "obj_for(mix(h ^ ((uint64_t)j << 8) ^ K))" };
                    writeln!(s, "        size_t total = {total};").unwrap();
                    writeln!(
                        s,
                        "        for (size_t j = 0; {a} && j < cap && j < total; j++) ((void**){a})[j] = {};",
                        obj.replace('K', &k.to_string())
                    )
                    .unwrap();
                } else {
                    writeln!(s, "        size_t total = cap ? cap : 3;\n        (void)total;\n        if ({a}) fill({a}, cap * sizeof({e}), h, {k});").unwrap();
                }
                if let Some(c) = count {
                    let ci = f.param_index(c).unwrap();
                    let ct = elem(&f.params[ci].c_type);
                    writeln!(s, "        if (a{ci}) *({ct}*)a{ci} = ({ct})total;").unwrap();
                }
                writeln!(s, "    }}").unwrap();
            }
            Role::InfoResult { size } => {
                let si = f.param_index(size).unwrap();
                let name = f.param_index("param_name").map_or("0".into(), |j| format!("(uint64_t)a{j}"));
                let sr = f.params.iter().position(|q| q.name.ends_with("size_ret"));
                let sr = sr.map_or("NULL".into(), |j| format!("(size_t*)a{j}"));
                writeln!(s, "    real = real_info(\"{n}\", {name}, (size_t)a{si}, {a}, {sr});").unwrap();
                writeln!(s, "    if (!real) {{\n        if ({a}) fill({a}, (size_t)a{si}, h, {k});").unwrap();
                writeln!(s, "        if ({sr}) *{sr} = {a} ? (size_t)a{si} : 16 + h % 48;\n    }}").unwrap();
            }
            Role::Errcode => {
                let v = if f.ret == RetKind::Handle { "CL_SUCCESS" } else { "derived_status(h ^ 0xe77)" };
                writeln!(s, "    if ({a}) *(cl_int*){a} = {v};").unwrap();
            }
            _ => {}
        }
    }
    let ret = carrier(&f.ret_type);
    match f.ret {
        RetKind::Status => {
            let v = if makes_handles(f) {
                "CL_SUCCESS".into()
            } else {
                "real ? CL_SUCCESS : derived_status(h)".to_string()
            };
            writeln!(s, "    cl_int ret = {v};").unwrap()
        }
        RetKind::Handle => writeln!(s, "    void* ret = obj_for(mix(h ^ 0x7e7));").unwrap(),
        RetKind::Pointer if is_lookup(f) => {
            let i = f.param_index("func_name").unwrap();
            writeln!(s, "    void* ret = lookup((const char*)a{i});").unwrap()
        }
        RetKind::Pointer => {
            writeln!(s, "    void* ret = (void*)(uintptr_t)(0x7e5700000000ULL | (h & 0xfffff0));").unwrap()
        }
        RetKind::Scalar => writeln!(s, "    {ret} ret = ({ret})h;").unwrap(),
        RetKind::Void => {}
    }
    for (i, p) in f.params.iter().enumerate() {
        let Role::Callback(kind) = &p.role else { continue };
        let ud = if f.params.get(i + 1).is_some_and(|q| q.role == Role::UserData) {
            format!("a{}", i + 1)
        } else {
            "NULL".into()
        };
        // The object the callback is about: the call's handle of that type, else the one it makes.
        let about = |t: &str| -> String {
            match f.params.iter().position(|q| q.role == Role::Handle && q.c_type == t) {
                Some(j) => format!("a{j}"),
                None if f.ret_type == t => "ret".into(),
                None => "NULL".into(),
            }
        };
        let a = format!("a{i}");
        let call = match kind {
            CallbackKind::ContextNotify => format!(
                "((void (CL_CALLBACK*)(const char*, const void*, size_t, void*)){a})(\"stubdriver:{n}\", NULL, (size_t)(h & 0xff), {ud})"
            ),
            CallbackKind::ProgramNotify => format!("((void (CL_CALLBACK*)(void*, void*)){a})({}, {ud})", about("cl_program")),
            CallbackKind::MemNotify => format!("((void (CL_CALLBACK*)(void*, void*)){a})({}, {ud})", about("cl_mem")),
            CallbackKind::ContextDestructor => {
                format!("((void (CL_CALLBACK*)(void*, void*)){a})({}, {ud})", about("cl_context"))
            }
            CallbackKind::EventNotify => format!(
                "((void (CL_CALLBACK*)(void*, cl_int, void*)){a})({}, (cl_int)(h & 0x7f), {ud})",
                about("cl_event")
            ),
            CallbackKind::SvmFree => {
                let q = f.params.iter().position(|q| q.role == Role::Handle && q.c_type == "cl_command_queue").unwrap();
                let np = f.param_index("num_svm_pointers").unwrap();
                let pp = f.param_index("svm_pointers").unwrap();
                format!("((void (CL_CALLBACK*)(void*, cl_uint, void**, void*)){a})(a{q}, a{np}, (void**)a{pp}, {ud})")
            }
            CallbackKind::NativeKernel => {
                let ai = f.param_index("args").unwrap();
                format!("((void (CL_CALLBACK*)(void*)){a})(a{ai})")
            }
            CallbackKind::Hsa => unreachable!(),
        };
        writeln!(s, "    if ({a}) {call};").unwrap();
    }
    writeln!(s, "    rec_end(&r);").unwrap();
    if f.ret != RetKind::Void {
        writeln!(s, "    return ret;").unwrap();
    }
    writeln!(s, "}}\n").unwrap();
}

/// The stub driver's C source.
pub fn stub_source(api: &Api) -> String {
    let mut s =
        String::from("/* @generated by tests/stubdriver/gen.rs from api/opencl.api. */\n#include \"stub_base.c\"\n\n");
    let driven: Vec<&Function> = api.functions.iter().filter(|f| !f.local).collect();
    for f in &driven {
        stub_entry(&mut s, f);
    }
    s.push_str("void* stub_dispatch[STUB_SLOTS] = {\n");
    for f in &driven {
        if let Some(slot) = f.slot {
            writeln!(s, "    [{slot}] = (void*)stub_{},", f.name).unwrap();
        }
    }
    s.push_str("};\n\nconst stub_name stub_names[] = {\n");
    // ocl-icd's own query is the loader's, never a driver's.
    for f in driven.iter().filter(|f| f.ext != "cl_icdl") {
        writeln!(s, "    {{\"{0}\", (void*)stub_{0}}},", f.name).unwrap();
    }
    s.push_str("    {NULL, NULL},\n};\n\n");
    let mut exts: Vec<&str> = vec!["cl_khr_icd"];
    for f in &driven {
        if f.ext != "core" && f.ext != "cl_icdl" && !exts.contains(&f.ext.as_str()) {
            exts.push(&f.ext);
        }
    }
    writeln!(s, "const char stub_extensions[] = \"{}\";\n", exts.join(" ")).unwrap();
    // The loaders find the driver's table through this one export.
    s.push_str(
        "__attribute__((visibility(\"default\"))) void* CL_API_CALL clGetExtensionFunctionAddress(const char* name) {\n    return stub_clGetExtensionFunctionAddress((void*)name);\n}\n",
    );
    s
}

fn caller(s: &mut String, f: &Function, index: usize) {
    let n = &f.name;
    let (elems, bytes) = lens(f);
    writeln!(s, "static void call_{n}(unsigned seq, void* fp) {{").unwrap();
    for (i, p) in f.params.iter().enumerate() {
        let a = format!("a{i}");
        let c = carrier(&p.c_type);
        let tag = format!("(seq * 0x10u + {i}u)");
        match &p.role {
            Role::Scalar if elems.contains(&p.name) => writeln!(s, "    {c} {a} = ({c})(1 + seq % 3);").unwrap(),
            Role::Scalar if bytes.contains(&p.name) => writeln!(s, "    {c} {a} = ({c})(8 + 8 * (seq % 3));").unwrap(),
            Role::Scalar if c == "void*" => {
                writeln!(s, "    {c} {a} = (void*)(uintptr_t)(0x5100000000ULL + {tag});").unwrap()
            }
            Role::Scalar => writeln!(s, "    {c} {a} = ({c})(0x51000000u + {tag});").unwrap(),
            Role::Handle => writeln!(s, "    void* {a} = hget(\"{}\");", p.c_type).unwrap(),
            Role::HostPtr => writeln!(s, "    void* {a} = (void*)(uintptr_t)(0x7e1100000000ULL + {tag});").unwrap(),
            Role::UserData => writeln!(s, "    void* {a} = (void*)(uintptr_t)(0x7e2200000000ULL + {tag});").unwrap(),
            Role::Callback(k) => writeln!(s, "    void* {a} = (void*)cb_{k:?};").unwrap(),
            Role::InArray { .. } => {
                let e = elem(&p.c_type);
                writeln!(s, "    static {e} b{i}[4];\n    pattern(b{i}, sizeof b{i}, {tag});").unwrap();
                if is_handle(p.pointee()) {
                    writeln!(s, "    for (int j = 0; j < 4; j++) b{i}[j] = hget(\"{}\");", p.pointee()).unwrap();
                }
                // Lengths beside sources: 0, each string ends with its NUL.
                if p.name == "lengths" && f.params.iter().any(|q| matches!(q.role, Role::InStrings { .. })) {
                    writeln!(s, "    memset(b{i}, 0, sizeof b{i});").unwrap();
                }
                if p.pointee() == "cl_image_desc" {
                    writeln!(s, "    b{i}[0].buffer = hget(\"cl_mem\");").unwrap();
                }
                writeln!(s, "    void* {a} = b{i};").unwrap();
            }
            Role::InBytes { .. } => writeln!(
                s,
                "    static unsigned char b{i}[64];\n    pattern(b{i}, sizeof b{i}, {tag});\n    void* {a} = b{i};"
            )
            .unwrap(),
            Role::InString => writeln!(
                s,
                "    static char b{i}[32];\n    snprintf(b{i}, sizeof b{i}, \"s%x\", {tag});\n    void* {a} = b{i};"
            )
            .unwrap(),
            Role::InStrings { .. } => {
                writeln!(s, "    static char t{i}[4][32];\n    static const char* b{i}[4];").unwrap();
                writeln!(s, "    for (int j = 0; j < 4; j++) {{ snprintf(t{i}[j], 32, \"s%x_%d\", {tag}, j); b{i}[j] = t{i}[j]; }}").unwrap();
                writeln!(s, "    void* {a} = b{i};").unwrap();
            }
            Role::Properties(k) => {
                writeln!(s, "    static uint64_t b{i}[3];").unwrap();
                if *k == cltap_apidesc::PropKind::Context {
                    writeln!(s, "    b{i}[0] = CL_CONTEXT_PLATFORM; b{i}[1] = (uintptr_t)hget(\"cl_platform_id\");")
                        .unwrap();
                } else {
                    writeln!(s, "    b{i}[0] = 0x7a000000u + {tag}; b{i}[1] = 0x7b000000u + {tag};").unwrap();
                }
                writeln!(s, "    b{i}[2] = 0;\n    void* {a} = b{i};").unwrap();
            }
            Role::OutValue | Role::OutArray { .. } | Role::InfoResult { .. } | Role::OutHandle | Role::Errcode => {
                writeln!(
                    s,
                    "    static unsigned char b{i}[64];\n    memset(b{i}, 0, sizeof b{i});\n    void* {a} = b{i};"
                )
                .unwrap()
            }
            Role::ByValue { .. } => unreachable!(),
        }
    }
    let args: Vec<String> = (0..f.params.len()).map(|i| format!("a{i}")).collect();
    writeln!(s, "    begin(seq, {index}, \"{n}\");").unwrap();
    let call = format!("(({})fp)({})", fn_type(f), args.join(", "));
    let ret = carrier(&f.ret_type);
    match f.ret {
        RetKind::Void => writeln!(s, "    {call};").unwrap(),
        _ => writeln!(s, "    {ret} ret = {call};").unwrap(),
    }
    match f.ret {
        RetKind::Status => writeln!(s, "    out(\" ret=%d\", (int)ret);").unwrap(),
        RetKind::Handle => writeln!(s, "    out(\" ret=%s\", tokh(\"{}\", ret));", f.ret_type).unwrap(),
        RetKind::Pointer if is_lookup(f) => writeln!(s, "    out(\" ret=%s\", ret ? \"fn\" : \"0\");").unwrap(),
        RetKind::Pointer => writeln!(s, "    out(\" ret=%llx\", (unsigned long long)(uintptr_t)ret);").unwrap(),
        RetKind::Scalar => writeln!(s, "    out(\" ret=%llx\", (unsigned long long)ret);").unwrap(),
        RetKind::Void => {}
    }
    for (i, p) in f.params.iter().enumerate() {
        match &p.role {
            Role::OutValue => writeln!(s, "    outbytes({i}, b{i}, sizeof({}));", elem(&p.c_type)).unwrap(),
            Role::Errcode => writeln!(s, "    out(\" o{i}=%d\", *(cl_int*)b{i});").unwrap(),
            Role::OutHandle => writeln!(s, "    out(\" o{i}=%s\", tokh(\"{}\", *(void**)b{i}));", p.pointee()).unwrap(),
            Role::OutArray { cap, .. } if is_handle(p.pointee()) => writeln!(
                s,
                "    for (size_t j = 0; j < {}; j++) out(\" o{i}=%s\", tokh(\"{}\", ((void**)b{i})[j]));",
                len(f, cap),
                p.pointee()
            )
            .unwrap(),
            Role::OutArray { cap, .. } => {
                writeln!(s, "    outbytes({i}, b{i}, {} * sizeof({}));", len(f, cap), elem(&p.c_type)).unwrap()
            }
            Role::InfoResult { size } => {
                writeln!(s, "    outbytes({i}, b{i}, (size_t)a{});", f.param_index(size).unwrap()).unwrap()
            }
            _ => {}
        }
    }
    writeln!(s, "    end();\n}}\n").unwrap();
}

/// The test program's C source.
pub fn caller_source(api: &Api) -> String {
    let mut s = String::from(
        "/* @generated by tests/stubdriver/gen.rs from api/opencl.api. */\n#include \"caller_base.c\"\n\n",
    );
    for (i, f) in api.functions.iter().enumerate() {
        caller(&mut s, f, i);
    }
    s.push_str("const caller_entry callers[] = {\n");
    for f in &api.functions {
        writeln!(s, "    {{\"{0}\", call_{0}}},", f.name).unwrap();
    }
    s.push_str("    {NULL, NULL},\n};\n");
    s
}
