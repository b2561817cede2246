//! Event checks, execution controls and device-time histograms
//! (docs/controls.md) on real drivers, in layer and ICD mode: a broken
//! wait list is reported and answered as the driver answers it; finish
//! after enqueue pins a crash on the command that caused it; skipped
//! enqueues and in-order queues change only what they must; the histogram
//! counts each launch by kernel and sizes, and `cltap render` makes the
//! same one. The program is `tests/c/special/controls.c`. Oclgrind runs
//! the controls that leave the wait lists and queue properties alone
//! ([`WITH_OCLGRIND`]): it crashes on the broken wait list of the event
//! checks' program, and never returns from
//! `clCreateCommandQueueWithProperties` under ocl-icd, with or without
//! cltap.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn program() -> PathBuf {
    special("controls.c", "controls")
}

/// The program in `mode` without cltap, then with it (`env` set, files in
/// a fresh folder); both must exit 0. Returns the folder and both outputs.
fn runs(driver: Driver, loader: Loader, mode: Mode, what: &str, env: &[(&str, &str)]) -> (Scratch, Outcome, Outcome) {
    let plain = run(command(&program(), &[what], &[driver], loader, Mode::Plain));
    assert_eq!(plain.code, Some(0), "{plain:?}");
    let dir = scratch("controls");
    let mut c = command(&program(), &[what], &[driver], loader, mode);
    c.env("CLTAP_OUTPUT_DIR", &*dir);
    for (k, v) in env {
        c.env(k, v);
    }
    let with = run(c);
    assert_eq!(with.code, Some(0), "{driver:?} {loader:?} {mode:?} {env:?}: {with:?}");
    (dir, plain, with)
}

fn api_log(dir: &Path) -> String {
    std::fs::read_to_string(only_file(dir, ".apilog")).unwrap()
}

/// The API log's notes of cltap's own (`# cltap: …`).
fn notes(log: &str) -> Vec<&str> {
    log.lines().filter_map(|l| l.strip_prefix("# cltap: ")).collect()
}

const CONFIGS: [(Driver, Loader, Mode); 4] = [
    (Driver::Pocl, Loader::OclIcd, Mode::Layer),
    (Driver::Pocl, Loader::Khronos, Mode::Icd),
    (Driver::Intel, Loader::OclIcd, Mode::Layer),
    (Driver::Intel, Loader::OclIcd, Mode::Icd),
];

/// [`CONFIGS`] and Oclgrind (layer mode, ocl-icd).
const WITH_OCLGRIND: [(Driver, Loader, Mode); 5] =
    [CONFIGS[0], CONFIGS[1], CONFIGS[2], CONFIGS[3], (Driver::Oclgrind, Loader::OclIcd, Mode::Layer)];

