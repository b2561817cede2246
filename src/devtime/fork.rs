//! Device timing across `fork`. The application's threads (at their
//! enqueues and synchronisation points) and cltap's reader thread take
//! device timing's locks; a `fork` while one of them held a lock would leave
//! it locked in the child, where that thread does not exist, and the child's
//! first timed enqueue would wait for ever. So the layer's `pthread_atfork`
//! handlers call these: before the fork, reads under way end and every lock
//! is taken, in a fixed order; after it, the parent releases them, and the
//! child makes the state its own (the parent's commands are the parent's)
//! and releases them.
//!
//! The order: reads end first (a read takes list locks and the store's), then
//! the kernels' names, the application's queues, the set of lists, each
//! list, the store. No code takes one of these while holding a later one.

use super::{kernels, pending, queues, store};

/// The prepare handler's part: returns with every lock held.
pub fn prepare() {
    pending::pause_reads();
    kernels::hold();
    queues::hold();
    pending::hold();
    store::hold();
}

/// The parent's part, after the fork.
///
/// # Safety
/// [`prepare`] ran on this thread, and neither part since.
pub unsafe fn parent() {
    // SAFETY: `prepare` took each of these locks on this thread (# Safety); each is released once.
    unsafe {
        store::release();
        pending::release();
        queues::release();
        kernels::release();
    }
    pending::resume_reads();
}

/// The child's part, after the fork: the child times its own commands only,
/// into files of its own.
///
/// # Safety
/// As [`parent`], in the child.
pub unsafe fn child() {
    // SAFETY: the child has this one thread, which ran `prepare` before the fork (# Safety): it holds every lock, so
    // it may reset what they guard and then release each once.
    unsafe {
        store::forked();
        pending::forked();
        store::release();
        pending::release();
        queues::release();
        kernels::release();
    }
}

#[cfg(test)]
mod tests {
    use super::super::enqueue::{Enqueued, Launch, QueueDesc, Sizes};
    use super::super::pending::{Held, QueueList, Reading, OUTSTANDING};
    use super::super::{count, record, Command};
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    /// The fork has begun: its prepare handler is running.
    static PREPARING: AtomicBool = AtomicBool::new(false);

    extern "C" fn on_prepare() {
        PREPARING.store(true, Ordering::SeqCst);
        prepare();
    }
    extern "C" fn on_parent() {
        // SAFETY: `on_prepare` ran on this thread.
        unsafe { parent() };
        PREPARING.store(false, Ordering::SeqCst);
    }
    extern "C" fn on_child() {
        // SAFETY: as in `on_parent`, in the child.
        unsafe { child() };
    }

    fn held(ev: usize) -> Held {
        let l = Launch { kernel: None, global: Sizes::default(), local: None, bytes: Some(4) };
        Held { ev, cmd: Enqueued::new(ev as u64, "clEnqueueReadBuffer", 2, None, l), inherited: false }
    }

    /// What the child finds, as bits of its exit status (0: all is well).
    /// It runs no test harness code and never panics: it checks and exits.
    fn child_checks(list: &QueueList) -> i32 {
        let mut bad = 0;
        let lists = super::super::pending::lists();
        if !lists.iter().any(|l| std::ptr::eq(&**l, list)) {
            bad |= 1;
        }
        let taken = list.take();
        if taken.len() != 3 || !taken.iter().all(|h| h.inherited) {
            bad |= 2;
        }
        list.put_back(taken);
        if OUTSTANDING.get() != 0 {
            bad |= 4;
        }
        // The store is the child's, empty, and takes the child's commands.
        if count() != 0 {
            bad |= 8;
        }
        record(Command::enqueued(&held(0xF0F0_0009).cmd, &QueueDesc::default()));
        if count() != 1 {
            bad |= 16;
        }
        // No read is under way: one begins, and a question between reads
        // is answered at once.
        drop(Reading::begin());
        let t = std::time::Instant::now();
        super::super::pending::between_reads(|| ());
        if t.elapsed() > std::time::Duration::from_millis(500) {
            bad |= 32;
        }
        bad
    }

    #[test]
    fn a_fork_while_a_thread_reads_and_holds_the_locks_leaves_the_child_its_own_working_state() {
        // SAFETY: plain functions, registered once in this test binary.
        unsafe { libc::pthread_atfork(Some(on_prepare), Some(on_parent), Some(on_child)) };
        let list = QueueList::new(QueueDesc::default());
        for ev in [0xF0F0_0001, 0xF0F0_0002, 0xF0F0_0003] {
            list.push(held(ev));
            OUTSTANDING.add();
        }
        // Another thread is in a read, with the list's lock and the store's,
        // when the fork begins; it lets go only once the fork has begun.
        let holding = Arc::new(AtomicBool::new(false));
        let t = {
            let (list, holding) = (list.clone(), holding.clone());
            std::thread::spawn(move || {
                let reading = Reading::begin();
                let l = list.locked();
                let s = super::super::store::locked();
                holding.store(true, Ordering::SeqCst);
                while !PREPARING.load(Ordering::SeqCst) {
                    std::thread::yield_now();
                }
                drop(s);
                drop(l);
                drop(reading);
            })
        };
        while !holding.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        // SAFETY: the child only runs `child_checks` and `_exit`.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            // SAFETY: the child ends here, whatever it found; SIGALRM ends
            // it should a lock left held stop it.
            unsafe {
                libc::alarm(20);
                libc::_exit(child_checks(&list));
            }
        }
        assert!(pid > 0, "fork failed");
        t.join().unwrap();
        let mut status = 0;
        // SAFETY: waits for the child just made.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status), "the child was killed by signal {}", libc::WTERMSIG(status));
        assert_eq!(libc::WEXITSTATUS(status), 0, "the child's checks (bits) failed");
        // The parent's state is as it was.
        let taken = list.take();
        assert_eq!(
            taken.iter().map(|h| (h.ev, h.inherited)).collect::<Vec<_>>(),
            [(0xF0F0_0001, false), (0xF0F0_0002, false), (0xF0F0_0003, false)]
        );
        for _ in 0..3 {
            OUTSTANDING.sub();
        }
    }
}
