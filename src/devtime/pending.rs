//! Commands on their way to the device: the on/off switch of device timing,
//! the count of commands whose completion has not been seen, the claim on a
//! command's counters shared by its completion callback and its enqueue,
//! the events waiting to be released, and which threads are the
//! application's. The layer makes the driver calls around these.

use super::Command;
use parking_lot::{Condvar, Mutex};
use std::cell::{Cell, UnsafeCell};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU8, Ordering};
use std::time::{Duration, Instant};

static ON: AtomicBool = AtomicBool::new(false);

/// Commands whose completion has not been seen yet, process-wide.
pub static OUTSTANDING: Outstanding = Outstanding::new();

pub fn enable(on: bool) {
    ON.store(on, Ordering::Release);
}

/// Whether device timing is on: one relaxed load, on every enqueue.
#[inline(always)]
pub fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

/// At the end of the process: a command that finished just before exit may
/// still have its completion callback on the way from a driver thread. Wait
/// for those a little (at most `limit`), so the last read of a program is
/// not lost; commands still running are then reported as pending.
pub fn settle(limit: Duration) {
    if !on() {
        return;
    }
    OUTSTANDING.settle(limit);
}

/// A count of commands whose completion has not been seen.
#[derive(Debug)]
pub struct Outstanding(AtomicI64);

impl Outstanding {
    pub const fn new() -> Self {
        Outstanding(AtomicI64::new(0))
    }

    /// A command is now followed to completion.
    pub fn add(&self) {
        self.0.fetch_add(1, Ordering::AcqRel);
    }

    /// A command's completion was seen, or it will not be followed after all.
    pub fn sub(&self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }

    /// Commands enqueued whose completion was never seen (the application
    /// ended without waiting for them).
    pub fn get(&self) -> i64 {
        self.0.load(Ordering::Acquire)
    }

    /// Waits until none is outstanding, at most `limit`.
    pub fn settle(&self, limit: Duration) {
        let t = Instant::now();
        while self.get() > 0 && t.elapsed() < limit {
            std::thread::sleep(Duration::from_micros(200));
        }
    }
}

impl Default for Outstanding {
    fn default() -> Self {
        Self::new()
    }
}

/// One command followed to completion, shared by the enqueue path and the
/// driver's completion callback through a raw pointer (`Box::into_raw`).
pub struct Pending {
    /// Taken by whoever claims the completion (see `claimed`).
    cmd: UnsafeCell<Option<Command>>,
    own: bool,
    /// The event, released with the box when it is cltap's own: only once
    /// the driver is done calling back, so it never calls back on a freed one.
    ev: usize,
    /// Set by whichever of the callback and the check after registration
    /// reads the counters first; the other leaves it alone.
    claimed: AtomicBool,
    /// Holders of this box: the enqueue path and the callback. The last
    /// one frees it (a driver that never calls back leaks only its own).
    refs: AtomicU8,
}

// SAFETY: `cmd` is only reached by the one caller that set `claimed`.
unsafe impl Sync for Pending {}

impl Pending {
    /// A command for event `ev`, held by two: the enqueue path and the callback.
    pub fn new(cmd: Command, ev: usize, own: bool) -> Box<Pending> {
        Box::new(Pending {
            cmd: UnsafeCell::new(Some(cmd)),
            own,
            ev,
            claimed: AtomicBool::new(false),
            refs: AtomicU8::new(2),
        })
    }

    pub fn ev(&self) -> usize {
        self.ev
    }

    /// Whether the event is cltap's own (the application passed none).
    pub fn own(&self) -> bool {
        self.own
    }

    /// The command, to whoever gets here first; `None` to the other. The
    /// first also takes it off `outstanding`.
    pub fn claim(&self, outstanding: &Outstanding) -> Option<Command> {
        if self.claimed.swap(true, Ordering::AcqRel) {
            return None;
        }
        outstanding.sub();
        // SAFETY: only the one that set `claimed` gets here, once.
        unsafe { (*self.cmd.get()).take() }
    }

    /// One holder lets go; the last gets the box back, to release its event.
    ///
    /// # Safety
    /// `p` came from `Box::into_raw` of a [`Pending::new`], and each of its
    /// two holders calls this once.
    pub unsafe fn let_go(p: *mut Pending) -> Option<Box<Pending>> {
        ((*p).refs.fetch_sub(1, Ordering::AcqRel) == 1).then(|| Box::from_raw(p))
    }
}

