//! The event checks and execution controls in the wrappers of the calls
//! they hook (`icd-layer/src/opencl/controls.rs`): queue creation (in-order
//! queues), every call with an event wait list (the checks), and every
//! enqueue that returns an event (finish, flush, skip). With every control
//! off, each hook is one relaxed load; no other wrapper has any of it.

use super::*;

/// A function's wait list: the list's parameter, its length's, and the
/// expression that says whether the call blocks until the list completes.
fn wait_list(f: &Function) -> Option<(&Param, String, String)> {
    let p = f.params.iter().find(|p| {
        matches!(p.role, Role::InArray { .. })
            && p.pointee() == "cl_event"
            && (p.name == "event_wait_list" || p.name == "event_list")
    })?;
    let Role::InArray { len: Len::Param(n) } = &p.role else { return None };
    let blocking = if f.name == "clWaitForEvents" {
        "true".to_string()
    } else {
        match f.params.iter().find(|q| q.name.starts_with("blocking") && q.c_type == "cl_bool") {
            Some(b) => format!("{} != 0", b.name),
            None => "false".to_string(),
        }
    };
    Some((p, n.clone(), blocking))
}

/// What the controls do in a function's wrapper.
fn kind(f: &Function) -> Option<&'static str> {
    Some(match f.name.as_str() {
        "clCreateCommandQueue" => "queue_bits",
        "clCreateCommandQueueWithProperties" | "clCreateCommandQueueWithPropertiesKHR" => "queue_list",
        _ if devtime_kind(f) == Some("enqueue") => "enqueue",
        _ if wait_list(f).is_some() => "waits",
        _ => return None,
    })
}

/// Whether each function's (by id) fast path holds only while every
/// control is off.
pub(crate) fn controls_hooked(api: &Api) -> Vec<bool> {
    api.functions.iter().map(|f| has_fast_path(f) && kind(f).is_some()).collect()
}

const BITS: &str = "::cltap::controls::bits()";

/// Before the call, before device timing's changes (its remembered
/// properties are then the driver's): the queue's properties made in
/// order, and the wait list checked, its findings noted before the call's
/// own record. `icd`: the handles are the driver's, translated from the
/// application's.
pub(crate) fn controls_pre(s: &mut String, f: &Function, icd: bool) {
    match kind(f) {
        Some("queue_bits") => {
            writeln!(s, "    let properties = if {BITS} & ::cltap::controls::IN_ORDER != 0 {{ ::cltap::controls::queues::in_order_bits(properties) }} else {{ properties }};").unwrap();
        }
        Some("queue_list") => {
            writeln!(s, "    let __ctl_props = if {BITS} & ::cltap::controls::IN_ORDER != 0 {{ ::cltap::controls::queues::in_order_list(properties as *const u64) }} else {{ None }};").unwrap();
            writeln!(s, "    let properties = __ctl_props.as_ref().map_or(properties, |v| v.as_ptr() as *mut ::core::ffi::c_void);").unwrap();
        }
        _ => {}
    }
    if let Some((list, count, blocking)) = wait_list(f) {
        let queue = match f.params.first() {
            Some(p) if p.c_type == "cl_command_queue" => format!("{} as *mut ::core::ffi::c_void", p.name),
            _ => "::core::ptr::null_mut()".to_string(),
        };
        let idx = f.param_index(&list.name).expect("the list is a parameter");
        let hs = if icd { "Some(hs)" } else { "None" };
        writeln!(s, "    if {BITS} & ::cltap::controls::CHECKS != 0 {{ crate::opencl::controls::check_list({:?}, {:?}, {queue}, {count} as u32, {} as *const *mut ::core::ffi::c_void, __app[{idx}] as *const *mut ::core::ffi::c_void, {blocking}, {hs}); }}", f.name, list.name, list.name).unwrap();
    }
}

/// After device timing's event is in place: an event of the controls'
/// own where finish-after-enqueue needs one to read the command's status
/// and the application asked for none (`__ctl_own`; the application never
/// sees it).
pub(crate) fn controls_enqueue(s: &mut String, f: &Function) {
    if kind(f) != Some("enqueue") {
        return;
    }
    writeln!(s, "    let __ctl = {BITS};").unwrap();
    writeln!(s, "    let mut __ctl_ev: *mut ::core::ffi::c_void = ::core::ptr::null_mut();").unwrap();
    writeln!(s, "    let __ctl_own = __ctl & ::cltap::controls::FINISH != 0 && event.is_null();").unwrap();
    writeln!(
        s,
        "    let event = if __ctl_own {{ &mut __ctl_ev as *mut _ as *mut ::core::ffi::c_void }} else {{ event }};"
    )
    .unwrap();
}

/// The driver's call (`f(args)`), or, for an enqueue that returns a status
/// while enqueues are skipped, cltap's answer instead.
pub(crate) fn controls_call(f: &Function, args: &str) -> String {
    if kind(f) == Some("enqueue") && f.ret == RetKind::Status {
        format!("if __ctl & ::cltap::controls::SKIP != 0 {{ crate::opencl::controls::skipped(command_queue as *mut ::core::ffi::c_void, event as *mut *mut ::core::ffi::c_void) }} else {{ f({args}) }}")
    } else {
        format!("f({args})")
    }
}

/// Right after the call (handles are still the driver's): the flush or
/// the finish, and what failed named.
pub(crate) fn controls_post(s: &mut String, f: &Function) {
    if kind(f) != Some("enqueue") {
        return;
    }
    let ok = match f.ret {
        RetKind::Status => "r == 0",
        _ => "!r.is_null()",
    };
    let kernel = match f.params.iter().find(|p| p.name == "kernel" && p.role == Role::Handle) {
        Some(p) => format!("{} as *mut ::core::ffi::c_void", p.name),
        None => "::core::ptr::null_mut()".into(),
    };
    writeln!(s, "    if __ctl & (::cltap::controls::FINISH | ::cltap::controls::FLUSH) != 0 {{ crate::opencl::controls::after_enqueue({:?}, __t.cmd, __ctl, command_queue as *mut ::core::ffi::c_void, {ok}, event as *mut *mut ::core::ffi::c_void, __ctl_own, {kernel}); }}", f.name).unwrap();
}
