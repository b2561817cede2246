//! Perfetto's protobuf trace as a sink (`CLTAP_PFTRACE=1`,
//! `<stem>.pftrace`): written packet by packet as the records come, so its
//! memory stays flat however long the run. Host calls are slices on a track
//! per thread; HSA dispatches and OpenCL commands are slices on a track per
//! queue, under one device track; flows join each enqueue to its command
//! (by command id) and each doorbell store to the dispatches it submitted
//! (by the call the dispatch record names); hardware counters are counter
//! tracks with one value per dispatch, and so is memory in use per device
//! (`CLTAP_MEMORY`), one value per allocation or release. Every id is derived from the process
//! id, so the files of several processes concatenate into one trace.

use super::sink::{End, Kinds, Open, Results, Sink};
use crate::decode::{Counters, Dispatch};
use crate::trace::record::{
    View, FLAG_CMD, KIND_HSA_AGENT, KIND_HSA_CALL, KIND_HSA_COUNTERS, KIND_HSA_DISPATCH, KIND_HSA_KERNEL,
    KIND_KERNEL_INFO, KIND_OPENCL_CALL, KIND_THREAD, KIND_WINDOW,
};
use crate::trace::tsc::HostClock;
use cltap_formats::pftrace::proto::{CounterDescriptor, ProcessDescriptor, ThreadDescriptor, TrackDescriptor};
use cltap_formats::pftrace::{Arg, Slice, Writer};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::BufWriter;
use std::path::PathBuf;

/// What a track or flow id is of; mixed with the process id and a key.
#[derive(Clone, Copy)]
enum Id {
    Process = 1,
    Device,
    Thread,
    HsaQueue,
    ClQueue,
    Counter,
    Memory,
    EnqueueFlow,
    DoorbellFlow,
    Windows,
    NdrangeFlow,
    Markers,
}

/// A 64-bit id for (`pid`, `what`, `key`): the same inputs give the same id
/// in every sink and every process, different ones almost surely differ.
fn id(pid: u32, what: Id, key: u64) -> u64 {
    let mut z = ((pid as u64) << 32 | what as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ key;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)).max(1)
}

