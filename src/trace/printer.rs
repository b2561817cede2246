//! Binary records to API-log lines. Driven by the generated metadata: no
//! per-function formatting code.

use super::names::status_text;
use super::record::{Tag, View, FLAG_CMD};
use crate::meta::{FnMeta, Kind, Ret, FUNCTIONS};
use cltap_formats::apilog::{Arg, Call, Entry};
use std::fmt::Write;

/// How to turn TSC ticks into the log's microseconds.
#[derive(Debug, Clone, Copy)]
pub struct Timebase {
    pub ticks_per_us: f64,
}

impl Timebase {
    pub fn us(&self, ticks: u64) -> u64 {
        (ticks as f64 / self.ticks_per_us).round() as u64
    }
}

#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Add decoded contents after each raw value.
    pub decode: bool,
}

fn hex(v: u64) -> String {
    format!("{v:016X}")
}

fn is_pointer_type(c_type: &str) -> bool {
    c_type.ends_with('*') || c_type.ends_with("_fn") || c_type.starts_with("cl_cb_") || cltap_apidesc_handle(c_type)
}

fn cltap_apidesc_handle(t: &str) -> bool {
    matches!(
        t,
        "cl_platform_id" | "cl_device_id" | "cl_context" | "cl_command_queue" | "cl_mem" | "cl_program" | "cl_kernel"
            | "cl_event" | "cl_sampler" | "cl_semaphore_khr" | "cl_command_buffer_khr" | "cl_mutable_command_khr"
            | "cl_accelerator_intel"
    )
}

fn is_signed(c_type: &str) -> bool {
    matches!(c_type, "cl_int" | "cl_long" | "intptr_t" | "cl_build_status" | "cl_GLint")
        || c_type.ends_with("_properties")
}

/// A scalar as C would print it.
fn scalar(c_type: &str, v: u64) -> String {
    if is_pointer_type(c_type) {
        hex(v)
    } else if is_signed(c_type) {
        match c_type {
            "cl_int" | "cl_build_status" | "cl_GLint" => (v as u32 as i32).to_string(),
            _ => (v as i64).to_string(),
        }
    } else {
        v.to_string()
    }
}

fn words(b: &[u8], elem: usize) -> Vec<u64> {
    b.chunks_exact(elem.clamp(1, 8))
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_ne_bytes(w)
        })
        .collect()
}

fn quoted(b: &[u8]) -> String {
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

/// The decoded form of one parameter's captured contents.
fn decoded(p: &crate::meta::ParamMeta, caps: &[(&crate::trace::record::Capture, &[u8])]) -> Option<String> {
    let (c, data) = caps.first()?;
    let more = |shown: usize, total: u64| if (shown as u64) < total { format!(", … {total} in all") } else { String::new() };
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
            let v: Vec<String> = caps.iter().map(|(c, d)| format!("{}{}", quoted(d), if (d.len() as u64) < c.total { format!("…({} bytes)", c.total) } else { String::new() })).collect();
            format!("{{{}}}", v.join(", "))
        }
        (Tag::Str, _) => {
            let mut s = quoted(data);
            if (data.len() as u64) < c.total {
                let _ = write!(s, "…({} bytes)", c.total);
            }
            s
        }
        (Tag::Bytes, _) if data.len() > 1 && data.last() == Some(&0) && data[..data.len() - 1].iter().all(|b| (0x20..0x7f).contains(b)) => {
            quoted(&data[..data.len() - 1])
        }
        (Tag::Bytes, _) if matches!(p.kind, Kind::Info { .. }) && (data.len() == 4 || data.len() == 8) && c.total as usize == data.len() => {
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
/// line when the driver chose one.
pub fn entries(v: &View<'_>, tb: &Timebase, opt: Options) -> Vec<Entry> {
    let Some(f) = FUNCTIONS.get(v.header.fn_id as usize) else {
        return vec![Entry::Comment(format!("unknown function id {}", v.header.fn_id))];
    };
    let mut out = Vec::new();
    if let Some((c, d)) = v.captures.iter().find(|(c, _)| c.tag == Tag::LocalSize as u8) {
        let _ = c;
        out.push(Entry::LocalWorkSize { cmd_id: v.header.cmd_id, sizes: words(d, 8) });
    }
    out.push(Entry::Call(call(f, v, tb, opt)));
    out
}

fn call(f: &FnMeta, v: &View<'_>, tb: &Timebase, opt: Options) -> Call {
    let h = &v.header;
    let mut args = Vec::with_capacity(f.params.len());
    let mut outs = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        let raw = v.args.get(i).copied().unwrap_or(0);
        let caps: Vec<_> = v.captures.iter().filter(|(c, _)| c.param as usize == i).map(|(c, d)| (c, *d)).collect();
        let mut value = scalar(p.c_type, raw);
        if opt.decode {
            if let Some(d) = decoded(p, &caps) {
                value = format!("{value} {d}");
            }
        }
        args.push(Arg { c_type: p.c_type.to_string(), name: p.name.to_string(), value });
        let out_word = caps.iter().find(|(c, _)| c.tag == Tag::Out as u8).map(|(_, d)| u64::from_ne_bytes(d[..8].try_into().unwrap()));
        let shown = match p.kind {
            Kind::Errcode => Some(out_word.map(|w| status_text(w as i64 as i32))),
            Kind::OutHandle => Some(out_word.map(hex)),
            Kind::OutValue { .. } => Some(out_word.map(|w| scalar(p.c_type.trim_end_matches('*'), w))),
            _ => None,
        };
        if let Some(s) = shown {
            let text = if raw == 0 { "NULL".to_string() } else { s.unwrap_or_else(|| "(not written)".to_string()) };
            outs.push((p.name.to_string(), text));
        }
    }
    let result = match f.ret {
        Ret::Status => Some(status_text(h.ret as u32 as i32)),
        Ret::Handle | Ret::Pointer => Some(hex(h.ret)),
        Ret::Scalar => Some(scalar(f.ret_type, h.ret)),
        Ret::Void => None,
    };
    Call {
        tid: h.tid as u64,
        start: h.t0,
        duration_us: tb.us(h.t1.saturating_sub(h.t0)),
        cmd_id: (h.flags & FLAG_CMD != 0).then_some(h.cmd_id),
        name: f.name.to_string(),
        args,
        result,
        outs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::by_name;
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
        assert!(c.args[3].value.ends_with(" \"NVIDIA H200\""), "{}", c.args[3].value);
    }
}
