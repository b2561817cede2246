//! `cltap bench`: what cltap adds to each call, and how many records per
//! second reach the file, measured on a real driver. The parent runs copies
//! of itself with the layer configured each way; each copy loads the system's
//! libOpenCL, times the calls, and reports back one line per measurement.

use clap::Args;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

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
    #[arg(long, hide = true)]
    pub child: Option<String>,
}

/// The modes compared, and the environment each sets.
const MODES: &[(&str, &[(&str, &str)])] = &[
    ("no layer", &[]),
    ("pass-through", &[("CLTAP_API_LOG", "0")]),
    ("trace only", &[("CLTAP_RENDER", "0")]),
    ("API log", &[]),
    ("API log + decode", &[("CLTAP_LOG_DECODE", "1")]),
    ("API log, discard", &[("CLTAP_BUFFER_POLICY", "discard")]),
    ("device timing", &[("CLTAP_API_LOG", "0"), ("CLTAP_DEVICE_TIMING", "1")]),
];

pub fn run(a: BenchArgs) -> i32 {
    if let Some(what) = &a.child {
        return match child(what, a.iterations) {
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

    // Per-call cost.
    let mut ns: BTreeMap<(&str, String), f64> = BTreeMap::new();
    for (mode, env) in MODES {
        let text = match spawn("calls", env, *mode != "no layer", a.iterations) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("cltap bench: {mode}: {e}");
                return 1;
            }
        };
        for l in text.lines() {
            if let Some((call, v)) = l.split_once(' ') {
                ns.insert((mode, call.to_string()), v.parse().unwrap_or(f64::NAN));
            }
        }
        let _ = clean(&out);
    }
    let calls: Vec<String> = ns.keys().filter(|(m, _)| *m == "no layer").map(|(_, c)| c.clone()).collect();
    println!("ns per call on {} (min over repetitions; added = over no layer)", a.driver.display());
    print!("{:<26}", "call");
    for (m, _) in MODES {
        print!("{:>20}", m);
    }
    println!();
    for c in &calls {
        print!("{c:<26}");
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

    // Records per second into the binary trace: the calling phase, timed
    // in the child, with nothing rendered (CLTAP_RENDER=0); then the API
    // log rendered from that trace. Discard: what is kept while the
    // renderer runs behind, and what is dropped.
    println!();
    println!("records per second into the binary trace ({} calls in all per row, lossless; peak RSS over the same run without cltap)", a.throughput_calls);
    println!(
        "{:<10}{:>16}{:>8}{:>14}{:>24}{:>22}",
        "threads", "lossless", "drops", "peak RSS +", "discard (64K): kept", "dropped"
    );
    let mut last_trace = None;
    for threads in [1u32, 2, 8] {
        let per = (a.throughput_calls / threads as u64).max(1);
        let total = per * threads as u64;
        let what = format!("threads:{threads}:{per}");
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
        let drops = trace
            .as_ref()
            .and_then(|t| cltap_formats::cltrace::Reader::open(t).ok())
            .map(|r| trace_drops(&r))
            .unwrap_or(u64::MAX);
        if threads == 8 {
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
            "{threads:<10}{:>16}{:>8}{:>14}{:>24}{:>22}",
            rate(total, traced.calling_ns),
            drops,
            format!("{:+.1} MiB", (traced.peak_kib - base.peak_kib) as f64 / 1024.0),
            disc,
            dropped
        );
    }
    if let Some(t) = last_trace {
        println!();
        println!("rendering the API log from the 8-thread trace (cltap render), records per second");
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        for threads in [1, cores] {
            let t0 = Instant::now();
            let o = Command::new(&exe)
                .args(["render", "--threads", &threads.to_string(), "--output"])
                .arg(&out)
                .arg(&t)
                .output();
            let secs = t0.elapsed().as_secs_f64();
            let n = trailer(&out).map(|(k, _)| k).unwrap_or(0);
            let label = if threads == 1 { "1 thread".to_string() } else { format!("{threads} threads (all cores)") };
            match o {
                Ok(o) if o.status.success() => {
                    println!("{label:<26}{:>12}", format!("{:.2} M/s", n as f64 / secs / 1e6))
                }
                _ => println!("{label:<26}{:>12}", "failed"),
            }
            let _ = clean(&out);
        }
        let _ = std::fs::remove_file(&t);
        let _ = clean(&out);
    }
    drop(scratch);
    0
}

/// A measuring child's account: its calling phase and its peak memory.
struct Measured {
    calling_ns: u64,
    peak_kib: i64,
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
    let child = c
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let pid = child.id() as i32;
    let mut stdout = child.stdout.ok_or("no stdout")?;
    let mut text = String::new();
    use std::io::Read;
    let _ = stdout.read_to_string(&mut text);
    let mut status = 0;
    // SAFETY: our own child; wait4 fills the structs.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    if status != 0 {
        return Err(format!("{what}: the measuring child failed ({status})"));
    }
    let calling_ns = text
        .lines()
        .find_map(|l| l.strip_prefix("calling_ns "))
        .and_then(|v| v.trim().parse().ok())
        .ok_or("no timing from the child")?;
    Ok(Measured { calling_ns, peak_kib: ru.ru_maxrss })
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

/// (records, dropped) from the trailer of the API log in `dir`.
fn trailer(dir: &Path) -> Option<(u64, u64)> {
    let f = only(dir, "apilog")?;
    let text = std::fs::read_to_string(f).ok()?;
    let last = text.lines().last()?;
    let n: Vec<u64> = last.split(|c: char| !c.is_ascii_digit()).filter_map(|s| s.parse().ok()).collect();
    Some((*n.first()?, *n.get(1)?))
}

// ---- The measuring child ----

type Fp = *const std::ffi::c_void;

struct Cl {
    _lib: libloading::Library,
    get_platform_ids: unsafe extern "C" fn(u32, *mut Fp, *mut u32) -> i32,
    get_platform_info: unsafe extern "C" fn(Fp, u32, usize, *mut u8, *mut usize) -> i32,
    get_device_ids: unsafe extern "C" fn(Fp, u64, u32, *mut Fp, *mut u32) -> i32,
    create_context: unsafe extern "C" fn(Fp, u32, *const Fp, Fp, Fp, *mut i32) -> Fp,
    create_queue: unsafe extern "C" fn(Fp, Fp, u64, *mut i32) -> Fp,
    create_program: unsafe extern "C" fn(Fp, u32, *const *const u8, *const usize, *mut i32) -> Fp,
    build_program: unsafe extern "C" fn(Fp, u32, *const Fp, *const u8, Fp, Fp) -> i32,
    create_kernel: unsafe extern "C" fn(Fp, *const u8, *mut i32) -> Fp,
    create_buffer: unsafe extern "C" fn(Fp, u64, usize, Fp, *mut i32) -> Fp,
    set_kernel_arg: unsafe extern "C" fn(Fp, u32, usize, *const std::ffi::c_void) -> i32,
    enqueue_ndrange:
        unsafe extern "C" fn(Fp, Fp, u32, *const usize, *const usize, *const usize, u32, Fp, *mut Fp) -> i32,
    finish: unsafe extern "C" fn(Fp) -> i32,
    create_user_event: unsafe extern "C" fn(Fp, *mut i32) -> Fp,
    set_user_event_status: unsafe extern "C" fn(Fp, i32) -> i32,
    release_event: unsafe extern "C" fn(Fp) -> i32,
    get_event_info: unsafe extern "C" fn(Fp, u32, usize, *mut u8, *mut usize) -> i32,
}

macro_rules! sym {
    ($lib:expr, $name:literal) => {
        *$lib.get(concat!($name, "\0").as_bytes()).map_err(|e| format!("{}: {e}", $name))?
    };
}

impl Cl {
    fn load() -> Result<Cl, String> {
        unsafe {
            let lib = libloading::Library::new("libOpenCL.so.1").map_err(|e| e.to_string())?;
            Ok(Cl {
                get_platform_ids: sym!(lib, "clGetPlatformIDs"),
                get_platform_info: sym!(lib, "clGetPlatformInfo"),
                get_device_ids: sym!(lib, "clGetDeviceIDs"),
                create_context: sym!(lib, "clCreateContext"),
                create_queue: sym!(lib, "clCreateCommandQueue"),
                create_program: sym!(lib, "clCreateProgramWithSource"),
                build_program: sym!(lib, "clBuildProgram"),
                create_kernel: sym!(lib, "clCreateKernel"),
                create_buffer: sym!(lib, "clCreateBuffer"),
                set_kernel_arg: sym!(lib, "clSetKernelArg"),
                enqueue_ndrange: sym!(lib, "clEnqueueNDRangeKernel"),
                finish: sym!(lib, "clFinish"),
                create_user_event: sym!(lib, "clCreateUserEvent"),
                set_user_event_status: sym!(lib, "clSetUserEventStatus"),
                release_event: sym!(lib, "clReleaseEvent"),
                get_event_info: sym!(lib, "clGetEventInfo"),
                _lib: lib,
            })
        }
    }
}

/// Minimum over repetitions of the mean ns per call: the least disturbed
/// estimate on a shared, noisy machine.
fn time(reps: usize, n: u64, mut f: impl FnMut()) -> f64 {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..n {
                f();
            }
            t.elapsed().as_nanos() as f64 / n as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn child(what: &str, iterations: u64) -> Result<(), String> {
    let cl = Cl::load()?;
    let mut p: Fp = std::ptr::null();
    unsafe {
        if (cl.get_platform_ids)(1, &mut p, std::ptr::null_mut()) != 0 {
            return Err("no platform".into());
        }
    }
    if let Some(rest) = what.strip_prefix("threads:") {
        let (t, n) = rest.split_once(':').ok_or("bad threads spec")?;
        let (t, n): (u32, u64) = (t.parse().map_err(|_| "bad threads")?, n.parse().map_err(|_| "bad count")?);
        let f = cl.get_platform_info;
        let pp = p as usize;
        let start = Instant::now();
        let hs: Vec<_> = (0..t)
            .map(|_| {
                std::thread::spawn(move || {
                    let mut sz = 0usize;
                    for _ in 0..n {
                        unsafe { f(pp as Fp, 0x0902, 0, std::ptr::null_mut(), &mut sz) };
                    }
                })
            })
            .collect();
        for h in hs {
            let _ = h.join();
        }
        println!("calling_ns {}", start.elapsed().as_nanos());
        return Ok(());
    }
    unsafe {
        let mut dev: Fp = std::ptr::null();
        (cl.get_device_ids)(p, u64::MAX, 1, &mut dev, std::ptr::null_mut());
        let mut err = 0;
        let ctx = (cl.create_context)(std::ptr::null(), 1, &dev, std::ptr::null(), std::ptr::null(), &mut err);
        let q = (cl.create_queue)(ctx, dev, 0, &mut err);
        let src = b"__kernel void k(__global int* a, int b) { a[get_global_id(0)] += b; }\0";
        let sp = src.as_ptr();
        let prog = (cl.create_program)(ctx, 1, &sp, std::ptr::null(), &mut err);
        (cl.build_program)(prog, 1, &dev, c"".as_ptr() as *const u8, std::ptr::null(), std::ptr::null());
        let k = (cl.create_kernel)(prog, c"k".as_ptr() as *const u8, &mut err);
        let buf = (cl.create_buffer)(ctx, 1, 4096, std::ptr::null(), &mut err);
        (cl.set_kernel_arg)(k, 0, 8, &buf as *const Fp as *const std::ffi::c_void);
        let ev = (cl.create_user_event)(ctx, &mut err);
        if err != 0 || k.is_null() || ev.is_null() {
            return Err(format!("setting up the benchmark failed ({err})"));
        }
        let mut name = [0u8; 64];
        let mut sz = 0usize;
        let v: i32 = 3;
        let mut st = 0i32;
        let reps = 7;
        let r = time(reps, iterations, || {
            (cl.get_platform_info)(p, 0x0902, name.len(), name.as_mut_ptr(), &mut sz);
        });
        println!("clGetPlatformInfo {r}");
        let r = time(reps, iterations, || {
            (cl.set_kernel_arg)(k, 1, 4, &v as *const i32 as *const std::ffi::c_void);
        });
        println!("clSetKernelArg {r}");
        let r = time(reps, iterations, || {
            (cl.get_event_info)(ev, 0x11D3, 4, &mut st as *mut i32 as *mut u8, std::ptr::null_mut());
        });
        println!("clGetEventInfo {r}");
        // Enqueues are timed in batches held back by a user event, so that
        // nothing runs (and no driver thread wakes) while the calls are
        // timed; the batch then runs and the queue drains, untimed. More
        // repetitions than for the cheap calls: an enqueue on a 2-core VM
        // varies by ±500 ns.
        let g = 64usize;
        let (batch, batches) = (100usize, (iterations / 2000).max(10));
        let enqueues = |queue: Fp, events: bool| {
            let mut err = 0;
            let mut evs: Vec<Fp> = vec![std::ptr::null(); batch];
            (0..3 * reps)
                .map(|_| {
                    let mut ns = 0u128;
                    for _ in 0..batches {
                        let gate = (cl.create_user_event)(ctx, &mut err);
                        let t = Instant::now();
                        for e in evs.iter_mut() {
                            let out = if events { e as *mut Fp } else { std::ptr::null_mut() };
                            (cl.enqueue_ndrange)(
                                queue,
                                k,
                                1,
                                std::ptr::null(),
                                &g,
                                std::ptr::null(),
                                1,
                                &gate as *const Fp as Fp,
                                out,
                            );
                        }
                        ns += t.elapsed().as_nanos();
                        (cl.set_user_event_status)(gate, 0);
                        (cl.finish)(queue);
                        (cl.release_event)(gate);
                        for e in evs.iter_mut().filter(|e| !e.is_null()) {
                            (cl.release_event)(*e);
                            *e = std::ptr::null();
                        }
                    }
                    ns as f64 / (batch as u64 * batches) as f64
                })
                .fold(f64::INFINITY, f64::min)
        };
        let r = enqueues(q, false);
        println!("clEnqueueNDRangeKernel {r}");
        // What an application that profiles by itself pays: its own event on
        // a profiling queue (the driver's share of device timing).
        let qp = (cl.create_queue)(ctx, dev, 2, &mut err);
        let r = enqueues(qp, true);
        println!("clEnqueueNDRangeKernel+profiling,event {r}");
    }
    Ok(())
}
