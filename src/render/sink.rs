//! The one trait every output implements. A sink says which record kinds it
//! takes, receives them in the trace's render order (seal order, each
//! thread's records in the order it made them), and at the end writes its
//! files and adds what it learnt to the run's [`Results`], which the summary
//! reads. A sink never reaches another sink nor a global of the renderer.

use crate::devtime::{Commands, QueueOffsets};
use crate::report::Row;
use crate::trace::tsc::HostClock;
use cltap_formats::cltrace::record::View;
use cltap_formats::cltrace::{ChunkInfo, Reader};
use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

/// A chunk's records in the wide layout, made when a sink first asks: the
/// renderer reads records straight from the chunk's bytes, and only the
/// tools' buffers (when a tool takes records) keep them whole.
pub struct ChunkRecords<'a> {
    reader: &'a Reader,
    chunk: &'a ChunkInfo,
    /// `None`: the chunk was not read on this thread (every record went to
    /// other threads), and is read only if a sink asks.
    bytes: Option<&'a [u8]>,
    wide: std::cell::OnceCell<Vec<u8>>,
    /// Memory to widen into, from the chunk before.
    spare: std::cell::Cell<Vec<u8>>,
}

impl<'a> ChunkRecords<'a> {
    /// The records of chunk `chunk`, its `bytes` as stored if it was read;
    /// `spare`: memory for the wide records.
    pub fn new(reader: &'a Reader, chunk: &'a ChunkInfo, bytes: Option<&'a [u8]>, spare: Vec<u8>) -> Self {
        ChunkRecords { reader, chunk, bytes, wide: Default::default(), spare: std::cell::Cell::new(spare) }
    }

    /// The records in the wide layout ([`Reader::chunk_records`]).
    pub fn wide(&self) -> &[u8] {
        self.wide.get_or_init(|| {
            let mut w = self.spare.take();
            match self.bytes {
                Some(b) => self.reader.widen(self.chunk, b, &mut w),
                // Damage was reported by the walk that gave the records;
                // what could be read up to it is kept, as above.
                None => {
                    let _ = self.reader.chunk_records(self.chunk, &mut w);
                }
            }
            w
        })
    }

    /// The memory back, for the next chunk.
    pub fn into_spare(self) -> Vec<u8> {
        self.wide.into_inner().unwrap_or_else(|| self.spare.into_inner())
    }
}

/// A set of record kinds (`KIND_*`), one bit each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Kinds(pub u64);

impl Kinds {
    pub const ALL: Kinds = Kinds(u64::MAX);
    pub const NONE: Kinds = Kinds(0);

    pub const fn of(kinds: &[u16]) -> Kinds {
        let mut bits = 0u64;
        let mut i = 0;
        while i < kinds.len() {
            bits |= 1 << kinds[i];
            i += 1;
        }
        Kinds(bits)
    }

    #[inline]
    pub fn has(self, kind: u16) -> bool {
        kind < 64 && self.0 & (1 << kind) != 0
    }
}

/// What a sink is made from: the trace, and its clock once its rate is known.
pub struct Open<'a> {
    pub reader: &'a Reader,
    pub outputs: &'a super::outputs::Outputs,
    pub timebase: super::printer::Timebase,
    pub clock: HostClock,
    /// HSA system timestamps onto `clock`'s nanoseconds.
    pub hsa: super::hsa_time::HsaClock,
}

/// What every sink may use at the end.
pub struct End<'a> {
    pub reader: &'a Reader,
    pub outputs: &'a super::outputs::Outputs,
    pub clock: HostClock,
    /// Records rendered, and records dropped during the run.
    pub records: u64,
    pub drops: u64,
    /// Bytes of records that could not be rendered (a trace damaged or cut
    /// short).
    pub lost: u64,
    offsets: OnceLock<QueueOffsets>,
    commands: OnceLock<Arc<Commands>>,
}

impl<'a> End<'a> {
    pub fn new(
        reader: &'a Reader,
        outputs: &'a super::outputs::Outputs,
        clock: HostClock,
        records: u64,
        drops: u64,
    ) -> Self {
        End { reader, outputs, clock, records, drops, lost: 0, offsets: OnceLock::new(), commands: OnceLock::new() }
    }

    /// Each device queue's offset onto the host clock, measured once for
    /// every sink that draws device commands.
    pub fn offsets(&self) -> &QueueOffsets {
        self.offsets.get_or_init(|| self.commands().offsets(|t| self.clock.ns(t)))
    }

    /// The timed commands the trace holds (set by the first sink to
    /// finish, `render::device`; none before).
    pub fn commands(&self) -> &Commands {
        static NONE: OnceLock<Commands> = OnceLock::new();
        match self.commands.get() {
            Some(c) => c,
            None => NONE.get_or_init(Commands::default),
        }
    }

    /// Hands the trace's timed commands to the sinks that finish after.
    pub fn set_commands(&self, c: Arc<Commands>) {
        let _ = self.commands.set(c);
    }
}

/// A call that had not returned when the process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InFlight {
    pub api: String,
    pub tid: u32,
    pub cmd_id: Option<u64>,
}

/// An output that stopped at its size limit, and what it left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limited {
    pub path: std::path::PathBuf,
    pub limit: u64,
    /// How many it left out, of `total`, and of what (`records`, `events`).
    pub left_out: u64,
    pub total: u64,
    pub what: &'static str,
}

