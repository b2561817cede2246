//! Kernel names for the device records, by the driver's kernel handle:
//! asked of the driver once per kernel, and forgotten when a kernel is made
//! at a handle's address (a new kernel may sit where a released one was)
//! and when the application lets go of a kernel's last reference. The
//! layer asks the driver; what is kept, and when it is forgotten, is here.
//!
//! A name is interned once into an append-only table, and an enqueue keeps
//! its index: no string is copied per enqueue, and the thread's latest
//! kernels ([`super::recent`]) answer without a lock. The reader turns the
//! index back into the name when it records the command.

use super::memo::Memo;
use super::recent::{Generation, Recent};
use crate::fork::lock::{self, Mutex};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// The interned name's index, by handle.
static IDS: Memo<u32> = Memo::new();
/// Bumped when a handle's name is forgotten.
static GEN: Generation = Generation::new();

/// Every name seen, each once: a name's index never changes.
struct Table {
    names: Vec<Arc<str>>,
    index: Option<HashMap<Arc<str>, u32>>,
}

static TABLE: Mutex<Table> = Mutex::new(Table { names: Vec::new(), index: None });

thread_local! {
    static LATEST: RefCell<Recent<u32, 4>> = const { RefCell::new(Recent::new()) };
}

fn intern(name: String) -> u32 {
    let mut t = TABLE.lock();
    let Table { names, index } = &mut *t;
    let index = index.get_or_insert_with(HashMap::new);
    if let Some(&i) = index.get(name.as_str()) {
        return i;
    }
    let name: Arc<str> = name.into();
    let i = names.len() as u32;
    names.push(name.clone());
    index.insert(name, i);
    i
}

/// The index of kernel `k`'s name: the one kept, else `ask`'s answer,
/// interned and kept.
#[inline]
pub fn id(k: usize, ask: impl FnOnce() -> Option<String>) -> Option<u32> {
    let gen = GEN.now();
    if let Ok(Some(i)) = LATEST.try_with(|l| l.borrow().get(k, gen).copied()) {
        return Some(i);
    }
    let i = match IDS.get(k) {
        Some(i) => i,
        None => {
            let i = intern(ask()?);
            IDS.insert(k, i);
            i
        }
    };
    let _ = LATEST.try_with(|l| l.borrow_mut().put(k, gen, i));
    Some(i)
}

/// The name interned at `id`.
pub fn name_of(id: u32) -> Option<Arc<str>> {
    TABLE.lock().names.get(id as usize).cloned()
}

/// The name of kernel `k`: the one kept, else `ask`'s answer, then kept.
pub fn name(k: usize, ask: impl FnOnce() -> Option<String>) -> Option<String> {
    id(k, ask).and_then(name_of).map(|n| n.to_string())
}

/// Whether a name is kept for `k` (then a release of `k` needs a look).
pub fn known(k: usize) -> bool {
    IDS.contains(k)
}

fn forget(ks: &[usize]) {
    IDS.forget(ks);
    GEN.bump();
}

/// Kernels were just made at these handles.
pub fn made(ks: &[usize]) {
    forget(ks);
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
        forget(&[k]);
    }
}

/// Locks the names across a `fork` (see [`super::fork`]): the handles'
/// memo, then the table.
pub(super) fn hold() {
    IDS.hold();
    lock::hold(&TABLE);
}

/// # Safety
/// [`hold`] ran on this thread, and nothing was released since.
pub(super) unsafe fn release() {
    // SAFETY: this thread holds both since hold (# Safety).
    unsafe {
        lock::release(&TABLE);
        IDS.release();
    }
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
    fn a_name_is_interned_once_and_its_index_stays() {
        const A: usize = 0x5EED_1001;
        const B: usize = 0x5EED_1002;
        made(&[A, B]);
        let a = id(A, || Some("interned_once".into())).unwrap();
        let b = id(B, || Some("interned_once".into())).unwrap();
        assert_eq!(a, b, "two kernels of one name share its index");
        assert_eq!(name_of(a).as_deref(), Some("interned_once"));
        let c = id(A, || panic!("asked again while the kernel lives")).unwrap();
        assert_eq!(c, a);
        made(&[A]);
        let d = id(A, || Some("interned_other".into())).unwrap();
        assert_ne!(d, a, "the thread's latest look-up is forgotten with the handle");
        assert_eq!(name_of(a).as_deref(), Some("interned_once"), "an index keeps its name");
        assert_eq!(id(A, || None), Some(d));
        made(&[A]);
        assert_eq!(id(A, || None), None, "no name where the driver gives none");
    }

    #[test]
    fn the_last_reference_is_a_count_of_one_or_unknown() {
        assert!(last_reference(Some(1)));
        assert!(last_reference(None));
        assert!(!last_reference(Some(2)));
    }
}
