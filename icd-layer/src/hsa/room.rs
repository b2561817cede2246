//! Room in the hidden hardware queue behind one intercept queue
//! (docs/counters.md#a-full-queue).
//!
//! ROCr 5.2.3's intercept queue hands the handler every packet the
//! application rang in, one after another within one doorbell store, and
//! copies what the handler writes into a hidden queue of the same size. When
//! that queue has no room (it needs more free slots than packets) the packets
//! wait in an overflow buffer; a second rewrite of the same store that finds
//! no room aborts the process (`overflow buffer not empty`). cltap writes
//! three packets per counted dispatch, so that happens as soon as the
//! application rings in more dispatches than a third of the queue while the
//! device is busy. The handler therefore waits, before handing packets over,
//! until they surely fit.
//!
//! The hidden queue is not reachable through any API, so its indices are
//! bounded from what cltap knows: its write index is the number of packets
//! cltap handed over (it starts at 0, and only the handler fills it while
//! nothing overflows); its read index is at least the index of the last
//! packet of cltap's own seen to complete (a counted dispatch's `stop`, a
//! timed dispatch's proxy signal, or a marker of cltap's own).
//!
//! The bound needs a packet of cltap's that completes somewhere in every
//! stretch of the queue. Counted and timed dispatches give one each; the
//! application's own packets (`ROCP_HSA_INTERCEPT=1`, barriers, copies) give
//! none, so without more a full hidden queue could not be seen and the
//! runtime aborted (a HIP program under `=1`, 1 run in 30 on 2 busy cores).
//! So when a quarter of the queue has gone by unwatched, the handler adds a
//! marker ([`super::mark`]): a barrier-AND packet with no dependencies and no
//! barrier bit, so it holds nothing back, whose completion signal is cltap's.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

pub struct Room {
    /// The queue's size in packets.
    size: u64,
    /// Packets handed to the runtime's writer: the hidden queue's write index.
    written: AtomicU64,
    /// One past the last watched packet seen complete. The read index is at least that packet's
    /// index, not one past it: the packet processor may complete a packet's signal before it moves
    /// its read index on (the emulated one does), and counting that slot free overflowed the queue.
    passed: AtomicU64,
    /// One past the last packet handed over whose completion raises `passed`.
    watched: AtomicU64,
}

thread_local! {
    /// Set on the thread that runs cltap's completion handlers (the runtime's signal thread): the
    /// completions that make room run there, so it must never wait for room.
    static SIGNAL_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// Marks this thread as the runtime's signal thread (called from cltap's completion handlers).
pub fn on_signal_thread() {
    let _ = SIGNAL_THREAD.try_with(|s| s.set(true));
}

impl Room {
    pub fn new(size: u32) -> Room {
        Room { size: size as u64, written: AtomicU64::new(0), passed: AtomicU64::new(0), watched: AtomicU64::new(0) }
    }

    /// The hidden queue's index of the next packet handed over.
    pub fn next(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }

    /// `n` packets were handed over.
    pub fn wrote(&self, n: u64) {
        self.written.fetch_add(n, Ordering::Relaxed);
    }

    /// The packet at hidden index `at`, handed over, will be seen to complete ([`Room::passed`]).
    pub fn watch(&self, at: u64) {
        self.watched.fetch_max(at + 1, Ordering::AcqRel);
    }

    /// The packet at hidden index `at` completed, so the read index has reached it.
    pub fn passed(&self, at: u64) {
        self.passed.fetch_max(at + 1, Ordering::AcqRel);
    }

    /// Whether handing over `n` more packets would leave a quarter of the queue or more written
    /// since the last watched packet: then a marker goes with them, so that a full queue always
    /// has a watched packet ahead to wait for.
    pub fn needs_watch(&self, n: u64) -> bool {
        let unwatched = (self.written.load(Ordering::Relaxed) + n).saturating_sub(self.watched.load(Ordering::Acquire));
        unwatched >= (self.size / 4).max(1)
    }

    /// Whether `n` more packets surely fit: ROCr copies them only with more free slots than packets.
    fn fits(&self, n: u64) -> bool {
        let read = self.passed.load(Ordering::Acquire).saturating_sub(1);
        let used = self.written.load(Ordering::Relaxed).saturating_sub(read);
        self.size.saturating_sub(used) > n
    }

    /// Waits until `n` more packets surely fit. It waits only while a watched packet is still ahead
    /// (its completion is what shows more room) and never on the signal thread; otherwise the
    /// packets go as they would without cltap. Returns whether they surely fit.
    pub fn wait_for(&self, n: u64) -> bool {
        loop {
            if self.fits(n) {
                return true;
            }
            let ahead = self.passed.load(Ordering::Acquire) < self.watched.load(Ordering::Acquire);
            if !ahead || SIGNAL_THREAD.try_with(|s| s.get()).unwrap_or(true) {
                return false;
            }
            // The device drains the queue at its own pace; ROCr waits for a slot the same way.
            std::thread::yield_now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_is_the_size_less_what_was_written_and_not_seen_passed() {
        let r = Room::new(8);
        r.wrote(4);
        assert!(r.fits(3));
        assert!(!r.fits(4), "ROCr needs more free slots than packets");
        r.watch(3);
        r.passed(3);
        assert!(r.fits(6));
        assert!(!r.fits(7), "the completed packet's slot may still be taken");
    }

    #[test]
    fn a_quarter_of_the_queue_unwatched_asks_for_a_marker() {
        let r = Room::new(16);
        assert!(!r.needs_watch(3));
        assert!(r.needs_watch(4), "4 of 16 written, none watched");
        r.wrote(4);
        r.watch(4);
        r.wrote(1);
        assert!(!r.needs_watch(3), "the marker at 4 watches all before it");
        assert!(r.needs_watch(4));
    }

    #[test]
    fn with_markers_a_full_queue_always_has_a_watched_packet_ahead() {
        // The handler's rule, packet by packet: add a marker when asked, then hand over.
        let r = Room::new(64);
        for _ in 0..1000 {
            let n = if r.needs_watch(1) { 2 } else { 1 };
            if !r.fits(n) {
                let ahead = r.passed.load(Ordering::Acquire) < r.watched.load(Ordering::Acquire);
                assert!(ahead, "no room and nothing of cltap's ahead to wait for");
                // The device catches up to the last watched packet.
                r.passed(r.watched.load(Ordering::Acquire) - 1);
            }
            let at = r.next();
            r.wrote(n);
            if n == 2 {
                r.watch(at + 1);
            }
        }
    }

    #[test]
    fn nothing_watched_ahead_means_no_wait() {
        let r = Room::new(4);
        r.wrote(4);
        r.watch(0);
        r.passed(0);
        assert!(!r.wait_for(3), "returns at once: no completion of cltap's can show more room");
    }
}
