//! The compact record of trace format version 2: what the layer writes on
//! every call, and its translation into the wide record ([`super::record`])
//! that the readers hand to the renderers.
//!
//! A call costs its record's bytes twice (the stores, then the disk), and on
//! a fresh page a share of a page fault, so the record carries nothing that
//! its chunk or its neighbour already says: the thread is the chunk's, the
//! start time is a delta from the previous record's, the end time a
//! duration, and integers are LEB128 (a small value takes one byte).
//!
//! ```text
//! opened part   state u8 · fn_id varint · nargs u8 · Δt0 zigzag varint
//!               · [cmd_id varint, with CMD or HSA] · nargs × arg varint
//! tail          duration varint · ret varint · captures · END (0)
//! capture       tag u8 (bits 0..6 the tag, WORD, SAME) · param u8 ·
//!               WORD: one varint value | bytes varint · [total varint,
//!               unless SAME] · data
//! wide          state WIDE · a whole version 1 record
//! ```
//!
//! The opened part is written before the call is forwarded and the chunk's
//! `used` moves past it; the tail is written after the call returns, then
//! the state byte gets DONE, then `used` moves past the tail. A death at any
//! point leaves a record that reads as open: its state byte lacks DONE, or
//! its tail runs past `used`.

use super::record::{self, Capture, Header, FLAG_CMD, FLAG_DONE, FLAG_MOVED, FLAG_OK, HEADER, KIND_HSA_CALL};

/// State bits of the first byte beyond the wide record's flags (which it
/// shares: CMD, OK, DONE, MOVED).
pub const STATE_HSA: u8 = 0x10;
/// The rest is a version 1 record, whole (kinds other than calls).
pub const STATE_WIDE: u8 = 0x20;
const STATE_FLAGS: u8 = FLAG_CMD | FLAG_OK | FLAG_DONE | FLAG_MOVED;

/// A capture's value is one varint word: 8 bytes, total 1 (an output value).
pub const CAP_WORD: u8 = 0x40;
/// The capture's `total` equals its `bytes` and is not written.
pub const CAP_SAME: u8 = 0x80;
const CAP_TAG: u8 = 0x3F;
/// Ends a tail's captures.
pub const END: u8 = 0;

/// The longest varint.
pub const VARINT_MAX: usize = 10;

#[inline(always)]
pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

#[inline(always)]
pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Writes `v` as LEB128 at `p`; returns the bytes written (1 to 10).
///
/// # Safety
/// `p` must be writable for [`VARINT_MAX`] bytes.
#[inline(always)]
pub unsafe fn put_raw(p: *mut u8, mut v: u64) -> usize {
    let mut i = 0;
    while v >= 0x80 {
        *p.add(i) = v as u8 | 0x80;
        v >>= 7;
        i += 1;
    }
    *p.add(i) = v as u8;
    i + 1
}

/// Argument words written as a delta from the same word of the previous
/// record (the first ones; later words are written whole).
pub const DELTA_ARGS: usize = 16;

/// What a chunk's next compact record is written relative to: the previous
/// compact record's start time and argument words (0 in a fresh chunk). A
/// call repeated in a loop, or one on the same handles as the call before,
/// then takes a byte per word.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Prev {
    pub t0: u64,
    pub args: [u64; DELTA_ARGS],
}

/// Writes a call's opened part at `p`, after the record `prev` describes
/// (which it then describes), and returns its length. `state` carries CMD
/// and HSA; `cmd` is written when either is set.
///
/// # Safety
/// `p` must be writable for `3 + (3 + args.len()) * VARINT_MAX` bytes, and
/// `args.len()` at most 255.
#[inline(always)]
pub unsafe fn put_opened(p: *mut u8, state: u8, fn_id: u16, t0: u64, cmd: u64, args: &[u64], prev: &mut Prev) -> usize {
    *p = state;
    let mut n = 1 + put_raw(p.add(1), fn_id as u64);
    *p.add(n) = args.len() as u8;
    n += 1;
    n += put_raw(p.add(n), zigzag(t0.wrapping_sub(prev.t0) as i64));
    prev.t0 = t0;
    if state & (FLAG_CMD | STATE_HSA) != 0 {
        n += put_raw(p.add(n), cmd);
    }
    for (i, &a) in args.iter().enumerate() {
        n += match prev.args.get_mut(i) {
            Some(b) => {
                let d = a.wrapping_sub(*b) as i64;
                *b = a;
                put_raw(p.add(n), zigzag(d))
            }
            None => put_raw(p.add(n), a),
        };
    }
    n
}

/// A capture's header; `bytes` of data follow it (not for [`CAP_WORD`]).
///
/// # Safety
/// `p` must be writable for `2 + 2 * VARINT_MAX` bytes.
#[inline(always)]
pub unsafe fn put_capture_head(p: *mut u8, tag: u8, param: u8, bytes: u64, total: u64) -> usize {
    let same = if bytes == total { CAP_SAME } else { 0 };
    *p = tag | same;
    *p.add(1) = param;
    let mut n = 2 + put_raw(p.add(2), bytes);
    if same == 0 {
        n += put_raw(p.add(n), total);
    }
    n
}

