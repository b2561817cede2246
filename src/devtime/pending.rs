//! Commands on their way to the device: the on/off switch of device timing,
//! the count of commands whose times have not been read, each queue's list
//! of held events waiting to be read, and which threads are the
//! application's. The layer makes the driver calls around these.
//!
//! No callback is registered per command (on NVIDIA's driver that alone
//! costs several µs per enqueue): each enqueue's event is held in its
//! queue's list, and the lists are read in batches by the reader thread
//! ([`super::reader`]), woken at the application's synchronisation points
//! and when a list grows past [`BOUND`], and at the end of the process.

use super::enqueue::{Enqueued, QueueDesc};
use crate::fork::lock::{self, Mutex};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

static ON: AtomicBool = AtomicBool::new(false);

/// Commands whose times have not been read yet, process-wide.
pub static OUTSTANDING: Outstanding = Outstanding::new();

/// An enqueue wakes the reader when its queue's list reaches this many
/// events; if few had completed, the next wake waits until the list has
/// doubled, so a device far behind costs the reader amortised O(1) per
/// command.
pub const BOUND: usize = 256;

/// How far past its mark a list may grow while the reader is behind (a
/// loaded machine, a reader starved of CPU) before the enqueuing thread
/// reads it itself: memory stays bounded whatever the reader's pace, as
/// low as when the enqueue path read every list at 1,024 events (each held
/// event keeps the driver's command alive too).
pub const BEHIND: usize = 4;

/// How many events past what a read left running an in-order list is
/// read again ([`QueueList::put_back`]).
pub const IN_ORDER_AHEAD: usize = 16 * BOUND;

/// What an enqueue does after holding its event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Due {
    Nothing,
    /// The list reached its mark: the enqueue reads it.
    Mark,
    /// The list is far past its mark: read it here.
    ReadNow,
}

pub fn enable(on: bool) {
    ON.store(on, Ordering::Release);
}

/// Whether device timing is on: one relaxed load, on every enqueue.
#[inline(always)]
pub fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// A count of commands whose times have not been read: those held and
/// those done with, each counted up (one atomic add per enqueue).
#[derive(Debug)]
pub struct Outstanding {
    added: AtomicU64,
    removed: AtomicU64,
}

impl Outstanding {
    pub const fn new() -> Self {
        Outstanding { added: AtomicU64::new(0), removed: AtomicU64::new(0) }
    }

    /// A command is now held until its times are read.
    pub fn add(&self) {
        self.added.fetch_add(1, Ordering::AcqRel);
    }

    /// A command's times were read, or will not be.
    pub fn sub(&self) {
        self.removed.fetch_add(1, Ordering::AcqRel);
    }

    /// Commands enqueued whose times were never read (the application
    /// ended before they completed).
    pub fn get(&self) -> i64 {
        let removed = self.removed.load(Ordering::Acquire);
        self.added.load(Ordering::Acquire).wrapping_sub(removed) as i64
    }

    /// Commands held so far, ever.
    pub fn added(&self) -> u64 {
        self.added.load(Ordering::Acquire)
    }

    /// A forked child: the parent's commands are the parent's to count.
    fn reset(&self) {
        self.added.store(0, Ordering::Release);
        self.removed.store(0, Ordering::Release);
        SEEN.store(0, Ordering::Release);
    }
}

/// [`Outstanding::added`] when the last read of every list began.
static SEEN: AtomicU64 = AtomicU64::new(0);

/// A read of every list begins: what was held so far is seen.
pub fn seen_all() {
    SEEN.store(OUTSTANDING.added(), Ordering::Release);
}

/// Whether commands were held since the last read of every list began:
/// only then may an event found complete have something to read.
pub fn held_since_read() -> bool {
    OUTSTANDING.added() != SEEN.load(Ordering::Acquire)
}

impl Default for Outstanding {
    fn default() -> Self {
        Self::new()
    }
}

/// One enqueued command and the event held for it: cltap's own, or the
/// application's with one reference of cltap's. Either way cltap releases
/// its reference once the times are read.
#[derive(Debug)]
pub struct Held {
    /// The driver's event handle.
    pub ev: usize,
    pub cmd: Enqueued,
    /// Held since before this process was forked: the parent's command,
    /// which the parent times. The child only gives back cltap's reference
    /// on its copy of the event once it has completed, and records nothing.
    pub inherited: bool,
}

