//! The reference a call's API-log line is held to: the line built as an
//! `apilog::Call`, field by field, as the renderer built it before
//! `render::line` wrote lines straight from records, and written by the
//! format's own `write_call`. Kept, frozen, for the tests and the `trace`
//! fuzz target alone, which compare every line with it (plain and
//! decoded): the renderer does not use it.

use super::decoded::push_arg;
use super::timebase::Timebase;
use super::values::{push_hex, push_scalar, push_status};
use crate::decode::words;
use crate::meta::{FnMeta, Kind, Ret};
use crate::trace::names::hsa_status_text;
use crate::trace::record::{Tag, View, FLAG_CMD};
use cltap_formats::apilog::{Arg, Call, Entry};
use std::borrow::Cow;

/// A call record's lines as the reference writes them (the local work size
/// line, then the call); `None` for a record that is not a call of a known
/// function.
pub fn lines(v: &View<'_>, tb: &Timebase, decode: bool) -> Option<String> {
    let mut call = Call {
        tid: 0,
        start: 0,
        duration_us: 0,
        cmd_id: None,
        name: Cow::Borrowed(""),
        args: Vec::new(),
        result: None,
        outs: Vec::new(),
    };
    let lws = fill(&mut call, v, tb, decode)?;
    let mut text = String::new();
    if let Some(e) = lws {
        cltap_formats::apilog::write_entry(&mut text, &e);
    }
    cltap_formats::apilog::write_entry(&mut text, &Entry::Call(call));
    Some(text)
}

/// Puts `src` in `dst`, reusing `dst`'s memory (a result is rewritten for
/// every record).
fn set_text(dst: &mut Option<String>, src: &str) {
    let mut t = dst.take().unwrap_or_default();
    t.clear();
    t.push_str(src);
    *dst = Some(t);
}

/// Fills `call` from the record; returns the local-work-size entry, if any
/// (`None` for a record that is not a call of a known function).
fn fill(call: &mut Call, v: &View<'_>, tb: &Timebase, decode: bool) -> Option<Option<Entry>> {
    let h = &v.header;
    let f: &FnMeta = crate::meta::function(h.kind, h.fn_id)?;
    // Only a command has a command id to name, and the line needs one to
    // three sizes: a capture of any other shape (a damaged trace) is left out
    // rather than written as a line the API-log reader rejects.
    let lws = v
        .captures
        .iter()
        .find(|(c, _)| c.tag == Tag::LocalSize as u8)
        .map(|(_, d)| words(d, 8))
        .filter(|sizes| h.flags & FLAG_CMD != 0 && (1..=3).contains(&sizes.len()))
        .map(|sizes| Entry::LocalWorkSize { cmd_id: h.cmd_id, sizes });
    call.tid = h.tid as u64;
    call.start = h.t0;
    call.duration_us = tb.us(h.t1.saturating_sub(h.t0));
    call.cmd_id = (h.flags & FLAG_CMD != 0).then_some(h.cmd_id);
    call.name = Cow::Borrowed(f.name);
    call.args.resize_with(f.params.len(), || Arg {
        c_type: Cow::Borrowed(""),
        name: Cow::Borrowed(""),
        value: String::new(),
    });
    let mut nouts = 0;
    for (i, p) in f.params.iter().enumerate() {
        let raw = v.args.get(i).copied().unwrap_or(0);
        let a = &mut call.args[i];
        a.c_type = Cow::Borrowed(p.c_type);
        a.name = Cow::Borrowed(p.name);
        a.value.clear();
        match p.kind {
            // Handles (HSA's are structs of one word) and pointers by address.
            Kind::Handle | Kind::Pointer => push_hex(&mut a.value, raw),
            Kind::ByValue { .. } => a.value.push_str("{…}"),
            _ => push_scalar(&mut a.value, p.c_type, raw),
        }
        let mut caps = v.captures.iter().filter(|(c, _)| c.param as usize == i);
        if decode {
            push_arg(&mut a.value, p, i, raw, v, None);
        }
        let is_out = matches!(p.kind, Kind::Errcode | Kind::OutHandle | Kind::OutValue { .. });
        if !is_out {
            continue;
        }
        let out_word = caps.find(|(c, _)| c.tag == Tag::Out as u8).and_then(|(_, d)| words(d, 8).first().copied());
        if call.outs.len() <= nouts {
            call.outs.push((Cow::Borrowed(""), String::new()));
        }
        let (n, val) = &mut call.outs[nouts];
        nouts += 1;
        *n = Cow::Borrowed(p.name);
        val.clear();
        match (raw, out_word) {
            // CLTAP_ERRORS_ONLY lends a slot where the application passed
            // none: the status is shown beside its NULL.
            (0, Some(w)) if p.kind == Kind::Errcode => {
                val.push_str("NULL (");
                push_status(val, w as i64 as i32);
                val.push(')');
            }
            (0, _) => val.push_str("NULL"),
            (_, None) => val.push_str("(not written)"),
            (_, Some(w)) => match p.kind {
                Kind::Errcode => push_status(val, w as i64 as i32),
                Kind::OutHandle => push_hex(val, w),
                _ => push_scalar(val, p.c_type.trim_end_matches('*'), w),
            },
        }
    }
    call.outs.truncate(nouts);
    if !v.returned() {
        // The process died in the call: no end, no result, no outputs.
        call.duration_us = 0;
        call.outs.clear();
        set_text(&mut call.result, cltap_formats::apilog::NOT_RETURNED);
        return Some(lws);
    }
    let mut r = call.result.take().unwrap_or_default();
    r.clear();
    match f.ret {
        Ret::Status => push_status(&mut r, h.ret as u32 as i32),
        Ret::HsaStatus => r.push_str(&hsa_status_text(h.ret as u32)),
        Ret::Handle | Ret::Pointer => push_hex(&mut r, h.ret),
        Ret::Scalar => push_scalar(&mut r, f.ret_type, h.ret),
        Ret::Void => return Some(lws),
    }
    call.result = Some(r);
    Some(lws)
}
