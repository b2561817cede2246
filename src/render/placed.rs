//! Text written at its place in a file, from any thread: each chunk's text
//! goes where the texts of every chunk before it end ([`Ledger`]), so
//! several threads write one file at once and it reads as if written in
//! order.

use parking_lot::{Condvar, Mutex};
use std::collections::BTreeMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

/// A file written at places, and where its owner's next text goes.
#[derive(Clone)]
pub struct TextFile {
    pub file: Arc<File>,
    pub at: u64,
    /// `CLTAP_OUTPUT_LIMIT`: no chunk's text goes past it.
    pub limit: Option<u64>,
}

/// A write that failed, and how much of it to keep: the bytes up to the
/// end of the last line written in full. The file's owner cuts the file
/// back to their end, so it never holds part of a line, nor a hole where
/// a later text was written.
#[derive(Debug)]
pub struct Failed {
    pub error: std::io::Error,
    pub whole: u64,
}

/// Writes `bytes` at `offset`.
pub fn write_at(file: &File, offset: u64, bytes: &[u8]) -> Result<(), Failed> {
    let mut done = 0;
    while done < bytes.len() {
        let error = match file.write_at(&bytes[done..], offset + done as u64) {
            Ok(0) => std::io::ErrorKind::WriteZero.into(),
            Ok(n) => {
                done += n;
                continue;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => e,
        };
        let whole = bytes[..done].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) as u64;
        return Err(Failed { error, whole });
    }
    Ok(())
}

/// Where a chunk's text goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Whole, at this offset.
    At(u64),
    /// At `at`, but only as much of it as `room` bytes hold, to the end of
    /// the last record that fits: the limit is reached.
    Cut { at: u64, room: u64 },
}

/// Where each chunk's text starts: chunk `k` starts where chunk `k - 1`
/// ends, so its place is known once every earlier chunk's length is.
pub struct Ledger {
    state: Mutex<State>,
    /// A chunk whose text would end past it is not placed, nor any after.
    limit: Option<u64>,
    moved: Condvar,
    /// Held around each write ([`Ledger::write`]). The kernel lets one
    /// thread at a time write a file (ext4 and tmpfs take its lock for a
    /// buffered write) and keeps the others spinning on their cores while
    /// they wait; here they sleep. On a 16-core host (docs/benchmark.md):
    /// the same wall time on 4 to 16 threads, a half to a quarter of the
    /// system time.
    writing: Mutex<()>,
}

struct State {
    /// The first chunk whose start is not known yet, and that start.
    next: usize,
    at: u64,
    /// Lengths of chunks after `next`, known early.
    lengths: BTreeMap<usize, u64>,
    /// Starts known but not yet taken by the chunk's thread.
    starts: BTreeMap<usize, u64>,
    stopped: bool,
}

impl Ledger {
    /// Chunk 0 starts at `at`; no text ends past `limit`.
    pub fn new(at: u64, limit: Option<u64>) -> Ledger {
        let state = State { next: 0, at, lengths: BTreeMap::new(), starts: BTreeMap::new(), stopped: false };
        Ledger { state: Mutex::new(state), limit, moved: Condvar::new(), writing: Mutex::new(()) }
    }

    /// Writes a text at the place [`Ledger::place`] gave it, one thread at
    /// a time.
    pub fn write(&self, file: &File, at: u64, bytes: &[u8]) -> Result<(), Failed> {
        let _one = self.writing.lock();
        write_at(file, at, bytes)
    }

    /// Chunk `k`'s text is `len` bytes: returns where it starts, once every
    /// earlier chunk's length is known; `None` once [`Ledger::stop`]ped.
    /// A text that would end past the limit gets [`Place::Cut`] with the
    /// room left, and the ledger stops: every later chunk starts later
    /// still.
    pub fn place(&self, k: usize, len: u64) -> Option<Place> {
        let mut s = self.state.lock();
        s.lengths.insert(k, len);
        if s.advance() {
            self.moved.notify_all();
        }
        loop {
            if s.stopped {
                return None;
            }
            if let Some(at) = s.starts.remove(&k) {
                if let Some(l) = self.limit.filter(|l| at.saturating_add(len) > *l) {
                    s.stopped = true;
                    self.moved.notify_all();
                    return Some(Place::Cut { at, room: l.saturating_sub(at) });
                }
                return Some(Place::At(at));
            }
            self.moved.wait(&mut s);
        }
    }