/// One queue's held events, in enqueue order.
#[derive(Debug, Default)]
pub struct QueueList {
    held: Mutex<Vec<Held>>,
    /// What the records need of the queue.
    desc: QueueDesc,
    /// `CL_EVENT_COMMAND_TYPE` by enqueue function (its name's address):
    /// asked of the driver once per function and queue, not per command.
    types: Mutex<Vec<(usize, u32)>>,
    /// The length at which an enqueue wakes the reader; 0 means the bound.
    due: AtomicUsize,
    /// The list's first mark; 0 means [`BOUND`] (see [`QueueList::set_bound`]).
    bound: AtomicUsize,
    /// The queue runs its commands in order, so they complete in order: a
    /// read stops at the first that has not.
    in_order: AtomicBool,
    /// Read by the enqueue that reaches the mark, not by the reader thread.
    read_by_enqueue: AtomicBool,
}

/// Odd while a read has events out of their lists or is releasing them:
/// then [`holds`] may miss a reference that the driver still counts, or
/// count one the driver has already dropped.
static READING: AtomicU64 = AtomicU64::new(0);

/// Reads under way, and whether a `fork` waits for them to end (no read
/// begins meanwhile): a read's events are out of their lists, in the
/// reading thread's hands, and a child forked then would never see them.
static ACTIVE: AtomicUsize = AtomicUsize::new(0);
static FORKING: AtomicBool = AtomicBool::new(false);

/// How long a `fork` waits for reads to end: reads ask the driver about
/// completed events and take microseconds, but one stuck in a driver must
/// not hold the application's `fork` for ever (the child then misses that
/// read's events, and only those).
const FORK_WAITS: std::time::Duration = std::time::Duration::from_secs(1);

/// Marks a read: its events are out of their lists until it is dropped.
pub struct Reading(());

impl Reading {
    pub fn begin() -> Reading {
        loop {
            // Dekker with `pause_reads`: either this read is seen there, or
            // the fork is seen here and the read waits for its end.
            ACTIVE.fetch_add(1, Ordering::SeqCst);
            if !FORKING.load(Ordering::SeqCst) {
                break;
            }
            ACTIVE.fetch_sub(1, Ordering::SeqCst);
            while FORKING.load(Ordering::SeqCst) {
                std::thread::yield_now();
            }
        }
        READING.fetch_add(1, Ordering::SeqCst);
        Reading(())
    }
}

