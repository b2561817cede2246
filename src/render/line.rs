//! A call record's API-log line, written straight from the record: each
//! function's constant text (its name, every `type name = `, the
//! separators) is laid out once from the metadata with the API-log format's
//! own pieces (`cltap_formats::apilog::push_*`), so a line is those pieces
//! copied whole and the values' digits between them. The one place that
//! decides how an argument, a result and an output show; a decoded log
//! (`CLTAP_LOG_DECODE`) is the same line with each argument's decoded
//! contents after its value.

use super::cursor::{Arena, Cursor, Piece};
use super::kernel_names::KernelNames;
use super::timebase::Timebase;
use super::values::Scalar;
use crate::meta::{FnMeta, Kind, Ret};
use crate::trace::record::{Tag, View, FLAG_CMD, KIND_HSA_CALL, KIND_OPENCL_CALL};
use cltap_formats::apilog::{self, Head, HEAD_BLANK};
use std::sync::OnceLock;

/// How an argument's word shows.
#[derive(Debug, Clone, Copy)]
enum Value {
    Scalar(Scalar),
    /// A struct passed by value: never recorded, `{…}`.
    Elided,
}

/// An argument: the constant text before its value (the function's name
/// and `(` before the first), and how its value shows.
#[derive(Debug, Clone, Copy)]
struct Step {
    text: Piece,
    value: Value,
}

#[derive(Debug, Clone, Copy)]
enum OutValue {
    /// `*errcode_ret`: a status by name.
    Status,
    Scalar(Scalar),
}

#[derive(Debug, Clone, Copy)]
struct Out {
    param: usize,
    /// `, *name = `.
    decl: Piece,
    value: OutValue,
}

#[derive(Debug, Clone, Copy)]
enum Result {
    Void,
    Status,
    HsaStatus,
    Scalar(Scalar),
}

/// What a function's lines share.
#[derive(Debug)]
struct Template {
    f: &'static FnMeta,
    /// One per parameter, in order.
    steps: Box<[Step]>,
    /// The text after the last argument's value (the function's whole
    /// `name(` for one without parameters, before each of these): `)` and
    /// ` = ` before a result; `) = <did not return>`; and for a call that
    /// succeeded, most of them, `) = CL_SUCCESS` with the first output's
    /// `, *name = `.
    close: Piece,
    close_died: Piece,
    close_ok: Piece,
    result: Result,
    outs: Box<[Out]>,
}

/// OpenCL statuses kept as pieces: 0 down to this.
const STATUS_SPAN: i32 = 2048;

struct Templates {
    arena: Arena,
    /// By function id.
    opencl: Vec<Template>,
    hsa: Vec<Template>,
    /// `STATUS_SPAN + 1` pieces, by `-code`; empty where OpenCL names none.
    statuses: Vec<Piece>,
    elided: Piece,
    null: Piece,
    null_open: Piece,
    not_written: Piece,
}

fn templates() -> &'static Templates {
    static T: OnceLock<Templates> = OnceLock::new();
    T.get_or_init(Templates::build)
}

impl Templates {
    fn build() -> Templates {
        let mut arena = Arena::default();
        let opencl = crate::meta::FUNCTIONS.iter().map(|f| Template::build(&mut arena, f)).collect();
        let hsa = crate::meta::HSA_FUNCTIONS.iter().map(|f| Template::build(&mut arena, f)).collect();
        let statuses = (0..=STATUS_SPAN)
            .map(|k| crate::trace::names::status(-k).map(|n| arena.add(n)).unwrap_or_default())
            .collect();
        let elided = arena.add("{…}");
        let null = arena.add("NULL");
        let null_open = arena.add("NULL (");
        let not_written = arena.add("(not written)");
        arena.seal();
        Templates { arena, opencl, hsa, statuses, elided, null, null_open, not_written }
    }

    /// The template of a call record's function; `None` for a record that
    /// is not a call, or a function id past its API's table.
    #[inline(always)]
    fn of(&self, kind: u16, fn_id: u16) -> Option<&Template> {
        match kind {
            KIND_OPENCL_CALL => self.opencl.get(fn_id as usize),
            KIND_HSA_CALL => self.hsa.get(fn_id as usize),
            _ => None,
        }
    }
}

