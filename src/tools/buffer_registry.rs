//! Tool buffers at work: every buffer of the process, the records the
//! renderer gives them, and one background thread (`cltap-tools`) that
//! calls the tools' callbacks, so that no callback ever runs on one of the
//! application's threads, nor on the renderer's.
//!
//! Each buffer has two storages of its size: one being filled, one spare.
//! Handing a buffer over swaps them: the full one goes to the delivery
//! thread, and comes back as the spare once its callback has returned.
//!
//! - **Lossless**: a buffer at its watermark, or too full for the next
//!   record, is handed over, and the producer (the renderer, never an
//!   application thread) waits for the spare if the callback still has it.
//!   Nothing is dropped; a slow callback slows rendering, not the
//!   application, whose records wait in the trace file.
//! - **Discard**: a buffer at its watermark is handed over only if its
//!   spare is free; otherwise it fills on, and a record that does not fit
//!   is dropped and counted. The count goes with the next batch.
//!
//! A flush gives the buffers what the trace holds now (the registry's
//! `source`), hands the buffer over and waits until its callback returned.
//!
//! Locks: the renderer's lock (held while records are given) is always taken
//! before this registry's, never after.

use super::buffer::{Batch, Buffer, BufferError, Policy, Push, Storage};
use super::buffer_feed::{class_of, Progress};
use crate::fork::condvar::Condvar;
use crate::fork::lock::{Mutex, MutexGuard};
use std::cell::Cell;
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// A buffer's callback: its id, the records (each one trace record in its
/// wide form, 8-byte aligned), and the records dropped since the last
/// batch.
pub type Callback = Arc<dyn Fn(u64, &[&[u8]], u64) + Send + Sync>;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    #[error("no buffer has this id")]
    NotFound,
    #[error("called from a buffer callback: cltap's delivery thread would wait for itself")]
    InCallback,
    #[error(transparent)]
    Buffer(#[from] BufferError),
}

/// What a buffer has done so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Stats {
    /// Batches handed to the delivery thread.
    pub queued: u64,
    /// Batches whose callback returned.
    pub delivered: u64,
    /// Bytes waiting in the buffer.
    pub used: usize,
    /// Records dropped and not yet reported.
    pub drops: u64,
}

struct Entry {
    buffer: Buffer,
    /// The other storage; `None` while a batch of this buffer waits for
    /// its callback or is in it.
    spare: Option<Storage>,
    kinds: u32,
    callback: Callback,
    queued: u64,
    delivered: u64,
}

struct State {
    entries: BTreeMap<u64, Entry>,
    queue: VecDeque<(u64, Batch)>,
    next_id: u64,
    thread: bool,
    /// The records have all been given (the end of the process).
    ended: bool,
    progress: Progress,
}

pub struct Registry {
    state: Mutex<State>,
    cv: Condvar,
    /// The classes some buffer takes: 0 lets the renderer skip giving.
    classes: AtomicU32,
    /// Gives the buffers what the trace holds now (before a flush).
    source: Option<fn()>,
    /// The same, set by the trace when it starts (the registry knows
    /// nothing of the trace).
    late_source: std::sync::OnceLock<fn()>,
}

thread_local! {
    /// This thread delivers batches.
    static DELIVERING: Cell<bool> = const { Cell::new(false) };
}

fn on_delivery_thread() -> bool {
    DELIVERING.try_with(|d| d.get()).unwrap_or(false)
}

/// The process's buffers, fed by the trace's renderer; the trace names its
/// source when it starts.
pub static GLOBAL: Registry = Registry::new(None);

impl Registry {
    pub const fn new(source: Option<fn()>) -> Registry {
        Registry {
            state: Mutex::new(State {
                entries: BTreeMap::new(),
                queue: VecDeque::new(),
                next_id: 1,
                thread: false,
                ended: false,
                progress: Progress::new(),
            }),
            cv: Condvar::new(),
            classes: AtomicU32::new(0),
            source,
            late_source: std::sync::OnceLock::new(),
        }
    }

    /// What gives the buffers what the trace holds now, when the registry
    /// was made without one. The first one set stays.
    pub fn set_source(&self, f: fn()) {
        let _ = self.late_source.set(f);
    }

    /// Whether any buffer takes records (one atomic load).
    #[inline]
    pub fn wanted(&self) -> bool {
        self.classes.load(Ordering::Relaxed) != 0
    }

