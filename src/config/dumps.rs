//! Argument dumps, injection and capture around kernel enqueues:
//! `CLTAP_DUMP_ARGS`, `CLTAP_DUMP_KERNELS`, `CLTAP_DUMP_ENQUEUES`,
//! `CLTAP_DUMP_MAX`, `CLTAP_DUMP_TOTAL`, `CLTAP_INJECT`, `CLTAP_CAPTURE`
//! ([debugging.md](../../docs/debugging.md)).

use super::{flag, Config, ConfigError};
use std::path::PathBuf;

pub(crate) const VARS: &[(&str, &str)] = &[
    (
        "CLTAP_DUMP_ARGS",
        "before, after or both: write the selected kernel enqueues' argument contents (buffers, images, scalars) to <output>/<name>.dumps/",
    ),
    ("CLTAP_DUMP_KERNELS", "a regular expression: only enqueues of kernels whose names match are dumped, injected or captured"),
    (
        "CLTAP_DUMP_ENQUEUES",
        "comma-separated kernel enqueue numbers and ranges, from 1 (1-3,10,20-): only those enqueues are dumped, injected or captured",
    ),
    ("CLTAP_DUMP_MAX", "bytes, with optional K, M or G: the largest argument written (default 256M); a larger one is left out with a line"),
    ("CLTAP_DUMP_TOTAL", "bytes, with optional K, M or G: all dumps and captures of the run together (default 4G); past it nothing more is written"),
    (
        "CLTAP_INJECT",
        "a folder: before a selected enqueue, each file e<N>[-<kernel>].a<I>[.<anything>] in it (a dump's name) replaces argument I of kernel enqueue N",
    ),
    ("CLTAP_CAPTURE", "0 or 1: write each selected enqueue as a folder under <output>/<name>.capture/ that `cltap replay` runs"),
];

/// When the argument contents are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum When {
    #[default]
    Never,
    Before,
    After,
    Both,
}

impl When {
    pub fn before(self) -> bool {
        matches!(self, When::Before | When::Both)
    }
    pub fn after(self) -> bool {
        matches!(self, When::After | When::Both)
    }
}

/// What the dump controls ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dumps {
    pub when: When,
    /// Kernel names (a regular expression, checked).
    pub kernels: Option<String>,
    /// Kernel enqueue numbers, from 1.
    pub enqueues: Option<Vec<(u64, u64)>>,
    /// Bytes of one argument at most.
    pub max: u64,
    /// Bytes of the whole run at most.
    pub total: u64,
    pub inject: Option<PathBuf>,
    pub capture: bool,
}

impl Default for Dumps {
    fn default() -> Self {
        Dumps {
            when: When::Never,
            kernels: None,
            enqueues: None,
            max: 256 << 20,
            total: 4 << 30,
            inject: None,
            capture: false,
        }
    }
}

impl Dumps {
    /// Whether any kernel enqueue needs cltap's attention.
    pub fn any(&self) -> bool {
        self.when != When::Never || self.inject.is_some() || self.capture
    }
}

