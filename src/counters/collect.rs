//! Gathers a run's counter rows while the trace is rendered: the renderer
//! hands every record to [`Collector::record`], and at the end
//! [`Collector::finish`] joins what belongs together with the device
//! timing's commands into a [`Pass`].

use super::join;
use super::row::{Gpu, HsaDispatch, Limits, Pass, Row};
use crate::trace::record::*;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// The run's counter request, from the trace's information.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Request {
    pub names: Vec<String>,
    pub metrics_file: Option<PathBuf>,
    pub pass: u32,
}

struct Agent {
    name: String,
    words: Vec<u64>,
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
    words: Vec<u64>,
    name: Option<String>,
}

/// A kernel descriptor's words and the kernel's name, as recorded.
type KernelEntry = (Vec<u64>, Option<String>);

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
    /// The plan record: passes, agent, block words.
    plan: Option<(u32, u64, Vec<u64>)>,
    /// NDRange command id → the driver's statistics and (kernel, device) names.
    kinfo: HashMap<u64, (Vec<u64>, String, String)>,
    ndranges: BTreeMap<u64, NdRange>,
    calls_per_thread: HashMap<u32, u64>,
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
                self.agents.insert(
                    w(AGENT_HANDLE),
                    Agent { name: v.kernel_name().unwrap_or_default(), words: v.args.to_vec() },
                );
            }
            KIND_HSA_KERNEL => {
                self.kernels.entry(h.cmd_id).or_default().push((v.args.to_vec(), v.kernel_name()));
            }
            KIND_HSA_DISPATCH if v.returned() => {
                self.dispatches.insert(
                    h.cmd_id,
                    Dispatch { tid: h.tid, t0: h.t0, t1: h.t1, words: v.args.to_vec(), name: v.kernel_name() },
                );
            }
            KIND_HSA_COUNTERS => {
                let values = self.counters.entry(h.cmd_id).or_default();
                for pair in v.args.get(1..).unwrap_or(&[]).chunks_exact(2) {
                    *values.entry(pair[0]).or_insert(0) += pair[1];
                }
            }
            KIND_COUNTER_PLAN => {
                self.plan =
                    Some((w(PLAN_PASSES) as u32, w(PLAN_AGENT), v.args.get(PLAN_BLOCKS..).unwrap_or(&[]).to_vec()));
            }
            KIND_KERNEL_INFO => {
                let names = v.kernel_name().unwrap_or_default();
                let (kernel, device) = names.split_once('\t').unwrap_or((&names, ""));
                self.kinfo.insert(h.cmd_id, (v.args.to_vec(), kernel.to_string(), device.to_string()));
            }
            _ => {}
        }
    }

    /// The run's rows: each NDRange (with its device time where the device
    /// timing has it, `commands`), each HSA dispatch, the two joined where
    /// one became the other.
    pub fn finish(self, commands: Vec<crate::devtime::Command>) -> Pass {
        let by_cmd: HashMap<u64, crate::devtime::Command> = commands.into_iter().map(|c| (c.cmd_id, c)).collect();
        let ndranges: Vec<Row> =
            self.ndranges.iter().map(|(cmd, n)| self.ndrange_row(*cmd, n, by_cmd.get(cmd))).collect();
        let dispatches: Vec<Row> = self.dispatches.iter().map(|(seq, d)| self.dispatch_row(*seq, d)).collect();
        let rows = join::ndranges_with_dispatches(ndranges, dispatches);
        let (passes, gpu) = match &self.plan {
            Some((passes, agent, blocks)) => (*passes, self.agents.get(agent).map(|a| gpu_of(a, blocks))),
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

    fn ndrange_row(&self, cmd: u64, n: &NdRange, timed: Option<&crate::devtime::Command>) -> Row {
        let k = self.kinfo.get(&cmd);
        let kw = |i: usize| k.and_then(|k| k.0.get(i).copied()).filter(|v| *v != u64::MAX);
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
            lds: kw(KINFO_LOCAL_MEM),
            scratch: kw(KINFO_PRIVATE_MEM),
            preferred_multiple: kw(KINFO_PREFERRED_MULTIPLE),
            kernel_wg_max: kw(KINFO_WORK_GROUP_SIZE),
            limits: Limits {
                compute_units: kw(KINFO_DEVICE_CUS),
                lds_per_cu: kw(KINFO_DEVICE_LOCAL_MEM),
                max_wg_size: kw(KINFO_DEVICE_MAX_WG),
                cpu: kw(KINFO_DEVICE_TYPE).is_some_and(|t| t & 2 != 0),
                ..Limits::default()
            },
            ..Row::default()
        }
    }

    fn dispatch_row(&self, seq: u64, d: &Dispatch) -> Row {
        let w = |i: usize| d.words.get(i).copied().unwrap_or(0);
        let object = w(DISPATCH_KERNEL_OBJECT);
        let agent = self.agents.get(&w(DISPATCH_AGENT));
        let aw = |i: usize| agent.and_then(|a| a.words.get(i).copied()).filter(|v| *v != 0);
        let known = self.kernels.get(&object).map(Vec::as_slice).unwrap_or_default();
        let mine = known.iter().rev().find(|(_, n)| d.name.is_some() && *n == d.name).or_else(|| known.last());
        let kd = mine.and_then(|(k, _)| descriptor(k));
        let name =
            d.name.clone().or_else(|| mine.and_then(|(_, n)| n.clone())).unwrap_or_else(|| format!("{object:#x}"));
        let group = w(DISPATCH_GROUP_SEGMENT);
        let private = w(DISPATCH_PRIVATE_SEGMENT);
        Row {
            kernel: name,
            device: agent.map(|a| a.name.clone()).unwrap_or_else(|| format!("{:#x}", w(DISPATCH_AGENT))),
            // The submitting thread (the record may come from the runtime's).
            tid: Some(w(DISPATCH_TID) as u32).filter(|t| *t != 0).unwrap_or(d.tid),
            global: [w(DISPATCH_GRID), w(DISPATCH_GRID + 1), w(DISPATCH_GRID + 2)],
            local: Some([w(DISPATCH_WORKGROUP), w(DISPATCH_WORKGROUP + 1), w(DISPATCH_WORKGROUP + 2)]),
            local_given: true,
            time_ns: (d.t1 > d.t0).then(|| d.t1 - d.t0),
            // The packet's segment sizes include the kernel's own and what the
            // application added (dynamic LDS): what the dispatch really used.
            lds: Some(group.max(kd.as_ref().map_or(0, |k| k.group_segment_fixed_size as u64))),
            scratch: Some(private.max(kd.as_ref().map_or(0, |k| k.private_segment_fixed_size as u64))),
            vgprs: kd.as_ref().map(|k| k.gfx9_vgprs() as u64),
            sgprs: kd.as_ref().map(|k| k.gfx9_sgprs() as u64),
            limits: Limits {
                compute_units: aw(AGENT_COMPUTE_UNITS),
                simds_per_cu: aw(AGENT_SIMDS_PER_CU),
                wave_size: aw(AGENT_WAVEFRONT_SIZE),
                max_waves_per_cu: aw(AGENT_MAX_WAVES_PER_CU),
                lds_per_cu: None,
                max_wg_size: aw(AGENT_WORKGROUP_MAX),
                gfx_ip: agent.map(|a| a.name.clone()).filter(|n| n.starts_with("gfx")),
                cpu: false,
            },
            hsa: Some(HsaDispatch {
                seq,
                agent: w(DISPATCH_AGENT),
                gpu_index: agent.and_then(|a| a.words.get(AGENT_INDEX).copied()).unwrap_or(0),
                queue_id: w(DISPATCH_QUEUE_ID),
                queue_index: w(DISPATCH_QUEUE_INDEX),
                kernel_object: object,
                signal: w(DISPATCH_SIGNAL),
                queue_number: w(DISPATCH_QUEUE_NUMBER),
                dispatch: w(DISPATCH_TIME_DISPATCH),
                begin: d.t0,
                end: d.t1,
                complete: w(DISPATCH_TIME_COMPLETE),
            }),
            events: self.counters.get(&seq).cloned().unwrap_or_default(),
            ..Row::default()
        }
    }
}

