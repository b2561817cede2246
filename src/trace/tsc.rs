//! The time source for call records: the processor's time-stamp counter when
//! it is invariant (constant rate, never stopped), else CLOCK_MONOTONIC
//! through the vDSO. Either way, reading it is not a system call.

use std::sync::atomic::{AtomicBool, Ordering};

static USE_TSC: AtomicBool = AtomicBool::new(true);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    InvariantTsc,
    Monotonic,
}

impl Source {
    pub fn describe(self) -> &'static str {
        match self {
            Source::InvariantTsc => "invariant TSC",
            Source::Monotonic => "CLOCK_MONOTONIC (the TSC is not invariant on this processor)",
        }
    }
}

/// CPUID.80000007H:EDX[8], the invariant-TSC flag.
fn tsc_is_invariant() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::__cpuid;
        // SAFETY: CPUID is always available on x86-64.
        let max = __cpuid(0x8000_0000).eax;
        max >= 0x8000_0007 && __cpuid(0x8000_0007).edx & (1 << 8) != 0
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// [`tsc_is_invariant`], asked once (CPUID leaves a virtual machine).
pub fn invariant() -> bool {
    static INVARIANT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *INVARIANT.get_or_init(tsc_is_invariant)
}

/// Chooses the source once, at start-up.
pub fn init() -> Source {
    let tsc = invariant();
    USE_TSC.store(tsc, Ordering::Relaxed);
    if tsc {
        Source::InvariantTsc
    } else {
        Source::Monotonic
    }
}

pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the struct; CLOCK_MONOTONIC is served by the vDSO.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// `CLOCK_BOOTTIME` now, in ns (it counts the time the machine slept).
pub fn boottime_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the struct.
    unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

#[inline(always)]
pub fn now() -> u64 {
    #[cfg(target_arch = "x86_64")]
    if USE_TSC.load(Ordering::Relaxed) {
        // SAFETY: RDTSC has no preconditions.
        return unsafe { std::arch::x86_64::_rdtsc() };
    }
    monotonic_ns()
}

/// [`now`] where the caller knows that the trace's clock is the TSC
/// ([`invariant`]): the counter read without asking which source is in
/// use, which saves two dependent loads and a branch per reading.
#[inline(always)]
pub fn now_tsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: RDTSC has no preconditions.
    return unsafe { std::arch::x86_64::_rdtsc() };
    #[cfg(not(target_arch = "x86_64"))]
    now()
}

/// Puts [`now`] readings on the host's `CLOCK_MONOTONIC` nanoseconds, from
/// one reading of both and the measured tick rate.
#[derive(Debug, Clone, Copy)]
pub struct HostClock {
    pub tsc0: u64,
    pub mono0: u64,
    pub ticks_per_us: f64,
}

impl HostClock {
    pub fn ns(&self, tsc: u64) -> u64 {
        let d = tsc.wrapping_sub(self.tsc0) as i64 as f64 * 1000.0 / self.ticks_per_us;
        (self.mono0 as f64 + d).max(0.0) as u64
    }
}

/// Ticks of [`now`] per microsecond, measured against CLOCK_MONOTONIC over
/// `window`. With the monotonic source this is exactly 1000.
pub fn ticks_per_us(window: std::time::Duration) -> f64 {
    let (t0, n0) = (now(), monotonic_ns());
    std::thread::sleep(window);
    let (t1, n1) = (now(), monotonic_ns());
    let ns = (n1 - n0).max(1) as f64;
    (t1.wrapping_sub(t0)) as f64 * 1000.0 / ns
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_advances_and_calibrates() {
        init();
        let a = now();
        let f = ticks_per_us(std::time::Duration::from_millis(5));
        let b = now();
        assert!(b > a);
        assert!(f > 10.0 && f < 100_000.0, "{f} ticks per µs");
    }
}
