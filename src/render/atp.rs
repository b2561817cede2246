//! The Radeon Compute Profiler application trace (`CLTAP_ATP=1`; RCP's output-file documentation,
//! docs/platform-facts.md#public-documents).
//!
//! Records arrive on the writer thread as the application makes them. Each
//! thread's API lines, timestamp lines and perf markers go to spill files of
//! their own, so a trace of millions of calls is never held in memory; at the
//! end of the process the file is assembled section by section from them.
//! An enqueue's device times are only known once its command completes, so
//! its timestamp line is spilled with a placeholder and joined with the
//! device record (by command id) during assembly.

use super::atp_call::api_call;
use super::decoded::symbolic;
use super::sink::{End, Kinds, Open, Results, Sink};
use crate::devtime::{self, QueueOffsets};
use crate::meta::{FUNCTIONS, HSA_FUNCTIONS};
use crate::trace::record::{View, FLAG_CMD, FLAG_OK};
use crate::trace::tsc::HostClock;
use cltap_formats::atp::{self, AsyncCopy, Detail, Enqueue, HsaTimestamp, KernelDispatch, Marker, Timestamp};
use cltap_formats::cltrace::record::{
    self as rec, KIND_HSA_AGENT, KIND_HSA_CALL, KIND_HSA_COPY, KIND_HSA_DISPATCH, KIND_OPENCL_CALL,
};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// One thread's spill files and how many lines each holds: OpenCL's three,
/// and HSA's two (API and timestamp lines), opened at the thread's first HSA
/// call.
struct Spill {
    tid: u32,
    api: BufWriter<File>,
    api_n: usize,
    ts: BufWriter<File>,
    ts_n: usize,
    marks: BufWriter<File>,
    marks_n: usize,
    hsa: Option<(BufWriter<File>, BufWriter<File>)>,
    hsa_n: usize,
    /// The thread's `hsa_amd_memory_async_copy` calls so far: the next
    /// one's ordinal, as the copy records name it.
    /// This thread's async copies so far, plain and rect.
    copies_n: [u64; 2],
}

/// The HSA kernel-timestamp lines (one file for the process: the section has
/// no thread blocks), each spilled as `<dispatch number>\t<line>`.
struct Kernels {
    out: BufWriter<File>,
    n: usize,
    last: u64,
    /// Whether the dispatch numbers arrived in order (else the lines are
    /// sorted by them during assembly).
    sorted: bool,
}

pub struct AtpWriter {
    path: PathBuf,
    parts: PathBuf,
    clock: HostClock,
    /// HSA times (kernels, copies) onto `clock`'s ns, beside the calls'.
    hsa: crate::render::hsa_time::HsaClock,
    threads: Vec<Spill>,
    by_tid: HashMap<u32, usize>,
    kernels: Option<Kernels>,
    /// HSA agents (`KIND_HSA_AGENT`): handle → (name, index among its type).
    agents: HashMap<u64, (String, u32)>,
    /// Async-copy times (`KIND_HSA_COPY`) by (thread, function, ordinal),
    /// joined with their calls' timestamp lines during assembly.
    copies: HashMap<(u32, u64, u64), (u64, u64)>,
    line: String,
    failed: bool,
}

/// Spilled timestamp lines are either final (`T`) or an enqueue waiting for
/// its device times (`E`, tab-separated fields).
const FINAL: char = 'T';
const ENQUEUE: char = 'E';
/// An HSA async copy waiting for its copy times (`C`, tab-separated fields).
const COPY: char = 'C';

impl AtpWriter {
    pub fn create(path: PathBuf, clock: HostClock) -> std::io::Result<Self> {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let parts = path.with_file_name(format!(".{name}.parts"));
        std::fs::create_dir_all(&parts)?;
        File::create(&path)?;
        Ok(AtpWriter {
            path,
            parts,
            clock,
            hsa: Default::default(),
            threads: Vec::new(),
            by_tid: HashMap::new(),
            kernels: None,
            agents: HashMap::new(),
            copies: HashMap::new(),
            line: String::new(),
            failed: false,
        })
    }

