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

    /// The kernel dispatch rows: one per dispatch. An NDRange that became
    /// an HSA dispatch (the counter files' join, by identity) is one row
    /// with both identities: the dispatch's times, queue and number, and
    /// the enqueue's correlation id (as rocprofv3 ties a kernel to the API
    /// call that launched it); `extdata` names both. Counters are the
    /// requested metrics, by name, evaluated as the counter files do.
    fn dispatches(&mut self, commands: &[crate::devtime::Command], end: &End<'_>) -> Result<(), Error> {
        let pass = std::mem::take(&mut self.collector).finish(commands.to_vec());
        let values = crate::counters::files::values(&pass);
        let derived = crate::counters::files::derived(&pass);
        let by_seq: HashMap<u64, usize> =
            pass.rows.iter().enumerate().filter_map(|(i, r)| Some((r.hsa.as_ref()?.seq, i))).collect();
        let by_cmd: HashMap<u64, usize> =
            pass.rows.iter().enumerate().filter_map(|(i, r)| Some((r.cmd_id?, i))).collect();
        let mut written = std::collections::HashSet::new();
        for (seq, d) in std::mem::take(&mut self.hsa_rows) {
            let i = by_seq.get(&seq).copied();
            let cmd = i.and_then(|i| pass.rows[i].cmd_id);
            let extdata = identities(cmd, Some((seq, d.queue_id, d.queue_index, d.correlation_id)));
            let event = self.w().dispatch(&rocpd::Dispatch {
                track: d.track,
                kernel: d.kernel,
                dispatch_id: seq,
                start: d.start,
                end: d.end,
                grid: d.grid,
                workgroup: d.workgroup,
                private_segment: d.private_segment,
                group_segment: d.group_segment,
                region: &d.name,
                correlation_id: cmd.unwrap_or(d.correlation_id),
                extdata: &extdata,
            })?;
            if let Some(c) = cmd {
                written.insert(c);
            }
            if let Some(i) = i {
                self.pmc_values(d.agent, event, &pass.names, &derived, &values[i])?;
            }
        }
        // The timed NDRanges whose dispatch has no row of its own: their
        // device times from the runtime's events.
        let offsets = end.offsets();
        for c in commands.iter().filter(|c| c.status == 0 && c.kernel.is_some() && !written.contains(&c.cmd_id)) {
            let off = offsets.get(&c.queue).map_or(0, |o| o.0);
            let start = crate::devtime::on_host(c.start, off);
            let agent = self.agent_of(Err(&c.device), self.device_kind(&c.device))?;
            let track = self.queue_track(agent, c.queue, format!("{} queue {:016X}", c.device, c.queue))?;
            let dim = |v: &[usize], i: usize| v.get(i).map_or(1, |x| *x as u64);
            let local = c.local.clone().unwrap_or_default();
            let kernel = self.kernel_symbol(agent, c.kernel.as_deref().unwrap_or_default(), 0)?;
            let i = by_cmd.get(&c.cmd_id).copied();
            // Its dispatch was not timed: no doorbell correlation to name.
            let hsa = i.and_then(|i| pass.rows[i].hsa.as_ref()).map(|h| (h.seq, h.queue_id, h.queue_index, 0));
            let event = self.w().dispatch(&rocpd::Dispatch {
                track,
                kernel,
                dispatch_id: c.cmd_id,
                start,
                end: start + c.duration_ns(),
                grid: [dim(&c.global, 0), dim(&c.global, 1), dim(&c.global, 2)],
                workgroup: [dim(&local, 0), dim(&local, 1), dim(&local, 2)],
                private_segment: 0,
                group_segment: 0,
                region: c.api,
                correlation_id: c.cmd_id,
                extdata: &identities(Some(c.cmd_id), hsa),
            })?;
            if let Some(i) = i.filter(|i| pass.rows[*i].hsa.is_some()) {
                self.pmc_values(agent, event, &pass.names, &derived, &values[i])?;
            }
        }
        Ok(())
    }

    /// One dispatch's counter values, a `rocpd_pmc_event` per requested
    /// metric that has one, named as requested (`SQ_WAVES`, as rocprofv3
    /// writes them).
    fn pmc_values(
        &mut self,
        agent: i64,
        event: i64,
        names: &[String],
        derived: &[bool],
        values: &[Option<f64>],
    ) -> Result<(), Error> {
        for ((name, derived), value) in names.iter().zip(derived).zip(values) {
            let Some(value) = value else { continue };
            let pmc = match self.pmcs.get(&(agent, name.clone())) {
                Some(&p) => p,
                None => {
                    let (nid, pid) = (self.w().nid, self.pid);
                    let p = self.w().insert(
                        "rocpd_info_pmc",
                        &["nid", "pid", "agent_id", "target_arch", "name", "symbol", "value_type", "is_derived"],
                        params![nid, pid, agent, "GPU", name, name, "ABS", *derived as i64],
                    )?;
                    self.pmcs.insert((agent, name.clone()), p);
                    p
                }
            };
            self.w().insert("rocpd_pmc_event", &["event_id", "pmc_id", "value"], params![event, pmc, *value])?;
        }
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

    /// An OpenCL device's rocpd agent type: `CPU` where the layer noted that it runs on the
    /// host's cores (PoCL, Intel's CPU runtime), else `GPU`.
    fn device_kind(&self, device: &str) -> &'static str {
        if self.cpu_devices.contains(device) {
            "CPU"
        } else {
            "GPU"
        }
    }

    /// The OpenCL commands, known at the end: kernels as dispatches (with
    /// the HSA dispatches, [`Self::dispatches`]) and transfers as memory
    /// copies, as the summary's tables count them.
    fn commands(&mut self, end: &End<'_>) -> Result<(), Error> {
        let mut all = Vec::new();
        end.commands().for_each(|c| all.push(c));
        self.dispatches(&all, end)?;
        let offsets = end.offsets();
        for c in all.into_iter().filter(|c| c.status == 0) {
            let (Some(dir), Some(bytes)) = (c.direction(), c.bytes) else { continue };
            let off = offsets.get(&c.queue).map_or(0, |o| o.0);
            let start = crate::devtime::on_host(c.start, off);
            let agent = self.agent_of(Err(&c.device), self.device_kind(&c.device))?;
            let track = self.queue_track(agent, c.queue, format!("{} queue {:016X}", c.device, c.queue))?;
            let (src, dst) = match dir {
                "device to host" => (agent, self.host_agent),
                "host to device" => (self.host_agent, agent),
                _ => (agent, agent),
            };
            let name = c.api.trim_start_matches("clEnqueue").to_string();
            self.w().copy(&rocpd::Copy {
                track,
                name: &name,
                start,
                end: start + c.duration_ns(),
                src_agent: src,
                dst_agent: dst,
                size: bytes,
                correlation_id: c.cmd_id,
            })?;
        }
        Ok(())
    }

    /// The memory trace's rows (`CLTAP_MEMORY`), one each, on a track per
    /// calling thread and device label (the first the row counts against).
    fn allocations(&mut self, m: &crate::memory::Report) -> Result<(), Error> {
        let mut tracks: HashMap<(u32, String), i64> = HashMap::new();
        for r in &m.rows {
            let label = r.devices.first().cloned().unwrap_or_else(|| r.owner.clone());
            let track = match tracks.get(&(r.thread, label.clone())) {
                Some(&t) => t,
                None => {
                    let (nid, pid) = (self.w().nid, self.pid);
                    let name_id = self.w().string(&format!("memory: {label}"))?;
                    let t = self.w().insert(
                        "rocpd_track",
                        &["nid", "pid", "tid", "name_id"],
                        params![nid, pid, r.thread, name_id],
                    )?;
                    tracks.insert((r.thread, label), t);
                    t
                }
            };
            let extdata = serde_json::json!({
                "record": r.record, "alloc_record": r.alloc_record, "thread": r.thread, "kind": r.kind,
                "flags": r.flags, "owner": r.owner, "devices": r.devices,
            })
            .to_string();
            let op = match r.op {
                cltap_formats::memory::Op::Alloc => "ALLOC",
                cltap_formats::memory::Op::Free => "FREE",
            };
            self.w().allocation(&rocpd::Allocation {
                track,
                name: &r.call,
                op,
                start: r.time_ns,
                end: r.time_ns,
                address: r.address,
                size: r.bytes,
                correlation_id: 0,
                extdata: &extdata,
            })?;
        }
        Ok(())
    }

    /// Each kernel symbol's registers and segments, from its descriptor:
    /// register counts as gfx9 encodes them (granules of 4 VGPRs and 8
    /// SGPRs, an upper bound of what the compiler used; no accumulation
    /// VGPRs before gfx90a).
    fn kernel_resources(&mut self) -> Result<(), Error> {
        let all = std::mem::take(&mut self.descriptors);
        for (object, kd) in all {
            let r = rocpd::KernelResources {
                sgprs: kd.gfx9_sgprs(),
                arch_vgprs: kd.gfx9_vgprs(),
                accum_vgprs: 0,
                group_segment: kd.group_segment_fixed_size,
                private_segment: kd.private_segment_fixed_size,
                kernarg_segment: kd.kernarg_size,
            };
            self.w().kernel_resources(object, &r)?;
        }
        Ok(())
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
