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

/// The ids of the functions whose fast path holds only while device timing
/// is off.
pub(crate) fn devtime_hooked(api: &Api) -> Vec<usize> {
    api.functions
        .iter()
        .enumerate()
        .filter(|(_, f)| has_fast_path(f) && devtime_kind(f).is_some())
        .map(|(i, _)| i)
        .collect()
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
