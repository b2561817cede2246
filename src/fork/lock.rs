//! The mutex of cltap's process-wide state, which the `fork` handlers hold
//! across a `fork` and release in the parent and in the child
//! ([`super`]).
//!
//! A futex word and nothing else. parking_lot's unlock of a lock that other
//! threads wait for goes through its process-wide table of parked threads,
//! whose bucket locks a thread of the parent may hold at the instant of the
//! fork: the child's release would then wait forever. Here a release is a
//! swap and, when threads waited, one `FUTEX_WAKE` on the child's own
//! memory, which wakes nobody there and holds nothing.

use std::sync::atomic::{AtomicU32, Ordering};

/// Unlocked; locked with no thread waiting; locked with threads waiting.
const FREE: u32 = 0;
const LOCKED: u32 = 1;
const CONTENDED: u32 = 2;

pub struct RawFutexLock(AtomicU32);

pub type Mutex<T> = parking_lot::lock_api::Mutex<RawFutexLock, T>;
pub type MutexGuard<'a, T> = parking_lot::lock_api::MutexGuard<'a, RawFutexLock, T>;

// SAFETY: a thread owns the lock from a successful swap or exchange away
// from FREE until its `unlock`; the acquiring operations are Acquire and the
// release is Release, so the data is handed over between owners.
unsafe impl parking_lot::lock_api::RawMutex for RawFutexLock {
    #[allow(clippy::declare_interior_mutable_const)]
    const INIT: RawFutexLock = RawFutexLock(AtomicU32::new(FREE));
    type GuardMarker = parking_lot::lock_api::GuardSend;

    #[inline]
    fn lock(&self) {
        if self.0.compare_exchange(FREE, LOCKED, Ordering::Acquire, Ordering::Relaxed).is_err() {
            self.lock_contended();
        }
    }

    #[inline]
    fn try_lock(&self) -> bool {
        self.0.compare_exchange(FREE, LOCKED, Ordering::Acquire, Ordering::Relaxed).is_ok()
    }

    /// # Safety
    /// The calling thread holds the lock (a `lock` or `try_lock` that succeeded, not yet unlocked).
    #[inline]
    unsafe fn unlock(&self) {
        if self.0.swap(FREE, Ordering::Release) == CONTENDED {
            self.wake();
        }
    }
}

impl RawFutexLock {
    #[cold]
    fn lock_contended(&self) {
        // Held for a few hundred nanoseconds at most: spin a little first.
        for _ in 0..100 {
            std::hint::spin_loop();
            if self.0.load(Ordering::Relaxed) == FREE
                && self.0.compare_exchange(FREE, LOCKED, Ordering::Acquire, Ordering::Relaxed).is_ok()
            {
                return;
            }
        }
        // CONTENDED from now on: whoever unlocks wakes a waiter, which takes
        // the lock as CONTENDED again (there may be others).
        while self.0.swap(CONTENDED, Ordering::Acquire) != FREE {
            // SAFETY: FUTEX_WAIT on a live, aligned u32 of this process; it
            // returns at once if the word is no longer CONTENDED.
            unsafe {
                libc::syscall(
                    libc::SYS_futex,
                    self.0.as_ptr(),
                    libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG,
                    CONTENDED,
                    std::ptr::null::<libc::timespec>(),
                );
            }
        }
    }

    #[cold]
    fn wake(&self) {
        // SAFETY: FUTEX_WAKE on a live, aligned u32 of this process.
        unsafe {
            libc::syscall(libc::SYS_futex, self.0.as_ptr(), libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG, 1);
        }
    }
}

/// Locks `m` and keeps it locked past this call (a fork's prepare handler),
/// until [`release`].
pub fn hold<T>(m: &Mutex<T>) {
    std::mem::forget(m.lock());
}

/// Unlocks what [`hold`] locked.
///
/// # Safety
/// `m` was locked by [`hold`] on this thread (in a fork's child, by the
/// thread that forked, now the child's only thread), and not unlocked since.
pub unsafe fn release<T>(m: &Mutex<T>) {
    // SAFETY: `force_unlock`'s # Safety follows from this fn's.
    unsafe { m.force_unlock() };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn threads_take_turns_and_nothing_is_lost() {
        let m = Arc::new(Mutex::new(0u64));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let m = m.clone();
                std::thread::spawn(move || {
                    for _ in 0..100_000 {
                        *m.lock() += 1;
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*m.lock(), 400_000);
    }

    #[test]
    fn a_held_lock_is_released_for_a_waiting_thread() {
        static M: Mutex<u32> = Mutex::new(0);
        hold(&M);
        assert!(M.try_lock().is_none());
        let t = std::thread::spawn(|| *M.lock() += 1);
        // SAFETY: held above, on this thread.
        unsafe { release(&M) };
        t.join().unwrap();
        assert_eq!(*M.lock(), 1);
    }
}
