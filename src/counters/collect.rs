//! Gathers a run's counter rows while the trace is rendered: the renderer
//! hands every record to [`Collector::record`], and at the end
//! [`Collector::finish`] joins what belongs together with the device
//! timing's commands into a [`Pass`].

use super::join;
use super::row::{Gpu, HsaDispatch, Limits, Pass, Row};
use crate::trace::record::*;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// The record kinds [`Collector::pairs`] needs.
pub const PAIR_KINDS: &[u16] = &[KIND_OPENCL_CALL, KIND_HSA_CALL, KIND_HSA_KERNEL, KIND_HSA_DISPATCH, KIND_KERNEL_INFO];

/// The run's counter request, from the trace's information.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    pub names: Vec<String>,
    pub metrics_file: Option<PathBuf>,
    pub pass: u32,
}

struct Agent {
    name: String,
    info: crate::decode::Agent,
}

/// One `clEnqueueNDRangeKernel` call record.
struct NdRange {
    tid: u32,
    call_index: u64,
    kernel: u64,
    global: [u64; 3],
    local: Option<[u64; 3]>,
    local_given: bool,
}

struct Dispatch {
    tid: u32,
    t0: u64,
    t1: u64,
    d: crate::decode::Dispatch,
    name: Option<String>,
}

/// A kernel descriptor (none when its record was short) and the kernel's
/// name, as recorded.
type KernelEntry = (Option<crate::hsa::kd::KernelDescriptor>, Option<String>);

#[derive(Default)]
pub struct Collector {
    request: Request,
    agents: HashMap<u64, Agent>,
    /// Kernel object → its descriptors and names: an object can be reused
    /// by another kernel once its executable is destroyed, so a dispatch
    /// takes the descriptor recorded under its own kernel's name.
    kernels: HashMap<u64, Vec<KernelEntry>>,
    dispatches: BTreeMap<u64, Dispatch>,
    counters: HashMap<u64, BTreeMap<u64, u64>>,
    plan: Option<crate::decode::Plan>,
    /// NDRange command id → the driver's statistics and (kernel, device) names.
    kinfo: HashMap<u64, (crate::decode::KernelInfo, String, String)>,
    ndranges: BTreeMap<u64, NdRange>,
    calls_per_thread: HashMap<u32, u64>,
    /// NDRanges (command ids) outside the kernel filter.
    filtered: std::collections::HashSet<u64>,
}

impl Collector {
    pub fn new(request: Request) -> Collector {
        Collector { request, ..Collector::default() }
    }