impl Template {
    fn build(arena: &mut Arena, f: &'static FnMeta) -> Template {
        let mut steps = Vec::new();
        let mut text = String::new();
        apilog::push_open(&mut text, f.name);
        for (i, p) in f.params.iter().enumerate() {
            apilog::push_arg_decl(&mut text, i, p.c_type, p.name);
            let value = match p.kind {
                // Handles (HSA's are structs of one word) and pointers by address.
                Kind::Handle | Kind::Pointer => Value::Scalar(Scalar::Hex),
                Kind::ByValue { .. } => Value::Elided,
                _ => Value::Scalar(Scalar::of(p.c_type)),
            };
            steps.push(Step { text: arena.add(&text), value });
            text.clear();
        }
        apilog::push_close(&mut text);
        let open_close = text.clone();
        let mut outs = Vec::new();
        for (param, p) in f.params.iter().enumerate() {
            let value = match p.kind {
                Kind::Errcode => OutValue::Status,
                Kind::OutHandle => OutValue::Scalar(Scalar::Hex),
                Kind::OutValue { .. } => OutValue::Scalar(Scalar::of(p.c_type.trim_end_matches('*'))),
                _ => continue,
            };
            text.clear();
            apilog::push_out_decl(&mut text, p.name);
            outs.push(Out { param, decl: arena.add(&text), value });
        }
        let result = match f.ret {
            Ret::Status => Result::Status,
            Ret::HsaStatus => Result::HsaStatus,
            Ret::Handle | Ret::Pointer => Result::Scalar(Scalar::Hex),
            Ret::Scalar => Result::Scalar(Scalar::of(f.ret_type)),
            Ret::Void => Result::Void,
        };
        let mut close = open_close.clone();
        if !matches!(result, Result::Void) {
            apilog::push_result_sign(&mut close);
        }
        let mut died = open_close.clone();
        apilog::push_result_sign(&mut died);
        died.push_str(apilog::NOT_RETURNED);
        let mut ok = close.clone();
        ok.push_str(match result {
            Result::Status => crate::trace::names::status(0).unwrap_or_default(),
            Result::HsaStatus => crate::trace::names::hsa_status(0).unwrap_or_default(),
            _ => "",
        });
        if let Some(first) = f.params.get(outs.first().map_or(usize::MAX, |o: &Out| o.param)) {
            apilog::push_out_decl(&mut ok, first.name);
        }
        Template {
            f,
            steps: steps.into(),
            close: arena.add(&close),
            close_died: arena.add(&died),
            close_ok: arena.add(&ok),
            result,
            outs: outs.into(),
        }
    }
}

impl Templates {
    /// An OpenCL status by name (or its number, for one OpenCL does not define).
    #[inline(always)]
    fn status(&self, c: &mut Cursor<'_>, code: i32) {
        match self.statuses.get(code.unsigned_abs() as usize) {
            Some(p) if code <= 0 && !p.is_empty() => c.put_piece(&self.arena, *p),
            _ => match status_name(code) {
                Some(n) => c.put_str(n),
                None => Scalar::I32.put(c, code as u32 as u64),
            },
        }
    }

    /// An output's value.
    #[inline(always)]
    fn out(&self, c: &mut Cursor<'_>, o: &Out, v: &View<'_>) {
        // The first output value captured for the parameter (`None` when
        // it holds less than a word).
        let w = v
            .captures
            .iter()
            .find(|(c, _)| c.tag == Tag::Out as u8 && c.param as usize == o.param)
            .and_then(|(_, d)| first_word(d));
        match (v.args.get(o.param).copied().unwrap_or(0), w, o.value) {
            // CLTAP_ERRORS_ONLY lends a slot where the application passed
            // none: the status is shown beside its NULL.
            (0, Some(w), OutValue::Status) => {
                c.put_piece(&self.arena, self.null_open);
                self.status(c, w as i64 as i32);
                c.put_array(b")", 1);
            }
            (0, _, _) => c.put_piece(&self.arena, self.null),
            (_, None, _) => c.put_piece(&self.arena, self.not_written),
            (_, Some(w), OutValue::Status) => self.status(c, w as i64 as i32),
            (_, Some(w), OutValue::Scalar(sc)) => sc.put(c, w),
        }
    }
}