pub(crate) fn parse(name: &str, value: &str, cfg: &mut Config) -> Option<Result<(), ConfigError>> {
    let d = &mut cfg.dumps;
    let v = value.trim();
    Some(match name {
        "CLTAP_DUMP_ARGS" => {
            let when = match v.to_ascii_lowercase().as_str() {
                "" | "0" | "off" | "no" => Some(When::Never),
                "before" => Some(When::Before),
                "after" => Some(When::After),
                "both" | "1" => Some(When::Both),
                _ => None,
            };
            when.map(|w| d.when = w).ok_or(ConfigError::Invalid {
                var: "CLTAP_DUMP_ARGS",
                value: value.to_string(),
                accepted: "before, after or both (0 or empty: off)",
            })
        }
        "CLTAP_DUMP_KERNELS" if v.is_empty() => Ok(()),
        "CLTAP_DUMP_KERNELS" => crate::kfilter::check_regex(value)
            .map(|()| d.kernels = Some(value.to_string()))
            .map_err(|why| ConfigError::Input {
                var: "CLTAP_DUMP_KERNELS",
                why: format!("{value:?} is not a regular expression ({why})"),
            }),
        "CLTAP_DUMP_ENQUEUES" if v.is_empty() => Ok(()),
        "CLTAP_DUMP_ENQUEUES" => {
            crate::kfilter::Spec::parse_iterations(v).map(|r| d.enqueues = Some(r)).ok_or(ConfigError::Invalid {
                var: "CLTAP_DUMP_ENQUEUES",
                value: value.to_string(),
                accepted: "comma-separated numbers and ranges from 1 (1-3,10,20-)",
            })
        }
        "CLTAP_DUMP_MAX" => bytes("CLTAP_DUMP_MAX", value).map(|n| d.max = n),
        "CLTAP_DUMP_TOTAL" => bytes("CLTAP_DUMP_TOTAL", value).map(|n| d.total = n),
        "CLTAP_INJECT" if v.is_empty() => Ok(()),
        "CLTAP_INJECT" => {
            let p = PathBuf::from(v);
            let found = p.is_dir().then(|| d.inject = Some(p));
            found.ok_or(ConfigError::Invalid {
                var: "CLTAP_INJECT",
                value: value.to_string(),
                accepted: "an existing folder",
            })
        }
        "CLTAP_CAPTURE" => flag("CLTAP_CAPTURE", value).map(|b| d.capture = b),
        _ => return None,
    })
}

/// A byte count with an optional K, M or G, at least 1.
fn bytes(var: &'static str, v: &str) -> Result<u64, ConfigError> {
    let bad = || ConfigError::Invalid {
        var,
        value: v.to_string(),
        accepted: "a byte count of at least 1, optionally with K, M or G (e.g. 4096, 64K, 1G)",
    };
    let t = v.trim();
    let (num, mul) = match t.chars().last() {
        Some('K' | 'k') => (&t[..t.len() - 1], 1u64 << 10),
        Some('M' | 'm') => (&t[..t.len() - 1], 1 << 20),
        Some('G' | 'g') => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    let n: u64 = num.parse().map_err(|_| bad())?;
    n.checked_mul(mul).filter(|&n| n >= 1).ok_or_else(bad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(vars: &[(&str, &str)]) -> (Config, Vec<ConfigError>) {
        Config::from_vars(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())))
    }

    #[test]
    fn good_values() {
        let (c, e) = read(&[
            ("CLTAP_DUMP_ARGS", "both"),
            ("CLTAP_DUMP_KERNELS", "^vec"),
            ("CLTAP_DUMP_ENQUEUES", "2-3,9"),
            ("CLTAP_DUMP_MAX", "64K"),
            ("CLTAP_DUMP_TOTAL", "1G"),
            ("CLTAP_CAPTURE", "1"),
        ]);
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(c.dumps.when, When::Both);
        assert_eq!(c.dumps.enqueues, Some(vec![(2, 3), (9, 9)]));
        assert_eq!((c.dumps.max, c.dumps.total), (64 << 10, 1 << 30));
        assert!(c.dumps.capture && c.dumps.any());
        assert!(!Dumps::default().any());
    }

    #[test]
    fn bad_values_name_the_variable() {
        for (k, v) in [
            ("CLTAP_DUMP_ARGS", "sometimes"),
            ("CLTAP_DUMP_KERNELS", "vec("),
            ("CLTAP_DUMP_ENQUEUES", "0-2"),
            ("CLTAP_DUMP_MAX", "0"),
            ("CLTAP_DUMP_TOTAL", "lots"),
            ("CLTAP_INJECT", "/no/such/folder"),
            ("CLTAP_CAPTURE", "maybe"),
        ] {
            let (_, e) = read(&[(k, v)]);
            assert_eq!(e.len(), 1, "{k}={v}");
            assert_eq!(e[0].var(), k);
        }
    }
}
