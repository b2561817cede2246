//! The collection window and the kernel filter (docs/collection.md) on real
//! drivers: PoCL for OpenCL, Debian's ROCr over gpu-emu for HSA. Calls and
//! commands are told apart by identity (the numbered calls' size argument,
//! command ids, dispatch numbers), never by time; the time window is
//! checked through properties that hold whatever the timing.

mod common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `tests/c/window/window.c`, built once with `include/cltap.h`.
fn window_program() -> PathBuf {
    static EXE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    EXE.get_or_init(|| {
        let exe = root().join("target/ctests/window");
        std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
        let st = Command::new("gcc")
            .args(["-std=c11", "-O1", "-Wall", "-Werror", "-pthread"])
            .arg("-I")
            .arg(root().join("include"))
            .arg(root().join("tests/c/window/window.c"))
            .arg("-o")
            .arg(&exe)
            .args(["-lOpenCL", "-ldl"])
            .status()
            .expect("run gcc");
        assert!(st.success(), "building tests/c/window/window.c failed");
        exe
    })
    .clone()
}

/// The window program on PoCL under cltap (`mode`), its files in `dir`.
fn traced(dir: &Path, mode: Mode, args: &[&str], vars: &[(&str, &str)]) -> Outcome {
    let mut c = command(&window_program(), args, &[Driver::Pocl], Loader::OclIcd, mode);
    c.env("CLTAP_OUTPUT_DIR", dir).env("CLTAP_SUMMARY", "1");
    for (k, v) in vars {
        c.env(k, v);
    }
    let o = run(c);
    assert_eq!(o.code, Some(0), "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    o
}

fn log_text(dir: &Path) -> String {
    std::fs::read_to_string(only_file(dir, ".apilog")).unwrap()
}

/// The command ids of the calls the API log holds, in its order.
fn cmd_ids(log: &str) -> Vec<u64> {
    log.lines()
        .filter(|l| l.starts_with("TID"))
        .filter_map(|l| l.split("CMD ID ").nth(1))
        .map(|t| number_after(t, ""))
        .collect()
}

/// `(number, opened by, closed by)` of each window the summary lists.
fn windows(dir: &Path) -> Vec<(u64, String, String)> {
    let s = summary_json(dir);
    s["windows"]
        .as_array()
        .map(|w| {
            w.iter()
                .map(|w| {
                    let text = |k: &str| w[k].as_str().unwrap_or("").to_string();
                    (w["number"].as_u64().unwrap(), text("open_reason"), text("close_reason"))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn w(n: u64, open: &str, close: &str) -> (u64, String, String) {
    (n, open.to_string(), close.to_string())
}

#[test]
fn pause_and_resume_from_the_application_record_only_its_regions() {
    for mode in [Mode::Layer, Mode::Icd] {
        let dir = scratch("window-region");
        let o = traced(&dir, mode, &["calls", "30", "r11", "p21", "r26", "p28"], &[("CLTAP_START_PAUSED", "1")]);
        assert!(o.stdout.contains("resume 11 0\n") && o.stdout.contains("pause 21 0\n"), "{}", o.stdout);
        let got = numbered_calls(&only_file(&dir, ".apilog"));
        let want: Vec<u64> = (11..=20).chain(26..=27).collect();
        assert_eq!(got, want, "{mode:?}");
        // Nothing before the first resume: not even clGetPlatformIDs.
        let log = log_text(&dir);
        assert_eq!(log.lines().filter(|l| l.starts_with("TID")).count(), want.len(), "{mode:?}:\n{log}");
        assert_eq!(windows(&dir), [w(1, "cltap_resume", "cltap_pause"), w(2, "cltap_resume", "cltap_pause")]);
        assert!(
            log.contains("# window 1 opened (cltap_resume)\n") && log.contains("# window 2 closed (cltap_pause)\n")
        );
        log_in_window_order(&dir);
    }
    // Without CLTAP_START_PAUSED the run starts inside its first window;
    // an open window ends with the trace.
    let dir = scratch("window-region-open");
    traced(&dir, Mode::Layer, &["calls", "20", "p6", "r16"], &[]);
    let want: Vec<u64> = (1..=5).chain(16..=20).collect();
    assert_eq!(numbered_calls(&only_file(&dir, ".apilog")), want);
    assert_eq!(windows(&dir), [w(1, "start", "cltap_pause"), w(2, "cltap_resume", "end")]);
}

/// The windows as Perfetto's protobuf trace holds them: one slice each on
/// the process's track, valid for Perfetto's own schema
/// (`tests/pftrace/check.py`).
#[test]
fn the_pftrace_has_a_slice_per_window() {
    let dir = scratch("window-pftrace");
    traced(
        &dir,
        Mode::Layer,
        &["calls", "30", "r11", "p21", "r26", "p28"],
        &[("CLTAP_START_PAUSED", "1"), ("CLTAP_PFTRACE", "1")],
    );
    let py = std::env::var_os("PERFETTO_PYTHONPATH").map(PathBuf::from).unwrap_or_else(|| root().join(".deps/py"));
    let o = Command::new("python3")
        .arg(root().join("tests/pftrace/check.py"))
        .arg(only_file(&dir, ".pftrace"))
        .env("PYTHONPATH", py)
        .output()
        .expect("run python3");
    assert!(o.status.success(), "Perfetto's schema refused the trace:\n{}", String::from_utf8_lossy(&o.stderr));
    let c: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(c["by_category"]["window"], 2, "{c}");
    assert_eq!(c["by_category"]["opencl"], 12, "{c}");
}

#[test]
fn without_cltap_the_helper_reports_that_nobody_took_the_call() {
    let o = run(command(&window_program(), &["calls", "3", "p2"], &[Driver::Pocl], Loader::OclIcd, Mode::Plain));
    assert_eq!((o.code, o.stdout.as_str()), (Some(0), "pause 2 -1\n"), "{}", o.stderr);
}

/// `cltap run OPTIONS -- window ARGS` on PoCL, its files in `dir`.
fn cltap_run(dir: &Path, options: &[&str], args: &[&str]) -> Outcome {
    let pocl = Driver::Pocl.library();
    let mut c = Command::new(cltap_exe());
    c.current_dir(dir).arg("run").args(options).arg("--output").arg(dir).arg("--driver").arg(&pocl).arg("--");
    c.arg(window_program()).args(args);
    for (k, _) in std::env::vars() {
        if k.starts_with("OCL_ICD") || k.starts_with("OPENCL_LAYER") || k.starts_with("CLTAP_") {
            c.env_remove(k);
        }
    }
    c.env("OCL_ICD_VENDORS", &pocl).env("POCL_CACHE_DIR", pocl_cache());
    let o = run(c);
    assert_eq!(o.code, Some(0), "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    o
}

/// The options of `cltap run`, as the docs give them.
#[test]
fn cltap_run_options_set_the_window_and_the_filter() {
    let dir = scratch("window-run-paused");
    cltap_run(&dir, &["--start-paused", "--window-calls", "5"], &["calls", "20", "r8"]);
    assert_eq!(numbered_calls(&only_file(&dir, ".apilog")), [8, 9, 10, 11, 12]);
    assert_eq!(windows(&dir), [w(1, "cltap_resume", "call limit")]);
    let dir = scratch("window-run-kernels");
    let opts =
        ["--window-enqueues", "4-9", "--kernel-include", "^(add|mul)$", "--kernel-iterations", "2-", "--device-timing"];
    cltap_run(&dir, &opts, &["kernels", "4"]);
    assert_eq!(cmd_ids(&log_text(&dir)), [4, 5, 6, 7, 8, 9]);
    let s = summary_json(&dir);
    let timed = timed_kernels(&s);
    // The filter counts iterations among the launches it saw: inside the window.
    assert_eq!(timed, [(7, "add"), (8, "mul")]);
}

#[test]
fn a_call_limit_records_exactly_the_first_calls() {
    let dir = scratch("window-calls");
    traced(&dir, Mode::Layer, &["calls", "40"], &[("CLTAP_WINDOW_CALLS", "12")]);
    let log = log_text(&dir);
    assert_eq!(log.lines().filter(|l| l.starts_with("TID")).count(), 12, "{log}");
    let got = numbered_calls(&only_file(&dir, ".apilog"));
    let want: Vec<u64> = (1..=got.len() as u64).collect();
    assert!(!got.is_empty() && got == want, "a prefix of the numbered calls: {got:?}");
    assert_eq!(windows(&dir), [w(1, "start", "call limit")]);
    log_in_window_order(&dir);
}

#[test]
fn an_enqueue_range_records_and_times_exactly_its_commands() {
    for mode in [Mode::Layer, Mode::Icd] {
        let dir = scratch("window-enqueues");
        traced(&dir, mode, &["kernels", "4"], &[("CLTAP_WINDOW_ENQUEUES", "4-6"), ("CLTAP_DEVICE_TIMING", "1")]);
        assert_eq!(cmd_ids(&log_text(&dir)), [4, 5, 6], "{mode:?}");
        let s = summary_json(&dir);
        let timed = timed_kernels(&s);
        assert_eq!(timed, [(4, "add"), (5, "mul"), (6, "copy")], "{mode:?}");
        assert_eq!(windows(&dir), [w(1, "enqueue range", "enqueue range")]);
        log_in_window_order(&dir);
    }
}

#[test]
fn the_kernel_filter_times_and_lists_only_its_launches() {
    let dir = scratch("kfilter-ocl");
    let vars = [
        ("CLTAP_KERNEL_INCLUDE", "^(add|mul)$"),
        ("CLTAP_KERNEL_ITERATIONS", "2-3"),
        ("CLTAP_DEVICE_TIMING", "1"),
        ("CLTAP_COUNTERS", "SQ_WAVES"),
    ];
    let o = traced(&dir, Mode::Layer, &["kernels", "4"], &vars);
    // Every launch ran (the application saw each one), each recorded.
    assert_eq!(o.stdout.lines().count(), 12);
    assert_eq!(cmd_ids(&log_text(&dir)), (1..=12).collect::<Vec<u64>>());
    let s = summary_json(&dir);
    let timed = timed_kernels(&s);
    // Rounds of add, mul, copy: add and mul's second and third launches.
    assert_eq!(timed, [(4, "add"), (5, "mul"), (7, "add"), (8, "mul")]);
    let csv = rcp_csv(&dir);
    let names: Vec<&str> = csv
        .rows
        .iter()
        .map(|r| cltap_formats::perf::split_method(&r.method, cltap_formats::perf::Api::OpenCl).unwrap().kernel)
        .collect();
    assert_eq!(names, ["add", "mul", "add", "mul"]);
    assert!(csv.rows.iter().all(|r| r.time_ms.is_some()), "{:?}", csv.rows);
}

/// Every call the timeline holds lies inside a window it holds, and the
/// windows are numbered in order, each closed after it opened and before
/// the next opens: true whatever the schedule's timing. A schedule with no
/// delay opens its first window at the start: that one is always there.
#[test]
fn a_time_window_records_only_inside_the_windows_it_lists() {
    for (schedule, first_at_start) in [("0:1ms:1", true), ("1ms:2ms:0", false)] {
        let dir = scratch("window-time");
        traced(&dir, Mode::Layer, &["calls", "100000"], &[("CLTAP_WINDOW", schedule), ("CLTAP_TIMELINE", "1")]);
        let json = std::fs::read_dir(&*dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|x| x == "json") && !p.to_string_lossy().ends_with(".summary.json"))
            .expect("a timeline");
        let t: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
        let events = t["traceEvents"].as_array().unwrap();
        let edge = |ph: &str| -> Vec<(u64, f64)> {
            events
                .iter()
                .filter(|e| e["cat"] == "window" && e["ph"] == ph)
                .map(|e| (e["id"].as_u64().unwrap(), e["ts"].as_f64().unwrap()))
                .collect()
        };
        let (opens, closes) = (edge("b"), edge("e"));
        let mut spans = Vec::new();
        for (i, (n, t0)) in opens.iter().enumerate() {
            assert_eq!(*n, i as u64 + 1, "{schedule}: windows numbered in order");
            let t1 = closes.iter().find(|(m, _)| m == n).map_or(f64::INFINITY, |c| c.1);
            assert!(*t0 <= t1, "{schedule}: window {n} closes after it opens");
            if let Some((_, next)) = opens.get(i + 1) {
                assert!(t1 <= *next, "{schedule}: window {n} closes before the next opens");
            }
            spans.push((*t0, t1));
        }
        let calls: Vec<f64> = events.iter().filter(|e| e["cat"] == "api").map(|e| e["ts"].as_f64().unwrap()).collect();
        for ts in &calls {
            assert!(spans.iter().any(|(a, b)| a <= ts && ts <= b), "{schedule}: call at {ts} µs outside {spans:?}");
        }
        if first_at_start {
            // The API log in order: the one window opens before the first
            // call and closes after the last, whichever thread closed it.
            let log = log_text(&dir);
            let at = |what: &str| log.lines().position(|l| l.starts_with(what));
            let lines: Vec<&str> = log.lines().collect();
            let (first, last) = (at("TID"), lines.iter().rposition(|l| l.starts_with("TID")));
            let (opened, closed) = (at("# window 1 opened"), at("# window 1 closed"));
            assert!(opened.is_some() && closed.is_some(), "{schedule}: {log}");
            if let (Some(first), Some(last)) = (first, last) {
                assert!(opened < Some(first) && closed > Some(last), "{schedule}: {log}");
            }
        }
        // The summary lists the same windows, opened and closed by the schedule.
        let listed = windows(&dir);
        assert_eq!(listed.len(), opens.len(), "{schedule}");
        let first = listed.first().map(|w| w.1.as_str());
        if first_at_start {
            // (Whether calls fall inside it depends on how fast the driver
            // starts: not asserted.)
            assert_eq!(first, Some("start"), "{schedule}: {listed:?}");
        }
        assert!(
            listed
                .iter()
                .all(|(_, o, c)| ["time", "start"].contains(&o.as_str()) && ["time", "end"].contains(&c.as_str())),
            "{schedule}: {listed:?}"
        );
    }
}

#[test]
fn bad_values_are_one_line_then_pass_through() {
    for (k, v) in [
        ("CLTAP_WINDOW", "2:500"),
        ("CLTAP_WINDOW_ENQUEUES", "9-3"),
        ("CLTAP_KERNEL_INCLUDE", "add("),
        ("CLTAP_KERNEL_ITERATIONS", "0"),
    ] {
        let dir = scratch("window-bad");
        let mut c = command(&window_program(), &["calls", "3", "p2"], &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
        c.env("CLTAP_OUTPUT_DIR", &*dir).env(k, v);
        let o = run(c);
        // The layer is loaded (its cltap_pause answers and does nothing).
        assert_eq!((o.code, o.stdout.as_str()), (Some(0), "pause 2 0\n"), "{k}={v}: {}", o.stderr);
        let lines: Vec<&str> = o.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{k}={v}: {}", o.stderr);
        assert!(lines[0].starts_with(&format!("cltap: {k}")) && lines[0].contains(v), "{}", lines[0]);
        assert!(lines[0].contains("pass-through"), "{}", lines[0]);
        assert!(std::fs::read_dir(&*dir).unwrap().next().is_none(), "{k}={v}: a pass-through writes nothing");
    }
}

/// HSA on Debian's ROCr over gpu-emu: counters only for the dispatches
/// within the kernel filter. The emulator's own packet log is the witness
/// that the others ran without cltap's AQLprofile packets.
#[test]
fn hsa_counters_only_for_the_filtered_iterations() {
    let all = scratch("kfilter-hsa-all");
    let o_all = counted_sizes(&all, &[("GPU_EMU_LOG", "1")]);
    assert_eq!(o_all.code, Some(0), "{}", o_all.stderr);
    let out = scratch("kfilter-hsa");
    let o = counted_sizes(&out, &[("GPU_EMU_LOG", "1"), ("CLTAP_KERNEL_ITERATIONS", "2-3")]);
    assert_eq!((o.code, &o.stdout), (o_all.code, &o_all.stdout), "{}", o.stderr);
    let rows_all = rcp_csv(&all).rows;
    let rows = rcp_csv(&out).rows;
    assert!(rows_all.len() > 3, "{}", rows_all.len());
    assert_eq!(rows.len(), 2, "{rows:?}");
    // The same two dispatches (the 2nd and 3rd) with the same counter values.
    for (r, a) in rows.iter().zip(&rows_all[1..3]) {
        assert_eq!((&r.global, &r.values), (&a.global, &a.values));
    }
    let vendor = |stderr: &str| {
        let p = emu::emu_packets(stderr);
        emu::queue_of(&p, "add_one").iter().filter(|p| p.kind == "VendorSpecific").count()
    };
    // Counting wraps a dispatch in two PM4 packets: two dispatches' worth.
    assert_eq!(vendor(&o.stderr), 4, "{}", o.stderr);
    assert_eq!(vendor(&o_all.stderr), 2 * rows_all.len());
}

/// HSA, a run that starts paused and never resumes: no call, dispatch or
/// counter recorded and no AQLprofile packet, the application unchanged.
#[test]
fn hsa_outside_the_window_counts_nothing() {
    let out = scratch("window-hsa-paused");
    let o = counted_sizes(&out, &[("GPU_EMU_LOG", "1"), ("CLTAP_START_PAUSED", "1")]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let p = emu::emu_packets(&o.stderr);
    assert!(p.iter().any(|p| p.kernel == "add_one"));
    assert_eq!(emu::queue_of(&p, "add_one").iter().filter(|p| p.kind == "VendorSpecific").count(), 0);
    let log = log_text(&out);
    assert!(!log.lines().any(|l| l.starts_with("TID")), "{log}");
    assert!(!log.contains("dispatch"), "{log}");
    assert_eq!(windows(&out), Vec::new());
}

/// HSA, a call limit: exactly the first calls recorded (the HSA calls are
/// numbered per thread: the log holds the first ones of each).
#[test]
fn hsa_a_call_limit_records_exactly_the_first_calls() {
    let out = scratch("window-hsa-calls");
    let o = counted_sizes(&out, &[("CLTAP_WINDOW_CALLS", "40")]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let log = log_text(&out);
    let calls: Vec<&str> = log.lines().filter(|l| l.starts_with("TID")).collect();
    assert_eq!(calls.len(), 40, "{log}");
    assert_eq!(windows(&out), [w(1, "start", "call limit")]);
}

/// The windows' edges as the trace holds them: number -> (opening's,
/// closing's record clock), the clock the API log's `START TIME` is in.
fn edges(dir: &Path) -> std::collections::BTreeMap<u64, (u64, Option<u64>)> {
    use cltap_formats::cltrace::record::{KIND_WINDOW, WINDOW_OPEN};
    let r = cltap_formats::cltrace::Reader::open(&only_file(dir, ".cltrace")).unwrap();
    let (mut buf, mut out) = (Vec::new(), std::collections::BTreeMap::new());
    for c in r.chunks().unwrap() {
        r.chunk_bytes(&c, &mut buf).unwrap();
        r.walk(&c, &buf, |v| {
            if v.header.kind == KIND_WINDOW {
                let e = out.entry(v.header.cmd_id).or_insert((0, None));
                if v.args.first() == Some(&WINDOW_OPEN) {
                    e.0 = v.header.t0;
                } else {
                    e.1 = Some(v.header.t0);
                }
            }
        })
        .unwrap();
    }
    out
}

/// Reads the API log in its order: window lines numbered 1, 2, … each
/// opened then closed, every call between its window's lines, and that
/// window the one whose recorded edges hold the call's start (exact: a
/// call is recorded only inside, an opening's time taken before it, a
/// closing's after). Returns the log's windows and, per call line, its
/// window and its size argument (the numbered calls' number, else 0).
fn log_in_window_order(dir: &Path) -> (u64, Vec<(u64, u64)>) {
    let log = log_text(dir);
    let spans = edges(dir);
    let (mut open, mut last, mut calls) = (None, 0, Vec::new());
    for (i, l) in log.lines().enumerate() {
        let at = || format!("line {}: {l}\n{log}", i + 1);
        if let Some(rest) = l.strip_prefix("# window ") {
            let n: u64 = rest.split(' ').next().unwrap().parse().unwrap_or(0);
            if rest.contains(" opened (") {
                assert_eq!((open, n), (None, last + 1), "{}", at());
                (open, last) = (Some(n), n);
            } else if rest.contains(" closed (") {
                assert_eq!(open, Some(n), "{}", at());
                open = None;
            }
        } else if l.starts_with("TID") {
            let n = open.unwrap_or_else(|| panic!("a call outside its window's lines: {}", at()));
            let hex = l.split("START TIME 0x").nth(1).unwrap().split_whitespace().next().unwrap();
            let t = u64::from_str_radix(hex, 16).unwrap();
            let (t0, t1) = spans[&n];
            assert!(
                t0 <= t && t1.is_none_or(|t1| t <= t1),
                "the call at {t} is not in window {n} {:?}: {}",
                spans[&n],
                at()
            );
            let size = l
                .split("size_t param_value_size = ")
                .nth(1)
                .and_then(|r| r.split(',').next()?.parse().ok())
                .unwrap_or(0);
            calls.push((n, size));
        }
    }
    assert_eq!(open, None, "the last window is closed: {log}");
    assert_eq!(last, spans.len() as u64, "the log has every window the trace has: {spans:?}");
    assert_eq!(windows(dir).len() as u64, last, "as many windows as the summary lists");
    (last, calls)
}

/// Several windows read in order in the API log, whoever changed them: a
/// repeating schedule (its own thread changes the window, the main thread
/// calls), a thread pausing and resuming while another calls, and calls
/// from two threads in turn within each of several windows.
#[test]
fn the_api_log_reads_each_window_in_order_with_its_calls() {
    let dir = scratch("window-order-time");
    // 100 ms of calls, a window every 2 ms: how many the schedule's thread
    // makes depends on how soon it wakes (the first is due after 1 ms).
    traced(&dir, Mode::Layer, &["slow", "5000", "20"], &[("CLTAP_WINDOW", "1ms:1ms:0")]);
    let (n, calls) = log_in_window_order(&dir);
    assert!(n >= 1 && !calls.is_empty(), "{n} windows, {} calls", calls.len());
    assert!(calls.windows(2).all(|p| p[0] <= p[1]), "calls in order");

    let dir = scratch("window-order-toggle");
    let o = traced(&dir, Mode::Layer, &["toggle", "20000", "50"], &[("CLTAP_START_PAUSED", "1")]);
    let (n, calls) = log_in_window_order(&dir);
    assert_eq!(n, 50, "{}", o.stderr);
    // The worker's numbered calls, in its order: none twice, none backwards.
    assert!(calls.windows(2).all(|p| p[0] <= p[1]), "calls in order");
    // The lines are in the trace where the log has them: `cltap render`
    // writes the run's log byte for byte.
    let again = dir.join("again");
    let r = Command::new(cltap_exe())
        .arg("render")
        .arg(only_file(&dir, ".cltrace"))
        .arg("--output")
        .arg(&again)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert!(log_text(&dir) == log_text(&again), "the log rendered again differs");

    for mode in [Mode::Layer, Mode::Icd] {
        let dir = scratch("window-order-turns");
        let per = 50;
        traced(&dir, mode, &["turns", "4", &per.to_string()], &[("CLTAP_START_PAUSED", "1")]);
        let (n, calls) = log_in_window_order(&dir);
        assert_eq!(n, 4, "{mode:?}");
        // Window w holds exactly both threads' calls of its turn, in order.
        let want: Vec<(u64, u64)> = (1..=4 * 2 * per).map(|k| ((k - 1) / (2 * per) + 1, k)).collect();
        assert_eq!(calls, want, "{mode:?}");
    }
}

/// The summary's timed commands: (command id, kernel name).
fn timed_kernels(s: &serde_json::Value) -> Vec<(u64, &str)> {
    s["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["cmd_id"].as_u64().unwrap(), c["kernel"].as_str().unwrap()))
        .collect()
}