impl Limited {
    /// The one line that says so, on stderr.
    pub fn text(&self) -> String {
        self.said(&self.path.display().to_string())
    }

    /// The same in the file itself, which names itself without its folder
    /// (a rendering elsewhere writes the same bytes).
    pub fn text_in_file(&self) -> String {
        self.said(&self.path.file_name().unwrap_or_default().to_string_lossy())
    }

    fn said(&self, name: &str) -> String {
        format!(
            "{name} stopped at its limit of {} bytes (CLTAP_OUTPUT_LIMIT): {} of {} {} not written; the trace keeps them (`cltap render --output-limit 0 --output DIR TRACE`)",
            self.limit,
            self.left_out,
            self.total,
            self.what
        )
    }
}

/// What the sinks learnt, for the summary.
#[derive(Debug, Clone, Default)]
pub struct Results {
    /// Records rendered, and dropped during the run.
    pub records: u64,
    pub drops: u64,
    /// Bytes of records that could not be rendered (a trace damaged or cut
    /// short).
    pub lost: u64,
    /// The host-API tally, times in nanoseconds, most time first.
    pub host: Vec<Row>,
    /// Calls that had not returned, in render order.
    pub in_flight: Vec<InFlight>,
    /// HSA dispatch records.
    pub hsa_dispatches: u64,
    /// Timed HSA dispatches per kernel object: launches, total, min, max (ns).
    pub hsa_kernel_times: BTreeMap<u64, [u64; 4]>,
    /// Passes the counter request needs (`None`: no counters asked for).
    pub counter_passes: Option<u32>,
    /// The memory trace and leak check (`None`: neither asked for).
    pub memory: Option<crate::memory::Report>,
    /// The collection windows recorded, in order (none without a window
    /// control).
    pub windows: Vec<crate::window::spans::Span>,
    /// Files written, by the sinks that wrote them.
    pub files: Vec<std::path::PathBuf>,
    /// Files that stopped at `CLTAP_OUTPUT_LIMIT` ([`Limited`]).
    pub limited: Vec<Limited>,
    /// The timed commands the trace holds.
    pub device: Option<Arc<Commands>>,
    /// What the process wrote of its end (`None`: it did not end normally,
    /// or wrote no summary).
    pub end: Option<super::end_facts::EndFacts>,
    /// The event checks' findings, the failed commands finish-after-enqueue
    /// found, and whether histograms were asked for.
    pub controls: crate::controls::Report,
}

/// A share of a sink's per-record work that other threads do a chunk at a
/// time: filled from one chunk's records (those of the sink's kinds) on any
/// thread, then merged by the sink in chunk order on the driver's.
pub trait Part: Send {
    fn record(&mut self, v: &View<'_>);

    /// For the sink's [`Sink::merge`], which knows its part's type.
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any>;
}

/// Makes an empty [`Part`], on any thread.
pub type NewPart = std::sync::Arc<dyn Fn() -> Box<dyn Part> + Send + Sync>;

pub trait Sink: Send {
    /// The record kinds it takes; it is given no other.
    fn kinds(&self) -> Kinds;

    /// One record, in render order.
    fn record(&mut self, v: &View<'_>);

    /// A chunk whose records were all given, with its records whole (for
    /// sinks that pass records on as they are).
    fn chunk(&mut self, _c: &ChunkInfo, _records: &ChunkRecords<'_>) {}

    /// For sinks whose text other threads can format ahead of time: the
    /// options to format a chunk's records with. The text of such a chunk
    /// comes through [`Sink::text`] instead of [`Sink::record`].
    fn formats_text(&self) -> Option<super::printer::Options> {
        None
    }

    /// A chunk's text formatted on another thread, with its record count.
    /// Returns an emptied buffer for the next chunk's text: text made in
    /// fresh memory each time had every page of it faulted in.
    fn text(&mut self, text: String, _records: u64) -> String {
        text
    }

    /// For a sink whose records need not come in order on one thread: makes
    /// the parts other threads fill. A chunk's part then comes through
    /// [`Sink::merge`] instead of its records through [`Sink::record`].
    fn parts(&self) -> Option<NewPart> {
        None
    }

    /// One chunk's part, in chunk order.
    fn merge(&mut self, _part: Box<dyn Part>) {}

    /// For a sink that formats text ahead: the file its text goes on, for
    /// other threads to write each chunk's text at its place themselves;
    /// the sink's own next text goes at `at`.
    fn text_file(&self) -> Option<super::placed::TextFile> {
        None
    }

    /// A chunk's text, `Ok(bytes)` written by another thread at the
    /// sink's `at` (or how its write failed), with its record count.
    fn text_placed(&mut self, _written: Result<u64, super::placed::Failed>, _records: u64) {}

    /// A chunk's text was formatted but not placed: the file stopped (at
    /// its limit, or failed).
    fn text_dropped(&mut self) {}

    /// Writes what it holds so far (during the run, and before any sink
    /// finishes).
    fn flush(&mut self) {}

    /// After the last record: writes its files and adds to `results`.
    fn finish(self: Box<Self>, end: &End<'_>, results: &mut Results);
}
