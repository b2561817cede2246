//! rocpd's SQLite database as a sink (`CLTAP_ROCPD=1`, `<stem>.db`), in
//! rocprofiler-sdk's schema, so queries and `rocpd` views written for
//! rocprofv3's databases run on it. Written on the renderer's thread (never
//! an application's) in large transactions: the process and node, each
//! thread, the HSA agents and the OpenCL devices, every OpenCL and HSA call
//! as a region with its arguments (the OpenCL calls in their own category,
//! `OPENCL_API`, which rocprofv3 does not have), every timed HSA dispatch
//! and OpenCL kernel command as a kernel dispatch (an NDRange and the HSA
//! dispatch it became as one), the OpenCL transfers as
//! memory copies, the hardware counters of each dispatch, and the memory
//! trace's allocations and releases (`CLTAP_MEMORY`). A call and
//! what it caused share a correlation id: the command id for OpenCL, the
//! doorbell store's thread and call number for HSA.

use super::sink::{End, Kinds, Open, Results, Sink};
use crate::counters::collect::Collector;
use crate::decode::{Agent, Dispatch};
use crate::trace::record::{
    View, FLAG_CMD, KIND_COUNTER_PLAN, KIND_HSA_AGENT, KIND_HSA_CALL, KIND_HSA_COUNTERS, KIND_HSA_DISPATCH,
    KIND_HSA_KERNEL, KIND_KERNEL_INFO, KIND_NOTE, KIND_OPENCL_CALL, KIND_THREAD,
};
use crate::trace::tsc::HostClock;
use cltap_formats::rocpd::{self, params, Error, Region, Writer};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

mod end;

/// A timed HSA dispatch, as its record gave it.
struct HsaRow {
    track: i64,
    agent: i64,
    kernel: i64,
    name: String,
    start: u64,
    end: u64,
    grid: [u64; 3],
    workgroup: [u64; 3],
    private_segment: u64,
    group_segment: u64,
    queue_id: u64,
    queue_index: u64,
    /// The doorbell store's correlation id (0: submitted outside a recorded call).
    correlation_id: u64,
}

/// A kernel dispatch row's `extdata`: the identities it carries, its
/// OpenCL command's and its HSA dispatch's (number, queue, packet index and
/// the doorbell store's correlation id), each where it has one.
fn identities(cmd: Option<u64>, hsa: Option<(u64, u64, u64, u64)>) -> String {
    let mut o = serde_json::Map::new();
    if let Some(c) = cmd {
        o.insert("opencl".into(), serde_json::json!({ "cmd_id": c, "correlation_id": c }));
    }
    if let Some((seq, queue, index, correlation)) = hsa {
        o.insert(
            "hsa".into(),
            serde_json::json!({
                "dispatch_id": seq, "queue_id": queue, "queue_index": index, "correlation_id": correlation,
            }),
        );
    }
    serde_json::Value::Object(o).to_string()
}

pub struct Rocpd {
    w: Option<Writer>,
    path: PathBuf,
    pid: u32,
    clock: HostClock,
    /// HSA dispatch times onto `clock`'s nanoseconds.
    hsa: crate::render::hsa_time::HsaClock,
    host_agent: i64,
    threads: HashMap<u32, i64>,
    names: super::thread_names::ThreadNames,
    /// Agents by HSA handle, or by OpenCL device name.
    hsa_agents: HashMap<u64, i64>,
    cl_agents: HashMap<String, i64>,
    /// OpenCL devices the trace notes run on the host's cores.
    cpu_devices: std::collections::HashSet<String>,
    /// Queue tracks by (agent, queue).
    queues: HashMap<(i64, u64), i64>,
    code_objects: HashMap<i64, i64>,
    /// Kernel symbols by (agent, name).
    kernels: HashMap<(i64, String), i64>,
    /// Counter descriptions by (agent, metric name).
    pmcs: HashMap<(i64, String), i64>,
    /// Timed HSA dispatches by dispatch number, written at the end, when
    /// the NDRange each became (if any) is known.
    hsa_rows: BTreeMap<u64, HsaRow>,
    /// The NDRanges and dispatches, joined at the end as the counter files
    /// join them; it evaluates the counters into their metrics too.
    collector: Collector,
    /// Kernel descriptors by kernel object, written into the kernel symbols
    /// at the end.
    descriptors: BTreeMap<u64, crate::hsa::kd::KernelDescriptor>,
    /// Perf markers begun and not yet ended, per thread: start, name, group.
    markers: HashMap<u32, Vec<(u64, String, String)>>,
}

