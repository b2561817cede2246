//! Reading compact records (version 2, [`super`]): straight into
//! the [`View`] the renderers take, one record at a time. The wide layout is
//! made from views only for those who keep wide records ([`widen`]: the
//! tools' buffers), so rendering neither writes a second copy of a chunk nor
//! parses it again.

use super::{Prev, CAP_SAME, CAP_TAG, CAP_WORD, DELTA_ARGS, END, STATE_FLAGS, STATE_HSA, STATE_WIDE, VARINT_MAX};
use crate::cltrace::record::view::{self, Data, View};
use crate::cltrace::record::{
    self, pad8, Capture, Header, CAPTURE, FLAG_CMD, FLAG_DONE, FLAG_MOVED, HEADER, KIND_HSA_CALL, KIND_OPENCL_CALL,
};

/// A cursor over one chunk's bytes that fails, never panics.
struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    #[inline(always)]
    fn byte(&mut self) -> Option<u8> {
        let v = *self.b.get(self.at)?;
        self.at += 1;
        Some(v)
    }

    #[inline(always)]
    fn varint(&mut self) -> Option<u64> {
        // Most values are one byte (deltas, small integers).
        let b = *self.b.get(self.at)?;
        if b & 0x80 == 0 {
            self.at += 1;
            return Some(b as u64);
        }
        self.varint_long()
    }

    /// A varint of two bytes or more: with the longest one's bytes left
    /// (all but a chunk's last few records), read without a bounds check
    /// per byte.
    #[inline(always)]
    fn varint_long(&mut self) -> Option<u64> {
        let Some(w) = self.b.get(self.at..self.at + VARINT_MAX) else {
            let (v, at) = varint_near_end(self.b, self.at);
            self.at = at;
            return v;
        };
        let mut v = 0u64;
        for (i, &b) in w.iter().enumerate() {
            v |= ((b & 0x7F) as u64) << (7 * i);
            if b & 0x80 == 0 {
                self.at += i + 1;
                return Some(v);
            }
        }
        // Malformed: ten bytes, every one continued (read past, as below).
        self.at += VARINT_MAX;
        None
    }

    fn take(&mut self, n: u64) -> Option<&'a [u8]> {
        let n = usize::try_from(n).ok()?;
        let Some(end) = self.at.checked_add(n).filter(|&e| e <= self.b.len()) else {
            // Runs past what was written.
            self.at = self.b.len();
            return None;
        };
        let s = &self.b[self.at..end];
        self.at = end;
        Some(s)
    }
}

/// A varint at `at` that may run past the end of `b` (the chunk's last
/// bytes), and where reading it stopped: one bounds check per byte. Apart
/// from the cursor, whose position then stays in a register.
#[cold]
fn varint_near_end(b: &[u8], mut at: usize) -> (Option<u64>, usize) {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let Some(&x) = b.get(at) else {
            return (None, at);
        };
        at += 1;
        v |= ((x & 0x7F) as u64) << shift;
        if x & 0x80 == 0 {
            return (Some(v), at);
        }
    }
    (None, at)
}

/// Why a chunk's bytes are not version 2 records: where (from the chunk's
/// first record) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    pub at: usize,
    pub reason: String,
}

/// What the record just read was, besides the view it was read into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Read<'a> {
    /// A compact record, or the opened part of a wide one.
    Decoded,
    /// A complete wide record: these bytes, which widening keeps as they are.
    Wide(&'a [u8]),
    /// Never handed out: a record that runs past bytes cut short.
    Lost,
}

/// Reads a chunk's version 2 records (its `used` bytes, thread `tid`'s) in
/// the order written. A moved record comes where it was opened, marked
/// moved, as version 1 has it (a walk skips it; its complete copy comes
/// later). A call that did not return comes as its opened part, without
/// `DONE`; a record completed as the process died (its tail runs past the
/// end) too, and nothing after it counts.
///
/// Bytes cut short ([`Self::cut`]: a chunk whose file ends before its
/// `used`) are read the same way up to the first record that runs past
/// them: that record and the rest are lost, neither open nor damaged, since
/// whether the call returned lies in the bytes that are gone.
pub struct Decoder<'a> {
    c: Cursor<'a>,
    tid: u32,
    prev: Prev,
    ended: bool,
    cut: bool,
}

impl<'a> Decoder<'a> {
    pub fn new(src: &'a [u8], tid: u32) -> Self {
        Self::after(src, tid, Prev::default())
    }

