//! The measuring child of `cltap bench`: it loads the system's libOpenCL
//! (with the layer configured by its parent's environment, or none), times
//! the calls it is told to, and prints one line per measurement.

use cltap::devtime::cl::CL_EVENT_COMMAND_EXECUTION_STATUS;
use std::time::Instant;

mod stream;
pub use stream::STREAM_ITEMS;
use stream::{stream, StreamEvents};

type Fp = *const std::ffi::c_void;

struct Cl {
    _lib: libloading::Library,
    get_platform_ids: unsafe extern "C" fn(u32, *mut Fp, *mut u32) -> i32,
    get_platform_info: unsafe extern "C" fn(Fp, u32, usize, *mut u8, *mut usize) -> i32,
    get_device_ids: unsafe extern "C" fn(Fp, u64, u32, *mut Fp, *mut u32) -> i32,
    get_device_info: unsafe extern "C" fn(Fp, u32, usize, *mut u8, *mut usize) -> i32,
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
    get_event_profiling_info: unsafe extern "C" fn(Fp, u32, usize, *mut u8, *mut usize) -> i32,
}

/// Each entry point's name and its slot in an ICD dispatch table, in the
/// order of `Cl`'s fields (the Khronos ICD table's order, a stable ABI).
const ENTRIES: [(&str, usize); 18] = [
    ("clGetPlatformIDs", 0),
    ("clGetPlatformInfo", 1),
    ("clGetDeviceIDs", 2),
    ("clGetDeviceInfo", 3),
    ("clCreateContext", 4),
    ("clCreateCommandQueue", 9),
    ("clCreateProgramWithSource", 26),
    ("clBuildProgram", 30),
    ("clCreateKernel", 34),
    ("clCreateBuffer", 14),
    ("clSetKernelArg", 38),
    ("clEnqueueNDRangeKernel", 59),
    ("clFinish", 47),
    ("clCreateUserEvent", 84),
    ("clSetUserEventStatus", 85),
    ("clReleaseEvent", 44),
    ("clGetEventInfo", 42),
    ("clGetEventProfilingInfo", 45),
];

/// An entry point's address as the function type its field spells out.
///
/// # Safety
/// `p` is the address of a function whose C prototype is `F` (a function pointer type).
unsafe fn as_fn<F: Copy>(p: Fp) -> F {
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<Fp>());
    // SAFETY: `transmute_copy`'s # Safety follows from this fn's.
    unsafe { std::mem::transmute_copy(&p) }
}

impl Cl {
    /// The entry points `get` finds (by name and slot), with `lib` kept
    /// loaded as long as they are used.
    fn with(lib: libloading::Library, mut get: impl FnMut(&str, usize) -> Result<Fp, String>) -> Result<Cl, String> {
        let mut f = ENTRIES.iter().map(|&(name, slot)| {
            let p = get(name, slot)?;
            if p.is_null() {
                return Err(format!("{name}: no entry point"));
            }
            Ok(p)
        });
        let mut next = || f.next().expect("one entry per field");
        // SAFETY: each pointer is the named entry point, whose C type the
        // field spells out.
        unsafe {
            Ok(Cl {
                get_platform_ids: as_fn(next()?),
                get_platform_info: as_fn(next()?),
                get_device_ids: as_fn(next()?),
                get_device_info: as_fn(next()?),
                create_context: as_fn(next()?),
                create_queue: as_fn(next()?),
                create_program: as_fn(next()?),
                build_program: as_fn(next()?),
                create_kernel: as_fn(next()?),
                create_buffer: as_fn(next()?),
                set_kernel_arg: as_fn(next()?),
                enqueue_ndrange: as_fn(next()?),
                finish: as_fn(next()?),
                create_user_event: as_fn(next()?),
                set_user_event_status: as_fn(next()?),
                release_event: as_fn(next()?),
                get_event_info: as_fn(next()?),
                get_event_profiling_info: as_fn(next()?),
                _lib: lib,
            })
        }
    }

