//! Where a call's captures are written: the wide record's layout or the
//! compact one, behind one trait, so that what to capture is chosen once.

use super::super::record::*;
use cltap_formats::cltrace::compact;

/// Where a call's captures go: the wide record's layout ([`Out`]) or the
/// compact one ([`Compact`]). The choice of what to capture is shared.
/// Public only for [`Captured::capture`], which generated code overrides.
#[doc(hidden)]
pub trait Sink {
    /// Appends a capture of `bytes` from `src`, truncated to fit.
    ///
    /// # Safety
    /// `src` must be readable for `bytes` bytes.
    unsafe fn bytes(&mut self, param: usize, tag: Tag, src: *const u8, bytes: usize, total: u64);
    /// Appends one value the callee wrote.
    fn word(&mut self, param: usize, tag: Tag, w: u64);
    /// From here on, captures whose size [`captures_worst`] does not bound
    /// (the local size, whose length is the caller's).
    fn unbounded(&mut self) {}
}

/// Captures in the wide layout: a 16-byte header, data padded to 8.
pub(super) struct Out<'a> {
    pub(super) buf: &'a mut [u8],
    pub(super) len: usize,
}

impl Sink for Out<'_> {
    /// # Safety
    /// `src` must be readable for `bytes` bytes (it may be dangling when `bytes` is 0).
    #[inline]
    unsafe fn bytes(&mut self, param: usize, tag: Tag, src: *const u8, bytes: usize, total: u64) {
        let room = self.buf.len() - self.len;
        if room < CAPTURE + 8 {
            return;
        }
        let bytes = bytes.min(room - CAPTURE - 8);
        let c = Capture { param: param as u8, tag: tag as u8, _pad: 0, bytes: bytes as u32, total };
        // SAFETY: the address written here is writable (# Safety).
        unsafe { std::ptr::write_unaligned(self.buf[self.len..].as_mut_ptr() as *mut Capture, c) };
        self.len += CAPTURE;
        if bytes > 0 {
            // SAFETY: the copy's source is readable and its destination writable for the count, as the caller
            // promises (# Safety).
            unsafe { std::ptr::copy_nonoverlapping(src, self.buf[self.len..].as_mut_ptr(), bytes) };
        }
        self.len += pad8(bytes);
    }

    #[inline]
    fn word(&mut self, param: usize, tag: Tag, w: u64) {
        // SAFETY: a local word, 8 bytes.
        unsafe { self.bytes(param, tag, &w as *const u64 as *const u8, 8, 1) }
    }
}

/// Captures in the compact layout ([`compact`]); one byte is always kept
/// for the end mark.
pub(super) struct Compact<'a> {
    pub(super) buf: &'a mut [u8],
    pub(super) len: usize,
    /// Whether each capture tests the room left: unless every capture the
    /// function can have fits whatever came before ([`captures_worst`]),
    /// known when the function is.
    pub(super) checked: bool,
}

impl Compact<'_> {
    #[inline(always)]
    fn room(&self) -> usize {
        self.buf.len() - self.len - 1
    }
}

impl Sink for Compact<'_> {
    /// # Safety
    /// `src` must be readable for `bytes` bytes (it may be dangling when `bytes` is 0).
    #[inline(always)]
    unsafe fn bytes(&mut self, param: usize, tag: Tag, src: *const u8, bytes: usize, total: u64) {
        let bytes = if self.checked {
            // The room for the data after the longest head, if any: one
            // test says whether the capture fits at all and bounds its data.
            let Some(fit) = self.room().checked_sub(CAPTURE_HEAD) else { return };
            bytes.min(fit)
        } else {
            bytes
        };
        // SAFETY: `self.buf.as_mut_ptr().add(self.len)` stays inside the buffer it indexes (# Safety).
        let p = unsafe { self.buf.as_mut_ptr().add(self.len) };
        // SAFETY: `put_capture_head`'s # Safety follows from this fn's.
        let n = unsafe { compact::put_capture_head(p, tag as u8, param as u8, bytes as u64, total) };
        // SAFETY: `copy_short`'s # Safety follows from this fn's.
        unsafe { copy_short(src, p.add(n), bytes) };
        self.len += n + bytes;
    }

    #[inline(always)]
    fn word(&mut self, param: usize, tag: Tag, w: u64) {
        if !self.checked || self.room() >= 2 + compact::VARINT_MAX {
            // SAFETY: room checked above, or bounded for the function.
            self.len +=
                unsafe { compact::put_capture_word(self.buf.as_mut_ptr().add(self.len), tag as u8, param as u8, w) };
        }
    }

    #[inline(always)]
    fn unbounded(&mut self) {
        self.checked = true;
    }
}

/// The longest compact capture head: tag, parameter, `bytes` and `total`.
pub(super) const CAPTURE_HEAD: usize = 2 + 2 * compact::VARINT_MAX;

/// Copies `n` bytes. Most captures are a few bytes (a kernel argument, an
/// info query's answer), which two overlapping loads and stores copy in
/// place, where a call to `memcpy` costs more than the copy.
///
/// # Safety
/// `src` readable and `dst` writable for `n` bytes; they do not overlap.
/// The sizes most captures have (4 and 8: an `int` or a handle passed to
/// `clSetKernelArg`, an info query's answer) are tested first.
#[inline(always)]
pub(super) unsafe fn copy_short(src: *const u8, dst: *mut u8, n: usize) {
    use std::ptr::{read_unaligned as get, write_unaligned as put};
    if n >= 8 {
        if n > 16 {
            // SAFETY: `std::ptr::copy_nonoverlapping(src, dst, n)`: source readable, destination writable, for the
            // count (# Safety).
            unsafe { std::ptr::copy_nonoverlapping(src, dst, n) };
            return;
        }
        // SAFETY: `src as *const u64` is readable; `src.add(n - 8) as *const u64` is readable, as the caller promises
        // (# Safety).
        let (a, b) = unsafe { (get(src as *const u64), get(src.add(n - 8) as *const u64)) };
        // SAFETY: `dst as *mut u64` is writable, as the caller promises (# Safety).
        unsafe { put(dst as *mut u64, a) };
        // SAFETY: `dst.add(n - 8) as *mut u64` is writable, as the caller promises (# Safety).
        unsafe { put(dst.add(n - 8) as *mut u64, b) };
    } else if n >= 4 {
        // SAFETY: `src as *const u32` is readable; `src.add(n - 4) as *const u32` is readable, as the caller promises
        // (# Safety).
        let (a, b) = unsafe { (get(src as *const u32), get(src.add(n - 4) as *const u32)) };
        // SAFETY: `dst as *mut u32` is writable, as the caller promises (# Safety).
        unsafe { put(dst as *mut u32, a) };
        // SAFETY: `dst.add(n - 4) as *mut u32` is writable, as the caller promises (# Safety).
        unsafe { put(dst.add(n - 4) as *mut u32, b) };
    } else if n > 0 {
        // First, middle and last: every byte of 1 to 3.
        // SAFETY: `src`, `src.add(n / 2)`, `src.add(n - 1)` are valid for this access, as the caller promises (#
        // Safety).
        let (a, b, c) = unsafe { (*src, *src.add(n / 2), *src.add(n - 1)) };
        // SAFETY: `dst`, `dst.add(n / 2)`, `dst.add(n - 1)` are valid for this access, as the caller promises (#
        // Safety).
        unsafe {
            *dst = a;
            *dst.add(n / 2) = b;
            *dst.add(n - 1) = c;
        }
    }
}
