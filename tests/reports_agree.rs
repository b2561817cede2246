//! `cltap report` of every file one run writes: the sample run once on
//! PoCL with every output (`--atp --rocpd --counters`), and the report of
//! each file gives the same calls, counts and totals, to the precision each
//! file keeps (README, `cltap report`).

mod common;
use common::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn sample() -> std::path::PathBuf {
    sample_built_as("vecadd-sample-reports")
}

fn cltap(dir: &Path, args: &[&dyn AsRef<std::ffi::OsStr>]) -> Outcome {
    let mut c = cltap_on_pocl(dir);
    c.args(args);
    run(c)
}

/// The report of `file`'s text.
fn report(dir: &Path, file: &Path) -> String {
    let o = cltap(dir, &[&"report", &file]);
    assert_eq!(o.code, Some(0), "{}: {}", file.display(), o.stderr);
    o.stdout
}

/// The rows of the first table of `text` whose header `is_head` knows, up
/// to a blank line or the next header: the cell at `key` (the name) → the
/// cells after it.
fn table(text: &str, is_head: impl Fn(&[&str]) -> bool, key: usize) -> BTreeMap<String, Vec<String>> {
    let mut lines = text.lines().map(|l| l.split_whitespace().collect::<Vec<_>>());
    assert!(lines.any(|c| is_head(&c)), "no such table in:\n{text}");
    lines
        .take_while(|c| c.len() > key + 1 && !["category", "kernel", "memory", "API", "marker"].contains(&c[0]))
        .map(|c| (c[key].to_string(), c[key + 1..].iter().map(|s| s.to_string()).collect()))
        .collect()
}

fn num(s: &str) -> f64 {
    s.parse().unwrap_or_else(|_| panic!("not a number: {s:?}"))
}

/// Three decimals: what every report of times shows.
fn three_decimals(s: &str) -> bool {
    s.split_once('.').is_some_and(|(_, d)| d.len() == 3)
}

/// Per API, its calls and total µs (the cells at those places after the name).
fn calls(t: &BTreeMap<String, Vec<String>>, at: (usize, usize)) -> BTreeMap<String, (u64, f64)> {
    t.iter()
        .map(|(k, v)| {
            // The times, three decimals each (the cell after the total is its %).
            let times = v[at.1..].iter().enumerate().filter(|(i, _)| *i != 1).map(|(_, c)| c);
            assert!(times.clone().count() == 4 && times.clone().all(|c| three_decimals(c)), "{k}: {v:?}");
            (k.clone(), (num(&v[at.0]) as u64, num(&v[at.1])))
        })
        .collect()
}

/// `a` and `b` list the same APIs with the same calls, and totals that
/// differ by no more than `per_call` µs a call (what each file rounds away).
fn agree(what: &str, a: &BTreeMap<String, (u64, f64)>, b: &BTreeMap<String, (u64, f64)>, per_call: f64) {
    let names = |m: &BTreeMap<String, (u64, f64)>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(names(a), names(b), "{what}: the same APIs");
    for (k, (n, t)) in a {
        let (m, u) = b[k];
        assert_eq!(*n, m, "{what}: {k}'s calls");
        assert!((t - u).abs() <= per_call * *n as f64 + 1e-9, "{what}: {k}'s total {t} vs {u}");
    }
}

/// The RCP `.csv` (not the `.results.csv`).
fn rcp_csv_path(d: &Path) -> PathBuf {
    let stem = only_file(d, ".results.csv").to_string_lossy().replace(".results.csv", ".csv");
    PathBuf::from(stem)
}

#[test]
fn the_report_of_each_file_of_one_run_gives_the_same_calls_counts_and_totals() {
    let d = scratch("reports-agree");
    let o = cltap(&d, &[&"run", &"--atp", &"--rocpd", &"--counters", &"SQ_WAVES", &"--no-summary", &"--", &sample()]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let of = |suffix: &str| report(&d, &only_file(&d, suffix));
    let (apilog, trace, atp, db) = (of(".apilog"), of(".cltrace"), of(".atp"), of(".db"));
    let api_head = |c: &[&str]| c.first() == Some(&"API") && c.get(1) == Some(&"calls") && c.len() > 3;

    // The binary trace, the .atp and the database keep nanoseconds; each
    // rounds a call's time its own way, by under a nanosecond.
    let trace_calls = calls(&table(&trace, api_head, 0), (0, 2));
    let db_calls = calls(&table(&db, |c| c.get(1) == Some(&"API"), 1), (0, 1));
    agree("trace and database", &trace_calls, &db_calls, 0.001);
    // The API log keeps whole microseconds.
    let log_calls = calls(&table(&apilog, api_head, 0), (0, 2));
    agree("API log and trace", &log_calls, &trace_calls, 1.0);
    // The .atp's API section has every call but the markers', whose
    // section keeps their count.
    let mut atp_calls = calls(&table(&atp, api_head, 0), (0, 2));
    let marker_calls = table(&atp, |c| c.first() == Some(&"API") && c.len() == 2, 0);
    for (k, v) in &marker_calls {
        let (n, t) = trace_calls[k];
        assert_eq!(num(&v[0]) as u64, n, "{k}'s calls in the .atp's marker section");
        atp_calls.insert(k.clone(), (n, t));
    }
    assert_eq!(marker_calls.len(), 2, "{atp}");
    agree("trace and .atp", &trace_calls, &atp_calls, 0.001);
    assert_eq!(trace_calls["clBeginPerfMarkerCLTAP"].0, 4, "the sample's four markers");

    // The markers as ranges: the .atp's and the database's, apart from the
    // API calls.
    let atp_markers = calls(&table(&atp, |c| c.first() == Some(&"marker"), 0), (0, 2));
    let db_markers = calls(&table(&db, |c| c.get(1) == Some(&"perf"), 1), (0, 1));
    assert_eq!(atp_markers.keys().collect::<Vec<_>>(), ["add", "compute", "reduce", "setup"]);
    agree(".atp and database markers", &atp_markers, &db_markers, 0.001);
    assert!(!db_calls.contains_key("setup"), "a marker is not an API: {db}");

    // The kernels: the .atp's device times, the counter files' launches and
    // the .csv's Time (ms, two decimals).
    let atp_kernels = table(&atp, |c| c.first() == Some(&"kernel"), 0);
    let csv = report(&d, &rcp_csv_path(&d));
    let csv_kernels = table(&csv, |c| c.first() == Some(&"kernel"), 0);
    let results = table(&of(".results.csv"), |c| c.first() == Some(&"kernel"), 0);
    let launches =
        |t: &BTreeMap<String, Vec<String>>| t.iter().map(|(k, v)| (k.clone(), v[0].clone())).collect::<Vec<_>>();
    let atp_launches: Vec<_> = launches(&atp_kernels).into_iter().filter(|(k, _)| k != "global").collect();
    assert_eq!(atp_launches, launches(&csv_kernels), "{atp}\n{csv}");
    assert_eq!(launches(&results), launches(&csv_kernels));
    assert!(csv.contains("Time (ms) total"), "{csv}");
    for (k, v) in &csv_kernels {
        let (ms, us) = (num(&v[1]), num(&atp_kernels[k][1]));
        assert!((ms * 1000.0 - us).abs() <= 5.0 + 0.1, "{k}: {ms} ms vs {us} µs");
    }
}
