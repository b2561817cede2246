//! The RCP application trace (`CLTAP_ATP=1`) on real drivers: its sections
//! agree with each other and with what the program did, device times sit
//! inside the host calls that caused them, perf markers nest, the file reads
//! back to itself, and a long run is spilled rather than held in memory.

mod common;
use cltap_formats::atp::{self, Atp, Detail, Marker};
use common::*;
use std::path::{Path, PathBuf};

fn fresh(name: &str) -> Scratch {
    scratch(name)
}

fn only(dir: &Path, ext: &str) -> PathBuf {
    only_file(dir, ext)
}

fn traced(exe: &Path, args: &[&str], driver: Driver, mode: Mode, dir: &Path) -> (Outcome, String, Atp) {
    let mut c = command(exe, args, &[driver], Loader::OclIcd, mode);
    c.env("CLTAP_ATP", "1").env("CLTAP_OUTPUT_DIR", dir);
    let o = run(c);
    let text = std::fs::read_to_string(only(dir, "atp")).unwrap();
    let a = atp::read(&text).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    (o, text, a)
}

#[test]
fn vecadd_trace_on_each_driver_and_mode() {
    for driver in [Driver::Pocl, Driver::Intel, Driver::Oclgrind] {
        for mode in [Mode::Layer, Mode::Icd] {
            let what = format!("{} {mode:?}", driver.name());
            let dir = fresh(&format!("vecadd-{}-{mode:?}", driver.name()));
            let (o, text, a) = traced(&programs().join("vecadd"), &["4096"], driver, mode, &dir);
            assert_eq!(o.code, Some(0), "{what}: {}", o.stderr);
            assert_eq!(a.header[0], ("TraceFileVersion".to_string(), "3.2".to_string()), "{what}");
            assert!(
                a.header.iter().any(|(k, v)| k == "Application" && v.ends_with("vecadd")),
                "{what}: {:?}",
                a.header
            );
            assert_eq!(atp::write(&a), text, "{what}: the file reads back to itself");
            assert!(
                !dir.read_dir().unwrap().any(|e| e.unwrap().file_name().to_string_lossy().starts_with('.')),
                "{what}: spill files removed"
            );

            // The two sections list the same calls, thread by thread.
            assert_eq!(a.api.len(), a.timestamps.len(), "{what}");
            for (api, ts) in a.api.iter().zip(&a.timestamps) {
                assert_eq!(api.tid, ts.tid);
                let names: Vec<&str> = api.items.iter().map(|c| c.name.as_str()).collect();
                let tnames: Vec<&str> = ts.items.iter().map(|t| t.name.as_str()).collect();
                assert_eq!(names, tnames, "{what}");
                for w in ts.items.windows(2) {
                    assert!(w[0].start <= w[1].start && w[0].start <= w[0].end, "{what}: host times in call order");
                }
            }
            let main = &a.timestamps[0];
            let device = o
                .stdout
                .lines()
                .find_map(|l| l.strip_prefix("device: "))
                .expect("vecadd prints its device")
                .replace(' ', "_");
            let enq: Vec<_> = main.items.iter().filter(|t| t.enqueue.is_some()).collect();
            assert_eq!(enq.len(), 4, "{what}: two kernels and two reads");
            for t in &enq {
                let e = t.enqueue.as_ref().unwrap();
                assert!(e.queued <= e.submit && e.submit <= e.start && e.start <= e.end, "{what}: {t:?}");
                assert_eq!(e.device, device, "{what}");
                assert_eq!((e.queue_id, e.context_id), (1, 1), "{what}");
                match &e.detail {
                    Detail::Kernel { name, global, local, .. } => {
                        assert_eq!(e.cmd_name, "CL_COMMAND_NDRANGE_KERNEL");
                        assert!(name == "vecadd" || name == "partial_sums", "{name}");
                        assert_eq!((global.clone(), local.clone()), (vec![4096], Some(vec![64])));
                    }
                    Detail::Transfer { bytes } => {
                        assert_eq!(e.cmd_name, "CL_COMMAND_READ_BUFFER");
                        assert!(*bytes == 4096 * 4 || *bytes == 64 * 4, "{bytes}");
                    }
                    Detail::None => panic!("{what}: {t:?}"),
                }
            }
            // One queue, one clock: the commands were queued in the order of
            // their enqueue calls, and each blocking read ended before the
            // next command was queued (it ended inside its call). Both hold
            // in the device's own clock, which one offset per queue maps to
            // the host's, so neither depends on how well that offset was
            // measured.
            for w in enq.windows(2) {
                let (a, b) = (w[0].enqueue.as_ref().unwrap(), w[1].enqueue.as_ref().unwrap());
                assert!(a.queued <= b.queued, "{what}: queued in enqueue order: {a:?} {b:?}");
                if matches!(a.detail, Detail::Transfer { .. }) {
                    assert!(a.end <= b.queued, "{what}: a blocking read ends before the next enqueue: {a:?} {b:?}");
                }
            }
            // setup, compute { add, reduce }: nested, in time order.
            let m = &a.markers.iter().find(|b| b.tid == main.tid).expect("markers on the main thread").items;
            let shape: Vec<String> = m
                .iter()
                .map(|x| match x {
                    Marker::Begin { name, group, .. } => format!("+{name}/{group}"),
                    Marker::End { .. } => "-".into(),
                })
                .collect();
            assert_eq!(
                shape,
                ["+setup/vecadd", "-", "+compute/vecadd", "+add/kernels", "-", "+reduce/kernels", "-", "-"],
                "{what}"
            );
            let times: Vec<u64> = m
                .iter()
                .map(|x| match x {
                    Marker::Begin { time, .. } | Marker::End { time } => *time,
                })
                .collect();
            assert!(times.windows(2).all(|w| w[0] <= w[1]), "{what}: {times:?}");
            let first_kernel =
                enq.iter().find(|t| matches!(t.enqueue.as_ref().unwrap().detail, Detail::Kernel { .. })).unwrap();
            assert!(
                times[3] <= first_kernel.start && first_kernel.end <= times[4],
                "{what}: the add marker brackets its enqueue"
            );
        }
    }
}