#[test]
fn a_broken_wait_list_is_reported_and_the_driver_answers_as_without_cltap() {
    for (driver, loader, mode) in CONFIGS {
        let (dir, plain, with) =
            runs(driver, loader, mode, "events", &[("CLTAP_EVENT_CHECKS", "1"), ("CLTAP_SUMMARY", "1")]);
        let at = format!("{driver:?} {loader:?} {mode:?}");
        assert_eq!(with.stdout, plain.stdout, "{at}: the application saw other answers");
        let log = api_log(&dir);
        let found = notes(&log);
        let expect = [
            "clEnqueueNDRangeKernel: event_wait_list[1] is NULL",
            "belongs to another context than the queue's",
            "is in an error state (status -1)",
            "is a user event not set yet",
        ];
        for e in expect {
            assert_eq!(found.iter().filter(|n| n.contains(e)).count(), 1, "{at}: {e:?} in {found:#?}");
        }
        assert_eq!(found.len(), expect.len(), "{at}: nothing else is reported: {found:#?}");
        // The unset user event is reported at the wait, before the call
        // that blocks: the waiting thread's next line is that wait.
        let lines: Vec<&str> = log.lines().collect();
        let i = lines.iter().position(|l| l.contains("is a user event not set yet")).unwrap();
        assert!(lines[i + 1].contains("clWaitForEvents("), "{at}: {}", lines[i + 1]);
        // The summary has the same findings, in the same order.
        let s = summary_json(&dir);
        let listed: Vec<&str> = s["event_checks"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert_eq!(listed, found, "{at}");
        assert!(with.stderr.contains("cltap: event checks: 4 finding(s)\n"), "{at}: {}", with.stderr);
        assert!(log.contains("\n# controls: event checks\n"), "{at}");
    }
}

/// A run whose wait lists are all good reports nothing, and the controls
/// that must not change what the application computes do not.
#[test]
fn controls_that_must_not_change_the_results_do_not() {
    let all = [
        ("CLTAP_EVENT_CHECKS", "1"),
        ("CLTAP_FINISH_AFTER_ENQUEUE", "1"),
        ("CLTAP_IN_ORDER_QUEUES", "1"),
        ("CLTAP_SUMMARY", "1"),
    ];
    for (driver, loader, mode) in WITH_OCLGRIND {
        let at = format!("{driver:?} {loader:?} {mode:?}");
        // Finish with device timing: the finish reads device timing's own event, which a
        // blocking enqueue lets device timing read and release (on NVIDIA it crashed).
        let timed = [("CLTAP_FINISH_AFTER_ENQUEUE", "1"), ("CLTAP_DEVICE_TIMING", "1"), ("CLTAP_SUMMARY", "1")];
        for env in [&all[..], &[("CLTAP_FLUSH_AFTER_ENQUEUE", "1"), ("CLTAP_SUMMARY", "1")], &timed[..]] {
            let (dir, plain, with) = runs(driver, loader, mode, "basic", env);
            assert!(plain.stdout.contains("result 36096\n"), "{at}: {}", plain.stdout);
            assert_eq!(with.stdout, plain.stdout, "{at} {env:?}");
            let log = api_log(&dir);
            // Device timing's own note on a CPU device is not a control's.
            let found: Vec<&str> =
                notes(&log).into_iter().filter(|n| !n.starts_with("device runs on the host")).collect();
            assert!(found.is_empty(), "{at} {env:?}: {found:#?}");
            let s = summary_json(&dir);
            assert!(s.get("event_checks").is_none() && s.get("failed_commands").is_none(), "{at}");
        }
        let (dir, _, _) = runs(driver, loader, mode, "basic", &all);
        let header = api_log(&dir);
        assert!(
            header.contains("\n# controls: event checks, finish after each enqueue, in-order queues\n"),
            "{at}: {header}"
        );
    }
    // Without any control the header names none.
    let (dir, plain, with) = runs(Driver::Pocl, Loader::OclIcd, Mode::Layer, "basic", &[]);
    assert_eq!(with.stdout, plain.stdout);
    assert!(!api_log(&dir).contains("# controls:"));
}

/// A process that dies in a kernel: with finish after each enqueue it dies
/// in the enqueue that launched it, which `cltap run` names with its CMD ID;
/// the read after it never happened.
#[test]
fn finish_after_enqueue_names_the_command_that_failed() {
    for (driver, mode) in [(Driver::Pocl, "layer"), (Driver::Pocl, "icd"), (Driver::Intel, "layer")] {
        let dir = scratch("controls-crash");
        let lib = driver.library();
        let mut c = cltap_on_pocl(&dir);
        c.env("OCL_ICD_VENDORS", &lib).env("LD_LIBRARY_PATH", intel_lib()).env("POCL_CACHE_DIR", pocl_cache());
        c.args(["run", "-q", "--no-summary", "--finish-after-enqueue", "--mode", mode, "--driver"])
            .arg(&lib)
            .arg("--")
            .arg(program())
            .arg("crash");
        let o = c.output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(128 + 11), "{driver:?} {mode}: {stderr}");
        let log = api_log(&dir);
        let launches: Vec<&str> = log.lines().filter(|l| l.contains("clEnqueueNDRangeKernel(")).collect();
        assert_eq!(launches.len(), 2, "{log}");
        assert!(!launches[0].ends_with("= <did not return>") && launches[1].ends_with("= <did not return>"));
        let cmd = cmd_id(launches[1]);
        assert!(
            stderr.contains("application killed by SIGSEGV during clEnqueueNDRangeKernel (thread ")
                && stderr.contains(&format!(", CMD ID {cmd}); its trace was rendered")),
            "{driver:?} {mode}: {stderr}"
        );
        assert!(!log.contains("clEnqueueReadBuffer("), "{log}");
        assert!(log.contains("\n# controls: finish after each enqueue\n"));
    }
}

/// The CMD ID of an API log line.
fn cmd_id(line: &str) -> u64 {
    let rest = line.split("CMD ID ").nth(1).unwrap_or_else(|| panic!("no CMD ID: {line}"));
    rest.split_whitespace().next().unwrap().parse().unwrap()
}