    /// The system's `libOpenCL.so.1`, and any layer its loader puts first.
    fn load() -> Result<Cl, String> {
        // SAFETY: loading the OpenCL loader runs no code of the application's.
        let lib = unsafe { libloading::Library::new("libOpenCL.so.1") }.map_err(|e| e.to_string())?;
        let syms = |name: &str, _| -> Result<Fp, String> {
            let name = std::ffi::CString::new(name).expect("no NUL in a name");
            // SAFETY: looks a symbol up; nothing is called.
            unsafe { lib.get::<Fp>(name.as_bytes_with_nul()).map(|s| *s).map_err(|e| format!("{name:?}: {e}")) }
        };
        let mut found = ENTRIES.iter().map(|&(n, s)| syms(n, s)).collect::<Result<Vec<_>, _>>()?.into_iter();
        Cl::with(lib, |_, _| Ok(found.next().expect("one per entry")))
    }

    /// A driver library loaded by itself, as an ICD loader loads it: its
    /// first platform, and the entry points of that platform's dispatch
    /// table (every object of an ICD driver shares one). In ICD mode the
    /// application's objects are cltap's, so the driver's own entry is
    /// timed on objects made here, in the same process.
    fn driver(path: &str) -> Result<(Cl, Fp), String> {
        // SAFETY: the driver library, which the ICD loader also loads.
        let lib = unsafe { libloading::Library::new(path) }.map_err(|e| format!("{path}: {e}"))?;
        // SAFETY: the ICD extension's entry points, called as the ICD
        // loader calls them.
        unsafe {
            let gefa: libloading::Symbol<unsafe extern "C" fn(*const u8) -> Fp> =
                lib.get(b"clGetExtensionFunctionAddress\0").map_err(|e| format!("{path}: {e}"))?;
            let icd = gefa(c"clIcdGetPlatformIDsKHR".as_ptr() as *const u8);
            if icd.is_null() {
                return Err(format!("{path}: no clIcdGetPlatformIDsKHR"));
            }
            let icd: unsafe extern "C" fn(u32, *mut Fp, *mut u32) -> i32 = as_fn(icd);
            let mut p: Fp = std::ptr::null();
            if icd(1, &mut p, std::ptr::null_mut()) != 0 || p.is_null() {
                return Err(format!("{path}: no platform"));
            }
            let cl = Cl::with(lib, |name, slot| match name {
                "clGetPlatformIDs" => Ok(icd as Fp),
                _ => Ok(cltap::icd_table::object_slot(p as *mut std::ffi::c_void, slot) as Fp),
            })?;
            Ok((cl, p))
        }
    }
}

/// The mean ns per call of `n` calls of `f`.
fn once<R>(n: u64, f: &mut impl FnMut() -> R) -> f64 {
    let t = Instant::now();
    for _ in 0..n {
        std::hint::black_box(f());
    }
    t.elapsed().as_nanos() as f64 / n as f64
}

/// The least mean ns per call over `reps` repetitions (the least disturbed
/// estimate on a shared, noisy machine) of a call made through the loader
/// (and any layer) and of the driver's own entry that the object's
/// dispatch table holds, their repetitions alternated: a process whose CPU
/// runs slower (the lent VMs' runs differ by a third, the same for every
/// call) slows both, so their difference is what the path from the
/// application to the driver costs in this run.
fn time_pair<R>(reps: usize, n: u64, through: impl FnMut() -> R, direct: impl FnMut() -> R) -> (f64, f64) {
    let mut pair = Pair::new("", n, through, direct);
    interleaved(reps, std::slice::from_mut(&mut pair));
    (pair.best.0, pair.best.1)
}

/// One call timed through the loader and at the driver's own entry, each
/// timing `n` calls, with the least of each so far.
struct Pair<'a> {
    name: &'static str,
    through: Box<dyn FnMut() -> f64 + 'a>,
    direct: Box<dyn FnMut() -> f64 + 'a>,
    best: (f64, f64),
}

impl<'a> Pair<'a> {
    fn new<R>(
        name: &'static str,
        n: u64,
        mut through: impl FnMut() -> R + 'a,
        mut direct: impl FnMut() -> R + 'a,
    ) -> Self {
        // The loop over `n` calls is inside each box: one indirect call per
        // repetition, none per call.
        Pair {
            name,
            through: Box::new(move || once(n, &mut through)),
            direct: Box::new(move || once(n, &mut direct)),
            best: (f64::INFINITY, f64::INFINITY),
        }
    }
}

