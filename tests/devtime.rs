//! Device timing on real drivers: every command's QUEUED ≤ SUBMIT ≤ START ≤
//! END, kernels named, transfers sized, nothing left behind, and the edge
//! cases (failed commands, markers, refused profiling, no clFinish) neither
//! crash nor hang.

mod common;
use common::*;
use std::path::{Path, PathBuf};

fn summary(dir: &Path) -> serde_json::Value {
    let p: PathBuf = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".summary.json"))
        .expect("summary.json written");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn timed(prog: &str, args: &[&str], driver: Driver, mode: Mode, name: &str) -> (Outcome, serde_json::Value) {
    let dir = scratch(name);
    let mut c = command(&programs().join(prog), args, &[driver], Loader::OclIcd, mode);
    c.env("CLTAP_DEVICE_TIMING", "1").env("CLTAP_SUMMARY", "1").env("CLTAP_OUTPUT_DIR", &dir);
    let o = run(c);
    let s = summary(&dir);
    (o, s)
}

fn check_ordered(s: &serde_json::Value) -> usize {
    let cmds = s["commands"].as_array().unwrap();
    for c in cmds {
        let t: Vec<u64> = ["queued", "submit", "start", "end"].iter().map(|k| c[k].as_u64().unwrap()).collect();
        assert!(t.windows(2).all(|w| w[0] <= w[1]), "QUEUED ≤ SUBMIT ≤ START ≤ END: {c}");
        assert!(t[0] > 0, "{c}");
    }
    cmds.len()
}

#[test]
fn vecadd_commands_are_timed_in_order_on_each_driver_and_mode() {
    for driver in [Driver::Pocl, Driver::Intel, Driver::Oclgrind] {
        for mode in [Mode::Layer, Mode::Icd] {
            let (o, s) = timed("vecadd", &["4096"], driver, mode, &format!("vecadd-{}-{mode:?}", driver.name()));
            assert_eq!(o.code, Some(0), "{}", o.stderr);
            assert_eq!(check_ordered(&s), 4, "{} {mode:?}: 2 kernels and 2 reads", driver.name());
            let kernels: Vec<&str> =
                s["kernels"].as_array().unwrap().iter().map(|k| k["kernel"].as_str().unwrap()).collect();
            assert!(kernels.contains(&"vecadd") && kernels.contains(&"partial_sums"), "{kernels:?}");
            // samples/vecadd.c reads back c (4096 floats) and one partial
            // sum per 64-item work-group (64 floats), and transfers nothing else.
            assert_eq!(s["transfers"].as_array().unwrap().len(), 1, "{}", s["transfers"]);
            let t = &s["transfers"][0];
            assert_eq!(t["direction"], "device to host");
            assert_eq!(t["count"], 2);
            assert_eq!(t["bytes"], 4096 * 4 + 4096 / 64 * 4);
            assert_eq!(s["pending_at_exit"], 0);
            assert!(o.stderr.contains("device time per kernel"), "{}", o.stderr);
        }
    }
}

#[test]
fn edge_cases_neither_crash_nor_hang() {
    // Failed commands and user events (events), markers and barriers
    // (enqueue), profiling refused on a plain queue (events, queues). Each
    // program prints and exits as it does without cltap, every command it
    // enqueued on a queue that allows profiling is timed, and none is left
    // pending. Each program enqueues a fixed sequence, so the count of timed
    // commands is fixed too (the same in both modes; PoCL completes each).
    for (prog, commands) in [("events", 18usize), ("enqueue", 92), ("queues", 16), ("refcounts", 1)] {
        let plain = run(command(&programs().join(prog), &[], &[Driver::Pocl], Loader::OclIcd, Mode::Plain));
        assert_eq!(plain.code, Some(0), "{prog}: {}", plain.stderr);
        for mode in [Mode::Layer, Mode::Icd] {
            let (o, s) = timed(prog, &[], Driver::Pocl, mode, &format!("{prog}-{mode:?}"));
            assert_eq!(o.code, Some(0), "{prog} {mode:?}: {}", o.stderr);
            assert_eq!(o.stdout, plain.stdout, "{prog} {mode:?}");
            assert_eq!(check_ordered(&s), commands, "{prog} {mode:?}: commands timed");
            assert_eq!(s["pending_at_exit"], 0, "{prog} {mode:?}");
        }
    }
}

