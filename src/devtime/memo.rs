//! What device timing looks up once per handle and keeps: a kernel's name,
//! a queue's context and device, a device's clock, a driver's answer to a
//! probe. Keyed by the handle's address.

use crate::fork::lock::{self, Mutex};
use std::collections::HashMap;

pub struct Memo<V>(Mutex<Option<HashMap<usize, V>>>);

impl<V: Clone> Memo<V> {
    pub const fn new() -> Self {
        Memo(Mutex::new(None))
    }

    pub fn get(&self, key: usize) -> Option<V> {
        self.with(key, V::clone)
    }

    /// `f` of the value kept for `key`, without copying it.
    pub fn with<T>(&self, key: usize, f: impl FnOnce(&V) -> T) -> Option<T> {
        self.0.lock().as_ref().and_then(|m| m.get(&key).map(f))
    }

    pub fn insert(&self, key: usize, v: V) {
        self.0.lock().get_or_insert_with(HashMap::new).insert(key, v);
    }

    /// Locks the memo across a `fork` (see [`super::fork`]).
    pub fn hold(&self) {
        lock::hold(&self.0);
    }

    /// Unlocks what [`Memo::hold`] locked.
    ///
    /// # Safety
    /// As [`lock::release`].
    pub unsafe fn release(&self) {
        // SAFETY: `release` needs this thread to hold the lock, taken by `hold`/`prepare`, as this fn's own contract
        // gives: As [`lock::release`] (# Safety).
        unsafe { lock::release(&self.0) };
    }

    /// Whether a value is kept for `key`.
    pub fn contains(&self, key: usize) -> bool {
        self.with(key, |_| ()).is_some()
    }

    /// Forgets every key in `keys` (a new handle may sit at a released
    /// one's address).
    pub fn forget(&self, keys: &[usize]) {
        if let Some(m) = self.0.lock().as_mut() {
            for k in keys {
                m.remove(k);
            }
        }
    }
}

impl<V: Clone> Default for Memo<V> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_kept_by_key_until_forgotten() {
        let m: Memo<String> = Memo::new();
        assert_eq!(m.get(1), None);
        m.insert(1, "a".into());
        m.insert(2, "b".into());
        assert_eq!(m.get(1).as_deref(), Some("a"));
        assert_eq!(m.with(2, |s| s.len()), Some(1));
        m.forget(&[1, 3]);
        assert_eq!(m.get(1), None);
        assert_eq!(m.get(2).as_deref(), Some("b"));
    }
}
