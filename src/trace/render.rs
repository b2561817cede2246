//! Renders the text formats from the binary trace: the API log, the
//! timeline, the `.atp` and the host tally. The same code runs in the
//! process (a background thread, then the exit) and after it (`cltap run`
//! once the application died, `cltap render` on a trace left behind), and it
//! reads the same file either way, so the same trace gives the same bytes.

use super::printer::{self, Options, Timebase};
use super::record::View;
use super::tsc;
use cltap_formats::apilog;
use cltap_formats::cltrace::{self, Clock, Reader};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dest {
    /// `<dir>/<stem>.apilog`
    File,
    Stderr,
    Stdout,
}

/// What to render, and where.
#[derive(Debug, Clone)]
pub struct Outputs {
    pub dir: PathBuf,
    /// `<app>.<pid>[.r<rank>]`: every file's name before its extension.
    pub stem: String,
    pub api_log: Option<Dest>,
    pub options: Options,
    pub timeline: bool,
    pub atp: bool,
}

impl Outputs {
    pub fn path(&self, ext: &str) -> PathBuf {
        self.dir.join(format!("{}.{ext}", self.stem))
    }
}

/// A call that had not returned when the process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InFlight {
    pub api: String,
    pub tid: u32,
    pub cmd_id: Option<u64>,
}

pub struct Renderer {
    reader: Reader,
    outputs: Outputs,
    out: Option<Box<dyn Write + Send>>,
    timebase: Option<Timebase>,
    records: u64,
    line: String,
    call: apilog::Call,
    timeline: Option<super::timeline::Timeline>,
    atp: Option<super::atp::AtpWriter>,
    opened: bool,
    /// Per function id: calls, errors, total, min, max (ns).
    host: Vec<[u64; 5]>,
    pub in_flight: Vec<InFlight>,
    /// Seal numbers below this are rendered; later ones wait here (by seal
    /// number: chunk index) until their turn.
    next_seal: u64,
    waiting: BTreeMap<u64, u64>,
    buf: Vec<u8>,
    errors: Vec<String>,
}

/// The trace's clock: which it is, and its rate.
pub fn clock_text(clock: u32) -> &'static str {
    if clock == Clock::Monotonic as u32 {
        tsc::Source::Monotonic.describe()
    } else {
        tsc::Source::InvariantTsc.describe()
    }
}

impl Renderer {
    pub fn new(reader: Reader, outputs: Outputs) -> Renderer {
        Renderer {
            reader,
            outputs,
            out: None,
            timebase: None,
            records: 0,
            line: String::new(),
            call: printer::empty_call(),
            timeline: None,
            atp: None,
            opened: false,
            host: Vec::new(),
            in_flight: Vec::new(),
            next_seal: 1,
            waiting: BTreeMap::new(),
            buf: Vec::new(),
            errors: Vec::new(),
        }
    }

    pub fn outputs(&self) -> &Outputs {
        &self.outputs
    }

    pub fn reader(&self) -> &Reader {
        &self.reader
    }

    /// The rate the trace recorded; a trace cut off before it was measured
    /// gets this machine's (the invariant TSC's rate does not change).
    fn timebase(&mut self) -> Timebase {
        let _ = self.reader.reread_header();
        let ticks_per_us = self.reader.header.ticks_per_us().unwrap_or_else(|| tsc::ticks_per_us(std::time::Duration::from_millis(20)));
        Timebase { ticks_per_us }
    }

    pub fn clock(&self, tb: Timebase) -> tsc::HostClock {
        tsc::HostClock { tsc0: self.reader.header.tsc0, mono0: self.reader.header.mono0, ticks_per_us: tb.ticks_per_us }
    }