    /// A new buffer, taking no records until configured. Returns its id
    /// (never 0).
    pub fn create(
        &self,
        size: usize,
        watermark: usize,
        policy: Policy,
        callback: Callback,
    ) -> Result<u64, RegistryError> {
        let buffer = Buffer::new(size, watermark, policy, super::buffer::page_size())?;
        let spare = Some(Storage::with_capacity(buffer.size()));
        let mut st = self.state.lock();
        let id = st.next_id;
        st.next_id += 1;
        st.entries.insert(id, Entry { buffer, spare, kinds: 0, callback, queued: 0, delivered: 0 });
        Ok(id)
    }

    /// The record classes buffer `id` takes (`buffer_feed::RECORDS_*`,
    /// or-ed); 0 takes none.
    pub fn configure(&self, id: u64, kinds: u32) -> Result<(), RegistryError> {
        let mut st = self.state.lock();
        st.entries.get_mut(&id).ok_or(RegistryError::NotFound)?.kinds = kinds;
        self.reclass(&st);
        Ok(())
    }

    fn reclass(&self, st: &State) {
        self.classes.store(st.entries.values().fold(0, |a, e| a | e.kinds), Ordering::Relaxed);
    }

    pub fn stats(&self, id: u64) -> Option<Stats> {
        let st = self.state.lock();
        st.entries.get(&id).map(|e| Stats {
            queued: e.queued,
            delivered: e.delivered,
            used: e.buffer.used(),
            drops: e.buffer.drops(),
        })
    }

    /// A rendered chunk (`buf` its records, thread `tid`'s): each record
    /// goes to every buffer that takes its class.
    pub fn rendered(&self, index: u64, tid: u32, buf: &[u8]) {
        if !self.wanted() {
            return;
        }
        let mut st = self.state.lock();
        let mut p = std::mem::take(&mut st.progress);
        p.rendered(index, buf, tid, |kind, rec| self.offer(&mut st, kind, rec));
        st.progress = p;
    }

    /// A chunk not rendered yet, for a flush: its complete records go out
    /// now and are not given again when it is rendered. `own`: every write
    /// into it is visible to this thread (the caller's chunk, or a sealed
    /// one).
    pub fn live(&self, index: u64, tid: u32, own: bool, buf: &[u8]) {
        if !self.wanted() {
            return;
        }
        let mut st = self.state.lock();
        let mut p = std::mem::take(&mut st.progress);
        p.live(index, buf, tid, own, |kind, rec| self.offer(&mut st, kind, rec));
        st.progress = p;
    }

    /// Gives one record straight to buffer `id`, whatever it is configured
    /// for (tests of the delivery, with records of any size).
    pub fn push_to(&self, id: u64, rec: &[u8]) -> Result<(), RegistryError> {
        let mut st = self.state.lock();
        if !st.entries.contains_key(&id) {
            return Err(RegistryError::NotFound);
        }
        self.offer_one(&mut st, id, rec);
        Ok(())
    }

    fn offer(&self, st: &mut MutexGuard<'_, State>, kind: u16, rec: &[u8]) {
        // After the end the tools are unloaded: nothing more reaches them.
        if st.ended {
            return;
        }
        let class = class_of(kind);
        let mut from = 0;
        while let Some(id) = st.entries.range(from..).find(|(_, e)| e.kinds & class != 0).map(|(id, _)| *id) {
            from = id + 1;
            self.offer_one(st, id, rec);
        }
    }

    fn offer_one(&self, st: &mut MutexGuard<'_, State>, id: u64, rec: &[u8]) {
        loop {
            let Some(e) = st.entries.get_mut(&id) else { return };
            let lossless = e.buffer.policy() == Policy::Lossless;
            match e.buffer.push(rec) {
                Push::Stored => return,
                Push::Watermark => {
                    self.hand_over(st, id, lossless);
                    return;
                }
                Push::NoRoom => {
                    if !self.hand_over(st, id, true) {
                        // Only on the delivery thread itself (a callback
                        // that ended the process): it cannot wait for itself.
                        if let Some(e) = st.entries.get_mut(&id) {
                            e.buffer.count_drop();
                        }
                        return;
                    }
                }
                Push::Dropped => {
                    if e.buffer.at_watermark() {
                        self.hand_over(st, id, false);
                    }
                    return;
                }
            }
        }
    }

