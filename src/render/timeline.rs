//! The timeline (`CLTAP_TIMELINE=1`): Chrome trace-event JSON that Perfetto
//! opens. Host calls are slices on their thread; device commands are slices
//! on a track per queue; a flow arrow joins each enqueue to its command;
//! memory in use per device is a counter track (`CLTAP_MEMORY`). The
//! file is written as the records are, so a long run is never held in
//! memory, and it is closed at the end of the process however it ends.

use super::sink::{End, Kinds, Open, Results, Sink};
use crate::devtime::{self, Alignment, Command};
use crate::trace::record::{View, FLAG_CMD, KIND_HSA_CALL, KIND_HSA_DISPATCH, KIND_OPENCL_CALL};
use crate::trace::tsc::HostClock;
use cltap_formats::cltrace::record as rec;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufWriter, Write};

/// Device tracks live in their own process row, after the host's.
const DEVICE_PID_OFFSET: u32 = 1 << 22;

pub struct Timeline {
    out: BufWriter<std::fs::File>,
    path: std::path::PathBuf,
    first: bool,
    pid: u32,
    clock: HostClock,
    /// HSA dispatch times onto `clock`'s axis.
    hsa: super::hsa_time::HsaClock,
    named: HashSet<u32>,
    /// Host start (µs) of each enqueue, by command id, for the flow arrows.
    enqueues: BTreeMap<u64, (u32, f64)>,
    /// HSA queue tracks: `(agent, queue id)` → tid in the device row.
    hsa_queues: BTreeMap<(u64, u64), usize>,
    /// HSA doorbell-store calls by (thread, call number), with their start
    /// (µs): the calls dispatch records name as the one they were
    /// submitted in. Resolved at the end, since a dispatch's record comes
    /// when it completes, and threads' records in any order.
    hsa_stores: HashMap<(u32, u64), f64>,
    /// HSA dispatches drawn: `(submitting thread, call number, seq, track
    /// tid, slice start µs)`.
    hsa_dispatches: Vec<(u32, u64, u64, usize, f64)>,
    /// Counter values (`KIND_HSA_COUNTERS`) waiting for their dispatch's
    /// record, by dispatch number: with timestamps, a counted dispatch's
    /// values are recorded just before the dispatch itself, on the same
    /// thread. Without timestamps no dispatch is drawn, so the map is kept
    /// to the last [`COUNTERS_KEPT`].
    counters: BTreeMap<u64, String>,
    /// Every HSA dispatch drawn: seq → (track tid, slice start µs), for the
    /// arrows from the NDRanges they were.
    drawn: HashMap<u64, (usize, f64)>,
    /// The NDRanges and HSA dispatches, joined at the end as the counter
    /// files join them.
    pairing: crate::counters::collect::Collector,
    /// `CLTAP_OUTPUT_LIMIT`: events stop before the file would pass it;
    /// bytes of events written, events made and events left out.
    limit: Option<u64>,
    written: u64,
    events: u64,
    left_out: u64,
    /// Threads' OS names.
    names: super::thread_names::ThreadNames,
}

/// The record kinds the NDRange-to-dispatch join reads.
const PAIRING: Kinds = Kinds::of(crate::counters::collect::PAIR_KINDS);

/// HSA queue tracks take tids from here on, after OpenCL's queues (1, 2, …).
const HSA_QUEUE_TID0: usize = 1 << 20;
/// Counter records kept waiting for their dispatch (see `Timeline::counters`).
const COUNTERS_KEPT: usize = 1024;

/// Whether an HSA call can ring a queue's doorbell.
fn is_doorbell_store(name: &str) -> bool {
    name.starts_with("hsa_signal_store_")
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".into())
}

