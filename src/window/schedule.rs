//! The time window's schedule (`CLTAP_WINDOW=DELAY:DURATION:REPEAT`, like
//! rocprofv3's `--collection-period`): closed for `delay`, open for
//! `duration`, and so on `repeat` times (0: for ever). Pure: the clock is
//! the caller's, so the logic is tested without waiting.

/// Nanoseconds since the trace started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Schedule {
    pub delay_ns: u64,
    pub duration_ns: u64,
    /// Cycles of delay then duration; 0 repeats for ever.
    pub repeat: u64,
}

/// What the schedule says at one instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct At {
    pub open: bool,
    /// When it next changes (ns since the start); `None`: never again.
    pub next: Option<u64>,
}

impl Schedule {
    pub fn at(&self, t: u64) -> At {
        let cycle = self.delay_ns.saturating_add(self.duration_ns).max(1);
        if self.delay_ns == 0 && self.repeat == 0 {
            return At { open: true, next: None };
        }
        let k = t / cycle;
        if self.repeat != 0 && k >= self.repeat {
            return At { open: false, next: None };
        }
        let start = k * cycle;
        let into = t - start;
        if into < self.delay_ns {
            return At { open: false, next: Some(start + self.delay_ns) };
        }
        // Back-to-back cycles with no delay stay open until the last ends.
        let end = if self.delay_ns == 0 { self.repeat.saturating_mul(cycle) } else { start.saturating_add(cycle) };
        At { open: true, next: Some(end) }
    }

    /// `DELAY:DURATION[:REPEAT]`, each time a number with its unit (ns, us,
    /// ms, s, m; a bare 0 for none): `2s:500ms:3`. The duration is not 0.
    pub fn parse(v: &str) -> Option<Schedule> {
        let mut parts = v.trim().split(':');
        let delay_ns = duration(parts.next()?)?;
        let duration_ns = duration(parts.next()?)?;
        let repeat = match parts.next() {
            Some(r) => r.trim().parse().ok()?,
            None => 1,
        };
        if parts.next().is_some() || duration_ns == 0 {
            return None;
        }
        Some(Schedule { delay_ns, duration_ns, repeat })
    }
}

/// A time with its unit, in nanoseconds.
pub fn duration(v: &str) -> Option<u64> {
    let v = v.trim();
    if v == "0" {
        return Some(0);
    }
    let split = v.find(|c: char| !c.is_ascii_digit() && c != '.')?;
    let (num, unit) = v.split_at(split);
    let scale: f64 = match unit {
        "ns" => 1.0,
        "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "m" | "min" => 60e9,
        _ => return None,
    };
    let n: f64 = num.parse().ok()?;
    let ns = n * scale;
    (ns.is_finite() && ns < u64::MAX as f64).then_some(ns as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn delay_then_duration_repeated_then_closed_for_good() {
        let s = Schedule::parse("2ms:1ms:2").unwrap();
        assert_eq!(s, Schedule { delay_ns: 2 * MS, duration_ns: MS, repeat: 2 });
        assert_eq!(s.at(0), At { open: false, next: Some(2 * MS) });
        assert_eq!(s.at(2 * MS), At { open: true, next: Some(3 * MS) });
        assert_eq!(s.at(3 * MS), At { open: false, next: Some(5 * MS) });
        assert_eq!(s.at(5 * MS + 1), At { open: true, next: Some(6 * MS) });
        assert_eq!(s.at(6 * MS), At { open: false, next: None });
        assert_eq!(s.at(600 * MS), At { open: false, next: None });
    }

    #[test]
    fn repeat_zero_goes_on_for_ever() {
        let s = Schedule::parse("1s:500ms:0").unwrap();
        assert!(s.at(1_000 * 1_500 * MS + 1_200 * MS).open);
        assert!(!s.at(1_000 * 1_500 * MS + 200 * MS).open);
    }

    #[test]
    fn no_delay_is_one_window_of_all_the_cycles() {
        let s = Schedule::parse("0:10ms:3").unwrap();
        assert_eq!(s.at(0), At { open: true, next: Some(30 * MS) });
        assert_eq!(s.at(30 * MS), At { open: false, next: None });
        assert_eq!(Schedule::parse("0:10ms:0").unwrap().at(5), At { open: true, next: None });
    }

    #[test]
    fn walking_the_changes_gives_each_window_once() {
        // What the timer thread does: jump from change to change.
        let s = Schedule::parse("5us:2us:3").unwrap();
        let (mut t, mut edges) = (0, Vec::new());
        let mut open = s.at(0).open;
        while let Some(n) = s.at(t).next {
            t = n;
            let a = s.at(t);
            if a.open != open {
                edges.push((t / 1000, a.open));
                open = a.open;
            }
        }
        assert_eq!(edges, [(5, true), (7, false), (12, true), (14, false), (19, true), (21, false)]);
    }

    #[test]
    fn units_are_required_and_bad_values_refused() {
        assert_eq!(duration("1.5s"), Some(1_500_000_000));
        assert_eq!(duration("250us"), Some(250_000));
        assert_eq!(duration("2m"), Some(120_000_000_000));
        for bad in ["2", "2x", "s", "-1s", "", "1e3s"] {
            assert_eq!(duration(bad), None, "{bad}");
        }
        for bad in ["1s", "1s:0", "1s:2s:x", "1s:2s:3:4", ":1s", "1s:2"] {
            assert_eq!(Schedule::parse(bad), None, "{bad}");
        }
    }
}
