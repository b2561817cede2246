//! A deterministic form of an API log, for snapshots and diffs: threads
//! become T1, T2…, handles become typed names (`context#1`, `mem#3`)
//! numbered as objects are made, host pointers `ptr` (their addresses and
//! aliasing vary between runs), command ids are renumbered from 1, and times
//! are removed (or kept as order-of-magnitude buckets). With `portable`,
//! facts about the host are hidden as well (see [`portable`]).

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

struct Names {
    by_value: HashMap<String, String>,
    counters: HashMap<&'static str, usize>,
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
        if let Some(n) = self.by_value.get(value) {
            return n.clone();
        }
        self.fresh(value, kind)
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
        self.by_value.insert(value.to_string(), n.clone());
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
    let mut names = Names { by_value: HashMap::new(), counters: HashMap::new() };
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
                (a.name.clone(), v)
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
                    (n.clone(), v)
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
            name: c.name.clone(),
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
    let mut names = Names { by_value: HashMap::new(), counters: HashMap::new() };
    let mut out: Vec<NCall> = Vec::new();
    for (b, block) in atp.api.iter().enumerate() {
        let thread = format!("T{}", b + 1);
        let times = atp.timestamps.get(b).map(|t| &t.items[..]).unwrap_or(&[]);
        for (i, c) in block.items.iter().enumerate() {
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
mod tests {
    use super::*;
    use cltap_formats::apilog::{self, Arg};

    fn call(
        tid: u64,
        name: &str,
        args: &[(&str, &str, &str)],
        result: &str,
        outs: &[(&str, &str)],
        cmd: Option<u64>,
    ) -> Entry {
        Entry::Call(Call {
            tid,
            start: tid * 1000,
            duration_us: 42,
            cmd_id: cmd,
            name: name.into(),
            args: args
                .iter()
                .map(|(t, n, v)| Arg { c_type: t.to_string(), name: n.to_string(), value: v.to_string() })
                .collect(),
            result: Some(result.into()),
            outs: outs.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect(),
        })
    }

    fn sample(tid: u64, base: u64) -> Vec<Entry> {
        let h = |x: u64| format!("{:016X}", base + x);
        vec![
            call(
                tid,
                "clCreateBuffer",
                &[
                    ("cl_context", "context", &h(1)),
                    ("cl_mem_flags", "flags", "1"),
                    ("size_t", "size", "64"),
                    ("void*", "host_ptr", "0000000000000000"),
                    ("cl_int*", "errcode_ret", &h(9)),
                ],
                &h(2),
                &[("errcode_ret", "CL_SUCCESS")],
                None,
            ),
            call(
                tid,
                "clEnqueueReadBuffer",
                &[
                    ("cl_command_queue", "command_queue", &h(3)),
                    ("cl_mem", "buffer", &h(2)),
                    ("const cl_event*", "event_wait_list", &format!("{} {{{}}}", h(8), h(4))),
                    ("cl_event*", "event", &h(7)),
                ],
                "CL_SUCCESS",
                &[("event", &h(5))],
                Some(base + 17),
            ),
        ]
    }

    #[test]
    fn handles_threads_and_ids_become_names() {
        let n = normalize(&sample(5780, 0x7000_0000), Options::default());
        let text = render(&n);
        assert_eq!(
            text,
            "T1 clCreateBuffer(context = context#1, flags = 1, size = 64, host_ptr = NULL, errcode_ret = ptr) = mem#1, *errcode_ret = CL_SUCCESS\n\
             T1 [cmd#1] clEnqueueReadBuffer(command_queue = queue#1, buffer = mem#1, event_wait_list = ptr {event#1}, event = ptr) = CL_SUCCESS, *event = event#2\n"
        );
    }

    #[test]
    fn two_runs_with_other_addresses_normalize_alike() {
        let a = render(&normalize(&sample(10, 0x5000_0000), Options::default()));
        let b = render(&normalize(&sample(99, 0x7fff_0000_0000), Options::default()));
        assert_eq!(a, b);
        let again =
            render(&normalize(&apilog::read(&apilog::write(&sample(10, 0x5000_0000))).unwrap(), Options::default()));
        assert_eq!(a, again, "normalizing is stable through the text form");
    }

    #[test]
    fn hsa_handles_become_typed_names() {
        let log = |base: u64| {
            let h = |x: u64| format!("{:016X}", base + x);
            vec![
                call(
                    3,
                    "hsa_queue_create",
                    &[("hsa_agent_t", "agent", &h(1)), ("uint32_t", "size", "4096"), ("hsa_queue_t**", "queue", &h(7))],
                    "HSA_STATUS_SUCCESS",
                    &[("queue", &h(2))],
                    None,
                ),
                call(
                    3,
                    "hsa_signal_create",
                    &[("hsa_signal_value_t", "initial_value", "1"), ("hsa_signal_t*", "signal", &h(8))],
                    "HSA_STATUS_SUCCESS",
                    &[("signal", &h(3))],
                    None,
                ),
                call(3, "hsa_queue_destroy", &[("hsa_queue_t*", "queue", &h(2))], "HSA_STATUS_SUCCESS", &[], None),
                call(3, "hsa_signal_destroy", &[("hsa_signal_t", "signal", &h(3))], "HSA_STATUS_SUCCESS", &[], None),
            ]
        };
        let a = render(&normalize(&log(0x7000_0000), Options::default()));
        assert_eq!(a, render(&normalize(&log(0x5555_0000_0000), Options::default())), "addresses do not matter");
        assert_eq!(
            a,
            "T1 hsa_queue_create(agent = agent#1, size = 4096, queue = ptr) = HSA_STATUS_SUCCESS, *queue = queue#1\n\
             T1 hsa_signal_create(initial_value = 1, signal = ptr) = HSA_STATUS_SUCCESS, *signal = signal#1\n\
             T1 hsa_queue_destroy(queue = queue#1) = HSA_STATUS_SUCCESS\n\
             T1 hsa_signal_destroy(signal = signal#1) = HSA_STATUS_SUCCESS\n"
        );
    }

    #[test]
    fn build_log_sizes_are_portable_only() {
        let q = |size: &str, ret: &str| {
            call(
                1,
                "clGetProgramBuildInfo",
                &[
                    ("cl_program", "program", "0000000000001000"),
                    ("cl_program_build_info", "param_name", "4483 (CL_PROGRAM_BUILD_LOG)"),
                    ("size_t", "param_value_size", size),
                ],
                "CL_SUCCESS",
                &[("param_value_size_ret", ret)],
                None,
            )
        };
        let other = call(
            1,
            "clGetProgramBuildInfo",
            &[("cl_program_build_info", "param_name", "4481"), ("size_t", "param_value_size", "4")],
            "CL_SUCCESS",
            &[("param_value_size_ret", "4")],
            None,
        );
        let log = [q("0", "167"), q("167", "NULL"), other];
        let exact = normalize(&log, Options::default());
        assert_eq!(exact[0].outs[0].1, "167", "the default keeps every value");
        let n = normalize(&log, Options { portable: true, ..Options::default() });
        assert_eq!(n[0].args[2].1, "0");
        assert_eq!(n[0].outs[0].1, "<host>");
        assert_eq!(n[1].args[2].1, "<host>");
        assert_eq!(n[1].outs[0].1, "NULL");
        assert_eq!(n[2].args[1].1, "4", "other queries keep their sizes");
        assert_eq!(n[2].outs[0].1, "4");
    }

    /// One program's log as two hosts write it: `host` picks the device
    /// name's length and the local size the driver chose.
    fn host_log(name_len: u64, lws: u64, edit: impl Fn(&mut Vec<Entry>)) -> String {
        let info = |size: &str, ret: &str| {
            call(
                1,
                "clGetDeviceInfo",
                &[
                    ("cl_device_id", "device", "0000000000002000"),
                    ("cl_device_info", "param_name", "4139"),
                    ("size_t", "param_value_size", size),
                ],
                "CL_SUCCESS",
                &[("param_value_size_ret", ret)],
                None,
            )
        };
        let ndrange = call(
            1,
            "clEnqueueNDRangeKernel",
            &[
                ("cl_command_queue", "command_queue", "0000000000003000"),
                ("cl_uint", "work_dim", "1"),
                ("const size_t*", "local_work_size", "0000000000000000"),
            ],
            "CL_SUCCESS",
            &[],
            Some(40),
        );
        let mut log = vec![
            info("0", &name_len.to_string()),
            info(&name_len.to_string(), "NULL"),
            Entry::LocalWorkSize { cmd_id: 40, sizes: vec![lws] },
            ndrange,
            call(
                1,
                "clCreateBuffer",
                &[("cl_context", "context", "0000000000004000"), ("size_t", "size", "4096")],
                "0000000000005000",
                &[],
                None,
            ),
        ];
        edit(&mut log);
        let text = apilog::write(&log);
        render(&normalize(
            &apilog::read(&text).unwrap(),
            Options { portable: true, collapse_repeats: true, ..Options::default() },
        ))
    }

    #[test]
    fn portable_logs_of_two_hosts_are_the_same_bytes() {
        let xeon = host_log(50, 64, |_| {});
        let epyc = host_log(32, 32, |_| {});
        assert_eq!(xeon, epyc);
        assert!(xeon.contains("[local size chosen by the driver: (<host>)]"), "{xeon}");
        let exact = |n, l| {
            render(&normalize(
                &apilog::read(&apilog::write(&[
                    call(
                        1,
                        "clGetDeviceInfo",
                        &[("cl_device_info", "param_name", "4139"), ("size_t", "param_value_size", "0")],
                        "CL_SUCCESS",
                        &[("param_value_size_ret", n)],
                        None,
                    ),
                    Entry::LocalWorkSize { cmd_id: 1, sizes: vec![l] },
                    call(1, "clEnqueueNDRangeKernel", &[("cl_uint", "work_dim", "1")], "CL_SUCCESS", &[], Some(1)),
                ]))
                .unwrap(),
                Options::default(),
            ))
        };
        assert_ne!(exact("50", 64), exact("32", 32), "without --portable every value is kept");
    }

    #[test]
    fn portable_still_sees_calls_arguments_and_statuses() {
        let base = host_log(50, 64, |_| {});
        fn set(i: usize, f: impl Fn(&mut Call)) -> impl Fn(&mut Vec<Entry>) {
            move |log| {
                if let Entry::Call(c) = &mut log[i] {
                    f(c)
                }
            }
        }
        let changed_arg = host_log(32, 32, set(4, |c| c.args[1].value = "8192".into()));
        let changed_status = host_log(32, 32, set(4, |c| c.result = Some("0000000000000000".into())));
        let changed_param = host_log(32, 32, set(0, |c| c.args[1].value = "4140".into()));
        let removed = host_log(32, 32, |log| {
            log.remove(4);
        });
        for other in [changed_arg, changed_status, changed_param, removed] {
            assert_ne!(base, other);
        }
    }

    #[test]
    fn atp_handles_become_typed_names() {
        use cltap_formats::atp::{ApiCall, Atp, Block};
        let atp = |base: u64| {
            let h = |x: u64| format!("{:#x}", base + x);
            Atp {
                api: vec![Block {
                    tid: base,
                    items: vec![
                        ApiCall {
                            ret: h(2),
                            name: "clCreateBuffer".into(),
                            args: vec![
                                h(1),
                                "CL_MEM_READ_WRITE".into(),
                                "64".into(),
                                "NULL".into(),
                                "[CL_SUCCESS]".into(),
                            ],
                        },
                        ApiCall {
                            ret: "CL_SUCCESS".into(),
                            name: "clEnqueueReadBuffer".into(),
                            args: vec![
                                h(3),
                                h(2),
                                "CL_TRUE".into(),
                                "0".into(),
                                "64".into(),
                                h(9),
                                "1".into(),
                                format!("[{}]", h(4)),
                                format!("[{}]", h(5)),
                            ],
                        },
                    ],
                }],
                ..Atp::default()
            }
        };
        let a = render(&normalize_atp(&atp(0x7000_0000), Options::default()));
        assert_eq!(a, render(&normalize_atp(&atp(0x5555_0000_0000), Options::default())), "addresses do not matter");
        assert_eq!(
            a,
            "T1 clCreateBuffer(context = context#1, flags = CL_MEM_READ_WRITE, size = 64, host_ptr = NULL, errcode_ret = [CL_SUCCESS]) = mem#1\n\
             T1 clEnqueueReadBuffer(command_queue = queue#1, buffer = mem#1, blocking_read = CL_TRUE, offset = 0, size = 64, ptr = ptr, num_events_in_wait_list = 1, event_wait_list = [event#1], event = [event#2]) = CL_SUCCESS\n"
        );
    }

    #[test]
    fn buckets_and_repeats() {
        let mut e = sample(1, 0x1000);
        let poll = call(
            1,
            "clGetEventInfo",
            &[("cl_event", "event", "0000000000001005"), ("cl_event_info", "param_name", "4563")],
            "CL_SUCCESS",
            &[],
            None,
        );
        e.push(poll.clone());
        e.push(poll);
        let n = normalize(&e, Options { durations: Durations::Bucket, collapse_repeats: true, portable: false });
        assert_eq!(n.len(), 3);
        assert!(n[0].line().contains("[~10us]"));
        assert!(!n[0].repeated);
        assert!(n[2].repeated, "{}", n[2].line());
    }
}