    fn open(&mut self) {
        if self.opened {
            return;
        }
        self.opened = true;
        let tb = self.timebase();
        self.timebase = Some(tb);
        let pid = self.reader.header.pid;
        if self.outputs.timeline {
            let p = self.outputs.path("json");
            match super::timeline::Timeline::create(&p, pid, self.clock(tb)) {
                Ok(t) => self.timeline = Some(t),
                Err(e) => crate::warn!("cannot create {}: {e}; no timeline", p.display()),
            }
        }
        if self.outputs.atp {
            let p = self.outputs.path("atp");
            match super::atp::AtpWriter::create(p.clone(), self.clock(tb)) {
                Ok(a) => self.atp = Some(a),
                Err(e) => crate::warn!("cannot create {}: {e}; no .atp", p.display()),
            }
        }
        let Some(dest) = self.outputs.api_log.clone() else { return };
        self.out = Some(match dest {
            Dest::Stderr => Box::new(std::io::stderr()),
            Dest::Stdout => Box::new(std::io::stdout()),
            Dest::File => {
                let path = self.outputs.path("apilog");
                match std::fs::File::create(&path) {
                    Ok(f) => Box::new(std::io::BufWriter::with_capacity(1 << 20, f)),
                    Err(e) => {
                        crate::warn!("cannot create {}: {e}; the API log goes to stderr", path.display());
                        Box::new(std::io::stderr())
                    }
                }
            }
        });
        let r = &self.reader;
        let mut header = vec![
            format!("cltap {} API log", env!("CARGO_PKG_VERSION")),
            format!("application: {}", r.info("cmdline").unwrap_or("")),
            format!("pid: {pid}"),
            format!("clock: {}", clock_text(r.header.clock)),
            format!("ticks per microsecond: {:.3}", tb.ticks_per_us),
        ];
        if let Some(rank) = r.info("rank") {
            header.push(format!("rank: {rank}"));
        }
        for h in header {
            self.emit(&apilog::Entry::Comment(h));
        }
    }

    fn emit(&mut self, e: &apilog::Entry) {
        self.line.clear();
        apilog::write_entry(&mut self.line, e);
        self.write_line();
    }

    /// Writes the pending text to the API log. The first failure (a full
    /// disk, the file-size limit) is reported once; the log ends there.
    fn write_line(&mut self) {
        if let Some(o) = self.out.as_mut() {
            if let Err(e) = o.write_all(self.line.as_bytes()) {
                crate::warn!("cannot write {}: {e}; the API log ends here (the trace has every record: `cltap render`)", self.outputs.path("apilog").display());
                self.out = None;
            }
        }
        self.line.clear();
    }

    /// A chunk was sealed: render it in seal order.
    pub fn sealed(&mut self, seal: u64, index: u64) {
        self.waiting.insert(seal, index);
        while let Some(index) = self.waiting.remove(&self.next_seal) {
            self.next_seal += 1;
            match self.reader.chunk(index) {
                Ok(c) => self.render_chunk(&c),
                Err(e) => self.errors.push(e.to_string()),
            }
        }
    }

    /// Whether sealed chunks are waiting for an earlier one.
    pub fn backlog(&self) -> usize {
        self.waiting.len()
    }

    fn render_chunk(&mut self, c: &cltrace::ChunkInfo) {
        self.open();
        let mut buf = std::mem::take(&mut self.buf);
        let r = self.reader.chunk_records(c, &mut buf).and_then(|_| {
            let mut views = Vec::new();
            // The reader is borrowed by the walk; the views are rendered after.
            let res = self.reader.walk(c, &buf, |v| views.push(v));
            for v in &views {
                self.render(v);
            }
            res
        });
        if let Err(e) = r {
            self.errors.push(e.to_string());
        }
        self.buf = buf;
        if !self.line.is_empty() {
            self.write_line();
        }
    }

    fn render(&mut self, v: &View<'_>) {
        let tb = self.timebase.expect("opened");
        let h = &v.header;
        self.records += 1;
        let id = h.fn_id as usize;
        if !v.returned() {
            self.in_flight.push(InFlight {
                api: crate::meta::FUNCTIONS.get(id).map_or_else(|| format!("function {id}"), |f| f.name.to_string()),
                tid: h.tid,
                cmd_id: (h.flags & super::record::FLAG_CMD != 0).then_some(h.cmd_id),
            });
        } else {
            if self.host.len() <= id {
                self.host.resize(id + 1, [0, 0, 0, u64::MAX, 0]);
            }
            let ns = (h.t1.saturating_sub(h.t0) as f64 * 1000.0 / tb.ticks_per_us) as u64;
            let failed = crate::meta::FUNCTIONS.get(id).is_some_and(|f| !super::capture::succeeded(f, h.ret));
            let r = &mut self.host[id];
            r[0] += 1;
            r[1] += failed as u64;
            r[2] += ns;
            r[3] = r[3].min(ns);
            r[4] = r[4].max(ns);
            if let Some(t) = self.timeline.as_mut() {
                t.record(v);
            }
            if let Some(a) = self.atp.as_mut() {
                a.record(v);
            }
        }
        if self.out.is_none() {
            return;
        }
        printer::print(&mut self.line, &mut self.call, v, &tb, self.outputs.options);
        if self.line.len() > 1 << 16 {
            self.write_line();
        }
    }