fn machine_id() -> String {
    std::fs::read_to_string("/etc/machine-id").map(|s| s.trim().to_string()).unwrap_or_else(|_| "unknown".into())
}

fn hostname() -> String {
    let mut b = [0u8; 256];
    // SAFETY: writes at most `b.len()` bytes into `b`.
    let r = unsafe { libc::gethostname(b.as_mut_ptr().cast(), b.len()) };
    let n = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    if r == 0 {
        String::from_utf8_lossy(&b[..n]).into_owned()
    } else {
        String::new()
    }
}

/// The correlation id of an HSA call (thread, number) and of the
/// dispatches it submitted.
fn hsa_correlation(tid: u32, call: u64) -> u64 {
    (tid as u64) << 40 | (call & ((1 << 40) - 1))
}

impl Rocpd {
    pub fn sink(cx: &Open<'_>) -> Option<Box<dyn Sink>> {
        let path = cx.outputs.path("db");
        match Rocpd::open(cx, path.clone()) {
            Ok(s) => Some(Box::new(s)),
            Err(e) => {
                crate::warn!("cannot create {}: {e}; no rocpd database", path.display());
                None
            }
        }
    }

    fn open(cx: &Open<'_>, path: PathBuf) -> Result<Rocpd, Error> {
        let r = cx.reader;
        let pid = r.header.pid;
        let guid = format!("{:08x}-{:016x}", pid, r.header.mono0);
        let mut w = Writer::create(&path, &guid)?;
        let (mid, host) = (machine_id(), hostname());
        let hash = mid.bytes().fold(0i64, |h, b| h.wrapping_mul(31).wrapping_add(b as i64));
        w.nid = w.insert(
            "rocpd_info_node",
            &["hash", "machine_id", "system_name", "hostname", "release"],
            params![hash, mid, "Linux", host, r.info("os").unwrap_or("")],
        )?;
        let nid = w.nid;
        w.insert(
            "rocpd_info_process",
            &["nid", "pid", "init", "start", "command"],
            params![nid, pid, r.header.mono0 as i64, r.header.mono0 as i64, r.info("cmdline").unwrap_or("")],
        )?;
        let host_agent = w.insert(
            "rocpd_info_agent",
            &["nid", "pid", "type", "absolute_index", "logical_index", "type_index", "name"],
            params![nid, pid, "CPU", 0, 0, 0, "host"],
        )?;
        Ok(Rocpd {
            w: Some(w),
            path,
            pid,
            clock: cx.clock,
            hsa: cx.hsa.clone(),
            host_agent,
            threads: HashMap::new(),
            names: Default::default(),
            hsa_agents: HashMap::new(),
            cl_agents: HashMap::new(),
            cpu_devices: Default::default(),
            queues: HashMap::new(),
            code_objects: HashMap::new(),
            kernels: HashMap::new(),
            pmcs: HashMap::new(),
            hsa_rows: BTreeMap::new(),
            collector: Collector::new(cx.outputs.counters.clone().unwrap_or_default()),
            markers: HashMap::new(),
            descriptors: BTreeMap::new(),
        })
    }

    fn w(&mut self) -> &mut Writer {
        self.w.as_mut().expect("open")
    }

    fn thread_track(&mut self, tid: u32) -> Result<i64, Error> {
        if let Some(&t) = self.threads.get(&tid) {
            return Ok(t);
        }
        let (nid, pid) = (self.w().nid, self.pid);
        let name = self.names.of(tid);
        self.w().insert("rocpd_info_thread", &["nid", "pid", "tid", "name"], params![nid, pid, tid, name])?;
        let name_id = self.w().string(&name)?;
        let t = self.w().insert("rocpd_track", &["nid", "pid", "tid", "name_id"], params![nid, pid, tid, name_id])?;
        self.threads.insert(tid, t);
        Ok(t)
    }

