//! A binary trace cut short (`head -c`, a copy that ran out of disk) keeps
//! every record that lies whole before the cut, and says what was lost in
//! the render's line, the API log's end line and the summary
//! (docs/trace-format.md#reading).

mod common;
use common::*;
use std::path::Path;

fn sample() -> std::path::PathBuf {
    sample_built_as("vecadd-sample-cut")
}

fn cltap(dir: &Path, args: &[&dyn AsRef<std::ffi::OsStr>]) -> Outcome {
    let mut c = cltap_on_pocl(dir);
    c.args(args);
    run(c)
}

/// The call lines of an API log (its `TID` lines).
fn calls(log: &str) -> Vec<&str> {
    log.lines().filter(|l| l.starts_with("TID")).collect()
}

#[test]
fn a_cut_trace_keeps_its_whole_records_and_counts_the_loss() {
    let d = scratch("cut-trace");
    let o = cltap(&d, &[&"run", &"--", &sample()]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let whole = std::fs::read_to_string(only_file(&d, ".apilog")).unwrap();
    let trace = std::fs::read(only_file(&d, ".cltrace")).unwrap();
    // The file header (4096 bytes), the first chunk's header (64) and
    // some of its records: most of the program's calls are cut off.
    let cut = d.join("cut");
    std::fs::create_dir_all(&cut).unwrap();
    std::fs::write(cut.join("t.cltrace"), &trace[..5000]).unwrap();
    let o = cltap(&cut, &[&"render", &"t.cltrace", &"--output", &"out", &"--threads", &"2"]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let said: Vec<&str> = o.stderr.lines().filter(|l| l.contains("cut short")).collect();
    assert_eq!(said.len(), 1, "one line for the one cut chunk: {}", o.stderr);
    let kept: u64 = said[0].split("its ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    let lost: u64 = said[0].split("the last ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
    assert!(kept > 5 && lost > 0, "{}", said[0]);

    let log = std::fs::read_to_string(only_file(&cut.join("out"), ".apilog")).unwrap();
    let (got, want) = (calls(&log), calls(&whole));
    assert!(!got.is_empty() && got.len() < want.len(), "{log}");
    // The calls kept are the run's first ones, each as the whole trace has
    // it (none turned into a call that did not return).
    assert_eq!(got[..], want[..got.len()]);
    assert!(!log.contains("did not return"), "{log}");
    let end = log.lines().last().unwrap();
    assert_eq!(
        end,
        format!("# end: {kept} records, 0 dropped, {lost} bytes of records lost (the trace is damaged or cut short)")
    );
    // The summary the run asked for says it too, in its table and its JSON.
    let line = format!("cltap: {lost} bytes of records lost: the trace is damaged or truncated");
    assert!(o.stderr.lines().any(|l| l == line), "{}", o.stderr);
    assert_eq!(summary_json(&cut.join("out"))["lost_bytes"], lost, "{}", o.stderr);
}