impl Drop for Reading {
    fn drop(&mut self) {
        READING.fetch_add(1, Ordering::SeqCst);
        ACTIVE.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Before a `fork`: waits for the reads under way to end (up to
/// [`FORK_WAITS`]) and lets none begin until [`resume_reads`].
pub(super) fn pause_reads() {
    FORKING.store(true, Ordering::SeqCst);
    let t = std::time::Instant::now();
    while ACTIVE.load(Ordering::SeqCst) != 0 && t.elapsed() < FORK_WAITS {
        std::thread::yield_now();
    }
}

pub(super) fn resume_reads() {
    FORKING.store(false, Ordering::SeqCst);
}

/// `f`'s answer taken while no read was under way, so that an answer that
/// depends on what the driver counts and on what cltap holds is consistent.
/// Reads take milliseconds at most; past a second (a read blocked in the
/// driver) the last answer is taken.
pub fn between_reads<T>(mut f: impl FnMut() -> T) -> T {
    let t = std::time::Instant::now();
    loop {
        let g = READING.load(Ordering::SeqCst);
        if g % 2 == 1 {
            if t.elapsed() < std::time::Duration::from_secs(1) {
                std::thread::yield_now();
                continue;
            }
            return f();
        }
        let v = f();
        if READING.load(Ordering::SeqCst) == g || t.elapsed() > std::time::Duration::from_secs(1) {
            return v;
        }
    }
}

/// Whether any list is read by its enqueues (a CPU device's): only then do
/// synchronisation points read lists on the application's thread.
static READ_BY_ENQUEUE: AtomicBool = AtomicBool::new(false);

/// Whether a list read by its enqueues was ever made.
pub fn any_read_by_enqueue() -> bool {
    READ_BY_ENQUEUE.load(Ordering::Acquire)
}

/// Every queue's list, also those of queues released or forgotten while
/// they still held events.
static LISTS: Mutex<Vec<Arc<QueueList>>> = Mutex::new(Vec::new());

impl QueueList {
    /// A new list of the queue `desc` describes, known to [`lists`] until
    /// it is empty and only they hold it.
    pub fn new(desc: QueueDesc) -> Arc<QueueList> {
        let l = Arc::new(QueueList { desc, ..QueueList::default() });
        LISTS.lock().push(l.clone());
        l
    }

    pub fn desc(&self) -> &QueueDesc {
        &self.desc
    }

    /// The command type of `api`'s commands on this queue: the one the
    /// driver gave for an earlier command, else `ask`'s answer, kept.
    pub fn cmd_type(&self, api: &'static str, ask: impl FnOnce() -> Option<u32>) -> Option<u32> {
        let key = api.as_ptr() as usize;
        if let Some(&(_, t)) = self.types.lock().iter().find(|(k, _)| *k == key) {
            return Some(t);
        }
        let t = ask()?;
        self.types.lock().push((key, t));
        Some(t)
    }

    /// Holds `h`, and says what the enqueue should do about the list.
    pub fn push(&self, h: Held) -> Due {
        let n = {
            let mut v = self.held.lock();
            v.push(h);
            v.len()
        };
        let due = match self.due.load(Ordering::Relaxed) {
            0 => self.bound(),
            d => d,
        };
        if n >= (BEHIND * due).max(BEHIND * self.bound()) {
            Due::ReadNow
        } else if n == due {
            // Exactly one push crosses the mark, so one enqueue reads.
            Due::Mark
        } else {
            Due::Nothing
        }
    }

    /// Sets the list's first mark: a GPU queue's lists are read at the
    /// application's synchronisation points on its own thread, and the
    /// reader reads them only past this mark, so that on a driver that
    /// serialises its calls (NVIDIA's) no read of cltap's runs beside the
    /// application's enqueues while it enqueues a burst shorter than this.
    pub fn set_bound(&self, n: usize) {
        self.bound.store(n, Ordering::Relaxed);
    }

    fn bound(&self) -> usize {
        match self.bound.load(Ordering::Relaxed) {
            0 => BOUND,
            b => b,
        }
    }

    /// Whether the list has reached its mark (a read of it is due).
    pub fn is_due(&self) -> bool {
        let due = match self.due.load(Ordering::Relaxed) {
            0 => self.bound(),
            d => d,
        };
        self.len() >= due
    }

    /// Says the queue runs its commands in order (the driver's properties
    /// lack `CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE`).
    pub fn set_in_order(&self, yes: bool) {
        self.in_order.store(yes, Ordering::Relaxed);
    }

    /// Says the queue's device runs its commands on the host's CPU cores
    /// (`CL_DEVICE_TYPE_CPU`): a reader thread would take those cores from
    /// the device itself, and the application would run ahead of it with
    /// ever more commands and events waiting (measured on PoCL with two
    /// cores). Such a list is read by the enqueue that reaches its mark.
    pub fn set_read_by_enqueue(&self, yes: bool) {
        if yes {
            READ_BY_ENQUEUE.store(true, Ordering::Release);
        }
        self.read_by_enqueue.store(yes, Ordering::Relaxed);
    }

    pub fn read_by_enqueue(&self) -> bool {
        self.read_by_enqueue.load(Ordering::Relaxed)
    }

    /// Whether the commands complete in the order they were held.
    pub fn in_order(&self) -> bool {
        self.in_order.load(Ordering::Relaxed)
    }

    /// Takes the whole list to be read without the lock held: the driver
    /// calls of a read never run under it, and enqueues on other threads
    /// go on meanwhile.
    pub fn take(&self) -> Vec<Held> {
        // The list keeps room for as many as it held, allocated here, by
        // the read, so that the enqueues' pushes do not grow it.
        let mut v = self.held.lock();
        let room = v.len().max(BOUND).min(self.bound());
        std::mem::replace(&mut *v, Vec::with_capacity(room))
    }

    /// Gives back what a read left (still running), ahead of what was
    /// pushed meanwhile, and sets when the list is read next: once it has
    /// doubled, so that reading a list of a device far behind costs
    /// amortised O(1) per command. An in-order list is read at most
    /// [`IN_ORDER_AHEAD`] events later: its read asks only the completed
    /// events and the first still running, and waiting for the list to
    /// double would hold ever more completed commands alive (each held
    /// event keeps its command) while the device is behind.
    pub fn put_back(&self, mut rest: Vec<Held>) {
        let mut v = self.held.lock();
        if !rest.is_empty() {
            rest.append(&mut v);
            *v = rest;
        }
        let mut due = self.bound().max(2 * v.len());
        if self.in_order() {
            due = due.min(v.len() + IN_ORDER_AHEAD);
        }
        self.due.store(due, Ordering::Relaxed);
    }

    /// How many references this list holds on event `ev`.
    pub fn holds(&self, ev: usize) -> u32 {
        self.held.lock().iter().filter(|h| h.ev == ev).count() as u32
    }

    pub fn len(&self) -> usize {
        self.held.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The list's lock, held as an enqueue or a read holds it.
    #[cfg(test)]
    pub(super) fn locked(&self) -> impl Drop + '_ {
        self.held.lock()
    }
}

/// Locks every list, and the set of lists, across a `fork`: the set first,
/// as [`lists`] does.
pub(super) fn hold() {
    lock::hold(&LISTS);
    // SAFETY: LISTS is held by this thread.
    for l in unsafe { &*LISTS.data_ptr() } {
        lock::hold(&l.held);
        lock::hold(&l.types);
    }
}

/// Unlocks what [`hold`] locked.
///
/// # Safety
/// [`hold`] ran on this thread, and nothing was released since.
pub(super) unsafe fn release() {
    // SAFETY: this thread holds LISTS and every list's locks since hold (# Safety), so it may
    // read LISTS' data and release each lock once.
    unsafe {
        for l in &*LISTS.data_ptr() {
            lock::release(&l.types);
            lock::release(&l.held);
        }
        lock::release(&LISTS);
    }
}

/// In the child of a `fork`, with [`hold`]'s locks held (and released
/// after): what the lists hold is the parent's, no read is under way (the
/// child has one thread), and no command is outstanding yet.
///
/// # Safety
/// As [`release`], in the child.
pub(super) unsafe fn forked() {
    // SAFETY: the child's only thread holds every one of these locks (# Safety).
    for l in unsafe { &*LISTS.data_ptr() } {
        for h in unsafe { (*l.held.data_ptr()).iter_mut() } {
            h.inherited = true;
        }
    }
    OUTSTANDING.reset();
    READING.store(0, Ordering::SeqCst);
    ACTIVE.store(0, Ordering::SeqCst);
    FORKING.store(false, Ordering::SeqCst);
}

/// The lists to read, dropping those that are empty and no queue holds.
pub fn lists() -> Vec<Arc<QueueList>> {
    let mut all = LISTS.lock();
    all.retain(|l| Arc::strong_count(l) > 1 || !l.is_empty());
    all.clone()
}

/// The references cltap holds on event `ev` (to hide them from the
/// application's `CL_EVENT_REFERENCE_COUNT`).
pub fn holds(ev: usize) -> u32 {
    lists().iter().map(|l| l.holds(ev)).sum()
}

thread_local! {
    /// This thread has enqueued work: it is the application's. Lists are
    /// read at synchronisation points on such threads only, never inside a
    /// driver's callback thread, where NVIDIA's driver crashes or hangs if
    /// an event loses its last reference.
    static APP_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// This thread enqueued work.
pub fn mark_app_thread() {
    let _ = APP_THREAD.try_with(|a| a.set(true));
}

/// Whether this thread has enqueued work.
pub fn on_app_thread() -> bool {
    APP_THREAD.try_with(|a| a.get()).unwrap_or(false)
}

#[cfg(test)]
mod tests;
