//! The summary of a run: the table printed on stderr and
//! `<stem>.summary.json`. The layer writes it at the end of the process;
//! `cltap run` and `cltap render` write it from a trace the process left.
//! It is made from the sinks' [`Results`], never from globals of theirs.

use crate::render::{InFlight, Results};
use crate::report::Row;
use serde_json::json;
use std::path::Path;

/// The HSA device time per kernel (`ROCP_HSA_INTERCEPT=2`), as OpenCL's
/// table has it: named where the layer learnt the kernel's name, else by
/// its object; most time first.
fn hsa_kernel_rows(results: &Results, hsa: Option<&HsaExtra>) -> Vec<(u64, crate::devtime::KernelRow)> {
    let m = &results.hsa_kernel_times;
    let name = |k: u64| {
        hsa.and_then(|h| h.kernels.iter().find(|x| x.0 == k).and_then(|x| x.1.clone()))
            .unwrap_or_else(|| format!("{k:#x}"))
    };
    let mut rows: Vec<(u64, crate::devtime::KernelRow)> = m
        .iter()
        .map(|(&k, r)| {
            (
                k,
                crate::devtime::KernelRow {
                    kernel: name(k),
                    launches: r[0],
                    total_ns: r[1],
                    min_ns: r[2],
                    max_ns: r[3],
                    by_size: Vec::new(),
                },
            )
        })
        .collect();
    rows.sort_by(|a, b| b.1.total_ns.cmp(&a.1.total_ns).then(a.1.kernel.cmp(&b.1.kernel)));
    rows
}

/// What the summary says.
pub struct Summary<'a> {
    pub pid: u32,
    /// Calls with times (from the trace), or only counted: (name, calls, errors).
    pub host: Host,
    pub device_timing: bool,
    /// Commands not complete at exit (the layer's count; 0 offline).
    pub pending_at_exit: i64,
    /// What the sinks learnt: the calls that did not return, the HSA
    /// dispatches and their device times, the counter passes.
    pub results: &'a Results,
    /// Extra lines for the table (unknown extension functions…).
    pub notes: Vec<String>,
    /// The timed commands.
    pub device: &'a crate::devtime::Commands,
    /// What the argument dumps did.
    pub dumps: Option<crate::dumps::facts::DumpFacts>,
}

pub use crate::render::device::HsaExtra;

pub enum Host {
    Timed(Vec<Row>),
    Counted(Vec<(String, u64, u64)>),
}

impl<'a> Summary<'a> {
    /// The summary of a rendered trace, wholly from its records (the
    /// process's own and `cltap render`'s are the same): the calls' times,
    /// or their counts where the trace does not hold every call, and what
    /// the process wrote of its end. `device_timing`: the trace's setting.
    pub fn of_trace(pid: u32, device_timing: bool, results: &'a Results) -> Summary<'a> {
        static NONE: std::sync::OnceLock<crate::devtime::Commands> = std::sync::OnceLock::new();
        let end = results.end.as_ref();
        let counted = end.is_some_and(|e| e.counted) || (results.host.is_empty() && end.is_some());
        let host = match end.filter(|_| counted) {
            Some(e) => Host::Counted(e.tally.clone()),
            None => Host::Timed(results.host.clone()),
        };
        Summary {
            pid,
            host,
            device_timing,
            pending_at_exit: end.map_or(0, |e| e.pending),
            results,
            notes: end.map(|e| e.notes.clone()).unwrap_or_default(),
            device: results.device.as_deref().unwrap_or_else(|| NONE.get_or_init(Default::default)),
            dumps: end.and_then(|e| e.dumps.clone()),
        }
    }

    /// The HSA facts the process wrote of its end (`None`: it was no HSA
    /// tool, or did not end normally).
    pub fn hsa(&self) -> Option<&'a HsaExtra> {
        self.results.end.as_ref().and_then(|e| e.hsa.as_ref())
    }

    /// The table for stderr, each line prefixed with `cltap: `.
    pub fn table(&self) -> String {
        self.table_with(None)
    }

