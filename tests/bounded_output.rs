//! Bounded output (docs/configuration.md#bounded-output): a text output that reaches
//! `CLTAP_OUTPUT_LIMIT` ends cleanly and says exactly what it left out, which the trace keeps; a
//! trace that reaches `CLTAP_TRACE_LIMIT` stops growing and counts the calls it could not hold
//! as dropped; `CLTAP_DROP_TRACE` deletes a trace rendered whole, and keeps one that is not. The
//! application's output and exit status are its own throughout.

mod common;
use common::*;
use std::path::Path;

/// `calls stress 2 N`: two threads of N `clGetPlatformInfo` calls each, after the main thread's
/// `clGetPlatformIDs`.
fn stress() -> std::path::PathBuf {
    special("calls.c", "calls-bounded")
}

fn cltap(dir: &Path, options: &[&str], n: u32) -> Outcome {
    let mut c = cltap_on_pocl(dir);
    c.arg("run").args(options).arg("--").arg(stress()).args(["stress", "2", &n.to_string()]);
    run(c)
}

fn without_cltap(n: u32) -> Outcome {
    let mut c = std::process::Command::new(stress());
    c.args(["stress", "2", &n.to_string()]).env("OCL_ICD_VENDORS", Driver::Pocl.library());
    run(c)
}

/// The number just before `word` in `line` (`… 12 of 40 records …`).
fn number_before(line: &str, word: &str) -> u64 {
    let head = &line[..line.find(word).unwrap_or_else(|| panic!("no {word:?} in {line}"))];
    head.split_whitespace().last().unwrap().parse().unwrap_or_else(|_| panic!("{line}"))
}

/// The calls among the first `n` records of a trace, in the order it is rendered.
fn calls_among_first(trace: &Path, n: u64) -> u64 {
    use cltap_formats::cltrace::record::{KIND_HSA_CALL, KIND_OPENCL_CALL};
    let r = cltap_formats::cltrace::Reader::open(trace).unwrap();
    let (mut buf, mut seen, mut calls) = (Vec::new(), 0, 0);
    for c in r.chunks().unwrap() {
        r.chunk_bytes(&c, &mut buf).unwrap();
        r.walk(&c, &buf, |v| {
            if seen < n && matches!(v.header.kind, KIND_OPENCL_CALL | KIND_HSA_CALL) {
                calls += 1;
            }
            seen += 1;
        })
        .unwrap();
    }
    calls
}

#[test]
fn an_output_at_its_limit_ends_cleanly_says_what_it_left_out_and_the_trace_keeps_it() {
    let n = 20_000;
    let d = scratch("bounded-output");
    let limit = 200 * 1024;
    let o = cltap(&d, &["--buffer-size", "64K", "--output-limit", "200K", "--timeline", "--no-summary"], n);
    let alone = without_cltap(n);
    assert_eq!((o.code, &o.stdout), (alone.code, &alone.stdout), "{}", o.stderr);
    assert_eq!(o.code, Some(0));

    let log_path = only_file(&d, ".apilog");
    let log = std::fs::read_to_string(&log_path).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    let (said, trailer) = (lines[lines.len() - 2], lines[lines.len() - 1]);
    let total = number_before(trailer, "records,");
    assert!(trailer.starts_with("# end: ") && trailer.ends_with(" records, 0 dropped"), "{trailer}");
    assert!(
        said.starts_with("# cltap: ") && said.contains("stopped at its limit of 204800 bytes (CLTAP_OUTPUT_LIMIT): "),
        "{said}"
    );
    let counts = said.split("(CLTAP_OUTPUT_LIMIT): ").nth(1).unwrap();
    let left_out = number_before(counts, "of");
    assert_eq!(number_before(counts, "records not written"), total, "{said}");
    // The text before the two closing lines is within the limit and ends with a whole line.
    let body = log.len() - said.len() - trailer.len() - 2;
    assert!(body as u64 <= limit && log[..body].ends_with('\n'), "{body} bytes of records' text");
    // The trace's records are the calls and one name record per thread (main and two).
    assert_eq!(total, 2 * n as u64 + 1 + 3);
    // The records written are the first `total - left_out` in render order: their calls are
    // exactly the log's calls.
    let calls_logged = lines.iter().filter(|l| l.starts_with("TID")).count() as u64;
    assert_eq!(calls_logged, calls_among_first(&only_file(&d, ".cltrace"), total - left_out), "{said}");
    assert!(calls_logged > 100 && left_out > 0, "{said}");

    // The same line on stderr, once per output that stopped: the log and the timeline.
    let stopped: Vec<&str> = o.stderr.lines().filter(|l| l.contains("(CLTAP_OUTPUT_LIMIT)")).collect();
    assert_eq!(stopped.len(), 2, "{}", o.stderr);
    let file_said = &said["# cltap: ".len()..];
    assert!(stopped.iter().any(|l| l.starts_with("cltap: ./") && l.ends_with(file_said)), "{}", o.stderr);

    // The timeline is valid JSON within the limit, with what it left out in `otherData`.
    let json_path = only_file(&d, ".json");
    let text = std::fs::read_to_string(&json_path).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).expect("the timeline ends cleanly");
    let note = json["otherData"]["cltap"].as_str().unwrap();
    let events = json["traceEvents"].as_array().unwrap().len() as u64;
    let counts = note.split("(CLTAP_OUTPUT_LIMIT): ").nth(1).unwrap();
    assert_eq!(events + number_before(counts, "of"), number_before(counts, "events not written"), "{note}");
    assert!(text.len() as u64 <= limit + note.len() as u64 + 64, "{} bytes", text.len());
    assert!(stopped.iter().any(|l| l.ends_with(note)), "{}", o.stderr);

    // `cltap render` writes the very same files (the trace keeps the run's limit) and, without
    // a limit, every record.
    let again = d.join("again");
    let r = cltap_on_pocl(&d).args(["render", "--output"]).arg(&again).arg(only_file(&d, ".cltrace")).output().unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(std::fs::read_to_string(only_file(&again, ".apilog")).unwrap() == log, "the log rendered again differs");
    assert!(
        std::fs::read_to_string(only_file(&again, ".json")).unwrap() == text,
        "the timeline rendered again differs"
    );
    let whole = d.join("whole");
    let r = cltap_on_pocl(&d)
        .args(["render", "--output-limit", "0", "--output"])
        .arg(&whole)
        .arg(only_file(&d, ".cltrace"))
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let full = std::fs::read_to_string(only_file(&whole, ".apilog")).unwrap();
    assert_eq!(full.lines().filter(|l| l.starts_with("TID")).count() as u64, 2 * n as u64 + 1);
    assert!(full.starts_with(&log[..body]), "the limited log is the whole log's beginning");
    assert!(!full.contains("stopped at its limit"));
}