/// A status outside the pieces kept (apart from the cursor, which then
/// stays in registers).
#[cold]
#[inline(never)]
fn status_name(code: i32) -> Option<&'static str> {
    crate::trace::names::status(code)
}

/// Appends a call record's line (and the local work size line before it,
/// when the driver chose one), with each argument's decoded contents when
/// `decode` (and kernels' names where it has them). False, with nothing written, for a record that is not a call
/// of a known function.
#[inline]
pub fn write(text: &mut String, v: &View<'_>, tb: &Timebase, decode: Option<Option<&KernelNames>>) -> bool {
    match decode {
        Some(names) => write_as::<true>(text, v, tb, names),
        None => write_as::<false>(text, v, tb, None),
    }
}

#[inline(always)]
fn write_as<const DECODE: bool>(text: &mut String, v: &View<'_>, tb: &Timebase, names: Option<&KernelNames>) -> bool {
    let h = &v.header;
    let t = templates();
    let Some(tp) = t.of(h.kind, h.fn_id) else {
        return false;
    };
    let is_cmd = h.flags & FLAG_CMD != 0;
    if is_cmd {
        // Only a command has a command id to name, and the line needs one
        // to three sizes: a capture of any other shape (a damaged trace) is
        // left out rather than written as a line the API-log reader rejects.
        let lws = v.captures.iter().find(|(c, _)| c.tag == Tag::LocalSize as u8).map(|(_, d)| &**d);
        if let Some(d) = lws.filter(|d| (1..=3).contains(&(d.len() / 8))) {
            let sizes = crate::decode::words(d, 8);
            apilog::write_entry(text, &apilog::Entry::LocalWorkSize { cmd_id: h.cmd_id, sizes });
        }
    }
    let returned = v.returned();
    let duration = if returned { tb.us(h.t1.saturating_sub(h.t0)) } else { 0 };
    let mut c = Cursor::new(text);
    c.put_patched(&HEAD_BLANK, |b| Head::write_over(b, h.tid as u64, h.t0, duration, is_cmd.then_some(h.cmd_id)));
    let arena = &t.arena;
    let arg = |i: usize| v.args.get(i).copied().unwrap_or(0);
    for (i, s) in tp.steps.iter().enumerate() {
        c.put_piece(arena, s.text);
        match s.value {
            Value::Scalar(sc) => sc.put(&mut c, arg(i)),
            Value::Elided => c.put_piece(arena, t.elided),
        }
        if DECODE {
            c.with_string(|text| super::decoded::push_arg(text, &tp.f.params[i], i, arg(i), v, names));
        }
    }
    if !returned {
        // The process died in the call: no result, no outputs.
        c.put_piece(arena, tp.close_died);
        c.put_array(b"\n", 1);
        return true;
    }
    let mut outs = &tp.outs[..];
    let succeeded = match tp.result {
        Result::Status | Result::HsaStatus => h.ret as u32 == 0,
        _ => false,
    };
    if succeeded {
        // The status and the first output's name are constant text.
        c.put_piece(arena, tp.close_ok);
        if let Some((o, rest)) = outs.split_first() {
            t.out(&mut c, o, v);
            outs = rest;
        }
    } else {
        c.put_piece(arena, tp.close);
        match tp.result {
            Result::Void => {}
            Result::Status => t.status(&mut c, h.ret as u32 as i32),
            Result::HsaStatus => c.put_str(&crate::trace::names::hsa_status_text(h.ret as u32)),
            Result::Scalar(sc) => sc.put(&mut c, h.ret),
        }
    }
    for o in outs {
        c.put_piece(arena, o.decl);
        t.out(&mut c, o, v);
    }
    c.put_array(b"\n", 1);
    true
}

/// The first word of a capture (`None` when it holds less).
#[inline]
fn first_word(d: &[u8]) -> Option<u64> {
    d.get(..8).map(|w| u64::from_ne_bytes(w.try_into().unwrap()))
}

#[cfg(test)]
#[path = "line_tests.rs"]
mod tests;
