//! Drives the sinks over the binary trace: chunks in seal order, each
//! record to every sink that takes its kind, then each sink's end. The same
//! code runs in the process (a background thread, then the exit) and after
//! it (`cltap run` once the application died, `cltap render` on a trace
//! left behind), and it reads the same file either way, so the same trace
//! gives the same bytes.

use super::outputs::Outputs;
use super::printer::{self, Options, Timebase};
use super::sink::{ChunkRecords, End, InFlight, Kinds, Open, Results, Sink};
use crate::trace::tsc;
use cltap_formats::cltrace::{self, Reader};
use std::collections::BTreeMap;

pub struct Renderer {
    reader: std::sync::Arc<Reader>,
    /// The file header as last read (the rate and the drops change).
    header: cltrace::FileHeader,
    outputs: Outputs,
    timebase: Option<Timebase>,
    /// Made at the first chunk, once the clock's rate is known.
    sinks: Vec<Box<dyn Sink>>,
    opened: bool,
    records: u64,
    results: Results,
    /// Seal numbers below this are rendered; later ones wait here (by seal
    /// number: chunk index) until their turn.
    next_seal: u64,
    waiting: BTreeMap<u64, u64>,
    buf: Vec<u8>,
    /// The chunk's records widened, for the sinks that keep records.
    wide: Vec<u8>,
    errors: Vec<String>,
}