    /// Chunk `k`, the first whose start is not taken, ends at `end`
    /// (written by the caller, not through [`Ledger::place`]).
    pub fn reach(&self, k: usize, end: u64) {
        let mut s = self.state.lock();
        debug_assert_eq!(s.next, k, "chunks reach their end in order");
        let len = end.saturating_sub(s.at);
        s.lengths.insert(k, len);
        s.advance();
        s.starts.remove(&k);
        self.moved.notify_all();
    }

    /// Nothing more is written: every chunk waiting for its place, and
    /// every later one, gets `None`.
    pub fn stop(&self) {
        self.state.lock().stopped = true;
        self.moved.notify_all();
    }
}

impl State {
    /// Whether any start became known.
    fn advance(&mut self) -> bool {
        let mut moved = false;
        while let Some(len) = self.lengths.remove(&self.next) {
            self.starts.insert(self.next, self.at);
            self.at = self.at.saturating_add(len);
            self.next += 1;
            moved = true;
        }
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_of(p: Place) -> u64 {
        match p {
            Place::At(a) | Place::Cut { at: a, .. } => a,
        }
    }

    #[test]
    fn a_write_that_fails_keeps_its_whole_lines() {
        let d = tempfile::tempdir().unwrap();
        let f = File::create(d.path().join("log")).unwrap();
        assert!(write_at(&f, 3, b"one\ntwo\n").is_ok());
        // Read-only: nothing is written.
        let ro = File::open(d.path().join("log")).unwrap();
        let e = write_at(&ro, 0, b"x\n").unwrap_err();
        assert_eq!(e.whole, 0);
        assert_eq!(std::fs::read(d.path().join("log")).unwrap(), b"\0\0\0one\ntwo\n");
    }

    #[test]
    fn each_chunk_starts_where_the_chunks_before_it_end_whatever_the_order_they_are_placed_in() {
        let lens = [5u64, 0, 7, 3, 11, 2];
        let ledger = Ledger::new(100, None);
        let starts: Vec<u64> = std::thread::scope(|s| {
            // Placed from the last chunk to the first, each on its thread:
            // every one but chunk 0 waits for those before it.
            let h: Vec<_> = (0..lens.len())
                .rev()
                .map(|k| {
                    (
                        k,
                        s.spawn({
                            let ledger = &ledger;
                            move || ledger.place(k, lens[k])
                        }),
                    )
                })
                .collect();
            let mut v: Vec<(usize, Option<Place>)> = h.into_iter().map(|(k, h)| (k, h.join().unwrap())).collect();
            v.sort_by_key(|(k, _)| *k);
            v.into_iter().map(|(_, at)| at_of(at.unwrap())).collect()
        });
        assert_eq!(starts, vec![100, 105, 105, 112, 115, 126]);
    }

    #[test]
    fn a_chunk_written_by_its_owner_moves_the_later_ones() {
        let ledger = Ledger::new(10, None);
        assert_eq!(ledger.place(0, 4), Some(Place::At(10)));
        std::thread::scope(|s| {
            let later = s.spawn(|| ledger.place(2, 1));
            // Chunk 1 (damaged: its owner rendered it) ends at 30.
            ledger.reach(1, 30);
            assert_eq!(later.join().unwrap(), Some(Place::At(30)));
        });
        assert_eq!(ledger.place(3, 1), Some(Place::At(31)));
    }

    #[test]
    fn a_stopped_ledger_places_nothing_more() {
        let ledger = Ledger::new(0, None);
        assert_eq!(ledger.place(0, 4), Some(Place::At(0)));
        std::thread::scope(|s| {
            let waiting = s.spawn(|| ledger.place(2, 1));
            ledger.stop();
            assert_eq!(waiting.join().unwrap(), None);
        });
        assert_eq!(ledger.place(1, 1), None);
    }

    #[test]
    fn a_chunk_that_would_pass_the_limit_stops_the_ledger_and_every_later_chunk() {
        let ledger = Ledger::new(10, Some(20));
        assert_eq!(ledger.place(0, 6), Some(Place::At(10)));
        // 16 + 5 > 20: the 4 bytes left, and nothing after, though a
        // shorter later text would fit.
        assert_eq!(ledger.place(1, 5), Some(Place::Cut { at: 16, room: 4 }));
        assert_eq!(ledger.place(2, 1), None);
        let exact = Ledger::new(0, Some(8));
        assert_eq!(exact.place(0, 8), Some(Place::At(0)));
    }
}