    /// Hands buffer `id` to the delivery thread. When its spare is still in
    /// delivery: waits for it if `wait`, else leaves the buffer as it is.
    /// True when handed over.
    fn hand_over(&self, st: &mut MutexGuard<'_, State>, id: u64, wait: bool) -> bool {
        loop {
            let Some(e) = st.entries.get_mut(&id) else { return false };
            if let Some(spare) = e.spare.take() {
                let batch = e.buffer.swap(spare);
                e.queued += 1;
                st.queue.push_back((id, batch));
                if !st.thread {
                    st.thread = self.start_thread();
                }
                self.cv.notify_all();
                return true;
            }
            if !wait || on_delivery_thread() {
                return false;
            }
            self.cv.wait(st);
        }
    }

    fn start_thread(&self) -> bool {
        // SAFETY (lifetime): registries live for the whole process: the
        // global one is a static, and tests leak theirs.
        let me: &'static Registry = unsafe { &*(self as *const Registry) };
        std::thread::Builder::new().name("cltap-tools".into()).spawn(move || me.deliver()).is_ok()
    }

    /// The delivery thread: one batch at a time, in the order handed over.
    fn deliver(&'static self) {
        block_signals();
        DELIVERING.with(|d| d.set(true));
        let mut st = self.state.lock();
        loop {
            let Some((id, batch)) = st.queue.pop_front() else {
                self.cv.wait(&mut st);
                continue;
            };
            let callback = st.entries.get(&id).map(|e| e.callback.clone());
            MutexGuard::unlocked(&mut st, || {
                if let Some(cb) = callback {
                    let records = batch.storage.records();
                    // A panic in a callback written in Rust must not end
                    // delivery; a C callback cannot unwind here.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| cb(id, &records, batch.drops)));
                }
            });
            if let Some(e) = st.entries.get_mut(&id) {
                e.spare = Some(batch.storage);
                e.delivered += 1;
            }
            self.cv.notify_all();
        }
    }

    /// Gives the buffers what the trace holds now, hands buffer `id` over
    /// and returns once its callback has returned. Not from a callback.
    pub fn flush(&self, id: u64) -> Result<(), RegistryError> {
        if on_delivery_thread() {
            return Err(RegistryError::InCallback);
        }
        let ended = {
            let st = self.state.lock();
            if !st.entries.contains_key(&id) {
                return Err(RegistryError::NotFound);
            }
            st.ended
        };
        if !ended {
            if let Some(f) = self.source.or_else(|| self.late_source.get().copied()) {
                f();
            }
        }
        let mut st = self.state.lock();
        self.deliver_and_wait(&mut st, id)
    }

    fn deliver_and_wait(&self, st: &mut MutexGuard<'_, State>, id: u64) -> Result<(), RegistryError> {
        let e = st.entries.get(&id).ok_or(RegistryError::NotFound)?;
        if !e.buffer.is_idle() {
            self.hand_over(st, id, true);
        }
        let target = st.entries.get(&id).map_or(0, |e| e.queued);
        while st.entries.get(&id).is_some_and(|e| e.delivered < target) {
            self.cv.wait(st);
        }
        Ok(())
    }

    /// Flushes buffer `id`, then forgets it. Not from a callback.
    pub fn destroy(&self, id: u64) -> Result<(), RegistryError> {
        self.flush(id)?;
        let mut st = self.state.lock();
        // Records may have come between the flush and this lock: the buffer
        // takes no more, what it holds is delivered, then it goes, all
        // under the one lock.
        st.entries.get_mut(&id).ok_or(RegistryError::NotFound)?.kinds = 0;
        self.reclass(&st);
        self.deliver_and_wait(&mut st, id)?;
        st.entries.remove(&id);
        self.reclass(&st);
        Ok(())
    }

    /// The end of the records: every buffer's rest is delivered, and this
    /// returns once every callback has returned. Later flushes only hand
    /// over what their buffer holds. Runs once.
    pub fn end(&self) {
        let mut st = self.state.lock();
        if std::mem::replace(&mut st.ended, true) || on_delivery_thread() {
            return;
        }
        let ids: Vec<u64> = st.entries.keys().copied().collect();
        for id in ids {
            let _ = self.deliver_and_wait(&mut st, id);
        }
    }

    pub fn ended(&self) -> bool {
        self.state.lock().ended
    }
}

impl Registry {
    /// In a child of `fork` (with the state's lock held since the parent's
    /// `fork` began): no delivery thread was copied, so batches queued or
    /// in delivery are gone with it; their buffers get their spare back.
    /// The child writes a trace of its own, whose chunks are numbered anew.
    fn forked(&self, st: &mut State) {
        st.thread = false;
        st.queue.clear();
        st.progress = Progress::new();
        for e in st.entries.values_mut() {
            if e.spare.is_none() {
                e.spare = Some(Storage::with_capacity(e.buffer.size()));
            }
            e.delivered = e.queued;
        }
    }
}

