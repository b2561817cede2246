//! The driver-CI workflow end to end on PoCL: `cltap run`, `normalize`,
//! `diff`, `check` and `report`, as a user types them.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn calls() -> PathBuf {
    special("calls.c", "calls-cli")
}

fn workdir(name: &str) -> Scratch {
    scratch(name)
}

/// `cltap …` on PoCL through ocl-icd, with a clean environment.
fn cmd(dir: &Path, args: &[&str]) -> Command {
    let mut c = cltap_on_pocl(dir);
    c.args(args);
    c
}

fn out(mut c: Command) -> (i32, String, String) {
    let o = c.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

fn logs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "apilog"))
        .collect();
    v.sort();
    v
}

#[test]
fn run_finds_the_layer_through_cltap_layer_and_still_records() {
    // CLTAP_LAYER reaches the application's environment too: the layer
    // must take it as the launcher's setting, not as a bad one.
    let d = workdir("run-layer-var");
    let exe = calls();
    let mut c = cmd(&d, &["run", "--no-summary", "--", exe.to_str().unwrap(), "exit", "0"]);
    c.env("CLTAP_LAYER", layer());
    let (code, _, err) = out(c);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("not a cltap variable"), "{err}");
    assert_eq!(logs(&d).len(), 1, "{err}");
}

/// One line says what is active before the application starts (`--quiet`
/// silences it); the API log's header keeps the activation, the drivers
/// and every setting given.
#[test]
fn run_says_what_is_active_and_the_log_header_keeps_it() {
    let d = workdir("run-active");
    let exe = calls();
    let pocl = Driver::Pocl.library();
    let args = ["run", "--no-summary", "--decode", "--", exe.to_str().unwrap(), "exit", "0"];
    let (code, _, err) = out(cmd(&d, &args));
    assert_eq!(code, 0, "{err}");
    let active: Vec<&str> = err.lines().filter(|l| l.contains(" mode (")).collect();
    assert_eq!(active.len(), 1, "{err}");
    assert!(active[0].starts_with("cltap: layer (OPENCL_LAYERS) mode (auto: "), "{err}");
    assert!(active[0].ends_with(&format!("OpenCL drivers: {}", pocl.display())), "{err}");
    let log = std::fs::read_to_string(&logs(&d)[0]).unwrap();
    let header: Vec<&str> = log.lines().take_while(|l| l.starts_with('#')).collect();
    assert!(header.contains(&"# activation: layer (OPENCL_LAYERS)"), "{header:?}");
    assert!(header.contains(&format!("# drivers: {}", pocl.display()).as_str()), "{header:?}");
    let settings = header.iter().find_map(|l| l.strip_prefix("# settings: ")).expect("settings");
    assert!(settings.split(' ').any(|s| s == "CLTAP_LOG_DECODE=1"), "{settings}");
    assert!(settings.split(' ').all(|s| s.starts_with("CLTAP_") || s.starts_with("ROCP_")), "{settings}");

    let d = workdir("run-quiet");
    let (code, _, err) = out(cmd(&d, &["run", "-q", "--no-summary", "--", exe.to_str().unwrap(), "exit", "0"]));
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains(" mode ("), "{err}");
    // ICD mode says so.
    let d = workdir("run-active-icd");
    let mut c = cmd(&d, &["run", "--no-summary", "--mode", "icd", "--driver"]);
    c.arg(&pocl).args(["--", exe.to_str().unwrap(), "exit", "0"]);
    let (code, _, err) = out(c);
    assert_eq!(code, 0, "{err}");
    let want =
        format!("cltap: ICD (OCL_ICD_VENDORS, OCL_ICD_FILENAMES) mode (--mode); OpenCL drivers: {}", pocl.display());
    assert!(err.lines().any(|l| l == want), "{err}");
}

