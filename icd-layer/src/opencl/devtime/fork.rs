//! Device timing's memos across `fork`: held by the layer's one prepare
//! handler after `cltap::devtime`'s locks, released in the parent and in
//! the child (see `crate::fork`).

use super::{CLOCKS, EMPTY_LIST_TERMINATOR, QUEUE_INFO, READER, REFUSES};

/// No code takes a lock while it holds one of these memos: they come after
/// cltap's device timing locks, in any order.
pub(crate) fn hold_memos() {
    QUEUE_INFO.hold();
    CLOCKS.hold();
    REFUSES.hold();
    EMPTY_LIST_TERMINATOR.hold();
}

/// # Safety
/// [`hold_memos`] ran on this thread, and nothing was released since.
pub(crate) unsafe fn release_memos() {
    // SAFETY: `release` needs this thread to hold the lock, taken by `hold_memos` (# Safety).
    unsafe { EMPTY_LIST_TERMINATOR.release() };
    // SAFETY: `release` needs this thread to hold the lock, taken by `hold_memos` (# Safety).
    unsafe { REFUSES.release() };
    // SAFETY: `release` needs this thread to hold the lock, taken by `hold_memos` (# Safety).
    unsafe { CLOCKS.release() };
    // SAFETY: `release` needs this thread to hold the lock, taken by `hold_memos` (# Safety).
    unsafe { QUEUE_INFO.release() };
}

/// The parent's reader thread is not in the child: the child's first timed
/// enqueue starts its own.
pub(crate) fn forget_reader() {
    READER.forget();
}
