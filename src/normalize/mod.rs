//! A deterministic form of an API log, for snapshots and diffs: threads
//! become T1, T2…, handles become typed names (`context#1`, `mem#3`)
//! numbered as objects are made, host pointers `ptr` (their addresses and
//! aliasing vary between runs), command ids are renumbered from 1, and times
//! are removed (or kept as order-of-magnitude buckets). With `portable`,
//! facts about the host are hidden as well (see [`portable`]).

mod lifetimes;
pub mod portable;

use crate::meta;
use cltap_formats::apilog::{Call, Entry};
use std::collections::HashMap;
use std::fmt::Write;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durations {
    #[default]
    Drop,
    /// `~1us`, `~10us`, … by decade.
    Bucket,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    pub durations: Durations,
    /// Consecutive identical calls on a thread (polling loops) become one
    /// line marked `[repeated]`, so their count does not make runs differ.
    pub collapse_repeats: bool,
    /// Hide host facts (driver strings' sizes, driver-chosen local sizes,
    /// memory-derived sizes): see [`portable`].
    pub portable: bool,
}

/// One normalized call, kept structured for the diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NCall {
    pub thread: String,
    pub name: String,
    pub cmd: Option<u64>,
    pub args: Vec<(String, String)>,
    pub result: Option<String>,
    pub outs: Vec<(String, String)>,
    pub duration: Option<String>,
    /// Set for a `local_work_size` line: the sizes, before its call.
    pub local_size: Option<Vec<String>>,
    pub repeated: bool,
}

impl NCall {
    pub fn line(&self) -> String {
        let mut s = format!("{} ", self.thread);
        if let Some(c) = self.cmd {
            let _ = write!(s, "[cmd#{c}] ");
        }
        if let Some(d) = &self.duration {
            let _ = write!(s, "[{d}] ");
        }
        s += &self.name;
        s.push('(');
        for (i, (n, v)) in self.args.iter().enumerate() {
            if i > 0 {
                s += ", ";
            }
            let _ = write!(s, "{n} = {v}");
        }
        s.push(')');
        if let Some(r) = &self.result {
            let _ = write!(s, " = {r}");
        }
        for (n, v) in &self.outs {
            let _ = write!(s, ", *{n} = {v}");
        }
        if let Some(l) = &self.local_size {
            let _ = write!(s, " [local size chosen by the driver: ({})]", l.join(", "));
        }
        if self.repeated {
            s += " [repeated]";
        }
        s
    }
}

/// The handle kind a C type names, for typed names.
fn kind_of(c_type: &str) -> &'static str {
    let t = c_type.trim_start_matches("const ").trim_end_matches('*').trim();
    match t {
        "cl_platform_id" => "platform",
        "cl_device_id" => "device",
        "cl_context" => "context",
        "cl_command_queue" => "queue",
        "cl_mem" => "mem",
        "cl_program" => "program",
        "cl_kernel" => "kernel",
        "cl_event" => "event",
        "cl_sampler" => "sampler",
        "cl_command_buffer_khr" => "cmdbuf",
        "cl_semaphore_khr" => "semaphore",
        // HSA's handles: structs of one 64-bit `handle`, and queues, which
        // the runtime hands out as `hsa_queue_t*`.
        "hsa_agent_t" => "agent",
        "hsa_queue_t" => "queue",
        "hsa_signal_t" => "signal",
        "hsa_signal_group_t" => "signalgroup",
        "hsa_region_t" => "region",
        "hsa_amd_memory_pool_t" => "pool",
        "hsa_isa_t" => "isa",
        "hsa_cache_t" => "cache",
        "hsa_wavefront_t" => "wavefront",
        "hsa_executable_t" => "executable",
        "hsa_executable_symbol_t" => "symbol",
        "hsa_code_object_reader_t" => "reader",
        "hsa_code_object_t" => "codeobject",
        "hsa_code_symbol_t" => "codesymbol",
        "hsa_loaded_code_object_t" => "loadedcode",
        "hsa_ext_image_t" => "image",
        "hsa_ext_sampler_t" => "hsasampler",
        "hsa_ext_program_t" => "hsaprogram",
        _ => "ptr",
    }
}