#[test]
fn run_returns_the_exit_code_and_lists_files() {
    let d = workdir("run");
    let exe = calls();
    let (code, _, err) = out(cmd(&d, &["run", "--no-summary", "--", exe.to_str().unwrap(), "exit", "7"]));
    assert_eq!(code, 7);
    assert!(err.contains("files written") && err.contains(".apilog"), "{err}");
    let (code, _, err) = out(cmd(&d, &["run", "--", "/no/such/app"]));
    assert_ne!(code, 0);
    assert_eq!(err.lines().count(), 1, "one clear line: {err}");
    assert!(err.contains("/no/such/app"));
}

#[test]
fn run_forwards_sigint_and_the_log_survives() {
    let d = workdir("sigint");
    let exe = calls();
    let mut c =
        cmd(&d, &["run", "--no-summary", "--output", d.to_str().unwrap(), "--", exe.to_str().unwrap(), "forever"]);
    c.stderr(Stdio::piped());
    let st = signal_when_ready(c, libc::SIGINT);
    assert_eq!(st.code(), Some(128 + libc::SIGINT), "the application's death by SIGINT is cltap's exit code");
    let text = std::fs::read_to_string(&logs(&d)[0]).unwrap();
    assert!(text.lines().last().unwrap().starts_with("# end:"), "the log was flushed");
}

#[test]
fn normalize_is_stable_and_diff_finds_an_injected_change() {
    let d = workdir("diff");
    let exe = calls();
    for arg in ["golden", "golden", "golden-alt"] {
        let (code, _, e) = out(cmd(&d, &["run", "--no-summary", "--", exe.to_str().unwrap(), arg]));
        assert_eq!(code, 0, "{e}");
    }
    let l = logs(&d);
    assert_eq!(l.len(), 3);
    // Log files are named by pid; tell the runs apart by their content.
    let alt = l.iter().position(|p| std::fs::read_to_string(p).unwrap().contains("size = 8192")).unwrap();
    let same: Vec<&PathBuf> = l.iter().enumerate().filter(|(i, _)| *i != alt).map(|(_, p)| p).collect();
    let norm = |p: &Path| out(cmd(&d, &["normalize", p.to_str().unwrap()]));
    let (c1, n1, _) = norm(same[0]);
    let (c2, n2, _) = norm(same[1]);
    assert_eq!((c1, c2), (0, 0));
    assert_eq!(n1, n2, "two runs of a deterministic program normalize to the same bytes");
    assert_eq!(norm(same[0]).1, n1, "normalizing again gives the same bytes");
    assert!(!n1.contains("0x0000"), "no times remain");
    assert!(n1.contains("context#1") && n1.contains("[cmd#1]"));

    let (code, text, _) = out(cmd(&d, &["diff", same[0].to_str().unwrap(), same[1].to_str().unwrap()]));
    assert_eq!((code, text.as_str()), (0, ""));
    let (code, text, _) = out(cmd(&d, &["diff", same[0].to_str().unwrap(), l[alt].to_str().unwrap()]));
    assert_eq!(code, 1);
    assert!(text.contains("~ T1 clCreateBuffer") && text.contains("size: 4096 -> 8192"), "{text}");
    let (code, json, _) =
        out(cmd(&d, &["diff", "--format", "json", same[0].to_str().unwrap(), l[alt].to_str().unwrap()]));
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v[0]["kind"], "changed");

    let (code, _, err) = out(cmd(&d, &["normalize", "/no/such.apilog"]));
    assert_ne!(code, 0);
    assert!(err.contains("/no/such.apilog"));
    let bad = d.join("bad.apilog");
    std::fs::write(&bad, "# header\nTID 1 garbage\n").unwrap();
    let (code, _, err) = out(cmd(&d, &["normalize", bad.to_str().unwrap()]));
    assert_ne!(code, 0);
    assert!(err.contains("bad.apilog:2:"), "file and line: {err}");
}