    /// The `.atp` as a sink; none (and a warning) when its file cannot be
    /// made.
    pub fn sink(cx: &Open<'_>) -> Option<Box<dyn Sink>> {
        let p = cx.outputs.path("atp");
        match AtpWriter::create(p.clone(), cx.clock) {
            Ok(a) => Some(Box::new(AtpWriter { hsa: cx.hsa.clone(), ..a })),
            Err(e) => {
                crate::warn!("cannot create {}: {e}; no .atp", p.display());
                None
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn spill(&mut self, tid: u32) -> std::io::Result<&mut Spill> {
        let i = match self.by_tid.get(&tid) {
            Some(&i) => i,
            None => {
                let open = |kind: &str| -> std::io::Result<BufWriter<File>> {
                    Ok(BufWriter::with_capacity(1 << 16, File::create(self.parts.join(format!("{tid}.{kind}")))?))
                };
                let s = Spill {
                    tid,
                    api: open("api")?,
                    api_n: 0,
                    ts: open("ts")?,
                    ts_n: 0,
                    marks: open("marks")?,
                    marks_n: 0,
                    hsa: None,
                    hsa_n: 0,
                    copies_n: [0, 0],
                };
                self.threads.push(s);
                self.by_tid.insert(tid, self.threads.len() - 1);
                self.threads.len() - 1
            }
        };
        Ok(&mut self.threads[i])
    }

    /// Adds one call record.
    pub fn add(&mut self, v: &View<'_>) {
        if self.failed {
            return;
        }
        if let Err(e) = self.try_record(v) {
            self.failed = true;
            crate::warn!(
                "cannot write the .atp spill files in {}: {e}; the .atp will be incomplete",
                self.parts.display()
            );
        }
    }

    fn try_record(&mut self, v: &View<'_>) -> std::io::Result<()> {
        match v.header.kind {
            KIND_OPENCL_CALL => self.opencl(v),
            KIND_HSA_CALL => self.hsa(v),
            KIND_HSA_DISPATCH => self.dispatch(v),
            KIND_HSA_AGENT => {
                let name = v.kernel_name().unwrap_or_default();
                let a = crate::decode::Agent::of(v);
                self.agents.insert(a.handle, (name, a.index as u32));
                Ok(())
            }
            KIND_HSA_COPY => {
                let c = crate::decode::Copy::of(v);
                let (t0, t1) = (self.hsa.ns(v.header.t0), self.hsa.ns(v.header.t1));
                self.copies.insert((c.tid, c.which, c.ordinal), (t0, t1));
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// An HSA call: its API line and its timestamp line (host times; an
    /// async copy's line is spilled with a placeholder and joined with its
    /// copy times during assembly, see docs/atp-format.md).
    fn hsa(&mut self, v: &View<'_>) -> std::io::Result<()> {
        let h = &v.header;
        let Some(f) = HSA_FUNCTIONS.get(h.fn_id as usize) else { return Ok(()) };
        let (start, end) = (self.clock.ns(h.t0), self.clock.ns(h.t1));
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        atp::write_api_call(&mut line, &api_call(f, v));
        let n = line.len();
        let tid = h.tid;
        let parts = self.parts.clone();
        let s = self.spill(tid)?;
        let api_type = atp::hsa_api_type(f.name);
        let which = match f.name {
            "hsa_amd_memory_async_copy" => Some(rec::COPY_PLAIN),
            "hsa_amd_memory_async_copy_rect" => Some(rec::COPY_RECT),
            _ => None,
        };
        if let Some(which) = which {
            use std::fmt::Write as _;
            let n = &mut s.copies_n[which as usize];
            let _ = writeln!(line, "{COPY}{which}:{}\t{api_type}\t{}\t{start}\t{end}", *n, f.name);
            *n += 1;
        } else {
            line.push(FINAL);
            atp::write_hsa_timestamp(
                &mut line,
                &HsaTimestamp { api_type, name: f.name.to_string(), start, end, copy: None },
            );
        }
        if s.hsa.is_none() {
            let open = |kind: &str| -> std::io::Result<BufWriter<File>> {
                Ok(BufWriter::with_capacity(1 << 16, File::create(parts.join(format!("{tid}.{kind}")))?))
            };
            s.hsa = Some((open("hsa-api")?, open("hsa-ts")?));
        }
        let (api, ts) = s.hsa.as_mut().expect("opened");
        api.write_all(&line.as_bytes()[..n])?;
        ts.write_all(&line.as_bytes()[n..])?;
        s.hsa_n += 1;
        self.line = line;
        Ok(())
    }

    /// A kernel dispatch seen by the HSA queue interceptor: one line of the
    /// kernel-timestamp section. Its times are the record's begin and end,
    /// put from the runtime's clock on the host's, as the API lines are
    /// (0, no times, stays 0).
    fn dispatch(&mut self, v: &View<'_>) -> std::io::Result<()> {
        let h = &v.header;
        let d = crate::decode::Dispatch::of(v);
        let (kernel, agent) = (d.kernel_object, d.agent);
        let packet = format!(
            "{{NA,NA,{},{},{},NA,{},{},{},{},{},{kernel},NA,NA,{{NA}}}}",
            d.workgroup[0],
            d.workgroup[1],
            d.workgroup[2],
            d.grid[0],
            d.grid[1],
            d.grid[2],
            d.private_segment,
            d.group_segment,
        );
        // Spilled as fields; the line is written at assembly, when every
        // agent record (which may come later in seal order) is known.
        let name = v.kernel_name().unwrap_or_else(|| format!("{kernel:#x}")).replace(['\n', '\r'], " ");
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        use std::fmt::Write as _;
        let _ = writeln!(
            line,
            "{}\t{kernel}\t{}\t{}\t{agent}\t{}\t{}\t{packet}\t{name}",
            h.cmd_id,
            if h.t0 == 0 { 0 } else { self.hsa.ns(h.t0) },
            if h.t1 == 0 { 0 } else { self.hsa.ns(h.t1) },
            d.queue_id,
            d.queue_index
        );
        if self.kernels.is_none() {
            let out = BufWriter::with_capacity(1 << 16, File::create(self.parts.join("kernels"))?);
            self.kernels = Some(Kernels { out, n: 0, last: 0, sorted: true });
        }
        let ks = self.kernels.as_mut().expect("opened");
        ks.out.write_all(line.as_bytes())?;
        ks.n += 1;
        ks.sorted &= h.cmd_id >= ks.last;
        ks.last = h.cmd_id;
        self.line = line;
        Ok(())
    }

    fn opencl(&mut self, v: &View<'_>) -> std::io::Result<()> {
        let h = &v.header;
        let Some(f) = FUNCTIONS.get(h.fn_id as usize) else { return Ok(()) };
        let (start, end) = (self.clock.ns(h.t0), self.clock.ns(h.t1));
        let ok = h.ret == 0;
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        if f.is_marker() {
            let m = match f.name {
                "clBeginPerfMarkerCLTAP" if ok => {
                    let text = |i: usize| v.string_arg(i).unwrap_or_default();
                    Some(Marker::Begin { name: text(0), time: start, group: text(1) })
                }
                "clEndPerfMarkerCLTAP" if ok => Some(Marker::End { time: start }),
                _ => None,
            };
            if let Some(m) = m {
                atp::write_marker(&mut line, &m);
                let s = self.spill(h.tid)?;
                s.marks.write_all(line.as_bytes())?;
                s.marks_n += 1;
            }
            self.line = line;
            return Ok(());
        }
        atp::write_api_call(&mut line, &api_call(f, v));
        let tid = h.tid;
        let enqueue = h.flags & FLAG_CMD != 0
            && h.flags & FLAG_OK != 0
            && f.params.first().is_some_and(|p| p.c_type == "cl_command_queue");
        let s = self.spill(tid)?;
        s.api.write_all(line.as_bytes())?;
        s.api_n += 1;
        line.clear();
        let api_type = atp::api_type(f.name);
        if enqueue {
            let kernel = if f.name == "clEnqueueNDRangeKernel" || f.name == "clEnqueueTask" {
                v.args.get(1).copied().unwrap_or(0)
            } else {
                0
            };
            use std::fmt::Write as _;
            let _ = writeln!(line, "{ENQUEUE}{}\t{api_type}\t{}\t{start}\t{end}\t{kernel}", h.cmd_id, f.name);
        } else {
            line.push(FINAL);
            atp::write_timestamp(
                &mut line,
                &Timestamp { api_type, name: f.name.to_string(), start, end, enqueue: None },
            );
        }
        s.ts.write_all(line.as_bytes())?;
        s.ts_n += 1;
        self.line = line;
        Ok(())
    }

    /// Assembles the file from the spills and the device records, then
    /// removes the spills.
    pub fn finish(
        mut self,
        header: Vec<(String, String)>,
        offsets: &QueueOffsets,
        cmds: &devtime::Commands,
    ) -> std::io::Result<PathBuf> {
        for s in &mut self.threads {
            s.api.flush()?;
            s.ts.flush()?;
            s.marks.flush()?;
            if let Some((a, t)) = s.hsa.as_mut() {
                a.flush()?;
                t.flush()?;
            }
        }
        if let Some(k) = self.kernels.as_mut() {
            k.out.flush()?;
        }
        let r = self.assemble(header, offsets, cmds);
        let _ = std::fs::remove_dir_all(&self.parts);
        r.map(|_| self.path.clone())
    }

    fn assemble(
        &self,
        header: Vec<(String, String)>,
        offsets: &QueueOffsets,
        cmds: &devtime::Commands,
    ) -> std::io::Result<()> {
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&self.path)?);
        let mut text = String::new();
        atp::write_header(&mut text, &header);
        out.write_all(text.as_bytes())?;
        // Empty sections are left out, as the formats crate writes them.
        if self.threads.iter().any(|s| s.api_n > 0) {
            self.opencl_sections(&mut out, offsets, cmds)?;
        }
        self.hsa_sections(&mut out)?;
        self.markers(&mut out)
    }

    fn hsa_sections(&self, out: &mut BufWriter<File>) -> std::io::Result<()> {
        if self.threads.iter().any(|s| s.hsa_n > 0) {
            for (name, kind) in [(atp::HSA_API_SECTION, "hsa-api"), (atp::HSA_TIMESTAMP_SECTION, "hsa-ts")] {
                section(out, name)?;
                for s in self.threads.iter().filter(|s| s.hsa_n > 0) {
                    if kind == "hsa-api" {
                        self.block(out, s.tid, s.hsa_n, kind, |l, o| o.write_all(l.as_bytes()))?;
                        continue;
                    }
                    self.block(out, s.tid, s.hsa_n, kind, |l, o| match l.strip_prefix(FINAL) {
                        Some(rest) => o.write_all(rest.as_bytes()),
                        None => {
                            let mut t = String::new();
                            atp::write_hsa_timestamp(&mut t, &self.copy_joined(s.tid, l));
                            o.write_all(t.as_bytes())
                        }
                    })?;
                }
            }
        }
        let Some(k) = &self.kernels else { return Ok(()) };
        section(out, atp::HSA_KERNEL_SECTION)?;
        let mut count = String::new();
        atp::write_dispatch_count(&mut count, k.n);
        out.write_all(count.as_bytes())?;
        let cmd = |l: &str| -> u64 { l.split('\t').next().and_then(|n| n.parse().ok()).unwrap_or(0) };
        let mut r = BufReader::with_capacity(1 << 16, File::open(self.parts.join("kernels"))?);
        let mut lines: Vec<String> = Vec::new();
        if k.sorted {
            let mut l = String::new();
            while r.read_line(&mut l)? > 0 {
                self.write_dispatch(out, &mut count, l.trim_end_matches('\n'))?;
                l.clear();
            }
        } else {
            lines = r.lines().collect::<Result<_, _>>()?;
            lines.sort_by_key(|l| cmd(l));
        }
        for l in &lines {
            self.write_dispatch(out, &mut count, l)?;
        }
        Ok(())
    }

    /// One spilled dispatch (see [`Self::dispatch`]) as its kernel-timestamp
    /// line, with its agent's name and index from the agent records.
    fn write_dispatch(&self, out: &mut BufWriter<File>, line: &mut String, spilled: &str) -> std::io::Result<()> {
        let f: Vec<&str> = spilled.splitn(9, '\t').collect();
        let num = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
        let agent = num(4);
        let (agent_name, agent_index) = match self.agents.get(&agent) {
            Some((name, index)) => (name.clone(), *index),
            None => (format!("{agent:#x}"), 0),
        };
        let k = KernelDispatch {
            // The runtime's name for the kernel object, else the object.
            kernel_name: f.get(8).copied().unwrap_or_default().to_string(),
            kernel_handle: num(1),
            start: num(2),
            end: num(3),
            agent_name,
            agent_handle: agent,
            queue_index: num(5),
            agent_index,
            packet_type: "HSA_PACKET_TYPE_KERNEL_DISPATCH".into(),
            packet_id: num(6),
            packet: f.get(7).copied().unwrap_or_default().to_string(),
        };
        line.clear();
        atp::write_kernel_dispatch(line, &k);
        out.write_all(line.as_bytes())
    }

    /// An async copy's spilled timestamp line joined with its copy times,
    /// when they came (a copy that never completed keeps only its host
    /// times). The copy times are the runtime's, written as they are.
    fn copy_joined(&self, tid: u32, l: &str) -> HsaTimestamp {
        let f: Vec<&str> = l[1..].trim_end().split('\t').collect();
        let num = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
        let (which, ordinal) = f
            .first()
            .and_then(|k| k.split_once(':'))
            .map_or((0, 0), |(w, n)| (w.parse().unwrap_or(0), n.parse().unwrap_or(0)));
        let copy = self.copies.get(&(tid, which, ordinal)).map(|&(start, end)| AsyncCopy { start, end });
        HsaTimestamp {
            api_type: num(1) as u32,
            name: f.get(2).copied().unwrap_or("?").to_string(),
            start: num(3),
            end: num(4),
            copy,
        }
    }

    fn opencl_sections(
        &self,
        out: &mut BufWriter<File>,
        offsets: &QueueOffsets,
        cmds: &devtime::Commands,
    ) -> std::io::Result<()> {
        section(out, atp::API_SECTION)?;
        for s in self.threads.iter().filter(|s| s.api_n > 0) {
            self.block(out, s.tid, s.api_n, "api", |l, o| o.write_all(l.as_bytes()))?;
        }
        let mut ids = Ids::default();
        section(out, atp::TIMESTAMP_SECTION)?;
        for s in self.threads.iter().filter(|s| s.ts_n > 0) {
            self.block(out, s.tid, s.ts_n, "ts", |l, o| {
                let mut t = String::new();
                match l.strip_prefix(FINAL) {
                    Some(rest) => t.push_str(rest),
                    None => atp::write_timestamp(&mut t, &joined(l, cmds, offsets, &mut ids)),
                }
                o.write_all(t.as_bytes())
            })?;
        }
        Ok(())
    }

    fn markers(&self, out: &mut BufWriter<File>) -> std::io::Result<()> {
        if self.threads.iter().any(|s| s.marks_n > 0) {
            section(out, atp::MARKER_SECTION)?;
            for s in self.threads.iter().filter(|s| s.marks_n > 0) {
                self.block(out, s.tid, s.marks_n, "marks", |l, o| o.write_all(l.as_bytes()))?;
            }
        }
        out.flush()
    }

    /// One thread block: its start, then each spilled line through `line`.
    fn block(
        &self,
        out: &mut BufWriter<File>,
        tid: u32,
        n: usize,
        kind: &str,
        mut line: impl FnMut(&str, &mut BufWriter<File>) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut start = String::new();
        atp::write_block_start(&mut start, tid as u64, n);
        out.write_all(start.as_bytes())?;
        let mut r = BufReader::with_capacity(1 << 16, File::open(self.parts.join(format!("{tid}.{kind}")))?);
        let mut l = String::new();
        while r.read_line(&mut l)? > 0 {
            line(&l, out)?;
            l.clear();
        }
        Ok(())
    }
}

fn section(out: &mut BufWriter<File>, name: &str) -> std::io::Result<()> {
    let mut s = String::new();
    atp::write_section_start(&mut s, name);
    out.write_all(s.as_bytes())
}

/// Queue and context numbers, in order of first appearance.
#[derive(Default)]
struct Ids {
    queues: HashMap<u64, u32>,
    contexts: HashMap<u64, u32>,
}

fn number(m: &mut HashMap<u64, u32>, h: u64) -> u32 {
    let n = m.len() as u32 + 1;
    *m.entry(h).or_insert(n)
}

/// An enqueue's spilled line joined with its device record, when there is
/// one (a command that never completed, or whose times the driver refused,
/// keeps only its host times).
fn joined(l: &str, cmds: &devtime::Commands, offsets: &QueueOffsets, ids: &mut Ids) -> Timestamp {
    let f: Vec<&str> = l[1..].trim_end().split('\t').collect();
    let num = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
    let (cmd_id, api_type, name, start, end, kernel) =
        (num(0), num(1) as u32, f.get(2).copied().unwrap_or("?"), num(3), num(4), num(5));
    let mut t = Timestamp { api_type, name: name.to_string(), start, end, enqueue: None };
    let Some(c) = cmds.get(cmd_id) else { return t };
    let off = offsets.get(&c.queue).map_or(0, |o| o.0);
    let host = |x: u64| devtime::on_host(x, off);
    let detail = match (&c.kernel, c.bytes) {
        (Some(k), _) => Detail::Kernel {
            handle: kernel,
            name: k.clone(),
            global: c.global.iter().map(|&x| x as u64).collect(),
            local: c.local.as_ref().map(|l| l.iter().map(|&x| x as u64).collect()),
        },
        (None, Some(b)) => Detail::Transfer { bytes: b },
        _ => Detail::None,
    };
    t.enqueue = Some(Enqueue {
        cmd_type: c.cmd_type,
        cmd_name: symbolic("cl_command_type", c.cmd_type as u64).unwrap_or_else(|| format!("{:#x}", c.cmd_type)),
        queued: host(c.queued),
        submit: host(c.submit),
        start: host(c.start),
        end: host(c.end),
        queue_id: number(&mut ids.queues, c.queue),
        queue: c.queue,
        context_id: number(&mut ids.contexts, c.context),
        context: c.context,
        device: c.device.to_string(),
        detail,
    });
    t
}

impl Sink for AtpWriter {
    fn kinds(&self) -> Kinds {
        Kinds::ALL
    }

    fn record(&mut self, v: &View<'_>) {
        if v.returned() {
            self.add(v);
        }
    }

    fn finish(self: Box<Self>, end: &End<'_>, results: &mut Results) {
        let path = self.path.clone();
        match (*self).finish(super::outputs::atp_header(end.reader), end.offsets(), end.commands()) {
            Ok(p) => results.files.push(p),
            Err(e) => crate::warn!("cannot write {}: {e}", path.display()),
        }
    }
}
