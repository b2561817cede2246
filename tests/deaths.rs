//! Nothing lost however the application ends: every call it made is in the
//! API log after SIGSEGV, SIGKILL, `_exit`, `quick_exit` or `abort`, through
//! `cltap run` (which renders the trace the process left) and through
//! `cltap render` on a trace left without the launcher; a crash inside the
//! driver shows the call in flight; a file-size limit loses nothing but
//! what it must, and says so.

mod common;
use common::*;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::Command;

fn calls() -> PathBuf {
    special("calls.c", "calls-deaths")
}

fn cltap() -> PathBuf {
    root().join("target/release/cltap")
}

fn only(dir: &Path, ext: &str) -> PathBuf {
    only_file(dir, ext)
}

/// `cltap run` with the calls program on PoCL, in `mode`.
fn run_cltap(dir: &Path, mode: &str, args: &[&str]) -> (Option<i32>, String) {
    let pocl = Driver::Pocl.library();
    let mut c = cltap_on_driver(dir, &pocl);
    c.args(["run", "--no-summary", "--mode", mode, "--driver"]).arg(&pocl).arg("--").arg(calls()).args(args);
    let o = c.output().unwrap();
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
}

const N: u64 = 1000;

#[test]
fn every_call_survives_every_death_through_cltap_run() {
    let deaths = [
        ("segv", "killed by SIGSEGV"),
        ("kill", "killed by SIGKILL"),
        ("_exit", "exit code 3"),
        ("quick_exit", "exit code 4"),
        ("abort", "killed by SIGABRT"),
    ];
    for mode in ["layer", "icd"] {
        for (how, said) in deaths {
            let d = scratch(&format!("death-{how}"));
            let (_, err) = run_cltap(&d, mode, &["die", how, &N.to_string()]);
            let log = only(&d, "apilog");
            assert_eq!(numbered_calls(&log), (1..=N).collect::<Vec<_>>(), "{how} in {mode} mode: {err}");
            assert!(err.contains(said), "{how} in {mode} mode: {err}");
            let last = std::fs::read_to_string(&log).unwrap().lines().last().unwrap_or("").to_string();
            assert!(last.starts_with("# end: ") && last.ends_with(" 0 dropped"), "{how}: {last}");
        }
    }
}

#[test]
fn a_trace_left_without_the_launcher_is_rendered_by_cltap_render() {
    for (how, mode) in [("segv", Mode::Layer), ("kill", Mode::Icd), ("_exit", Mode::Layer)] {
        let d = scratch(&format!("render-{how}"));
        let mut c = command(&calls(), &["die", how, &N.to_string()], &[Driver::Pocl], Loader::OclIcd, mode);
        c.env("CLTAP_OUTPUT_DIR", &*d);
        let o = run(c);
        assert_ne!(o.code, Some(0), "{how}: the program died");
        let trace = only(&d, "cltrace");
        let out = d.join("rendered");
        let r = Command::new(cltap()).arg("render").arg(&trace).arg("--output").arg(&out).output().unwrap();
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        assert_eq!(numbered_calls(&only(&out, "apilog")), (1..=N).collect::<Vec<_>>(), "{how} {mode:?}");
    }
}

#[test]
fn a_crash_inside_the_driver_names_the_call_in_flight() {
    for mode in ["layer", "icd"] {
        let d = scratch("driver-crash");
        let (code, err) = run_cltap(&d, mode, &["driver-crash", "100"]);
        assert_eq!(code, Some(128 + libc::SIGSEGV), "{err}");
        assert!(err.contains("killed by SIGSEGV during clGetPlatformInfo (thread "), "{mode}: {err}");
        let log = std::fs::read_to_string(only(&d, "apilog")).unwrap();
        assert_eq!(numbered_calls(&only(&d, "apilog")).len(), 100);
        let calls: Vec<&str> = log.lines().filter(|l| l.starts_with("TID ")).collect();
        let last = calls.last().unwrap();
        assert!(last.contains("param_value_size = 256, void* param_value = 0000000000000010"), "{mode}: {last}");
        assert!(last.ends_with("= <did not return>"), "{mode}: {last}");
        // The normalized form keeps the marker, so a CI diff shows it.
        let n = Command::new(cltap()).arg("normalize").arg(only(&d, "apilog")).output().unwrap();
        assert!(String::from_utf8_lossy(&n.stdout).lines().last().unwrap().ends_with("= <did not return>"));
    }
}

