//! Device-time histograms per kernel (`CLTAP_DEVICE_HISTOGRAM`), as
//! CLIntercept's `DevicePerformanceTimingHistogram` gives per device: 30
//! bins by powers of two of nanoseconds. Here a kernel is its name with its
//! global and local sizes, since one kernel's launches of different sizes
//! take different times. Made from the trace's timed commands, so that the
//! process's summary and `cltap render`'s are the same.

use crate::devtime::{Command, Commands};
use serde_json::json;
use std::collections::BTreeMap;

/// Bins: 0 ns; then `[2^(b-1), 2^b)` for bin `b` from 1 to 28; the last,
/// 2^28 ns (about 0.27 s) and more.
pub const BINS: usize = 30;

/// The bin of a device time.
pub fn bin(ns: u64) -> usize {
    // The bit length: 0 for 0, b for [2^(b-1), 2^b).
    ((u64::BITS - ns.leading_zeros()) as usize).min(BINS - 1)
}

/// The lowest time of bin `b`, and the time it stays below (`None`: the
/// last bin has no end).
pub fn bounds(b: usize) -> (u64, Option<u64>) {
    let low = if b == 0 { 0 } else { 1u64 << (b - 1) };
    (low, (b < BINS - 1).then(|| 1u64 << b))
}

/// A kernel launch's group: name, global and local sizes (`None`: the
/// application passed NULL and the driver did not say what it chose).
pub type Key = (String, Vec<usize>, Option<Vec<usize>>);

/// The histograms of the commands' kernel launches that completed, by group.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Histograms(pub BTreeMap<Key, [u64; BINS]>);

impl Histograms {
    pub fn add(&mut self, c: &Command) {
        let Some(k) = c.kernel.as_ref().filter(|_| c.status == 0) else { return };
        let bins = self.0.entry((k.clone(), c.global.clone(), c.local.clone())).or_insert([0; BINS]);
        bins[bin(c.duration_ns())] += 1;
    }

    pub fn of(commands: &Commands) -> Histograms {
        let mut h = Histograms::default();
        commands.for_each(|c| h.add(&c));
        h
    }

    /// The summary's lines (each to be prefixed with `cltap: `): per group,
    /// a title, then its bins from the first to the last that holds a
    /// launch, each with a bar of up to 64 stars (at least one for a bin
    /// that holds any).
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        for ((name, global, local), bins) in &self.0 {
            let total: u64 = bins.iter().sum();
            out.push(format!("device-time histogram: {name} {} ({total} launches)", sizes(global, local.as_deref())));
            let first = bins.iter().position(|&n| n > 0).unwrap_or(0);
            let last = bins.iter().rposition(|&n| n > 0).unwrap_or(0);
            for (b, &n) in bins.iter().enumerate().take(last + 1).skip(first) {
                let label = match bounds(b) {
                    (_, Some(hi)) => format!(" < {hi:>10} ns"),
                    (lo, None) => format!(">= {lo:>10} ns"),
                };
                let stars = if n == 0 { 0 } else { ((64 * n) / total).max(1) as usize };
                out.push(format!("  {label}: {n:>9} {}", "*".repeat(stars)).trim_end().to_string());
            }
        }
        out
    }

    /// The summary file's `"kernel_histograms"`: the bins that hold a
    /// launch, each with its bounds.
    pub fn json(&self) -> serde_json::Value {
        let v: Vec<_> = self
            .0
            .iter()
            .map(|((name, global, local), bins)| {
                let b: Vec<_> = bins
                    .iter()
                    .enumerate()
                    .filter(|(_, &n)| n > 0)
                    .map(|(b, &n)| {
                        let (lo, hi) = bounds(b);
                        json!({"from_ns": lo, "below_ns": hi, "launches": n})
                    })
                    .collect();
                json!({"kernel": name, "global": global, "local": local, "launches": bins.iter().sum::<u64>(), "bins": b})
            })
            .collect();
        json!(v)
    }
}

fn sizes(global: &[usize], local: Option<&[usize]>) -> String {
    let dims = |v: &[usize]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join("x");
    format!("global {} local {}", dims(global), local.map_or_else(|| "NULL".to_string(), dims))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_are_powers_of_two_of_nanoseconds() {
        assert_eq!(bin(0), 0);
        assert_eq!(bin(1), 1);
        assert_eq!(bin(2), 2);
        assert_eq!(bin(3), 2);
        assert_eq!(bin(4095), 12);
        assert_eq!(bin(4096), 13);
        assert_eq!(bin((1 << 28) - 1), 28);
        assert_eq!(bin(1 << 28), 29);
        assert_eq!(bin(u64::MAX), 29);
        for ns in [0u64, 1, 5, 1000, 123_456_789, 1 << 40] {
            let (lo, hi) = bounds(bin(ns));
            assert!(lo <= ns && hi.is_none_or(|h| ns < h), "{ns} in bin {}", bin(ns));
        }
    }

    fn launch(name: &str, global: usize, local: Option<usize>, ns: u64, status: i32) -> Command {
        Command {
            cmd_id: 1,
            api: "clEnqueueNDRangeKernel",
            tid: 1,
            queue: 1,
            context: 1,
            device: "d".into(),
            cmd_type: 0x11F0,
            kernel: Some(name.into()),
            global: vec![global],
            local: local.map(|l| vec![l]),
            bytes: None,
            queued: 0,
            submit: 0,
            start: 100,
            end: 100 + ns,
            status,
            enqueue_tsc: 0,
            enqueue_end_tsc: 0,
            to_host: None,
        }
    }

    #[test]
    fn launches_are_counted_per_name_and_sizes() {
        let mut h = Histograms::default();
        for c in [
            launch("k", 64, Some(8), 3000, 0),
            launch("k", 64, Some(8), 3500, 0),
            launch("k", 64, Some(8), 9000, 0),
            launch("k", 128, None, 3000, 0),
            launch("k", 64, Some(8), 3000, -5),
        ] {
            h.add(&c);
        }
        assert_eq!(h.0.len(), 2);
        let lines = h.lines();
        // Groups in order of name, then sizes: [64] before [128].
        assert_eq!(lines[0], "device-time histogram: k global 64 local 8 (3 launches)");
        assert_eq!(lines[1], "   <       4096 ns:         2 ".to_string() + &"*".repeat(42));
        assert_eq!(lines[2], "   <       8192 ns:         0");
        assert_eq!(lines[3], "   <      16384 ns:         1 ".to_string() + &"*".repeat(21));
        assert_eq!(lines[4], "device-time histogram: k global 128 local NULL (1 launches)");
        assert_eq!(lines[5], "   <       4096 ns:         1 ".to_string() + &"*".repeat(64));
        assert_eq!(lines.len(), 6);
        let j = h.json();
        assert_eq!(j[0]["launches"], 3);
        assert_eq!(j[0]["bins"][0], json!({"from_ns": 2048, "below_ns": 4096, "launches": 2}));
        assert_eq!(j[0]["bins"][1], json!({"from_ns": 8192, "below_ns": 16384, "launches": 1}));
        assert_eq!(j[1]["local"], serde_json::Value::Null);
    }
}