#[test]
fn without_cltap_the_markers_are_absent_and_the_program_unchanged() {
    // vecadd asks for the marker functions; with no layer it gets NULL.
    let exe = programs().join("vecadd");
    let a = run(command(&exe, &["1024"], &[Driver::Pocl], Loader::OclIcd, Mode::Plain));
    let dir = fresh("unchanged");
    let (b, _, _) = traced(&exe, &["1024"], Driver::Pocl, Mode::Layer, &dir);
    assert_eq!((a.code, &a.stdout), (b.code, &b.stdout));
}

#[test]
fn report_and_normalize_read_the_trace() {
    let dirs = [fresh("cli-1"), fresh("cli-2")];
    for d in &dirs {
        let (o, _, _) = traced(&programs().join("vecadd"), &["4096"], Driver::Pocl, Mode::Layer, d);
        assert_eq!(o.code, Some(0), "{}", o.stderr);
    }
    let cltap = root().join("target/release/cltap");
    let out = |args: &[&str]| {
        let o = std::process::Command::new(&cltap).args(args).output().unwrap();
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let f: Vec<String> = dirs.iter().map(|d| only(d, "atp").display().to_string()).collect();
    let r = out(&["report", &f[0]]);
    for want in ["clEnqueueNDRangeKernel", "vecadd", "partial_sums", "device to host"] {
        assert!(r.contains(want), "report lacks {want}:\n{r}");
    }
    let (n1, n2) = (out(&["normalize", &f[0]]), out(&["normalize", &f[1]]));
    assert_eq!(n1, n2, "two runs normalize alike");
    assert!(n1.contains("clEnqueueNDRangeKernel(command_queue = queue#1, kernel = kernel#"), "{n1}");
    let d = std::process::Command::new(&cltap).args(["diff", &f[0], &f[1]]).output().unwrap();
    assert_eq!(d.status.code(), Some(0), "{}", String::from_utf8_lossy(&d.stdout));
}

#[test]
fn a_long_trace_is_spilled_not_held() {
    let exe = special("calls.c", "calls-atp");
    let calls = 250_000;
    let per = calls.to_string();
    let plain_dir = fresh("long-plain");
    let mut c = command(&exe, &["stress", "4", &per], &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
    c.env("CLTAP_OUTPUT_DIR", &plain_dir);
    let (s0, base) = peak_kib(c);
    let dir = fresh("long-atp");
    let mut c = command(&exe, &["stress", "4", &per], &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
    c.env("CLTAP_ATP", "1").env("CLTAP_OUTPUT_DIR", &dir);
    let (s1, with_atp) = peak_kib(c);
    assert_eq!((s0, s1), (0, 0));
    let a = atp::read(&std::fs::read_to_string(only(&dir, "atp")).unwrap()).unwrap();
    let n: usize = a.api.iter().map(|b| b.items.len()).sum();
    assert_eq!(n, 4 * calls + 1, "every call, plus clGetPlatformIDs");
    // A million API lines held in memory would take well over 100 MiB.
    assert!(with_atp - base < 48 * 1024, "peak RSS {with_atp} KiB with the .atp, {base} KiB without");
}

#[test]
fn sigterm_leaves_a_complete_trace_without_the_api_log() {
    let exe = special("calls.c", "calls-atp");
    let dir = fresh("sigterm");
    let mut c = command(&exe, &["forever"], &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
    // The .atp and the timeline need no API log.
    c.env("CLTAP_ATP", "1").env("CLTAP_TIMELINE", "1").env("CLTAP_API_LOG", "0").env("CLTAP_OUTPUT_DIR", &dir);
    c.stderr(std::process::Stdio::null());
    assert!(!signal_when_ready(c, libc::SIGTERM).success(), "the signal still ends the program");
    // Nothing is rendered in a signal handler: the trace left is rendered
    // afterwards, as `cltap run` does by itself.
    let dir = render_left_trace(&dir);
    let names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(
        !names.iter().any(|n| n.ends_with(".apilog") || n.ends_with(".parts") || n.ends_with(".commands")),
        "{names:?}"
    );
    let a = atp::read(&std::fs::read_to_string(only(&dir, "atp")).unwrap()).unwrap();
    let calls = &a.api[0].items;
    // Every call made before the signal, in order: CL_PLATFORM_NAME with
    // param_value_size 1, 2, 3, …
    let sizes: Vec<u64> =
        calls.iter().filter(|c| c.name == "clGetPlatformInfo").map(|c| c.args[2].parse().unwrap()).collect();
    assert!(sizes.len() >= 1000, "{} calls", sizes.len());
    assert_eq!(sizes, (1..=sizes.len() as u64).collect::<Vec<_>>(), "a gap before the kill");
    assert_eq!(a.timestamps[0].items.len(), calls.len());
    let t: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(only(&dir, "json")).unwrap()).expect("valid JSON");
    assert!(t["traceEvents"].as_array().unwrap().len() > 1000);
}
