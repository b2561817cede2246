//! The memory trace and the leak check: `CLTAP_MEMORY`, `CLTAP_LEAKS`
//! (docs/memory.md).

use super::{flag, Config, ConfigError};

pub(crate) const VARS: &[(&str, &str)] = &[
    ("CLTAP_MEMORY", "0 or 1: trace every allocation and release (.memory.csv), memory in use per device in the timelines and its peak in the summary"),
    ("CLTAP_LEAKS", "0 or 1: list in the summary what the application still holds at exit (OpenCL objects with references left, HSA queues, signals and executables, memory never freed); implies CLTAP_SUMMARY=1"),
];

/// What is asked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Memory {
    /// `CLTAP_MEMORY`: the memory file, the counter tracks, the peaks.
    pub trace: bool,
    /// `CLTAP_LEAKS`: the leak list in the summary.
    pub leaks: bool,
}

impl Memory {
    /// Whether the records must be followed at all.
    pub fn on(&self) -> bool {
        self.trace || self.leaks
    }
}

pub(crate) fn parse(name: &str, value: &str, cfg: &mut Config) -> Option<Result<(), ConfigError>> {
    let slot = match name {
        "CLTAP_MEMORY" => &mut cfg.memory.trace,
        "CLTAP_LEAKS" => &mut cfg.memory.leaks,
        _ => return None,
    };
    let var = VARS.iter().find(|(n, _)| *n == name).map_or("", |(n, _)| *n);
    Some(flag(var, value).map(|on| *slot = on))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_variables_parse_and_a_bad_value_names_its_variable() {
        let (c, e) = Config::from_vars(vec![("CLTAP_MEMORY".into(), "1".into()), ("CLTAP_LEAKS".into(), "on".into())]);
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(c.memory, Memory { trace: true, leaks: true });
        assert!(c.records_calls() && c.summarizes());
        let (_, e) = Config::from_vars(vec![("CLTAP_LEAKS".into(), "2".into())]);
        assert!(matches!(&e[..], [ConfigError::Invalid { var: "CLTAP_LEAKS", .. }]), "{e:?}");
    }
}