    /// [`Self::table`], with the HSA packets line when any was seen.
    pub fn table_with(&self, hsa: Option<&HsaExtra>) -> String {
        let table = match &self.host {
            Host::Timed(rows) => crate::report::render_ns(rows),
            Host::Counted(rows) => {
                let numbered: Vec<(usize, u64, u64)> = rows.iter().enumerate().map(|(i, r)| (i, r.1, r.2)).collect();
                crate::calls::render(&numbered, |i| rows[i].0.as_str())
            }
        };
        let mut msg = String::from("cltap: calls passed through\n");
        msg += &indent(&table);
        if self.device_timing {
            msg += &device_tables(self.device, self.pending_at_exit);
        }
        for c in &self.results.in_flight {
            msg += &format!("cltap: {} did not return (thread {}{})\n", c.api, c.tid, cmd_text(c.cmd_id));
        }
        if self.results.lost > 0 {
            msg += &format!("cltap: {} bytes of records lost: the trace is damaged or truncated\n", self.results.lost);
        }
        for n in &self.notes {
            msg += &format!("cltap: {n}\n");
        }
        for l in self.dumps.iter().flat_map(|d| d.lines()) {
            msg += &format!("cltap: {l}\n");
        }
        for l in self.results.controls.lines() {
            msg += &format!("cltap: {l}\n");
        }
        if self.device_timing && self.results.controls.histogram {
            for l in crate::controls::histogram::Histograms::of(self.device).lines() {
                msg += &format!("cltap: {l}\n");
            }
        }
        for w in &self.results.windows {
            msg += &format!("cltap: collection {}\n", w.text());
        }
        match self.results.counter_passes {
            Some(0) => {
                msg +=
                    "cltap: counters: no device could count the requested hardware counters (kernel statistics only)\n"
            }
            Some(1) => msg += "cltap: counters: collected in 1 pass\n",
            Some(n) => {
                msg += &format!("cltap: counters: the request needs {n} passes (one run of the application each)\n")
            }
            None => {}
        }
        for l in self.results.memory.iter().flat_map(|m| m.lines()) {
            msg += &format!("cltap: {l}\n");
        }
        if let Some(h) = hsa {
            let seen: Vec<String> = h.packets.iter().filter(|(_, n)| *n > 0).map(|(k, n)| format!("{k} {n}")).collect();
            if !seen.is_empty() {
                msg += &format!("cltap: HSA packets: {}\n", seen.join(", "));
            }
        }
        let rows: Vec<crate::devtime::KernelRow> =
            hsa_kernel_rows(self.results, hsa).into_iter().map(|r| r.1).collect();
        if !rows.is_empty() {
            let n: u64 = rows.iter().map(|r| r.launches).sum();
            msg += &format!("cltap: HSA device time per kernel ({n} dispatches timed)\n");
            msg += &indent(&crate::devtime::render_kernels(&rows));
        }
        msg
    }

    /// `path`: the same tallies, for machines. The list of commands is
    /// streamed from the device records, never built in memory.
    pub fn write_json(&self, path: &Path) -> std::io::Result<()> {
        self.write_json_with(path, None)
    }

    /// [`Self::write_json`], with `"hsa_packets"` and `"hsa_kernels"`.
    pub fn write_json_with(&self, path: &Path, hsa: Option<&HsaExtra>) -> std::io::Result<()> {
        let host: Vec<_> = match &self.host {
            Host::Timed(rows) => rows
                .iter()
                .map(|r| json!({"api": r.name, "calls": r.calls, "errors": r.errors, "total_ns": r.total_us}))
                .collect(),
            Host::Counted(rows) => rows.iter().map(|(n, c, e)| json!({"api": n, "calls": c, "errors": e})).collect(),
        };
        let t = self.device.tables();
        let kernels: Vec<_> = t
            .kernels()
            .into_iter()
            .map(|k| json!({"kernel": k.kernel, "launches": k.launches, "total_ns": k.total_ns, "min_ns": k.min_ns, "max_ns": k.max_ns,
                "by_size": k.by_size.iter().map(|(s, n, t)| json!({"sizes": s, "launches": n, "total_ns": t})).collect::<Vec<_>>()}))
            .collect();
        let transfers: Vec<_> = t
            .transfers()
            .into_iter()
            .map(|t| json!({"direction": t.direction, "count": t.count, "bytes": t.bytes, "total_ns": t.total_ns, "gb_per_s": t.gb_per_s()}))
            .collect();
        let in_flight: Vec<_> =
            self.results.in_flight.iter().map(|c| json!({"api": c.api, "tid": c.tid, "cmd_id": c.cmd_id})).collect();
        let mut head = json!({
            "cltap": env!("CARGO_PKG_VERSION"),
            "pid": self.pid,
            "host": host,
            "did_not_return": in_flight,
            "device_timing": self.device_timing,
            "kernels": kernels,
            "transfers": transfers,
            "pending_at_exit": self.pending_at_exit,
            "untimed": self.device.untimed().len(),
            "hsa_dispatches": self.results.hsa_dispatches,
            "lost_bytes": self.results.lost,
        });
        if let (false, Some(o)) = (self.results.windows.is_empty(), head.as_object_mut()) {
            o.insert("windows".into(), json!(self.results.windows));
        }
        if let (Some(d), Some(o)) = (&self.dumps, head.as_object_mut()) {
            o.insert("dumps".into(), d.json());
        }
        let c = &self.results.controls;
        if let (false, Some(o)) = (c.findings.is_empty(), head.as_object_mut()) {
            o.insert("event_checks".into(), json!(c.findings));
        }
        if let (false, Some(o)) = (c.failed.is_empty(), head.as_object_mut()) {
            o.insert("failed_commands".into(), json!(c.failed));
        }
        if let (true, Some(o)) = (self.device_timing && c.histogram, head.as_object_mut()) {
            o.insert("kernel_histograms".into(), crate::controls::histogram::Histograms::of(self.device).json());
        }
        if let (Some(n), Some(o)) = (self.results.counter_passes, head.as_object_mut()) {
            o.insert("counter_passes".into(), json!(n));
        }
        if let (Some(m), Some(o)) = (&self.results.memory, head.as_object_mut()) {
            o.extend(m.json().into_iter().map(|(k, v)| (k.to_string(), v)));
        }
        if let (Some(h), Some(o)) = (hsa, head.as_object_mut()) {
            let packets: serde_json::Map<String, serde_json::Value> =
                h.packets.iter().map(|(k, n)| (k.to_string(), json!(n))).collect();
            o.insert("hsa_packets".into(), serde_json::Value::Object(packets));
            let kernels: Vec<_> = h
                .kernels
                .iter()
                .map(|(k, name, n)| json!({"kernel_object": format!("{k:#x}"), "name": name, "dispatches": n}))
                .collect();
            o.insert("hsa_kernels".into(), json!(kernels));
        }
        let times = hsa_kernel_rows(self.results, hsa);
        if let (false, Some(o)) = (times.is_empty(), head.as_object_mut()) {
            let v: Vec<_> = times
                .iter()
                .map(|(k, r)| json!({"kernel": r.kernel, "kernel_object": format!("{k:#x}"), "launches": r.launches, "total_ns": r.total_ns, "min_ns": r.min_ns, "max_ns": r.max_ns}))
                .collect();
            o.insert("hsa_kernel_times".into(), json!(v));
        }
        use std::io::Write;
        let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
        // The object without its closing brace, then the command list.
        let text = serde_json::to_string_pretty(&head).unwrap_or_default();
        out.write_all(text.trim_end().trim_end_matches('}').trim_end().as_bytes())?;
        out.write_all(b",\n  \"commands\": [")?;
        let mut first = true;
        let mut result = Ok(());
        self.device.for_each(|c| {
            let v = json!({"cmd_id": c.cmd_id, "api": c.api, "tid": c.tid, "queue": format!("{:016X}", c.queue), "kernel": c.kernel,
                "global": c.global, "local": c.local, "bytes": c.bytes, "queued": c.queued, "submit": c.submit, "start": c.start, "end": c.end, "status": c.status});
            let sep: &[u8] = if first { b"\n    " } else { b",\n    " };
            first = false;
            if result.is_ok() {
                result = out.write_all(sep).and_then(|_| out.write_all(v.to_string().as_bytes()));
            }
        });
        result?;
        out.write_all(b"\n  ]\n}\n")?;
        out.flush()
    }
}

