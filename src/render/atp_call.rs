//! The `.atp`'s API line of one call (RCP's output-file documentation,
//! docs/platform-facts.md#public-documents): its result and every argument
//! as RCP's Linux build writes them, with what the record captured behind
//! the pointers.

use super::decoded::{symbolic, text_prefix};
use super::values::{is_pointer_type, scalar};
use crate::decode::words;
use crate::meta::{FnMeta, Kind, ParamMeta, Ret};
use crate::trace::names::status_text;
use crate::trace::record::{Capture, Tag, View};
use cltap_formats::atp::{self, ApiCall};

/// A handle or pointer as RCP's Linux build prints it: `0x` and lower-case
/// digits, unpadded; NULL for 0.
fn hex(v: u64) -> String {
    if v == 0 {
        "NULL".into()
    } else {
        format!("{v:#x}")
    }
}

/// A value of C type `t` as the API trace writes it: enum and bitfield
/// names where known, handles and pointers in hex, numbers in decimal.
fn value(t: &str, v: u64) -> String {
    let t = t.trim_start_matches("const ").trim_end_matches('*').trim();
    if let Some(n) = symbolic(t, v) {
        // RCP joins flags without spaces.
        return n.replace(" | ", "|");
    }
    if is_pointer_type(t) {
        hex(v)
    } else {
        scalar(t, v)
    }
}

/// The API line of one call: `Ret = Name ( a;b;c )`.
pub fn api_call(f: &FnMeta, v: &View<'_>) -> ApiCall {
    let args = f.params.iter().enumerate().map(|(i, p)| {
        let raw = v.args.get(i).copied().unwrap_or(0);
        let caps: Vec<(&Capture, &[u8])> =
            v.captures.iter().filter(|(c, _)| c.param as usize == i).map(|(c, d)| (c, &**d)).collect();
        arg(p, raw, &caps)
    });
    let ret = match f.ret {
        Ret::Status => status_text(v.header.ret as u32 as i32),
        Ret::HsaStatus => crate::trace::names::hsa_status_text(v.header.ret as u32),
        Ret::Handle | Ret::Pointer => hex(v.header.ret),
        Ret::Scalar => scalar(f.ret_type, v.header.ret),
        Ret::Void => String::new(),
    };
    ApiCall { ret, name: f.name.to_string(), args: args.collect() }
}

fn list(items: impl Iterator<Item = String>) -> String {
    format!("[{}]", items.collect::<Vec<_>>().join(","))
}

fn arg(p: &ParamMeta, raw: u64, caps: &[(&Capture, &[u8])]) -> String {
    // A struct passed by value (HSA) is not recorded.
    if let Kind::ByValue { .. } = p.kind {
        return "{…}".into();
    }
    let is_ptr = !matches!(p.kind, Kind::Scalar | Kind::Handle);
    if raw == 0 && (is_ptr || p.kind == Kind::Handle) {
        return "NULL".into();
    }
    let pointee = p.c_type.trim_start_matches("const ").trim_end_matches('*').trim();
    let first = caps.first();
    match (p.kind, first) {
        (Kind::Scalar, _) => value(p.c_type, raw),
        (Kind::Handle, _) => hex(raw),
        (Kind::InArray { elem, .. }, Some((c, d))) | (Kind::OutArray { elem, .. }, Some((c, d)))
            if c.tag == Tag::Array as u8 || c.tag == Tag::OutArray as u8 =>
        {
            list(words(d, elem).into_iter().map(|w| value(pointee, w)))
        }
        (Kind::InString, Some((_, d))) => quoted(d),
        (Kind::InStrings { .. }, _) if !caps.is_empty() => list(caps.iter().map(|(_, d)| quoted(d))),
        (Kind::Errcode, Some((c, d))) if c.tag == Tag::Out as u8 => format!("[{}]", status_text(word(d) as i64 as i32)),
        (Kind::OutHandle, Some((c, d))) if c.tag == Tag::Out as u8 => format!("[{}]", hex(word(d))),
        (Kind::OutValue { .. }, Some((c, d))) if c.tag == Tag::Out as u8 => format!("[{}]", value(pointee, word(d))),
        (Kind::Properties(_), Some((_, d))) => {
            let w = words(d, 8);
            let pairs = w.chunks(2).flat_map(|kv| {
                let v = kv.get(1).copied().unwrap_or(0);
                // Only the platform is a handle; other values are numbers or bits.
                let shown = if kv[0] == CL_CONTEXT_PLATFORM { hex(v) } else { v.to_string() };
                [value(pointee, kv[0]), shown]
            });
            format!("[{{{}}}]", pairs.chain(std::iter::once("NULL".to_string())).collect::<Vec<_>>().join(","))
        }
        (Kind::Info { .. }, Some((_, d))) => match text_prefix(d) {
            Some(t) => format!("[{}]", quoted(t)),
            None if d.len() == 4 || d.len() == 8 => format!("[{}]", word(d)),
            None => hex(raw),
        },
        _ => hex(raw),
    }
}

const CL_CONTEXT_PLATFORM: u64 = 0x1084;

/// A string as RCP writes one, in double quotes with C escapes.
fn quoted(d: &[u8]) -> String {
    let mut s = String::new();
    atp::push_quoted(&mut s, &String::from_utf8_lossy(d));
    s
}

fn word(d: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    let n = d.len().min(8);
    w[..n].copy_from_slice(&d[..n]);
    u64::from_ne_bytes(w)
}