    fn agent_of(&mut self, key: Result<u64, &str>, kind: &str) -> Result<i64, Error> {
        let found = match key {
            Ok(h) => self.hsa_agents.get(&h).copied(),
            Err(n) => self.cl_agents.get(n).copied(),
        };
        if let Some(a) = found {
            return Ok(a);
        }
        let name = match key {
            Ok(h) => format!("{h:#x}"),
            Err(n) => n.to_string(),
        };
        let (nid, pid) = (self.w().nid, self.pid);
        let index = (self.hsa_agents.len() + self.cl_agents.len() + 1) as i64;
        let a = self.w().insert(
            "rocpd_info_agent",
            &["nid", "pid", "type", "absolute_index", "logical_index", "name"],
            params![nid, pid, kind, index, index, name],
        )?;
        match key {
            Ok(h) => self.hsa_agents.insert(h, a),
            Err(n) => self.cl_agents.insert(n.to_string(), a),
        };
        Ok(a)
    }

    fn queue_track(&mut self, agent: i64, queue: u64, name: String) -> Result<i64, Error> {
        if let Some(&t) = self.queues.get(&(agent, queue)) {
            return Ok(t);
        }
        let (nid, pid) = (self.w().nid, self.pid);
        let q = self.w().insert("rocpd_info_queue", &["nid", "pid", "name"], params![nid, pid, name])?;
        let name_id = self.w().string(&name)?;
        let t = self.w().insert(
            "rocpd_track",
            &["nid", "pid", "agent_id", "queue_id", "name_id"],
            params![nid, pid, agent, q, name_id],
        )?;
        self.queues.insert((agent, queue), t);
        Ok(t)
    }

    fn kernel_symbol(&mut self, agent: i64, name: &str, object: u64) -> Result<i64, Error> {
        if let Some(&k) = self.kernels.get(&(agent, name.to_string())) {
            return Ok(k);
        }
        let (nid, pid) = (self.w().nid, self.pid);
        let co = match self.code_objects.get(&agent) {
            Some(&c) => c,
            None => {
                let c = self.w().insert(
                    "rocpd_info_code_object",
                    &["nid", "pid", "agent_id", "storage_type"],
                    params![nid, pid, agent, "MEMORY"],
                )?;
                self.code_objects.insert(agent, c);
                c
            }
        };
        let k = self.w().insert(
            "rocpd_info_kernel_symbol",
            &["nid", "pid", "code_object_id", "kernel_name", "display_name", "kernel_object"],
            params![nid, pid, co, name, name, object as i64],
        )?;
        self.kernels.insert((agent, name.to_string()), k);
        Ok(k)
    }

    fn call(&mut self, v: &View<'_>) -> Result<(), Error> {
        let h = &v.header;
        let Some(f) = crate::meta::function(h.kind, h.fn_id) else { return Ok(()) };
        let track = self.thread_track(h.tid)?;
        if f.is_marker() && h.ret == 0 {
            self.marker(v, f, track)?;
        }
        let call = super::atp_call::api_call(f, v);
        let args: Vec<(&str, &str, String)> =
            f.params.iter().zip(call.args).map(|(p, a)| (p.c_type, p.name, a)).collect();
        let (category, correlation_id) = if h.kind == KIND_OPENCL_CALL {
            ("OPENCL_API", if h.flags & FLAG_CMD != 0 { h.cmd_id } else { 0 })
        } else if f.name.starts_with("hsa_amd_") {
            ("HSA_AMD_EXT_API", hsa_correlation(h.tid, h.cmd_id))
        } else {
            ("HSA_CORE_API", hsa_correlation(h.tid, h.cmd_id))
        };
        let (start, end) = (self.clock.ns(h.t0), self.clock.ns(h.t1));
        self.w().region(&Region {
            track,
            name: f.name,
            category,
            start,
            end: end.max(start),
            correlation_id,
            args: &args,
        })
    }

    /// A perf marker's begin or end: a begun marker becomes a region of
    /// rocprofiler-sdk's marker category (as ROCTx ranges are) when its
    /// thread ends it, from the begin call to the end call.
    fn marker(&mut self, v: &View<'_>, f: &crate::meta::FnMeta, track: i64) -> Result<(), Error> {
        let (tid, at) = (v.header.tid, self.clock.ns(v.header.t0));
        if f.name == "clBeginPerfMarkerCLTAP" {
            let text = |i: usize| v.string_arg(i).unwrap_or_default();
            self.markers.entry(tid).or_default().push((at, text(0), text(1)));
            return Ok(());
        }
        let Some((start, name, group)) = self.markers.get_mut(&tid).and_then(Vec::pop) else { return Ok(()) };
        let args = [("const char*", "group", group)];
        self.w().region(&Region {
            track,
            name: &name,
            category: "MARKER_CORE_API",
            start,
            end: at.max(start),
            correlation_id: 0,
            args: &args,
        })
    }