/// Times every pair `reps` times, a repetition of each in turn: a
/// disturbance of the host that lasts a while (another process, the
/// kernel writing a trace back) then costs one repetition of many calls,
/// not every repetition of one call.
fn interleaved(reps: usize, pairs: &mut [Pair]) {
    for _ in 0..reps {
        for p in pairs.iter_mut() {
            p.best = (p.best.0.min((p.through)()), p.best.1.min((p.direct)()));
        }
    }
}

/// The slot of entry point `name` in the ICD dispatch table
/// (`struct _cl_icd_dispatch`, fixed by the Khronos ICD ABI).
fn slot(name: &str) -> usize {
    ENTRIES.iter().find(|e| e.0 == name).expect("a listed entry point").1
}

/// The driver's own entry for dispatch slot `slot` of `obj`.
///
/// # Safety
/// `obj` is a live OpenCL object of an ICD driver.
unsafe fn driver_entry<F: Copy>(obj: Fp, slot: usize) -> Result<F, String> {
    // SAFETY: `object_slot` needs the object to be a live ICD object, its dispatch table first, as this fn's own
    // contract gives: `obj` is a live OpenCL object of an ICD driver (# Safety).
    let f = unsafe { cltap::icd_table::object_slot(obj as *mut std::ffi::c_void, slot) };
    if f.is_null() {
        return Err(format!("the driver's dispatch slot {slot} is empty"));
    }
    // SAFETY: `as_fn`'s # Safety follows from this fn's.
    Ok(unsafe { as_fn(f as Fp) })
}

