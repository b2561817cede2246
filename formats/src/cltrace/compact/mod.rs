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

use super::record::{self, FLAG_CMD, FLAG_DONE, FLAG_MOVED, FLAG_OK, KIND_HSA_CALL};

/// State bits of the first byte beyond the wide record's flags (which it
/// shares: CMD, OK, DONE, MOVED).
pub const STATE_HSA: u8 = 0x10;
/// The rest is a version 1 record, whole (kinds other than calls).
pub const STATE_WIDE: u8 = 0x20;
pub(super) const STATE_FLAGS: u8 = FLAG_CMD | FLAG_OK | FLAG_DONE | FLAG_MOVED;

/// A capture's value is one varint word: 8 bytes, total 1 (an output value).
pub const CAP_WORD: u8 = 0x40;
/// The capture's `total` equals its `bytes` and is not written.
pub const CAP_SAME: u8 = 0x80;
pub(super) const CAP_TAG: u8 = 0x3F;
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
/// Every call writes several (a cheap call's record is nine varints), so
/// the lengths it meets most are written without a loop: one byte (an
/// unchanged argument, a status, a function id) and two or three (a start
/// time's delta, a duration: hundreds to a few hundred thousand ticks).
/// Only the bytes of the varint are stored, never past it, so the chunk
/// past `used` stays as it was. `put_raw_loop` is the plain form, and the
/// tests hold this one to it.
///
/// # Safety
/// `p` must be writable for [`VARINT_MAX`] bytes.
#[inline(always)]
pub unsafe fn put_raw(p: *mut u8, v: u64) -> usize {
    if v < 1 << 7 {
        // SAFETY: `p` is valid for this access: `p` must be writable for [`VARINT_MAX`] bytes (# Safety).
        unsafe { *p = v as u8 };
        return 1;
    }
    // Below 2^21, `v` = a + b·2^7 + c·2^14 (each under 2^7); adding
    // b·2^7 + c·2^14, then c·2^15, moves b and c a bit up each, to bytes 1
    // and 2: a + b·2^8 + c·2^16, the varint's bytes before their
    // continuation bits.
    // (Wrapping: past 2^21 the sum is not used, and may overflow.)
    let spread = v.wrapping_add(v & !0x7F).wrapping_add((v & !0x3FFF) << 1);
    if v < 1 << 14 {
        // SAFETY: `p as *mut u16` is writable, as the caller promises (# Safety).
        unsafe { std::ptr::write_unaligned(p as *mut u16, (spread as u16 | 0x80).to_le()) };
        return 2;
    }
    if v < 1 << 21 {
        // SAFETY: `p as *mut u16` is writable, as the caller promises (# Safety).
        unsafe { std::ptr::write_unaligned(p as *mut u16, (spread as u16 | 0x8080).to_le()) };
        // SAFETY: `p.add(2)` is valid for this access, as the caller promises (# Safety).
        unsafe { *p.add(2) = (v >> 14) as u8 };
        return 3;
    }
    // SAFETY: `put_raw_loop` needs room for a varint at the pointer, inside the bytes `p` has (# Safety).
    unsafe { put_raw_loop(p, v) }
}

/// LEB128 a byte at a time: any value, one loop turn per byte.
///
/// # Safety
/// As for [`put_raw`].
#[inline]
pub unsafe fn put_raw_loop(p: *mut u8, mut v: u64) -> usize {
    let mut i = 0;
    while v >= 0x80 {
        // SAFETY: `p.add(i)` is valid for this access: As for [`put_raw`] (# Safety).
        unsafe { *p.add(i) = v as u8 | 0x80 };
        v >>= 7;
        i += 1;
    }
    // SAFETY: `p.add(i)` is valid for this access, as the caller promises (# Safety).
    unsafe { *p.add(i) = v as u8 };
    i + 1
}

/// Reads the varint at `p`: its value and length.
///
/// # Safety
/// `p` must hold a whole varint, as [`put_raw`] writes it.
pub unsafe fn get_raw(p: *const u8) -> (u64, usize) {
    let mut v = 0u64;
    let mut i = 0;
    loop {
        // SAFETY: `p.add(i)` is valid for this access: `p` must hold a whole varint, as [`put_raw`] writes it (#
        // Safety).
        let b = unsafe { *p.add(i) };
        v |= ((b & 0x7F) as u64) << (7 * i).min(63);
        i += 1;
        if b & 0x80 == 0 || i == VARINT_MAX {
            return (v, i);
        }
    }
}

