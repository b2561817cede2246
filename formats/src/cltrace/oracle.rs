//! The reader as it was before compact records were read straight into
//! views (widened, then the wide records parsed again), kept frozen as the
//! reference the decoder is held to: the same views, the same damage, for
//! any bytes.

use super::compact::{unzigzag, Damage, Prev, CAP_SAME, CAP_WORD, END, STATE_HSA, STATE_WIDE};
use super::record::{
    self, pad8, Capture, Header, CAPTURE, FLAG_CMD, FLAG_DONE, FLAG_MOVED, FLAG_OK, HEADER, KIND_HSA_CALL,
};

const STATE_FLAGS: u8 = FLAG_CMD | FLAG_OK | FLAG_DONE | FLAG_MOVED;
const CAP_TAG: u8 = 0x3F;

/// A record as the old reader gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OldView {
    pub header: Header,
    pub args: Vec<u64>,
    pub captures: Vec<(Capture, Vec<u8>)>,
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
pub fn old_widen(src: &[u8], tid: u32, out: &mut Vec<u8>) -> Result<(), Damage> {
    old_widen_after(src, tid, Prev::default(), out)
}

/// [`widen`] for records that follow the one `prev` describes.
fn old_widen_after(src: &[u8], tid: u32, mut prev: Prev, out: &mut Vec<u8>) -> Result<(), Damage> {
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
            if let Some(v) = old_last(&rest[..opened]) {
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

fn old_check(buf: &[u8]) -> Result<Header, String> {
    record::check(buf)
}

pub fn old_last(buf: &[u8]) -> Option<OldView> {
    if buf.len() < HEADER {
        return None;
    }
    // SAFETY: as in `check`.
    let mut h: Header = unsafe { std::ptr::read_unaligned(buf.as_ptr() as *const Header) };
    if h.flags & FLAG_DONE != 0 && h.len as usize <= buf.len() {
        return old_records(&buf[..h.len as usize]).next();
    }
    let len = HEADER + 8 * h.nargs as usize;
    if len > buf.len() {
        return None;
    }
    h.len = len as u32;
    h.flags &= !(FLAG_DONE | FLAG_OK);
    let args = buf[HEADER..len].chunks_exact(8).map(|w| u64::from_ne_bytes(w.try_into().unwrap())).collect();
    Some(OldView { header: h, args, captures: Vec::new() })
}

pub fn old_records(mut buf: &[u8]) -> impl Iterator<Item = OldView> + '_ {
    std::iter::from_fn(move || {
        let h = old_check(buf).ok()?;
        let len = h.len as usize;
        let (rec, rest) = buf.split_at(len);
        buf = rest;
        let mut off = HEADER;
        let args = (0..h.nargs as usize)
            .map(|i| u64::from_ne_bytes(rec[off + 8 * i..off + 8 * i + 8].try_into().unwrap()))
            .collect();
        off += 8 * h.nargs as usize;
        let mut captures = Vec::new();
        while off + CAPTURE <= len {
            // SAFETY: bounds checked above.
            let c: Capture = unsafe { std::ptr::read_unaligned(rec[off..].as_ptr() as *const Capture) };
            let start = off + CAPTURE;
            let end = start + c.bytes as usize;
            if end > len {
                break;
            }
            captures.push((c, rec[start..end].to_vec()));
            off = start + pad8(c.bytes as usize);
        }
        Some(OldView { header: h, args, captures })
    })
}

/// The old walk over wide records (a version 1 chunk, or a version 2 chunk
/// widened): the views given, then the damage (offset in `buf`, reason).
pub fn old_walk(tid: u32, buf: &[u8], out: &mut Vec<OldView>) -> Result<(), (usize, String)> {
    let mut off = 0usize;
    while off < buf.len() {
        let damaged = |r: String| (off, r);
        let rest = &buf[off..];
        if rest.len() < record::HEADER {
            return Err(damaged(format!("{} bytes left, a record header needs {}", rest.len(), record::HEADER)));
        }
        // SAFETY: a plain integer struct, read from at least its size.
        let h: record::Header = unsafe { std::ptr::read_unaligned(rest.as_ptr() as *const record::Header) };
        if h.tid != tid {
            return Err(damaged(format!("a record of thread {} in thread {}'s chunk", h.tid, tid)));
        }
        let opened = record::HEADER + 8 * h.nargs as usize;
        let len = if h.flags & record::FLAG_DONE != 0 { h.len as usize } else { opened };
        if h.flags & record::FLAG_DONE != 0 && len > rest.len() {
            let v = old_last(&rest[..opened.min(rest.len())])
                .ok_or_else(|| damaged("the last record is cut short".into()))?;
            out.push(v);
            return Ok(());
        }
        if h.flags & record::FLAG_DONE != 0 {
            old_check(rest).map_err(damaged)?;
        } else if opened > rest.len() {
            return Err(damaged(format!("an open record of {} arguments runs past the end", h.nargs)));
        }
        if h.flags & record::FLAG_MOVED == 0 {
            let v = if h.flags & record::FLAG_DONE != 0 {
                old_records(&rest[..len]).next()
            } else {
                old_last(&rest[..len])
            };
            out.push(v.ok_or_else(|| damaged("unreadable record".into()))?);
        }
        off += len;
    }
    Ok(())
}
