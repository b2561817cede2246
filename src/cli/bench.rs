//! `cltap bench`: what cltap adds to each call, and how many records per
//! second reach the file, measured on a real driver. The parent runs copies
//! of itself with the layer configured each way; each copy loads the system's
//! libOpenCL, times the calls, and reports back one line per measurement.

use clap::Args;
use std::collections::BTreeMap;
use std::path::PathBuf;
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
    /// Calls per thread in the throughput runs.
    #[arg(long, default_value_t = 200_000)]
    pub throughput_calls: u64,
    #[arg(long, hide = true)]
    pub child: Option<String>,
}

/// The modes compared, and the environment each sets.
const MODES: &[(&str, &[(&str, &str)])] = &[
    ("no layer", &[]),
    ("pass-through", &[("CLTAP_API_LOG", "0")]),
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
    let out = std::env::temp_dir().join(format!("cltap-bench-{}", std::process::id()));
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

    // Records per second to the file, with the exit flush included.
    println!();
    println!("records per second to the file ({} calls per thread, flush at exit included)", a.throughput_calls);
    println!("{:<10}{:>18}{:>18}{:>26}", "threads", "lossless", "discard (64K)", "discard: kept / dropped");
    // Lossless: records written per second. Discard: calls absorbed per
    // second, most of them dropped, which is the point of that policy.
    for threads in [1u32, 2, 8] {
        let what = format!("threads:{threads}");
        let t0 = Instant::now();
        let empty = spawn(&format!("threads:{threads}:0"), &[], true, 0);
        let base = t0.elapsed().as_secs_f64();
        let _ = (empty, clean(&out));
        let mut row = format!("{threads:<10}");
        let mut drops = String::new();
        for env in [&[][..], &[("CLTAP_BUFFER_POLICY", "discard"), ("CLTAP_BUFFER_SIZE", "64K")][..]] {
            let t = Instant::now();
            if let Err(e) = spawn(&format!("{what}:{}", a.throughput_calls), env, true, 0) {
                eprintln!("cltap bench: {e}");
                return 1;
            }
            let secs = (t.elapsed().as_secs_f64() - base).max(1e-6);
            let total = threads as u64 * a.throughput_calls + 1;
            let (kept, dropped) = trailer(&out).unwrap_or((0, 0));
            row += &format!("{:>18}", format!("{:.2} M/s", total as f64 / secs / 1e6));
            if !env.is_empty() {
                drops = format!("{kept} / {dropped}");
            }
            let _ = clean(&out);
        }
        println!("{row}{drops:>26}");
    }
    let _ = std::fs::remove_dir_all(&out);
    0
}

fn clean(dir: &PathBuf) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        std::fs::remove_file(e?.path())?;
    }
    Ok(())
}

/// (records, dropped) from the trailer of the one log in `dir`.
fn trailer(dir: &PathBuf) -> Option<(u64, u64)> {
    let f = std::fs::read_dir(dir).ok()?.next()?.ok()?.path();
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
    enqueue_ndrange: unsafe extern "C" fn(Fp, Fp, u32, *const usize, *const usize, *const usize, u32, Fp, *mut Fp) -> i32,
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
                            (cl.enqueue_ndrange)(queue, k, 1, std::ptr::null(), &g, std::ptr::null(), 1, &gate as *const Fp as Fp, out);
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
