//! Drives the sinks over the binary trace: chunks in seal order, each
//! record to every sink that takes its kind, then each sink's end. The same
//! code runs in the process (a background thread, then the exit) and after
//! it (`cltap run` once the application died, `cltap render` on a trace
//! left behind), and it reads the same file either way, so the same trace
//! gives the same bytes.

use super::outputs::Outputs;
use super::parallel;
use super::printer::Timebase;
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
    /// Bytes of records that could not be rendered: chunks damaged or cut
    /// short (a copied or truncated file).
    lost: u64,
    /// Learnt from the header before each chunk until known.
    hsa: super::hsa_time::HsaClock,
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
            lost: 0,
            hsa: Default::default(),
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
        let cx = Open {
            reader: &self.reader,
            outputs: &self.outputs,
            timebase: tb,
            clock: self.clock(tb),
            hsa: self.hsa.clone(),
        };
        self.sinks = super::select::select(&self.outputs, &cx);
    }

    /// A chunk was sealed: render it in seal order.
    pub fn sealed(&mut self, seal: u64, index: u64) {
        self.waiting.insert(seal, index);
        while let Some(index) = self.waiting.remove(&self.next_seal) {
            self.next_seal += 1;
            match self.reader.chunk(index) {
                Ok(c) => {
                    self.render_chunk(&c);
                }
                Err(e) => self.errors.push(e.to_string()),
            }
        }
    }

    /// Gives one chunk's records to the sinks, in order on this thread.
    fn render_chunk(&mut self, c: &cltrace::ChunkInfo) {
        self.open();
        let wants: Vec<Kinds> = self.sinks.iter().map(|s| s.kinds()).collect();
        self.records += self.walk_chunk(c, &wants);
    }

    /// Reads chunk `c` and gives each record to the sinks whose `wants`
    /// take its kind (reading nothing when none takes any), then the chunk
    /// to every sink; returns the records walked.
    fn walk_chunk(&mut self, c: &cltrace::ChunkInfo, wants: &[Kinds]) -> u64 {
        let mut buf = std::mem::take(&mut self.buf);
        let reader = self.reader.clone();
        let sinks = &mut self.sinks;
        let mut records = 0;
        let read = wants.iter().any(|k| *k != Kinds::NONE);
        if read {
            self.hsa.learn(&reader);
            // A chunk cut short is still walked: its whole records are kept.
            let got = reader.chunk_bytes(c, &mut buf);
            let walked = reader.walk(c, &buf, |v| {
                records += 1;
                for (s, k) in sinks.iter_mut().zip(wants) {
                    if k.has(v.header.kind) {
                        s.record(v);
                    }
                }
            });
            let end = c.offset + (cltrace::CHUNK_HEADER as u64).saturating_add(c.header.used);
            match (got, walked) {
                (Ok(()), Ok(_)) => {}
                (Err(e), Ok(w)) => {
                    self.lost = self.lost.saturating_add(w.lost);
                    self.errors.push(format!(
                        "{e}; its {records} whole records are kept, the last {} bytes of records lost",
                        w.lost
                    ));
                }
                // Damage: the records from it to the chunk's end are lost.
                (got, Err(e)) => {
                    self.lost = self.lost.saturating_add(end.saturating_sub(e.offset));
                    // One line for the chunk, whatever is wrong with it.
                    self.errors.push(match got {
                        Ok(()) => e.to_string(),
                        Err(g) => format!("{g}, and damaged before the cut: {e}"),
                    });
                }
            }
        }
        let whole = ChunkRecords::new(&reader, c, read.then_some(&buf[..]), std::mem::take(&mut self.wide));
        for s in self.sinks.iter_mut() {
            s.chunk(c, &whole);
        }
        self.wide = whole.into_spare();
        self.buf = buf;
        records
    }

    /// A chunk a worker went through: its parts and text to their sinks
    /// (`text_sink` takes the text), its records to the sinks that take
    /// them only in order.
    fn take_done(&mut self, c: &cltrace::ChunkInfo, done: parallel::Done, text_sink: Option<usize>) -> Option<String> {
        let mut wants: Vec<Kinds> = self.sinks.iter().map(|s| s.kinds()).collect();
        for (i, p) in done.parts {
            self.sinks[i].merge(p);
            wants[i] = Kinds::NONE;
        }
        let mut spare = None;
        if let Some(i) = text_sink {
            if !matches!(done.text, parallel::Text::None) {
                wants[i] = Kinds::NONE;
            }
            match done.text {
                parallel::Text::None => {}
                parallel::Text::Given(t, n) => spare = Some(self.sinks[i].text(t, n)),
                parallel::Text::Placed(r) => self.sinks[i].text_placed(r, done.records),
                // Formatted after the log stopped: nothing more goes in it.
                parallel::Text::Dropped => self.sinks[i].text_dropped(),
                parallel::Text::Cut(r, n) => {
                    self.sinks[i].text_placed(r, n);
                    self.sinks[i].text_dropped();
                }
            }
        }
        self.walk_chunk(c, &wants);
        self.records += done.records;
        spare
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

    /// Renders `chunks` in order: on `threads` workers the API log's text
    /// (written at its place in the file) and the parts of the sinks that
    /// offer them; on this thread, in order, what the other sinks take.
    fn render_many(&mut self, chunks: &[cltrace::ChunkInfo], threads: usize) {
        self.open();
        let options = self.sinks.iter().find_map(|s| s.formats_text());
        if let Some(k) = options.as_ref().and_then(|o| o.kernels.as_ref()) {
            // Workers format chunks in any order: the kernels' names are
            // learnt from every chunk first.
            self.learn_kernels(chunks, k);
        }
        let plan = parallel::Plan {
            file: options.is_some().then(|| self.sinks.iter().find_map(|s| s.text_file())).flatten(),
            options,
            parts: self
                .sinks
                .iter()
                .enumerate()
                .filter_map(|(i, s)| Some((i, s.kinds(), s.parts()?)))
                .filter(|(_, k, _)| *k != Kinds::NONE)
                .collect(),
        };
        if threads <= 1 || chunks.len() <= 1 || (plan.options.is_none() && plan.parts.is_empty()) {
            for c in chunks {
                self.render_chunk(c);
            }
            return;
        }
        let tb = self.timebase.expect("opened");
        let reader = self.reader.clone();
        let text_sink = self.sinks.iter().position(|s| s.formats_text().is_some());
        parallel::run(&reader, chunks, threads, tb, &plan, |k, done| {
            let spare = match done {
                Some(d) => self.take_done(&chunks[k], d, text_sink),
                // A damaged chunk: its records up to the damage are taken
                // here, on one thread, as without workers (the walk
                // reports the damage).
                None => {
                    self.render_chunk(&chunks[k]);
                    None
                }
            };
            let text_end = text_sink.and_then(|i| self.sinks[i].text_file()).map(|f| f.at);
            parallel::Taken { text_end, spare }
        });
    }

    /// Reads `chunks` for the calls that made kernels (their names for a
    /// decoded API log). A chunk that cannot be read is left: its records'
    /// kernels stay unnamed, and the render reports the damage.
    fn learn_kernels(&self, chunks: &[cltrace::ChunkInfo], k: &super::kernel_names::KernelNames) {
        let mut buf = Vec::new();
        for c in chunks {
            let _ = self.reader.chunk_bytes(c, &mut buf);
            let _ = self.reader.walk(c, &buf, |v| k.learn(v));
        }
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
        let mut end = End::new(&self.reader, &self.outputs, clock, self.records, drops);
        end.lost = self.lost;
        let mut results = Results { records: self.records, drops, lost: self.lost, ..Results::default() };
        // Every sink's text is out before any sink ends (the tools, which
        // end before the API log's trailer, may read it).
        for s in self.sinks.iter_mut() {
            s.flush();
        }
        for s in std::mem::take(&mut self.sinks) {
            s.finish(&end, &mut results);
        }
        for l in &results.limited {
            crate::warn!("{}", l.text());
        }
        self.results = results;
        for e in self.errors.drain(..).take(3) {
            crate::warn!("{e}");
        }
        drops
    }
}
