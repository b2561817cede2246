//! The fast path at the top of a layer-mode wrapper: while nothing records
//! or watches a function (`crate::bracket::fast`), its call is forwarded
//! and at most counted, in a few instructions and a small frame, before
//! anything of the recording path runs.

use super::*;

/// Whether a function's layer-mode wrapper gets the fast path: a table
/// slot (an extension's pointer is looked up per driver) and nothing the
/// wrapper does to its arguments whatever is recorded (the program hooks
/// replace build options and dump sources). Device timing's hooks do
/// nothing while it is off, which the fast path's flag says at run time
/// ([`devtime_hooked`]).
pub(crate) fn has_fast_path(f: &Function) -> bool {
    f.slot.is_some() && !f.windows_only && !f.local && !LAYER_SPECIAL.contains(&f.name.as_str()) && !has_program_hook(f)
}

/// Whether a function's fast path also records it ([`record_path`]): all
/// that its whole wrapper does around a recorded call outside any window,
/// with device timing off, is open the record and complete it. An NDRange
/// launch (`[lws]`) also records the local size the driver chose, so it
/// keeps the whole wrapper. Its ICD-mode wrapper takes the same path once
/// its handles are translated (`icd::icd_record_path`).
pub(crate) fn has_record_path(f: &Function) -> bool {
    has_fast_path(f) && !f.lws
}

/// Whether each function (by id) has a record path.
pub(crate) fn record_paths(api: &Api) -> Vec<bool> {
    api.functions.iter().map(has_record_path).collect()
}

/// Whether each function's (by id) fast path holds only while device
/// timing is off.
pub(crate) fn devtime_hooked(api: &Api) -> Vec<bool> {
    api.functions.iter().map(|f| has_fast_path(f) && devtime_kind(f).is_some()).collect()
}

/// The statements that forward the call and return, when the function's
/// flag allows it; otherwise they fall through to the whole wrapper. A
/// missing driver entry also falls through, so that the whole wrapper
/// reports it.
pub(crate) fn fast_path(f: &Function, id: usize) -> String {
    let slot = f.slot.expect("has_fast_path");
    let (_, fty, args) = signature(f);
    let mut s = String::new();
    writeln!(s, "    let __m = crate::bracket::fast({id});").unwrap();
    writeln!(s, "    if __m != 0 {{").unwrap();
    writeln!(s, "        let f = crate::opencl::next::NEXT.get({slot});").unwrap();
    let present = match dispatch_param(f).filter(|p| p.role == Role::Handle && is_dispatchable(&p.c_type)) {
        Some(p) => format!(
            "!f.is_null() && ({0}.is_null() || !::cltap::icd_table::object_slot({0} as *mut ::core::ffi::c_void, {slot}).is_null())",
            p.name
        ),
        None => "!f.is_null()".into(),
    };
    writeln!(s, "        if {present} {{").unwrap();
    writeln!(s, "            let f: {fty} = ::core::mem::transmute(f);").unwrap();
    if has_record_path(f) {
        writeln!(s, "            if __m == crate::bracket::FAST_RECORD {{ return record_{}({args}); }}", layer_fn(f))
            .unwrap();
    }
    // Forwarding alone returns the driver's call as it is: a tail call,
    // no frame of the layer's around the driver.
    writeln!(s, "            if __m == crate::bracket::FAST_FORWARD {{ return f({args}); }}").unwrap();
    writeln!(s, "            let r = f({args});").unwrap();
    writeln!(
        s,
        "            if __m == crate::bracket::FAST_COUNT {{ crate::bracket::count({id}, {}); }}",
        failed_expr(f)
    )
    .unwrap();
    writeln!(s, "            return r;").unwrap();
    writeln!(s, "        }}").unwrap();
    writeln!(s, "    }}").unwrap();
    s
}

/// The record path a function's fast path takes while its flag is
/// `FAST_RECORD`: its own function, kept out of the fast path's small
/// frame, that records the call on one straight path
/// (`crate::bracket::recorded`). It is `extern "C"`, which cannot unwind,
/// so that the fast path's call of it is a tail call: a Rust-ABI callee
/// needs a landing pad in the `extern "C"` caller. Its driver entry was
/// checked by the fast path; it is loaded again from the table rather than
/// passed in: one more value live across the record's opening cost 5
/// instructions a call (callgrind), the load one.
pub(crate) fn record_path(s: &mut String, f: &Function) {
    let slot = f.slot.expect("has_record_path");
    let (params, fty, args) = signature(f);
    let ret = ret_rust(f);
    writeln!(s, "#[inline(never)] #[allow(non_snake_case, unused_variables, unused_unsafe, clippy::all)]").unwrap();
    writeln!(s, "unsafe extern \"C\" fn record_{}({params}) -> {ret} {{", layer_fn(f)).unwrap();
    writeln!(s, "    // SAFETY: the wrapper's contract: the application's arguments, as the API says they are.")
        .unwrap();
    writeln!(s, "    unsafe {{").unwrap();
    writeln!(s, "    let f: {fty} = ::core::mem::transmute(crate::opencl::next::NEXT.get({slot}));").unwrap();
    s.push_str(&app_decl(f));
    writeln!(
        s,
        "    crate::bracket::recorded::<{}, _, _>(::cltap::meta::described::{}, &__app, || f({args}), |r| {})",
        f.has_event_out(),
        f.name,
        ret_word(f)
    )
    .unwrap();
    writeln!(s, "    }}\n}}").unwrap();
}