/// Argument words written as a delta from the same word of the previous
/// record (the first ones; later words are written whole).
pub const DELTA_ARGS: usize = 16;

/// The longest opened part [`put_opened`] writes: the state and count
/// bytes, then the function, start time, command id and 255 words, each
/// a varint.
pub const OPENED_MAX: usize = 2 + (3 + 255) * VARINT_MAX;

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
    // SAFETY: `p` is valid for this access: `p` must be writable for `3 + (3 + args.len()) * VARINT_MAX` bytes, and
    // `args.len()` at most 255 (# Safety).
    unsafe { *p = state };
    // SAFETY: `put_raw` needs room for a varint at the pointer, inside the bytes `p` has (# Safety).
    let mut n = 1 + unsafe { put_raw(p.add(1), fn_id as u64) };
    // SAFETY: `p.add(n)` is valid for this access, as the caller promises (# Safety).
    unsafe { *p.add(n) = args.len() as u8 };
    n += 1;
    // SAFETY: `put_raw` needs room for a varint at the pointer, inside the bytes `p` has (# Safety).
    n += unsafe { put_raw(p.add(n), zigzag(t0.wrapping_sub(prev.t0) as i64)) };
    prev.t0 = t0;
    if state & (FLAG_CMD | STATE_HSA) != 0 {
        // SAFETY: `put_raw` needs room for a varint at the pointer, inside the bytes `p` has (# Safety).
        n += unsafe { put_raw(p.add(n), cmd) };
    }
    // A call repeated, or on the same handles as the call before, has
    // every delta under 64: then each is its own one-byte varint, stored
    // with no test of its own.
    let k = args.len().min(DELTA_ARGS);
    let mut z = [0u64; DELTA_ARGS];
    let mut all = 0;
    for ((z, &a), b) in z.iter_mut().zip(args).zip(prev.args.iter_mut()) {
        *z = zigzag(a.wrapping_sub(*b) as i64);
        *b = a;
        all |= *z;
    }
    if all < 0x80 {
        for (i, &d) in z[..k].iter().enumerate() {
            // SAFETY: `p.add(n + i)` is valid for this access, as the caller promises (# Safety).
            unsafe { *p.add(n + i) = d as u8 };
        }
        n += k;
    } else {
        for &d in &z[..k] {
            // SAFETY: `put_raw` needs room for a varint at the pointer, inside the bytes `p` has (# Safety).
            n += unsafe { put_raw(p.add(n), d) };
        }
    }
    for &a in &args[k..] {
        // SAFETY: `put_raw` needs room for a varint at the pointer, inside the bytes `p` has (# Safety).
        n += unsafe { put_raw(p.add(n), a) };
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
    // SAFETY: `p`, `p.add(1)` are valid for this access: `p` must be writable for `2 + 2 * VARINT_MAX` bytes (#
    // Safety).
    unsafe {
        *p = tag | same;
        *p.add(1) = param;
    }
    // SAFETY: `put_raw` needs room for a varint at the pointer, inside the bytes `p` has (# Safety).
    let mut n = 2 + unsafe { put_raw(p.add(2), bytes) };
    if same == 0 {
        // SAFETY: `put_raw` needs room for a varint at the pointer, inside the bytes `p` has (# Safety).
        n += unsafe { put_raw(p.add(n), total) };
    }
    n
}

/// A one-word capture (an output value).
///
/// # Safety
/// `p` must be writable for `2 + VARINT_MAX` bytes.
#[inline(always)]
pub unsafe fn put_capture_word(p: *mut u8, tag: u8, param: u8, w: u64) -> usize {
    // SAFETY: `p`, `p.add(1)` are valid for this access: `p` must be writable for `2 + VARINT_MAX` bytes (# Safety).
    unsafe {
        *p = tag | CAP_WORD;
        *p.add(1) = param;
    }
    // SAFETY: `put_raw` needs room for a varint at the pointer, inside the bytes `p` has (# Safety).
    2 + unsafe { put_raw(p.add(2), w) }
}

mod read;
#[cfg(test)]
mod tests;

pub use read::{widen, Damage, Decoder, Read};

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
    read::widen_after(&out, h.tid, *prev, &mut back).ok()?;
    (back == rec).then(|| {
        *prev = next;
        out
    })
}
