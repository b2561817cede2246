//! TSC ticks to the microseconds the outputs print (a module of its own:
//! the API log's line writer and its `Call` path both use it).

/// How to turn TSC ticks into the log's microseconds.
#[derive(Debug, Clone, Copy)]
pub struct Timebase {
    pub ticks_per_us: f64,
}

impl Timebase {
    pub fn us(&self, ticks: u64) -> u64 {
        (ticks as f64 / self.ticks_per_us).round() as u64
    }
}