/// Events waiting to be released by a thread of cltap's own. The thread
/// takes the whole list when it wakes: one wake-up (a futex call) per
/// batch, not per event.
pub struct Releases {
    list: Mutex<Vec<usize>>,
    wake: Condvar,
}

impl Releases {
    pub const fn new() -> Self {
        Releases { list: Mutex::new(Vec::new()), wake: Condvar::new() }
    }

    pub fn push(&self, ev: usize) {
        let was_empty = {
            let mut v = self.list.lock();
            v.push(ev);
            v.len() == 1
        };
        if was_empty {
            self.wake.notify_one();
        }
    }

    /// Waits for at least one, and takes all there are.
    pub fn wait_batch(&self) -> Vec<usize> {
        let mut v = self.list.lock();
        while v.is_empty() {
            self.wake.wait(&mut v);
        }
        std::mem::take(&mut *v)
    }

    /// Whatever is waiting, at once.
    pub fn take_all(&self) -> Vec<usize> {
        std::mem::take(&mut *self.list.lock())
    }
}

impl Default for Releases {
    fn default() -> Self {
        Self::new()
    }
}

thread_local! {
    /// This thread has enqueued work: it is the application's. A driver that
    /// runs completion callbacks on such a thread (Oclgrind, inside clFinish)
    /// is not thread-safe enough for the reaper, and releasing there is what
    /// it expects.
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
mod tests {
    use super::super::enqueue::{Launch, QueueInfo};
    use super::*;
    use std::sync::Arc;

    fn cmd() -> Command {
        let qi = QueueInfo { context: 3, device: Arc::from("dev"), to_host: None };
        let l = Launch { kernel: None, global: vec![], local: None, bytes: Some(4) };
        Command::enqueued(9, "clEnqueueReadBuffer", 2, &qi, None, l)
    }

    #[test]
    fn the_command_goes_to_the_first_claim_only() {
        let o = Outstanding::new();
        o.add();
        let p = Pending::new(cmd(), 0xE0, true);
        assert_eq!(p.claim(&o).map(|c| c.cmd_id), Some(9));
        assert_eq!(o.get(), 0, "the first claim takes it off the count");
        assert!(p.claim(&o).is_none());
        assert_eq!(o.get(), 0, "a second claim changes nothing");
        assert_eq!((p.ev(), p.own()), (0xE0, true));
    }

    #[test]
    fn the_last_of_two_holders_gets_the_box() {
        let raw = Box::into_raw(Pending::new(cmd(), 1, false));
        // SAFETY: two holders, each letting go once.
        unsafe {
            assert!(Pending::let_go(raw).is_none());
            let b = Pending::let_go(raw).expect("the last holder");
            assert_eq!(b.ev(), 1);
        }
    }

    #[test]
    fn settle_waits_for_outstanding_commands_but_not_forever() {
        let o = Arc::new(Outstanding::new());
        let t = Instant::now();
        o.settle(Duration::from_secs(5));
        assert!(t.elapsed() < Duration::from_secs(1), "none outstanding: at once");
        o.add();
        let t = Instant::now();
        o.settle(Duration::from_millis(20));
        assert!(t.elapsed() >= Duration::from_millis(20), "waits up to the limit");
        let o2 = o.clone();
        let h = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(10));
            o2.sub();
        });
        let t = Instant::now();
        o.settle(Duration::from_secs(5));
        assert!(t.elapsed() < Duration::from_secs(4), "returns once the last completes");
        assert_eq!(o.get(), 0);
        h.join().unwrap();
    }

    #[test]
    fn releases_come_in_batches() {
        let r = Arc::new(Releases::new());
        r.push(1);
        r.push(2);
        assert_eq!(r.take_all(), vec![1, 2]);
        assert!(r.take_all().is_empty());
        let r2 = r.clone();
        let h = std::thread::spawn(move || r2.wait_batch());
        std::thread::sleep(Duration::from_millis(10));
        r.push(3);
        assert_eq!(h.join().unwrap(), vec![3]);
    }

    #[test]
    fn app_threads_are_those_that_enqueued() {
        std::thread::spawn(|| {
            assert!(!on_app_thread());
            mark_app_thread();
            assert!(on_app_thread());
        })
        .join()
        .unwrap();
    }
}