    /// One record of the trace (any order between threads, each thread's in order).
    pub fn record(&mut self, v: &View<'_>) {
        let h = &v.header;
        let w = |i: usize| v.args.get(i).copied().unwrap_or(0);
        match h.kind {
            KIND_OPENCL_CALL | KIND_HSA_CALL => {
                let n = self.calls_per_thread.entry(h.tid).or_insert(0);
                *n += 1;
                if h.kind == KIND_OPENCL_CALL
                    && h.flags & FLAG_CMD != 0
                    && h.ret == 0
                    && crate::meta::function(h.kind, h.fn_id).is_some_and(|f| f.name == "clEnqueueNDRangeKernel")
                {
                    let dims = (w(2) as usize).clamp(1, 3);
                    let global = sizes(v, |c| c.param == 4 && c.tag == Tag::Array as u8, dims).unwrap_or([0, 1, 1]);
                    // The application's local size, else the one the driver chose.
                    let given = sizes(v, |c| c.param == 5 && c.tag == Tag::Array as u8, dims);
                    let local_given = given.is_some();
                    let local = given.or_else(|| sizes(v, |c| c.tag == Tag::LocalSize as u8, dims));
                    self.ndranges.insert(
                        h.cmd_id,
                        NdRange { tid: h.tid, call_index: *n, kernel: w(1), global, local, local_given },
                    );
                }
            }
            KIND_HSA_AGENT => {
                let info = crate::decode::Agent::of(v);
                self.agents.insert(info.handle, Agent { name: v.kernel_name().unwrap_or_default(), info });
            }
            KIND_HSA_KERNEL => {
                let kd = (v.args.len() * 8 >= crate::hsa::kd::KD_SIZE).then(|| crate::decode::kernel_descriptor(v));
                self.kernels.entry(h.cmd_id).or_default().push((kd, v.kernel_name()));
            }
            // Outside the kernel filter: neither counted nor in the files.
            KIND_HSA_DISPATCH if h.flags & FLAG_FILTERED != 0 => {}
            KIND_KERNEL_INFO if h.flags & FLAG_FILTERED != 0 => {
                self.filtered.insert(h.cmd_id);
            }
            KIND_HSA_DISPATCH if v.returned() => {
                self.dispatches.insert(
                    h.cmd_id,
                    Dispatch {
                        tid: h.tid,
                        t0: h.t0,
                        t1: h.t1,
                        d: crate::decode::Dispatch::of(v),
                        name: v.kernel_name(),
                    },
                );
            }
            KIND_HSA_COUNTERS => {
                let values = self.counters.entry(h.cmd_id).or_default();
                for (event, value) in crate::decode::Counters::of(v).values {
                    *values.entry(event).or_insert(0) += value;
                }
            }
            KIND_COUNTER_PLAN => {
                self.plan = Some(crate::decode::Plan::of(v));
            }
            KIND_KERNEL_INFO => {
                let names = v.kernel_name().unwrap_or_default();
                let (kernel, device) = names.split_once('\t').unwrap_or((&names, ""));
                self.kinfo.insert(h.cmd_id, (crate::decode::KernelInfo::of(v), kernel.to_string(), device.to_string()));
            }
            _ => {}
        }
    }

    /// The run's rows: each NDRange (with its device time where the device
    /// timing has it, `commands`), each HSA dispatch, the two joined where
    /// one became the other.
    pub fn finish(self, commands: Vec<crate::devtime::Command>) -> Pass {
        let by_cmd: HashMap<u64, crate::devtime::Command> = commands.into_iter().map(|c| (c.cmd_id, c)).collect();
        let ndranges: Vec<Row> = self
            .ndranges
            .iter()
            .filter(|(cmd, _)| !self.filtered.contains(cmd))
            .map(|(cmd, n)| self.ndrange_row(*cmd, n, by_cmd.get(cmd)))
            .collect();
        let dispatches: Vec<Row> = self.dispatches.iter().map(|(seq, d)| self.dispatch_row(*seq, d)).collect();
        let rows = join::ndranges_with_dispatches(ndranges, dispatches);
        let (passes, gpu) = match &self.plan {
            Some(p) => (p.passes, self.agents.get(&p.agent).map(|a| gpu_of(a, &p.blocks))),
            // OpenCL only: one run, nothing to count.
            None => (if self.request.names.is_empty() { 0 } else { 1 }, None),
        };
        Pass {
            pass: self.request.pass,
            passes,
            names: self.request.names,
            metrics_file: self.request.metrics_file,
            gpu,
            pid: 0,
            rows,
        }
    }

    /// Which NDRange became which HSA dispatch: command id → dispatch
    /// number, by the same join as the counter files' rows (so every output
    /// pairs them alike).
    pub fn pairs(self, commands: Vec<crate::devtime::Command>) -> BTreeMap<u64, u64> {
        pairs_of(&self.finish(commands).rows)
    }

