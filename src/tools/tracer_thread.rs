//! Each thread's part of the tracers: the calls it has in flight (its
//! *frames*, one per tracer that took part in a call, from just before the
//! prologue to just after the epilogue), whether it is running a callback,
//! and its copy of the list of tracers.
//!
//! Only the owning thread writes its frames; other threads read them when a
//! tracer is destroyed, to wait until no other thread is inside one of its
//! callbacks or between its prologue and epilogue. The frames sit behind a
//! mutex of the thread's own (taken by other threads only during a destroy),
//! so a traced call writes nothing that other threads write.

use super::tracer_object::{Callback, Snapshot, Tracer};
use crate::fork::condvar::Condvar;
use crate::fork::lock::Mutex;
use std::cell::{Cell, Ref, RefCell};
use std::sync::atomic::{fence, AtomicUsize, Ordering};
use std::sync::Arc;

/// One tracer's part in one call on this thread.
#[derive(Clone, Copy)]
pub(super) struct Frame {
    /// Kept alive by the destroyer while other threads hold frames of it,
    /// and by [`Local::keep`] when this thread destroyed it itself.
    pub tracer: *const Tracer,
    /// Chosen with the prologue: the epilogue that must follow it.
    pub epilogue: Option<Callback>,
    /// What the prologue left in its instance slot.
    pub instance: u64,
}

/// What other threads see of a thread: its frames.
struct Record {
    frames: Mutex<Vec<Frame>>,
}

// SAFETY: other threads only compare the frames' tracer pointers; only the
// owning thread dereferences them.
unsafe impl Send for Record {}
unsafe impl Sync for Record {}

/// Every thread that has had a traced call, for destroy to look at.
static THREADS: Mutex<Vec<Arc<Record>>> = Mutex::new(Vec::new());
/// Destroyers wait on `WAKE` under `WAIT` for other threads' frames to end.
static WAIT: Mutex<()> = Mutex::new(());
static WAKE: Condvar = Condvar::new();
/// Destroys in progress. A thread that ends a frame wakes the destroyers
/// when this is not zero; it is read (never written) by traced calls.
static DESTROYING: AtomicUsize = AtomicUsize::new(0);

pub(super) struct Local {
    rec: Arc<Record>,
    /// Depth of tracer callbacks running on this thread: calls they make are
    /// not traced (no recursion, and a tool's own calls stay out of its trace).
    in_callback: Cell<u32>,
    /// The tracers' list as of generation `.0`.
    cache: RefCell<(u64, Option<Snapshot>)>,
    /// Tracers this thread destroyed while it had frames of them: their
    /// memory must outlive those frames (whose epilogues are skipped).
    keep: RefCell<Vec<Arc<Tracer>>>,
}

impl Local {
    fn new() -> Self {
        let rec = Arc::new(Record { frames: Mutex::new(Vec::new()) });
        THREADS.lock().push(rec.clone());
        Local { rec, in_callback: Cell::new(0), cache: RefCell::new((u64::MAX, None)), keep: RefCell::new(Vec::new()) }
    }

    pub fn in_callback(&self) -> bool {
        self.in_callback.get() > 0
    }

    /// Runs a tracer's callback, marked as such.
    pub fn callback<R>(&self, f: impl FnOnce() -> R) -> R {
        self.in_callback.set(self.in_callback.get() + 1);
        let r = f();
        self.in_callback.set(self.in_callback.get() - 1);
        r
    }

