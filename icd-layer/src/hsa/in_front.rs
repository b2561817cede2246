//! Entries a tool puts in front of cltap's own (rocprofiler v1's
//! `rocprofiler_set_hsa_callbacks`): what `OnLoad` installs in their place,
//! and what they call on. Apart from `onload`, so that a tool's part can
//! name it without naming what loads the tools.

use std::sync::atomic::Ordering;

/// Entries put in front of cltap's own by a tool's HSA callbacks
/// (rocprofiler v1's `rocprofiler_set_hsa_callbacks`), by HSA function id;
/// 0: none. Set before `OnLoad` installs the tables (a tool sets its
/// callbacks while it loads, which is before).
static EXTRA: [std::sync::atomic::AtomicUsize; super::api::COUNT] =
    [const { std::sync::atomic::AtomicUsize::new(0) }; super::api::COUNT];
/// What such an entry calls on: the entry cltap itself installs there.
static NEXT: [std::sync::atomic::AtomicUsize; super::api::COUNT] =
    [const { std::sync::atomic::AtomicUsize::new(0) }; super::api::COUNT];

/// Puts `entry` in front of cltap's own entry of HSA function `id`.
pub fn put_in_front(id: usize, entry: usize) {
    EXTRA[id].store(entry, Ordering::Release);
}

/// The entry an entry put in front of function `id` calls on.
pub fn next(id: usize) -> usize {
    NEXT[id].load(Ordering::Acquire)
}

/// The entry put in front of function `id`, 0 when none.
pub fn extra(id: usize) -> usize {
    EXTRA[id].load(Ordering::Acquire)
}

/// `OnLoad`: the entry cltap installed for function `id`, behind a tool's.
pub fn set_next(id: usize, entry: usize) {
    NEXT[id].store(entry, Ordering::Release);
}