/// Whether a parameter of type `c_type` holds a handle in its own value:
/// a handle type, or `hsa_queue_t*`, the pointer HSA uses as a queue's handle.
fn is_handle_value(c_type: &str) -> bool {
    let t = c_type.trim_start_matches("const ").trim();
    !t.ends_with('*') || t.trim_end_matches('*').trim() == "hsa_queue_t" && t.matches('*').count() == 1
}

#[derive(Default)]
struct Names {
    by_value: HashMap<String, String>,
    counters: HashMap<&'static str, usize>,
    ends: lifetimes::Ends,
    /// When the call being named started.
    at: u64,
}

impl Names {
    /// The name of a handle the call uses (or `ptr` for host memory, whose
    /// addresses say nothing stable).
    fn name(&mut self, value: &str, kind: &'static str) -> String {
        if value == "0000000000000000" {
            return "NULL".into();
        }
        if kind == "ptr" {
            return "ptr".into();
        }
        if let Some(n) = self.by_value.get(&*self.key(value)) {
            return n.clone();
        }
        self.fresh(value, kind)
    }

    /// A value, told apart from the same value of objects that ended
    /// before the call being named.
    fn key<'v>(&self, value: &'v str) -> std::borrow::Cow<'v, str> {
        match self.ends.epoch(value, self.at) {
            0 => value.into(),
            e => format!("{value}@{e}").into(),
        }
    }

    /// A handle a call returns is a new object, even at an address a freed
    /// one had: drivers reuse addresses in run-dependent ways.
    fn fresh(&mut self, value: &str, kind: &'static str) -> String {
        if value == "0000000000000000" || kind == "ptr" {
            return self.name(value, kind);
        }
        let c = self.counters.entry(kind).or_insert(0);
        *c += 1;
        let n = format!("{kind}#{c}");
        self.by_value.insert(self.key(value).into_owned(), n.clone());
        n
    }

    fn fresh_tokens(&mut self, v: &str, kind: &'static str) -> String {
        let is_hex = v.len() == 16 && v.bytes().all(|b| b.is_ascii_hexdigit());
        if is_hex {
            self.fresh(v, kind)
        } else {
            self.tokens(v, kind)
        }
    }

    /// Replaces every 16-hex-digit token in a decoded value.
    fn tokens(&mut self, v: &str, kind: &'static str) -> String {
        let b = v.as_bytes();
        let mut out = String::with_capacity(v.len());
        let mut i = 0;
        while i < b.len() {
            let is_tok = i + 16 <= b.len()
                && b[i..i + 16].iter().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_lowercase())
                && (i == 0 || !b[i - 1].is_ascii_alphanumeric())
                && (i + 16 == b.len() || !b[i + 16].is_ascii_alphanumeric());
            if is_tok {
                out += &self.name(&v[i..i + 16], kind);
                i += 16;
            } else {
                let ch = v[i..].chars().next().unwrap();
                out.push(ch);
                i += ch.len_utf8();
            }
        }
        out
    }
}

fn bucket(us: u64) -> String {
    match us {
        0 => "<1us".into(),
        _ => format!("~{}us", 10u64.pow(us.ilog10())),
    }
}

