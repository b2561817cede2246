//! The collection window and the kernel filter's variables
//! (docs/collection.md).

use super::{flag, Config, ConfigError};
use crate::kfilter::Spec;
use crate::window::schedule::Schedule;

pub(crate) const VARS: &[(&str, &str)] = &[
    ("CLTAP_WINDOW", "DELAY:DURATION[:REPEAT], times with units ns, us, ms, s or m (0 for none), REPEAT 0 for ever (default 1): record only inside these windows"),
    ("CLTAP_WINDOW_CALLS", "N: record only the first N calls"),
    ("CLTAP_WINDOW_ENQUEUES", "FIRST-LAST: record from the call with command id FIRST to the one with LAST (inclusive)"),
    ("CLTAP_START_PAUSED", "0 or 1: record nothing until the application calls cltap_resume()"),
    ("CLTAP_KERNEL_INCLUDE", "a regular expression: only kernels whose names match get counters and device times"),
    ("CLTAP_KERNEL_EXCLUDE", "a regular expression: kernels whose names match get no counters and no device times"),
    ("CLTAP_KERNEL_ITERATIONS", "ranges of iterations from 1 (1-3,10,20-): which launches of each kernel get counters and device times"),
];

pub(crate) fn parse(name: &str, v: &str, cfg: &mut Config) -> Option<Result<(), ConfigError>> {
    let bad = |var: &'static str, accepted: &'static str| ConfigError::Invalid { var, value: v.to_string(), accepted };
    let empty = v.trim().is_empty();
    Some(match name {
        "CLTAP_WINDOW" if empty => Ok(()),
        "CLTAP_WINDOW" => Schedule::parse(v).map(|s| cfg.window.time = Some(s)).ok_or_else(|| {
            bad(
                "CLTAP_WINDOW",
                "DELAY:DURATION[:REPEAT] with units ns, us, ms, s or m, a DURATION above 0 (e.g. 2s:500ms:3)",
            )
        }),
        "CLTAP_WINDOW_CALLS" if empty => Ok(()),
        "CLTAP_WINDOW_CALLS" => v
            .trim()
            .parse()
            .map(|n| cfg.window.calls = Some(n))
            .map_err(|_| bad("CLTAP_WINDOW_CALLS", "a number of calls (e.g. 1000)")),
        "CLTAP_WINDOW_ENQUEUES" if empty => Ok(()),
        "CLTAP_WINDOW_ENQUEUES" => enqueues(v)
            .map(|r| cfg.window.enqueues = Some(r))
            .ok_or_else(|| bad("CLTAP_WINDOW_ENQUEUES", "FIRST-LAST command ids from 1, FIRST <= LAST (e.g. 100-200)")),
        "CLTAP_START_PAUSED" => flag("CLTAP_START_PAUSED", v).map(|b| cfg.window.start_paused = b),
        "CLTAP_KERNEL_INCLUDE" | "CLTAP_KERNEL_EXCLUDE" if empty => Ok(()),
        "CLTAP_KERNEL_INCLUDE" | "CLTAP_KERNEL_EXCLUDE" => {
            let var = if name == "CLTAP_KERNEL_INCLUDE" { "CLTAP_KERNEL_INCLUDE" } else { "CLTAP_KERNEL_EXCLUDE" };
            crate::kfilter::check_regex(v)
                .map(|()| {
                    let slot =
                        if var == "CLTAP_KERNEL_INCLUDE" { &mut cfg.kernels.include } else { &mut cfg.kernels.exclude };
                    *slot = Some(v.to_string());
                })
                .map_err(|why| ConfigError::Input { var, why: format!("{v:?} is not a regular expression ({why})") })
        }
        "CLTAP_KERNEL_ITERATIONS" if empty => Ok(()),
        "CLTAP_KERNEL_ITERATIONS" => {
            Spec::parse_iterations(v).map(|r| cfg.kernels.iterations = Some(r)).ok_or_else(|| {
                bad("CLTAP_KERNEL_ITERATIONS", "comma-separated iterations and ranges from 1 (e.g. 1-3,10,20-)")
            })
        }
        _ => return None,
    })
}

fn enqueues(v: &str) -> Option<(u64, u64)> {
    let (a, b) = v.trim().split_once('-')?;
    let (a, b): (u64, u64) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
    (a >= 1 && a <= b).then_some((a, b))
}

#[cfg(test)]
mod tests {
    use super::super::Config;

    fn read(vars: &[(&str, &str)]) -> (Config, Vec<String>) {
        let (c, e) = Config::from_vars(vars.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        (c, e.iter().map(|e| e.to_string()).collect())
    }

    #[test]
    fn good_values() {
        let (c, e) = read(&[
            ("CLTAP_WINDOW", "2s:500ms:3"),
            ("CLTAP_WINDOW_CALLS", "100"),
            ("CLTAP_WINDOW_ENQUEUES", "3-7"),
            ("CLTAP_START_PAUSED", "1"),
            ("CLTAP_KERNEL_INCLUDE", "^add"),
            ("CLTAP_KERNEL_EXCLUDE", "slow"),
            ("CLTAP_KERNEL_ITERATIONS", "2-"),
        ]);
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(c.window.time.unwrap().duration_ns, 500_000_000);
        assert_eq!((c.window.calls, c.window.enqueues, c.window.start_paused), (Some(100), Some((3, 7)), true));
        assert_eq!(c.kernels.include.as_deref(), Some("^add"));
        assert_eq!(c.kernels.iterations, Some(vec![(2, u64::MAX)]));
    }

    #[test]
    fn each_bad_value_is_one_message_naming_the_variable() {
        for (k, v) in [
            ("CLTAP_WINDOW", "2:500"),
            ("CLTAP_WINDOW_CALLS", "many"),
            ("CLTAP_WINDOW_ENQUEUES", "7-3"),
            ("CLTAP_START_PAUSED", "maybe"),
            ("CLTAP_KERNEL_INCLUDE", "add("),
            ("CLTAP_KERNEL_ITERATIONS", "0-3"),
        ] {
            let (_, e) = read(&[(k, v)]);
            assert_eq!(e.len(), 1, "{k}={v}: {e:?}");
            assert!(e[0].starts_with(k) && e[0].contains(v), "{}", e[0]);
        }
    }
}
