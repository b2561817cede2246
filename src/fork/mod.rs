//! cltap's process-wide locks across `fork`. A `fork` while another thread
//! held one of them would leave it locked in the child, where that thread
//! does not exist: the child's first call that needs it would wait for
//! ever. So the layer's one `pthread_atfork` prepare handler takes every
//! such lock, in the fixed order written in `docs/architecture.md` (Fork),
//! which is the order in which code nests them; the parent and the child
//! then release them (the child after making some state its own).
//!
//! The locks are futex locks ([`lock`], [`condvar`]) or std's (futex words
//! on Linux): a release in the child touches only the lock's own word.
//! Guards taken here are kept on the forking thread ([`keep`]) and dropped
//! after the fork ([`let_go`]); prepare, parent and child handlers all run
//! on that thread.

pub mod condvar;
pub mod kept;
pub mod lock;

pub use kept::{keep, let_go};

/// Step 3 of the order: the tools' tracers (see `docs/architecture.md`).
pub fn hold_tracers() {
    crate::tools::tracer_thread::hold_for_fork();
    crate::tools::tracer::hold_for_fork();
}

/// Step 5: the collection window's changes and the programs' registry.
pub fn hold_window_and_programs() {
    crate::window::hold_for_fork();
    crate::programs::registry::hold_for_fork();
}

/// Step 8: locks under which nothing else is taken.
pub fn hold_leaves() {
    crate::devtime::devices::hold_for_fork();
    crate::trace::hsa_clock::hold_for_fork();
    crate::panics::hold_for_fork();
    crate::tools::toollib::hold_for_fork();
    crate::tools::rocprofiler::registry::hold_for_fork();
    crate::kfilter::hold_for_fork();
    crate::dumps::args::hold_for_fork();
}

/// Step 10, last: the tools' buffers, then stderr (taken under most
/// others, by `warn!`).
pub fn hold_last() {
    crate::tools::buffer_registry::fork_prepare();
    keep(std::io::stderr().lock());
}

/// The parent's part, after the fork: everything taken by the `hold_`
/// functions above is released.
///
/// # Safety
/// They ran on this thread before the fork, and nothing was released since.
pub unsafe fn parent() {
    let_go();
    // SAFETY: `fork_prepare` ran on this thread (# Safety).
    unsafe { crate::tools::buffer_registry::fork_parent() };
}

/// The child's part: as [`parent`], and the state of threads the child does
/// not have is dropped.
///
/// # Safety
/// As [`parent`], in the child (whose one thread is the one that forked).
pub unsafe fn child() {
    // First: the buffers' repair reports a panic under `panics`' lock.
    let_go();
    // SAFETY: `fork_prepare` ran on this thread, now the child's only one (# Safety).
    unsafe { crate::tools::buffer_registry::fork_child() };
    crate::tools::tracer_thread::forked();
}
