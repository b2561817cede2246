//! The panic policy (docs/architecture.md#panics): a panic in a wrapper's
//! own code is caught at the `extern "C"` boundary, reported once on
//! stderr, and the application gets the driver's real answer and goes on.
//! `CLTAP_TEST_PANIC` makes `clSetKernelArg`'s wrapper panic on each of its
//! three calls in `tests/c/special/errors_only.c` (one fails in the driver,
//! -49), before the call is forwarded or after the driver answered; the
//! program's output is compared with its output without cltap, on PoCL.

mod common;
use cltap_formats::apilog::{self, Call, Entry};
use common::*;
use std::path::Path;

const ROUNDS: &str = "20";

fn calls_in(dir: &Path) -> Vec<Call> {
    let log = only_file(dir, ".apilog");
    let entries = apilog::read(&std::fs::read_to_string(&log).unwrap()).unwrap();
    entries.into_iter().filter_map(|e| if let Entry::Call(c) = e { Some(c) } else { None }).collect()
}

fn plain() -> Outcome {
    let program = special("errors_only.c", "errors_only");
    let o = run(command(&program, &[ROUNDS], &[Driver::Pocl], Loader::OclIcd, Mode::Plain));
    assert_eq!(o.code, Some(0), "{o:?}");
    // The driver's own failure is among the answers compared below.
    assert!(o.stdout.contains("clSetKernelArg(99) -49\n"), "{}", o.stdout);
    o
}

/// The program under cltap with `CLTAP_TEST_PANIC=value`; its output
/// directory, the outcome, and cltap's lines on stderr other than the
/// summary's table.
fn with_panic(loader: Loader, mode: Mode, value: &str) -> (Scratch, Outcome, Vec<String>) {
    let dir = scratch("panic-policy");
    let program = special("errors_only.c", "errors_only");
    let mut c = command(&program, &[ROUNDS], &[Driver::Pocl], loader, mode);
    c.env("CLTAP_OUTPUT_DIR", &*dir).env("CLTAP_SUMMARY", "1").env("CLTAP_TEST_PANIC", value);
    let o = run(c);
    let ours = o
        .stderr
        .lines()
        .filter(|l| l.starts_with("cltap:") && !l.starts_with("cltap:   ") && *l != "cltap: calls passed through")
        .map(str::to_string)
        .collect();
    (dir, o, ours)
}

/// (calls, errors) of a function in the summary, if it is there.
fn counted(dir: &Path, name: &str) -> Option<(u64, u64)> {
    let s = summary_json(dir);
    let r = s["host"].as_array().unwrap().iter().find(|r| r["api"] == name)?.clone();
    Some((r["calls"].as_u64().unwrap(), r["errors"].as_u64().unwrap()))
}

fn one_report(what: &str, lines: &[String], position: &str) {
    assert_eq!(lines.len(), 1, "{what}: one line for three panics: {lines:#?}");
    let l = &lines[0];
    assert!(
        l.starts_with("cltap: internal error in clSetKernelArg (panicked at icd-layer/src/guard.rs:"),
        "{what}: {l}"
    );
    assert!(l.contains(&format!("CLTAP_TEST_PANIC: {position} the call")), "{what}: {l}");
}

#[test]
fn a_panic_before_the_call_forwards_it_unrecorded() {
    let plain = plain();
    for loader in [Loader::OclIcd, Loader::Khronos] {
        let what = format!("{loader:?}, before");
        let (dir, with, ours) = with_panic(loader, Mode::Layer, "clSetKernelArg");
        assert_eq!(with.code, plain.code, "{what}: {with:?}");
        assert_eq!(with.stdout, plain.stdout, "{what}: the application saw other answers");
        one_report(&what, &ours, "before");
        assert!(ours[0].contains("the call was answered without cltap's part in it"), "{what}: {}", ours[0]);
        // The panicking calls are not in the trace; the others are.
        let calls = calls_in(&dir);
        assert!(!calls.iter().any(|c| c.name == "clSetKernelArg"), "{what}");
        assert_eq!(calls.iter().filter(|c| c.name == "clGetDeviceInfo").count(), 21, "{what}");
        assert_eq!(counted(&dir, "clSetKernelArg"), None, "{what}");
        assert_eq!(counted(&dir, "clGetDeviceInfo"), Some((21, 1)), "{what}");
    }
}

#[test]
fn a_panic_after_the_call_keeps_the_drivers_answer_and_the_record() {
    let plain = plain();
    for mode in [Mode::Layer, Mode::Icd] {
        let what = format!("{mode:?}, after");
        let (dir, with, ours) = with_panic(Loader::OclIcd, mode, "clSetKernelArg:after");
        assert_eq!(with.code, plain.code, "{what}: {with:?}");
        assert_eq!(with.stdout, plain.stdout, "{what}: the application saw other answers");
        one_report(&what, &ours, "after");
        assert!(ours[0].contains("the application got the driver's answer"), "{what}: {}", ours[0]);
        let calls = calls_in(&dir);
        let results: Vec<Option<&str>> =
            calls.iter().filter(|c| c.name == "clSetKernelArg").map(|c| c.result.as_deref()).collect();
        assert_eq!(results, [Some("CL_SUCCESS"), Some("CL_INVALID_ARG_INDEX"), Some("CL_SUCCESS")], "{what}");
        assert_eq!(counted(&dir, "clSetKernelArg"), Some((3, 1)), "{what}");
    }
}

/// ICD mode: a panic before the driver's answer is translated back fails
/// the call with CL_OUT_OF_HOST_MEMORY (the documented exception); the
/// application goes on to its end.
#[test]
fn in_icd_mode_a_panic_before_the_call_fails_it_and_the_application_goes_on() {
    let plain = plain();
    let (_dir, with, ours) = with_panic(Loader::OclIcd, Mode::Icd, "clSetKernelArg");
    assert_eq!(with.code, Some(0), "{with:?}");
    one_report("ICD, before", &ours, "before");
    let set: Vec<&str> = with.stdout.lines().filter(|l| l.starts_with("clSetKernelArg(")).collect();
    assert_eq!(set, ["clSetKernelArg(0) -6", "clSetKernelArg(99) -6", "clSetKernelArg(1) -6"]);
    // Every line before the first of them is the driver's, and the program
    // reached its last call.
    let upto = |s: &str| s.split("clSetKernelArg(0)").next().unwrap().to_string();
    assert_eq!(upto(&with.stdout), upto(&plain.stdout));
    assert!(with.stdout.ends_with("clReleaseContext 0\n"), "{}", with.stdout);
}

#[test]
fn a_bad_value_is_one_line_naming_the_variable() {
    let (_dir, with, ours) = with_panic(Loader::OclIcd, Mode::Layer, "clNoSuchFunction");
    assert_eq!(with.stdout, plain().stdout);
    assert_eq!(
        ours,
        ["cltap: CLTAP_TEST_PANIC=\"clNoSuchFunction\" is not valid (accepted: an OpenCL or HSA function's name, optionally followed by :after); cltap continues as a pure pass-through"]
    );
}