/// Skipped enqueues: every call answers as it did, every event asked for
/// can be waited on, queried (complete) and released; only the data is not
/// computed (the sum of 0..255, not with 3 added six times).
#[test]
fn skipped_enqueues_answer_success_with_complete_events() {
    for (driver, loader, mode) in WITH_OCLGRIND {
        let (dir, plain, with) = runs(driver, loader, mode, "basic", &[("CLTAP_SKIP_ENQUEUES", "1")]);
        let at = format!("{driver:?} {loader:?} {mode:?}");
        let other: Vec<(&str, &str)> = plain.stdout.lines().zip(with.stdout.lines()).filter(|(a, b)| a != b).collect();
        assert_eq!(other, [("result 36096", "result 32640")], "{at}");
        assert!(api_log(&dir).contains("\n# controls: enqueues skipped\n"));
    }
}

/// In-order queues, made both ways: the driver gets no out-of-order flag,
/// and the queue's properties say what the driver has, with device timing
/// (which answers that query itself) and without.
#[test]
fn in_order_queues_say_what_the_driver_has() {
    for (driver, loader, mode) in [CONFIGS[0], CONFIGS[1]] {
        for timing in ["0", "1"] {
            let env = [("CLTAP_IN_ORDER_QUEUES", "1"), ("CLTAP_DEVICE_TIMING", timing)];
            let (_, plain, with) = runs(driver, loader, mode, "inorder", &env);
            let at = format!("{driver:?} {loader:?} {mode:?} timing {timing}");
            assert!(plain.stdout.contains("bits out of order 1\n") && plain.stdout.contains("list out of order 1\n"));
            assert_eq!(with.stdout, plain.stdout.replace("out of order 1", "out of order 0"), "{at}");
        }
    }
}

/// The histogram counts each launch by kernel, global and local size, in
/// the summary's text and JSON, and `cltap render` makes the same from the
/// trace.
#[test]
fn the_histogram_counts_each_launch_by_kernel_and_sizes() {
    for (driver, loader, mode) in [CONFIGS[0], CONFIGS[3], WITH_OCLGRIND[4]] {
        let env = [("CLTAP_DEVICE_HISTOGRAM", "1"), ("CLTAP_SUMMARY", "1")];
        let (dir, plain, with) = runs(driver, loader, mode, "basic", &env);
        let at = format!("{driver:?} {loader:?} {mode:?}");
        assert_eq!(with.stdout, plain.stdout, "{at}");
        let s = summary_json(&dir);
        let h = s["kernel_histograms"].as_array().unwrap_or_else(|| panic!("{at}: {s}"));
        let group = |g: u64, l: u64| {
            h.iter()
                .find(|x| {
                    x["kernel"] == "add"
                        && x["global"] == serde_json::json!([g])
                        && x["local"] == serde_json::json!([l])
                })
                .unwrap_or_else(|| panic!("{at}: no group {g}/{l} in {h:#?}"))
        };
        assert_eq!(group(256, 16)["launches"], 3, "{at}");
        // Two launches of 128 with a local size of 8; the one with none
        // counts where the driver's choice puts it.
        assert_eq!(h.iter().map(|x| x["launches"].as_u64().unwrap()).sum::<u64>(), 6, "{at}");
        assert!(group(128, 8)["launches"].as_u64().unwrap() >= 2, "{at}");
        for x in h {
            let bins = x["bins"].as_array().unwrap();
            let n: u64 = bins.iter().map(|b| b["launches"].as_u64().unwrap()).sum();
            assert_eq!(n, x["launches"].as_u64().unwrap(), "{at}: {x}");
            for b in bins {
                let (lo, hi) = (b["from_ns"].as_u64().unwrap(), b["below_ns"].as_u64());
                assert!(hi.is_none_or(|hi| hi == 2 * lo.max(1) || (lo == 0 && hi == 1)), "{b}");
            }
        }
        assert!(with.stderr.contains("cltap: device-time histogram: add global 256 local 16 (3 launches)\n"), "{at}");
        // The same from the trace, rendered again.
        let again = dir.join("again");
        let r = Command::new(cltap_exe())
            .args(["render", "-o"])
            .arg(&again)
            .arg(only_file(&dir, ".cltrace"))
            .output()
            .unwrap();
        assert!(r.status.success(), "{r:?}");
        assert_eq!(summary_json(&again)["kernel_histograms"], s["kernel_histograms"], "{at}");
    }
    // Without the option, no histogram.
    let (dir, _, _) = runs(
        Driver::Pocl,
        Loader::OclIcd,
        Mode::Layer,
        "basic",
        &[("CLTAP_SUMMARY", "1"), ("CLTAP_DEVICE_TIMING", "1")],
    );
    assert!(summary_json(&dir).get("kernel_histograms").is_none());
}

