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
    /// The counter files (`.csv`, `.occupancy`, `results.csv`).
    pub counters: Option<crate::counters::collect::Request>,
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

/// What rendering counts, per chunk or in all: mergeable, so chunks can be
/// rendered on several threads and their counts added in order.
#[derive(Default)]
struct Tally {
    records: u64,
    /// Per function (by `meta::global_index`: OpenCL's, then HSA's):
    /// calls, errors, total, min, max (ns).
    host: Vec<[u64; 5]>,
    in_flight: Vec<InFlight>,
    /// HSA dispatch records (`KIND_HSA_DISPATCH`).
    hsa_dispatches: u64,
}

impl Tally {
    fn count(&mut self, v: &View<'_>, tb: Timebase) {
        let h = &v.header;
        self.records += 1;
        let f = crate::meta::function(h.kind, h.fn_id);
        if !v.returned() {
            self.in_flight.push(InFlight {
                api: f.map_or_else(|| format!("function {} (kind {})", h.fn_id, h.kind), |f| f.name.to_string()),
                tid: h.tid,
                cmd_id: (h.flags & super::record::FLAG_CMD != 0).then_some(h.cmd_id),
            });
            return;
        }
        if h.kind == super::record::KIND_HSA_DISPATCH {
            self.hsa_dispatches += 1;
            crate::summary::note_hsa_dispatch(
                v.args.get(super::record::DISPATCH_KERNEL_OBJECT).copied().unwrap_or(0),
                h.t0,
                h.t1,
            );
            return;
        }
        // Records that are not calls have no row.
        let Some(id) = crate::meta::global_index(h.kind, h.fn_id) else { return };
        if self.host.len() <= id {
            self.host.resize(id + 1, [0, 0, 0, u64::MAX, 0]);
        }
        let ns = (h.t1.saturating_sub(h.t0) as f64 * 1000.0 / tb.ticks_per_us) as u64;
        let failed = f.is_some_and(|f| !super::capture::succeeded(f, h.ret));
        let r = &mut self.host[id];
        r[0] += 1;
        r[1] += failed as u64;
        // Times come from the file: a damaged one must not wrap the total.
        r[2] = r[2].saturating_add(ns);
        r[3] = r[3].min(ns);
        r[4] = r[4].max(ns);
    }

    fn add(&mut self, o: Tally) {
        self.records += o.records;
        self.hsa_dispatches += o.hsa_dispatches;
        if self.host.len() < o.host.len() {
            self.host.resize(o.host.len(), [0, 0, 0, u64::MAX, 0]);
        }
        for (a, b) in self.host.iter_mut().zip(o.host) {
            a[0] += b[0];
            a[1] += b[1];
            a[2] = a[2].saturating_add(b[2]);
            a[3] = a[3].min(b[3]);
            a[4] = a[4].max(b[4]);
        }
        self.in_flight.extend(o.in_flight);
    }
}

/// One chunk's API-log text and counts, made on any thread.
fn render_text(
    reader: &Reader,
    c: &cltrace::ChunkInfo,
    tb: Timebase,
    options: Options,
    text: bool,
) -> Result<(String, Tally), cltrace::Error> {
    let mut buf = Vec::new();
    reader.chunk_records(c, &mut buf)?;
    // An API-log line is about three times its record: sized once, the text
    // does not grow by doubling. Sized from the bytes read, not from the
    // chunk header's claim.
    let mut out = String::with_capacity(if text { buf.len().saturating_mul(3) + 4096 } else { 0 });
    let mut call = printer::empty_call();
    let mut t = Tally::default();
    reader.walk(c, &buf, |v| {
        t.count(&v, tb);
        if text {
            printer::print(&mut out, &mut call, &v, &tb, options);
        }
    })?;
    Ok((out, t))
}