/// A one-word capture (an output value).
///
/// # Safety
/// `p` must be writable for `2 + VARINT_MAX` bytes.
#[inline(always)]
pub unsafe fn put_capture_word(p: *mut u8, tag: u8, param: u8, w: u64) -> usize {
    *p = tag | CAP_WORD;
    *p.add(1) = param;
    2 + put_raw(p.add(2), w)
}

/// Reading: a cursor over one chunk's bytes that fails, never panics.
struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn byte(&mut self) -> Option<u8> {
        let v = *self.b.get(self.at)?;
        self.at += 1;
        Some(v)
    }

    fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= ((b & 0x7F) as u64) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    fn take(&mut self, n: u64) -> Option<&[u8]> {
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

/// Why a chunk's bytes are not version 2 records: where (from the chunk's
/// first record) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    pub at: usize,
    pub reason: String,
}

fn push_header(out: &mut Vec<u8>, h: &Header) {
    // SAFETY: Header is a plain repr(C) struct of integers.
    out.extend_from_slice(unsafe { std::slice::from_raw_parts(h as *const Header as *const u8, HEADER) });
}

fn push_capture(out: &mut Vec<u8>, c: Capture, data: &[u8]) {
    // SAFETY: as above, for Capture.
    out.extend_from_slice(unsafe {
        std::slice::from_raw_parts(&c as *const Capture as *const u8, std::mem::size_of::<Capture>())
    });
    out.extend_from_slice(data);
    out.resize(record::pad8(out.len()), 0);
}

/// The opened part of a compact record, read.
struct Opened {
    state: u8,
    header: Header,
}

/// Reads an opened part and appends its wide form (header, argument words)
/// to `out`; `None` when it runs past the end or is malformed.
fn read_opened(c: &mut Cursor, tid: u32, prev: &mut Prev, out: &mut Vec<u8>) -> Option<Opened> {
    let state = c.byte()?;
    let fn_id = u16::try_from(c.varint()?).ok()?;
    let nargs = c.byte()?;
    let t0 = prev.t0.wrapping_add(unzigzag(c.varint()?) as u64);
    prev.t0 = t0;
    let cmd_id = if state & (FLAG_CMD | STATE_HSA) != 0 { c.varint()? } else { 0 };
    let kind = if state & STATE_HSA != 0 { KIND_HSA_CALL } else { record::KIND_OPENCL_CALL };
    let header = Header {
        len: (HEADER + 8 * nargs as usize) as u32,
        fn_id,
        nargs,
        flags: state & (FLAG_CMD | FLAG_MOVED),
        tid,
        kind,
        _pad: 0,
        cmd_id,
        t0,
        t1: 0,
        ret: 0,
    };
    push_header(out, &header);
    for i in 0..nargs as usize {
        let v = c.varint()?;
        let a = match prev.args.get_mut(i) {
            Some(b) => {
                *b = b.wrapping_add(unzigzag(v) as u64);
                *b
            }
            None => v,
        };
        out.extend_from_slice(&a.to_ne_bytes());
    }
    Some(Opened { state, header })
}

/// Reads a tail into `out` after the record's header and arguments, and
/// fixes the header; `None` when the tail does not fit `c` (not returned).
fn read_tail(c: &mut Cursor, out: &mut Vec<u8>, start: usize, mut h: Header, state: u8) -> Option<()> {
    let dur = c.varint()?;
    h.ret = c.varint()?;
    h.t1 = h.t0.wrapping_add(dur);
    loop {
        let tag = c.byte()?;
        if tag == END {
            break;
        }
        let param = c.byte()?;
        let (cap, data): (Capture, &[u8]) = if tag & CAP_WORD != 0 {
            let w = c.varint()?;
            let cap = Capture { param, tag: tag & CAP_TAG, _pad: 0, bytes: 8, total: 1 };
            push_capture(out, cap, &w.to_ne_bytes());
            continue;
        } else {
            let bytes = c.varint()?;
            let total = if tag & CAP_SAME != 0 { bytes } else { c.varint()? };
            let bytes32 = u32::try_from(bytes).ok()?;
            (Capture { param, tag: tag & CAP_TAG, _pad: 0, bytes: bytes32, total }, c.take(bytes)?)
        };
        push_capture(out, cap, data);
    }
    h.flags = state & STATE_FLAGS;
    h.len = u32::try_from(out.len() - start).ok()?;
    out[start..start + HEADER].copy_from_slice(unsafe {
        // SAFETY: as in push_header.
        std::slice::from_raw_parts(&h as *const Header as *const u8, HEADER)
    });
    Some(())
}

/// Translates a chunk's version 2 records (its `used` bytes, thread `tid`'s)
/// into version 1 records, appended to `out`, in the order written. A moved
/// record stays where it was opened, marked moved, as version 1 has it (the
/// walk skips it; its complete copy comes later), so that an offset into
/// the widened records before the first open one stays valid as the chunk
/// grows (the tools' buffers keep such offsets). A call that did not return
/// comes as an opened version 1 record. On damage, what came before it is
/// in `out`.
pub fn widen(src: &[u8], tid: u32, out: &mut Vec<u8>) -> Result<(), Damage> {
    widen_after(src, tid, Prev::default(), out)
}