    /// For records that follow the one `prev` describes.
    pub fn after(src: &'a [u8], tid: u32, prev: Prev) -> Self {
        Decoder { c: Cursor { b: src, at: 0 }, tid, prev, ended: false, cut: false }
    }

    /// For the first bytes of a chunk whose rest was cut off.
    pub fn cut(src: &'a [u8], tid: u32) -> Self {
        Decoder { cut: true, ..Self::new(src, tid) }
    }

    /// Where the records read so far end: after the last whole record once
    /// a cut decoder has stopped.
    pub fn at(&self) -> usize {
        self.c.at
    }

    /// The next record, read into `v`; `None` after the last, or after
    /// damage (which the `Err` before said).
    #[inline]
    pub fn next(&mut self, v: &mut View<'a>) -> Option<Result<Read<'a>, Damage>> {
        if self.ended || self.c.at >= self.c.b.len() {
            return None;
        }
        let at = self.c.at;
        let r = if self.c.b[at] & STATE_WIDE != 0 { self.wide(at, v) } else { self.compact(at, v) };
        match r {
            Err(_) | Ok(Read::Lost) => {
                self.ended = true;
                // The lost record's start: where the records kept end.
                self.c.at = at;
                (!matches!(r, Ok(Read::Lost))).then_some(r)
            }
            Ok(_) => Some(r),
        }
    }

    /// What a record that runs past the bytes is: lost where they were cut
    /// short, else `r`.
    fn past_end(&self, r: Result<Read<'a>, Damage>) -> Result<Read<'a>, Damage> {
        if self.cut {
            Ok(Read::Lost)
        } else {
            r
        }
    }

    fn wide(&mut self, at: usize, v: &mut View<'a>) -> Result<Read<'a>, Damage> {
        let damaged = |reason: String| Damage { at, reason };
        let rest = &self.c.b[at + 1..];
        if rest.len() < HEADER {
            return self.past_end(Err(damaged(format!("{} bytes left, a record header needs {HEADER}", rest.len()))));
        }
        // SAFETY: a plain integer struct, read from at least its size.
        let h: Header = unsafe { std::ptr::read_unaligned(rest.as_ptr() as *const Header) };
        if h.tid != self.tid {
            return Err(damaged(format!("a record of thread {} in thread {}'s chunk", h.tid, self.tid)));
        }
        let opened = HEADER + 8 * h.nargs as usize;
        if opened > rest.len() {
            return self.past_end(Err(damaged(format!("an open record of {} arguments runs past the end", h.nargs))));
        }
        let done = h.flags & FLAG_DONE != 0;
        if done && h.len as usize > rest.len() && self.cut {
            return Ok(Read::Lost);
        }
        if done && (h.len as usize) <= rest.len() {
            let h = record::check(rest).map_err(damaged)?;
            let rec = &rest[..h.len as usize];
            view::read_wide(rec, h, v);
            self.c.at += 1 + rec.len();
            return Ok(Read::Wide(rec));
        }
        // Opened only, or completed as the process died (then the last).
        view::read_last(&rest[..opened], v);
        if done {
            self.ended = true;
        } else {
            self.c.at += 1 + opened;
        }
        Ok(Read::Decoded)
    }

    #[inline(always)]
    fn compact(&mut self, at: usize, v: &mut View<'a>) -> Result<Read<'a>, Damage> {
        // A copy of the cursor, so that its position lives in a register.
        let mut c = Cursor { b: self.c.b, at };
        let Some(state) = opened(&mut c, &mut self.prev, self.tid, v) else {
            let damage = Err(Damage { at, reason: "an opened record runs past the end or is malformed".into() });
            // Malformed bytes stop the cursor before the end; bytes that
            // are gone stop it at the end.
            return if c.at >= c.b.len() { self.past_end(damage) } else { damage };
        };
        if state & FLAG_DONE == 0 {
            self.c.at = c.at;
            return Ok(Read::Decoded);
        }
        self.c.at = c.at;
        if read_tail(&mut c, v, state).is_none() {
            v.captures.clear();
            if c.at < c.b.len() {
                return Err(Damage { at, reason: "a malformed record".into() });
            }
            // Completed as the process died: the tail runs past `used`.
            self.ended = true;
            return self.past_end(Ok(Read::Decoded));
        }
        self.c.at = c.at;
        Ok(Read::Decoded)
    }
}

/// Reads an opened part (after the record `prev` describes, which it then
/// describes) into `v`: header and arguments, as a call that has not
/// returned. Its state byte, or `None` when it runs past the end or is
/// malformed.
#[inline(always)]
fn opened<'a>(c: &mut Cursor<'a>, prev: &mut Prev, tid: u32, v: &mut View<'a>) -> Option<u8> {
    let state = c.byte()?;
    let fn_id = u16::try_from(c.varint()?).ok()?;
    let nargs = c.byte()?;
    let t0 = prev.t0.wrapping_add(unzigzag(c.varint()?) as u64);
    prev.t0 = t0;
    let cmd_id = if state & (FLAG_CMD | STATE_HSA) != 0 { c.varint()? } else { 0 };
    // The words in place: the view's storage is reused record after
    // record, most often at the same length.
    let n = nargs as usize;
    if v.args.len() != n {
        v.args.resize(n, 0);
    }
    let (delta, whole) = v.args.split_at_mut(n.min(DELTA_ARGS));
    for (a, b) in delta.iter_mut().zip(prev.args.iter_mut()) {
        *b = b.wrapping_add(unzigzag(c.varint()?) as u64);
        *a = *b;
    }
    for a in whole {
        *a = c.varint()?;
    }
    v.captures.clear();
    v.header = Header {
        len: (HEADER + 8 * n) as u32,
        fn_id,
        nargs,
        flags: state & (FLAG_CMD | FLAG_MOVED),
        tid,
        kind: if state & STATE_HSA != 0 { KIND_HSA_CALL } else { KIND_OPENCL_CALL },
        _pad: 0,
        cmd_id,
        t0,
        t1: 0,
        ret: 0,
    };
    Some(state)
}

#[inline(always)]
fn unzigzag(v: u64) -> i64 {
    super::unzigzag(v)
}

/// Reads a tail into `v`, whose header and arguments are read, and
/// completes the header, its `len` the wide record's; `None` (the header
/// left as it was) when the tail does not fit `c` (not returned) or its
/// wide form would not.
#[inline(always)]
fn read_tail<'a>(c: &mut Cursor<'a>, v: &mut View<'a>, state: u8) -> Option<()> {
    let dur = c.varint()?;
    let ret = c.varint()?;
    let mut len = v.header.len as usize;
    loop {
        let tag = c.byte()?;
        if tag == END {
            break;
        }
        let param = c.byte()?;
        if tag & CAP_WORD != 0 {
            let w = c.varint()?;
            v.captures.push((
                Capture { param, tag: tag & CAP_TAG, _pad: 0, bytes: 8, total: 1 },
                Data::Word(w.to_ne_bytes()),
            ));
            len += CAPTURE + 8;
            continue;
        }
        let bytes = c.varint()?;
        let total = if tag & CAP_SAME != 0 { bytes } else { c.varint()? };
        let bytes32 = u32::try_from(bytes).ok()?;
        let data = c.take(bytes)?;
        v.captures.push((Capture { param, tag: tag & CAP_TAG, _pad: 0, bytes: bytes32, total }, Data::Bytes(data)));
        len += CAPTURE + pad8(data.len());
    }
    let h = &mut v.header;
    h.len = u32::try_from(len).ok()?;
    h.flags = state & STATE_FLAGS;
    h.t1 = h.t0.wrapping_add(dur);
    h.ret = ret;
    Some(())
}

/// Translates a chunk's version 2 records (its `used` bytes, thread `tid`'s)
/// into version 1 records, appended to `out`, in the order written (see
/// [`Decoder`]). A moved record stays where it was opened, so that an offset
/// into the widened records before the first open one stays valid as the
/// chunk grows (the tools' buffers keep such offsets). On damage, what came
/// before it is in `out`.
pub fn widen(src: &[u8], tid: u32, out: &mut Vec<u8>) -> Result<(), Damage> {
    widen_after(src, tid, Prev::default(), out)
}

/// [`widen`] for records that follow the one `prev` describes.
pub(super) fn widen_after(src: &[u8], tid: u32, prev: Prev, out: &mut Vec<u8>) -> Result<(), Damage> {
    let mut d = Decoder::after(src, tid, prev);
    let mut v = View::default();
    while let Some(r) = d.next(&mut v) {
        match r? {
            Read::Wide(rec) => out.extend_from_slice(rec),
            Read::Decoded => record::encode_into(out, &v.header, &v.args, &v.captures),
            Read::Lost => {}
        }
    }
    Ok(())
}
