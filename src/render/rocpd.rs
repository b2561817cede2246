//! rocpd's SQLite database as a sink (`CLTAP_ROCPD=1`, `<stem>.db`), in
//! rocprofiler-sdk's schema, so queries and `rocpd` views written for
//! rocprofv3's databases run on it. Written on the renderer's thread (never
//! an application's) in large transactions: the process and node, each
//! thread, the HSA agents and the OpenCL devices, every OpenCL and HSA call
//! as a region with its arguments (the OpenCL calls in their own category,
//! `OPENCL_API`, which rocprofv3 does not have), every timed HSA dispatch
//! and OpenCL kernel command as a kernel dispatch, the OpenCL transfers as
//! memory copies, the hardware counters of each dispatch, and the memory
//! trace's allocations and releases (`CLTAP_MEMORY`). A call and
//! what it caused share a correlation id: the command id for OpenCL, the
//! doorbell store's thread and call number for HSA.

use super::sink::{End, Kinds, Open, Results, Sink};
use crate::decode::{Agent, Counters, Dispatch};
use crate::trace::record::{
    View, FLAG_CMD, KIND_HSA_AGENT, KIND_HSA_CALL, KIND_HSA_COUNTERS, KIND_HSA_DISPATCH, KIND_HSA_KERNEL,
    KIND_OPENCL_CALL,
};
use crate::trace::tsc::HostClock;
use cltap_formats::rocpd::{self, params, Error, Region, Writer};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

/// Counter records kept waiting for their dispatch's record.
const COUNTERS_KEPT: usize = 1024;

pub struct Rocpd {
    w: Option<Writer>,
    path: PathBuf,
    pid: u32,
    clock: HostClock,
    /// HSA dispatch times onto `clock`'s nanoseconds.
    hsa: crate::render::hsa_time::HsaClock,
    host_agent: i64,
    threads: HashMap<u32, i64>,
    /// Agents by HSA handle, or by OpenCL device name.
    hsa_agents: HashMap<u64, i64>,
    cl_agents: HashMap<String, i64>,
    /// Queue tracks by (agent, queue).
    queues: HashMap<(i64, u64), i64>,
    code_objects: HashMap<i64, i64>,
    /// Kernel symbols by (agent, name).
    kernels: HashMap<(i64, String), i64>,
    /// Counter descriptions by (agent, packed event).
    pmcs: HashMap<(i64, u64), i64>,
    counters: BTreeMap<u64, Vec<(u64, u64)>>,
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
            hsa_agents: HashMap::new(),
            cl_agents: HashMap::new(),
            queues: HashMap::new(),
            code_objects: HashMap::new(),
            kernels: HashMap::new(),
            pmcs: HashMap::new(),
            counters: BTreeMap::new(),
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
        let name = format!("thread {tid}");
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

    fn dispatch(&mut self, v: &View<'_>) -> Result<(), Error> {
        let h = &v.header;
        let values = self.counters.remove(&h.cmd_id);
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
        let event = self.w().dispatch(&rocpd::Dispatch {
            track,
            kernel,
            dispatch_id: h.cmd_id,
            start,
            end,
            grid: d.grid,
            workgroup: d.workgroup,
            private_segment: d.private_segment,
            group_segment: d.group_segment,
            region: &name,
            correlation_id: if d.call == 0 { 0 } else { hsa_correlation(d.tid, d.call) },
        })?;
        for (packed, value) in values.unwrap_or_default() {
            let pmc = match self.pmcs.get(&(agent, packed)) {
                Some(&p) => p,
                None => {
                    let e = crate::hsa::aqlprofile::unpack(packed);
                    let label = crate::metrics::event_label(&e);
                    let (nid, pid) = (self.w().nid, self.pid);
                    let p = self.w().insert(
                        "rocpd_info_pmc",
                        &["nid", "pid", "agent_id", "target_arch", "name", "symbol", "value_type", "is_derived"],
                        params![nid, pid, agent, "GPU", label, label, "ABS", 0],
                    )?;
                    self.pmcs.insert((agent, packed), p);
                    p
                }
            };
            self.w().insert("rocpd_pmc_event", &["event_id", "pmc_id", "value"], params![event, pmc, value as f64])?;
        }
        Ok(())
    }

    fn record_or_err(&mut self, v: &View<'_>) -> Result<(), Error> {
        match v.header.kind {
            KIND_OPENCL_CALL | KIND_HSA_CALL => self.call(v),
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
            KIND_HSA_KERNEL => {
                self.descriptors.insert(v.header.cmd_id, crate::decode::kernel_descriptor(v));
                Ok(())
            }
            KIND_HSA_COUNTERS => {
                self.counters.insert(v.header.cmd_id, Counters::of(v).values);
                while self.counters.len() > COUNTERS_KEPT {
                    self.counters.pop_first();
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The OpenCL commands, known at the end: kernels as dispatches and
    /// transfers as memory copies, as the summary's tables count them.
    fn commands(&mut self, end: &End<'_>) -> Result<(), Error> {
        let mut all = Vec::new();
        end.commands().for_each(|c| all.push(c));
        let offsets = end.offsets();
        for c in all.into_iter().filter(|c| c.status == 0) {
            let off = offsets.get(&c.queue).map_or(0, |o| o.0);
            let (start, stop) =
                (crate::devtime::on_host(c.start, off), crate::devtime::on_host(c.start, off) + c.duration_ns());
            let agent = self.agent_of(Err(&c.device), "GPU")?;
            let track = self.queue_track(agent, c.queue, format!("{} queue {:016X}", c.device, c.queue))?;
            if let Some(k) = &c.kernel {
                let dim = |v: &[usize], i: usize| v.get(i).map_or(1, |x| *x as u64);
                let local = c.local.clone().unwrap_or_default();
                let kernel = self.kernel_symbol(agent, k, 0)?;
                self.w().dispatch(&rocpd::Dispatch {
                    track,
                    kernel,
                    dispatch_id: c.cmd_id,
                    start,
                    end: stop,
                    grid: [dim(&c.global, 0), dim(&c.global, 1), dim(&c.global, 2)],
                    workgroup: [dim(&local, 0), dim(&local, 1), dim(&local, 2)],
                    private_segment: 0,
                    group_segment: 0,
                    region: c.api,
                    correlation_id: c.cmd_id,
                })?;
            }
            if let (Some(dir), Some(bytes)) = (c.direction(), c.bytes) {
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
                    end: stop,
                    src_agent: src,
                    dst_agent: dst,
                    size: bytes,
                    correlation_id: c.cmd_id,
                })?;
            }
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
            KIND_OPENCL_CALL,
            KIND_HSA_CALL,
            KIND_HSA_DISPATCH,
            KIND_HSA_AGENT,
            KIND_HSA_COUNTERS,
            KIND_HSA_KERNEL,
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