#[test]
fn check_fails_then_passes_after_update() {
    let d = workdir("check");
    let snaps = d.join("snaps");
    let exe = calls();
    let e = exe.to_str().unwrap();
    let s = snaps.to_str().unwrap();
    let (code, _, err) = out(cmd(&d, &["check", "--snapshot", s, "--", e, "golden"]));
    assert_eq!(code, 1);
    assert!(err.contains("--update"), "the message says what to run: {err}");
    let (code, _, _) = out(cmd(&d, &["check", "--snapshot", s, "--update", "--", e, "golden"]));
    assert_eq!(code, 0);
    let (code, _, err) = out(cmd(&d, &["check", "--snapshot", s, "--", e, "golden"]));
    assert_eq!(code, 0, "{err}");
    let (code, diff, err) = out(cmd(&d, &["check", "--snapshot", s, "--", e, "golden-alt"]));
    assert_eq!(code, 1, "{err}");
    assert!(diff.contains("size: 4096 -> 8192"), "{diff}");
    assert!(err.contains("--update"));
}

/// A snapshot records how it was normalized: the accept command repeats the check's options, and a
/// check with other options says so plainly instead of showing every line as changed.
#[test]
fn check_keeps_its_normalization_with_the_snapshot() {
    let d = workdir("check-norm");
    let snaps = d.join("snaps");
    let exe = calls();
    let (e, s) = (exe.to_str().unwrap(), snaps.to_str().unwrap());
    let opts = ["--portable", "--collapse-repeats"];
    let check = |extra: &[&str], update: bool| {
        let mut args = vec!["check", "--snapshot", s];
        args.extend_from_slice(extra);
        if update {
            args.push("--update");
        }
        args.extend_from_slice(&["--", e, "golden"]);
        out(cmd(&d, &args))
    };
    let (code, _, err) = check(&opts, false);
    assert_eq!(code, 1);
    let accept = format!("cltap check --snapshot {s} --collapse-repeats --portable --update -- {e} golden");
    assert!(err.contains(&accept), "the accept command repeats the options: {err}");
    assert_eq!(check(&opts, true).0, 0);
    let snap =
        std::fs::read_to_string(snaps.join(format!("{}.snap", exe.file_name().unwrap().to_str().unwrap()))).unwrap();
    assert_eq!(snap.lines().next(), Some("# cltap snapshot, normalized with: --collapse-repeats --portable"));
    let (code, _, err) = check(&opts, false);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = check(&[], false);
    assert_eq!(code, 1);
    assert!(!err.contains("differs from this run"), "no line-by-line diff of differently normalized logs: {err}");
    assert!(err.contains("was normalized with --collapse-repeats --portable, this check with (defaults)"), "{err}");
}

#[test]
fn report_tallies_a_log() {
    let d = workdir("report");
    let exe = calls();
    assert_eq!(out(cmd(&d, &["run", "--no-summary", "--", exe.to_str().unwrap(), "golden"])).0, 0);
    let (code, text, _) = out(cmd(&d, &["report", logs(&d)[0].to_str().unwrap()]));
    assert_eq!(code, 0);
    let line = |api: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(api))
            .map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
            .unwrap()
    };
    assert_eq!(line("clCreateBuffer")[1..3], ["2", "1"], "two calls, one failed: {text}");
    assert_eq!(line("clEnqueueReadBuffer")[1..3], ["2", "0"]);
}

/// The same program's log as another host would write it: the device's
/// name is `delta` bytes longer, and so is every size that follows from it.
fn as_on_another_host(log: &str, delta: i64) -> String {
    log.lines()
        .map(|l| {
            if !l.contains("clGetDeviceInfo(") || !l.contains("param_name = 4139") {
                return format!("{l}\n");
            }
            let mut out = String::new();
            let mut rest = l;
            for key in ["param_value_size = ", "*param_value_size_ret = "] {
                if let Some(i) = rest.find(key) {
                    let start = i + key.len();
                    let n = rest[start..].bytes().take_while(u8::is_ascii_digit).count();
                    out += &rest[..start];
                    match rest[start..start + n].parse::<i64>() {
                        Ok(v) if v > 0 => out += &(v + delta).to_string(),
                        _ => out += &rest[start..start + n],
                    }
                    rest = &rest[start + n..];
                }
            }
            out + rest + "\n"
        })
        .collect()
}