#[test]
fn a_trace_at_its_limit_stops_growing_and_counts_every_call_it_could_not_hold() {
    let n = 20_000;
    let d = scratch("bounded-trace");
    let o = cltap(&d, &["--buffer-size", "64K", "--trace-limit", "200K", "--no-summary"], n);
    let alone = without_cltap(n);
    assert_eq!((o.code, &o.stdout), (alone.code, &alone.stdout), "{}", o.stderr);
    let trace = only_file(&d, ".cltrace");
    assert!(trace.metadata().unwrap().len() <= 200 * 1024, "{} bytes", trace.metadata().unwrap().len());
    let reached: Vec<&str> = o.stderr.lines().filter(|l| l.contains("the trace reached its limit")).collect();
    assert_eq!(reached.len(), 1, "{}", o.stderr);
    assert!(reached[0].contains("of 204800 bytes (CLTAP_TRACE_LIMIT: 3 chunks of 65536 bytes"), "{}", reached[0]);

    let log = std::fs::read_to_string(only_file(&d, ".apilog")).unwrap();
    let trailer = log.lines().last().unwrap();
    let (records, dropped) = (number_before(trailer, "records,"), number_before(trailer, "dropped"));
    let logged = log.lines().filter(|l| l.starts_with("TID")).count() as u64;
    // Besides the calls, each thread that got a chunk has its name record.
    let threads: std::collections::HashSet<&str> =
        log.lines().filter(|l| l.starts_with("TID")).filter_map(|l| l.split_whitespace().nth(1)).collect();
    assert_eq!(logged + threads.len() as u64, records, "{trailer}");
    // Every call is either in the trace or counted as dropped, as the discard policy counts.
    assert_eq!(logged + dropped, 2 * n as u64 + 1, "{trailer}");
    assert!(dropped > 0 && logged > 0);
    let said = format!("cltap: {dropped} call records were dropped");
    assert!(o.stderr.lines().any(|l| l.starts_with(&said)), "{}", o.stderr);
}

#[test]
fn drop_trace_deletes_a_trace_rendered_whole_and_keeps_one_that_is_not() {
    let d = scratch("bounded-drop");
    let o = cltap(&d, &["--drop-trace", "--no-summary"], 10);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let names: Vec<String> =
        std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().any(|n| n.ends_with(".apilog")), "{names:?}");
    assert!(!names.iter().any(|n| n.ends_with(".cltrace")), "{names:?}");
    assert!(!o.stderr.contains(".cltrace"), "the trace is not listed as written: {}", o.stderr);

    // The log stopped at its limit: the trace is the only whole record, and stays.
    let d = scratch("bounded-drop-kept");
    let o = cltap(&d, &["--drop-trace", "--no-summary", "--output-limit", "8K"], 1000);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let trace = only_file(&d, ".cltrace");
    let kept = format!("cltap: {} is kept although CLTAP_DROP_TRACE=1: ", trace.canonicalize().unwrap().display());
    let kept_rel =
        format!("cltap: ./{} is kept although CLTAP_DROP_TRACE=1: ", trace.file_name().unwrap().to_string_lossy());
    assert!(o.stderr.lines().any(|l| l.starts_with(&kept) || l.starts_with(&kept_rel)), "{}", o.stderr);
}
