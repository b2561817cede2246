//! Rendering on several threads: each worker reads a chunk, formats its
//! API-log text and fills the sinks' parts from its records, writes the
//! text at its place in the log's file ([`placed`]), and hands the rest to
//! the driver's thread, which takes the chunks in order. A chunk a worker
//! could not read through (damaged) is left to the driver, which renders it
//! record by record as on one thread.

use super::placed::{self, Ledger, Place, TextFile};
use super::printer::{self, Options, Timebase};
use super::sink::{Kinds, NewPart, Part};
use cltap_formats::cltrace::{ChunkInfo, Reader};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What the workers do besides reading.
pub struct Plan {
    /// Format the API log's text with these.
    pub options: Option<Options>,
    /// Write that text at its place in this file (else it goes to the
    /// driver).
    pub file: Option<TextFile>,
    /// Per sink (by index): the kinds it takes and its parts' maker.
    pub parts: Vec<(usize, Kinds, NewPart)>,
}

/// A chunk's text.
pub enum Text {
    /// None was formatted.
    None,
    /// Formatted, for the driver to write: the text and its record count.
    Given(String, u64),
    /// Written at its place: its bytes, or how the write failed.
    Placed(Result<u64, placed::Failed>),
    /// Formatted but not written: the log had stopped.
    Dropped,
    /// Written in part at its place, the log's limit reached: its bytes
    /// (or how the write failed) and the records whose text it holds.
    Cut(Result<u64, placed::Failed>, u64),
}

/// Per sink (by index), a chunk's part.
pub type Parts = Vec<(usize, Box<dyn Part>)>;

/// A chunk a worker went through.
pub struct Done {
    pub records: u64,
    pub text: Text,
    pub parts: Parts,
}

/// What the driver's thread did with a chunk.
pub struct Taken {
    /// Where the log's file ends after the chunk (`None`: it stopped, or
    /// there is no file).
    pub text_end: Option<u64>,
    /// A text's buffer, back for another chunk's.
    pub spare: Option<String>,
}

/// Renders `chunks` on `threads` workers; `take` gets each chunk in order
/// on this thread, `None` for a chunk it must render itself (damaged).
pub fn run(
    reader: &Reader,
    chunks: &[ChunkInfo],
    threads: usize,
    tb: Timebase,
    plan: &Plan,
    mut take: impl FnMut(usize, Option<Done>) -> Taken,
) {
    let next = AtomicUsize::new(0);
    // Workers stay at most `window` chunks ahead of the driver, so that at
    // most about two texts per thread (a few MiB each) exist at once.
    let window = threads;
    let taken = (parking_lot::Mutex::new(0usize), parking_lot::Condvar::new());
    let ledger = plan.file.as_ref().map(|f| Ledger::new(f.at, f.limit));
    // Texts' buffers, back from the driver for the next chunks.
    let spare = parking_lot::Mutex::new(Vec::<String>::new());
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Option<Done>)>();
    std::thread::scope(|s| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, taken, spare, ledger) = (&next, &taken, &spare, ledger.as_ref());
            s.spawn(move || {
                // The chunk's records, and its text, in the same memory
                // each time: fresh memory has every page faulted in.
                let mut buf = Vec::new();
                let mut text = String::new();
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    if k >= chunks.len() {
                        return;
                    }
                    {
                        let mut t = taken.0.lock();
                        while k >= *t + window {
                            taken.1.wait(&mut t);
                        }
                    }
                    if plan.options.is_some() && plan.file.is_none() && text.capacity() == 0 {
                        text = spare.lock().pop().unwrap_or_default();
                    }
                    let done = work(reader, &chunks[k], tb, plan, &mut buf, &mut text).map(|(records, parts)| {
                        let text = match (&plan.options, &plan.file, ledger) {
                            (None, ..) => Text::None,
                            (Some(o), Some(f), Some(l)) => place(l, k, &f.file, &mut text, |room, text| {
                                cut(reader, &chunks[k], &buf, tb, o, room, text)
                            }),
                            (Some(_), ..) => Text::Given(std::mem::take(&mut text), records),
                        };
                        Done { records, text, parts }
                    });
                    if tx.send((k, done)).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        let mut ready = BTreeMap::new();
        let mut k = 0;
        for (i, r) in rx {
            ready.insert(i, r);
            while let Some(r) = ready.remove(&k) {
                let damaged = r.is_none();
                let t = take(k, r);
                if let Some(b) = t.spare.filter(|b| b.capacity() > 0) {
                    spare.lock().push(b);
                }
                if let Some(l) = &ledger {
                    match t.text_end {
                        Some(end) if damaged => l.reach(k, end),
                        Some(_) => {}
                        None => l.stop(),
                    }
                }
                k += 1;
                *taken.0.lock() = k;
                taken.1.notify_all();
            }
        }
    });
}

/// Writes a chunk's `text` at its place, once every earlier chunk's is
/// known; the text is emptied for the next chunk. At the limit, `cut`
/// makes the text of the records that fit in the room left, and counts
/// them.
fn place(
    ledger: &Ledger,
    k: usize,
    file: &std::fs::File,
    text: &mut String,
    cut: impl FnOnce(u64, &mut String) -> u64,
) -> Text {
    let len = text.len() as u64;
    let r = match ledger.place(k, len) {
        Some(Place::At(at)) => Text::Placed(ledger.write(file, at, text.as_bytes()).map(|()| len)),
        Some(Place::Cut { at, room }) => {
            let records = cut(room, text);
            let n = text.len() as u64;
            Text::Cut(ledger.write(file, at, text.as_bytes()).map(|()| n), records)
        }
        None => Text::Dropped,
    };
    text.clear();
    r
}

/// The text of chunk `c`'s first records whose text fits in `room` bytes
/// (formatted again, once per render: only the chunk at the limit), into
/// `text`; returns how many.
fn cut(reader: &Reader, c: &ChunkInfo, buf: &[u8], tb: Timebase, o: &Options, room: u64, text: &mut String) -> u64 {
    text.clear();
    let (mut n, mut full) = (0, false);
    let _ = reader.walk(c, buf, |v| {
        if full {
            return;
        }
        let before = text.len();
        printer::print(text, v, &tb, o);
        if text.len() as u64 > room {
            text.truncate(before);
            full = true;
        } else {
            n += 1;
        }
    });
    n
}

/// One chunk read through on any thread: its record count and parts, its
/// API-log text (when the plan formats one) in `text`; `None` where the
/// chunk could not be read to its end. `buf` holds the chunk's records.
fn work(
    reader: &Reader,
    c: &ChunkInfo,
    tb: Timebase,
    plan: &Plan,
    buf: &mut Vec<u8>,
    text: &mut String,
) -> Option<(u64, Parts)> {
    reader.chunk_bytes(c, buf).ok()?;
    text.clear();
    if plan.options.is_some() {
        // An API-log line is about three times its record: sized once, the
        // text does not grow by doubling. Sized from the bytes read, not
        // from the chunk header's claim.
        text.reserve(buf.len().saturating_mul(3) + 4096);
    }
    let mut parts: Vec<(usize, Kinds, Box<dyn Part>)> = plan.parts.iter().map(|(i, k, new)| (*i, *k, new())).collect();
    let mut n = 0;
    reader
        .walk(c, buf, |v| {
            n += 1;
            if let Some(o) = &plan.options {
                printer::print(text, v, &tb, o);
            }
            for (_, k, p) in parts.iter_mut() {
                if k.has(v.header.kind) {
                    p.record(v);
                }
            }
        })
        .ok()?;
    Some((n, parts.into_iter().map(|(i, _, p)| (i, p)).collect()))
}
