//! A thread's few latest look-ups by handle, so that an enqueue finds its
//! queue's list and its kernel's name without a lock: the shared memos are
//! asked only on a miss. A handle's address may be reused by a new object;
//! whoever forgets a handle in the shared memo bumps its [`Generation`],
//! and an entry of an older generation is a miss.

use std::sync::atomic::{AtomicU64, Ordering};

/// Bumped whenever a handle is forgotten.
#[derive(Debug, Default)]
pub struct Generation(AtomicU64);

impl Generation {
    pub const fn new() -> Self {
        Generation(AtomicU64::new(0))
    }

    /// The current generation. Acquire: a thread that got a new handle
    /// from the thread that made it sees the bump made before it.
    #[inline]
    pub fn now(&self) -> u64 {
        self.0.load(Ordering::Acquire)
    }

    pub fn bump(&self) {
        self.0.fetch_add(1, Ordering::AcqRel);
    }
}

/// The last `N` handles looked up on this thread, with their values.
#[derive(Debug)]
pub struct Recent<V, const N: usize> {
    keys: [(usize, u64); N],
    vals: [Option<V>; N],
    next: usize,
}

impl<V: Clone, const N: usize> Recent<V, N> {
    pub const fn new() -> Self {
        Recent { keys: [(0, 0); N], vals: [const { None }; N], next: 0 }
    }

    /// The value kept for `key` at generation `gen`.
    #[inline]
    pub fn get(&self, key: usize, gen: u64) -> Option<&V> {
        let i = self.keys.iter().position(|&k| k == (key, gen))?;
        self.vals[i].as_ref()
    }

    /// Keeps `v` for `key` at `gen`, in place of the oldest entry.
    pub fn put(&mut self, key: usize, gen: u64, v: V) {
        let i = self.next % N;
        self.keys[i] = (key, gen);
        self.vals[i] = Some(v);
        self.next = self.next.wrapping_add(1);
    }
}

impl<V: Clone, const N: usize> Default for Recent<V, N> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_of_an_older_generation_or_pushed_out_are_misses() {
        let g = Generation::new();
        let mut r: Recent<u32, 2> = Recent::new();
        assert_eq!(r.get(0, g.now()), None, "an empty slot is no entry, even for key 0");
        r.put(0x10, g.now(), 1);
        assert_eq!(r.get(0x10, g.now()), Some(&1));
        g.bump();
        assert_eq!(r.get(0x10, g.now()), None, "forgotten since");
        r.put(0x10, g.now(), 2);
        r.put(0x20, g.now(), 3);
        assert_eq!((r.get(0x10, g.now()), r.get(0x20, g.now())), (Some(&2), Some(&3)));
        r.put(0x30, g.now(), 4);
        assert_eq!(r.get(0x10, g.now()), None, "the oldest gave way");
        assert_eq!(r.get(0x30, g.now()), Some(&4));
    }
}