#[test]
fn an_application_that_never_waits_is_reported_not_hung() {
    let exe = special("calls.c", "calls-devtime");
    let dir = scratch("nofinish");
    let mut c = command(&exe, &["nofinish"], &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
    c.env("CLTAP_DEVICE_TIMING", "1").env("CLTAP_SUMMARY", "1").env("CLTAP_OUTPUT_DIR", &dir);
    let o = run(c);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_eq!(o.stdout, "clGetPlatformIDs 0\nleft\n");
    let s = summary(&dir);
    let timed = s["commands"].as_array().unwrap().len() as i64;
    let pending = s["pending_at_exit"].as_i64().unwrap();
    assert_eq!(timed + pending, 8, "every fill is either timed or reported pending");
}

#[test]
fn the_held_reference_on_an_application_event_is_hidden() {
    // Device timing holds a reference on the application's event until it
    // reads the times; CL_EVENT_REFERENCE_COUNT must not show it. The
    // command waits on a user event, so the driver's own count is steady.
    let exe = special("calls.c", "calls-devtime");
    for driver in [Driver::Pocl, Driver::Intel] {
        for mode in [Mode::Layer, Mode::Icd] {
            let plain = run(command(&exe, &["eventrc"], &[driver], Loader::OclIcd, Mode::Plain));
            assert_eq!(plain.code, Some(0), "{}", plain.stderr);
            assert!(plain.stdout.contains("waiting: "), "{}", plain.stdout);
            let dir = scratch(&format!("eventrc-{}-{mode:?}", driver.name()));
            let mut c = command(&exe, &["eventrc"], &[driver], Loader::OclIcd, mode);
            c.env("CLTAP_DEVICE_TIMING", "1").env("CLTAP_SUMMARY", "1").env("CLTAP_OUTPUT_DIR", &dir);
            let with = run(c);
            assert_eq!(with.stdout, plain.stdout, "{} {mode:?}", driver.name());
            let s = summary(&dir);
            assert_eq!(s["commands"].as_array().unwrap().len(), 1, "the marker timed");
            // Intel's runtime leaves QUEUED at 0 for a marker that waited on
            // a user event (so it did before events were held).
            if driver == Driver::Pocl {
                check_ordered(&s);
            }
        }
    }
}

fn timeline(dir: &Path) -> serde_json::Value {
    let p: PathBuf = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "json") && !p.to_string_lossy().ends_with(".summary.json"))
        .expect("timeline written");
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap())
        .unwrap_or_else(|e| panic!("{}: not valid JSON: {e}", p.display()))
}

