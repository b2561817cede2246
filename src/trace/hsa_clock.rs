//! How the HSA runtime's system timestamps relate to cltap's host clock.
//!
//! `HSA_SYSTEM_INFO_TIMESTAMP` (and every time ROCr derives from GPU ticks:
//! dispatch begin and end, async-copy times) is the KFD system counter,
//! which on Linux is `CLOCK_BOOTTIME` ns (`ktime_get_boottime_ns()` in
//! amdgpu's `kfd_ioctl_get_clock_counters`). cltap's calls are placed on
//! `CLOCK_MONOTONIC` ns ([`super::tsc::HostClock`]). The two differ by the
//! time the machine has slept since boot, so they cannot be compared as
//! they are. At the HSA tool's start cltap measures the difference once and
//! records it in the trace's information (`hsa_clock_offset`); renderers
//! that draw HSA times beside calls subtract it. Nothing is measured per
//! call: a suspend during the run is not followed (the offset is the one at
//! `OnLoad`).

use crate::fork::lock::Mutex;
use cltap_formats::cltrace::INFO_HSA_CLOCK_OFFSET;

/// The offset measured in this process, kept for a trace made after it was
/// measured (a forked child's).
static OFFSET: Mutex<Option<i64>> = Mutex::new(None);

/// The prepare handler's part ([`crate::fork`]).
pub(crate) fn hold_for_fork() {
    crate::fork::kept::keep(OFFSET.lock());
}

/// Readings of the bracket: the tightest of these is kept.
const TRIES: usize = 5;

/// `read_hsa` (the runtime's timestamp, None when it cannot say) minus
/// `CLOCK_MONOTONIC`, each reading bracketed by two monotonic ones; the
/// tightest of [`TRIES`] brackets, its middle. Returns the offset and the
/// bracket's width (the offset's uncertainty, twice over), or None when the
/// runtime gave no timestamp.
pub fn measure(mut read_hsa: impl FnMut() -> Option<u64>) -> Option<(i64, u64)> {
    let mut best: Option<(i64, u64)> = None;
    for _ in 0..TRIES {
        let before = super::tsc::monotonic_ns();
        let hsa = read_hsa()?;
        let after = super::tsc::monotonic_ns();
        let width = after.saturating_sub(before);
        let middle = before + width / 2;
        let offset = hsa as i128 - middle as i128;
        let offset = offset.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
        if best.is_none_or(|(_, w)| width < w) {
            best = Some((offset, width));
        }
    }
    best
}

/// Keeps `offset` (HSA timestamp minus `CLOCK_MONOTONIC`, ns) for the traces
/// of this process ([`super::writer::record_hsa_clock_offset`] writes it into
/// the current one) and returns its key and value.
pub fn remember(offset: i64) -> (&'static str, String) {
    *OFFSET.lock() = Some(offset);
    (INFO_HSA_CLOCK_OFFSET, offset.to_string())
}

/// The key for a trace begun after the offset was measured.
pub fn info() -> Option<(String, String)> {
    OFFSET.lock().map(|o| (INFO_HSA_CLOCK_OFFSET.to_string(), o.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_offset_of_a_clock_ten_seconds_ahead_is_ten_seconds_within_its_bracket() {
        let ahead = 10_000_000_000u64;
        let (offset, width) = measure(|| Some(super::super::tsc::monotonic_ns() + ahead)).unwrap();
        // The fake clock was read inside the bracket, so the true offset
        // (`ahead`) lies within half its width of the middle.
        assert!((offset - ahead as i64).unsigned_abs() <= width / 2 + 1, "offset {offset}, width {width}");
    }

    #[test]
    fn a_runtime_without_a_timestamp_gives_no_offset() {
        assert_eq!(measure(|| None), None);
    }

    #[test]
    fn a_clock_behind_gives_a_negative_offset() {
        let (offset, width) = measure(|| Some(super::super::tsc::monotonic_ns() - 5_000)).unwrap();
        assert!((offset + 5_000).unsigned_abs() <= width / 2 + 1, "offset {offset}, width {width}");
    }
}
