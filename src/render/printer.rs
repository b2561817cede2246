//! Binary records to API-log entries: `print` picks the writer of each
//! record's lines (`line` for calls, `comments` for other records), and
//! `fill` builds a call as an `apilog::Call` (for decoded logs, which add
//! each value's meaning, and for `entries`). Driven by the generated
//! metadata: no per-function formatting code.

use super::values::{push_hex, push_scalar, push_status, scalar};
use crate::decode::words;
use crate::meta::{FnMeta, Kind, Ret};
use crate::trace::names::hsa_status_text;
use crate::trace::record::{Tag, View, FLAG_CMD};
use cltap_formats::apilog::{Arg, Call, Entry};
use std::borrow::Cow;
use std::fmt::Write;

pub use super::timebase::Timebase;

#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Add decoded contents after each raw value.
    pub decode: bool,
}

pub(crate) fn quoted(b: &[u8]) -> String {
    let mut s = String::from("\"");
    for c in String::from_utf8_lossy(b).chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            c if c.is_control() => {
                let _ = write!(s, "\\x{:02x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

/// The symbolic name of an enum value, or the names of a bitfield's bits.
pub(crate) fn symbolic(c_type: &str, v: u64) -> Option<String> {
    if c_type == "hsa_status_t" {
        return crate::trace::names::hsa_status(v as u32).map(str::to_string);
    }
    let groups = if c_type.starts_with("hsa_") { crate::trace::hsa_enums::GROUPS } else { crate::trace::enums::GROUPS };
    let g = groups.iter().find(|g| g.c_type == c_type)?;
    let bitfield = g.bitfield || c_type.ends_with("_flags") || c_type.ends_with("capabilities");
    if !bitfield {
        return g.values.iter().find(|(x, _)| *x == v).map(|(_, n)| n.to_string());
    }
    if v == 0 {
        return None;
    }
    // A named combination (CL_DEVICE_TYPE_ALL) reads better than its bits.
    if let Some((_, n)) = g.values.iter().find(|(x, _)| *x == v && x.count_ones() > 1) {
        return Some(n.to_string());
    }
    let mut names = Vec::new();
    let mut rest = v;
    for (bit, n) in g.values {
        if bit.count_ones() == 1 && v & bit != 0 {
            names.push(n.to_string());
            rest &= !bit;
        }
    }
    if rest != 0 {
        names.push(format!("{rest:#x}"));
    }
    (!names.is_empty()).then(|| names.join(" | "))
}

/// A NUL-terminated printable string at the start of `data`, if that is
/// what it holds.
pub(crate) fn text_prefix(data: &[u8]) -> Option<&[u8]> {
    let end = data.iter().position(|&b| b == 0)?;
    let s = &data[..end];
    (end > 0 && s.iter().all(|b| (0x20..0x7f).contains(b) || *b == b'\n' || *b == b'\t')).then_some(s)
}

/// The decoded form of one parameter's captured contents.
fn decoded(p: &crate::meta::ParamMeta, caps: &[(&crate::trace::record::Capture, &[u8])]) -> Option<String> {
    let (c, data) = caps.first()?;
    let more =
        |shown: usize, total: u64| if (shown as u64) < total { format!(", … {total} in all") } else { String::new() };
    Some(match (Tag::from_u8(c.tag)?, p.kind) {
        (Tag::Array, Kind::InArray { elem, .. }) | (Tag::OutArray, Kind::OutArray { elem, .. }) => {
            let pointee = p.c_type.trim_start_matches("const ").trim_end_matches('*');
            let w = words(data, elem);
            let items: Vec<String> = if elem > 8 {
                vec![format!("{} bytes", data.len())]
            } else {
                w.iter().map(|&v| scalar(pointee, v)).collect()
            };
            format!("{{{}{}}}", items.join(", "), more(w.len(), c.total))
        }
        (Tag::Str, Kind::InStrings { .. }) => {
            let v: Vec<String> = caps
                .iter()
                .map(|(c, d)| {
                    format!(
                        "{}{}",
                        quoted(d),
                        if (d.len() as u64) < c.total { format!("…({} bytes)", c.total) } else { String::new() }
                    )
                })
                .collect();
            format!("{{{}}}", v.join(", "))
        }
        (Tag::Str, _) => {
            let mut s = quoted(data);
            if (data.len() as u64) < c.total {
                let _ = write!(s, "…({} bytes)", c.total);
            }
            s
        }
        (Tag::Bytes, _) if text_prefix(data).is_some() => quoted(text_prefix(data).unwrap()),
        (Tag::Bytes, _)
            if matches!(p.kind, Kind::Info { .. })
                && (data.len() == 4 || data.len() == 8)
                && c.total as usize == data.len() =>
        {
            words(data, data.len())[0].to_string()
        }
        (Tag::Bytes, _) => {
            let mut s = String::from("[");
            for (i, b) in data.iter().enumerate() {
                if i > 0 {
                    s.push(' ');
                }
                let _ = write!(s, "{b:02x}");
            }
            if (data.len() as u64) < c.total {
                let _ = write!(s, " … {} bytes", c.total);
            }
            s.push(']');
            s
        }
        (Tag::Props, _) => {
            let w = words(data, 8);
            let items: Vec<String> = w.iter().map(|v| format!("{:#x}", v)).collect();
            format!("{{{}, 0}}", items.join(", "))
        }
        _ => return None,
    })
}

/// The log entries for one record: the call, preceded by the local work size
/// line when the driver chose one. The record's kind says whose function it
/// is (OpenCL's or HSA's).
pub fn entries(v: &View<'_>, tb: &Timebase, opt: Options) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut call = empty_call();
    if let Some(lws) = fill(&mut call, v, tb, opt) {
        out.push(lws);
    }
    match crate::meta::function(v.header.kind, v.header.fn_id) {
        Some(_) => out.push(Entry::Call(call)),
        None => out.push(Entry::Comment(super::comments::unknown(v))),
    }
    out
}

pub fn empty_call() -> Call {
    Call {
        tid: 0,
        start: 0,
        duration_us: 0,
        cmd_id: None,
        name: Cow::Borrowed(""),
        args: Vec::new(),
        result: None,
        outs: Vec::new(),
    }
}

/// Appends one record's lines to `text` (the writer thread's hot loop).
/// A call is written straight from the record (`line`); with decoded
/// contents it is built as a `Call` first, reusing `call`'s storage.
pub fn print(text: &mut String, call: &mut Call, v: &View<'_>, tb: &Timebase, opt: Options) {
    if !opt.decode && super::line::write(text, v, tb) {
        return;
    }
    if let Some(c) = super::comments::comment(v) {
        cltap_formats::apilog::write_entry(text, &Entry::Comment(c));
        return;
    }
    if let Some(lws) = fill(call, v, tb, opt) {
        cltap_formats::apilog::write_entry(text, &lws);
    }
    cltap_formats::apilog::write_call(text, call);
    text.push('\n');
}

/// Puts `src` in `dst`, reusing `dst`'s memory (a result is rewritten for
/// every record).
fn set_text(dst: &mut Option<String>, src: &str) {
    let mut t = dst.take().unwrap_or_default();
    t.clear();
    t.push_str(src);
    *dst = Some(t);
}

/// Fills `call` from the record; returns the local-work-size entry, if any.
fn fill(call: &mut Call, v: &View<'_>, tb: &Timebase, opt: Options) -> Option<Entry> {
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
        if opt.decode {
            if p.kind == Kind::Scalar {
                if let Some(n) = symbolic(p.c_type, raw) {
                    a.value.push_str(" (");
                    a.value.push_str(&n);
                    a.value.push(')');
                }
            }
            let all: Vec<_> =
                v.captures.iter().filter(|(c, _)| c.param as usize == i).map(|(c, d)| (c, &**d)).collect();
            if let Some(d) = decoded(p, &all) {
                a.value.push(' ');
                a.value.push_str(&d);
            }
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
        return lws;
    }
    let mut r = call.result.take().unwrap_or_default();
    r.clear();
    match f.ret {
        Ret::Status => push_status(&mut r, h.ret as u32 as i32),
        Ret::HsaStatus => r.push_str(&hsa_status_text(h.ret as u32)),
        Ret::Handle | Ret::Pointer => push_hex(&mut r, h.ret),
        Ret::Scalar => push_scalar(&mut r, f.ret_type, h.ret),
        Ret::Void => return lws,
    }
    call.result = Some(r);
    lws
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitfields_and_enums_by_name() {
        assert_eq!(symbolic("cl_mem_flags", 1 | 32).as_deref(), Some("CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR"));
        assert_eq!(symbolic("cl_platform_info", 0x902).as_deref(), Some("CL_PLATFORM_NAME"));
        assert_eq!(symbolic("cl_platform_info", 0x1), None);
        assert_eq!(symbolic("cl_device_type", 0xFFFF_FFFF).as_deref(), Some("CL_DEVICE_TYPE_ALL"));
        // HSA: the AMD extension's attributes ride on the core parameter types.
        assert_eq!(symbolic("hsa_agent_info_t", 17).as_deref(), Some("HSA_AGENT_INFO_DEVICE"));
        assert_eq!(symbolic("hsa_agent_info_t", 0xA002).as_deref(), Some("HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT"));
        assert_eq!(symbolic("hsa_signal_condition_t", 2).as_deref(), Some("HSA_SIGNAL_CONDITION_LT"));
        assert_eq!(symbolic("hsa_queue_type32_t", 1).as_deref(), Some("HSA_QUEUE_TYPE_SINGLE"));
        assert_eq!(symbolic("hsa_agent_info_t", 0x7777), None);
    }
    use crate::meta::{by_name, FUNCTIONS};
    use crate::trace::capture::write_record;
    use crate::trace::record::{records, MAX_RECORD};

    #[test]
    fn get_device_info_prints_like_the_seed() {
        let id = by_name("clGetDeviceInfo").unwrap();
        let mut scratch = vec![0u8; MAX_RECORD];
        let value = *b"NVIDIA H200\0";
        let mut size_ret = 12usize;
        let args = [0xCF2050u64, 4139, 24, value.as_ptr() as u64, &mut size_ret as *mut usize as u64];
        let n = unsafe { write_record(&mut scratch, id, &FUNCTIONS[id], 5780, None, 1000, 1068, 0, &args, None) };
        let v = records(&scratch[..n]).next().unwrap();
        let tb = Timebase { ticks_per_us: 1.0 };
        let e = entries(&v, &tb, Options::default());
        let mut s = String::new();
        cltap_formats::apilog::write_entry(&mut s, &e[0]);
        assert_eq!(
            s.trim_end(),
            format!(
                "TID      5780    START TIME 0x00000000000003e8    DURATION 0x0000000000000044{:25}clGetDeviceInfo(cl_device_id device = 0000000000CF2050, cl_device_info param_name = 4139, size_t param_value_size = 24, void* param_value = {:016X}, size_t* param_value_size_ret = {:016X}) = CL_SUCCESS, *param_value_size_ret = 12",
                "",
                value.as_ptr() as u64,
                &mut size_ret as *mut usize as u64
            )
        );
        let e = entries(&v, &tb, Options { decode: true });
        let Entry::Call(c) = &e[0] else { panic!() };
        assert_eq!(c.args[1].value, "4139 (CL_DEVICE_NAME)");
        assert!(c.args[3].value.ends_with(" \"NVIDIA H200\""), "{}", c.args[3].value);
    }

    #[test]
    fn hsa_calls_print_with_their_status_and_handles() {
        use crate::meta::{hsa_by_name, HSA_FUNCTIONS};
        use crate::trace::capture::{complete_record, open_record};
        use crate::trace::record::KIND_HSA_CALL;
        let id = hsa_by_name("hsa_queue_create").unwrap();
        let f = &HSA_FUNCTIONS[id];
        let mut q: u64 = 0x7F12_3456_7890;
        let args = [0x5A5Au64, 4096, 0, 0, 0, u32::MAX as u64, 0, &mut q as *mut u64 as u64];
        let mut scratch = vec![0u8; MAX_RECORD];
        let n = unsafe {
            open_record(&mut scratch, KIND_HSA_CALL, id, f, 42, None, 100, &args);
            complete_record::<KIND_HSA_CALL>(&mut scratch, f, 130, 0, &args, None)
        };
        let v = records(&scratch[..n]).next().unwrap();
        let tb = Timebase { ticks_per_us: 1.0 };
        let e = entries(&v, &tb, Options::default());
        let mut s = String::new();
        cltap_formats::apilog::write_entry(&mut s, &e[0]);
        assert_eq!(
            s.trim_end(),
            format!(
                "TID        42    START TIME 0x0000000000000064    DURATION 0x000000000000001e{:25}hsa_queue_create(hsa_agent_t agent = 0000000000005A5A, uint32_t size = 4096, hsa_queue_type32_t type = 0, hsa_cb_queue_error callback = 0000000000000000, void* data = 0000000000000000, uint32_t private_segment_size = 4294967295, uint32_t group_segment_size = 0, hsa_queue_t** queue = {:016X}) = HSA_STATUS_SUCCESS, *queue = 00007F1234567890",
                "",
                &mut q as *mut u64 as u64
            )
        );
        // A failure by name; the same function id as OpenCL's prints HSA's function.
        drop(v);
        let n = unsafe {
            open_record(&mut scratch, KIND_HSA_CALL, id, f, 42, None, 100, &args);
            complete_record::<KIND_HSA_CALL>(&mut scratch, f, 130, 0x1001, &args, None)
        };
        let v = records(&scratch[..n]).next().unwrap();
        let Entry::Call(c) = &entries(&v, &tb, Options::default())[0] else { panic!() };
        assert_eq!(c.result.as_deref(), Some("HSA_STATUS_ERROR_INVALID_ARGUMENT"));
        assert_eq!(c.outs, [("queue".into(), "(not written)".to_string())]);
        // A signal value is signed; a status argument decodes to its name.
        let id = hsa_by_name("hsa_signal_wait_scacquire").unwrap();
        let args = [0x77u64, 2, (-1i64) as u64, u64::MAX, 0];
        drop(v);
        let n = unsafe {
            open_record(&mut scratch, KIND_HSA_CALL, id, &HSA_FUNCTIONS[id], 1, None, 0, &args);
            complete_record::<KIND_HSA_CALL>(&mut scratch, &HSA_FUNCTIONS[id], 0, (-5i64) as u64, &args, None)
        };
        let v = records(&scratch[..n]).next().unwrap();
        let Entry::Call(c) = &entries(&v, &tb, Options::default())[0] else { panic!() };
        assert_eq!(c.args[2].value, "-1");
        assert_eq!(c.result.as_deref(), Some("-5"));
        let id = hsa_by_name("hsa_status_string").unwrap();
        let args = [0x100Bu64, 0];
        drop(v);
        let n = unsafe {
            open_record(&mut scratch, KIND_HSA_CALL, id, &HSA_FUNCTIONS[id], 1, None, 0, &args);
            complete_record::<KIND_HSA_CALL>(&mut scratch, &HSA_FUNCTIONS[id], 0, 0, &args, None)
        };
        let v = records(&scratch[..n]).next().unwrap();
        let Entry::Call(c) = &entries(&v, &tb, Options { decode: true })[0] else { panic!() };
        assert_eq!(c.args[0].value, "4107 (HSA_STATUS_ERROR_NOT_INITIALIZED)");
        // An unknown kind is a comment, not a wrong function.
        let mut h = v.header;
        h.kind = 9;
        let bytes = crate::trace::record::encode(&h, &v.args, &[]);
        let v = records(&bytes).next().unwrap();
        assert!(
            matches!(&entries(&v, &tb, Options::default())[0], Entry::Comment(c) if c.starts_with("unknown record kind 9"))
        );
    }
}
