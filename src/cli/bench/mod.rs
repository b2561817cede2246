//! `cltap bench`: what cltap adds to each call, and how many records per
//! second reach the file, measured on a real driver. The parent runs copies
//! of itself with the layer configured each way; each copy loads the system's
//! libOpenCL, times the calls, and reports back one line per measurement.

mod child;
mod host;
mod icd;
mod render_rate;

use clap::Args;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// The real driver (an ICD library) to measure on.
    #[arg(long, default_value = "/usr/lib/x86_64-linux-gnu/libpocl.so.2")]
    pub driver: PathBuf,
    /// The layer library (default: next to this executable).
    #[arg(long)]
    pub layer: Option<PathBuf>,
    /// Calls per timed repetition of the cheap calls.
    #[arg(long, default_value_t = 200_000)]
    pub iterations: u64,
    /// Calls in all (shared among the threads) in each throughput run.
    #[arg(long, default_value_t = 20_000_000)]
    pub throughput_calls: u64,
    /// Kernels in the stream of small kernels (each 1,024 work-items,
    /// enqueued back to back, then one clFinish).
    #[arg(long, default_value_t = 2000)]
    pub stream_kernels: u64,
    /// MiB written to measure the trace folder's own write rate (0: skip).
    #[arg(long, default_value_t = 256)]
    pub disk_mib: u64,
    /// Only these parts, comma-separated: host, calls, stream, throughput
    /// (throughput includes the rendering rate). Default: all.
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    #[arg(long, hide = true)]
    pub child: Option<String>,
}

/// The modes compared, and the environment each sets.
const MODES: &[(&str, &[(&str, &str)])] = &[
    ("no layer", &[]),
    ("pass-through", &[("CLTAP_API_LOG", "0")]),
    // The API log asked for, every call outside the collection window.
    ("outside a window", &[("CLTAP_START_PAUSED", "1")]),
    ("trace only", &[("CLTAP_RENDER", "0")]),
    ("API log", &[]),
    ("API log + decode", &[("CLTAP_LOG_DECODE", "1")]),
    ("API log, discard", &[("CLTAP_BUFFER_POLICY", "discard")]),
    ("device timing", &[("CLTAP_API_LOG", "0"), ("CLTAP_DEVICE_TIMING", "1")]),
    // The calls measured succeed: errors-only logging should cost what
    // pass-through does.
    ("errors only", &[("CLTAP_ERRORS_ONLY", "1")]),
];

