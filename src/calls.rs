//! Per-API call and error tallies: the pass-through report. One relaxed
//! atomic add per call; no lock, no allocation, no system call.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Upper bound on described functions (slots plus extension entries).
pub const MAX_FUNCTIONS: usize = 512;

/// Copies of the counts. Threads that call one function at once would
/// otherwise all add to one cache line, which then moves between their
/// cores on every call (on the H200 host that doubled the pass-through's
/// cost with 8 threads). Each thread adds to the copy its stack's address
/// picks: no lookup, no thread-local storage (a call through
/// `__tls_get_addr` from a loaded library), and two threads that pick the
/// same copy are still counted exactly, only not apart.
const SHARDS: usize = 16;

#[repr(align(128))]
struct Shard {
    calls: [AtomicU64; MAX_FUNCTIONS],
    errors: [AtomicU64; MAX_FUNCTIONS],
}

pub struct Tally {
    shards: [Shard; SHARDS],
    on: AtomicBool,
}

/// The copy of the counts this thread adds to: its stack's 2 MiB region,
/// hashed (threads' stacks are separate mappings, megabytes apart). A call
/// deeper in the stack may pick another copy, which changes nothing.
#[inline(always)]
fn shard() -> usize {
    #[cfg(target_arch = "x86_64")]
    let sp: u64 = {
        let sp: u64;
        // SAFETY: reads the stack pointer; touches no memory and no flags.
        unsafe { std::arch::asm!("mov {}, rsp", out(reg) sp, options(nomem, nostack, preserves_flags)) };
        sp
    };
    #[cfg(not(target_arch = "x86_64"))]
    let sp = {
        let here = 0u8;
        std::hint::black_box(&here) as *const u8 as u64
    };
    ((sp >> 21).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SHARDS.trailing_zeros())) as usize
}

impl Tally {
    pub const fn new() -> Self {
        Self {
            shards: [const {
                Shard {
                    calls: [const { AtomicU64::new(0) }; MAX_FUNCTIONS],
                    errors: [const { AtomicU64::new(0) }; MAX_FUNCTIONS],
                }
            }; SHARDS],
            on: AtomicBool::new(false),
        }
    }

    pub fn enable(&self, on: bool) {
        self.on.store(on, Ordering::Release);
    }

    pub fn is_on(&self) -> bool {
        self.on.load(Ordering::Relaxed)
    }

    #[inline(always)]
    pub fn record(&self, id: usize, failed: bool) {
        if !self.on.load(Ordering::Relaxed) {
            return;
        }
        self.count(id, failed);
    }

    /// [`Tally::record`] for a caller that knows the tally is on.
    #[inline(always)]
    pub fn count(&self, id: usize, failed: bool) {
        let s = &self.shards[shard()];
        s.calls[id].fetch_add(1, Ordering::Relaxed);
        if failed {
            s.errors[id].fetch_add(1, Ordering::Relaxed);
        }
    }

    /// (function id, calls, errors) for every function called at least once.
    pub fn snapshot(&self) -> Vec<(usize, u64, u64)> {
        let sum = |f: &dyn Fn(&Shard) -> &AtomicU64| {
            self.shards.iter().fold(0u64, |t, s| t.wrapping_add(f(s).load(Ordering::Relaxed)))
        };
        (0..MAX_FUNCTIONS)
            .filter_map(|i| {
                let c = sum(&|s| &s.calls[i]);
                (c > 0).then(|| (i, c, sum(&|s| &s.errors[i])))
            })
            .collect()
    }
}

impl Default for Tally {
    fn default() -> Self {
        Self::new()
    }
}

/// Formats the tally as an aligned table, busiest API first.
pub fn render<'a>(rows: &[(usize, u64, u64)], name_of: impl Fn(usize) -> &'a str) -> String {
    let mut rows: Vec<_> = rows.iter().map(|&(id, c, e)| (name_of(id), c, e)).collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(3).clamp(3, crate::report::MAX_NAME_WIDTH);
    let total = rows.iter().fold(0u64, |t, r| t.saturating_add(r.1));
    let mut out = format!("{:<w$}  {:>10}  {:>8}\n", "API", "calls", "errors");
    for (n, c, e) in &rows {
        out += &format!("{n:<w$}  {c:>10}  {e:>8}\n");
    }
    out += &format!("{:<w$}  {total:>10}\n", format!("{} APIs", rows.len()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_only_when_enabled() {
        let t = Tally::new();
        t.record(3, false);
        assert!(t.snapshot().is_empty());
        t.enable(true);
        t.record(3, false);
        t.record(3, true);
        t.record(7, false);
        assert_eq!(t.snapshot(), vec![(3, 2, 1), (7, 1, 0)]);
    }

    /// Threads that add to different copies are all counted.
    #[test]
    fn counts_from_many_threads_add_up() {
        static T: Tally = Tally::new();
        T.enable(true);
        std::thread::scope(|sc| {
            for _ in 0..8 {
                sc.spawn(|| {
                    for i in 0..10_000 {
                        T.record(5, i % 10 == 0);
                    }
                });
            }
        });
        assert_eq!(T.snapshot(), vec![(5, 80_000, 8_000)]);
    }

    #[test]
    fn render_sorts_by_calls() {
        let names = ["clA", "clBee", "clC"];
        let s = render(&[(0, 1, 0), (1, 5, 2), (2, 3, 0)], |i| names[i]);
        let lines: Vec<&str> = s.lines().collect();
        assert!(lines[1].starts_with("clBee") && lines[1].ends_with("2"), "{s}");
        assert!(lines[2].starts_with("clC"), "{s}");
        assert!(lines[4].contains("3 APIs") && lines[4].contains("9"), "{s}");
    }
}