fn mix(a: u64, b: u64) -> u64 {
    a.rotate_left(32) ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Counter records kept waiting for their dispatch's record (a counted
/// dispatch's values come just before it, on the same thread).
const COUNTERS_KEPT: usize = 1024;

pub struct Pftrace {
    w: Writer<BufWriter<std::fs::File>>,
    path: PathBuf,
    pid: u32,
    clock: HostClock,
    /// HSA dispatch times onto `clock`'s nanoseconds.
    hsa: crate::render::hsa_time::HsaClock,
    described: HashSet<u64>,
    counters: BTreeMap<u64, Vec<(u64, u64)>>,
    /// HSA agents' names by handle, for their queues' tracks.
    agents: std::collections::HashMap<u64, String>,
    /// Threads' OS names, for their tracks.
    names: super::thread_names::ThreadNames,
    /// Perf markers open per thread: an end without a begin is left out.
    open_markers: std::collections::HashMap<u32, usize>,
    failed: bool,
    /// Each enqueue's thread and start (ns), by command id, and each HSA
    /// dispatch drawn, by its number: its queue's track and begin (ns);
    /// for the arrows from NDRanges to the dispatches they became.
    enqueues: HashMap<u64, (u32, u64)>,
    drawn: HashMap<u64, (u64, u64)>,
    /// The NDRanges and HSA dispatches, joined at the end as the counter
    /// files join them.
    pairing: crate::counters::collect::Collector,
}

/// The record kinds the NDRange-to-dispatch join reads.
const PAIRING: Kinds = Kinds::of(crate::counters::collect::PAIR_KINDS);

/// Reads `clock` now, in ns.
fn now(clock: libc::clockid_t) -> u64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: writes only `t`.
    unsafe { libc::clock_gettime(clock, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

impl Pftrace {
    pub fn sink(cx: &Open<'_>) -> Option<Box<dyn Sink>> {
        let path = cx.outputs.path("pftrace");
        let f = match std::fs::File::create(&path) {
            Ok(f) => f,
            Err(e) => {
                crate::warn!("cannot create {}: {e}; no .pftrace", path.display());
                return None;
            }
        };
        let pid = cx.reader.header.pid;
        let mut s = Pftrace {
            w: Writer::new(BufWriter::with_capacity(1 << 20, f), pid),
            path,
            pid,
            clock: cx.clock,
            hsa: cx.hsa.clone(),
            described: HashSet::new(),
            counters: BTreeMap::new(),
            agents: Default::default(),
            names: Default::default(),
            open_markers: Default::default(),
            failed: false,
            enqueues: HashMap::new(),
            drawn: HashMap::new(),
            pairing: Default::default(),
        };
        // The clocks' relation when the trace began, as the trace says (so
        // that every rendering writes the same snapshot); read now for a
        // trace that does not say.
        let (mono, boot) = match cx.reader.info("boot0").and_then(|b| b.parse().ok()) {
            Some(boot) => (cx.reader.header.mono0, boot),
            None => (now(libc::CLOCK_MONOTONIC), now(libc::CLOCK_BOOTTIME)),
        };
        let r = s.w.clock_snapshot(mono, boot);
        s.check(r);
        let process = TrackDescriptor {
            uuid: Some(id(pid, Id::Process, 0)),
            process: Some(ProcessDescriptor {
                pid: Some(pid as i32),
                cmdline: cx.reader.info("cmdline").map(|c| vec![c.to_string()]).unwrap_or_default(),
                process_name: cx.reader.info("exe").map(str::to_string),
            }),
            ..Default::default()
        };
        let r = s.w.track(process);
        s.check(r);
        let device = TrackDescriptor {
            uuid: Some(id(pid, Id::Device, 0)),
            name: Some(format!("device queues (pid {pid})")),
            ..Default::default()
        };
        let r = s.w.track(device);
        s.check(r);
        Some(Box::new(s))
    }

    /// The first write error is reported once; the file ends there and
    /// `cltap render` can write it again from the trace.
    fn check(&mut self, r: std::io::Result<()>) {
        if let (Err(e), false) = (r, self.failed) {
            self.failed = true;
            crate::warn!("cannot write {}: {e}; the .pftrace ends here", self.path.display());
        }
    }

    /// Describes a track the first time it is used.
    fn describe(&mut self, uuid: u64, d: impl FnOnce() -> TrackDescriptor) {
        if !self.failed && self.described.insert(uuid) {
            let r = self.w.track(TrackDescriptor { uuid: Some(uuid), ..d() });
            self.check(r);
        }
    }

    fn call(&mut self, v: &View<'_>) {
        let h = &v.header;
        let Some(f) = crate::meta::function(h.kind, h.fn_id) else { return };
        let (pid, tid) = (self.pid, h.tid);
        let track = id(pid, Id::Thread, tid as u64);
        let name = self.names.of(tid);
        self.describe(track, || TrackDescriptor {
            parent_uuid: Some(id(pid, Id::Process, 0)),
            thread: Some(ThreadDescriptor { pid: Some(pid as i32), tid: Some(tid as i64), thread_name: Some(name) }),
            ..Default::default()
        });
        let mut s = Slice {
            track,
            ts: self.clock.ns(h.t0),
            name: f.name,
            category: if h.kind == KIND_HSA_CALL { "hsa" } else { "opencl" },
            ..Default::default()
        };
        if h.kind == KIND_OPENCL_CALL && h.flags & FLAG_CMD != 0 {
            s.flows.push(id(pid, Id::EnqueueFlow, h.cmd_id));
            s.args.push(("cmd", Arg::Uint(h.cmd_id)));
            self.enqueues.insert(h.cmd_id, (tid, s.ts));
        }
        // An HSA call's cmd_id is its number on its thread, which the
        // dispatch records it submitted name.
        if h.kind == KIND_HSA_CALL && f.name.starts_with("hsa_signal_store_") {
            s.flows.push(id(pid, Id::DoorbellFlow, mix(tid as u64, h.cmd_id)));
        }
        let end = self.clock.ns(h.t1).max(s.ts);
        let r = self.w.begin(s).and_then(|_| self.w.end(track, end));
        self.check(r);
        if f.is_marker() && h.ret == 0 {
            self.marker(v, f.name == "clBeginPerfMarkerCLTAP");
        }
    }

    /// A perf marker's begin or end: a range on its thread's "perf
    /// markers" track, from the begin call to the end call that closes it,
    /// named by its text, with its group, as in the timeline and rocpd.
    fn marker(&mut self, v: &View<'_>, begin: bool) {
        let h = &v.header;
        let (pid, tid) = (self.pid, h.tid);
        let track = id(pid, Id::Markers, tid as u64);
        self.describe(track, || TrackDescriptor {
            parent_uuid: Some(id(pid, Id::Thread, tid as u64)),
            name: Some(format!("perf markers of thread {tid}")),
            ..Default::default()
        });
        let ts = self.clock.ns(h.t0);
        let open = self.open_markers.entry(tid).or_default();
        let r = if begin {
            *open += 1;
            let name = v.string_arg(0).unwrap_or_default();
            let args = vec![("group", Arg::Str(v.string_arg(1).unwrap_or_default()))];
            self.w.begin(Slice { track, ts, name: &name, category: "marker", args, ..Default::default() })
        } else if *open > 0 {
            *open -= 1;
            self.w.end(track, ts)
        } else {
            Ok(())
        };
        self.check(r);
    }

    /// A collection window's opening or closing: a slice per window on
    /// the process's "collection windows" track.
    fn window(&mut self, v: &View<'_>) {
        let h = &v.header;
        let open = v.args.first() == Some(&cltap_formats::cltrace::record::WINDOW_OPEN);
        let why = crate::window::spans::Reason::text(v.args.get(1).copied().unwrap_or(u64::MAX), open);
        let pid = self.pid;
        let track = id(pid, Id::Windows, 0);
        self.describe(track, || TrackDescriptor {
            parent_uuid: Some(id(pid, Id::Process, 0)),
            name: Some("collection windows".into()),
            ..Default::default()
        });
        let ts = self.clock.ns(h.t0);
        let r = if open {
            let name = format!("collection window {}", h.cmd_id);
            let args = vec![("window", Arg::Uint(h.cmd_id)), ("opened_by", Arg::Str(why.into()))];
            self.w.begin(Slice { track, ts, name: &name, category: "window", args, ..Default::default() })
        } else {
            self.w.end(track, ts)
        };
        self.check(r);
    }

    fn dispatch(&mut self, v: &View<'_>) {
        let h = &v.header;
        let values = self.counters.remove(&h.cmd_id);
        if h.t0 == 0 || h.t1 < h.t0 {
            return;
        }
        let d = Dispatch::of(v);
        let pid = self.pid;
        // The runtime's system clock (CLOCK_BOOTTIME), put on the calls'.
        let (begin, end) = (self.hsa.ns(h.t0), self.hsa.ns(h.t1));
        let track = id(pid, Id::HsaQueue, mix(d.agent, d.queue_id));
        let queue_name = match self.agents.get(&d.agent) {
            Some(n) => format!("HSA queue {} ({n})", d.queue_id),
            None => format!("HSA queue {} (agent {:#x})", d.queue_id, d.agent),
        };
        self.describe(track, || TrackDescriptor {
            parent_uuid: Some(id(pid, Id::Device, 0)),
            name: Some(queue_name),
            ..Default::default()
        });
        let name = v.kernel_name().unwrap_or_else(|| format!("kernel {:#x}", d.kernel_object));
        let mut s = Slice {
            track,
            ts: begin,
            name: &name,
            category: "hsa_dispatch",
            args: vec![("dispatch", Arg::Uint(h.cmd_id)), ("kernel_object", Arg::Uint(d.kernel_object))],
            ..Default::default()
        };
        if d.call != 0 {
            s.flows.push(id(pid, Id::DoorbellFlow, mix(d.tid as u64, d.call)));
        }
        let r = self.w.begin(s).and_then(|_| self.w.end(track, end));
        self.check(r);
        self.drawn.insert(h.cmd_id, (track, begin));
        for (event, value) in values.unwrap_or_default() {
            let label = crate::metrics::event_label(&crate::hsa::aqlprofile::unpack(event));
            let ct = id(pid, Id::Counter, mix(d.agent, event));
            self.describe(ct, || TrackDescriptor {
                parent_uuid: Some(id(pid, Id::Device, 0)),
                name: Some(label.clone()),
                counter: Some(CounterDescriptor::default()),
                ..Default::default()
            });
            let r = self.w.counter(ct, begin, value.min(i64::MAX as u64) as i64);
            self.check(r);
        }
    }

    /// The arrows from each `clEnqueueNDRangeKernel` to the HSA dispatch it
    /// became, by the counter files' join (kernel, sizes and command order,
    /// never time). Both slices were written as their records came, before
    /// the join was known, so the arrow runs between two zero-length
    /// slices made for it, nested at the start of each: one in the
    /// enqueue's call, one in the dispatch.
    fn ndrange_flows(&mut self, commands: Vec<crate::devtime::Command>) {
        let pid = self.pid;
        for (cmd, seq) in std::mem::take(&mut self.pairing).pairs(commands) {
            let (Some(&(tid, ts)), Some(&(track, begin))) = (self.enqueues.get(&cmd), self.drawn.get(&seq)) else {
                continue;
            };
            let flow = id(pid, Id::NdrangeFlow, cmd);
            let args = || vec![("cmd", Arg::Uint(cmd)), ("dispatch", Arg::Uint(seq))];
            let thread = id(pid, Id::Thread, tid as u64);
            let from = Slice {
                track: thread,
                ts,
                name: "NDRange",
                category: "ndrange",
                flows: vec![flow],
                args: args(),
                ..Default::default()
            };
            let to = Slice {
                track,
                ts: begin,
                name: "NDRange",
                category: "ndrange",
                ends_flows: vec![flow],
                args: args(),
                ..Default::default()
            };
            let r = self
                .w
                .begin(from)
                .and_then(|_| self.w.end(thread, ts))
                .and_then(|_| self.w.begin(to))
                .and_then(|_| self.w.end(track, begin));
            self.check(r);
        }
    }

    /// Memory in use per device (`CLTAP_MEMORY`): a counter track each,
    /// under the process, one value per allocation or release.
    fn memory(&mut self, m: &crate::memory::Report) {
        let pid = self.pid;
        for s in &m.samples {
            let key = s.device.bytes().fold(0u64, |h, b| h.wrapping_mul(0x100_0000_01B3) ^ b as u64);
            let track = id(pid, Id::Memory, key);
            self.describe(track, || TrackDescriptor {
                parent_uuid: Some(id(pid, Id::Process, 0)),
                name: Some(format!("memory in use: {}", s.device)),
                counter: Some(CounterDescriptor { unit_name: Some("bytes".into()) }),
                ..Default::default()
            });
            let r = self.w.counter(track, s.time_ns, s.bytes.min(i64::MAX as u64) as i64);
            self.check(r);
        }
    }

    /// The OpenCL commands' device times, known at the end, on the host's
    /// time axis.
    fn commands(&mut self, end: &End<'_>) {
        let offsets = end.offsets();
        let pid = self.pid;
        end.commands().for_each(|c| {
            let Some(&(off, _)) = offsets.get(&c.queue) else { return };
            let track = id(pid, Id::ClQueue, c.queue);
            self.describe(track, || TrackDescriptor {
                parent_uuid: Some(id(pid, Id::Device, 0)),
                name: Some(format!("{} queue {:016X}", c.device, c.queue)),
                ..Default::default()
            });
            let ts = crate::devtime::on_host(c.start, off);
            let name = c.kernel.clone().unwrap_or_else(|| c.api.trim_start_matches("clEnqueue").to_string());
            let s = Slice {
                track,
                ts,
                name: &name,
                category: "device",
                ends_flows: vec![id(pid, Id::EnqueueFlow, c.cmd_id)],
                args: vec![("cmd", Arg::Uint(c.cmd_id))],
                ..Default::default()
            };
            let r = self.w.begin(s).and_then(|_| self.w.end(track, ts + c.duration_ns()));
            self.check(r);
        });
    }
}

impl Sink for Pftrace {
    fn kinds(&self) -> Kinds {
        Kinds::of(&[
            KIND_OPENCL_CALL,
            KIND_HSA_CALL,
            KIND_HSA_DISPATCH,
            KIND_HSA_COUNTERS,
            KIND_WINDOW,
            KIND_KERNEL_INFO,
            KIND_HSA_KERNEL,
            KIND_HSA_AGENT,
            KIND_THREAD,
        ])
    }

    fn record(&mut self, v: &View<'_>) {
        if !v.returned() || self.failed {
            return;
        }
        if PAIRING.has(v.header.kind) {
            self.pairing.record(v);
        }
        match v.header.kind {
            KIND_KERNEL_INFO | KIND_HSA_KERNEL => {}
            KIND_HSA_DISPATCH => self.dispatch(v),
            KIND_WINDOW => self.window(v),
            KIND_THREAD => self.names.learn(v),
            KIND_HSA_AGENT => {
                let a = crate::decode::Agent::of(v);
                if let Some(n) = v.kernel_name().filter(|n| !n.is_empty()) {
                    self.agents.insert(a.handle, n);
                }
            }
            KIND_HSA_COUNTERS => {
                self.counters.insert(v.header.cmd_id, Counters::of(v).values);
                while self.counters.len() > COUNTERS_KEPT {
                    self.counters.pop_first();
                }
            }
            _ => self.call(v),
        }
    }

    fn flush(&mut self) {
        let r = self.w.flush();
        self.check(r);
    }

    fn finish(mut self: Box<Self>, end: &End<'_>, results: &mut Results) {
        if !self.failed {
            self.commands(end);
            let mut commands = Vec::new();
            end.commands().for_each(|c| commands.push(c));
            self.ndrange_flows(commands);
        }
        if let Some(m) = results.memory.as_ref().filter(|m| m.asked.trace) {
            self.memory(m);
        }
        self.flush();
        results.files.push(self.path.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_differ_by_process_kind_and_key_and_are_never_zero() {
        let a = id(10, Id::Thread, 1);
        assert_eq!(a, id(10, Id::Thread, 1));
        assert_ne!(a, id(11, Id::Thread, 1));
        assert_ne!(a, id(10, Id::ClQueue, 1));
        assert_ne!(a, id(10, Id::Thread, 2));
        assert_ne!(id(0, Id::Process, 0), 0);
    }
}