/// The fork's prepare handler's part ([`crate::fork`]): keeps the
/// registry's lock out of `fork` (no thread of the parent holds it in the
/// child), until [`fork_parent`] or [`fork_child`].
pub(crate) fn fork_prepare() {
    crate::fork::lock::hold(&GLOBAL.state);
}

/// # Safety
/// [`fork_prepare`] ran on this thread, and neither part since.
pub(crate) unsafe fn fork_parent() {
    // SAFETY: `fork_prepare` locked it on this thread (# Safety).
    unsafe { crate::fork::lock::release(&GLOBAL.state) };
}

/// Repairs the child's registry (see `Registry::forked`), then releases it.
///
/// # Safety
/// As [`fork_parent`], in the child, whose one thread this is.
pub(crate) unsafe fn fork_child() {
    // SAFETY: this thread holds the lock (# Safety) and is the child's only one: nothing else reaches the state.
    let st = unsafe { &mut *GLOBAL.state.data_ptr() };
    // An atfork handler is `extern "C"`: no panic leaves it.
    crate::panics::catch("the buffers' fork handler", "the child's buffers may be stale", (), || GLOBAL.forked(st));
    // SAFETY: as above.
    unsafe { crate::fork::lock::release(&GLOBAL.state) };
}

/// Signal handlers never run on the delivery thread (as on cltap's other
/// threads): a fatal signal's rendering may wait for it.
fn block_signals() {
    // SAFETY: masks signals for the calling thread only.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_BLOCK, &all, std::ptr::null_mut());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn registry() -> &'static Registry {
        Box::leak(Box::new(Registry::new(None)))
    }

    type Seen = Arc<Mutex<Vec<(Vec<Vec<u8>>, u64, String)>>>;

    /// A callback that keeps every batch, with its thread's name.
    fn keeper() -> (Callback, Seen) {
        let seen: Seen = Arc::default();
        let s = seen.clone();
        let cb: Callback = Arc::new(move |_, recs, drops| {
            let name = std::thread::current().name().unwrap_or("").to_string();
            s.lock().push((recs.iter().map(|r| r.to_vec()).collect(), drops, name));
        });
        (cb, seen)
    }

    fn rec(n: usize, tag: u8) -> Vec<u8> {
        vec![tag; n]
    }

    /// ROCprofiler-SDK's buffered-services example through the delivery thread: the first five
    /// 8-byte records are held, the sixth hands six over.
    #[test]
    fn six_eight_byte_records_reach_the_watermark_of_48() {
        let r = registry();
        let (cb, seen) = keeper();
        let id = r.create(4096, 48, Policy::Lossless, cb).unwrap();
        for i in 0..5 {
            r.push_to(id, &rec(8, i)).unwrap();
            assert_eq!(r.stats(id).unwrap().queued, 0, "after {} records", i + 1);
        }
        r.push_to(id, &rec(8, 5)).unwrap();
        assert_eq!(r.stats(id).unwrap().queued, 1);
        r.flush(id).unwrap();
        let seen = seen.lock();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].0, (0..6).map(|i| rec(8, i)).collect::<Vec<_>>());
        assert_eq!(seen[0].2, "cltap-tools");
    }

    #[test]
    fn lossless_with_a_slow_callback_loses_nothing() {
        let r = registry();
        let seen: Seen = Arc::default();
        let s = seen.clone();
        let cb: Callback = Arc::new(move |_, recs, drops| {
            std::thread::sleep(std::time::Duration::from_millis(2));
            s.lock().push((recs.iter().map(|r| r.to_vec()).collect(), drops, String::new()));
        });
        let id = r.create(4096, 4096, Policy::Lossless, cb).unwrap();
        let n = 5000usize;
        for i in 0..n {
            r.push_to(id, &(i as u64).to_le_bytes().repeat(1 + i % 5)).unwrap();
        }
        r.flush(id).unwrap();
        let seen = seen.lock();
        let all: Vec<u64> = seen
            .iter()
            .flat_map(|(b, _, _)| b.iter().map(|x| u64::from_le_bytes(x[..8].try_into().unwrap())))
            .collect();
        assert_eq!(all, (0..n as u64).collect::<Vec<_>>());
        assert!(seen.iter().all(|(_, d, _)| *d == 0));
        // Each batch was handed over when the next record did not fit.
        for w in seen.windows(2) {
            let bytes: usize = w[0].0.iter().map(Vec::len).sum();
            assert!(bytes + w[1].0[0].len() > 4096, "a batch of {bytes} bytes left room for {}", w[1].0[0].len());
        }
    }

    /// While the first batch's callback is held, the buffer fills and then
    /// drops; the drops arrive with the next batch.
    #[test]
    fn discard_counts_its_drops_while_the_callback_is_busy() {
        let r = registry();
        let (release, held) = mpsc::channel::<()>();
        let held = Mutex::new(held);
        let (cb_in, seen) = keeper();
        let first = std::sync::atomic::AtomicBool::new(true);
        let cb: Callback = Arc::new(move |id, recs, drops| {
            if first.swap(false, Ordering::AcqRel) {
                held.lock().recv().unwrap();
            }
            cb_in(id, recs, drops);
        });
        let id = r.create(4096, 2048, Policy::Discard, cb).unwrap();
        let produced = 200u64;
        for i in 0..produced {
            r.push_to(id, &rec(64, i as u8)).unwrap();
        }
        // 32 records reached the watermark and went; 64 filled the buffer
        // while the callback was held; the rest were dropped.
        assert_eq!(r.stats(id).unwrap(), Stats { queued: 1, delivered: 0, used: 4096, drops: produced - 32 - 64 });
        release.send(()).unwrap();
        r.flush(id).unwrap();
        let seen = seen.lock();
        let kept: usize = seen.iter().map(|(b, _, _)| b.len()).sum();
        let dropped: u64 = seen.iter().map(|(_, d, _)| *d).sum();
        assert_eq!((seen.len(), kept as u64 + dropped), (2, produced));
        assert_eq!(dropped, produced - 96);
    }

    #[test]
    fn a_callback_cannot_flush_or_destroy_and_destroy_delivers_the_rest() {
        let r = registry();
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let cb: Callback = Arc::new(move |id, recs, _| tx.lock().send((recs.len(), id)).unwrap());
        let id = r.create(4096, 4096, Policy::Lossless, cb).unwrap();
        r.push_to(id, &rec(8, 1)).unwrap();
        r.destroy(id).unwrap();
        assert_eq!(rx.try_recv().unwrap(), (1, id));
        assert_eq!(r.flush(id), Err(RegistryError::NotFound));

        let r2 = registry();
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let r2_addr = r2 as *const Registry as usize;
        let cb: Callback = Arc::new(move |id, _, _| {
            let r2: &Registry = unsafe { &*(r2_addr as *const Registry) };
            tx.lock().send((r2.flush(id), r2.destroy(id))).unwrap();
        });
        let id = r2.create(4096, 0, Policy::Lossless, cb).unwrap();
        r2.push_to(id, &rec(8, 1)).unwrap();
        assert_eq!(rx.recv().unwrap(), (Err(RegistryError::InCallback), Err(RegistryError::InCallback)));
    }

    #[test]
    fn records_go_to_the_buffers_that_take_their_class() {
        use crate::trace::record::{encode, Header, FLAG_DONE, KIND_HSA_DISPATCH, KIND_OPENCL_CALL};
        let r = registry();
        let (cb_api, api) = keeper();
        let (cb_all, all) = keeper();
        let a = r.create(4096, 4096, Policy::Lossless, cb_api).unwrap();
        let b = r.create(4096, 4096, Policy::Lossless, cb_all).unwrap();
        let unconfigured = r.create(4096, 4096, Policy::Lossless, keeper().0).unwrap();
        assert!(!r.wanted());
        r.configure(a, super::super::buffer_feed::RECORDS_API).unwrap();
        r.configure(b, super::super::buffer_feed::RECORDS_ALL).unwrap();
        let mut chunk =
            encode(&Header { tid: 3, kind: KIND_OPENCL_CALL, flags: FLAG_DONE, ..Default::default() }, &[1], &[]);
        chunk.extend(encode(
            &Header { tid: 3, kind: KIND_HSA_DISPATCH, flags: FLAG_DONE, ..Default::default() },
            &[2, 3],
            &[],
        ));
        r.rendered(0, 3, &chunk);
        for id in [a, b, unconfigured] {
            r.flush(id).unwrap();
        }
        assert_eq!(api.lock()[0].0, vec![chunk[..56].to_vec()]);
        assert_eq!(all.lock()[0].0, vec![chunk[..56].to_vec(), chunk[56..].to_vec()]);
        assert_eq!(r.stats(unconfigured).unwrap().queued, 0);
    }
}