/// [`widen`] for records that follow the one `prev` describes.
fn widen_after(src: &[u8], tid: u32, mut prev: Prev, out: &mut Vec<u8>) -> Result<(), Damage> {
    let mut c = Cursor { b: src, at: 0 };
    while c.at < src.len() {
        let at = c.at;
        let damaged = |reason: &str| Damage { at, reason: reason.to_string() };
        if src[at] & STATE_WIDE != 0 {
            let rest = &src[at + 1..];
            if rest.len() < HEADER {
                return Err(damaged(&format!("{} bytes left, a record header needs {HEADER}", rest.len())));
            }
            // SAFETY: a plain integer struct, read from at least its size.
            let h: Header = unsafe { std::ptr::read_unaligned(rest.as_ptr() as *const Header) };
            if h.tid != tid {
                return Err(damaged(&format!("a record of thread {} in thread {tid}'s chunk", h.tid)));
            }
            let opened = HEADER + 8 * h.nargs as usize;
            if opened > rest.len() {
                return Err(damaged(&format!("an open record of {} arguments runs past the end", h.nargs)));
            }
            let done = h.flags & FLAG_DONE != 0;
            if done && (h.len as usize) <= rest.len() {
                record::check(rest).map_err(|r| damaged(&r))?;
                out.extend_from_slice(&rest[..h.len as usize]);
                c.at += 1 + h.len as usize;
                continue;
            }
            // Opened only, or completed as the process died.
            if let Some(v) = record::last(&rest[..opened]) {
                push_header(out, &v.header);
                out.extend_from_slice(&rest[HEADER..opened]);
            }
            if done {
                return Ok(());
            }
            c.at += 1 + opened;
            continue;
        }
        let start = out.len();
        let Some(o) = read_opened(&mut c, tid, &mut prev, out) else {
            out.truncate(start);
            return Err(damaged("an opened record runs past the end or is malformed"));
        };
        if o.state & FLAG_DONE == 0 {
            continue;
        }
        let mut tail = Cursor { b: src, at: c.at };
        if read_tail(&mut tail, out, start, o.header, o.state).is_none() {
            if tail.at < src.len() {
                out.truncate(start);
                return Err(Damage { at, reason: "a malformed record".into() });
            }
            // Completed as the process died: the tail runs past `used`.
            out.truncate(start + HEADER + 8 * o.header.nargs as usize);
            return Ok(());
        }
        c.at = tail.at;
    }
    Ok(())
}

/// Encodes a version 1 record compactly, after the record `prev` describes
/// (which it then describes, when the record is stored compact); `None` when the compact form cannot say it
/// exactly (another kind, fields a call never has), which the caller then
/// writes wide. For tools and tests: the layer writes in place.
pub fn narrow(rec: &[u8], prev: &mut Prev) -> Option<Vec<u8>> {
    let v = record::last(rec)?;
    let h = v.header;
    if h.kind > KIND_HSA_CALL || h.flags & !STATE_FLAGS != 0 || v.captures.iter().any(|(c, _)| c.tag > CAP_TAG) {
        return None;
    }
    let mut state = h.flags & (FLAG_CMD | FLAG_MOVED);
    if h.kind == KIND_HSA_CALL {
        state |= STATE_HSA;
    }
    let size = 3
        + (3 + v.args.len()) * VARINT_MAX
        + v.captures.iter().map(|(_, d)| 2 + 2 * VARINT_MAX + d.len()).sum::<usize>()
        + 1;
    let mut out = vec![0u8; size];
    let p = out.as_mut_ptr();
    let mut next = *prev;
    // SAFETY: `out` has room for the worst case of every part.
    let n = unsafe {
        let mut n = put_opened(p, state, h.fn_id, h.t0, h.cmd_id, &v.args, &mut next);
        if h.flags & FLAG_DONE != 0 {
            n += put_raw(p.add(n), h.t1.wrapping_sub(h.t0));
            n += put_raw(p.add(n), h.ret);
            for (c, d) in &v.captures {
                if c.bytes == 8 && c.total == 1 && d.len() == 8 {
                    n += put_capture_word(p.add(n), c.tag, c.param, u64::from_ne_bytes((*d).try_into().unwrap()));
                } else {
                    n += put_capture_head(p.add(n), c.tag, c.param, d.len() as u64, c.total);
                    std::ptr::copy_nonoverlapping(d.as_ptr(), p.add(n), d.len());
                    n += d.len();
                }
            }
            *p.add(n) = END;
            *p = state | (h.flags & (FLAG_DONE | FLAG_OK));
            n + 1
        } else {
            n
        }
    };
    out.truncate(n);
    // Exact, or not at all: read it back and compare.
    let mut back = Vec::new();
    widen_after(&out, h.tid, *prev, &mut back).ok()?;
    (back == rec).then(|| {
        *prev = next;
        out
    })
}