/// Normalizes parsed log entries.
pub fn normalize(entries: &[Entry], opt: Options) -> Vec<NCall> {
    let ends = lifetimes::Ends::new(entries.iter().filter_map(|e| match e {
        Entry::Call(c) => Some(lifetimes::Life {
            at: c.start,
            change: lifetimes::change(&c.name).and_then(|(p, delta)| {
                let a = c.args.iter().find(|a| &*a.name == p)?;
                Some((delta, a.value.split_once(' ').map_or(a.value.as_str(), |(r, _)| r)))
            }),
            succeeded: lifetimes::succeeded(c.result.as_deref()),
        }),
        _ => None,
    }));
    let mut names = Names { ends, ..Names::default() };
    let mut threads: HashMap<u64, String> = HashMap::new();
    let mut cmds: HashMap<u64, u64> = HashMap::new();
    let mut out: Vec<NCall> = Vec::new();
    let mut pending_lws: Option<(u64, Vec<u64>)> = None;
    let mut last_by_thread: HashMap<String, usize> = HashMap::new();
    for e in entries {
        let c: &Call = match e {
            Entry::Call(c) => c,
            Entry::LocalWorkSize { cmd_id, sizes } => {
                pending_lws = Some((*cmd_id, sizes.clone()));
                continue;
            }
            Entry::Comment(_) => continue,
        };
        names.at = c.start;
        let n = threads.len() + 1;
        let thread = threads.entry(c.tid).or_insert_with(|| format!("T{n}")).clone();
        let cmd = c.cmd_id.map(|id| {
            let n = cmds.len() as u64 + 1;
            *cmds.entry(id).or_insert(n)
        });
        let fmeta = meta::by_name(&c.name).map(|i| &meta::FUNCTIONS[i]);
        let args: Vec<(String, String)> = c
            .args
            .iter()
            .map(|a| {
                // A pointer parameter's own value is a host address; the
                // handles it points at (decoded, after a space) are typed.
                let (raw, rest) = a.value.split_once(' ').map_or((a.value.as_str(), ""), |(r, x)| (r, x));
                let own = if is_handle_value(&a.c_type) { kind_of(&a.c_type) } else { "ptr" };
                let mut v = names.tokens(raw, own);
                if !rest.is_empty() {
                    v.push(' ');
                    v += &names.tokens(rest, kind_of(&a.c_type));
                }
                (a.name.to_string(), v)
            })
            .collect();
        let result = c.result.as_ref().map(|r| {
            let kind = fmeta.map_or("ptr", |f| kind_of(f.ret_type));
            if r.len() == 16 && r.bytes().all(|b| b.is_ascii_hexdigit()) {
                names.fresh(r, kind)
            } else {
                r.clone()
            }
        });
        let outs: Vec<(String, String)> =
            c.outs
                .iter()
                .map(|(n, v)| {
                    // The parameter's type, as the line itself declares it.
                    let kind = c.args.iter().find(|a| &a.name == n).map(|a| kind_of(&a.c_type)).or_else(|| {
                        fmeta.and_then(|f| f.params.iter().find(|p| p.name == n)).map(|p| kind_of(p.c_type))
                    });
                    let kind = kind.unwrap_or("ptr");
                    // Clock readings (clGetDeviceAndHostTimer) are times too.
                    let v = if n.contains("timestamp") || n.ends_with("_timer") {
                        "<time>".to_string()
                    } else {
                        names.fresh_tokens(v, kind)
                    };
                    (n.to_string(), v)
                })
                .collect();
        let (mut args, mut outs) = (args, outs);
        let mut local_size = match pending_lws.take() {
            Some((id, sizes)) if Some(id) == c.cmd_id => Some(sizes.iter().map(u64::to_string).collect()),
            _ => None,
        };
        if opt.portable {
            portable::mask(&c.name, &mut args, &mut outs, &mut local_size, portable::Form::ApiLog);
        }
        let call = NCall {
            thread: thread.clone(),
            name: c.name.to_string(),
            cmd,
            args,
            result,
            outs,
            duration: (opt.durations == Durations::Bucket).then(|| bucket(c.duration_us)),
            local_size,
            repeated: false,
        };
        if opt.collapse_repeats {
            if let Some(&i) = last_by_thread.get(&thread) {
                let prev = &mut out[i];
                let same = prev.name == call.name
                    && prev.args == call.args
                    && prev.result == call.result
                    && prev.outs == call.outs
                    && call.cmd.is_none();
                if same {
                    prev.repeated = true;
                    continue;
                }
            }
        }
        last_by_thread.insert(thread, out.len());
        out.push(call);
    }
    out
}