#[test]
fn timeline_has_host_calls_device_commands_and_flows() {
    for driver in [Driver::Pocl, Driver::Intel] {
        for mode in [Mode::Layer, Mode::Icd] {
            let dir = scratch(&format!("timeline-{}-{mode:?}", driver.name()));
            let mut c = command(&programs().join("vecadd"), &["65536"], &[driver], Loader::OclIcd, mode);
            c.env("CLTAP_DEVICE_TIMING", "1").env("CLTAP_TIMELINE", "1").env("CLTAP_OUTPUT_DIR", &dir);
            assert_eq!(run(c).code, Some(0));
            let t = timeline(&dir);
            let ev = t["traceEvents"].as_array().unwrap();
            let slices: Vec<&serde_json::Value> = ev.iter().filter(|e| e["ph"] == "X").collect();
            assert!(slices.iter().all(|e| e["dur"].as_f64().unwrap() >= 0.0), "no negative durations");
            let device: Vec<&&serde_json::Value> = slices.iter().filter(|e| e["cat"] == "device").collect();
            assert_eq!(device.len(), 4, "{} {mode:?}", driver.name());
            let host_api = |e: &&&serde_json::Value| e["cat"] == "api";
            assert!(slices.iter().filter(|e| host_api(e)).count() > 20);
            for d in device {
                let id = &d["args"]["cmd"];
                let s = ev.iter().find(|e| e["ph"] == "s" && &e["id"] == id).expect("flow start");
                let f = ev.iter().find(|e| e["ph"] == "f" && &e["id"] == id).expect("flow end");
                assert_eq!(f["ts"], d["ts"]);
                assert_eq!((&f["pid"], &f["tid"]), (&d["pid"], &d["tid"]));
                // The flow leaves from inside the enqueue call on its thread.
                let call = slices
                    .iter()
                    .find(|e| e["cat"] == "api" && e["args"]["cmd"] == *id)
                    .expect("the enqueue's host slice");
                assert_eq!((&call["pid"], &call["tid"]), (&s["pid"], &s["tid"]));
                assert_eq!(call["ts"], s["ts"]);
                assert!(
                    d["ts"].as_f64().unwrap() + 1e-3 >= call["ts"].as_f64().unwrap(),
                    "a command never starts before its enqueue"
                );
            }
        }
    }
}

