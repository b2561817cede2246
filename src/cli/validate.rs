//! Before the application starts: the configuration its layer will read (the environment as the
//! child will have it, `cltap`'s own settings applied) is checked whole. Each problem is named by
//! the option that set it, or by the variable and its value when it came from the environment,
//! with what is accepted; then `cltap run` and `cltap check` refuse to start the application. The
//! layer itself, without the launcher, keeps its rule: one line, then a pure pass-through.

use std::collections::BTreeMap;
use std::ffi::OsString;

use cltap::config::Config;

/// Exit status of a refused start (as for a usage error).
pub const REFUSED: i32 = 2;

/// The option that sets a variable, if one does (`--window` for CLTAP_WINDOW).
pub type Namer<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The problems of the configuration that `overrides` (what cltap sets) over this process's
/// environment gives, one line each, naming the option that set a variable by `option_of`;
/// empty when it is valid.
pub fn problems(overrides: &[(String, String)], option_of: Namer) -> Vec<String> {
    let mut env: BTreeMap<OsString, OsString> = std::env::vars_os().collect();
    for (k, v) in overrides {
        env.insert(k.into(), v.into());
    }
    // A templated folder is expanded and made by the application's own layer (its pid, its
    // rank): checked here for its template alone, never made with cltap's values.
    let templated = env.get(&OsString::from("CLTAP_OUTPUT_DIR")).is_some_and(|d| d.to_string_lossy().contains('%'));
    if templated {
        env.remove(&OsString::from("CLTAP_OUTPUT_DIR"));
    }
    let (_, errors) = Config::from_vars_os(env);
    errors
        .iter()
        .map(|e| {
            let ours = overrides.iter().find(|(k, _)| k == e.var());
            match ours.and_then(|(k, v)| option_of(k).map(|o| (o, v))) {
                Some((option, value)) => format!("{option} {value}: {}", e.problem()),
                None => format!("{} (in the environment)", e.problem()),
            }
        })
        .collect()
}

/// Prints the problems, if any, and says that the application was not started; true when the
/// start must be refused.
pub fn refuse(overrides: &[(String, String)], option_of: Namer) -> bool {
    let p = problems(overrides, option_of);
    for line in &p {
        eprintln!("cltap: {line}");
    }
    if !p.is_empty() {
        eprintln!(
            "cltap: the application was not started; fix the setting{} above",
            if p.len() > 1 { "s" } else { "" }
        );
    }
    !p.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_option_value_is_named_by_its_option() {
        let named = |v: &str| (v == "CLTAP_BUFFER_SIZE").then(|| "--buffer-size".to_string());
        let p = problems(&[("CLTAP_BUFFER_SIZE".into(), "1K".into())], &named);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].starts_with("--buffer-size 1K: CLTAP_BUFFER_SIZE=\"1K\" is not valid (accepted: "), "{}", p[0]);
        assert!(!p[0].contains("pass-through"), "{}", p[0]);
    }
}
