//! The kernel filter (`CLTAP_KERNEL_INCLUDE`, `CLTAP_KERNEL_EXCLUDE`,
//! `CLTAP_KERNEL_ITERATIONS`, like rocprofv3's `--kernel-include-regex`,
//! `--kernel-exclude-regex` and `--kernel-iteration-range`): which kernel
//! launches get counters and device times. A launch is within it when its
//! name matches the include expression (if any), does not match the exclude
//! expression (if any), and is, among the launches of that name within the
//! expressions, one of the iterations asked for (from 1). Expressions match
//! anywhere in the name (anchor with `^…$`).

use crate::fork::lock::Mutex;
use std::collections::HashMap;
use std::sync::OnceLock;

/// What was asked for (checked when read; compiled by [`install`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Spec {
    pub include: Option<String>,
    pub exclude: Option<String>,
    /// Inclusive ranges of iterations, from 1.
    pub iterations: Option<Vec<(u64, u64)>>,
}

impl Spec {
    pub fn configured(&self) -> bool {
        self.include.is_some() || self.exclude.is_some() || self.iterations.is_some()
    }

    /// `1-3,10,20-`: iterations from 1; an open end goes on for ever.
    pub fn parse_iterations(v: &str) -> Option<Vec<(u64, u64)>> {
        let mut out = Vec::new();
        for item in v.split(',').map(str::trim) {
            let (a, b) = match item.split_once('-') {
                Some((a, "")) => (a.trim().parse().ok()?, u64::MAX),
                Some((a, b)) => (a.trim().parse().ok()?, b.trim().parse().ok()?),
                None => {
                    let n = item.parse().ok()?;
                    (n, n)
                }
            };
            if a == 0 || a > b {
                return None;
            }
            out.push((a, b));
        }
        Some(out)
    }
}

/// A regular expression as the filter takes it: the error's text.
pub fn check_regex(v: &str) -> Result<(), String> {
    regex::Regex::new(v).map(|_| ()).map_err(|e| e.to_string().lines().last().unwrap_or("").trim().to_string())
}

pub struct Filter {
    include: Option<regex::Regex>,
    exclude: Option<regex::Regex>,
    iterations: Option<Vec<(u64, u64)>>,
    /// Launches so far per name within the expressions.
    seen: Mutex<HashMap<String, u64>>,
}

impl Filter {
    pub fn new(s: &Spec) -> Option<Filter> {
        let re = |p: &Option<String>| p.as_deref().and_then(|p| regex::Regex::new(p).ok());
        s.configured().then(|| Filter {
            include: re(&s.include),
            exclude: re(&s.exclude),
            iterations: s.iterations.clone(),
            seen: Mutex::new(HashMap::new()),
        })
    }

    /// Whether the name passes the expressions (an unnamed kernel passes
    /// only when no include expression was given).
    pub fn names(&self, name: Option<&str>) -> bool {
        match name {
            Some(n) => {
                self.include.as_ref().is_none_or(|r| r.is_match(n))
                    && !self.exclude.as_ref().is_some_and(|r| r.is_match(n))
            }
            None => self.include.is_none(),
        }
    }

    /// One launch of kernel `name`: whether it is within the filter (it
    /// counts as an iteration of its name when the name passes).
    pub fn admit(&self, name: Option<&str>) -> bool {
        if !self.names(name) {
            return false;
        }
        let Some(ranges) = &self.iterations else { return true };
        let mut seen = self.seen.lock();
        let n = seen.entry(name.unwrap_or("").to_string()).or_insert(0);
        *n += 1;
        ranges.iter().any(|(a, b)| (*a..=*b).contains(n))
    }
}

static FILTER: OnceLock<Option<Filter>> = OnceLock::new();

/// Sets the process's filter once, at start-up.
pub fn install(s: &Spec) {
    let _ = FILTER.set(Filter::new(s));
}

/// The process's filter, when one was asked for.
#[inline]
pub fn get() -> Option<&'static Filter> {
    FILTER.get().and_then(Option::as_ref)
}

/// The prepare handler's part ([`crate::fork`]): the launches' counts.
pub(crate) fn hold_for_fork() {
    if let Some(f) = get() {
        crate::fork::kept::keep(f.seen.lock());
    }
}

/// One launch of `name` (see [`Filter::admit`]): true without a filter.
pub fn admit(name: Option<&str>) -> bool {
    get().is_none_or(|f| f.admit(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(inc: Option<&str>, exc: Option<&str>, it: Option<&str>) -> Filter {
        Filter::new(&Spec {
            include: inc.map(String::from),
            exclude: exc.map(String::from),
            iterations: it.map(|i| Spec::parse_iterations(i).unwrap()),
        })
        .unwrap()
    }

    #[test]
    fn include_then_exclude() {
        let f = filter(Some("^(add|mul)"), Some("_slow$"), None);
        assert!(f.admit(Some("add")));
        assert!(f.admit(Some("mul_fast")));
        assert!(!f.admit(Some("mul_slow")));
        assert!(!f.admit(Some("copy")));
        assert!(!f.admit(None));
        assert!(filter(None, Some("copy"), None).admit(None));
    }

    #[test]
    fn iterations_count_per_name_among_those_passing() {
        let f = filter(Some("add|mul"), None, Some("2-3,5"));
        let got: Vec<bool> =
            ["add", "copy", "add", "mul", "add", "add", "add", "mul"].iter().map(|n| f.admit(Some(n))).collect();
        // add: 1 2 3 4 5; mul: 1 2; copy never.
        assert_eq!(got, [false, false, true, false, true, false, true, true]);
    }

    #[test]
    fn iteration_ranges_parse() {
        assert_eq!(Spec::parse_iterations("1-3, 7,9-"), Some(vec![(1, 3), (7, 7), (9, u64::MAX)]));
        for bad in ["", "0", "0-2", "3-1", "a", "1-b", "-3"] {
            assert_eq!(Spec::parse_iterations(bad), None, "{bad}");
        }
        assert!(check_regex("(").is_err());
        assert!(check_regex("^k[0-9]+$").is_ok());
    }
}