fn cmd_text(cmd: Option<u64>) -> String {
    cmd.map(|c| format!(", CMD ID {c}")).unwrap_or_default()
}

/// The line `cltap run` prints when the application died: which call was
/// in flight on which thread.
pub fn death_line(how: &str, in_flight: &[InFlight]) -> String {
    match in_flight {
        [] => format!("application {how}; no call was in flight"),
        [c] => format!("application {how} during {} (thread {}{})", c.api, c.tid, cmd_text(c.cmd_id)),
        [c, rest @ ..] => format!(
            "application {how} during {} (thread {}{}); {} more call(s) in flight on other threads",
            c.api,
            c.tid,
            cmd_text(c.cmd_id),
            rest.len()
        ),
    }
}

fn indent(t: &str) -> String {
    t.lines().map(|l| format!("cltap:   {l}\n")).collect()
}

/// The device-side tables.
fn device_tables(device: &crate::devtime::Commands, pending: i64) -> String {
    let t = device.tables();
    let mut s = String::new();
    s += &format!("cltap: device time per kernel ({} commands timed)\n", device.count());
    s += &indent(&crate::devtime::render_kernels(&t.kernels()));
    let tr = t.transfers();
    if !tr.is_empty() {
        s += "cltap: transfers\n";
        s += &indent(&crate::devtime::render_transfers(&tr));
    }
    for (dev, timer) in device.device_clocks() {
        let how =
            if timer { "clGetDeviceAndHostTimer" } else { "an offset measured from the enqueue calls (no host timer)" };
        s += &format!("cltap: {dev}: device times put on the host clock with {how}\n");
    }
    if pending > 0 {
        s += &format!("cltap: {pending} command(s) had not completed when the process ended; they are not timed\n");
    }
    let untimed = device.untimed();
    if !untimed.is_empty() {
        s += &format!(
            "cltap: {} command(s) could not be timed (first: {} {}: {})\n",
            untimed.len(),
            untimed[0].1,
            untimed[0].0,
            untimed[0].2
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_death_line_names_the_call_in_flight() {
        let c = InFlight { api: "clFinish".into(), tid: 77, cmd_id: Some(41) };
        assert_eq!(
            death_line("killed by SIGSEGV", std::slice::from_ref(&c)),
            "application killed by SIGSEGV during clFinish (thread 77, CMD ID 41)"
        );
        assert_eq!(death_line("killed by SIGKILL", &[]), "application killed by SIGKILL; no call was in flight");
        assert!(death_line("x", &[c.clone(), c]).ends_with("1 more call(s) in flight on other threads"));
    }
}