pub fn run(a: BenchArgs) -> i32 {
    if let Some(what) = &a.child {
        return match child::child(what, a.iterations) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("cltap bench: {e}");
                1
            }
        };
    }
    let layer = match super::run::find_layer(a.layer.as_deref()) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("cltap: {e}");
            return 127;
        }
    };
    if !a.driver.is_file() {
        eprintln!("cltap bench: driver {} not found (pass --driver)", a.driver.display());
        return 1;
    }
    // Removed however the benchmark ends, early errors included.
    struct Scratch(PathBuf);
    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    let scratch = Scratch(std::env::temp_dir().join(format!("cltap-bench-{}", std::process::id())));
    let out = scratch.0.join("run");
    let _ = std::fs::create_dir_all(&out);
    let exe = std::env::current_exe().expect("own path");
    let spawn = |what: &str, env: &[(&str, &str)], with_layer: bool, iterations: u64| -> Result<String, String> {
        let mut c = Command::new(&exe);
        c.args(["bench", "--child", what, "--iterations", &iterations.to_string()]);
        for (k, _) in std::env::vars() {
            if k.starts_with("CLTAP_") || k.starts_with("OCL_ICD") || k == "OPENCL_LAYERS" {
                c.env_remove(k);
            }
        }
        c.env("OCL_ICD_VENDORS", &a.driver).env("OCL_ICD_FILENAMES", &a.driver).env("CLTAP_OUTPUT_DIR", &out);
        if with_layer {
            c.env("OPENCL_LAYERS", &layer);
        }
        for (k, v) in env {
            c.env(k, v);
        }
        let o = c.output().map_err(|e| e.to_string())?;
        if !o.status.success() {
            return Err(String::from_utf8_lossy(&o.stderr).into_owned());
        }
        Ok(String::from_utf8_lossy(&o.stdout).into_owned())
    };

    let want = |part: &str| a.only.is_empty() || a.only.iter().any(|p| p == part);
    if let Some(bad) = a.only.iter().find(|p| !PARTS.contains(&p.as_str())) {
        eprintln!("cltap bench: --only {bad}: not a part (accepted: {})", PARTS.join(", "));
        return 2;
    }
    if want("host") {
        host_floor(&out, a.disk_mib);
    }
    if want("calls") {
        if let Err(e) = calls_table(&spawn, &layer, &a.driver, a.iterations, &out) {
            eprintln!("cltap bench: {e}");
            return 1;
        }
    }
    if want("stream") && a.stream_kernels > 0 {
        if let Err(e) = stream_table(&spawn, a.stream_kernels, &out) {
            eprintln!("cltap bench: {e}");
            return 1;
        }
    }
    if !want("throughput") {
        return 0;
    }

    // Records per second into the binary trace: the calling phase, timed
    // in the child, with nothing rendered (CLTAP_RENDER=0); then the API
    // log rendered from that trace. Discard: what is kept while the
    // renderer runs behind, and what is dropped.
    println!();
    println!("records per second into the binary trace ({} calls in all per row, lossless; no layer: the same calls' own rate, the ceiling; peak RSS over the same run without cltap)", a.throughput_calls);
    println!(
        "{:<18}{:<10}{:>14}{:>16}{:>8}{:>12}{:>14}{:>24}{:>22}",
        "call", "threads", "no layer", "lossless", "drops", "B/record", "peak RSS +", "discard (64K): kept", "dropped"
    );
    let mut last_trace = None;
    // clGetPlatformInfo (a size query) as in every earlier table; and
    // clSetKernelArg on a kernel per thread, the cheapest call a driver
    // serves without a lock, so that a driver whose clGetPlatformInfo
    // serialises its callers (NVIDIA's) does not hide cltap's own rate.
    for (call, spec, threads) in THROUGHPUT_ROWS.iter().flat_map(|(c, s)| [1u32, 2, 8].map(|t| (c, s, t))) {
        let per = (a.throughput_calls / threads as u64).max(1);
        let total = per * threads as u64;
        let what = format!("{spec}:{threads}:{per}");
        if threads == 1 && *spec == "kthreads" {
            // Untimed: the driver builds the kernel once and caches it
            // (PoCL, NVIDIA), so that no row's peak RSS is its compiler's.
            let _ = measure(&exe, &format!("{spec}:1:1"), &a.driver, None, &[], &out);
        }
        let base = match measure(&exe, &what, &a.driver, None, &[], &out) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("cltap bench: {e}");
                return 1;
            }
        };
        let _ = clean(&out);
        let traced = match measure(&exe, &what, &a.driver, Some(&layer), &[("CLTAP_RENDER", "0")], &out) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("cltap bench: {e}");
                return 1;
            }
        };
        let trace = only(&out, "cltrace");
        let per_record = trace.as_ref().and_then(|t| trace_size(t)).map(|s| format!("{:.1}", s.per_record()));
        let drops = trace
            .as_ref()
            .and_then(|t| cltap_formats::cltrace::Reader::open(t).ok())
            .map(|r| trace_drops(&r))
            .unwrap_or(u64::MAX);
        if threads == 8 && *spec == "threads" {
            if let Some(t) = &trace {
                let keep = scratch.0.join("kept.cltrace");
                if std::fs::rename(t, &keep).is_ok() {
                    last_trace = Some(keep);
                }
            }
        }
        let _ = clean(&out);
        let discard = measure(
            &exe,
            &what,
            &a.driver,
            Some(&layer),
            &[("CLTAP_BUFFER_POLICY", "discard"), ("CLTAP_BUFFER_SIZE", "64K")],
            &out,
        );
        let (kept, dropped) = trailer(&out).unwrap_or((0, 0));
        let _ = clean(&out);
        let rate = |n: u64, ns: u64| format!("{:.2} M/s", n as f64 / ns.max(1) as f64 * 1e3);
        let disc = match discard {
            Ok(m) => rate(kept, m.calling_ns),
            Err(_) => "failed".into(),
        };
        println!(
            "{call:<18}{threads:<10}{:>14}{:>16}{:>8}{:>12}{:>14}{:>24}{:>22}",
            rate(total, base.calling_ns),
            rate(total, traced.calling_ns),
            drops,
            per_record.unwrap_or_else(|| "-".into()),
            format!("{:+.1} MiB", (traced.peak_kib - base.peak_kib) as f64 / 1024.0),
            disc,
            dropped
        );
    }
    if let Some(t) = last_trace {
        render_rate::table(&exe, &a.driver, &t, &out);
        let _ = std::fs::remove_file(&t);
        let _ = clean(&out);
    }
    drop(scratch);
    0
}

/// The throughput loops: the call, and the child's spec for it.
const THROUGHPUT_ROWS: &[(&str, &str)] = &[("clGetPlatformInfo", "threads"), ("clSetKernelArg", "kthreads")];