impl Renderer {
    pub fn new(reader: Reader, outputs: Outputs) -> Renderer {
        Renderer {
            header: reader.header,
            reader: std::sync::Arc::new(reader),
            outputs,
            timebase: None,
            sinks: Vec::new(),
            opened: false,
            records: 0,
            results: Results::default(),
            next_seal: 1,
            waiting: BTreeMap::new(),
            buf: Vec::new(),
            wide: Vec::new(),
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
        let cx = Open { reader: &self.reader, outputs: &self.outputs, timebase: tb, clock: self.clock(tb) };
        self.sinks = super::select::select(&self.outputs, &cx);
    }

    /// A chunk was sealed: render it in seal order.
    pub fn sealed(&mut self, seal: u64, index: u64) {
        self.waiting.insert(seal, index);
        while let Some(index) = self.waiting.remove(&self.next_seal) {
            self.next_seal += 1;
            match self.reader.chunk(index) {
                Ok(c) => {
                    self.render_chunk(&c, None);
                }
                Err(e) => self.errors.push(e.to_string()),
            }
        }
    }

    /// Gives one chunk's records to the sinks. `text`: the chunk's text,
    /// already formatted on another thread, for the sinks that format text;
    /// returns a buffer for another chunk's text.
    fn render_chunk(&mut self, c: &cltrace::ChunkInfo, mut text: Option<(String, u64)>) -> Option<String> {
        self.open();
        let mut buf = std::mem::take(&mut self.buf);
        let reader = self.reader.clone();
        let sinks = &mut self.sinks;
        let records = &mut self.records;
        // A sink whose text was formatted ahead takes that text instead.
        let pre = text.is_some();
        let wants: Vec<Kinds> =
            sinks.iter().map(|s| if pre && s.formats_text().is_some() { Kinds::NONE } else { s.kinds() }).collect();
        let r = reader.chunk_bytes(c, &mut buf).and_then(|_| {
            reader.walk(c, &buf, |v| {
                *records += 1;
                for (s, k) in sinks.iter_mut().zip(&wants) {
                    if k.has(v.header.kind) {
                        s.record(v);
                    }
                }
            })
        });
        if let Err(e) = r {
            self.errors.push(e.to_string());
        }
        let records = ChunkRecords::new(&reader, c, &buf, std::mem::take(&mut self.wide));
        let mut spent = None;
        for s in self.sinks.iter_mut() {
            if let Some((t, n)) = text.take_if(|_| s.formats_text().is_some()) {
                spent = Some(s.text(t, n));
            }
            s.chunk(c, &records);
        }
        self.wide = records.into_spare();
        self.buf = buf;
        spent
    }

    /// For a tool's flush: see [`super::tools::feed_live`]. `me`: the
    /// calling thread's trace id.
    pub fn feed_tools_live(&mut self, me: u32) {
        let mut buf = std::mem::take(&mut self.buf);
        super::tools::feed_live(&self.reader, self.next_seal, me, &mut buf);
        self.buf = buf;
    }

    /// What the sinks learnt (complete once [`Self::finish`] ran).
    pub fn results(&self) -> &Results {
        &self.results
    }

    /// HSA dispatch records rendered.
    pub fn hsa_dispatches(&self) -> u64 {
        self.results.hsa_dispatches
    }

    /// Calls that had not returned, in the order rendered.
    pub fn in_flight(&self) -> &[InFlight] {
        &self.results.in_flight
    }

    /// The host-API tally of everything rendered, times in nanoseconds.
    pub fn host_table(&self) -> Vec<crate::report::Row> {
        self.results.host.clone()
    }

    /// Renders `chunks` in order; a sink's text is formatted on `threads`
    /// threads, every other share of a record taken in order on this one.
    fn render_many(&mut self, chunks: &[cltrace::ChunkInfo], threads: usize) {
        self.open();
        let options = self.sinks.iter().find_map(|s| s.formats_text());
        let (Some(options), true) = (options, threads > 1 && chunks.len() > 1) else {
            for c in chunks {
                self.render_chunk(c, None);
            }
            return;
        };
        let tb = self.timebase.expect("opened");
        let reader = self.reader.clone();
        let next = std::sync::atomic::AtomicUsize::new(0);
        // Workers stay at most `window` chunks ahead of the writer, so that
        // at most about two texts per thread (a few MiB each) exist at once.
        let window = threads;
        let written = (parking_lot::Mutex::new(0usize), parking_lot::Condvar::new());
        // Texts' buffers, back from the sink for the next chunks.
        let spare = parking_lot::Mutex::new(Vec::<String>::new());
        let (tx, rx) = std::sync::mpsc::channel::<(usize, Result<(String, u64), cltrace::Error>)>();
        std::thread::scope(|s| {
            for _ in 0..threads {
                let tx = tx.clone();
                let (reader, next, written, spare) = (&reader, &next, &written, &spare);
                // The chunk's records, read into the same memory each time.
                let mut records = Vec::new();
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
                    let out = spare.lock().pop().unwrap_or_default();
                    if tx.send((k, chunk_text(reader, &chunks[k], tb, options, &mut records, out))).is_err() {
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
                    let spent = match r {
                        Ok(t) => self.render_chunk(&chunks[k], Some(t)),
                        // A damaged chunk: its records up to the damage
                        // are taken here, on one thread, as without
                        // workers (the walk reports the damage).
                        Err(_) => self.render_chunk(&chunks[k], None),
                    };
                    if let Some(b) = spent.filter(|b| b.capacity() > 0) {
                        spare.lock().push(b);
                    }
                    k += 1;
                    *written.0.lock() = k;
                    written.1.notify_all();
                }
            }
        });
    }

    /// Writes out what the sinks hold so far.
    pub fn flush(&mut self) {
        for s in self.sinks.iter_mut() {
            s.flush();
        }
    }

    /// Renders everything not rendered yet (sealed chunks in seal order, then
    /// the chunks threads still held, by index), then ends every sink in
    /// order. Returns the number of records dropped.
    pub fn finish(&mut self, threads: usize) -> u64 {
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
        if let Ok(h) = self.reader.current_header() {
            self.header = h;
        }
        let drops = drops_in_chunks.saturating_add(self.header.drops);
        let clock = self.clock(self.timebase.unwrap_or(Timebase { ticks_per_us: 1000.0 }));
        let end = End::new(&self.reader, &self.outputs, clock, self.records, drops);
        let mut results = Results { records: self.records, drops, ..Results::default() };
        // Every sink's text is out before any sink ends (the tools, which
        // end before the API log's trailer, may read it).
        for s in self.sinks.iter_mut() {
            s.flush();
        }
        for s in std::mem::take(&mut self.sinks) {
            s.finish(&end, &mut results);
        }
        self.results = results;
        for e in self.errors.drain(..).take(3) {
            crate::warn!("{e}");
        }
        drops
    }
}

/// One chunk's API-log text and record count, made on any thread, in
/// `out`'s memory (its text cleared); `buf` holds the chunk's records.
fn chunk_text(
    reader: &Reader,
    c: &cltrace::ChunkInfo,
    tb: Timebase,
    options: Options,
    buf: &mut Vec<u8>,
    mut out: String,
) -> Result<(String, u64), cltrace::Error> {
    reader.chunk_bytes(c, buf)?;
    // An API-log line is about three times its record: sized once, the text
    // does not grow by doubling. Sized from the bytes read, not from the
    // chunk header's claim.
    out.clear();
    out.reserve(buf.len().saturating_mul(3) + 4096);
    let mut n = 0;
    reader.walk(c, buf, |v| {
        n += 1;
        printer::print(&mut out, v, &tb, options);
    })?;
    Ok((out, n))
}
