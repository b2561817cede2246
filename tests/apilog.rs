//! The API log on real drivers: every call once, in order, with its result
//! and command id; nothing lost under load, drops counted in discard mode;
//! a complete log from the trace a process killed by SIGTERM leaves; one log per process across fork.

mod common;
use cltap_formats::apilog::{self, Call, Entry};
use common::*;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn calls_program() -> PathBuf {
    special("calls.c", "calls")
}

fn fresh_dir(name: &str) -> Scratch {
    scratch(name)
}

fn cmd(args: &[&str], loader: Loader, mode: Mode, dir: &Path) -> Command {
    let mut c = command(&calls_program(), args, &[Driver::Pocl], loader, mode);
    c.env("CLTAP_OUTPUT_DIR", dir);
    c
}

fn logs_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "apilog"))
        .collect();
    v.sort();
    v
}

fn read_log(p: &Path) -> Vec<Entry> {
    apilog::read(&std::fs::read_to_string(p).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn calls(entries: &[Entry]) -> Vec<&Call> {
    entries.iter().filter_map(|e| if let Entry::Call(c) = e { Some(c) } else { None }).collect()
}

fn trailer(entries: &[Entry]) -> (u64, u64) {
    let Some(Entry::Comment(t)) = entries.last() else { panic!("no trailer") };
    let nums: Vec<u64> = t.split(|c: char| !c.is_ascii_digit()).filter_map(|s| s.parse().ok()).collect();
    assert!(t.starts_with("end:"), "{t}");
    (nums[0], nums[1])
}

/// The status a log line reports: the result, or `*errcode_ret`.
fn status_of(c: &Call) -> i32 {
    let text =
        c.outs.iter().find(|(n, _)| n == "errcode_ret").map(|(_, v)| v.as_str()).or(c.result.as_deref()).unwrap();
    (-2000..=0).find(|&k| cltap::trace::names::status_text(k) == text).unwrap_or_else(|| panic!("{text}"))
}

#[test]
fn golden_sequence_in_both_modes_and_loaders() {
    for loader in [Loader::OclIcd, Loader::Khronos] {
        for mode in [Mode::Layer, Mode::Icd] {
            let dir = fresh_dir(&format!("golden-{loader:?}-{mode:?}"));
            let o = run(cmd(&["golden"], loader, mode, &dir));
            assert_eq!(o.code, Some(0), "{}", o.stderr);
            let made: Vec<(String, i32)> = o
                .stdout
                .lines()
                .map(|l| {
                    let (n, s) = l.split_once(' ').unwrap();
                    (n.to_string(), s.parse().unwrap())
                })
                .collect();
            let logs = logs_in(&dir);
            assert_eq!(logs.len(), 1, "{logs:?}");
            let entries = read_log(&logs[0]);
            let all = calls(&entries);
            // In ICD mode the loader implements clGetPlatformIDs and asks the
            // platform a few questions of its own before the program runs.
            let first = all.iter().position(|c| c.name == "clGetDeviceIDs").unwrap();
            let logged: Vec<(String, i32)> = all[first..].iter().map(|c| (c.name.to_string(), status_of(c))).collect();
            let expected = &made[made.iter().position(|(n, _)| n == "clGetDeviceIDs").unwrap()..];
            assert_eq!(logged, expected, "{loader:?} {mode:?}");
            if mode == Mode::Layer {
                assert_eq!(all[0].name, "clGetPlatformIDs");
            }
            let tids: std::collections::HashSet<u64> = all.iter().map(|c| c.tid).collect();
            assert_eq!(tids.len(), 1);
            let ids: Vec<u64> = all.iter().filter_map(|c| c.cmd_id).collect();
            let with_event: Vec<&str> = all.iter().filter(|c| c.cmd_id.is_some()).map(|c| &*c.name).collect();
            assert_eq!(with_event, ["clEnqueueFillBuffer", "clEnqueueReadBuffer", "clEnqueueReadBuffer"]);
            assert!(ids.windows(2).all(|w| w[1] == w[0] + 1), "command ids are consecutive: {ids:?}");
            let (records, dropped) = trailer(&entries);
            // Each thread's name record is a record too.
            assert_eq!((records, dropped), (all.len() as u64 + 1, 0));
            let read = all.iter().find(|c| c.name == "clEnqueueReadBuffer").unwrap();
            let ev = read.outs.iter().find(|(n, _)| n == "event").unwrap();
            assert_ne!(ev.1, "NULL");
            assert!(read.args.iter().any(|a| a.name == "cb" || a.name == "size"));
        }
    }
}

/// Streams a big log: per thread, the sizes its calls carried, in order.
/// The trailer's counts are of records, each thread's name record
/// (`KIND_THREAD`) included: the second number is the calls' records.
fn sizes_per_thread(p: &Path) -> (std::collections::BTreeMap<u64, Vec<u64>>, u64, (u64, u64)) {
    let mut per = std::collections::BTreeMap::<u64, Vec<u64>>::new();
    let mut lines = 0;
    let mut last = None;
    let mut tids = std::collections::HashSet::new();
    for l in BufReader::new(std::fs::File::open(p).unwrap()).lines() {
        let l = l.unwrap();
        match apilog::parse_line(&l).unwrap_or_else(|e| panic!("{e}: {l}")) {
            Entry::Call(c) => {
                lines += 1;
                tids.insert(c.tid);
                if c.name == "clGetPlatformInfo" {
                    let v: u64 = c.args[2].value.parse().unwrap();
                    per.entry(v / 100_000_000).or_default().push(v % 100_000_000);
                }
            }
            e => last = Some(e),
        }
    }
    let (records, dropped) = trailer(&[last.unwrap()]);
    (per, lines, (records - tids.len() as u64, dropped))
}

#[test]
fn stress_lossless_keeps_every_call_in_order() {
    let dir = fresh_dir("stress-lossless");
    let o = run(cmd(&["stress", "8", "200000"], Loader::OclIcd, Mode::Layer, &dir));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let (per, lines, (records, dropped)) = sizes_per_thread(&logs_in(&dir)[0]);
    assert_eq!(lines, 8 * 200_000 + 1, "every call, plus clGetPlatformIDs");
    assert_eq!((records, dropped), (lines, 0));
    assert_eq!(per.len(), 8);
    for (t, v) in per {
        assert_eq!(v, (1..=200_000).collect::<Vec<u64>>(), "thread {t} out of order or incomplete");
    }
}

#[test]
fn stress_discard_counts_every_drop() {
    let dir = fresh_dir("stress-discard");
    let mut c = cmd(&["stress", "8", "50000"], Loader::OclIcd, Mode::Layer, &dir);
    c.env("CLTAP_BUFFER_POLICY", "discard").env("CLTAP_BUFFER_SIZE", "16K");
    let o = run(c);
    assert_eq!(o.code, Some(0));
    let (per, lines, (records, dropped)) = sizes_per_thread(&logs_in(&dir)[0]);
    assert_eq!(records, lines);
    assert_eq!(lines + dropped, 8 * 50_000 + 1, "lines + drops = calls");
    assert!(dropped > 0, "a 16 KiB buffer cannot hold 400,000 records");
    assert!(o.stderr.contains(&format!("{dropped} call records were dropped")), "{}", o.stderr);
    for v in per.values() {
        assert!(v.windows(2).all(|w| w[0] < w[1]), "what is kept stays in order");
    }
}

#[test]
fn sigterm_leaves_a_trace_that_renders_a_complete_log() {
    for mode in [Mode::Layer, Mode::Icd] {
        let dir = fresh_dir(&format!("sigterm-{mode:?}"));
        let mut c = cmd(&["forever"], Loader::OclIcd, mode, &dir);
        c.stderr(Stdio::piped());
        let st = signal_when_ready(c, libc::SIGTERM);
        assert!(!st.success(), "the signal still ends the program");
        // cltap renders nothing in a signal handler (nothing there may
        // block): the trace the process left is rendered afterwards, as
        // `cltap run` does by itself.
        let logs = logs_in(&render_left_trace(&dir));
        assert_eq!(logs.len(), 1);
        let entries = read_log(&logs[0]);
        // The program's own calls: CL_PLATFORM_NAME with no value buffer (in
        // ICD mode the loader asks the platform other things first).
        let sizes: Vec<u64> = calls(&entries)
            .iter()
            .filter(|c| {
                c.name == "clGetPlatformInfo" && c.args[1].value == "2306" && c.args[3].value == "0000000000000000"
            })
            .map(|c| c.args[2].value.parse().unwrap())
            .collect();
        assert!(sizes.len() >= 1000, "{mode:?}: {} calls", sizes.len());
        assert_eq!(sizes, (1..=sizes.len() as u64).collect::<Vec<_>>(), "{mode:?}: a gap before the kill");
        let (records, dropped) = trailer(&entries);
        // Each thread's name record is a record too.
        let threads: std::collections::HashSet<u64> = calls(&entries).iter().map(|c| c.tid).collect();
        assert_eq!(records as usize, calls(&entries).len() + threads.len());
        assert_eq!(dropped, 0);
    }
}

#[test]
fn fork_gives_each_process_its_own_log() {
    let dir = fresh_dir("fork");
    let o = run(cmd(&["fork"], Loader::OclIcd, Mode::Layer, &dir));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let child: u32 = o.stdout.lines().find_map(|l| l.strip_prefix("child ")).unwrap().parse().unwrap();
    let logs = logs_in(&dir);
    assert_eq!(logs.len(), 2, "{logs:?}");
    let (child_log, parent_log): (Vec<&PathBuf>, Vec<&PathBuf>) =
        logs.iter().partition(|p| p.to_string_lossy().contains(&format!(".{child}.apilog")));
    let sizes = |p: &Path| -> Vec<u64> {
        calls(&read_log(p))
            .iter()
            .filter(|c| c.name == "clGetPlatformInfo")
            .map(|c| c.args[2].value.parse().unwrap())
            .collect()
    };
    let parent = sizes(parent_log[0]);
    let kid = sizes(child_log[0]);
    assert_eq!(parent, (1000..1010).chain(3000..3030).collect::<Vec<u64>>());
    assert_eq!(kid, (2000..2020).collect::<Vec<u64>>());
}

#[test]
fn threads_racing_to_make_a_forked_childs_trace_are_all_recorded() {
    // In each child, 8 threads released at once make their first calls:
    // one makes the child's trace, and the others' calls wait for it.
    let dir = fresh_dir("fork-threads");
    let (children, threads, each) = (6, 8, 200u64);
    let o = run(cmd(
        &["fork-threads", &children.to_string(), &threads.to_string(), &each.to_string()],
        Loader::OclIcd,
        Mode::Layer,
        &dir,
    ));
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let pids: Vec<&str> = o.stdout.lines().filter_map(|l| l.strip_prefix("child ")).collect();
    assert_eq!(pids.len(), children);
    for pid in pids {
        let log = logs_in(&dir).into_iter().find(|p| p.to_string_lossy().contains(&format!(".{pid}.apilog"))).unwrap();
        let (per, lines, (records, dropped)) = sizes_per_thread(&log);
        assert_eq!((records, dropped), (lines, 0), "child {pid}: every call recorded, none dropped");
        assert_eq!(lines, threads * each, "child {pid}: every call of every thread");
        assert_eq!(per.keys().copied().collect::<Vec<u64>>(), (1..=threads).collect::<Vec<u64>>());
        for (t, v) in per {
            assert_eq!(v, (1..=each).collect::<Vec<u64>>(), "child {pid}, thread {t}");
        }
    }
}

#[test]
fn log_switches_filter_and_destinations() {
    let dir = fresh_dir("switches");
    let mut c = cmd(&["golden"], Loader::OclIcd, Mode::Layer, &dir);
    c.env("CLTAP_API_LOG", "0");
    assert_eq!(run(c).code, Some(0));
    assert!(logs_in(&dir).is_empty(), "CLTAP_API_LOG=0 writes nothing");

    let mut c = cmd(&["golden"], Loader::OclIcd, Mode::Layer, &dir);
    c.env("CLTAP_LOG_FILTER", "clEnqueue*,-clEnqueueFill*");
    assert_eq!(run(c).code, Some(0));
    let entries = read_log(&logs_in(&dir)[0]);
    let names: Vec<String> = calls(&entries).iter().map(|c| c.name.to_string()).collect();
    assert_eq!(names, ["clEnqueueReadBuffer", "clEnqueueReadBuffer"]);
    let ids: Vec<Option<u64>> = calls(&entries).iter().map(|c| c.cmd_id).collect();
    assert_eq!(ids, [Some(2), Some(3)], "command ids do not depend on the filter");

    let dir = fresh_dir("stderr");
    let mut c = cmd(&["golden"], Loader::OclIcd, Mode::Layer, &dir);
    c.env("CLTAP_LOG", "stderr").env("CLTAP_LOG_DECODE", "1");
    let o = run(c);
    assert!(logs_in(&dir).is_empty());
    let entries = apilog::read(&o.stderr).unwrap();
    let create = calls(&entries).into_iter().find(|c| c.name == "clCreateBuffer").unwrap();
    assert!(create.args.iter().any(|a| a.name == "size" && a.value == "4096"));
    let read = calls(&entries)
        .into_iter()
        .find(|c| {
            c.name == "clEnqueueReadBuffer"
                && c.args.iter().any(|a| a.name == "num_events_in_wait_list" && a.value == "1")
        })
        .unwrap();
    let wait = read.args.iter().find(|a| a.name == "event_wait_list").unwrap();
    assert!(wait.value.contains(" {") && wait.value.ends_with('}'), "decoded wait list: {}", wait.value);
}

#[test]
fn local_work_size_comes_from_the_driver_or_not_at_all() {
    for (driver, expect) in [(Driver::Intel, true), (Driver::Pocl, false)] {
        for mode in [Mode::Layer, Mode::Icd] {
            let dir = fresh_dir(&format!("lws-{}-{mode:?}", driver.name()));
            let mut c = command(&programs().join("enqueue"), &[], &[driver], Loader::OclIcd, mode);
            c.env("CLTAP_OUTPUT_DIR", &dir);
            assert_eq!(run(c).code, Some(0));
            let entries = read_log(&logs_in(&dir)[0]);
            let mut lines = 0;
            for (i, e) in entries.iter().enumerate() {
                if let Entry::LocalWorkSize { cmd_id, sizes } = e {
                    lines += 1;
                    let Entry::Call(next) = &entries[i + 1] else { panic!("a call follows the line") };
                    assert_eq!(next.name, "clEnqueueNDRangeKernel");
                    assert_eq!(next.cmd_id, Some(*cmd_id));
                    let local = next.args.iter().find(|a| a.name == "local_work_size").unwrap();
                    assert_eq!(local.value, "0000000000000000");
                    let dim: usize = next.args.iter().find(|a| a.name == "work_dim").unwrap().value.parse().unwrap();
                    assert_eq!(sizes.len(), dim);
                    assert!(sizes.iter().all(|&s| s > 0));
                }
            }
            assert_eq!(lines > 0, expect, "{} {mode:?}: {lines} lines", driver.name());
        }
    }
}