/// The parts `--only` may name.
const PARTS: &[&str] = &["host", "calls", "stream", "throughput"];

/// The calls child's measurements: one `name value` per line (a call's
/// ns, `CALL.direct` for the driver's own entry, `rdtsc`).
fn readings(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(k, v)| (k.to_string(), v.parse().unwrap_or(f64::NAN)))
        .collect()
}

/// What each mode adds to each call, and the bytes per record of the trace
/// each mode wrote.
fn calls_table(spawn: &Spawn, layer: &Path, driver: &Path, iterations: u64, out: &Path) -> Result<(), String> {
    let mut ns: BTreeMap<(&str, String), f64> = BTreeMap::new();
    let mut sizes: BTreeMap<&str, Option<f64>> = BTreeMap::new();
    let mut direct: BTreeMap<(&str, String), f64> = BTreeMap::new();
    let mut clock: BTreeMap<&str, f64> = BTreeMap::new();
    for (mode, env) in MODES {
        let text = spawn("calls", env, *mode != "no layer", iterations).map_err(|e| format!("{mode}: {e}"))?;
        for (call, v) in readings(&text) {
            if let Some(call) = call.strip_suffix(".direct") {
                direct.insert((mode, call.to_string()), v);
            } else if call == "rdtsc" {
                clock.insert(mode, v);
            } else {
                ns.insert((mode, call), v);
            }
        }
        sizes.insert(mode, only(out, "cltrace").and_then(|t| trace_size(&t)).map(|s| s.per_record()));
        let _ = clean(out);
    }
    let calls: Vec<String> = ns.keys().filter(|(m, _)| *m == "no layer").map(|(_, c)| c.clone()).collect();
    println!("ns per call on {} (min over repetitions; added = over no layer)", driver.display());
    print!("{:<30}", "call");
    for (m, _) in MODES {
        print!("{:>20}", m);
    }
    println!();
    for c in &calls {
        print!("{c:<30}");
        let base = ns[&("no layer", c.clone())];
        for (m, _) in MODES {
            let v = ns[&(*m, c.clone())];
            if *m == "no layer" {
                print!("{:>20}", format!("{v:.1}"));
            } else {
                print!("{:>20}", format!("{v:.1} (+{:.1})", v - base));
            }
        }
        println!();
    }
    print!("{:<30}", "bytes per record (trace)");
    for (m, _) in MODES {
        print!("{:>20}", sizes.get(m).copied().flatten().map_or("-".to_string(), |b| format!("{b:.1}")));
    }
    println!();
    in_process(&ns, &direct, &clock);
    let base = ns
        .iter()
        .filter(|((m, _), _)| *m == "no layer")
        .map(|((m, c), v)| (c.clone(), (*v, direct.get(&(*m, c.clone())).map_or(f64::NAN, |d| v - d))))
        .collect();
    icd::icd_table(spawn, layer, driver, iterations, &base, out)
}

/// The same calls measured within each run: what the path from the
/// application to the driver adds over the driver's own entry, less what
/// it adds without a layer (the loader), each run's repetitions of the two
/// alternated; and each run's own 2 × `rdtsc` + 15 ns. Runs on a lent VM
/// differ by a third in speed, the driver's own calls too, so a difference
/// between two runs mixes their speeds; a difference within one does not.
fn in_process(ns: &BTreeMap<(&str, String), f64>, direct: &BTreeMap<(&str, String), f64>, clock: &BTreeMap<&str, f64>) {
    let calls: Vec<&String> = direct.keys().filter(|(m, _)| *m == "no layer").map(|(_, c)| c).collect();
    if calls.is_empty() {
        return;
    }
    println!();
    println!("the same within each run: the call over the driver's own entry (its dispatch slot, called alternately in the same process), less the same in the no-layer run (the loader's own)");
    let layered: Vec<&str> = MODES.iter().map(|(m, _)| *m).filter(|m| *m != "no layer").collect();
    print!("{:<30}", "call");
    for m in &layered {
        print!("{:>20}", m);
    }
    println!();
    let over = |m: &str, c: &String| {
        let key = (m, c.clone());
        ns.get(&key).zip(direct.get(&key)).map(|(a, b)| a - b)
    };
    for c in calls {
        print!("{c:<30}");
        let loader = over("no layer", c).unwrap_or(f64::NAN);
        for m in &layered {
            print!("{:>20}", over(m, c).map_or("-".to_string(), |v| format!("{:+.1}", v - loader)));
        }
        println!();
    }
    print!("{:<30}", "2 x rdtsc + 15, this run");
    for m in &layered {
        print!("{:>20}", clock.get(m).map_or("-".to_string(), |t| format!("{:.1}", 2.0 * t + 15.0)));
    }
    println!();
    // Each run's speed, in the driver's own cheapest call: on the lent hosts
    // a whole process now and then runs about a third slower, its clock
    // reads and the driver's calls alike, and a recorded call by more.
    let pace = "clSetKernelArg".to_string();
    print!("{:<30}", "driver's clSetKernelArg");
    for m in &layered {
        print!("{:>20}", direct.get(&(*m, pace.clone())).map_or("-".to_string(), |t| format!("{t:.1}")));
    }
    println!();
}

