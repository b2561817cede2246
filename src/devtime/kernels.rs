//! Kernel names for the device records, by the driver's kernel handle:
//! asked of the driver once per kernel, and forgotten when a kernel is made
//! at a handle's address (a new kernel may sit where a released one was)
//! and when the application lets go of a kernel's last reference. The
//! layer asks the driver; what is kept, and when it is forgotten, is here.

use super::memo::Memo;

static NAMES: Memo<String> = Memo::new();

/// The name of kernel `k`: the one kept, else `ask`'s answer, then kept.
pub fn name(k: usize, ask: impl FnOnce() -> Option<String>) -> Option<String> {
    if let Some(n) = NAMES.get(k) {
        return Some(n);
    }
    let n = ask()?;
    NAMES.insert(k, n.clone());
    Some(n)
}

/// Whether a name is kept for `k` (then a release of `k` needs a look).
pub fn known(k: usize) -> bool {
    NAMES.contains(k)
}

/// Kernels were just made at these handles.
pub fn made(ks: &[usize]) {
    NAMES.forget(ks);
}

/// Whether a release of a kernel whose reference count was `before` (as
/// the driver said just before it; `None` where it would not say) lets go
/// of its last reference. Unknown counts as the last: forgetting a name
/// only costs asking for it again.
pub fn last_reference(before: Option<u32>) -> bool {
    before.is_none_or(|n| n <= 1)
}

/// The application released `k`, whose count was `before`, and the driver
/// answered `status`.
pub fn released(k: usize, before: Option<u32>, status: i32) {
    if status == 0 && last_reference(before) {
        NAMES.forget(&[k]);
    }
}

/// Locks the names across a `fork` (see [`super::fork`]).
pub(super) fn hold() {
    NAMES.hold();
}

/// # Safety
/// [`hold`] ran on this thread, and nothing was released since.
pub(super) unsafe fn release() {
    // SAFETY: `release` needs this thread to hold the lock, taken by `hold`/`prepare`, as this fn's own contract
    // gives: [`hold`] ran on this thread, and nothing was released since (# Safety).
    unsafe { NAMES.release() };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A driver of one handle: the kernel at the address, by generation.
    struct Driver {
        at: Cell<&'static str>,
        asked: Cell<u32>,
    }

    impl Driver {
        fn ask(&self) -> Option<String> {
            self.asked.set(self.asked.get() + 1);
            Some(self.at.get().to_string())
        }
    }

    #[test]
    fn a_kernel_made_where_a_released_one_was_gets_its_own_name() {
        const K: usize = 0x5EED_0001;
        let d = Driver { at: Cell::new("first"), asked: Cell::new(0) };
        made(&[K]);
        assert_eq!(name(K, || d.ask()).as_deref(), Some("first"));
        assert_eq!(name(K, || d.ask()).as_deref(), Some("first"));
        assert_eq!(d.asked.get(), 1, "asked once while the kernel lives");
        // Released while another reference remains: still the same kernel.
        released(K, Some(2), 0);
        assert!(known(K));
        // A release the driver refused changes nothing.
        released(K, Some(1), -48);
        assert!(known(K));
        // The last reference: the address may now hold another kernel.
        released(K, Some(1), 0);
        assert!(!known(K));
        d.at.set("second");
        assert_eq!(name(K, || d.ask()).as_deref(), Some("second"));
        // A kernel made at the address, however the old one went (a
        // reference the driver held, a count it would not give).
        d.at.set("third");
        made(&[K]);
        assert_eq!(name(K, || d.ask()).as_deref(), Some("third"));
        released(K, None, 0);
        assert!(!known(K), "an unknown count is taken as the last reference");
    }

    #[test]
    fn the_last_reference_is_a_count_of_one_or_unknown() {
        assert!(last_reference(Some(1)));
        assert!(last_reference(None));
        assert!(!last_reference(Some(2)));
    }
}
