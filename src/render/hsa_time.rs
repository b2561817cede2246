//! HSA system timestamps onto the host clock the calls are drawn on.
//!
//! The trace's `hsa_clock_offset` ([`crate::trace::hsa_clock`]) says how far
//! `HSA_SYSTEM_INFO_TIMESTAMP` (CLOCK_BOOTTIME on Linux) is ahead of
//! `CLOCK_MONOTONIC`. The key is written at the HSA tool's start, which may
//! be after the renderer opened the trace, so it is looked for again before
//! each chunk until found: a dispatch or copy is recorded only after it was
//! written, and rendered only after the chunk holding it was sealed. A
//! trace without it (no HSA runtime, or made before the key) gets today's
//! placement: HSA times taken as they are.

use cltap_formats::cltrace::{Reader, INFO_HSA_CLOCK_OFFSET};
use std::sync::{Arc, OnceLock};

/// Shared by the driver, which learns the offset, and the sinks, which
/// convert with it.
#[derive(Debug, Clone, Default)]
pub struct HsaClock(Arc<OnceLock<i64>>);

impl HsaClock {
    /// A clock that knows `offset` already (for tests and tools).
    pub fn with_offset(offset: i64) -> HsaClock {
        let c = HsaClock::default();
        let _ = c.0.set(offset);
        c
    }

    /// Reads the key from the trace's header as it is now, unless known.
    pub fn learn(&self, reader: &Reader) {
        if self.0.get().is_some() {
            return;
        }
        let found = match reader.info(INFO_HSA_CLOCK_OFFSET) {
            Some(v) => v.parse().ok(),
            None => reader.current_info().ok().and_then(|info| {
                info.into_iter().find(|(k, _)| k == INFO_HSA_CLOCK_OFFSET).and_then(|(_, v)| v.parse().ok())
            }),
        };
        if let Some(o) = found {
            let _ = self.0.set(o);
        }
    }

    /// The offset recorded, 0 when none is known.
    pub fn offset(&self) -> i64 {
        self.0.get().copied().unwrap_or(0)
    }

    /// An HSA system timestamp `t` (ns) on the host's `CLOCK_MONOTONIC` ns.
    /// Only a time the runtime gave may come here: 0 ("no time") is the
    /// callers' to leave out first.
    pub fn ns(&self, t: u64) -> u64 {
        t.wrapping_sub(self.offset() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_ten_seconds_ahead_is_put_back_ten_seconds() {
        let c = HsaClock::with_offset(10_000_000_000);
        assert_eq!(c.ns(10_000_000_500), 500);
        assert_eq!(HsaClock::with_offset(-7).ns(100), 107);
    }

    #[test]
    fn without_the_key_times_are_taken_as_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.cltrace");
        let h = cltap_formats::cltrace::FileHeader::new(4096, 1, cltap_formats::cltrace::Clock::Monotonic, 0, 0);
        let mut w = cltap_formats::cltrace::TraceWriter::create(&path, h, &[("stem", "t")]).unwrap();
        let r = Reader::open(&path).unwrap();
        let c = HsaClock::default();
        c.learn(&r);
        assert_eq!(c.ns(1234), 1234);
        // Added after the reader opened: found at the next look.
        w.add_info(INFO_HSA_CLOCK_OFFSET, "1000").unwrap();
        c.learn(&r);
        assert_eq!(c.ns(1234), 234);
    }
}