/// The host's floor: the clock every record reads twice, and the trace
/// folder's own sequential write rate.
fn host_floor(out: &Path, disk_mib: u64) {
    println!("host floor");
    match host::rdtsc_ns() {
        Some(t) => {
            println!("{:<40}{:>10.1} ns", "rdtsc (one read)", t);
            println!("{:<40}{:>10.1} ns", "2 x rdtsc (every record pays two)", 2.0 * t);
        }
        None => println!("{:<40}{:>10}", "rdtsc", "n/a (not x86-64)"),
    }
    if disk_mib > 0 {
        let fs = host::filesystem(out).unwrap_or_else(|| "?".into());
        let label = format!("sequential write, {disk_mib} MiB + fdatasync");
        match host::disk_mb_per_s(out, disk_mib) {
            Ok(r) => println!("{label:<40}{:>10.0} MB/s  ({}, {fs})", r, out.display()),
            Err(e) => println!("{label:<40}{:>10}  ({}: {e})", "failed", out.display()),
        }
    }
    println!();
}

/// The modes of the stream of small kernels.
const STREAM_MODES: &[(&str, &[(&str, &str)])] = &[
    ("no layer", &[]),
    ("device timing", &[("CLTAP_API_LOG", "0"), ("CLTAP_DEVICE_TIMING", "1")]),
    ("API log", &[]),
    ("API log + device timing", &[("CLTAP_DEVICE_TIMING", "1")]),
];

type Spawn<'a> = dyn Fn(&str, &[(&str, &str)], bool, u64) -> Result<String, String> + 'a;

/// The application's enqueue rate with the device running: `n` small
/// NDRanges back to back then one clFinish, host µs per enqueue, without
/// and with an event asked for by the application.
fn stream_table(spawn: &Spawn, n: u64, out: &Path) -> Result<(), String> {
    println!();
    println!(
        "stream of {n} small kernels ({} work-items each) back to back, then one clFinish: host µs per enqueue, clFinish included (min of 7 after a warm-up)",
        child::STREAM_ITEMS
    );
    println!("{:<30}{:>20}{:>20}", "mode", "no app event", "app event");
    let us_of = |events: &str, env: &[(&str, &str)], layered: bool| -> Result<f64, String> {
        let text = spawn(&format!("stream:{n}:{events}"), env, layered, 0)?;
        let _ = clean(out);
        text.lines()
            .find_map(|l| l.strip_prefix("stream "))
            .and_then(|v| v.trim().parse::<f64>().ok())
            .map(|ns| ns / 1000.0)
            .ok_or_else(|| "no timing from the child".to_string())
    };
    let mut base = [f64::NAN; 2];
    let mut timing = [f64::NAN; 2];
    for (mode, env) in STREAM_MODES {
        print!("{mode:<30}");
        for (i, ev) in ["none", "event"].iter().enumerate() {
            let us = us_of(ev, env, *mode != "no layer").map_err(|e| format!("{mode}: {e}"))?;
            if *mode == "no layer" {
                base[i] = us;
                print!("{:>20}", format!("{us:.2}"));
            } else {
                if *mode == "device timing" {
                    timing[i] = us;
                }
                print!("{:>20}", format!("{us:.2} ({:+.2})", us - base[i]));
            }
        }
        println!();
    }
    // Device times come from OpenCL events on a profiling queue: what the
    // driver charges for those, with no layer, is the floor of any tool
    // that reads them, and what device timing adds beyond it is cltap's.
    println!(
        "the driver's own profiled events, no layer (a profiling queue, an event per enqueue, released after the clFinish untimed, or read as device timing reads them and released, timed):"
    );
    let mut floor = f64::NAN;
    for (label, ev) in [("  unread", "profiled"), ("  read", "read")] {
        floor = us_of(ev, &[], false).map_err(|e| format!("profiled events: {e}"))?;
        println!("{label:<30}{:>20}", format!("{floor:.2} ({:+.2})", floor - base[0]));
    }
    println!(
        "{:<30}{:>20}{:>20}",
        "device timing over read",
        format!("{:+.2}", timing[0] - floor),
        format!("{:+.2}", timing[1] - floor)
    );
    Ok(())
}

