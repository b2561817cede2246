//! `cltap`'s command line as a new user meets it: `run --help` grouped by
//! topic, short forms of the common options, a hint where the application
//! was given without `--`, subcommands suggested for typos, every argument
//! of `diff` explained, every format `render` and `report` handle named,
//! and a counter asked of a device without hardware counters named as
//! such, not as an unknown counter.

mod common;
use common::*;

fn cltap(args: &[&str]) -> (i32, String, String) {
    let mut c = cltap_on_pocl(&std::env::temp_dir());
    c.args(args);
    let o = c.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

/// The options listed under `heading` in a `--help` text.
fn under<'a>(help: &'a str, heading: &str) -> Vec<&'a str> {
    help.lines()
        .skip_while(|l| *l != format!("{heading}:"))
        .skip(1)
        .take_while(|l| !l.is_empty() && !l.ends_with(':'))
        .filter(|l| l.trim_start().starts_with('-'))
        .collect()
}

#[test]
fn run_help_is_grouped_and_the_common_options_have_short_forms() {
    let (code, help, _) = cltap(&["run", "-h"]);
    assert_eq!(code, 0);
    for (heading, option) in [
        ("Activation", "--mode"),
        ("Outputs", "--timeline"),
        ("Device", "--device-timing"),
        ("HSA", "--hsa-intercept"),
        ("Counters", "--counters"),
        ("Windows and kernel filters", "--window"),
        ("Jobs", "--ranks"),
        ("Programs and errors", "--dump-programs"),
        ("Checks and controls", "--finish-after-enqueue"),
        ("Dumps and replay", "--dump-args"),
        ("Buffers", "--buffer-size"),
    ] {
        let opts = under(&help, heading);
        assert!(opts.iter().any(|l| l.contains(option)), "{heading} lacks {option}:\n{help}");
    }
    // Nothing is left in the ungrouped list but help.
    let rest = under(&help, "Options");
    assert!(rest.iter().all(|l| l.contains("--help")), "{rest:?}");
    for short in ["-o, --output", "-t, --timeline", "-a, --atp", "-d, --decode", "-c, --counters", "-q, --quiet"] {
        assert!(help.contains(short), "{short}:\n{help}");
    }
}

#[test]
fn an_application_without_dashes_is_told_where_it_goes() {
    let (code, _, err) = cltap(&["run", "--atp", "./vecadd", "4096"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.lines()
            .any(|l| l
                == "cltap: the application goes after `--`, behind cltap's options: cltap run --atp -- ./vecadd 4096"),
        "{err}"
    );
    // A misspelt option gets clap's own answer only.
    let (_, _, err) = cltap(&["run", "--atpp", "--", "./vecadd"]);
    assert!(!err.contains("goes after"), "{err}");
}

#[test]
fn a_misspelt_subcommand_is_suggested() {
    let (code, _, err) = cltap(&["rnu"]);
    assert_eq!(code, 2);
    assert!(err.contains("did you mean `cltap run`?"), "{err}");
    let (_, _, err) = cltap(&["rendr"]);
    assert!(err.contains("'render'"), "{err}");
}

#[test]
fn diffs_arguments_and_the_formats_of_render_and_report_are_explained() {
    let (_, help, _) = cltap(&["diff", "--help"]);
    let args: Vec<&str> = help.lines().skip_while(|l| *l != "Arguments:").skip(1).take(5).collect();
    assert!(args.iter().any(|l| l.contains("API log (.apilog)")), "{help}");
    assert!(args.iter().any(|l| l.contains("second run")), "{help}");
    assert!(help.contains("json for a program to read"), "{help}");
    for (cmd, formats) in [
        (
            "render",
            &[
                ".apilog",
                ".atp",
                ".json",
                ".pftrace",
                ".db",
                ".memory.csv",
                ".occupancy",
                ".results.csv",
                ".summary.json",
            ][..],
        ),
        ("report", &[".apilog", ".cltrace", ".atp", ".csv", ".results.csv", ".occupancy", ".db"][..]),
    ] {
        let (_, help, _) = cltap(&[cmd, "--help"]);
        for f in formats {
            assert!(help.contains(f), "{cmd} --help does not name {f}:\n{help}");
        }
    }
}

#[test]
fn a_counter_on_a_device_without_counters_cannot_be_counted_there() {
    let d = scratch("cli-counters");
    let vecadd = programs().join("vecadd");
    let out = d.to_str().unwrap();
    let (code, _, err) =
        cltap(&["run", "-q", "--no-summary", "-c", "SQ_WAVEZ", "-o", out, "--", vecadd.to_str().unwrap(), "4096"]);
    assert_eq!(code, 0, "{err}");
    let line = err.lines().find(|l| l.contains("SQ_WAVEZ")).unwrap_or_else(|| panic!("{err}"));
    assert!(line.contains("SQ_WAVEZ cannot be counted on pthread-"), "{line}");
    assert!(!err.to_lowercase().contains("unknown"), "{err}");
}