#[test]
fn portable_normalize_and_diff_ignore_host_facts_only() {
    let d = workdir("portable");
    let mut c = command(&programs().join("platform_device"), &[], &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
    c.env("CLTAP_OUTPUT_DIR", &*d);
    assert_eq!(run(c).code, Some(0));
    let here = logs(&d).pop().unwrap();
    let text = std::fs::read_to_string(&here).unwrap();
    let there = d.join("there.apilog");
    std::fs::write(&there, as_on_another_host(&text, 18)).unwrap();
    assert_ne!(std::fs::read_to_string(&there).unwrap(), text, "the rewrite changed the device name's sizes");
    let (h, t) = (here.to_str().unwrap(), there.to_str().unwrap());
    let normalized = |f: &str, extra: &[&str]| {
        let (code, o, e) = out(cmd(&d, &[&["normalize", f][..], extra].concat()));
        assert_eq!(code, 0, "{e}");
        o
    };
    assert_eq!(normalized(h, &["--portable"]), normalized(t, &["--portable"]));
    assert_ne!(normalized(h, &[]), normalized(t, &[]), "the default keeps every value");
    assert_eq!(out(cmd(&d, &["diff", "--portable", h, t])).0, 0);
    assert_eq!(out(cmd(&d, &["diff", h, t])).0, 1);
    // A change the program made still shows.
    let changed = d.join("changed.apilog");
    std::fs::write(&changed, as_on_another_host(&text, 18).replacen("param_name = 4098", "param_name = 4099", 1))
        .unwrap();
    let (code, o, _) = out(cmd(&d, &["diff", "--portable", h, changed.to_str().unwrap()]));
    assert_eq!(code, 1, "{o}");
    assert!(o.contains("param_name"), "{o}");
}

/// The numbers after `label` on the line that starts with it.
fn numbers_after(text: &str, label: &str) -> Vec<f64> {
    let line = text.lines().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("no line {label:?} in:\n{text}"));
    line[label.len()..]
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|w| w.parse::<f64>().ok())
        .collect()
}