fn gpu_of(a: &Agent, blocks: &[u64]) -> Gpu {
    let w = |i: usize| a.words.get(i).copied().unwrap_or(0) as u32;
    Gpu {
        name: a.name.clone(),
        compute_units: w(AGENT_COMPUTE_UNITS),
        simds_per_cu: w(AGENT_SIMDS_PER_CU),
        shader_engines: w(AGENT_SHADER_ENGINES),
        wave_size: w(AGENT_WAVEFRONT_SIZE),
        blocks: blocks.iter().map(|b| ((b >> 32) as u32, ((b >> 16) & 0xFFFF) as u32, (b & 0xFFFF) as u32)).collect(),
    }
}

/// A `KIND_HSA_KERNEL` record's eight words as a kernel descriptor.
fn descriptor(words: &[u64]) -> Option<crate::hsa::kd::KernelDescriptor> {
    let mut b = [0u8; crate::hsa::kd::KD_SIZE];
    if words.len() * 8 < b.len() {
        return None;
    }
    for (i, w) in words.iter().take(8).enumerate() {
        b[i * 8..i * 8 + 8].copy_from_slice(&w.to_le_bytes());
    }
    Some(crate::hsa::kd::decode(&b))
}

/// The first `dims` sizes of a captured `size_t` array (the others 1).
fn sizes(v: &View<'_>, which: impl Fn(&Capture) -> bool, dims: usize) -> Option<[u64; 3]> {
    let (_, d) = v.captures.iter().find(|(c, _)| which(c))?;
    let mut a = [1u64; 3];
    for (i, x) in crate::trace::printer::words(d, 8).into_iter().take(dims).enumerate() {
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
