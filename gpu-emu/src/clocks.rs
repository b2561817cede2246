//! Clocks. The real KFD answers `GET_CLOCK_COUNTERS` with the GPU's counter, `CLOCK_MONOTONIC_RAW`
//! ns for the CPU counter and `CLOCK_BOOTTIME` ns (1 GHz) for the system counter, which ROCr hands
//! out as `HSA_SYSTEM_INFO_TIMESTAMP`. The emulated GPU counter runs at 100 MHz on the same
//! `CLOCK_BOOTTIME` base and never repeats a value: ROCr divides by the difference of two samples.
//!
//! `GPU_EMU_SUSPENDED_NS=N` (for tests) adds N ns to the system counter, as if the machine had
//! slept N ns since boot: `CLOCK_BOOTTIME` then runs ahead of `CLOCK_MONOTONIC` by that much, as
//! it does on a laptop after a suspend. Every time derived from it (the GPU counter, so dispatch
//! and SDMA timestamps) moves with it, so ROCr's translations stay consistent.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::sys::{HSAuint32, HsaClockCounters, HSAKMT_STATUS, HSAKMT_STATUS_INVALID_PARAMETER, HSAKMT_STATUS_SUCCESS};

/// The emulated GPU counter's frequency.
pub const GPU_CLOCK_HZ: u64 = 100_000_000;
/// The system counter's frequency (nanoseconds).
pub const SYSTEM_CLOCK_HZ: u64 = 1_000_000_000;

fn now_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid clock id and a valid out pointer.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// `GPU_EMU_SUSPENDED_NS`: the time the emulated machine pretends to have slept.
pub const SUSPENDED_VARIABLE: &str = "GPU_EMU_SUSPENDED_NS";
/// The longest pretended sleep accepted: a year, far from any overflow of the counters.
const SUSPENDED_MAX_NS: u64 = 365 * 24 * 3600 * 1_000_000_000;

fn suspended_ns() -> u64 {
    static SUSPENDED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *SUSPENDED.get_or_init(|| {
        let Ok(v) = std::env::var(SUSPENDED_VARIABLE) else { return 0 };
        match v.parse::<u64>() {
            Ok(ns) if ns <= SUSPENDED_MAX_NS => ns,
            _ => {
                crate::note(format_args!(
                    "{SUSPENDED_VARIABLE}={v}: not a number of nanoseconds from 0 to {SUSPENDED_MAX_NS}; the system counter is CLOCK_BOOTTIME as it is"
                ));
                0
            }
        }
    })
}

/// `CLOCK_BOOTTIME` in ns (plus `GPU_EMU_SUSPENDED_NS`): the domain of `HSA_SYSTEM_INFO_TIMESTAMP`.
pub fn system_ns() -> u64 {
    now_ns(libc::CLOCK_BOOTTIME) + suspended_ns()
}

static LAST_GPU_TICK: AtomicU64 = AtomicU64::new(0);

/// The GPU counter: strictly increasing across all callers.
pub fn gpu_ticks() -> u64 {
    gpu_pair().0
}

/// The GPU counter and the system time it stands for, strictly increasing
/// across all callers. The system time is read again on every attempt: a
/// reading taken before another caller moved the counter on (this thread
/// preempted between them) would pair the counter with a time far behind.
fn gpu_pair() -> (u64, u64) {
    let mut last = LAST_GPU_TICK.load(Ordering::Acquire);
    loop {
        let system = system_ns();
        let next = (system / (SYSTEM_CLOCK_HZ / GPU_CLOCK_HZ)).max(last + 1);
        match LAST_GPU_TICK.compare_exchange_weak(last, next, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => return (next, system),
            Err(seen) => last = seen,
        }
    }
}

#[no_mangle]
pub extern "C" fn hsaKmtGetClockCounters(node: HSAuint32, counters: *mut HsaClockCounters) -> HSAKMT_STATUS {
    crate::guard(|| {
        if counters.is_null() || !crate::topology::valid_node(node) {
            return HSAKMT_STATUS_INVALID_PARAMETER;
        }
        // One reading gives both counters: ROCr maps GPU ticks to system
        // time through these pairs, and two readings apart (a preempted
        // thread between them) would shift every translated time by the gap,
        // past the host's own clock.
        let (gpu, system) = gpu_pair();
        let c = HsaClockCounters {
            GPUClockCounter: gpu,
            CPUClockCounter: now_ns(libc::CLOCK_MONOTONIC_RAW),
            SystemClockCounter: system,
            SystemClockFrequencyHz: SYSTEM_CLOCK_HZ,
        };
        // SAFETY: checked non-null; the caller's struct.
        unsafe { counters.write_unaligned(c) };
        HSAKMT_STATUS_SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_counter_never_repeats_and_tracks_the_system_clock() {
        let a = gpu_ticks();
        let b = gpu_ticks();
        assert!(b > a);
        let sys = system_ns() / 10;
        let c = gpu_ticks();
        assert!(c >= sys, "gpu {c} behind system/10 {sys}");
    }

    #[test]
    fn a_sample_pairs_the_gpu_counter_with_its_own_system_time() {
        // However long the caller is held between the two fields, the pair
        // says the same instant (to one tick, or the ticks the counter ran
        // ahead to stay strictly increasing).
        for _ in 0..1000 {
            let mut c = HsaClockCounters::default();
            assert_eq!(hsaKmtGetClockCounters(0, &mut c), HSAKMT_STATUS_SUCCESS);
            let at = c.SystemClockCounter / (SYSTEM_CLOCK_HZ / GPU_CLOCK_HZ);
            assert!(c.GPUClockCounter >= at, "{c:?}");
            assert!(c.GPUClockCounter - at < 1000, "the counter ran far ahead: {c:?}");
        }
    }
}
