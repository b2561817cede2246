//! `CLTAP_ERRORS_ONLY` in the OpenCL wrappers: a creator's `errcode_ret`
//! lent where the application passed NULL, and the failed call recorded
//! after it returned. Nothing of it runs before a call that is not a
//! creator, and after a successful call it is one comparison.

use super::*;

/// Before the call: where the application passed no `errcode_ret` and
/// errors are logged, the driver writes the status to cltap's own slot, so
/// that the failure can be logged with its code. The application's NULL is
/// never written to, and its arguments in the record stay as it passed them.
pub(crate) fn errcode_slot(s: &mut String, f: &Function) {
    let Some(p) = errcode_param(f) else { return };
    writeln!(s, "    let mut __own_err: i32 = 0;").unwrap();
    writeln!(s, "    let {0} = if {0}.is_null() && crate::bracket::errors_only() {{ &mut __own_err as *mut i32 as _ }} else {{ {0} }};", p.name).unwrap();
}

/// Whether the call failed, as errors-only logging decides: a status other
/// than `CL_SUCCESS`, a NULL handle, or a pointer result with an error in
/// `errcode_ret` (`clEnqueueMapBuffer`).
fn error_failed(f: &Function) -> Option<String> {
    match (&f.ret, errcode_param(f)) {
        (RetKind::Status, _) => Some("r != 0".into()),
        (RetKind::Handle, _) => Some("r.is_null()".into()),
        (RetKind::Pointer, Some(p)) => Some(format!("(!{0}.is_null() && *({0} as *const i32) != 0)", p.name)),
        _ => None,
    }
}

/// After a call that was not recorded before it: a failed one is recorded
/// now, if errors are logged (asked only once the call failed).
pub(crate) fn error_record(f: &Function, id: usize) -> String {
    let Some(failed) = error_failed(f) else { return String::new() };
    let errcode = match f.params.iter().position(|p| p.role == Role::Errcode) {
        Some(i) => format!("Some(({i}, {} as u64))", f.params[i].name),
        None => "None".into(),
    };
    format!(
        " if {failed} && crate::bracket::logs_error({id}) {{ crate::bracket::error({id}, {}, &__app, {errcode}); }}",
        ret_word(f)
    )
}