pub fn child(what: &str, iterations: u64) -> Result<(), String> {
    // `write:BYTES:PATH`: the kernel's write of a log's bytes alone, no
    // OpenCL (the rendering rows' last).
    if let Some(rest) = what.strip_prefix("write:") {
        let (bytes, path) = rest.split_once(':').ok_or("bad write spec")?;
        let bytes: u64 = bytes.parse().map_err(|_| "bad byte count")?;
        return super::render_rate::write_file(std::path::Path::new(path), bytes);
    }
    // `calls-driver:PATH`: the cheap calls, with the driver's own entries
    // timed on objects made on the driver at PATH, loaded by itself (ICD
    // mode, where the loader's objects are cltap's).
    let (what, own_driver) = match what.strip_prefix("calls-driver:") {
        Some(path) => ("calls", Some(path)),
        None => (what, None),
    };
    let cl = Cl::load()?;
    let mut p: Fp = std::ptr::null();
    unsafe {
        if (cl.get_platform_ids)(1, &mut p, std::ptr::null_mut()) != 0 {
            return Err("no platform".into());
        }
    }
    if let Some(rest) = what.strip_prefix("stream:") {
        let (n, events) = rest.split_once(':').ok_or("bad stream spec")?;
        let n: usize = n.parse().map_err(|_| "bad stream count")?;
        let events = match events {
            "none" => StreamEvents::None,
            "event" => StreamEvents::App,
            "profiled" => StreamEvents::Profiled,
            "read" => StreamEvents::ProfiledRead,
            _ => return Err(format!("bad stream events: {events}")),
        };
        // SAFETY: the loaded library's entry points, called as OpenCL specifies.
        return unsafe { stream(&cl, p, n, events) };
    }
    if let Some(rest) = what.strip_prefix("threads:") {
        let (t, n) = rest.split_once(':').ok_or("bad threads spec")?;
        let (t, n): (u32, u64) = (t.parse().map_err(|_| "bad threads")?, n.parse().map_err(|_| "bad count")?);
        let f = cl.get_platform_info;
        let pp = p as usize;
        return calling(t, |_| {
            move || {
                let mut sz = 0usize;
                for _ in 0..n {
                    unsafe { f(pp as Fp, 0x0902, 0, std::ptr::null_mut(), &mut sz) };
                }
            }
        });
    }
    if let Some(rest) = what.strip_prefix("kthreads:") {
        // The cheapest call a driver serves without a lock: each thread
        // sets an argument of a kernel of its own (9 ns a call on NVIDIA,
        // where clGetPlatformInfo takes 200 ns and serialises its callers),
        // so that the rate measured is cltap's, not the driver's.
        let (t, n) = rest.split_once(':').ok_or("bad kthreads spec")?;
        let (t, n): (u32, u64) = (t.parse().map_err(|_| "bad threads")?, n.parse().map_err(|_| "bad count")?);
        // SAFETY: the loaded library's entry points, called as OpenCL specifies.
        let s = unsafe { setup(&cl, p)? };
        let mut kernels = Vec::with_capacity(t as usize);
        for _ in 0..t {
            let mut err = 0;
            let k = unsafe { (cl.create_kernel)(s.prog, c"k".as_ptr() as *const u8, &mut err) };
            if err != 0 || k.is_null() {
                return Err(format!("clCreateKernel failed ({err})"));
            }
            kernels.push(k as usize);
        }
        let f = cl.set_kernel_arg;
        return calling(t, |i| {
            let k = kernels[i as usize];
            move || {
                let v: i32 = 3;
                for _ in 0..n {
                    unsafe { f(k as Fp, 1, 4, &v as *const i32 as *const std::ffi::c_void) };
                }
            }
        });
    }
    unsafe {
        let Setup { dev, ctx, q, k, .. } = setup(&cl, p)?;
        let mut err = 0;
        let ev = (cl.create_user_event)(ctx, &mut err);
        if err != 0 || k.is_null() || ev.is_null() {
            return Err(format!("setting up the benchmark failed ({err})"));
        }
        let mut name = [0u8; 64];
        let mut sz = 0usize;
        let v: i32 = 3;
        let mut st = 0i32;
        let reps = 7;
        // The objects the driver's own entries are timed on: the same as
        // the calls', or the driver's own made beside them.
        let own = match own_driver {
            Some(path) => Some(own_objects(path)?),
            None => None,
        };
        let (dp, dd, dk, de) = own.as_ref().map_or((p, dev, k, ev), |o| (o.platform, o.device, o.kernel, o.event));
        // Each cheap call, and the driver's own entry beside it (`direct`:
        // its dispatch slot), and this process's clock read.
        let gpi: unsafe extern "C" fn(Fp, u32, usize, *mut u8, *mut usize) -> i32 =
            driver_entry(dp, slot("clGetPlatformInfo"))?;
        let (np, szp) = (name.as_mut_ptr(), &mut sz as *mut usize);
        let ska: unsafe extern "C" fn(Fp, u32, usize, *const std::ffi::c_void) -> i32 =
            driver_entry(dk, slot("clSetKernelArg"))?;
        let arg = &v as *const i32 as *const std::ffi::c_void;
        let gei: unsafe extern "C" fn(Fp, u32, usize, *mut u8, *mut usize) -> i32 =
            driver_entry(de, slot("clGetEventInfo"))?;
        let stp = &mut st as *mut i32 as *mut u8;
        let (mut info, mut info_size) = ([0u8; 256], 0usize);
        let mut pairs = vec![
            Pair::new(
                "clGetPlatformInfo",
                iterations,
                || (cl.get_platform_info)(p, 0x0902, name.len(), np, szp),
                || gpi(dp, 0x0902, name.len(), np, szp),
            ),
            Pair::new("clSetKernelArg", iterations, || (cl.set_kernel_arg)(k, 1, 4, arg), || ska(dk, 1, 4, arg)),
            Pair::new(
                "clGetEventInfo",
                iterations,
                || (cl.get_event_info)(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, 4, stp, std::ptr::null_mut()),
                || gei(de, CL_EVENT_COMMAND_EXECUTION_STATUS, 4, stp, std::ptr::null_mut()),
            ),
        ];
        pairs.extend(info_shapes(&cl, (p, dev), (dp, dd), iterations, &mut info, &mut info_size)?);
        interleaved(reps, &mut pairs);
        for x in &pairs {
            println!("{0} {1}\n{0}.direct {2}", x.name, x.best.0, x.best.1);
        }
        if let Some(t) = super::host::rdtsc_ns() {
            println!("rdtsc {t}");
        }
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
        // An event found complete while a command is held (it waits on a
        // gate): with device timing on, a synchronisation point. The
        // direct call asks the driver's own user event.
        let (gate, done) = ((cl.create_user_event)(ctx, &mut err), (cl.create_user_event)(ctx, &mut err));
        (cl.set_user_event_status)(done, 0);
        let gp = &gate as *const Fp as Fp;
        (cl.enqueue_ndrange)(q, k, 1, std::ptr::null(), &g, std::ptr::null(), 1, gp, std::ptr::null_mut());
        let dev_ev = if own.is_some() { de } else { done };
        let (r, d) = time_pair(
            reps,
            iterations,
            || (cl.get_event_info)(done, CL_EVENT_COMMAND_EXECUTION_STATUS, 4, stp, std::ptr::null_mut()),
            || gei(dev_ev, CL_EVENT_COMMAND_EXECUTION_STATUS, 4, stp, std::ptr::null_mut()),
        );
        println!("clGetEventInfo.complete {r}\nclGetEventInfo.complete.direct {d}");
        (cl.set_user_event_status)(gate, 0);
        (cl.finish)(q);
        (cl.release_event)(gate);
        (cl.release_event)(done);
    }
    Ok(())
}