#[test]
fn bench_prints_every_table_briefly() {
    // Small counts: the tables' shape and the promises that do not depend
    // on timing (lossless drops nothing, each trace has a size per record).
    let dir = workdir("bench");
    let args =
        ["bench", "--iterations", "2000", "--throughput-calls", "30000", "--stream-kernels", "40", "--disk-mib", "4"];
    let (code, stdout, stderr) = out(cmd(&dir, &args));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(numbers_after(&stdout, "rdtsc (one read)")[0] > 0.0);
    assert!(numbers_after(&stdout, "sequential write, 4 MiB + fdatasync")[0] > 0.0);
    // Errors-only logging has its column (its calls succeed: no record).
    let header = stdout.lines().find(|l| l.starts_with("call ")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(header.trim_end().ends_with("errors only"), "{header}");
    // Trace only, API log, + decode, discard write a trace; the others do not.
    let sizes = numbers_after(&stdout, "bytes per record (trace)");
    assert_eq!(sizes.len(), 4, "{stdout}");
    assert!(sizes.iter().all(|&b| b > 8.0), "{sizes:?}");
    // The same calls within each run: each against the driver's own entry
    // in the same process, a figure for every mode but no layer, and each
    // run's own clock floor.
    let within: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("the same within each run"))
        .take_while(|l| !l.is_empty())
        .collect();
    for call in ["clGetEventInfo", "clGetPlatformInfo", "clSetKernelArg"] {
        let row = within.iter().find(|l| l.starts_with(call)).unwrap_or_else(|| panic!("{call}: {within:?}"));
        assert_eq!(row.split_whitespace().count(), 9, "{row}");
    }
    let floors = numbers_after(&stdout, "2 x rdtsc + 15, this run");
    assert!(floors.len() == 8 && floors.iter().all(|&f| f > 15.0), "{floors:?}");
    // And each run's speed: the driver's own clSetKernelArg in that run.
    let pace = numbers_after(&stdout, "driver's clSetKernelArg");
    assert!(pace.len() == 8 && pace.iter().all(|&t| t > 0.0), "{pace:?}");
    // ICD mode, what `cltap run` uses where the loader ignores
    // OPENCL_LAYERS: each cheap call, over no layer and within its run
    // (over the driver's own entry on objects the child made on the driver
    // loaded by itself), that run's floor and speed, and the trace it
    // wrote (the bench fails if none: cltap never came between the calls
    // and the driver).
    let icd: Vec<&str> =
        stdout.lines().skip_while(|l| !l.starts_with("ICD mode")).take_while(|l| !l.is_empty()).collect();
    for call in ["clGetEventInfo", "clGetPlatformInfo", "clSetKernelArg"] {
        let row = icd.iter().find(|l| l.starts_with(call)).unwrap_or_else(|| panic!("{call}: {icd:?}"));
        assert_eq!(numbers_after(row, call).len(), 3, "{row}");
    }
    for (label, least) in [("2 x rdtsc + 15, this run", 15.0), ("driver's clSetKernelArg", 0.0)] {
        let row = icd.iter().find(|l| l.starts_with(label)).unwrap_or_else(|| panic!("{label}: {icd:?}"));
        let v = numbers_after(row, label);
        assert!(v.len() == 1 && v[0] > least, "{row}");
    }
    let icd_size = icd.iter().find_map(|l| l.strip_prefix("bytes per record (trace)"));
    assert!(icd_size.is_some_and(|r| numbers_after(r, "")[0] > 8.0), "{icd:?}");
    let stream: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("stream of 40 small kernels"))
        .take_while(|l| !l.is_empty())
        .collect();
    for mode in ["no layer", "device timing", "API log", "API log + device timing"] {
        let row = stream
            .iter()
            .find_map(|l| l.strip_prefix(mode).filter(|r| r.trim_start().starts_with(|c: char| c.is_ascii_digit())));
        let n = row.map(|r| numbers_after(r, "").len());
        assert!(n.is_some_and(|n| n >= 2), "stream row {mode}: {stream:?}");
    }
    // The driver's own floor for device times, unread and read (the child
    // fails the run if a profiled event does not read back as complete
    // with an end after its start), and device timing over it.
    for floor in ["  unread", "  read"] {
        let row = stream.iter().find_map(|l| l.strip_prefix(floor)).unwrap_or_else(|| panic!("{floor}: {stream:?}"));
        let v = numbers_after(row, "");
        assert!(v.len() == 2 && v[0] > 0.0, "{floor}: {row}");
    }
    assert_eq!(numbers_after(&stdout, "device timing over read").len(), 2, "{stream:?}");
    // A row per loop and thread count: clGetPlatformInfo, and clSetKernelArg
    // on a kernel per thread.
    for call in ["clGetPlatformInfo", "clSetKernelArg"] {
        for threads in ["1", "2", "8"] {
            let row = stdout
                .lines()
                .skip_while(|l| !l.starts_with("records per second"))
                .find(|l| {
                    let mut w = l.split_whitespace();
                    w.next() == Some(call) && w.next() == Some(threads)
                })
                .unwrap_or_else(|| panic!("throughput row {call} {threads}:\n{stdout}"));
            // call, threads, no layer (rate M/s), lossless (rate M/s), drops, bytes per record, …
            let w: Vec<&str> = row.split_whitespace().collect();
            assert!(w[2].parse::<f64>().unwrap() > 0.0 && w[3] == "M/s", "the rate without cltap: {row}");
            assert!(w[4].parse::<f64>().unwrap() > 0.0 && w[5] == "M/s", "the rate with cltap: {row}");
            assert_eq!(w[6], "0", "lossless drops nothing: {row}");
            assert!(w[7].parse::<f64>().unwrap() > 8.0, "bytes per record: {row}");
        }
    }
    // Rendering: a row per thread count from 1 up to the cores, then the
    // kernel's write of the same bytes alone, each with records and bytes
    // per second and CPU ns per record (user + kernel) into the folder (and
    // memory, where /dev/shm is a tmpfs with room).
    let render: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("rendering the API log"))
        .skip(2)
        .take_while(|l| !l.is_empty())
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let labels: Vec<&str> = render.iter().filter_map(|r| r.split_whitespace().next()).collect();
    assert_eq!(labels.first(), Some(&"1"), "{stdout}");
    assert_eq!(labels.last(), Some(&"write(2)"), "the kernel's write alone comes last: {stdout}");
    assert_eq!(labels.get(labels.len().wrapping_sub(2)), Some(&cores.to_string().as_str()), "{stdout}");
    for row in &render {
        let w: Vec<&str> = row.split_whitespace().collect();
        assert!(w[1].parse::<f64>().unwrap() > 0.0 && w[2] == "M/s", "records per second: {row}");
        assert!(w[3].parse::<f64>().unwrap() > 0.0 && w[4] == "MB/s", "bytes per second: {row}");
        let (user, kernel) = (w[5].parse::<f64>().unwrap(), w[7].parse::<f64>().unwrap());
        assert!(w[6] == "+" && w[8] == "ns", "CPU time per record, user + kernel: {row}");
        // The kernel splits a process's CPU time into user and kernel by
        // sampling at its tick, so a short run may show all of it on one
        // side; the sum is counted to the nanosecond.
        assert!(user >= 0.0 && kernel >= 0.0 && user + kernel > 0.0, "CPU time per record: {row}");
    }
}