    /// Flushes what is rendered so far to the API log.
    pub fn flush(&mut self) {
        if let Some(o) = self.out.as_mut() {
            if let Err(e) = o.flush() {
                crate::warn!("cannot write {}: {e}; the API log ends here (the trace has every record: `cltap render`)", self.outputs.path("apilog").display());
                self.out = None;
            }
        }
    }

    /// Renders everything not rendered yet (sealed chunks in seal order, then
    /// the chunks threads still held, by index), then the device parts and
    /// the trailer. Returns the number of records dropped.
    pub fn finish(&mut self, atp_header: Vec<(String, String)>) -> u64 {
        self.open();
        let chunks = match self.reader.chunks() {
            Ok(c) => c,
            Err(e) => {
                self.errors.push(e.to_string());
                Vec::new()
            }
        };
        let mut drops = 0;
        for c in &chunks {
            drops += c.header.drops;
            if c.header.sealed != 0 && c.header.sealed < self.next_seal {
                continue;
            }
            self.render_chunk(c);
        }
        let _ = self.reader.reread_header();
        drops += self.reader.header.drops;
        if self.timeline.is_some() || self.atp.is_some() {
            let clock = self.clock(self.timebase.unwrap_or(Timebase { ticks_per_us: 1000.0 }));
            let mut off = crate::devtime::Offsets::default();
            crate::devtime::for_each(|c| off.add(&c, |t| clock.ns(t)));
            let offsets = off.finish();
            if let Some(mut t) = self.timeline.take() {
                t.device(&offsets);
                t.close();
            }
            if let Some(a) = self.atp.take() {
                let path = a.path().to_path_buf();
                if let Err(e) = a.finish(atp_header, &offsets, crate::devtime::lookup()) {
                    crate::warn!("cannot write {}: {e}", path.display());
                }
            }
        }
        let trailer = format!("end: {} records, {} dropped", self.records, drops);
        self.emit(&apilog::Entry::Comment(trailer));
        self.flush();
        for e in self.errors.drain(..).take(3) {
            crate::warn!("{e}");
        }
        drops
    }

    /// The host-API tally of everything rendered, times in nanoseconds.
    pub fn host_table(&self) -> Vec<crate::report::Row> {
        let mut rows: Vec<crate::report::Row> = self
            .host
            .iter()
            .enumerate()
            .filter(|(_, r)| r[0] > 0)
            .map(|(i, r)| crate::report::Row {
                name: crate::meta::FUNCTIONS.get(i).map_or_else(|| format!("function {i}"), |f| f.name.to_string()),
                calls: r[0],
                errors: r[1],
                total_us: r[2],
                min_us: r[3],
                max_us: r[4],
            })
            .collect();
        rows.sort_by(|a, b| b.total_us.cmp(&a.total_us).then(a.name.cmp(&b.name)));
        rows
    }
}

/// The `.atp` header (FACTS.md §6) from what the trace says of the process.
pub fn atp_header(r: &Reader) -> Vec<(String, String)> {
    let args: Vec<String> = r.info("args").and_then(|a| serde_json::from_str(a).ok()).unwrap_or_default();
    cltap_formats::atp::HeaderInfo {
        profiler_version: format!("cltap {}", env!("CARGO_PKG_VERSION")),
        application: r.info("exe").unwrap_or("").to_string(),
        application_args: args.iter().skip(1).cloned().collect::<Vec<_>>().join(" "),
        working_directory: r.info("cwd").unwrap_or("").to_string(),
        os_version: r.info("os").unwrap_or("Linux").to_string(),
        ..Default::default()
    }
    .to_header()
}

/// The stem of every output file for a trace at `path`: its name without
/// `.cltrace`.
pub fn stem_of(path: &Path) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    name.strip_suffix(".cltrace").unwrap_or(&name).to_string()
}
