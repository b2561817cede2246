//! The timeline (`CLTAP_TIMELINE=1`): Chrome trace-event JSON that Perfetto
//! opens. Host calls are slices on their thread; device commands are slices
//! on a track per queue; a flow arrow joins each enqueue to its command. The
//! file is written as the records are, so a long run is never held in
//! memory, and it is closed at the end of the process however it ends.

use super::printer::Timebase;
use crate::devtime::Command;
use std::collections::{BTreeMap, HashSet};
use std::io::{BufWriter, Write};

/// Device tracks live in their own process row, after the host's.
const DEVICE_PID_OFFSET: u32 = 1 << 22;

pub struct Timeline {
    out: BufWriter<std::fs::File>,
    first: bool,
    pid: u32,
    t0: u64,
    tb: Timebase,
    named: HashSet<u32>,
    /// Host start (µs) of each enqueue, by command id, for the flow arrows.
    enqueues: BTreeMap<u64, (u32, f64)>,
}

fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"?\"".into())
}

impl Timeline {
    pub fn create(path: &std::path::Path, pid: u32, t0: u64, tb: Timebase) -> std::io::Result<Self> {
        let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
        out.write_all(b"{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n")?;
        let mut t = Timeline { out, first: true, pid, t0, tb, named: HashSet::new(), enqueues: BTreeMap::new() };
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
        tsc.saturating_sub(self.t0) as f64 / self.tb.ticks_per_us
    }

    pub fn host_call(&mut self, name: &str, tid: u32, t0: u64, t1: u64, cmd: Option<u64>) {
        if self.named.insert(tid) {
            self.event(&format!("{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{},\"tid\":{tid},\"args\":{{\"name\":\"thread {tid}\"}}}}", self.pid));
        }
        let ts = self.us(t0);
        let dur = (self.us(t1) - ts).max(0.0);
        let args = cmd.map_or(String::new(), |c| format!(",\"args\":{{\"cmd\":{c}}}"));
        self.event(&format!("{{\"name\":{},\"cat\":\"api\",\"ph\":\"X\",\"ts\":{ts:.3},\"dur\":{dur:.3},\"pid\":{},\"tid\":{tid}{args}}}", json_str(name), self.pid));
        if let Some(c) = cmd {
            self.enqueues.insert(c, (tid, ts));
        }
    }

    /// Device commands, placed on the host's time axis. The device clock's
    /// offset is measured per queue: a command is never drawn before it was
    /// enqueued, and the earliest one starts its queue where its enqueue did.
    pub fn device(&mut self, cmds: &[Command]) {
        let mut offsets: BTreeMap<u64, f64> = BTreeMap::new();
        for c in cmds {
            let Some(&(_, host)) = self.enqueues.get(&c.cmd_id) else { continue };
            let off = c.queued as f64 / 1000.0 - host;
            let e = offsets.entry(c.queue).or_insert(off);
            *e = e.min(off);
        }
        let dpid = self.pid + DEVICE_PID_OFFSET;
        for (i, q) in offsets.keys().enumerate() {
            self.event(&format!("{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":{dpid},\"tid\":{},\"args\":{{\"name\":\"queue {q:016X}\"}}}}", i + 1));
        }
        let track: BTreeMap<u64, usize> = offsets.keys().enumerate().map(|(i, q)| (*q, i + 1)).collect();
        for c in cmds {
            let (Some(&off), Some(&(htid, hts))) = (offsets.get(&c.queue), self.enqueues.get(&c.cmd_id)) else { continue };
            let ts = c.start as f64 / 1000.0 - off;
            let dur = c.duration_ns() as f64 / 1000.0;
            let name = c.kernel.clone().unwrap_or_else(|| c.api.trim_start_matches("clEnqueue").to_string());
            let tid = track[&c.queue];
            self.event(&format!(
                "{{\"name\":{},\"cat\":\"device\",\"ph\":\"X\",\"ts\":{ts:.3},\"dur\":{dur:.3},\"pid\":{dpid},\"tid\":{tid},\"args\":{{\"cmd\":{},\"api\":{},\"queued_ns\":{},\"submit_ns\":{},\"start_ns\":{},\"end_ns\":{}}}}}",
                json_str(&name), c.cmd_id, json_str(c.api), c.queued, c.submit, c.start, c.end
            ));
            self.event(&format!("{{\"name\":\"enqueue\",\"cat\":\"flow\",\"ph\":\"s\",\"id\":{},\"ts\":{hts:.3},\"pid\":{},\"tid\":{htid}}}", c.cmd_id, self.pid));
            self.event(&format!("{{\"name\":\"enqueue\",\"cat\":\"flow\",\"ph\":\"f\",\"bp\":\"e\",\"id\":{},\"ts\":{ts:.3},\"pid\":{dpid},\"tid\":{tid}}}", c.cmd_id));
        }
    }

    pub fn close(mut self) {
        let _ = self.out.write_all(b"\n]}\n");
        let _ = self.out.flush();
    }

    pub fn flush(&mut self) {
        let _ = self.out.flush();
    }
}
