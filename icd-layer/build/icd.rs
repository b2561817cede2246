//! ICD mode's wrappers: handles translated both ways around the call.

use super::*;

/// A driver handle from which the driver can be recognised.
pub(crate) fn key_source(p: &Param, _icd: bool) -> String {
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
pub(crate) fn invalid_code(p: &Param) -> i32 {
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

pub(crate) fn translates_props(k: PropKind) -> Option<&'static str> {
    match k {
        PropKind::Context => Some("::cltap::icd::props::Shape::Context"),
        PropKind::Mem | PropKind::Semaphore | PropKind::MemIntel => Some("::cltap::icd::props::Shape::DeviceLists"),
        _ => None,
    }
}

pub(crate) fn icd_wrapper(s: &mut String, f: &Function, id: usize, ext: Option<usize>) {
    let (params, fty, args) = signature(f);
    let ret = ret_rust(f);
    writeln!(s, "#[allow(non_snake_case, unused_variables, unused_mut, unused_unsafe, clippy::all)]").unwrap();
    writeln!(s, "unsafe extern \"C\" fn body_icd_{}({params}) -> {ret} {{", f.name).unwrap();
    guard_open(s, f);
    writeln!(s, "    let hs = crate::opencl::icd::handles();").unwrap();
    // The log shows the application's view: its handles, its pointers.
    s.push_str(&app_decl(f));
    // Before the call: the driver must see its own handles.
    for p in &f.params {
        let n = &p.name;
        match &p.role {
            Role::Handle => {
                writeln!(s, "    let {n} = hs.unwrap({n} as *mut ::core::ffi::c_void) as {};", rust_type(&p.c_type))
                    .unwrap()
            }
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
                    writeln!(
                        s,
                        "    let {n} = __props_{n}.as_ref().map_or({n}, |v| v.as_ptr() as *mut ::core::ffi::c_void);"
                    )
                    .unwrap();
                }
            }
            Role::InBytes { len } if n == "arg_value" => {
                writeln!(s, "    let mut __argv_{n} = crate::opencl::handles::ArgValue::default();").unwrap();
                writeln!(
                    s,
                    "    let {n} = crate::opencl::handles::kernel_arg(hs, {n}, {}, &mut __argv_{n});",
                    len_expr(len)
                )
                .unwrap();
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
            // An info answer's length, needed to translate it, the driver
            // writes to cltap's slot where the application passed NULL
            // (`app_decl`).
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
                (Some(slot), _) => writeln!(s, "    let f = ::cltap::icd_table::object_slot(__obj, {slot});").unwrap(),
                (None, Some(e)) => writeln!(s, "    let f = crate::opencl::drivers::ext_ptr({e}, __obj);").unwrap(),
                _ => unreachable!(),
            }
        }
        None => match ext {
            Some(e) => {
                writeln!(s, "    let f = crate::opencl::drivers::ext_ptr({e}, ::core::ptr::null_mut());").unwrap()
            }
            None => panic!("{}: slot function without a selecting parameter must be special-cased", f.name),
        },
    }
    writeln!(s, "    if f.is_null() {{ crate::bracket::missing({id}); {} }}", fail_with(f, "-59")).unwrap();
    writeln!(s, "    let f: {fty} = ::core::mem::transmute(f);").unwrap();
    if has_record_path(f) {
        icd_record_path(s, f, id, &args);
    }
    forward(s, f, id, &args, false);
    s.push_str(&after_call(f, true));
    // The application's answer once its handles are cltap's.
    writeln!(s, "    *__ans = Some(r);").unwrap();
    bracket_exit(s, f, id);
    programs_notes(s, f);
    dumps_notes(s, f);
    writeln!(s, "    r").unwrap();
    // A panic before that: the driver's handles cannot reach the
    // application, so the call fails as out of host memory
    // (docs/architecture.md#panics).
    guard_close(s, &format!("    {}\n", fail_with(f, "-6")));
}

/// The statements after the driver's call that give the application
/// cltap's handles wherever the driver returned its own. `own_event`: the
/// whole wrapper, where device timing or the controls may have given the
/// driver an event of cltap's own (`__own`, `__ctl_own`), which the
/// application never sees.
fn after_call(f: &Function, own_event: bool) -> String {
    let mut a = String::new();
    let ok = match f.ret {
        RetKind::Status => "r == 0",
        _ => "true",
    };
    for p in &f.params {
        let n = &p.name;
        match &p.role {
            Role::OutHandle if is_dispatchable(p.pointee()) => {
                // Neither device timing's event nor the controls' reaches
                // the application.
                let own = if own_event && devtime_kind(f) == Some("enqueue") && n == "event" {
                    " && !__own && !__ctl_own"
                } else {
                    ""
                };
                writeln!(a, "    if {ok}{own} && !{n}.is_null() {{ let h = {n} as *mut *mut ::core::ffi::c_void; *h = hs.wrap(*h); }}").unwrap();
            }
            Role::OutArray { cap, count } if is_dispatchable(p.pointee()) => {
                let n_expr = match count {
                    Some(c) => {
                        let cp = f.params.iter().find(|q| &q.name == c).unwrap();
                        format!(
                            "if {c}.is_null() {{ 0 }} else {{ ({} as usize).min(*({c} as *const {}) as usize) }}",
                            len_expr(cap),
                            rust_type(cp.pointee())
                        )
                    }
                    None => len_expr(cap),
                };
                writeln!(a, "    if {ok} && !{n}.is_null() {{ crate::opencl::handles::wrap_array(hs, {n} as *mut *mut ::core::ffi::c_void, {n_expr}); }}").unwrap();
            }
            Role::InfoResult { size } => {
                let sel = f
                    .params
                    .iter()
                    .find(|q| q.name == "param_name")
                    .unwrap_or_else(|| panic!("{}: info result without param_name", f.name));
                let sr = size_ret_param(f);
                writeln!(a, "    if {ok} && !{n}.is_null() {{ crate::opencl::handles::info_out(hs, {:?}, {} as u32, {n}, {size}, *({sr} as *const usize)); }}", f.name, sel.name).unwrap();
            }
            _ => {}
        }
    }
    if f.ret == RetKind::Handle && is_dispatchable(&f.ret_type) {
        writeln!(a, "    let r = hs.wrap(r as *mut ::core::ffi::c_void) as {};", rust_type(&f.ret_type)).unwrap();
    }
    a
}

/// A function with a record path ([`has_record_path`]) takes it in ICD
/// mode too, after its handles are translated: its record opened, the
/// driver called and the answer translated back, the record completed
/// (`crate::bracket::recorded`), while its fast byte says that only the
/// trace looks at it. The whole wrapper's window, errors-only and
/// device-timing checks and the state it keeps across the call are not
/// needed then. Its end time is taken after the translation back, as the
/// whole wrapper's is.
fn icd_record_path(s: &mut String, f: &Function, id: usize, args: &str) {
    writeln!(s, "    if crate::bracket::fast({id}) == crate::bracket::FAST_RECORD {{").unwrap();
    writeln!(
        s,
        "        return crate::bracket::recorded::<{}, _, _>(::cltap::meta::described::{}, &__app, || {{",
        f.has_event_out(),
        f.name
    )
    .unwrap();
    writeln!(s, "            let r = f({args});").unwrap();
    s.push_str(&after_call(f, false));
    writeln!(s, "            *__ans = Some(r);").unwrap();
    writeln!(s, "            r").unwrap();
    writeln!(s, "        }}, |r| {});", ret_word(f)).unwrap();
    writeln!(s, "    }}").unwrap();
}