pub struct Renderer {
    reader: std::sync::Arc<Reader>,
    /// The file header as last read (the rate and the drops change).
    header: cltrace::FileHeader,
    outputs: Outputs,
    out: Option<Box<dyn Write + Send>>,
    timebase: Option<Timebase>,
    line: String,
    call: apilog::Call,
    timeline: Option<super::timeline::Timeline>,
    atp: Option<super::atp::AtpWriter>,
    counters: Option<crate::counters::collect::Collector>,
    opened: bool,
    tally: Tally,
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
            header: reader.header,
            reader: std::sync::Arc::new(reader),
            outputs,
            out: None,
            timebase: None,
            line: String::new(),
            call: printer::empty_call(),
            timeline: None,
            atp: None,
            counters: None,
            opened: false,
            tally: Tally::default(),
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
        if let Ok(h) = self.reader.current_header() {
            self.header = h;
        }
        let ticks_per_us =
            self.header.ticks_per_us().unwrap_or_else(|| tsc::ticks_per_us(std::time::Duration::from_millis(20)));
        Timebase { ticks_per_us }
    }

    pub fn clock(&self, tb: Timebase) -> tsc::HostClock {
        tsc::HostClock { tsc0: self.header.tsc0, mono0: self.header.mono0, ticks_per_us: tb.ticks_per_us }
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
        if let Some(req) = &self.outputs.counters {
            self.counters = Some(crate::counters::collect::Collector::new(req.clone()));
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
        let r = self.reader.clone();
        let mut header = vec![
            format!("cltap {} API log", env!("CARGO_PKG_VERSION")),
            format!("application: {}", r.info("cmdline").unwrap_or("")),
            format!("pid: {pid}"),
            format!("clock: {}", clock_text(self.header.clock)),
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
                crate::warn!(
                    "cannot write {}: {e}; the API log ends here (the trace has every record: `cltap render`)",
                    self.outputs.path("apilog").display()
                );
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

    fn render_chunk(&mut self, c: &cltrace::ChunkInfo) {
        self.open();
        let mut buf = std::mem::take(&mut self.buf);
        let reader = self.reader.clone();
        let r = reader.chunk_records(c, &mut buf).and_then(|_| reader.walk(c, &buf, |v| self.render(&v)));
        if let Err(e) = r {
            self.errors.push(e.to_string());
        }
        // Tools' buffers take the same bytes, in the same order.
        crate::tools::buffer_registry::GLOBAL.rendered(c.index, c.header.tid, &buf);
        self.buf = buf;
        if !self.line.is_empty() {
            self.write_line();
        }
    }

    fn render(&mut self, v: &View<'_>) {
        let tb = self.timebase.expect("opened");
        self.tally.count(v, tb);
        self.devices(v);
        if self.out.is_none() {
            return;
        }
        printer::print(&mut self.line, &mut self.call, v, &tb, self.outputs.options);
        if self.line.len() > 1 << 16 {
            self.write_line();
        }
    }

    /// The timeline's and the `.atp`'s share of a record.
    fn devices(&mut self, v: &View<'_>) {
        // The timeline and the .atp take OpenCL calls, HSA calls and HSA
        // dispatch records.
        if !v.returned() {
            return;
        }
        if matches!(
            v.header.kind,
            super::record::KIND_OPENCL_CALL
                | super::record::KIND_HSA_CALL
                | super::record::KIND_HSA_DISPATCH
                | super::record::KIND_HSA_COUNTERS
        ) {
            if let Some(t) = self.timeline.as_mut() {
                t.record(v);
            }
        }
        if let Some(a) = self.atp.as_mut() {
            a.record(v);
        }
        if let Some(c) = self.counters.as_mut() {
            c.record(v);
        }
    }

    /// For a tool's flush: the complete records of every chunk not rendered
    /// yet (queued, or still held by its thread) go to the tools' buffers
    /// now; the rest of each follows when it is rendered.
    pub fn feed_tools_live(&mut self) {
        let tools = &crate::tools::buffer_registry::GLOBAL;
        if !tools.wanted() {
            return;
        }
        let Ok(chunks) = self.reader.chunks() else { return };
        let me = super::local::thread_id();
        let mut buf = std::mem::take(&mut self.buf);
        for c in chunks.iter().filter(|c| c.header.sealed == 0 || c.header.sealed >= self.next_seal) {
            if self.reader.chunk_records(c, &mut buf).is_ok() {
                // A sealed chunk is written to the end; so is the caller's own.
                tools.live(c.index, c.header.tid, c.header.sealed != 0 || c.header.tid == me, &buf);
            }
        }
        self.buf = buf;
    }

    /// HSA dispatch records rendered.
    pub fn hsa_dispatches(&self) -> u64 {
        self.tally.hsa_dispatches
    }

    /// Calls that had not returned, in the order rendered.
    pub fn in_flight(&self) -> &[InFlight] {
        &self.tally.in_flight
    }

    /// Renders `chunks` in order, the API-log text on `threads` threads.
    /// The timeline and the `.atp` take the records in order on this one.
    fn render_many(&mut self, chunks: &[cltrace::ChunkInfo], threads: usize) {
        if threads <= 1 || chunks.len() < 2 {
            for c in chunks {
                self.render_chunk(c);
            }
            return;
        }
        self.open();
        let tb = self.timebase.expect("opened");
        let options = self.outputs.options;
        let text = self.out.is_some();
        let reader = self.reader.clone();
        let next = std::sync::atomic::AtomicUsize::new(0);
        // Workers stay at most `window` chunks ahead of the writer, so that
        // at most about two texts per thread (a few MiB each) exist at once.
        let window = threads;
        let written = (parking_lot::Mutex::new(0usize), parking_lot::Condvar::new());
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Result<(String, Tally), cltrace::Error>)>();
        std::thread::scope(|s| {
            for _ in 0..threads {
                let tx = tx.clone();
                let (reader, next, written) = (&reader, &next, &written);
                s.spawn(move || loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if k >= chunks.len() {
                        return;
                    }
                    {
                        let mut w = written.0.lock();
                        while k >= *w + window {
                            written.1.wait(&mut w);
                        }
                    }
                    if tx.send((k, render_text(reader, &chunks[k], tb, options, text))).is_err() {
                        return;
                    }
                });
            }
            drop(tx);
            let mut ready = BTreeMap::new();
            let mut k = 0;
            for (i, r) in rx {
                ready.insert(i, r);
                while let Some(r) = ready.remove(&k) {
                    match r {
                        Ok((t, tally)) => {
                            self.tally.add(tally);
                            self.line = t;
                            self.write_line();
                        }
                        Err(e) => self.errors.push(e.to_string()),
                    }
                    let tools = crate::tools::buffer_registry::GLOBAL.wanted();
                    if self.timeline.is_some() || self.atp.is_some() || self.counters.is_some() || tools {
                        let mut buf = std::mem::take(&mut self.buf);
                        let c = chunks[k];
                        if let Err(e) =
                            reader.chunk_records(&c, &mut buf).and_then(|_| reader.walk(&c, &buf, |v| self.devices(&v)))
                        {
                            self.errors.push(e.to_string());
                        }
                        if tools {
                            crate::tools::buffer_registry::GLOBAL.rendered(c.index, c.header.tid, &buf);
                        }
                        self.buf = buf;
                    }
                    k += 1;
                    *written.0.lock() = k;
                    written.1.notify_all();
                }
            }
        });
    }

    /// Flushes what is rendered so far to the API log.
    pub fn flush(&mut self) {
        if let Some(o) = self.out.as_mut() {
            if let Err(e) = o.flush() {
                crate::warn!(
                    "cannot write {}: {e}; the API log ends here (the trace has every record: `cltap render`)",
                    self.outputs.path("apilog").display()
                );
                self.out = None;
            }
        }
    }

    /// Renders everything not rendered yet (sealed chunks in seal order, then
    /// the chunks threads still held, by index), then the device parts and
    /// the trailer. Returns the number of records dropped.
    pub fn finish(&mut self, atp_header: Vec<(String, String)>, threads: usize) -> u64 {
        self.open();
        let chunks = match self.reader.chunks() {
            Ok(c) => c,
            Err(e) => {
                self.errors.push(e.to_string());
                Vec::new()
            }
        };
        // Counts read from a file: summed without wrapping (a damaged or
        // crafted count must not bring the total back to 0).
        let drops_in_chunks = chunks.iter().fold(0u64, |n, c| n.saturating_add(c.header.drops));
        let todo: Vec<cltrace::ChunkInfo> =
            chunks.into_iter().filter(|c| c.header.sealed == 0 || c.header.sealed >= self.next_seal).collect();
        self.render_many(&todo, threads);
        let mut drops = drops_in_chunks;
        if let Ok(h) = self.reader.current_header() {
            self.header = h;
        }
        drops = drops.saturating_add(self.header.drops);
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
        if let Some(c) = self.counters.take() {
            self.counter_files(c);
        }
        // Every record is rendered: the tools get the rest of their buffers
        // and their OnUnloadTool, while the API log (flushed, so they can
        // read it) still has no trailer.
        self.flush();
        crate::tools::toollib_end::end_of_records();
        let trailer = format!("end: {} records, {} dropped", self.tally.records, drops);
        self.emit(&apilog::Entry::Comment(trailer));
        self.flush();
        for e in self.errors.drain(..).take(3) {
            crate::warn!("{e}");
        }
        drops
    }

    /// The counter files of a one-pass request; a pass of a multi-pass one
    /// is kept (`<stem>.pass<N>.json`) for `cltap run` to join.
    fn counter_files(&mut self, c: crate::counters::collect::Collector) {
        use crate::counters::files;
        let mut commands = Vec::new();
        crate::devtime::for_each(|c| commands.push(c));
        let mut pass = c.finish(commands);
        pass.pid = self.reader.header.pid;
        let (dir, stem) = (self.outputs.dir.clone(), self.outputs.stem.clone());
        crate::summary::note_counter_passes(pass.passes);
        if pass.passes > 1 {
            let p = files::pass_path(&dir, &stem, pass.pass);
            if let Err(e) = files::save_pass(&p, &pass) {
                crate::warn!("cannot write {}: {e}", p.display());
            }
            return;
        }
        let process = process_of(&self.reader);
        files::unavailable(&pass);
        if let Err(e) = files::write(&dir, &stem, &pass, &process) {
            crate::warn!("cannot write the counter files in {}: {e}", dir.display());
        }
    }

    /// The host-API tally of everything rendered, times in nanoseconds.
    pub fn host_table(&self) -> Vec<crate::report::Row> {
        let mut rows: Vec<crate::report::Row> = self
            .tally
            .host
            .iter()
            .enumerate()
            .filter(|(_, r)| r[0] > 0)
            .map(|(i, r)| crate::report::Row {
                name: crate::meta::by_global_index(i).map_or_else(|| format!("function {i}"), |f| f.name.to_string()),
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

/// What the trace says of the process, for the files' headers.
pub fn process_of(r: &Reader) -> crate::counters::files::Process {
    let args: Vec<String> = r.info("args").and_then(|a| serde_json::from_str(a).ok()).unwrap_or_default();
    crate::counters::files::Process {
        application: r.info("exe").unwrap_or("").to_string(),
        args: args.iter().skip(1).cloned().collect::<Vec<_>>().join(" "),
        cwd: r.info("cwd").unwrap_or("").to_string(),
        os: r.info("os").unwrap_or("Linux").to_string(),
    }
}

/// The `.atp` header (docs/platform-facts.md#radeon-compute-profiler-files) from what the trace says of the process.
pub fn atp_header(r: &Reader) -> Vec<(String, String)> {
    let p = process_of(r);
    cltap_formats::atp::HeaderInfo {
        profiler_version: format!("cltap {}", env!("CARGO_PKG_VERSION")),
        application: p.application,
        application_args: p.args,
        working_directory: p.cwd,
        os_version: p.os,
        ..Default::default()
    }
    .to_header()
}

/// The stem a trace names for its output files, when it is a plain file
/// name: not empty, not `.` or `..`, without `/` or NUL. The trace may come
/// from anywhere; what it names must not lead outside the output folder.
pub fn plain_stem(stem: &str) -> Option<&str> {
    (!stem.is_empty() && stem != "." && stem != ".." && !stem.contains(['/', '\0'])).then_some(stem)
}

/// The stem of every output file for a trace at `path`: its name without
/// `.cltrace`.
pub fn stem_of(path: &Path) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    name.strip_suffix(".cltrace").unwrap_or(&name).to_string()
}