/// A handle in an `.atp` is written `0x` and up to 16 hex digits, unpadded;
/// as 16 upper-case digits the API log's token rules apply to it.
fn hex_tokens(v: &str) -> String {
    let b = v.as_bytes();
    let mut out = String::with_capacity(v.len());
    let mut i = 0;
    while i < b.len() {
        let starts = b[i] == b'0' && b.get(i + 1) == Some(&b'x') && (i == 0 || !b[i - 1].is_ascii_alphanumeric());
        if starts {
            let n = b[i + 2..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
            let ends = b.get(i + 2 + n).is_none_or(|c| !c.is_ascii_alphanumeric());
            if (1..=16).contains(&n) && ends {
                if let Ok(x) = u64::from_str_radix(&v[i + 2..i + 2 + n], 16) {
                    out += &format!("{x:016X}");
                    i += 2 + n;
                    continue;
                }
            }
        }
        let ch = v[i..].chars().next().unwrap();
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// Normalizes an `.atp`'s API section, thread block by thread block, with
/// the same names as for an API log. The timestamps give the durations
/// when they are kept.
pub fn normalize_atp(atp: &cltap_formats::atp::Atp, opt: Options) -> Vec<NCall> {
    // A call's time: its timestamp, or without them all its place.
    let timed = atp.api.iter().zip(&atp.timestamps).all(|(a, t)| a.items.len() == t.items.len())
        && atp.api.len() == atp.timestamps.len();
    let at = |b: usize, i: usize, place: u64| if timed { atp.timestamps[b].items[i].start } else { place };
    // The handle arguments' values in the API log's form (see `hex_tokens`).
    let mut handles = Vec::new();
    for (b, block) in atp.api.iter().enumerate() {
        for (i, c) in block.items.iter().enumerate() {
            let change = lifetimes::change(&c.name).and_then(|(p, delta)| {
                let j =
                    meta::by_name(&c.name).and_then(|f| meta::FUNCTIONS[f].params.iter().position(|q| q.name == p))?;
                Some((delta, hex_tokens(c.args.get(j)?)))
            });
            handles.push((at(b, i, handles.len() as u64), change, lifetimes::succeeded(Some(&c.ret))));
        }
    }
    let lives = handles.iter().map(|(at, change, succeeded)| lifetimes::Life {
        at: *at,
        change: change.as_ref().map(|(d, v)| (*d, v.as_str())),
        succeeded: *succeeded,
    });
    let mut names = Names { ends: lifetimes::Ends::new(lives), ..Names::default() };
    let mut out: Vec<NCall> = Vec::new();
    let mut place = 0;
    for (b, block) in atp.api.iter().enumerate() {
        let thread = format!("T{}", b + 1);
        let times = atp.timestamps.get(b).map(|t| &t.items[..]).unwrap_or(&[]);
        for (i, c) in block.items.iter().enumerate() {
            names.at = at(b, i, place);
            place += 1;
            let fmeta = meta::by_name(&c.name).map(|i| &meta::FUNCTIONS[i]);
            let mut args: Vec<(String, String)> = c
                .args
                .iter()
                .enumerate()
                .map(|(j, a)| {
                    let p = fmeta.and_then(|f| f.params.get(j));
                    let name = p.map_or_else(|| format!("arg{}", j + 1), |p| p.name.to_string());
                    let kind = p.map_or("ptr", |p| kind_of(p.c_type));
                    let v = hex_tokens(a);
                    let v = match p.map(|p| p.kind) {
                        // What the call made is a new object.
                        Some(meta::Kind::OutHandle) => match v.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
                            Some(inner) => format!("[{}]", names.fresh_tokens(inner, kind)),
                            None => names.tokens(&v, "ptr"),
                        },
                        _ => names.tokens(&v, kind),
                    };
                    (name, v)
                })
                .collect();
            if opt.portable {
                portable::mask(&c.name, &mut args, &mut [], &mut None, portable::Form::Atp);
            }
            let ret_kind = fmeta.map_or("ptr", |f| kind_of(f.ret_type));
            let r = hex_tokens(&c.ret);
            let result =
                if r.len() == 16 && r.bytes().all(|b| b.is_ascii_hexdigit()) { names.fresh(&r, ret_kind) } else { r };
            let duration = times
                .get(i)
                .filter(|_| opt.durations == Durations::Bucket)
                .map(|t| bucket(t.end.saturating_sub(t.start) / 1000));
            let call = NCall {
                thread: thread.clone(),
                name: c.name.clone(),
                cmd: None,
                args,
                result: Some(result),
                outs: Vec::new(),
                duration,
                local_size: None,
                repeated: false,
            };
            if opt.collapse_repeats {
                if let Some(prev) = out.last_mut().filter(|p| {
                    p.thread == call.thread && p.name == call.name && p.args == call.args && p.result == call.result
                }) {
                    prev.repeated = true;
                    continue;
                }
            }
            out.push(call);
        }
    }
    out
}

/// The normalized text: one call per line, threads in order of appearance.
pub fn render(calls: &[NCall]) -> String {
    let mut s = String::new();
    for c in calls {
        s += &c.line();
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests;
