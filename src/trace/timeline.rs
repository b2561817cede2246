//! The timeline (`CLTAP_TIMELINE=1`): Chrome trace-event JSON that Perfetto
//! opens. Host calls are slices on their thread; device commands are slices
//! on a track per queue; a flow arrow joins each enqueue to its command. The
//! file is written as the records are, so a long run is never held in
//! memory, and it is closed at the end of the process however it ends.

use super::record::{View, FLAG_CMD};
use super::tsc::HostClock;
use crate::devtime::{self, Alignment, Command};
use std::collections::{BTreeMap, HashSet};
use std::io::{BufWriter, Write};

/// Device tracks live in their own process row, after the host's.
const DEVICE_PID_OFFSET: u32 = 1 << 22;

pub struct Timeline {
    out: BufWriter<std::fs::File>,
    first: bool,
    pid: u32,
    clock: HostClock,
    named: HashSet<u32>,
    /// Host start (µs) of each enqueue, by command id, for the flow arrows.
    enqueues: BTreeMap<u64, (u32, f64)>,
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".into())
}

impl Timeline {
    pub fn create(path: &std::path::Path, pid: u32, clock: HostClock) -> std::io::Result<Self> {
        let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
        out.write_all(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")?;
        let mut t = Timeline { out, first: true, pid, clock, named: HashSet::new(), enqueues: BTreeMap::new() };
        t.event(&format!("{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{pid},\"args\":{{\"name\":\"host (pid {pid})\"}}}}"));
        t.event(&format!("{{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":{},\"args\":{{\"name\":\"device queues\"}}}}", pid + DEVICE_PID_OFFSET));
        Ok(t)
    }

    fn event(&mut self, e: &str) {
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
            self.event(&format!("{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{tid},\"args\":{{\"name\":\"thread {tid}\"}}}}", self.pid));
        }
    }

    /// One call record: a slice on its thread, or a marker's begin or end.
    pub fn record(&mut self, v: &View<'_>) {
        let h = &v.header;
        let Some(f) = crate::meta::FUNCTIONS.get(h.fn_id as usize) else { return };
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
        self.host_call(f.name, h.tid, h.t0, h.t1, (h.flags & FLAG_CMD != 0).then_some(h.cmd_id));
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
    pub fn device(&mut self, offsets: &devtime::QueueOffsets) {
        let dpid = self.pid + DEVICE_PID_OFFSET;
        let mut track: BTreeMap<u64, usize> = BTreeMap::new();
        devtime::for_each(|c| {
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
        let (Some(&(off, _)), Some(&(htid, hts))) = (offsets.get(&c.queue), self.enqueues.get(&c.cmd_id)) else { return };
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

    pub fn close(mut self) {
        let _ = self.out.write_all(b"\n]}\n");
        let _ = self.out.flush();
    }

    pub fn flush(&mut self) {
        let _ = self.out.flush();
    }
}
