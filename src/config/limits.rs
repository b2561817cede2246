//! Bounded output (docs/configuration.md#bounded-output): a limit on the
//! binary trace (`CLTAP_TRACE_LIMIT`), a limit on each text output
//! (`CLTAP_OUTPUT_LIMIT`), and dropping the trace once it is rendered
//! (`CLTAP_DROP_TRACE`).

use super::{flag, Config, ConfigError};

pub(crate) const VARS: &[(&str, &str)] = &[
    ("CLTAP_TRACE_LIMIT", "the largest the binary trace (.cltrace) may grow, in bytes with optional K, M or G (0: no limit, the default); past it calls are forwarded, not recorded, and counted as dropped"),
    ("CLTAP_OUTPUT_LIMIT", "the largest the API log and the timeline (.json) may grow each, in bytes with optional K, M or G (default 1G; 0: no limit); past it they end cleanly and say how much they leave out, and the trace keeps every record"),
    ("CLTAP_DROP_TRACE", "0 or 1: delete the binary trace once the process has rendered it whole (default 0)"),
];

/// The default limit of each text output: 1 GiB.
pub const OUTPUT_LIMIT: u64 = 1 << 30;

/// What is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// `CLTAP_TRACE_LIMIT`: bytes of the `.cltrace`, header included.
    pub trace: Option<u64>,
    /// `CLTAP_OUTPUT_LIMIT`: bytes of each limited text output.
    pub output: Option<u64>,
    /// `CLTAP_DROP_TRACE`.
    pub drop_trace: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { trace: None, output: Some(OUTPUT_LIMIT), drop_trace: false }
    }
}

/// A byte count with an optional `K`, `M`, `G` or `T`; `0` is no limit.
pub fn limit(var: &'static str, v: &str) -> Result<Option<u64>, ConfigError> {
    let bad = || ConfigError::Invalid {
        var,
        value: v.to_string(),
        accepted: "0 (no limit) or a byte count, optionally with K, M, G or T (e.g. 500M, 2G)",
    };
    let t = v.trim();
    let (num, shift) = match t.chars().last() {
        Some('K' | 'k') => (&t[..t.len() - 1], 10),
        Some('M' | 'm') => (&t[..t.len() - 1], 20),
        Some('G' | 'g') => (&t[..t.len() - 1], 30),
        Some('T' | 't') => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    let n: u64 = num.parse().map_err(|_| bad())?;
    let n = n.checked_mul(1 << shift).ok_or_else(bad)?;
    Ok((n > 0).then_some(n))
}

pub(crate) fn parse(name: &str, value: &str, cfg: &mut Config) -> Option<Result<(), ConfigError>> {
    Some(match name {
        "CLTAP_TRACE_LIMIT" => limit("CLTAP_TRACE_LIMIT", value).map(|l| cfg.limits.trace = l),
        "CLTAP_OUTPUT_LIMIT" => limit("CLTAP_OUTPUT_LIMIT", value).map(|l| cfg.limits.output = l),
        "CLTAP_DROP_TRACE" => flag("CLTAP_DROP_TRACE", value).map(|b| cfg.limits.drop_trace = b),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_parse_with_units_and_zero_is_none() {
        let v = |k: &str, x: &str| vec![(k.to_string(), x.to_string())];
        let (c, e) = Config::from_vars(v("CLTAP_TRACE_LIMIT", "64M"));
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(c.limits.trace, Some(64 << 20));
        let (c, _) = Config::from_vars(v("CLTAP_OUTPUT_LIMIT", "0"));
        assert_eq!(c.limits.output, None);
        let (c, _) = Config::from_vars(v("CLTAP_OUTPUT_LIMIT", "5T"));
        assert_eq!(c.limits.output, Some(5 << 40));
        assert_eq!(Config::default().limits.output, Some(OUTPUT_LIMIT));
        for bad in ["", "1.5G", "-1", "12Q", "99999999999T"] {
            let (_, e) = Config::from_vars(v("CLTAP_TRACE_LIMIT", bad));
            assert!(matches!(&e[..], [ConfigError::Invalid { var: "CLTAP_TRACE_LIMIT", .. }]), "{bad}: {e:?}");
        }
        let (_, e) = Config::from_vars(v("CLTAP_DROP_TRACE", "sometimes"));
        assert!(matches!(&e[..], [ConfigError::Invalid { var: "CLTAP_DROP_TRACE", .. }]), "{e:?}");
    }
}