/// A command that fails in the driver, made without a mock: a launch that
/// waits on a user event which the program's second thread sets to -1 once
/// the launch is in the driver. With finish after each enqueue, the API
/// log and stderr name it (CMD ID, kernel, the status the driver gave it);
/// device timing lists it as untimed; the event checks find its event in
/// an error state at the wait that lists it; and the application's answers
/// are those of the run without cltap. Each driver's status is what it is
/// (PoCL gives the command the user event's -1; Intel's CPU runtime says
/// complete): the expectations follow the run without cltap.
#[test]
fn finish_after_enqueue_names_a_command_that_the_driver_failed() {
    let env = [
        ("CLTAP_FINISH_AFTER_ENQUEUE", "1"),
        ("CLTAP_DEVICE_TIMING", "1"),
        ("CLTAP_EVENT_CHECKS", "1"),
        ("CLTAP_SUMMARY", "1"),
    ];
    let mut failed_somewhere = false;
    for (driver, loader, mode) in WITH_OCLGRIND {
        let (dir, plain, with) = runs(driver, loader, mode, "failing", &env);
        let at = format!("{driver:?} {loader:?} {mode:?}");
        assert_eq!(with.stdout, plain.stdout, "{at}: the application saw other answers");
        assert!(plain.stdout.contains("clSetUserEventStatus(-1) 0\n"), "{at}: {}", plain.stdout);
        let status: i32 = plain
            .stdout
            .lines()
            .find_map(|l| l.strip_prefix("failed command status "))
            .unwrap_or_else(|| panic!("{at}: {}", plain.stdout))
            .parse()
            .unwrap();
        let log = api_log(&dir);
        let launch = log.lines().find(|l| l.contains("clEnqueueNDRangeKernel(")).unwrap();
        let cmd = cmd_id(launch);
        let s = summary_json(&dir);
        let found = notes(&log);
        if status < 0 {
            failed_somewhere = true;
            let text = format!(
                "clEnqueueNDRangeKernel (CMD ID {cmd}, kernel add): the command ended with {}",
                cltap::trace::names::execution_status_text(status)
            );
            assert!(found.contains(&text.as_str()), "{at}: {text:?} not in {found:#?}");
            assert!(with.stderr.contains(&format!("cltap: finish after enqueue: {text}\n")), "{at}: {}", with.stderr);
            assert_eq!(s["failed_commands"], serde_json::json!([text]), "{at}");
            // The event checks find it failed at the wait that lists it.
            let i = log.lines().position(|l| l.contains("clWaitForEvents(")).unwrap();
            let before = log.lines().nth(i - 1).unwrap();
            assert!(
                before.starts_with("# cltap: clWaitForEvents: event_list[0] = ")
                    && before.ends_with(&format!("is in an error state (status {status})")),
                "{at}: {before}"
            );
            // Device timing has no times for it, and says why: PoCL refuses
            // its times, Oclgrind gives it its QUEUED time and zeros (once
            // taken for a complete command of 0 ns, in the kernel table).
            assert!(
                with.stderr.contains(&format!(
                    "could not be timed (first: clEnqueueNDRangeKernel {cmd}: it ended with {}",
                    cltap::trace::names::execution_status_text(status)
                )),
                "{at}: {}",
                with.stderr
            );
            assert_eq!(s["commands"], serde_json::json!([]), "{at}: {s}");
            assert_eq!(s["kernels"], serde_json::json!([]), "{at}: {s}");
        } else {
            // Set before the launch (the program's comment says why): the
            // launch's own wait list is the one found failed.
            assert!(s.get("failed_commands").is_none(), "{at}: {s}");
            let found: Vec<&str> = found.into_iter().filter(|n| !n.starts_with("device runs on the host")).collect();
            assert_eq!(found.len(), 1, "{at}: {found:#?}");
            assert!(
                found[0].starts_with("clEnqueueNDRangeKernel: event_wait_list[0] = ")
                    && found[0].ends_with("is in an error state (status -1)"),
                "{at}: {found:#?}"
            );
        }
    }
    assert!(failed_somewhere, "no driver failed the command: the test tested nothing");
}