/// A trace whose last call did not return, in many chunks, renders the
/// same API log, summary and list of calls in flight on one thread and on
/// several (workers tally their chunks apart, merged in order).
#[test]
fn a_call_in_flight_renders_the_same_on_one_thread_and_on_several() {
    let d = scratch("in-flight-threads");
    let mut c = command(&calls(), &["driver-crash", "20000"], &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
    c.env("CLTAP_OUTPUT_DIR", &*d).env("CLTAP_SUMMARY", "1").env("CLTAP_BUFFER_SIZE", "4K");
    let o = run(c);
    assert_eq!(o.code, None, "killed by SIGSEGV: {}", o.stderr);
    let trace = only(&d, "cltrace");
    let r = cltap_formats::cltrace::Reader::open(&trace).unwrap();
    assert!(r.chunks().unwrap().len() >= 8, "{} chunks", r.chunks().unwrap().len());
    // A run this short dies before the clock's rate is recorded, and each
    // render would measure its own: the trace is given one (2.6 ticks a ns).
    use cltap_formats::cltrace::FileHeader;
    let (tsc0, mono0) = (r.header.tsc0, r.header.mono0);
    let file = std::fs::OpenOptions::new().write(true).open(&trace).unwrap();
    use std::os::unix::fs::FileExt;
    file.write_all_at(&(tsc0 + 2_600_000_000).to_ne_bytes(), std::mem::offset_of!(FileHeader, tsc1) as u64).unwrap();
    file.write_all_at(&(mono0 + 1_000_000_000).to_ne_bytes(), std::mem::offset_of!(FileHeader, mono1) as u64).unwrap();
    let r: Vec<_> = [1, 2, 3].iter().map(|&t| bounded::rendered_on(&trace, &d.join(format!("r{t}")), t)).collect();
    assert!(r[0].apilog.lines().rfind(|l| l.starts_with("TID ")).unwrap().ends_with("= <did not return>"));
    assert!(r[0].stderr.contains("cltap: clGetPlatformInfo did not return (thread "), "{}", r[0].stderr);
    assert!(r[0].summary.as_ref().is_some_and(|s| s.contains("clGetPlatformInfo")), "{:?}", r[0].summary);
    for x in &r[1..] {
        assert!(x == &r[0], "several threads:\n{}\n{:?}", x.stderr, x.summary);
    }
}

/// Peak memory of `calls stress 8 2500000` with and without cltap.
#[test]
fn eight_threads_of_two_and_a_half_million_calls_lose_nothing_in_flat_memory() {
    let (threads, per) = (8u64, 2_500_000u64);
    let args = ["stress", "8", "2500000"];
    let (st, plain_kib) = peak_kib(command(&calls(), &args, &[Driver::Pocl], Loader::OclIcd, Mode::Plain));
    assert_eq!(st, 0);
    let d = scratch("stress-20m");
    let mut c = command(&calls(), &args, &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
    // The whole log, past the default output limit: every line is checked.
    c.env("CLTAP_OUTPUT_DIR", &*d).env("CLTAP_OUTPUT_LIMIT", "0");
    let (st, kib) = peak_kib(c);
    assert_eq!(st, 0);
    assert!(kib - plain_kib < 64 * 1024, "peak RSS {kib} KiB with cltap against {plain_kib} without");
    // Every line, each thread's in its own order: thread t numbers its calls
    // t·10⁸ + 1 … t·10⁸ + N.
    let f = std::io::BufReader::with_capacity(1 << 20, std::fs::File::open(only(&d, "apilog")).unwrap());
    let mut next = vec![1u64; threads as usize + 1];
    let mut seen = 0u64;
    for l in f.lines().map_while(Result::ok) {
        let Some(rest) = l.split("size_t param_value_size = ").nth(1) else { continue };
        let n: u64 = rest.split(',').next().unwrap().parse().unwrap();
        let (t, i) = ((n / 100_000_000) as usize, n % 100_000_000);
        if t == 0 {
            continue; // the program's own set-up calls
        }
        assert_eq!(i, next[t], "thread {t}: call {i} where {} was due", next[t]);
        next[t] += 1;
        seen += 1;
    }
    assert_eq!(seen, threads * per);
}

#[test]
fn a_file_size_limit_keeps_the_application_running_and_counts_what_is_lost() {
    use std::os::unix::process::CommandExt;
    let args = ["stress", "1", "300000"];
    let plain = run(command(&calls(), &args, &[Driver::Pocl], Loader::OclIcd, Mode::Plain));
    let d = scratch("fsize");
    // One 1 MiB chunk: 300,000 records take more even at a compact
    // record's 16 bytes.
    let limit: u64 = 2 << 20;
    let mut c = command(&calls(), &args, &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
    c.env("CLTAP_OUTPUT_DIR", &*d);
    // SAFETY: setrlimit between fork and exec touches only the child.
    unsafe {
        c.pre_exec(move || {
            let r = libc::rlimit { rlim_cur: limit, rlim_max: limit };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &r) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let o = run(c);
    assert_eq!(
        (o.code, &o.stdout),
        (plain.code, &plain.stdout),
        "the application's results are the same: {}",
        o.stderr
    );
    let msgs: Vec<&str> = o.stderr.lines().filter(|l| l.starts_with("cltap:")).collect();
    assert!(msgs.iter().any(|m| m.contains("cannot grow")), "{msgs:?}");
    assert!(msgs.len() <= 3, "a few clear lines, not one per call: {msgs:?}");
    // What was recorded is readable, and the drop count says what was lost.
    let trace = only(&d, "cltrace");
    assert!(trace.metadata().unwrap().len() <= limit);
    let out = d.join("rendered");
    let r = Command::new(cltap()).arg("render").arg(&trace).arg("--output").arg(&out).output().unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let log = only(&out, "apilog");
    let text = std::fs::read_to_string(&log).unwrap();
    let trailer = text.lines().last().unwrap();
    let nums: Vec<u64> = trailer.split(|c: char| !c.is_ascii_digit()).filter_map(|s| s.parse().ok()).collect();
    let (kept, dropped) = (nums[0], nums[1]);
    let got = numbered_calls(&log);
    let first_wrong = got.iter().enumerate().find(|(i, &n)| n != 100_000_001 + *i as u64);
    assert!(first_wrong.is_none(), "not a prefix of the calls in order: at {first_wrong:?} of {}", got.len());
    assert!(dropped > 0, "{trailer}");
    // The program's calls: 300,000 on its thread and one clGetPlatformIDs;
    // and the thread's name record, first in its first chunk.
    assert_eq!(kept + dropped, 300_001 + 1, "{trailer}");
}
