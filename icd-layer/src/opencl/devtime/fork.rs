//! Device timing's state across `fork`: the memos of the layer and
//! `cltap::devtime`'s, taken before it in a fixed order and released in the
//! parent and in the child (see `cltap::devtime::fork`).

use super::{CLOCKS, EMPTY_LIST_TERMINATOR, QUEUE_INFO, READER, REFUSES};

/// Registers the handlers, on device timing's first use.
pub(super) fn fork_handlers() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    extern "C" fn prepare() {
        cltap::devtime::fork::prepare();
        // No code takes a lock while it holds one of these memos: they
        // come after cltap's, in any order.
        QUEUE_INFO.hold();
        CLOCKS.hold();
        REFUSES.hold();
        EMPTY_LIST_TERMINATOR.hold();
    }
    /// # Safety
    /// `prepare` ran on this thread, and nothing was released since.
    unsafe fn release_memos() {
        // SAFETY: `release` needs this thread to hold the lock, taken by `hold`/`prepare`, as this fn's own contract
        // gives: `prepare` ran on this thread, and nothing was released since (# Safety).
        unsafe { EMPTY_LIST_TERMINATOR.release() };
        // SAFETY: `release` needs this thread to hold the lock, taken by `hold`/`prepare` (# Safety).
        unsafe { REFUSES.release() };
        // SAFETY: `release` needs this thread to hold the lock, taken by `hold`/`prepare` (# Safety).
        unsafe { CLOCKS.release() };
        // SAFETY: `release` needs this thread to hold the lock, taken by `hold`/`prepare` (# Safety).
        unsafe { QUEUE_INFO.release() };
    }
    extern "C" fn parent() {
        // SAFETY: `prepare` ran on this thread.
        unsafe {
            release_memos();
            cltap::devtime::fork::parent();
        }
    }
    extern "C" fn child() {
        // The parent's reader thread is not in the child: the child's
        // first timed enqueue starts its own.
        READER.forget();
        // SAFETY: `prepare` ran on this thread, the child's only one.
        unsafe {
            release_memos();
            cltap::devtime::fork::child();
        }
    }
    // SAFETY: plain functions, registered once; they take and release
    // cltap's own locks only.
    ONCE.call_once(|| unsafe {
        libc::pthread_atfork(Some(prepare), Some(parent), Some(child));
    });
}
