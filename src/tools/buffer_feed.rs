//! Which of a chunk's records a tool may be given, as the trace's wide
//! records (what the reader gives for a chunk, whatever the file's version).
//!
//! The renderer hands every chunk it renders here, in render order (seal
//! order, then the chunks threads still held at the end). A flush also
//! looks at chunks not rendered yet, up to what is safely complete; how far
//! each chunk was given is remembered, so that a record is given once, and
//! a thread's records keep their order.
//!
//! Only complete records are given ([`FLAG_DONE`]); records moved on
//! completion are skipped (their complete copy comes later), as the
//! renderer does; a call that never returned is not given.

use crate::trace::record::{self, Header, FLAG_DONE, FLAG_MOVED, HEADER};
use std::collections::BTreeMap;

/// The kinds of record a buffer can take (`cltap_configure_buffer`).
pub const RECORDS_API: u32 = 1;
pub const RECORDS_DISPATCH: u32 = 2;
pub const RECORDS_COUNTER: u32 = 4;
/// Every record, including kinds later versions add.
pub const RECORDS_ALL: u32 = u32::MAX;
/// The class of a record kind no other class names.
const RECORDS_OTHER: u32 = 1 << 31;

/// The class of a record of `kind` (the trace's `KIND_*`).
pub fn class_of(kind: u16) -> u32 {
    use crate::trace::record::*;
    match kind {
        KIND_OPENCL_CALL | KIND_HSA_CALL => RECORDS_API,
        KIND_HSA_DISPATCH | KIND_HSA_COPY | KIND_HSA_AGENT | KIND_HSA_KERNEL => RECORDS_DISPATCH,
        KIND_HSA_COUNTERS | KIND_COUNTER_PLAN | KIND_KERNEL_INFO => RECORDS_COUNTER,
        _ => RECORDS_OTHER,
    }
}

/// How a chunk is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Rendered: its thread is done with it (sealed), or the process ended.
    /// A call that never returned is passed over.
    Final,
    /// Still being written (a flush): stop at the first record that may not
    /// be complete. `own` is true when the chunk is the calling thread's,
    /// whose writes it sees in full.
    Live { own: bool },
}

fn header(b: &[u8]) -> Header {
    // SAFETY: the caller checked that a header's bytes are there.
    unsafe { std::ptr::read_unaligned(b.as_ptr() as *const Header) }
}

/// Calls `give` with each record of `buf` (a chunk's `used` bytes of
/// records, thread `tid`'s) from byte `start` that may be given, and
/// returns where the next one starts.
///
/// In [`Mode::Live`] a complete record of another thread is given only when
/// something was written after it: its captures (its length is past its
/// opened part) or a later record. A record without captures at the very
/// end may be being completed as it is read (its header is written with
/// several stores), and waits for the thread's next record or the end.
pub fn walk(buf: &[u8], tid: u32, start: usize, mode: Mode, mut give: impl FnMut(u16, &[u8])) -> usize {
    let mut off = start;
    while off + HEADER <= buf.len() {
        let rest = &buf[off..];
        let h = header(rest);
        if h.tid != tid {
            // Not this thread's: the chunk is damaged from here (the
            // renderer reports it); nothing after is given.
            return buf.len();
        }
        let opened = HEADER + 8 * h.nargs as usize;
        let done = h.flags & FLAG_DONE != 0;
        if h.flags & FLAG_MOVED != 0 {
            off += if done { h.len as usize } else { opened };
            continue;
        }
        if !done {
            match mode {
                // A call that never returned: its record is only opened.
                Mode::Final => {
                    off += opened;
                    continue;
                }
                Mode::Live { .. } => return off,
            }
        }
        if record::check(rest).is_err() {
            // Complete but longer than what was read: still being written
            // (live) or cut short by a death (final).
            return if matches!(mode, Mode::Final) { buf.len() } else { off };
        }
        let len = h.len as usize;
        if let Mode::Live { own: false } = mode {
            let settled = len > opened || off + len < buf.len();
            if !settled {
                return off;
            }
        }
        give(h.kind, &rest[..len]);
        off += len;
    }
    if matches!(mode, Mode::Final) {
        buf.len()
    } else {
        off
    }
}

/// How far each chunk not yet rendered has been given (by a flush).
#[derive(Debug, Default)]
pub struct Progress {
    given: BTreeMap<u64, usize>,
}

impl Progress {
    pub const fn new() -> Progress {
        Progress { given: BTreeMap::new() }
    }

    /// The chunk at `index` is rendered: give what is left of it.
    pub fn rendered(&mut self, index: u64, buf: &[u8], tid: u32, give: impl FnMut(u16, &[u8])) {
        let start = self.given.remove(&index).unwrap_or(0);
        walk(buf, tid, start, Mode::Final, give);
    }