    fn ndrange_row(&self, cmd: u64, n: &NdRange, timed: Option<&crate::devtime::Command>) -> Row {
        let k = self.kinfo.get(&cmd);
        let kw = |f: fn(&crate::decode::KernelInfo) -> Option<u64>| k.and_then(|k| f(&k.0));
        let name = |from_info: Option<&String>, from_timing: Option<String>| {
            from_info.filter(|s| !s.is_empty()).cloned().or(from_timing).unwrap_or_default()
        };
        Row {
            kernel: name(k.map(|k| &k.1), timed.and_then(|c| c.kernel.clone())),
            device: name(k.map(|k| &k.2), timed.map(|c| c.device.to_string())),
            tid: n.tid,
            cmd_id: Some(cmd),
            call_index: Some(n.call_index),
            kernel_handle: Some(n.kernel),
            global: n.global,
            local: n.local,
            local_given: n.local_given,
            time_ns: timed.filter(|c| c.status == 0 && c.end >= c.start && c.start > 0).map(|c| c.end - c.start),
            lds: kw(|k| k.local_mem),
            scratch: kw(|k| k.private_mem),
            preferred_multiple: kw(|k| k.preferred_multiple),
            kernel_wg_max: kw(|k| k.work_group_size),
            limits: Limits {
                compute_units: kw(|k| k.device_cus),
                lds_per_cu: kw(|k| k.device_local_mem),
                max_wg_size: kw(|k| k.device_max_wg),
                cpu: kw(|k| k.device_type).is_some_and(|t| t & 2 != 0),
                ..Limits::default()
            },
            ..Row::default()
        }
    }

    fn dispatch_row(&self, seq: u64, d: &Dispatch) -> Row {
        let (w, object) = (&d.d, d.d.kernel_object);
        let agent = self.agents.get(&w.agent);
        let aw = |f: fn(&crate::decode::Agent) -> u64| agent.map(|a| f(&a.info)).filter(|v| *v != 0);
        let known = self.kernels.get(&object).map(Vec::as_slice).unwrap_or_default();
        let mine = known.iter().rev().find(|(_, n)| d.name.is_some() && *n == d.name).or_else(|| known.last());
        let kd = mine.and_then(|(k, _)| *k);
        let name =
            d.name.clone().or_else(|| mine.and_then(|(_, n)| n.clone())).unwrap_or_else(|| format!("{object:#x}"));
        let (group, private) = (w.group_segment, w.private_segment);
        Row {
            kernel: name,
            device: agent.map(|a| a.name.clone()).unwrap_or_else(|| format!("{:#x}", w.agent)),
            // The submitting thread (the record may come from the runtime's).
            tid: Some(w.tid).filter(|t| *t != 0).unwrap_or(d.tid),
            global: w.grid,
            local: Some(w.workgroup),
            local_given: true,
            time_ns: (d.t1 > d.t0).then(|| d.t1 - d.t0),
            // The packet's segment sizes include the kernel's own and what the
            // application added (dynamic LDS): what the dispatch really used.
            lds: Some(group.max(kd.as_ref().map_or(0, |k| k.group_segment_fixed_size as u64))),
            scratch: Some(private.max(kd.as_ref().map_or(0, |k| k.private_segment_fixed_size as u64))),
            vgprs: kd.as_ref().map(|k| k.gfx9_vgprs() as u64),
            sgprs: kd.as_ref().map(|k| k.gfx9_sgprs() as u64),
            limits: Limits {
                compute_units: aw(|a| a.compute_units),
                simds_per_cu: aw(|a| a.simds_per_cu),
                wave_size: aw(|a| a.wavefront_size),
                max_waves_per_cu: aw(|a| a.max_waves_per_cu),
                lds_per_cu: None,
                max_wg_size: aw(|a| a.workgroup_max),
                gfx_ip: agent.map(|a| a.name.clone()).filter(|n| n.starts_with("gfx")),
                cpu: false,
            },
            hsa: Some(HsaDispatch {
                seq,
                agent: w.agent,
                gpu_index: agent.map_or(0, |a| a.info.index),
                queue_id: w.queue_id,
                queue_index: w.queue_index,
                kernel_object: object,
                signal: w.signal,
                queue_number: w.queue_number,
                dispatch: w.time_dispatch,
                begin: d.t0,
                end: d.t1,
                complete: w.time_complete,
            }),
            events: self.counters.get(&seq).cloned().unwrap_or_default(),
            ..Row::default()
        }
    }
}

