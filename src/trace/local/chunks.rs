//! A thread's chunks: taking a new one when the current is full, holding
//! the full ones while a call is open, sealing them for the renderer.

use super::{thread_id, wide, Local, BUSY, NO_CHUNK};
use crate::trace::record::{KIND_THREAD, MAX_RECORD};
use crate::trace::writer::{Trace, GENERATION};
use cltap_formats::cltrace::compact::{Prev, DELTA_ARGS};
use std::sync::atomic::Ordering;

impl Local {
    /// A thread's state before its first recorded call: no trace (its
    /// `key` never matches), generation 0 (never the process's).
    pub(super) const EMPTY: Local = Local {
        trace: std::ptr::null(),
        key: BUSY,
        generation: 0,
        tid: 0,
        seq: 0,
        chunk: None,
        data: std::ptr::null_mut(),
        pos: std::ptr::null_mut(),
        end: std::ptr::null_mut(),
        used_at: &NO_CHUNK,
        watermark: 0,
        mark: std::ptr::null_mut(),
        depth: 0,
        held: Vec::new(),
        hsa_calls: 0,
        open_hsa: 0,
        prev: Prev { t0: 0, args: [0; DELTA_ARGS] },
    };

    pub(super) fn new(tr: &Trace, generation: u64) -> Local {
        tr.threads.fetch_add(1, Ordering::Relaxed);
        // `Local` has a destructor, so no `..Local::EMPTY`: the empty
        // state, then what a trace's own state adds to it.
        let mut l = Local::EMPTY;
        l.trace = tr;
        l.key = tr;
        l.generation = generation;
        l.tid = thread_id();
        l.watermark = tr.watermark();
        l.held = Vec::with_capacity(4);
        l
    }

    pub(super) fn trace(&self) -> &'static Trace {
        // SAFETY: traces are never freed (a forked child makes a new one).
        unsafe { &*self.trace }
    }

    /// Stores the end of the records (`pos`, the value just given it,
    /// which the caller still holds) where readers of the chunk see it.
    #[inline(always)]
    pub(super) fn publish(&self, pos: *mut u8) {
        let used = pos as usize - self.data as usize;
        // SAFETY: the current chunk's header (mapped while it is the
        // thread's), or NO_CHUNK.
        unsafe { (*self.used_at).store(used as u64, Ordering::Release) };
    }

    /// Moves to a new chunk. The old one is sealed, or held while a call is
    /// open. False when none can be had: discard mode with the renderer
    /// behind, or a trace that cannot grow.
    #[cold]
    fn rotate(&mut self) -> bool {
        let tr = self.trace();
        let behind =
            tr.discard() && tr.file.pending.load(Ordering::Acquire) >= tr.threads.load(Ordering::Relaxed).max(1);
        let next = if behind { None } else { tr.file.take(self.tid, self.seq) };
        let Some(mut next) = next else { return false };
        self.seq += 1;
        if let Some(old) = self.chunk.take() {
            if self.depth > 0 {
                self.held.push(old);
            } else {
                tr.file.seal(old);
            }
        }
        let data = next.data();
        self.data = data;
        self.pos = data;
        self.end = data.wrapping_add(tr.file.chunk_size - cltap_formats::cltrace::CHUNK_HEADER);
        self.mark = if self.held.is_empty() { data.wrapping_add(self.watermark) } else { data };
        // The mapping stays where it is while the chunk is ours.
        self.used_at = next.used_cell();
        self.prev = Prev::default();
        self.chunk = Some(next);
        if self.seq == 1 {
            self.name_thread();
        }
        true
    }

    /// Records the thread's OS name at the start of its first chunk: once
    /// per thread (and per fork), never per call.
    #[cold]
    fn name_thread(&mut self) {
        let mut buf = [0u8; 16];
        // SAFETY: PR_GET_NAME writes at most 16 bytes, its NUL included,
        // into the buffer given.
        if unsafe { libc::prctl(libc::PR_GET_NAME, buf.as_mut_ptr()) } != 0 {
            return;
        }
        let n = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        let t = crate::trace::tsc::now();
        let w = wide::Wide { kind: KIND_THREAD, fn_id: 0, flags: 0, cmd_id: 0, t0: t, t1: t, ret: 0 };
        wide::write_in(self, &w, &[], Some(&buf[..n]));
    }

    #[cold]
    pub(super) fn drop_record(&mut self) {
        match &self.chunk {
            Some(c) => {
                c.drops_cell().fetch_add(1, Ordering::Relaxed);
            }
            None => self.trace().file.add_drops(1),
        }
    }

    /// Room for a whole record at the end of the chunk.
    #[inline(always)]
    pub(super) fn room(&mut self) -> bool {
        // Without a chunk, all three are null: no room.
        self.pos.wrapping_add(MAX_RECORD) <= self.end || self.rotate()
    }

    fn seal_held(&mut self) {
        let tr = self.trace();
        for c in self.held.drain(..) {
            tr.file.seal(c);
        }
        self.mark = self.data.wrapping_add(self.watermark);
    }

    /// No call is open and `used` reached `mark`: the chunks held meanwhile
    /// are sealed, and the chunk past the watermark too.
    #[cold]
    pub(super) fn settle(&mut self) {
        if !self.held.is_empty() {
            self.seal_held();
        }
        if self.pos as usize - self.data as usize >= self.watermark {
            self.rotate();
        }
    }

    /// The thread ends, or the process: its chunks go to the renderer.
    pub(super) fn retire(&mut self) {
        self.seal_held();
        if let Some(c) = self.chunk.take() {
            self.trace().file.seal(c);
        }
        // A call after this (at the end of the process, the exit handlers
        // that run after cltap's) starts a new chunk.
        self.data = std::ptr::null_mut();
        self.pos = std::ptr::null_mut();
        self.end = std::ptr::null_mut();
        self.mark = std::ptr::null_mut();
        self.used_at = &NO_CHUNK;
    }
}

impl Drop for Local {
    fn drop(&mut self) {
        // A thread that ends hands its records to the renderer, unless they
        // belong to a trace this process no longer owns (after fork).
        if self.generation == GENERATION.load(Ordering::Acquire)
            && std::ptr::eq(crate::trace::writer::current_ptr(), self.trace)
            && self.depth == 0
        {
            self.retire();
        }
    }
}