    /// A timed HSA dispatch, kept for the end (untimed ones, `=1`, have no
    /// row: rocpd's dispatches have times).
    fn dispatch(&mut self, v: &View<'_>) -> Result<(), Error> {
        let h = &v.header;
        if h.t0 == 0 || h.t1 < h.t0 {
            return Ok(());
        }
        let d = Dispatch::of(v);
        let agent = self.agent_of(Ok(d.agent), "GPU")?;
        let track = self.queue_track(agent, d.queue_id, format!("HSA queue {}", d.queue_id))?;
        let name = v.kernel_name().unwrap_or_else(|| format!("kernel {:#x}", d.kernel_object));
        let kernel = self.kernel_symbol(agent, &name, d.kernel_object)?;
        // The runtime's system clock (CLOCK_BOOTTIME), put on the calls'.
        let (start, end) = (self.hsa.ns(h.t0), self.hsa.ns(h.t1));
        let row = HsaRow {
            track,
            agent,
            kernel,
            name,
            start,
            end,
            grid: d.grid,
            workgroup: d.workgroup,
            private_segment: d.private_segment,
            group_segment: d.group_segment,
            queue_id: d.queue_id,
            queue_index: d.queue_index,
            correlation_id: if d.call == 0 { 0 } else { hsa_correlation(d.tid, d.call) },
        };
        self.hsa_rows.insert(h.cmd_id, row);
        Ok(())
    }

    fn record_or_err(&mut self, v: &View<'_>) -> Result<(), Error> {
        self.collector.record(v);
        match v.header.kind {
            KIND_OPENCL_CALL | KIND_HSA_CALL => self.call(v),
            KIND_THREAD => {
                self.names.learn(v);
                Ok(())
            }
            KIND_HSA_DISPATCH => self.dispatch(v),
            KIND_HSA_AGENT => {
                let a = Agent::of(v);
                let name = v.kernel_name().unwrap_or_default();
                let kind = if a.device == 1 { "GPU" } else { "CPU" };
                let (nid, pid) = (self.w().nid, self.pid);
                let id = self.w().insert(
                    "rocpd_info_agent",
                    &["nid", "pid", "type", "absolute_index", "logical_index", "type_index", "name"],
                    params![nid, pid, kind, v.header.cmd_id as i64, a.index as i64, a.index as i64, name],
                )?;
                self.hsa_agents.insert(a.handle, id);
                Ok(())
            }
            KIND_NOTE => {
                if let Some(d) = v.kernel_name().as_deref().and_then(crate::devtime::devices::cpu_of_note) {
                    self.cpu_devices.insert(d.to_string());
                }
                Ok(())
            }
            KIND_HSA_KERNEL => {
                self.descriptors.insert(v.header.cmd_id, crate::decode::kernel_descriptor(v));
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn failed(&mut self, e: Error) {
        crate::warn!("cannot write {}: {e}; the rocpd database ends here", self.path.display());
        self.w = None;
    }
}

impl Sink for Rocpd {
    fn kinds(&self) -> Kinds {
        Kinds::of(&[
            KIND_NOTE,
            KIND_OPENCL_CALL,
            KIND_HSA_CALL,
            KIND_HSA_DISPATCH,
            KIND_HSA_AGENT,
            KIND_HSA_COUNTERS,
            KIND_HSA_KERNEL,
            KIND_KERNEL_INFO,
            KIND_COUNTER_PLAN,
            KIND_THREAD,
        ])
    }

    fn record(&mut self, v: &View<'_>) {
        if self.w.is_none() || !v.returned() {
            return;
        }
        if let Err(e) = self.record_or_err(v) {
            self.failed(e);
        }
    }

    fn finish(mut self: Box<Self>, end: &End<'_>, results: &mut Results) {
        if self.w.is_none() {
            return;
        }
        if let Err(e) = self.commands(end) {
            return self.failed(e);
        }
        if let Some(m) = results.memory.as_ref().filter(|m| m.asked.trace) {
            if let Err(e) = self.allocations(m) {
                return self.failed(e);
            }
        }
        if let Err(e) = self.kernel_resources() {
            return self.failed(e);
        }
        let Some(w) = self.w.take() else { return };
        match w.finish() {
            Ok(()) => results.files.push(self.path.clone()),
            Err(e) => self.failed(e),
        }
    }
}