/// The shapes in which applications ask for information, each timed
/// through the loader and at the driver's own entry (on `direct`'s
/// platform and device): a string into a 256-byte buffer with and without
/// a size pointer, the string's size alone, and a fixed-size value with and
/// without one. `NULL` in a row's name: no `param_value_size_ret`, the
/// common way to ask for a name.
///
/// # Safety
/// `p`, `dev` and `direct` are a platform and device of the driver `cl` was loaded from, as
/// [`setup`] found them.
unsafe fn info_shapes<'a>(
    cl: &Cl,
    (p, dev): (Fp, Fp),
    direct: (Fp, Fp),
    n: u64,
    buf: &'a mut [u8; 256],
    size: &'a mut usize,
) -> Result<Vec<Pair<'a>>, String> {
    type Info = unsafe extern "C" fn(Fp, u32, usize, *mut u8, *mut usize) -> i32;
    // SAFETY: `driver_entry`'s # Safety follows from this fn's.
    let gpi: Info = unsafe { driver_entry(direct.0, slot("clGetPlatformInfo")) }?;
    // SAFETY: `driver_entry`'s # Safety follows from this fn's.
    let gdi: Info = unsafe { driver_entry(direct.1, slot("clGetDeviceInfo")) }?;
    const PLATFORM_NAME: u32 = 0x0902;
    const DEVICE_NAME: u32 = 0x102B;
    const MAX_COMPUTE_UNITS: u32 = 0x1002;
    let (buf, size) = (buf.as_mut_ptr(), size as *mut usize);
    // (row, on the platform (else the device), what, buffer's size, a size pointer)
    const SHAPES: [(&str, bool, u32, usize, bool); 7] = [
        ("clGetPlatformInfo.name", true, PLATFORM_NAME, 256, true),
        ("clGetPlatformInfo.name.NULL", true, PLATFORM_NAME, 256, false),
        ("clGetPlatformInfo.size", true, PLATFORM_NAME, 0, true),
        ("clGetDeviceInfo.name", false, DEVICE_NAME, 256, true),
        ("clGetDeviceInfo.name.NULL", false, DEVICE_NAME, 256, false),
        ("clGetDeviceInfo.uint", false, MAX_COMPUTE_UNITS, 4, true),
        ("clGetDeviceInfo.uint.NULL", false, MAX_COMPUTE_UNITS, 4, false),
    ];
    let mut pairs = Vec::new();
    for (name, on_platform, param, cap, sized) in SHAPES {
        let (through, own, obj, own_obj) = if on_platform {
            (cl.get_platform_info, gpi, p, direct.0)
        } else {
            (cl.get_device_info, gdi, dev, direct.1)
        };
        let value = if cap == 0 { std::ptr::null_mut() } else { buf };
        let size_ret = if sized { size } else { std::ptr::null_mut() };
        // SAFETY: `through` gets arguments its C declaration accepts.
        if unsafe { through(obj, param, cap, value, size_ret) } != 0 {
            return Err(format!("{name}: the query failed"));
        }
        pairs.push(Pair::new(
            name,
            n,
            // SAFETY: `through` gets arguments its C declaration accepts.
            move || unsafe { through(obj, param, cap, value, size_ret) },
            // SAFETY: `own` gets arguments its C declaration accepts.
            move || unsafe { own(own_obj, param, cap, value, size_ret) },
        ));
    }
    Ok(pairs)
}

/// Runs `t` threads, thread `i` running `body(i)`, and prints how long
/// they took together: the calling phase the throughput is timed over.
fn calling<F: FnOnce() + Send + 'static>(t: u32, body: impl Fn(u32) -> F) -> Result<(), String> {
    let start = Instant::now();
    let hs: Vec<_> = (0..t).map(|i| std::thread::spawn(body(i))).collect();
    for h in hs {
        h.join().map_err(|_| "a calling thread panicked")?;
    }
    println!("calling_ns {}", start.elapsed().as_nanos());
    Ok(())
}

