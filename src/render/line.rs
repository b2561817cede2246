//! A call record's API-log line, written straight from the record: each
//! function's constant text (its name, every `type name = `, the
//! separators) is laid out once from the metadata with the API-log format's
//! own pieces (`cltap_formats::apilog::push_*`), so a line is those pieces
//! copied whole and the values' digits between them. `printer::fill` builds
//! the same line as an `apilog::Call`; the tests hold the two equal for
//! every function.

use super::cursor::{Arena, Cursor, Piece};
use super::timebase::Timebase;
use super::values::Scalar;
use crate::meta::{FnMeta, Kind, Ret};
use crate::trace::record::{Tag, View, FLAG_CMD};
use cltap_formats::apilog::{self, Head};
use std::sync::OnceLock;

/// Constant text, then the value of an argument (none after the last text).
#[derive(Debug, Clone, Copy)]
struct Step {
    text: Piece,
    arg: Option<(u8, Scalar)>,
}

#[derive(Debug, Clone, Copy)]
enum OutValue {
    /// `*errcode_ret`: a status by name.
    Status,
    Scalar(Scalar),
}

#[derive(Debug, Clone, Copy)]
struct Out {
    param: u8,
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
    steps: Box<[Step]>,
    result: Result,
    outs: Box<[Out]>,
    /// Per parameter: its place in `outs`, or [`NOT_OUT`].
    out_of_param: Box<[u8]>,
}

const NOT_OUT: u8 = u8::MAX;

/// Outputs a function may have for its lines to be written here (the most
/// any function has is 4, `clEnqueueMapImage`'s; one with more would take
/// the `Call` path).
const MAX_OUTS: usize = 8;

/// OpenCL statuses kept as pieces: 0 down to this.
const STATUS_SPAN: i32 = 2048;

struct Templates {
    arena: Arena,
    /// By `meta::global_index`; `None` for a function left to the slow path.
    by_fn: Vec<Option<Template>>,
    /// `STATUS_SPAN + 1` pieces, by `-code`; empty where OpenCL names none.
    statuses: Vec<Piece>,
    /// ` = ` before a result, and ` = <did not return>`.
    result_sign: Piece,
    not_returned: Piece,
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
        let by_fn = (0..).map_while(crate::meta::by_global_index).map(|f| Template::build(&mut arena, f)).collect();
        let statuses = (0..=STATUS_SPAN)
            .map(|k| crate::trace::names::status(-k).map(|n| arena.add(n)).unwrap_or_default())
            .collect();
        let mut s = String::new();
        apilog::push_result_sign(&mut s);
        let result_sign = arena.add(&s);
        s.push_str(apilog::NOT_RETURNED);
        let not_returned = arena.add(&s);
        let null = arena.add("NULL");
        let null_open = arena.add("NULL (");
        let not_written = arena.add("(not written)");
        arena.seal();
        Templates { arena, by_fn, statuses, result_sign, not_returned, null, null_open, not_written }
    }
}

impl Template {
    fn build(arena: &mut Arena, f: &FnMeta) -> Option<Template> {
        let mut steps = Vec::new();
        let mut text = String::new();
        apilog::push_open(&mut text, f.name);
        for (i, p) in f.params.iter().enumerate() {
            apilog::push_arg_decl(&mut text, i, p.c_type, p.name);
            let scalar = match p.kind {
                // Handles (HSA's are structs of one word) and pointers by address.
                Kind::Handle | Kind::Pointer => Scalar::Hex,
                // Never recorded: constant text.
                Kind::ByValue { .. } => {
                    text.push_str("{…}");
                    continue;
                }
                _ => Scalar::of(p.c_type),
            };
            steps.push(Step { text: arena.add(&text), arg: Some((u8::try_from(i).ok()?, scalar)) });
            text.clear();
        }
        apilog::push_close(&mut text);
        steps.push(Step { text: arena.add(&text), arg: None });
        let mut outs = Vec::new();
        let mut out_of_param = vec![NOT_OUT; f.params.len()];
        for (i, p) in f.params.iter().enumerate() {
            let value = match p.kind {
                Kind::Errcode => OutValue::Status,
                Kind::OutHandle => OutValue::Scalar(Scalar::Hex),
                Kind::OutValue { .. } => OutValue::Scalar(Scalar::of(p.c_type.trim_end_matches('*'))),
                _ => continue,
            };
            text.clear();
            apilog::push_out_decl(&mut text, p.name);
            out_of_param[i] = outs.len() as u8;
            outs.push(Out { param: i as u8, decl: arena.add(&text), value });
        }
        if outs.len() > MAX_OUTS {
            return None;
        }
        let result = match f.ret {
            Ret::Status => Result::Status,
            Ret::HsaStatus => Result::HsaStatus,
            Ret::Handle | Ret::Pointer => Result::Scalar(Scalar::Hex),
            Ret::Scalar => Result::Scalar(Scalar::of(f.ret_type)),
            Ret::Void => Result::Void,
        };
        Some(Template { steps: steps.into(), result, outs: outs.into(), out_of_param: out_of_param.into() })
    }
}