/// `--driver` twice in layer mode: the application's loader, ocl-icd or the
/// Khronos loader (`--loader`), gets both drivers, and Debian's `clinfo`
/// lists what it lists without cltap on the same two; the active line names
/// both; the vendor folder cltap wrote for the run is gone after it.
#[test]
fn two_drivers_in_layer_mode_reach_either_loader() {
    let (pocl, grind) = (Driver::Pocl.library(), Driver::Oclgrind.library());
    let khronos = root().join(".deps/intel/khronos/libOpenCL.so.1");
    for (loader, name) in [(Loader::OclIcd, None), (Loader::Khronos, Some(&khronos))] {
        let clinfo = Path::new("/usr/bin/clinfo");
        let plain = run(command(clinfo, &["-l"], &[Driver::Pocl, Driver::Oclgrind], loader, Mode::Plain));
        assert_eq!(plain.code, Some(0), "{loader:?}: {}", plain.stderr);
        assert_eq!(plain.stdout.matches("Platform #").count(), 2, "{loader:?} without cltap: {}", plain.stdout);
        let d = workdir("two-drivers");
        let mut c = cmd(&d, &["run", "--no-summary", "--mode", "layer", "--driver"]);
        c.arg(&pocl).arg("--driver").arg(&grind);
        if let Some(l) = name {
            c.arg("--loader").arg(l).env("LD_LIBRARY_PATH", intel_lib());
        }
        c.args(["--", "clinfo", "-l"]).env("POCL_CACHE_DIR", pocl_cache());
        let child = c.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let vendors = std::env::temp_dir().join(format!("cltap-vendors.{}", child.id()));
        let o = child.wait_with_output().unwrap();
        let (stdout, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        assert_eq!(o.status.code(), Some(0), "{loader:?}: {err}");
        assert_eq!(stdout, plain.stdout, "{loader:?}: clinfo listed something else under cltap");
        let active = err.lines().find(|l| l.contains(" mode (")).expect("the active line");
        let given = format!("OpenCL drivers: {}, {}", pocl.display(), grind.display());
        assert!(active.ends_with(&given), "{loader:?}: {active}");
        assert!(!vendors.exists(), "{} left behind", vendors.display());
        let log = std::fs::read_to_string(&logs(&d)[0]).unwrap();
        assert!(log.contains("clGetPlatformIDs("), "{loader:?}: nothing recorded");
    }
}