/// The joined rows' (command id, dispatch number).
pub fn pairs_of(rows: &[Row]) -> BTreeMap<u64, u64> {
    rows.iter().filter_map(|r| Some((r.cmd_id?, r.hsa.as_ref()?.seq))).collect()
}

fn gpu_of(a: &Agent, blocks: &[u64]) -> Gpu {
    let i = &a.info;
    Gpu {
        name: a.name.clone(),
        compute_units: i.compute_units as u32,
        simds_per_cu: i.simds_per_cu as u32,
        shader_engines: i.shader_engines as u32,
        wave_size: i.wavefront_size as u32,
        blocks: blocks.iter().map(|b| ((b >> 32) as u32, ((b >> 16) & 0xFFFF) as u32, (b & 0xFFFF) as u32)).collect(),
    }
}

/// The first `dims` sizes of a captured `size_t` array (the others 1).
fn sizes(v: &View<'_>, which: impl Fn(&Capture) -> bool, dims: usize) -> Option<[u64; 3]> {
    let (_, d) = v.captures.iter().find(|(c, _)| which(c))?;
    let mut a = [1u64; 3];
    for (i, x) in crate::decode::words(d, 8).into_iter().take(dims).enumerate() {
        a[i] = x;
    }
    Some(a)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cltap_formats::cltrace::record::{encode, Capture, Header, Tag, FLAG_DONE, NAME_PARAM};

    fn view_bytes(kind: u16, cmd_id: u64, args: &[u64], name: &str) -> Vec<u8> {
        let h = Header { kind, cmd_id, flags: FLAG_DONE, nargs: args.len() as u8, tid: 7, ..Header::default() };
        let c = Capture {
            param: NAME_PARAM,
            tag: Tag::Str as u8,
            _pad: 0,
            bytes: name.len() as u32,
            total: name.len() as u64,
        };
        encode(&h, args, &[(c, name.as_bytes())])
    }

    fn feed(c: &mut Collector, bytes: &[u8]) {
        for v in cltap_formats::cltrace::record::records(bytes) {
            c.record(&v);
        }
    }

    #[test]
    fn a_reused_kernel_object_takes_the_descriptor_of_its_own_name() {
        // Two kernels at one object address, one after the other: each
        // dispatch row gets the LDS of the descriptor recorded under its name.
        let object = 0x1000;
        let kd = |lds: u32| {
            let mut words = [0u64; 8];
            words[0] = lds as u64; // group_segment_fixed_size: the first 4 bytes
            words.to_vec()
        };
        let mut dispatch = vec![0u64; DISPATCH_WORDS];
        dispatch[DISPATCH_KERNEL_OBJECT] = object;
        dispatch[DISPATCH_GRID] = 64;
        dispatch[DISPATCH_WORKGROUP] = 64;
        let mut c = Collector::new(Request::default());
        let mut bytes = view_bytes(KIND_HSA_KERNEL, object, &kd(0), "a.kd");
        bytes.extend(view_bytes(KIND_HSA_DISPATCH, 1, &dispatch, "a.kd"));
        bytes.extend(view_bytes(KIND_HSA_KERNEL, object, &kd(1024), "b.kd"));
        bytes.extend(view_bytes(KIND_HSA_DISPATCH, 2, &dispatch, "b.kd"));
        feed(&mut c, &bytes);
        let rows = c.finish(Vec::new()).rows;
        let got: Vec<(&str, Option<u64>)> = rows.iter().map(|r| (r.kernel.as_str(), r.lds)).collect();
        assert_eq!(got, [("a.kd", Some(0)), ("b.kd", Some(1024))]);
    }
}
