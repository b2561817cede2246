//! A condition variable for [`super::lock::Mutex`], for the same reason as
//! the lock: parking_lot's `Condvar` parks and wakes through its
//! process-wide table, which a child of `fork` may find locked by a thread
//! it does not have. Here the state is one sequence word of the condition's
//! own: a waiter reads it under the mutex, unlocks and sleeps until it
//! changes; a notify bumps it and wakes the sleepers. Wake-ups may be
//! spurious: waiters check their condition in a loop.

use super::lock::RawFutexLock;
use parking_lot::lock_api::MutexGuard;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

pub struct Condvar(AtomicU32);

impl Default for Condvar {
    fn default() -> Self {
        Self::new()
    }
}

impl Condvar {
    pub const fn new() -> Self {
        Condvar(AtomicU32::new(0))
    }

    /// Unlocks `g`'s mutex, sleeps until a notify (or spuriously), relocks.
    pub fn wait<T>(&self, g: &mut MutexGuard<'_, RawFutexLock, T>) {
        let seen = self.0.load(Ordering::Acquire);
        MutexGuard::unlocked(g, || self.sleep(seen, None));
    }

    /// As [`Condvar::wait`], until `deadline` at the latest; true when it has passed.
    pub fn wait_until<T>(&self, g: &mut MutexGuard<'_, RawFutexLock, T>, deadline: Instant) -> bool {
        let Some(left) = deadline.checked_duration_since(Instant::now()) else {
            return true;
        };
        let seen = self.0.load(Ordering::Acquire);
        MutexGuard::unlocked(g, || self.sleep(seen, Some(left)));
        Instant::now() >= deadline
    }

    /// Wakes every waiter.
    pub fn notify_all(&self) {
        self.0.fetch_add(1, Ordering::Release);
        // SAFETY: FUTEX_WAKE on a live, aligned u32 of this process.
        unsafe {
            libc::syscall(libc::SYS_futex, self.0.as_ptr(), libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG, i32::MAX);
        }
    }

    fn sleep(&self, seen: u32, left: Option<std::time::Duration>) {
        let ts = left.map(|d| libc::timespec {
            tv_sec: d.as_secs().min(i64::MAX as u64) as libc::time_t,
            tv_nsec: d.subsec_nanos() as libc::c_long,
        });
        let tsp = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
        // SAFETY: FUTEX_WAIT on a live, aligned u32 of this process, with a
        // relative timeout that lives across the call or none; it returns at
        // once if the word no longer holds `seen` (a notify came first).
        unsafe {
            libc::syscall(libc::SYS_futex, self.0.as_ptr(), libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG, seen, tsp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::lock::Mutex;
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_waiter_sees_the_change_made_before_the_notify() {
        let m = Arc::new((Mutex::new(0u32), Condvar::new()));
        let waiters: Vec<_> = (0..3)
            .map(|_| {
                let m = m.clone();
                std::thread::spawn(move || {
                    let mut g = m.0.lock();
                    while *g == 0 {
                        m.1.wait(&mut g);
                    }
                    *g
                })
            })
            .collect();
        *m.0.lock() = 7;
        m.1.notify_all();
        for w in waiters {
            assert_eq!(w.join().unwrap(), 7);
        }
    }

    #[test]
    fn a_wait_until_a_past_deadline_times_out() {
        let m = Mutex::new(());
        let c = Condvar::new();
        let mut g = m.lock();
        assert!(c.wait_until(&mut g, Instant::now()));
        assert!(c.wait_until(&mut g, Instant::now() + std::time::Duration::from_millis(20)));
    }
}
