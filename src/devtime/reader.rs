//! The thread that reads held events, so that neither an enqueue nor the
//! application's synchronisation waits for cltap's driver queries.
//!
//! Measured on NVIDIA's driver (H100 host, 2026-11-25): reading a completed
//! event (its status, four profiling counters and a release) costs about
//! 1.5 µs, and 3 to 10 µs when done on the enqueuing thread between its
//! enqueues. Read on the application's thread, at its synchronisation points
//! and whenever a queue's list passed its bound, that was +7 µs per enqueue
//! over the driver's own cost of a profiling event. This thread wakes when a
//! list has grown by [`super::pending::BOUND`] events, when the application synchronises,
//! and every [`PERIOD`] otherwise; the application's threads only hold
//! events and wake it.
//!
//! Only atomics are shared with the application's threads, so that a `fork`
//! while the thread reads leaves the child nothing locked: the child has no
//! reader, and starts its own on its first enqueue.

use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::time::Duration;

/// How long the reader sleeps when nothing wakes it.
pub const PERIOD: Duration = Duration::from_millis(20);

/// One reader per process (and per child after `fork`).
pub struct Reader {
    started: AtomicBool,
    stop: AtomicBool,
    /// The reader is inside `read` (see [`Reader::stop`]).
    busy: AtomicBool,
    /// A wake is on its way: the reader has not yet begun the read it
    /// asks for. Further wakes until then would ask for the same read, and
    /// each `unpark` of a sleeping thread is a system call (several
    /// hundred ns on the application's `clGetEventInfo`).
    woken: AtomicBool,
    /// The reader thread's handle, for waking it; leaked on purpose (it
    /// lives as long as the process, and a child forgets it).
    thread: AtomicPtr<std::thread::Thread>,
}

impl Reader {
    pub const fn new() -> Self {
        Reader {
            started: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            busy: AtomicBool::new(false),
            woken: AtomicBool::new(false),
            thread: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// Starts the reader on first use: `read` reads every list once. Does
    /// nothing once started, or after [`Reader::stop`].
    #[inline]
    pub fn ensure(&'static self, read: fn()) {
        if self.started.load(Ordering::Relaxed) {
            return;
        }
        self.start(read);
    }

    #[cold]
    fn start(&'static self, read: fn()) {
        if self.started.swap(true, Ordering::AcqRel) || self.stop.load(Ordering::Acquire) {
            return;
        }
        let spawned = std::thread::Builder::new().name("cltap-devtime".into()).spawn(move || self.run(read));
        match spawned {
            Ok(h) => {
                let t = Box::into_raw(Box::new(h.thread().clone()));
                self.thread.store(t, Ordering::Release);
            }
            // Without a reader, events are still read at the end.
            Err(e) => crate::warn!("device timing: cannot start its reader thread ({e}); events are read at exit"),
        }
    }

    fn run(&self, read: fn()) {
        loop {
            std::thread::park_timeout(PERIOD);
            // Dekker with `stop`: either this thread sees the stop, or the
            // stopping thread sees it busy and waits.
            self.busy.store(true, Ordering::SeqCst);
            // Before the read: a wake from now on asks for another.
            self.woken.store(false, Ordering::SeqCst);
            if self.stop.load(Ordering::SeqCst) {
                self.busy.store(false, Ordering::SeqCst);
                return;
            }
            // A panic stops this thread, not the process; `busy` is
            // cleared all the same, or `stop` would wait for ever. The
            // events are then read at exit (docs/architecture.md#panics).
            let ok = crate::panics::catch(
                "the cltap-devtime thread",
                "the thread stopped; events are read at exit",
                false,
                || {
                    read();
                    true
                },
            );
            self.busy.store(false, Ordering::SeqCst);
            if !ok {
                return;
            }
        }
    }

    /// Wakes the reader, if there is one and no wake is on its way.
    #[inline]
    pub fn wake(&self) {
        if self.woken.load(Ordering::SeqCst) || self.woken.swap(true, Ordering::SeqCst) {
            return;
        }
        self.unpark();
    }

    fn unpark(&self) {
        let t = self.thread.load(Ordering::Acquire);
        if !t.is_null() {
            // SAFETY: set once from a leaked box, never freed.
            unsafe { (*t).unpark() };
        }
    }

    /// Stops the reader for good and waits until it has left its last
    /// read; the caller then reads what is left.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        self.unpark();
        while self.busy.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
    }

    /// In a child after `fork`: the parent's reader is not there.
    pub fn forget(&self) {
        self.thread.store(std::ptr::null_mut(), Ordering::Release);
        self.busy.store(false, Ordering::SeqCst);
        self.woken.store(false, Ordering::SeqCst);
        self.started.store(false, Ordering::Release);
    }
}

impl Default for Reader {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::{Condvar, Mutex};

    static READS: AtomicUsize = AtomicUsize::new(0);
    static SEEN: (Mutex<usize>, Condvar) = (Mutex::new(0), Condvar::new());

    fn count() {
        READS.fetch_add(1, Ordering::SeqCst);
        *SEEN.0.lock().unwrap() += 1;
        SEEN.1.notify_all();
    }

    fn wait_reads_past(n: usize) {
        let g = SEEN.0.lock().unwrap();
        let r = SEEN.1.wait_timeout_while(g, Duration::from_secs(30), |c| *c <= n).unwrap();
        assert!(!r.1.timed_out(), "the reader did not read");
    }

    #[test]
    fn a_woken_reader_reads_and_a_stopped_one_never_again() {
        static R: Reader = Reader::new();
        R.ensure(count);
        R.ensure(count);
        let before = READS.load(Ordering::SeqCst);
        R.wake();
        wait_reads_past(before);
        R.stop();
        let after = READS.load(Ordering::SeqCst);
        R.wake();
        // Once stop has returned, no read is running or will start.
        for _ in 0..3 {
            R.wake();
            std::thread::yield_now();
        }
        assert_eq!(READS.load(Ordering::SeqCst), after);
        assert!(!R.busy.load(Ordering::SeqCst));
        R.ensure(count);
        assert!(R.thread.load(Ordering::SeqCst).is_null() || R.stop.load(Ordering::SeqCst));
    }

    #[test]
    fn wakes_before_the_read_they_ask_for_begins_are_one() {
        static R: Reader = Reader::new();
        // No thread yet: the first wake is on its way, later ones are not sent.
        R.wake();
        assert!(R.woken.load(Ordering::SeqCst));
        R.wake();
        assert!(R.woken.load(Ordering::SeqCst));
        R.forget();
        assert!(!R.woken.load(Ordering::SeqCst), "a forked child's reader is woken afresh");
    }

    #[test]
    fn a_forgotten_reader_can_start_again() {
        static R: Reader = Reader::new();
        R.forget();
        assert!(!R.started.load(Ordering::SeqCst));
        R.wake(); // no thread: nothing to wake
        R.stop();
    }
}
