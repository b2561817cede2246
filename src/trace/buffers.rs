//! Per-thread record buffers (seed 002). Each application thread fills its
//! own buffer with no lock; a full buffer (or one past the watermark) goes to
//! a lock-free queue for the writer thread, and the thread continues in an
//! empty one. Lossless: a new buffer is made when none is free, so nothing is
//! dropped. Discard: a fixed pool; a record that does not fit while the pool
//! is empty is dropped and counted.

use super::record::MAX_RECORD;
use crossbeam_queue::SegQueue;
use parking_lot::Mutex;
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    Lossless,
    Discard,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Bytes per buffer, rounded up to a page and to at least one record.
    pub size: usize,
    /// Fill level, bytes, at which a buffer is handed to the writer.
    pub watermark: usize,
    pub policy: Policy,
}

impl Default for Settings {
    fn default() -> Self {
        Self { size: 1 << 20, watermark: 1 << 20, policy: Policy::Lossless }
    }
}

impl Settings {
    pub fn normalized(mut self) -> Self {
        let page = 4096;
        self.size = self.size.max(MAX_RECORD).div_ceil(page) * page;
        self.watermark = self.watermark.clamp(1, self.size);
        self
    }
}

pub struct Buf {
    data: UnsafeCell<Box<[u8]>>,
    /// Bytes holding complete records. Written by the owning thread only.
    pub committed: AtomicUsize,
}

// The owning thread writes past `committed`; readers read below it.
unsafe impl Sync for Buf {}
unsafe impl Send for Buf {}

impl Buf {
    fn new(size: usize) -> *mut Buf {
        Box::into_raw(Box::new(Buf { data: UnsafeCell::new(vec![0u8; size].into_boxed_slice()), committed: AtomicUsize::new(0) }))
    }

    /// The complete records.
    ///
    /// # Safety
    /// No one may be resetting the buffer meanwhile.
    pub unsafe fn filled(&self) -> &[u8] {
        let n = self.committed.load(Ordering::Acquire);
        &(&*self.data.get())[..n]
    }

    fn capacity(&self) -> usize {
        unsafe { (&*self.data.get()).len() }
    }
}

/// A thread's place in the pipeline, visible to the flush at exit.
pub struct Slot {
    pub cur: AtomicPtr<Buf>,
}

pub struct Pipeline {
    pub settings: Settings,
    pub full: SegQueue<*mut Buf>,
    free: SegQueue<*mut Buf>,
    pub slots: Mutex<Vec<Arc<Slot>>>,
    pub drops: AtomicU64,
    pub finished: AtomicBool,
    /// Buffers made so far, for tests and the trailer.
    pub made: AtomicUsize,
}

unsafe impl Sync for Pipeline {}
unsafe impl Send for Pipeline {}

impl Pipeline {
    pub fn new(settings: Settings) -> Self {
        Self {
            settings: settings.normalized(),
            full: SegQueue::new(),
            free: SegQueue::new(),
            slots: Mutex::new(Vec::new()),
            drops: AtomicU64::new(0),
            finished: AtomicBool::new(false),
            made: AtomicUsize::new(0),
        }
    }

    fn make(&self) -> *mut Buf {
        self.made.fetch_add(1, Ordering::Relaxed);
        Buf::new(self.settings.size)
    }

    /// A new thread's slot, with its first buffer (and, in discard mode, one
    /// spare for the pool). Takes a lock: once per thread, not per call.
    pub fn register(&self) -> Arc<Slot> {
        let slot = Arc::new(Slot { cur: AtomicPtr::new(self.make()) });
        if self.settings.policy == Policy::Discard {
            self.free.push(self.make());
        }
        self.slots.lock().push(slot.clone());
        slot
    }

    /// Gives the slot's buffer to the writer and installs an empty one.
    /// Returns false when discard mode has no empty buffer to give.
    fn rotate(&self, slot: &Slot) -> bool {
        if self.settings.policy == Policy::Discard && self.free.is_empty() {
            return false;
        }
        let next = match self.free.pop() {
            Some(b) => b,
            None if self.settings.policy == Policy::Lossless => self.make(),
            None => return false,
        };
        let old = slot.cur.swap(next, Ordering::AcqRel);
        self.full.push(old);
        true
    }

    /// Appends one record from the owning thread.
    #[inline]
    pub fn append(&self, slot: &Slot, rec: &[u8]) {
        let mut b = unsafe { &*slot.cur.load(Ordering::Relaxed) };
        let mut used = b.committed.load(Ordering::Relaxed);
        if used + rec.len() > b.capacity() {
            if !self.rotate(slot) {
                self.drops.fetch_add(1, Ordering::Relaxed);
                return;
            }
            b = unsafe { &*slot.cur.load(Ordering::Relaxed) };
            used = b.committed.load(Ordering::Relaxed);
        }
        // SAFETY: only this thread writes above `committed`.
        unsafe { (&mut *b.data.get())[used..used + rec.len()].copy_from_slice(rec) };
        b.committed.store(used + rec.len(), Ordering::Release);
        if used + rec.len() >= self.settings.watermark {
            self.rotate(slot);
        }
    }

    /// The writer is done with `b`: empty it and return it to the pool.
    ///
    /// # Safety
    /// `b` must have come from `full` and be referenced nowhere else.
    pub unsafe fn recycle(&self, b: *mut Buf) {
        (*b).committed.store(0, Ordering::Release);
        self.free.push(b);
    }

    /// A thread ends: its last buffer goes to the writer.
    pub fn retire(&self, slot: &Arc<Slot>) {
        let old = slot.cur.swap(std::ptr::null_mut(), Ordering::AcqRel);
        if !old.is_null() {
            self.full.push(old);
        }
        self.slots.lock().retain(|s| !Arc::ptr_eq(s, slot));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::record::records;

    fn rec(i: u64) -> Vec<u8> {
        let mut v = vec![0u8; 64];
        v[..4].copy_from_slice(&64u32.to_ne_bytes());
        v[40..48].copy_from_slice(&i.to_ne_bytes()); // Header::ret
        v
    }

    fn drain(p: &Pipeline) -> Vec<u64> {
        let mut got = Vec::new();
        while let Some(b) = p.full.pop() {
            for r in records(unsafe { (*b).filled() }) {
                got.push(r.header.ret);
            }
            unsafe { p.recycle(b) };
        }
        got
    }

    #[test]
    fn lossless_never_drops_and_keeps_order() {
        let p = Pipeline::new(Settings { size: 8192, watermark: 4096, policy: Policy::Lossless });
        let s = p.register();
        for i in 0..1000 {
            p.append(&s, &rec(i));
        }
        p.retire(&s);
        assert_eq!(drain(&p), (0..1000).collect::<Vec<_>>());
        assert_eq!(p.drops.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn discard_counts_what_it_drops() {
        let p = Pipeline::new(Settings { size: 8192, watermark: 8192, policy: Policy::Discard });
        let s = p.register();
        for i in 0..1000 {
            p.append(&s, &rec(i));
        }
        p.retire(&s);
        let kept = drain(&p);
        let dropped = p.drops.load(Ordering::Relaxed);
        assert!(dropped > 0);
        assert_eq!(kept.len() as u64 + dropped, 1000);
        assert!(kept.windows(2).all(|w| w[0] < w[1]), "what is kept stays in order");
    }
}
