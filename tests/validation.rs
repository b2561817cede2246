//! A new user's bad settings, as `cltap run` and `cltap check` meet them: the whole configuration
//! the application's layer would read is checked before the application starts; each problem is
//! one line naming the option (or the variable and its value) and what is accepted, an unknown
//! variable gets the nearest known name, and the application is not started (exit 2, nothing
//! written). The layer on its own keeps its rule (tests/window.rs, tests/naming.rs).

mod common;
use common::*;
use std::path::Path;

/// `cltap ARGS… -- calls exit 5` on PoCL, from `dir`, with cltap's and the loader's variables
/// cleared and then `env` set.
fn cltap(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Outcome {
    let exe = special("calls.c", "calls-validation");
    let mut c = cltap_on_pocl(dir);
    c.args(args).arg("--").arg(exe).args(["exit", "5"]);
    c.envs(env.iter().copied());
    run(c)
}

fn refused(o: &Outcome, dir: &Path) -> Vec<String> {
    assert_eq!(o.code, Some(2), "refused with exit 2:\n{}", o.stderr);
    assert_eq!(o.stdout, "", "the application did not run");
    assert_eq!(std::fs::read_dir(dir).unwrap().count(), 0, "nothing written");
    let lines: Vec<String> = o.stderr.lines().map(String::from).collect();
    let last = lines.last().map(String::as_str).unwrap_or("");
    assert!(last.starts_with("cltap: the application was not started; fix the setting"), "{last}");
    lines[..lines.len() - 1].to_vec()
}

#[test]
fn a_bad_option_value_names_the_option_and_starts_nothing() {
    for (option, value, accepted) in [
        ("--window", "2:500", "DELAY:DURATION[:REPEAT]"),
        ("--kernel-include", "([", "is not a regular expression"),
        ("--buffer-size", "1K", "a byte count from 4096 to 4G"),
        ("--window-enqueues", "9-3", "FIRST-LAST"),
        ("--trace-limit", "1.5G", "0 (no limit) or a byte count"),
        ("--output-limit", "lots", "0 (no limit) or a byte count"),
    ] {
        let d = scratch("validation-option");
        let o = cltap(&d, &["run", option, value], &[]);
        let lines = refused(&o, &d);
        assert_eq!(lines.len(), 1, "{option} {value}: {}", o.stderr);
        assert!(lines[0].starts_with(&format!("cltap: {option} {value}: ")), "{}", lines[0]);
        assert!(lines[0].contains(accepted), "{}", lines[0]);
        assert!(!lines[0].contains("pass-through"), "{}", lines[0]);
    }
}

#[test]
fn a_misspelt_variable_is_named_with_the_nearest_one_and_does_not_silently_drop_the_options() {
    let d = scratch("validation-typo");
    let o = cltap(&d, &["run", "--atp"], &[("CLTAP_TIMLINE", "1")]);
    let lines = refused(&o, &d);
    assert_eq!(
        lines,
        ["cltap: CLTAP_TIMLINE=\"1\": CLTAP_TIMLINE is not a cltap variable (did you mean CLTAP_TIMELINE?) (in the environment)"]
    );
}

#[test]
fn every_problem_is_listed_once() {
    let d = scratch("validation-several");
    let o = cltap(&d, &["run", "--buffer-size", "1K"], &[("CLTAP_WINDOW_CALLS", "many")]);
    let lines = refused(&o, &d);
    assert_eq!(lines.len(), 2, "{}", o.stderr);
    assert!(lines.iter().any(|l| l.starts_with("cltap: --buffer-size 1K: ")), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("cltap: CLTAP_WINDOW_CALLS=\"many\"") && l.ends_with("(in the environment)")),
        "{lines:?}"
    );
    assert!(o.stderr.contains("fix the settings above"), "{}", o.stderr);
}

#[test]
fn a_bad_control_value_is_refused_before_the_application_starts() {
    let d = scratch("validation-controls");
    let o = cltap(&d, &["run", "--event-checks"], &[("CLTAP_FINISH_AFTER_ENQUEUE", "maybe")]);
    let lines = refused(&o, &d);
    assert_eq!(lines.len(), 1, "{}", o.stderr);
    assert!(
        lines[0].starts_with("cltap: CLTAP_FINISH_AFTER_ENQUEUE=\"maybe\" is not valid (accepted: 0 or 1"),
        "{}",
        lines[0]
    );
    assert!(lines[0].ends_with("(in the environment)"), "{}", lines[0]);
}

#[test]
fn check_refuses_the_same_way() {
    let d = scratch("validation-check");
    let snaps = d.join("snaps");
    let o = cltap(&d, &["check", "--snapshot", snaps.to_str().unwrap(), "--update"], &[("CLTAP_WINDOW_CALLS", "x")]);
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert_eq!(o.stdout, "");
    assert!(o.stderr.starts_with("cltap: CLTAP_WINDOW_CALLS=\"x\" is not valid"), "{}", o.stderr);
    assert!(o.stderr.lines().next().unwrap().ends_with("(in the environment)"), "{}", o.stderr);
    assert!(!snaps.join("calls-validation.snap").exists(), "no snapshot was made");
}

#[test]
fn good_settings_still_run_and_record() {
    let d = scratch("validation-good");
    let o = cltap(&d, &["run", "--no-summary", "--window-calls", "100", "--buffer-size", "64K"], &[]);
    assert_eq!(o.code, Some(5), "the application's own exit code:\n{}", o.stderr);
    assert!(o.stderr.contains("files written"), "{}", o.stderr);
}