impl Timeline {
    pub fn create(path: &std::path::Path, pid: u32, clock: HostClock) -> std::io::Result<Self> {
        let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
        out.write_all(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")?;
        let mut t = Timeline {
            out,
            path: path.to_path_buf(),
            first: true,
            pid,
            clock,
            hsa: Default::default(),
            named: HashSet::new(),
            enqueues: BTreeMap::new(),
            hsa_queues: BTreeMap::new(),
            hsa_stores: HashMap::new(),
            hsa_dispatches: Vec::new(),
            counters: BTreeMap::new(),
            drawn: HashMap::new(),
            pairing: Default::default(),
            limit: None,
            written: 0,
            events: 0,
            left_out: 0,
            names: Default::default(),
        };
        t.event(&format!(
            "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{pid},\"args\":{{\"name\":\"host (pid {pid})\"}}}}"
        ));
        t.event(&format!(
            "{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"name\":\"device queues\"}}}}",
            pid + DEVICE_PID_OFFSET
        ));
        Ok(t)
    }

    fn event(&mut self, e: &str) {
        self.events += 1;
        let sep = if self.first { 0 } else { 2 };
        // Past the limit every later event is left out too: the file is a
        // prefix of the whole timeline, never one with holes.
        let n = (sep + e.len()) as u64;
        if self.left_out > 0 || self.limit.is_some_and(|l| self.written + n > l) {
            self.left_out += 1;
            return;
        }
        self.written += n;
        let _ = self.out.write_all(if self.first { b"" } else { b",\n" });
        let _ = self.out.write_all(e.as_bytes());
        self.first = false;
    }

    /// Microseconds since the trace began, with nanosecond precision.
    fn us(&self, tsc: u64) -> f64 {
        self.ns_us(self.clock.ns(tsc))
    }

    /// The same, for a host `CLOCK_MONOTONIC` time in ns.
    fn ns_us(&self, ns: u64) -> f64 {
        (ns as f64 - self.clock.mono0 as f64) / 1000.0
    }

    fn name_thread(&mut self, tid: u32) {
        if self.named.insert(tid) {
            let name = json_str(&self.names.of(tid));
            self.event(&format!(
                "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{tid},\"args\":{{\"name\":{name}}}}}",
                self.pid
            ));
        }
    }

    /// One call record (OpenCL or HSA): a slice on its thread, or a
    /// marker's begin or end; an HSA dispatch record: a slice on its queue.
    pub fn add(&mut self, v: &View<'_>) {
        let h = &v.header;
        if h.kind == KIND_HSA_DISPATCH {
            self.hsa_dispatch(v);
            return;
        }
        if h.kind == rec::KIND_WINDOW {
            self.window(v);
            return;
        }
        if h.kind == rec::KIND_THREAD {
            self.names.learn(v);
            return;
        }
        if h.kind == rec::KIND_HSA_COUNTERS {
            self.counters.insert(h.cmd_id, counter_args(v));
            while self.counters.len() > COUNTERS_KEPT {
                self.counters.pop_first();
            }
            return;
        }
        let Some(f) = crate::meta::function(h.kind, h.fn_id) else { return };
        if f.is_marker() {
            if h.ret != 0 {
                return;
            }
            self.name_thread(h.tid);
            let ts = self.us(h.t0);
            let text = |i: usize| v.string_arg(i).unwrap_or_default();
            let e = if f.name == "clBeginPerfMarkerCLTAP" {
                format!("{{\"name\":{},\"cat\":\"marker\",\"ph\":\"B\",\"ts\":{ts:.3},\"pid\":{},\"tid\":{},\"args\":{{\"group\":{}}}}}", json_str(&text(0)), self.pid, h.tid, json_str(&text(1)))
            } else {
                format!("{{\"cat\":\"marker\",\"ph\":\"E\",\"ts\":{ts:.3},\"pid\":{},\"tid\":{}}}", self.pid, h.tid)
            };
            self.event(&e);
            return;
        }
        if h.kind == rec::KIND_HSA_CALL && is_doorbell_store(f.name) {
            // An HSA call's `cmd_id` numbers it on its thread.
            self.hsa_stores.insert((h.tid, h.cmd_id), self.us(h.t0));
        }
        self.host_call(f.name, h.tid, h.t0, h.t1, (h.flags & FLAG_CMD != 0).then_some(h.cmd_id));
    }

    /// An HSA dispatch record (`ROCP_HSA_INTERCEPT=2`): a slice from its
    /// begin to its end on a track per HSA queue. Records without times
    /// (`=1`, or a dispatch that could not be timed) draw nothing.
    ///
    /// Clocks: the begin, end and dispatch times are the runtime's system
    /// timestamp (`HSA_SYSTEM_INFO_TIMESTAMP`, the KFD system counter:
    /// CLOCK_BOOTTIME ns on Linux), which runs ahead of the calls'
    /// CLOCK_MONOTONIC by the time the machine slept. The slice is placed
    /// by the offset measured at the HSA tool's start (`self.hsa`); its
    /// `*_ns` arguments keep the runtime's own values.
    fn hsa_dispatch(&mut self, v: &View<'_>) {
        let h = &v.header;
        let counters = self.counters.remove(&h.cmd_id).map(|c| format!(",\"counters\":{c}")).unwrap_or_default();
        if h.t0 == 0 || h.t1 < h.t0 {
            return;
        }
        let d = crate::decode::Dispatch::of(v);
        let (agent, queue, kernel) = (d.agent, d.queue_id, d.kernel_object);
        let dpid = self.pid + DEVICE_PID_OFFSET;
        let n = HSA_QUEUE_TID0 + self.hsa_queues.len();
        let tid = *self.hsa_queues.entry((agent, queue)).or_insert(n);
        if tid == n {
            self.event(&format!(
                "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{dpid},\"tid\":{tid},\"args\":{{\"name\":{}}}}}",
                json_str(&format!("HSA queue {queue} (agent {agent:#x})"))
            ));
        }
        let ts = self.ns_us(self.hsa.ns(h.t0));
        let dur = (h.t1 - h.t0) as f64 / 1000.0;
        // The name the application's symbol look-ups gave, else the object.
        let name = v.kernel_name().unwrap_or_else(|| format!("kernel {kernel:#x}"));
        let (dispatch, complete) = (d.time_dispatch, d.time_complete);
        let (by, call) = (d.tid, d.call);
        // Which call submitted it, as the record names it; a dispatch that
        // no recorded call submitted gets no arrow, and says why.
        let submitted = if call == 0 {
            "\"no recorded call (submitted outside any traced HSA call, e.g. by a runtime thread)\"".to_string()
        } else {
            format!("{{\"thread\":{by},\"hsa_call\":{call}}}")
        };
        self.event(&format!(
            "{{\"name\":{},\"cat\":\"hsa_dispatch\",\"ph\":\"X\",\"ts\":{ts:.3},\"dur\":{dur:.3},\"pid\":{dpid},\"tid\":{tid},\"args\":{{\"dispatch\":{},\"queue_index\":{},\"kernel_object\":\"{kernel:#x}\",\"dispatch_ns\":{dispatch},\"begin_ns\":{},\"end_ns\":{},\"complete_ns\":{complete},\"submitted_in\":{submitted}{counters}}}}}",
            json_str(&name), h.cmd_id, d.queue_index, h.t0, h.t1
        ));
        if call != 0 {
            self.hsa_dispatches.push((by, call, h.cmd_id, tid, ts));
        }
        self.drawn.insert(h.cmd_id, (tid, ts));
    }

    /// The flow arrows from each `clEnqueueNDRangeKernel` to the HSA
    /// dispatch it became, by the counter files' join (kernel, sizes and
    /// command order, never time): AMD's runtime writes the packet from a
    /// thread of its own, so no call of the enqueuing thread submits it.
    fn ndrange_flows(&mut self, commands: Vec<Command>) {
        let pairs = std::mem::take(&mut self.pairing).pairs(commands);
        let dpid = self.pid + DEVICE_PID_OFFSET;
        for (cmd, seq) in pairs {
            let (Some(&(htid, hts)), Some(&(tid, ts))) = (self.enqueues.get(&cmd), self.drawn.get(&seq)) else {
                continue;
            };
            // Flow ids apart from OpenCL's command ids and the doorbells'.
            let id = (1u64 << 61) | cmd;
            let fts = ts.max(hts);
            self.event(&format!("{{\"name\":\"ndrange\",\"cat\":\"flow\",\"ph\":\"s\",\"id\":{id},\"ts\":{hts:.3},\"pid\":{},\"tid\":{htid},\"args\":{{\"cmd\":{cmd},\"dispatch\":{seq}}}}}", self.pid));
            self.event(&format!("{{\"name\":\"ndrange\",\"cat\":\"flow\",\"ph\":\"f\",\"bp\":\"e\",\"id\":{id},\"ts\":{fts:.3},\"pid\":{dpid},\"tid\":{tid},\"args\":{{\"cmd\":{cmd},\"dispatch\":{seq}}}}}"));
        }
    }

    /// The flow arrows from doorbell stores to HSA dispatches. Each
    /// dispatch record names the call it was submitted in (its thread and
    /// the call's number there): the intercept handler runs inside the
    /// doorbell store, on the storing thread. The arrow starts at that
    /// store; a dispatch whose call was not recorded gets none.
    fn hsa_flows(&mut self) {
        let stores = std::mem::take(&mut self.hsa_stores);
        let dpid = self.pid + DEVICE_PID_OFFSET;
        for (htid, call, seq, tid, ts) in std::mem::take(&mut self.hsa_dispatches) {
            let Some(&hts) = stores.get(&(htid, call)) else { continue };
            // Flow ids apart from OpenCL's command ids.
            let id = (1u64 << 62) | seq;
            let fts = ts.max(hts);
            self.event(&format!("{{\"name\":\"dispatch\",\"cat\":\"flow\",\"ph\":\"s\",\"id\":{id},\"ts\":{hts:.3},\"pid\":{},\"tid\":{htid}}}", self.pid));
            self.event(&format!("{{\"name\":\"dispatch\",\"cat\":\"flow\",\"ph\":\"f\",\"bp\":\"e\",\"id\":{id},\"ts\":{fts:.3},\"pid\":{dpid},\"tid\":{tid}}}"));
        }
    }

    /// A collection window's opening or closing: the begin or end of an
    /// async slice over the process, one per window (its number the id).
    fn window(&mut self, v: &View<'_>) {
        let open = v.args.first() == Some(&rec::WINDOW_OPEN);
        let why = crate::window::spans::Reason::text(v.args.get(1).copied().unwrap_or(u64::MAX), open);
        let (n, ts) = (v.header.cmd_id, self.us(v.header.t0));
        let key = if open { "opened_by" } else { "closed_by" };
        self.event(&format!(
            "{{\"name\":\"collection window {n}\",\"cat\":\"window\",\"ph\":\"{}\",\"id\":{n},\"ts\":{ts:.3},\"pid\":{},\"tid\":0,\"args\":{{\"{key}\":{}}}}}",
            if open { "b" } else { "e" },
            self.pid,
            json_str(why)
        ));
    }

    pub fn host_call(&mut self, name: &str, tid: u32, t0: u64, t1: u64, cmd: Option<u64>) {
        self.name_thread(tid);
        let ts = self.us(t0);
        let dur = (self.us(t1) - ts).max(0.0);
        let args = cmd.map_or(String::new(), |c| format!(",\"args\":{{\"cmd\":{c}}}"));
        self.event(&format!("{{\"name\":{},\"cat\":\"api\",\"ph\":\"X\",\"ts\":{ts:.3},\"dur\":{dur:.3},\"pid\":{},\"tid\":{tid}{args}}}", json_str(name), self.pid));
        if let Some(c) = cmd {
            self.enqueues.insert(c, (tid, ts));
        }
    }

    /// Device commands, placed on the host's time axis: through the
    /// driver's `clGetDeviceAndHostTimer` where it has one, else by the
    /// smallest shift that draws no command before its enqueue.
    pub fn device(&mut self, commands: &devtime::Commands, offsets: &devtime::QueueOffsets) {
        let dpid = self.pid + DEVICE_PID_OFFSET;
        let mut track: BTreeMap<u64, usize> = BTreeMap::new();
        commands.for_each(|c| {
            let n = track.len() + 1;
            let tid = *track.entry(c.queue).or_insert(n);
            if tid == n {
                let how = match offsets.get(&c.queue).map(|o| o.1) {
                    Some(Alignment::HostTimer) => "clGetDeviceAndHostTimer",
                    _ => "measured offset",
                };
                self.event(&format!(
                    "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{dpid},\"tid\":{tid},\"args\":{{\"name\":{}}}}}",
                    json_str(&format!("{} queue {:016X} ({how})", c.device, c.queue))
                ));
            }
            self.command(&c, offsets, dpid, tid);
        });
    }

    fn command(&mut self, c: &Command, offsets: &devtime::QueueOffsets, dpid: u32, tid: usize) {
        let (Some(&(off, _)), Some(&(htid, hts))) = (offsets.get(&c.queue), self.enqueues.get(&c.cmd_id)) else {
            return;
        };
        let ts = self.ns_us(devtime::on_host(c.start, off));
        let dur = c.duration_ns() as f64 / 1000.0;
        let name = c.kernel.clone().unwrap_or_else(|| c.api.trim_start_matches("clEnqueue").to_string());
        self.event(&format!(
            "{{\"name\":{},\"cat\":\"device\",\"ph\":\"X\",\"ts\":{ts:.3},\"dur\":{dur:.3},\"pid\":{dpid},\"tid\":{tid},\"args\":{{\"cmd\":{},\"api\":{},\"queued_ns\":{},\"submit_ns\":{},\"start_ns\":{},\"end_ns\":{}}}}}",
            json_str(&name), c.cmd_id, json_str(c.api), c.queued, c.submit, c.start, c.end
        ));
        // A flow may not end before it starts: with a host timer whose
        // reading lags, the arrow is drawn from the enqueue's start.
        let fts = ts.max(hts);
        self.event(&format!("{{\"name\":\"enqueue\",\"cat\":\"flow\",\"ph\":\"s\",\"id\":{},\"ts\":{hts:.3},\"pid\":{},\"tid\":{htid}}}", c.cmd_id, self.pid));
        self.event(&format!("{{\"name\":\"enqueue\",\"cat\":\"flow\",\"ph\":\"f\",\"bp\":\"e\",\"id\":{},\"ts\":{fts:.3},\"pid\":{dpid},\"tid\":{tid}}}", c.cmd_id));
    }

    /// Memory in use per device (`CLTAP_MEMORY`): a counter track each in
    /// the host's row, one value per allocation or release.
    fn memory(&mut self, m: &crate::memory::Report) {
        for s in &m.samples {
            let e = format!(
                "{{\"name\":{},\"ph\":\"C\",\"ts\":{:.3},\"pid\":{},\"args\":{{\"bytes\":{}}}}}",
                json_str(&format!("memory in use: {}", s.device)),
                self.ns_us(s.time_ns),
                self.pid,
                s.bytes
            );
            self.event(&e);
        }
    }

    /// The timeline as a sink; none (and a warning) when its file cannot
    /// be made.
    pub fn sink(cx: &Open<'_>) -> Option<Box<dyn Sink>> {
        let p = cx.outputs.path("json");
        match Timeline::create(&p, cx.reader.header.pid, cx.clock) {
            Ok(t) => Some(Box::new(Timeline { hsa: cx.hsa.clone(), limit: cx.outputs.limit, ..t })),
            Err(e) => {
                crate::warn!("cannot create {}: {e}; no timeline", p.display());
                None
            }
        }
    }

    /// Ends the file; returns what the limit left out, if it did.
    pub fn close(mut self) -> Option<super::sink::Limited> {
        self.hsa_flows();
        let limited = (self.left_out > 0).then(|| super::sink::Limited {
            path: self.path.clone(),
            limit: self.limit.unwrap_or(0),
            left_out: self.left_out,
            total: self.events,
            what: "events",
        });
        // Trace-event files keep other facts in `otherData`.
        let other = match &limited {
            Some(l) => format!("\n],\"otherData\":{{\"cltap\":{}}}}}\n", json_str(&l.text_in_file())),
            None => "\n]}\n".to_string(),
        };
        let _ = self.out.write_all(other.as_bytes());
        let _ = self.out.flush();
        limited
    }

    pub fn flush(&mut self) {
        let _ = self.out.flush();
    }
}

/// A counters record as a JSON object: `{"SQ[0]:4": 16, …}` (block,
/// instance and event id of each hardware counter, and its value).
fn counter_args(v: &View<'_>) -> String {
    let mut o = String::from("{");
    for (i, (event, value)) in crate::decode::Counters::of(v).values.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        o += &format!("{}:{}", json_str(&crate::metrics::event_label(&crate::hsa::aqlprofile::unpack(*event))), value);
    }
    o.push('}');
    o
}