/// A trace's size on disk and the records it holds.
struct TraceSize {
    bytes: u64,
    records: u64,
}

impl TraceSize {
    fn per_record(&self) -> f64 {
        self.bytes as f64 / self.records.max(1) as f64
    }
}

/// The trace file's size over the records it holds (counted by walking it).
fn trace_size(path: &Path) -> Option<TraceSize> {
    let bytes = std::fs::metadata(path).ok()?.len();
    let r = cltap_formats::cltrace::Reader::open(path).ok()?;
    let mut records = 0u64;
    let mut buf = Vec::new();
    for c in r.chunks().ok()? {
        r.chunk_bytes(&c, &mut buf).ok()?;
        r.walk(&c, &buf, |_| records += 1).ok()?;
    }
    (records > 0).then_some(TraceSize { bytes, records })
}

/// A measuring child's account: its calling phase, its peak memory and its
/// CPU time.
struct Measured {
    calling_ns: u64,
    peak_kib: i64,
    /// The child's CPU time, all its threads: in user mode, in the kernel.
    user: Duration,
    kernel: Duration,
}

/// A `timeval` of `rusage` as a duration.
fn duration(t: libc::timeval) -> Duration {
    Duration::new(t.tv_sec.max(0) as u64, (t.tv_usec.max(0) as u32).saturating_mul(1000))
}

fn measure(
    exe: &Path,
    what: &str,
    driver: &Path,
    layer: Option<&Path>,
    env: &[(&str, &str)],
    out: &Path,
) -> Result<Measured, String> {
    let mut c = Command::new(exe);
    c.args(["bench", "--child", what, "--iterations", "0"]);
    for (k, _) in std::env::vars() {
        if k.starts_with("CLTAP_") || k.starts_with("OCL_ICD") || k == "OPENCL_LAYERS" {
            c.env_remove(k);
        }
    }
    c.env("OCL_ICD_VENDORS", driver).env("OCL_ICD_FILENAMES", driver).env("CLTAP_OUTPUT_DIR", out);
    if let Some(l) = layer {
        c.env("OPENCL_LAYERS", l);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let mut text = String::new();
    use std::io::Read;
    let _ = stdout.read_to_string(&mut text);
    let (status, ru) = reap(child);
    if status != Some(0) {
        return Err(format!("{what}: the measuring child failed ({status:?})"));
    }
    let calling_ns = text
        .lines()
        .find_map(|l| l.strip_prefix("calling_ns "))
        .and_then(|v| v.trim().parse().ok())
        .ok_or("no timing from the child")?;
    Ok(Measured { calling_ns, peak_kib: ru.ru_maxrss, user: duration(ru.ru_utime), kernel: duration(ru.ru_stime) })
}

/// Waits for `child` with `wait4`, which also gives its resource use (peak
/// RSS, CPU time): its raw wait status (`None` if the wait failed) and that.
fn reap(child: std::process::Child) -> (Option<i32>, libc::rusage) {
    let mut status = 0;
    // SAFETY: a plain struct, filled by wait4.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: our own child, not yet reaped (`Child` is dropped unwaited,
    // which neither waits nor kills).
    let r = loop {
        let r = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut ru) };
        if r >= 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            break r;
        }
    };
    (if r < 0 { None } else { Some(status) }, ru)
}

/// Records dropped, as the trace counts them.
fn trace_drops(r: &cltap_formats::cltrace::Reader) -> u64 {
    r.header.drops + r.chunks().map(|c| c.iter().map(|c| c.header.drops).sum::<u64>()).unwrap_or(0)
}

fn only(dir: &Path, ext: &str) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == ext))
}

fn clean(dir: &Path) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        std::fs::remove_file(e?.path())?;
    }
    Ok(())
}

/// (records, dropped) from the trailer of the API log in `dir` (its last
/// line: only the file's end is read, the log may be gigabytes).
fn trailer(dir: &Path) -> Option<(u64, u64)> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(only(dir, "apilog")?).ok()?;
    let len = f.metadata().ok()?.len();
    f.seek(SeekFrom::Start(len.saturating_sub(4096))).ok()?;
    let mut tail = Vec::new();
    f.read_to_end(&mut tail).ok()?;
    let text = String::from_utf8_lossy(&tail);
    let last = text.lines().last()?;
    let n: Vec<u64> = last.split(|c: char| !c.is_ascii_digit()).filter_map(|s| s.parse().ok()).collect();
    Some((*n.first()?, *n.get(1)?))
}