/// The objects a driver loaded by itself serves the cheap calls on
/// ([`Cl::driver`]), and its library, kept loaded while they are used.
struct OwnObjects {
    _cl: Cl,
    platform: Fp,
    device: Fp,
    kernel: Fp,
    event: Fp,
}

/// # Safety
/// Loads and runs the shared object at `path`'s initialisers: it must be a benchmark object of cltap's.
unsafe fn own_objects(path: &str) -> Result<OwnObjects, String> {
    let (cl, platform) = Cl::driver(path)?;
    // SAFETY: `setup`'s # Safety follows from this fn's.
    let s = unsafe { setup(&cl, platform) }?;
    let mut err = 0;
    // SAFETY: the entry called here gets arguments its C declaration accepts.
    let event = unsafe { (cl.create_user_event)(s.ctx, &mut err) };
    if err != 0 || event.is_null() {
        return Err(format!("{path}: clCreateUserEvent failed ({err})"));
    }
    Ok(OwnObjects { _cl: cl, platform, device: s.dev, kernel: s.k, event })
}

/// A context, an in-order queue without profiling, and the kernel
/// `a[i] += b` on a buffer of 1,024 ints (argument 1 left for the caller).
struct Setup {
    dev: Fp,
    ctx: Fp,
    q: Fp,
    k: Fp,
    prog: Fp,
}

/// # Safety
/// `p` is a platform of the driver `cl`'s entry points came from.
unsafe fn setup(cl: &Cl, p: Fp) -> Result<Setup, String> {
    // SAFETY: `setup_queue`'s # Safety follows from this fn's.
    unsafe { setup_queue(cl, p, 0) }
}

/// [`setup`] with the queue's `properties` (`CL_QUEUE_PROFILING_ENABLE`).
///
/// # Safety
/// `p` is a platform of the driver `cl`'s entry points came from; `properties` is a valid
/// `cl_command_queue_properties` bit set.
unsafe fn setup_queue(cl: &Cl, p: Fp, properties: u64) -> Result<Setup, String> {
    let mut dev: Fp = std::ptr::null();
    // SAFETY: the entry called here gets arguments its C declaration accepts.
    unsafe { (cl.get_device_ids)(p, u64::MAX, 1, &mut dev, std::ptr::null_mut()) };
    let mut err = 0;
    // SAFETY: the entry called here gets arguments its C declaration accepts.
    let ctx = unsafe { (cl.create_context)(std::ptr::null(), 1, &dev, std::ptr::null(), std::ptr::null(), &mut err) };
    // SAFETY: the entry called here gets arguments its C declaration accepts.
    let q = unsafe { (cl.create_queue)(ctx, dev, properties, &mut err) };
    let src = b"__kernel void k(__global int* a, int b) { a[get_global_id(0)] += b; }\0";
    let sp = src.as_ptr();
    // SAFETY: the entry called here gets arguments its C declaration accepts.
    let prog = unsafe { (cl.create_program)(ctx, 1, &sp, std::ptr::null(), &mut err) };
    // SAFETY: the entry called here gets arguments its C declaration accepts.
    unsafe { (cl.build_program)(prog, 1, &dev, c"".as_ptr() as *const u8, std::ptr::null(), std::ptr::null()) };
    // SAFETY: the entry called here gets arguments its C declaration accepts.
    let k = unsafe { (cl.create_kernel)(prog, c"k".as_ptr() as *const u8, &mut err) };
    // SAFETY: the entry called here gets arguments its C declaration accepts.
    let buf = unsafe { (cl.create_buffer)(ctx, 1, STREAM_ITEMS * 4, std::ptr::null(), &mut err) };
    // SAFETY: the entry called here gets arguments its C declaration accepts.
    unsafe { (cl.set_kernel_arg)(k, 0, 8, &buf as *const Fp as *const std::ffi::c_void) };
    if err != 0 || q.is_null() || k.is_null() {
        return Err(format!("setting up the benchmark failed ({err})"));
    }
    Ok(Setup { dev, ctx, q, k, prog })
}