impl Sink for Timeline {
    fn kinds(&self) -> Kinds {
        Kinds::of(&[
            KIND_OPENCL_CALL,
            KIND_HSA_CALL,
            KIND_HSA_DISPATCH,
            rec::KIND_HSA_COUNTERS,
            rec::KIND_WINDOW,
            rec::KIND_THREAD,
            rec::KIND_KERNEL_INFO,
            rec::KIND_HSA_KERNEL,
        ])
    }

    fn record(&mut self, v: &View<'_>) {
        if v.returned() {
            if PAIRING.has(v.header.kind) {
                self.pairing.record(v);
            }
            if v.header.kind != rec::KIND_KERNEL_INFO && v.header.kind != rec::KIND_HSA_KERNEL {
                self.add(v);
            }
        }
    }

    fn finish(mut self: Box<Self>, end: &End<'_>, results: &mut Results) {
        self.device(end.commands(), end.offsets());
        let mut commands = Vec::new();
        end.commands().for_each(|c| commands.push(c));
        self.ndrange_flows(commands);
        if let Some(m) = results.memory.as_ref().filter(|m| m.asked.trace) {
            self.memory(m);
        }
        results.files.push(self.path.clone());
        results.limited.extend(self.close());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cltap_formats::cltrace::record::{encode, records, Header, FLAG_DONE, FLAG_OK};

    fn store_call(tid: u32, number: u64, t0: u64) -> Vec<u8> {
        let id = crate::meta::HSA_FUNCTIONS.iter().position(|f| f.name == "hsa_signal_store_screlease").unwrap();
        let h = Header {
            kind: rec::KIND_HSA_CALL,
            fn_id: id as u16,
            tid,
            cmd_id: number,
            t0,
            t1: t0 + 10,
            flags: FLAG_DONE | FLAG_OK,
            ..Header::default()
        };
        encode(&h, &[0, 1], &[])
    }

    fn dispatch(seq: u64, by: u32, call: u64) -> Vec<u8> {
        let mut w = [0u64; rec::DISPATCH_WORDS];
        (w[rec::DISPATCH_AGENT], w[rec::DISPATCH_QUEUE_ID], w[rec::DISPATCH_TIME_DISPATCH]) = (0xa9, 1, 5_000);
        (w[rec::DISPATCH_TID], w[rec::DISPATCH_CALL]) = (by as u64, call);
        let h = Header {
            kind: KIND_HSA_DISPATCH,
            cmd_id: seq,
            t0: 6_000,
            t1: 7_000,
            flags: FLAG_DONE,
            ..Header::default()
        };
        encode(&h, &w, &[])
    }

    #[test]
    fn a_dispatch_arrow_starts_at_the_call_it_names_whatever_the_times() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.json");
        let mut t = Timeline::create(&path, 1, HostClock { tsc0: 0, mono0: 0, ticks_per_us: 1000.0 }).unwrap();
        // Call 2 of thread 7 submitted dispatch 1, although its times lie
        // far from the dispatch's; dispatch 2 was submitted outside any
        // recorded call; dispatch 3 names a call that was not recorded.
        // The dispatch records come before the store, as they may.
        let bytes = [
            dispatch(1, 7, 2),
            dispatch(2, 0, 0),
            dispatch(3, 7, 9),
            store_call(7, 1, 100),
            store_call(7, 2, 90_000_000),
        ]
        .concat();
        for v in records(&bytes) {
            t.add(&v);
        }
        let _ = t.close();
        let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let events = json["traceEvents"].as_array().unwrap();
        let flows: Vec<&serde_json::Value> = events.iter().filter(|e| e["cat"] == "flow").collect();
        assert_eq!(flows.len(), 2, "one arrow, for dispatch 1 only: {flows:?}");
        let start = flows.iter().find(|f| f["ph"] == "s").unwrap();
        assert_eq!(start["id"].as_u64(), Some((1 << 62) | 1));
        assert_eq!((start["tid"].as_u64(), start["ts"].as_f64()), (Some(7), Some(90_000.0)), "from call 2's slice");
        let slices: Vec<&serde_json::Value> = events.iter().filter(|e| e["cat"] == "hsa_dispatch").collect();
        assert_eq!(slices[0]["args"]["submitted_in"], serde_json::json!({"thread": 7, "hsa_call": 2}));
        assert!(slices[1]["args"]["submitted_in"].as_str().unwrap().starts_with("no recorded call"), "{}", slices[1]);
        assert_eq!(slices[2]["args"]["submitted_in"], serde_json::json!({"thread": 7, "hsa_call": 9}));
    }
}
