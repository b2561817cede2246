//! A decoded API log's additions (`CLTAP_LOG_DECODE`): after an
//! argument's value, its symbolic name (enums, bitfields) and the contents
//! its record captured (arrays, strings, bytes, properties). The `.atp`
//! shares the names and the text test.

use crate::decode::words;
use crate::meta::{Kind, ParamMeta, Props};
use crate::trace::record::{Tag, View};
use std::fmt::Write;

use super::values::scalar;

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
    // AMD's extension types are in no Khronos header, so in no generated table.
    let g = groups.iter().chain(crate::trace::amd_enums::GROUPS).find(|g| g.c_type == c_type)?;
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

/// Appends what a decoded log shows after argument `i`'s value `raw`:
/// ` (NAME)` for a scalar with a symbolic name, then ` ` and the contents
/// captured for it; a kernel's handle, its name in quotes.
pub(crate) fn push_arg(
    s: &mut String,
    p: &ParamMeta,
    i: usize,
    raw: u64,
    v: &View<'_>,
    kernels: Option<&super::kernel_names::KernelNames>,
) {
    if p.c_type == "cl_kernel" {
        if let Some(n) = kernels.and_then(|k| k.name(raw, v.header.t0)) {
            s.push(' ');
            s.push_str(&quoted(n.as_bytes()));
        }
    }
    if p.kind == Kind::Scalar {
        if let Some(n) = symbolic(p.c_type, raw) {
            s.push_str(" (");
            s.push_str(&n);
            s.push(')');
        }
    }
    let caps: Vec<_> = v.captures.iter().filter(|(c, _)| c.param as usize == i).map(|(c, d)| (c, &**d)).collect();
    if let Some(d) = decoded(p, &caps) {
        s.push(' ');
        s.push_str(&d);
    }
}

/// The decoded form of one parameter's captured contents.
fn decoded(p: &ParamMeta, caps: &[(&crate::trace::record::Capture, &[u8])]) -> Option<String> {
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
        (Tag::Props, kind) => {
            let pointee = p.c_type.trim_start_matches("const ").trim_end_matches('*').trim();
            let pairs = kind == Kind::Properties(Props::Pairs);
            let items: Vec<String> = words(data, 8)
                .iter()
                .enumerate()
                .map(|(k, &v)| match symbolic(pointee, v).filter(|_| pairs && k.is_multiple_of(2)) {
                    // A pair's name by name, as a scalar's: AMD's perf-counter
                    // properties are small numbers nobody reads as such.
                    Some(n) => format!("{v:#x} ({n})"),
                    None => format!("{v:#x}"),
                })
                .collect();
            format!("{{{}, 0}}", items.join(", "))
        }
        _ => return None,
    })
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
        // AMD's extensions' enums, which no Khronos header has.
        assert_eq!(symbolic("cl_perfcounter_info", 2).as_deref(), Some("CL_PERFCOUNTER_DATA"));
        assert_eq!(symbolic("cl_perfcounter_property", 3).as_deref(), Some("CL_PERFCOUNTER_GPU_BLOCK_INDEX"));
        assert_eq!(symbolic("cl_file_flags_amd", 3).as_deref(), Some("CL_FILE_READ_ONLY_AMD | CL_FILE_WRITE_ONLY_AMD"));
    }
}