#[test]
fn timeline_is_valid_json_after_sigterm() {
    let exe = special("calls.c", "calls-devtime");
    let dir = scratch("timeline-sigterm");
    let mut c = command(&exe, &["forever"], &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
    c.env("CLTAP_TIMELINE", "1").env("CLTAP_OUTPUT_DIR", &dir);
    signal_when_ready(c, libc::SIGTERM);
    // Rendered from the trace the process left (nothing is rendered in a
    // signal handler).
    let t = timeline(&render_left_trace(&dir));
    assert!(t["traceEvents"].as_array().unwrap().len() > 1000);
}

#[test]
fn device_records_are_spilled_not_held() {
    let exe = special("calls.c", "calls-devtime");
    let n = 300_000u64;
    let runs: Vec<(i32, i64, Scratch)> = ["0", "1"]
        .iter()
        .map(|on| {
            let dir = scratch(&format!("spill-{on}"));
            let mut c = command(&exe, &["markers", &n.to_string()], &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
            c.env("CLTAP_DEVICE_TIMING", on)
                .env("CLTAP_SUMMARY", "1")
                .env("CLTAP_API_LOG", "0")
                .env("CLTAP_OUTPUT_DIR", &dir);
            let (st, kib) = peak_kib(c);
            (st, kib, dir)
        })
        .collect();
    assert_eq!((runs[0].0, runs[1].0), (0, 0));
    let s = summary(&runs[1].2);
    assert_eq!(s["commands"].as_array().unwrap().len() as u64, n, "every marker timed and listed");
    assert!(
        !std::fs::read_dir(&runs[1].2).unwrap().any(|e| e.unwrap().file_name().to_string_lossy().starts_with('.')),
        "spill removed"
    );
    // Held in memory, 300,000 records would take about 60 MiB.
    assert!(
        runs[1].1 - runs[0].1 < 24 * 1024,
        "peak RSS {} KiB with device timing, {} KiB without",
        runs[1].1,
        runs[0].1
    );
}

#[test]
fn held_events_are_read_on_the_enqueue_path_when_the_application_never_waits() {
    // 200,000 markers and one clFinish at the end: without reads while
    // they are enqueued (by the reader thread, or by the enqueue itself
    // when a list is far past its mark) every event and its command would
    // be held until then.
    let exe = special("calls.c", "calls-devtime");
    let n = 200_000u64;
    let runs: Vec<(i32, i64, Scratch)> = ["0", "1"]
        .iter()
        .map(|on| {
            let dir = scratch(&format!("nowait-{on}"));
            let mut c =
                command(&exe, &["markers-nowait", &n.to_string()], &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
            c.env("CLTAP_DEVICE_TIMING", on)
                .env("CLTAP_SUMMARY", "1")
                .env("CLTAP_API_LOG", "0")
                .env("CLTAP_OUTPUT_DIR", &dir);
            let (st, kib) = peak_kib(c);
            (st, kib, dir)
        })
        .collect();
    assert_eq!((runs[0].0, runs[1].0), (0, 0));
    let s = summary(&runs[1].2);
    assert_eq!(s["commands"].as_array().unwrap().len() as u64, n, "every marker timed");
    assert_eq!(s["pending_at_exit"], 0);
    assert!(
        runs[1].1 - runs[0].1 < 24 * 1024,
        "peak RSS {} KiB with device timing, {} KiB without",
        runs[1].1,
        runs[0].1
    );
}

#[test]
fn a_kernel_made_at_a_released_kernels_address_is_timed_under_its_own_name() {
    // tests/c/special/kernel_reuse.c: alpha, beta, gamma_k in turn, each
    // made, launched once with a global size of its own (64, 128, 192) and
    // released, until 8 were made at an earlier one's address (at most
    // 3,000). On PoCL's basic device: its pthread device's worker threads
    // may drop a finished command's last reference on the kernel, and
    // glibc then keeps the memory in that thread's cache, so the next
    // kernel of the application's thread never lands there (a whole run
    // of 3,000 without one, seen under load).
    let exe = special("kernel_reuse.c", "kernel_reuse");
    for mode in [Mode::Layer, Mode::Icd] {
        let dir = scratch(&format!("kernel-reuse-{mode:?}"));
        let mut c = command(&exe, &["3000", "8"], &[Driver::Pocl], Loader::OclIcd, mode);
        c.env("CLTAP_DEVICE_TIMING", "1").env("CLTAP_SUMMARY", "1").env("CLTAP_OUTPUT_DIR", &dir);
        c.env("POCL_DEVICES", "basic");
        let o = run(c);
        assert_eq!(o.code, Some(0), "{mode:?}: {}", o.stderr);
        let (n, reused) = o
            .stdout
            .trim()
            .strip_prefix("iterations ")
            .and_then(|r| r.split_once(" reused "))
            .map(|(i, r)| (i.parse::<u64>().unwrap(), r.parse::<u64>().unwrap()))
            .unwrap_or_else(|| panic!("{mode:?}: {}", o.stdout));
        // Whether a new kernel lands at a released one's address is the
        // allocator's choice, not the driver's contract: runs under load
        // have gone 3,000 iterations without one on the basic device too
        // (one suite run in about five under two CPU hogs; the cause was
        // not found: PoCL 3.1's basic device starts no thread, and 16
        // processes at once under the same load all reused within 17).
        // So the reuse is not asserted here; `devtime::kernels`' unit test
        // makes a kernel at a released one's address every time, driving
        // the name cache directly. What this run asserts whatever the
        // addresses: every command, reused address or not, is named by
        // the kernel it launched.
        eprintln!("{mode:?}: {reused} of {n} kernels made at an earlier one's address");
        let s = summary(&dir);
        let cmds = s["commands"].as_array().unwrap();
        assert_eq!(cmds.len() as u64, n, "{mode:?}: every launch timed");
        let mut ids: Vec<u64> = cmds.iter().map(|c| c["cmd_id"].as_u64().unwrap()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len() as u64, n);
        for c in cmds {
            let want = match c["global"][0].as_u64().unwrap() {
                64 => "alpha",
                128 => "beta",
                192 => "gamma_k",
                g => panic!("global size {g}"),
            };
            assert_eq!(c["kernel"], want, "{mode:?}: command {}", c["cmd_id"]);
        }
    }
}