    /// The tracers' list, refreshed through `load` when `gen` is newer than
    /// this thread's copy. `None` only if the copy is being replaced further
    /// up this thread's stack, which the callback marking rules out.
    pub fn tracers(&self, gen: u64, load: impl FnOnce() -> (u64, Snapshot)) -> Option<Ref<'_, Snapshot>> {
        if self.cache.try_borrow().ok()?.0 != gen {
            if let Ok(mut c) = self.cache.try_borrow_mut() {
                let (g, s) = load();
                *c = (g, Some(s));
            }
        }
        Ref::filter_map(self.cache.try_borrow().ok()?, |c| c.1.as_ref()).ok()
    }

    /// Opens a frame; its index on this thread's stack.
    pub fn push(&self, f: Frame) -> usize {
        let mut v = self.rec.frames.lock();
        v.push(f);
        v.len() - 1
    }

    pub fn set_instance(&self, idx: usize, value: u64) {
        if let Some(f) = self.rec.frames.lock().get_mut(idx) {
            f.instance = value;
        }
    }

    pub fn top(&self) -> Option<Frame> {
        self.rec.frames.lock().last().copied()
    }

    /// Ends the top frame, and wakes any destroyer waiting for it. The
    /// fence orders the removal before the check, against the destroyer's
    /// announcement before its look at the frames (`begin_destroy`).
    pub fn pop(&self) {
        let empty = {
            let mut v = self.rec.frames.lock();
            v.pop();
            v.is_empty()
        };
        fence(Ordering::SeqCst);
        if DESTROYING.load(Ordering::SeqCst) != 0 {
            let _g = WAIT.lock();
            WAKE.notify_all();
        }
        if empty {
            // This thread's own destroyed tracers have no frames left.
            if let Ok(mut k) = self.keep.try_borrow_mut() {
                k.clear();
            }
        }
    }

    fn holds(&self, t: *const Tracer) -> bool {
        self.rec.frames.lock().iter().any(|f| std::ptr::eq(f.tracer, t))
    }
}

impl Drop for Local {
    fn drop(&mut self) {
        THREADS.lock().retain(|r| !Arc::ptr_eq(r, &self.rec));
    }
}

thread_local! {
    static LOCAL: Local = Local::new();
}

/// Runs `f` with this thread's state; `None` while the thread's
/// thread-locals are being torn down (such late calls are not traced).
pub(super) fn with_local<R>(f: impl FnOnce(&Local) -> R) -> Option<R> {
    LOCAL.try_with(f).ok()
}

/// Announces a destroy: from here on, threads ending frames wake it.
pub(super) fn begin_destroy() {
    DESTROYING.fetch_add(1, Ordering::SeqCst);
    fence(Ordering::SeqCst);
}

pub(super) fn end_destroy() {
    DESTROYING.fetch_sub(1, Ordering::SeqCst);
}

/// Waits until no thread but this one has a frame of `t`. This thread's own
/// frames are not waited for: they cannot end while it waits (it may be
/// destroying from inside a traced call or a callback).
pub(super) fn wait_for_other_threads(t: *const Tracer) {
    let me = with_local(|l| l.rec.clone());
    let mut g = WAIT.lock();
    loop {
        let busy = THREADS
            .lock()
            .iter()
            .filter(|r| !me.as_ref().is_some_and(|m| Arc::ptr_eq(r, m)))
            .any(|r| r.frames.lock().iter().any(|f| std::ptr::eq(f.tracer, t)));
        if !busy {
            return;
        }
        WAKE.wait(&mut g);
    }
}

/// The prepare handler's part ([`crate::fork`]): destroyers' and threads' locks, in the order destroyers take them.
pub(crate) fn hold_for_fork() {
    crate::fork::kept::keep(WAIT.lock());
    crate::fork::kept::keep(THREADS.lock());
}

/// In a forked child, with the locks released: the parent's other threads
/// are not here, and their frames (whose locks they may have held) must
/// not be waited for or looked at.
pub(crate) fn forked() {
    DESTROYING.store(0, Ordering::SeqCst);
    let me = with_local(|l| l.rec.clone());
    THREADS.lock().retain(|r| me.as_ref().is_some_and(|m| Arc::ptr_eq(r, m)));
}

/// Keeps `t`'s memory while this thread still has frames of it.
pub(super) fn keep_if_held(t: Arc<Tracer>) {
    with_local(|l| {
        if l.holds(Arc::as_ptr(&t)) {
            if let Ok(mut k) = l.keep.try_borrow_mut() {
                k.push(t);
            }
        }
    });
}

/// Destroys in progress (tests watch a destroy begin).
#[cfg(test)]
pub(super) fn destroying() -> usize {
    DESTROYING.load(Ordering::SeqCst)
}