    /// The chunk at `index` is still written (or waits for its turn to be
    /// rendered): give what is safely complete, and remember how far.
    pub fn live(&mut self, index: u64, buf: &[u8], tid: u32, own: bool, give: impl FnMut(u16, &[u8])) {
        let start = self.given.get(&index).copied().unwrap_or(0);
        let end = walk(buf, tid, start, Mode::Live { own }, give);
        if end > 0 {
            self.given.insert(index, end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::record::{encode, Capture, Tag, FLAG_OK};

    fn call(tid: u32, fn_id: u16, args: &[u64], capture: Option<&[u8]>, flags: u8) -> Vec<u8> {
        let h = Header { fn_id, tid, flags, t0: 10, t1: 20, ..Default::default() };
        let caps: Vec<(Capture, &[u8])> = capture
            .map(|d| (Capture { param: 0, tag: Tag::Bytes as u8, _pad: 0, bytes: 0, total: d.len() as u64 }, d))
            .into_iter()
            .collect();
        encode(&h, args, &caps)
    }

    /// An opened record: header and arguments only, without DONE.
    fn opened(tid: u32, fn_id: u16, args: &[u64]) -> Vec<u8> {
        let mut v = call(tid, fn_id, args, None, 0);
        v.truncate(HEADER + 8 * args.len());
        v
    }

    fn given(buf: &[u8], start: usize, mode: Mode) -> (Vec<u16>, usize) {
        let mut ids = Vec::new();
        let end = walk(buf, 7, start, mode, |_, r| ids.push(header(r).fn_id));
        (ids, end)
    }

    #[test]
    fn final_chunks_give_complete_records_and_skip_moved_and_unreturned() {
        let done = FLAG_DONE | FLAG_OK;
        let mut buf = call(7, 1, &[1, 2], Some(b"abc"), done);
        let mut moved = opened(7, 2, &[5]);
        moved[7] |= FLAG_MOVED;
        buf.extend(moved);
        buf.extend(call(7, 3, &[], None, done));
        buf.extend(call(7, 2, &[5], None, done));
        buf.extend(opened(7, 4, &[9, 9]));
        let (ids, end) = given(&buf, 0, Mode::Final);
        assert_eq!(ids, vec![1, 3, 2]);
        assert_eq!(end, buf.len());
    }

    #[test]
    fn live_chunks_stop_at_an_open_record_and_resume_there() {
        let done = FLAG_DONE | FLAG_OK;
        let first = call(7, 1, &[1], Some(b"x"), done);
        let mut buf = first.clone();
        let open_at = buf.len();
        buf.extend(opened(7, 2, &[3]));
        let mut p = Progress::default();
        let mut ids = Vec::new();
        p.live(0, &buf, 7, false, |_, r| ids.push(header(r).fn_id));
        assert_eq!(ids, vec![1]);
        assert_eq!(p.given[&0], open_at);
        // The call returns (completed in place, with a capture), and the
        // chunk is rendered: only the rest is given.
        buf.truncate(open_at);
        buf.extend(call(7, 2, &[3], Some(b"yz"), done));
        p.rendered(0, &buf, 7, |_, r| ids.push(header(r).fn_id));
        assert_eq!(ids, vec![1, 2]);
        assert!(p.given.is_empty());
    }

    #[test]
    fn a_bare_last_record_of_another_thread_waits_unless_the_chunk_is_the_callers() {
        let done = FLAG_DONE | FLAG_OK;
        let mut buf = call(7, 1, &[1], None, done);
        buf.extend(call(7, 2, &[1], None, done));
        // Record 1 has a record after it; record 2 has nothing after it and
        // no captures: its header may still be being written.
        assert_eq!(given(&buf, 0, Mode::Live { own: false }).0, vec![1]);
        assert_eq!(given(&buf, 0, Mode::Live { own: true }).0, vec![1, 2]);
        let mut with_capture = call(7, 1, &[1], None, done);
        with_capture.extend(call(7, 2, &[1], Some(b"out"), done));
        assert_eq!(given(&with_capture, 0, Mode::Live { own: false }).0, vec![1, 2]);
    }

    #[test]
    fn a_record_longer_than_what_was_read_is_not_given() {
        let rec = call(7, 1, &[1, 2, 3], Some(b"abcdefgh"), FLAG_DONE);
        let cut = &rec[..rec.len() - 8];
        assert_eq!(given(cut, 0, Mode::Live { own: true }), (vec![], 0));
        assert_eq!(given(cut, 0, Mode::Final).0, Vec::<u16>::new());
    }

    #[test]
    fn another_threads_record_ends_the_walk() {
        let buf = call(8, 1, &[], None, FLAG_DONE);
        assert_eq!(given(&buf, 0, Mode::Final), (vec![], buf.len()));
    }

    #[test]
    fn classes() {
        use crate::trace::record::*;
        assert_eq!(class_of(KIND_OPENCL_CALL), RECORDS_API);
        assert_eq!(class_of(KIND_HSA_CALL), RECORDS_API);
        assert_eq!(class_of(KIND_HSA_DISPATCH), RECORDS_DISPATCH);
        assert_eq!(class_of(KIND_HSA_COUNTERS), RECORDS_COUNTER);
        assert_eq!(class_of(999) & (RECORDS_API | RECORDS_DISPATCH | RECORDS_COUNTER), 0);
        assert_ne!(class_of(999) & RECORDS_ALL, 0);
    }
}