impl Templates {
    fn status(&self, c: &mut Cursor<'_>, code: i32) {
        if let Some(p) = code.checked_neg().and_then(|k| self.statuses.get(usize::try_from(k).ok()?)) {
            if !p.is_empty() {
                c.put_piece(&self.arena, *p);
                return;
            }
        }
        if let Some(n) = crate::trace::names::status(code) {
            c.put_str(n);
            return;
        }
        scalar(c, Scalar::I32, code as u32 as u64);
    }
}

#[inline(always)]
fn scalar(c: &mut Cursor<'_>, s: Scalar, v: u64) {
    s.put(c, v)
}

/// Appends a call record's line (and the local work size line before it,
/// when the driver chose one). False, with nothing written, for a record
/// this writer leaves to `printer::fill`: not a call of a known function.
pub fn write(text: &mut String, v: &View<'_>, tb: &Timebase) -> bool {
    let h = &v.header;
    let t = templates();
    let Some(Some(tp)) = crate::meta::global_index(h.kind, h.fn_id).and_then(|i| t.by_fn.get(i)) else {
        return false;
    };
    // One pass over the captures: the first output value of each output
    // parameter, and the first local work size.
    let mut seen = 0u32;
    let mut out_words = [None::<u64>; MAX_OUTS];
    let mut lws: Option<&[u8]> = None;
    for (c, d) in v.captures.iter() {
        if c.tag == Tag::Out as u8 {
            let slot = tp.out_of_param.get(c.param as usize).copied().unwrap_or(NOT_OUT);
            if slot != NOT_OUT && seen & (1 << slot) == 0 {
                seen |= 1 << slot;
                out_words[slot as usize] = first_word(d);
            }
        } else if c.tag == Tag::LocalSize as u8 && lws.is_none() {
            lws = Some(d);
        }
    }
    let is_cmd = h.flags & FLAG_CMD != 0;
    if let Some(d) = lws.filter(|d| is_cmd && (1..=3).contains(&(d.len() / 8))) {
        let sizes = crate::decode::words(d, 8);
        apilog::write_entry(text, &apilog::Entry::LocalWorkSize { cmd_id: h.cmd_id, sizes });
    }
    let returned = v.returned();
    let duration = if returned { tb.us(h.t1.saturating_sub(h.t0)) } else { 0 };
    let head = Head::new(h.tid as u64, h.t0, duration, is_cmd.then_some(h.cmd_id));
    let mut c = Cursor::new(text);
    c.put_array(head.buffer(), head.len());
    let arena = &t.arena;
    let arg = |i: u8| v.args.get(i as usize).copied().unwrap_or(0);
    for s in tp.steps.iter() {
        c.put_piece(arena, s.text);
        if let Some((i, sc)) = s.arg {
            scalar(&mut c, sc, arg(i));
        }
    }
    if !returned {
        // The process died in the call: no result, no outputs.
        c.put_piece(arena, t.not_returned);
        c.put_array(b"\n", 1);
        return true;
    }
    match tp.result {
        Result::Void => {}
        Result::Status => {
            c.put_piece(arena, t.result_sign);
            t.status(&mut c, h.ret as u32 as i32);
        }
        Result::HsaStatus => {
            c.put_piece(arena, t.result_sign);
            c.put_str(&crate::trace::names::hsa_status_text(h.ret as u32));
        }
        Result::Scalar(sc) => {
            c.put_piece(arena, t.result_sign);
            scalar(&mut c, sc, h.ret);
        }
    }
    for (o, w) in tp.outs.iter().zip(out_words) {
        c.put_piece(arena, o.decl);
        match (arg(o.param), w, o.value) {
            // CLTAP_ERRORS_ONLY lends a slot where the application passed
            // none: the status is shown beside its NULL.
            (0, Some(w), OutValue::Status) => {
                c.put_piece(arena, t.null_open);
                t.status(&mut c, w as i64 as i32);
                c.put_array(b")", 1);
            }
            (0, _, _) => c.put_piece(arena, t.null),
            (_, None, _) => c.put_piece(arena, t.not_written),
            (_, Some(w), OutValue::Status) => t.status(&mut c, w as i64 as i32),
            (_, Some(w), OutValue::Scalar(sc)) => scalar(&mut c, sc, w),
        }
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
