//! Program dumps and the build-options override around the calls that make
//! and build programs (`cltap::programs` names and writes the files). The
//! generated wrappers of those calls alone call in here; with no control on,
//! each hook is one relaxed load.
//!
//! The build log and binaries are cltap's own queries, made straight to the
//! driver through the program's dispatch table: they pass no wrapper, so
//! they are neither recorded nor seen by the application, and a query
//! changes no state of the program. Handles here are the driver's (ICD mode
//! has unwrapped them before the call).
//!
//! A build with a callback may still run when `clBuildProgram` returns.
//! Its log is then taken at the first later `clCreateKernel`,
//! `clCreateKernelsInProgram` or `clGetProgramBuildInfo` of that program
//! (where the application itself learnt that the build ended), or before
//! its `clReleaseProgram`.

use super::api::slot;
use cltap::programs::{self as dumps, files, registry};
use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

type Obj = *mut c_void;

const CL_PROGRAM_NUM_DEVICES: u32 = 0x1162;
const CL_PROGRAM_DEVICES: u32 = 0x1163;
const CL_PROGRAM_BINARY_SIZES: u32 = 0x1165;
const CL_PROGRAM_BINARIES: u32 = 0x1166;
const CL_PROGRAM_BUILD_STATUS: u32 = 0x1181;
const CL_PROGRAM_BUILD_LOG: u32 = 0x1183;
const CL_DEVICE_NAME: u32 = 0x102B;
const CL_BUILD_NONE: i32 = -1;
const CL_BUILD_IN_PROGRESS: i32 = -3;

/// Builds whose log is taken later: (program, build number).
pub(crate) static PENDING: Mutex<Vec<(u64, u32)>> = Mutex::new(Vec::new());
static PENDING_COUNT: AtomicUsize = AtomicUsize::new(0);

/// Lines for the API log, written after the call's own record ([`notes`]).
pub type Notes = Vec<String>;

/// Writes the notes a hook returned, after the call's record.
pub fn notes(n: Notes) {
    for t in n {
        dumps::note(&t);
    }
}

/// Before a build or compile: the options the driver is to see
/// instead of the application's (`None`: the application's go through).
///
/// # Safety
/// `app` is NULL or the application's NUL-terminated build options string.
pub unsafe fn options(app: *const c_void) -> Option<CString> {
    if !dumps::on() {
        return None;
    }
    // SAFETY: `app as *const c_char` is a NUL-terminated string, live while read (# Safety).
    let app = (!app.is_null()).then(|| unsafe { CStr::from_ptr(app as *const c_char) }.to_bytes());
    dumps::replaced_options(app)
}

/// After `clCreateProgramWithSource`: the program numbered, its source written.
///
/// # Safety
/// `strings` holds `count` pointers and `lengths` is NULL or holds `count` lengths, as
/// `clCreateProgramWithSource` reads them; `r` is the program the driver returned, or NULL.
pub unsafe fn from_source(r: Obj, count: u32, strings: *mut c_void, lengths: *mut c_void) -> Notes {
    if r.is_null() || !dumps::on() {
        return Notes::new();
    }
    // SAFETY: `source`'s # Safety follows from this fn's.
    let bytes = unsafe { files::source(count, strings as *const *const u8, lengths as *const usize) };
    created(r, &bytes, "cl")
}

/// After `clCreateProgramWithIL`: the program numbered, its IL written.
///
/// # Safety
/// `il` is readable for `length` bytes; `r` is the program the driver returned, or NULL.
pub unsafe fn from_il(r: Obj, il: *mut c_void, length: usize) -> Notes {
    if r.is_null() || !dumps::on() || il.is_null() {
        return Notes::new();
    }
    // SAFETY: `il as *const u8` holds that many initialised elements while the slice is used (# Safety).
    created(r, unsafe { std::slice::from_raw_parts(il as *const u8, length) }, "spv")
}

fn created(r: Obj, bytes: &[u8], ext: &str) -> Notes {
    let Some(s) = dumps::settings() else { return Notes::new() };
    let p = registry::created(r as u64, bytes);
    if !s.controls.dump {
        return Notes::new();
    }
    vec![match files::write(&s.dir, &format!("{}.{ext}", p.base), bytes) {
        Ok(path) => format!("program {}: {path} ({} bytes)", p.n, bytes.len()),
        Err(e) => format!("program {}: {e}", p.n),
    }]
}

/// After `clBuildProgram` or `clCompileProgram` (`what`) of `program`:
/// the options the driver saw, and per device its build log (and
/// binary). `app_opts` is the application's options, `seen` what the
/// driver got instead, if cltap replaced them.
///
/// # Safety
/// `program` is a live program of the driver; `app_opts` is 0 or the address of the application's
/// NUL-terminated options.
pub unsafe fn built(what: &str, program: Obj, app_opts: u64, seen: Option<&CString>, callback: bool) -> Notes {
    if program.is_null() || !dumps::on() {
        return Notes::new();
    }
    let Some(s) = dumps::settings() else { return Notes::new() };
    let (p, b) = registry::build(program as u64);
    // SAFETY: `app_opts as *const c_char` is a NUL-terminated string, live while read (# Safety).
    let app = (app_opts != 0).then(|| unsafe { CStr::from_ptr(app_opts as *const c_char) }.to_bytes().to_vec());
    let mut out = Notes::new();
    if let Some(o) = seen {
        out.push(format!(
            "program {} {what} {b}: build options replaced: the driver saw {:?}, the application passed {}",
            p.n,
            o.to_string_lossy(),
            app.as_ref().map_or("NULL".to_string(), |a| format!("{:?}", String::from_utf8_lossy(a)))
        ));
    }
    if !s.controls.dump {
        return out;
    }
    let opts = seen.map(|o| o.as_bytes().to_vec()).or(app).unwrap_or_default();
    match files::write(&s.dir, &format!("{}.b{b}.options", p.base), &opts) {
        Ok(path) => out.push(format!("program {} {what} {b}: options {path}", p.n)),
        Err(e) => out.push(format!("program {} {what} {b}: {e}", p.n)),
    }
    // SAFETY: `in_progress`'s # Safety follows from this fn's.
    if callback && unsafe { in_progress(program) } {
        PENDING.lock().unwrap_or_else(|e| e.into_inner()).push((program as u64, b));
        PENDING_COUNT.fetch_add(1, Ordering::Release);
        out.push(format!("program {} {what} {b}: still building; its logs follow when it ends", p.n));
        return out;
    }
    // SAFETY: `logs`'s # Safety follows from this fn's.
    out.extend(unsafe { logs(what, program, &p, b) });
    out
}

/// After `clLinkProgram`: the new program numbered (named by no source),
/// and its link's options, logs and binaries as for a build.
///
/// # Safety
/// `r` is NULL or the program `clLinkProgram` returned; `app_opts` is 0 or the address of the
/// application's NUL-terminated options.
pub unsafe fn linked(r: Obj, app_opts: u64, seen: Option<&CString>, callback: bool) -> Notes {
    // `seen` is always None: linker options are not replaced.
    if r.is_null() || dumps::settings().is_none() {
        return Notes::new();
    }
    registry::created(r as u64, &[]);
    // SAFETY: `built`'s # Safety follows from this fn's.
    unsafe { built("link", r, app_opts, seen, callback) }
}

/// Before a call on `program` that may follow the end of a build with a
/// callback: its logs, if that build was left pending.
///
/// # Safety
/// `program` is a live program of the driver.
pub unsafe fn settle(program: Obj) {
    if PENDING_COUNT.load(Ordering::Acquire) == 0 || program.is_null() {
        return;
    }
    let found = {
        let mut v = PENDING.lock().unwrap_or_else(|e| e.into_inner());
        match v.iter().position(|(h, _)| *h == program as u64) {
            // SAFETY: `in_progress`'s # Safety follows from this fn's.
            Some(i) if !unsafe { in_progress(program) } => {
                PENDING_COUNT.fetch_sub(1, Ordering::Release);
                Some(v.remove(i).1)
            }
            _ => None,
        }
    };
    if let (Some(b), Some(p)) = (found, registry::get(program as u64)) {
        // SAFETY: `logs`'s # Safety follows from this fn's.
        notes(unsafe { logs("build", program, &p, b) });
    }
}

/// Whether the driver is still building `program` for any device.
///
/// # Safety
/// `program` is a live program of the driver.
unsafe fn in_progress(program: Obj) -> bool {
    // SAFETY: `program` is a live program of the driver (# Safety), and each `d` one of its devices.
    unsafe { devices(program) }.iter().any(|&d| unsafe { status(program, d) } == Some(CL_BUILD_IN_PROGRESS))
}

/// Each device's build log (and binary) of build `b`, written.
///
/// # Safety
/// `program` is the live program `p` describes.
unsafe fn logs(what: &str, program: Obj, p: &registry::Program, b: u32) -> Notes {
    let Some(s) = dumps::settings() else { return Notes::new() };
    // SAFETY: `devices`'s # Safety follows from this fn's.
    let devs = unsafe { devices(program) };
    // SAFETY: `binaries`'s # Safety follows from this fn's.
    let bins = if s.controls.binaries { unsafe { binaries(program, devs.len()) } } else { Vec::new() };
    let mut out = Notes::new();
    for (d, &dev) in devs.iter().enumerate() {
        // SAFETY: `status`'s # Safety follows from this fn's.
        let st = unsafe { status(program, dev) };
        if st == Some(CL_BUILD_NONE) {
            continue;
        }
        // SAFETY: `device_info`'s # Safety follows from this fn's.
        let name = unsafe { device_info(dev, CL_DEVICE_NAME) }.map(|n| cstr(&n)).unwrap_or_default();
        let mut line = format!(
            "program {} {what} {b} device {d} ({name}): {}",
            p.n,
            st.map_or("status unknown".into(), |c| build_status(c).to_string())
        );
        // SAFETY: `build_info`'s # Safety follows from this fn's.
        if let Some(log) = unsafe { build_info(program, dev, CL_PROGRAM_BUILD_LOG) } {
            // The log as the driver answers it, without the C string's NUL.
            let log = log.strip_suffix(&[0]).unwrap_or(&log);
            match files::write(&s.dir, &format!("{}.b{b}.d{d}.log", p.base), log) {
                Ok(path) => line += &format!(", log {path}"),
                Err(e) => line += &format!(", {e}"),
            }
        }
        if let Some(bin) = bins.get(d).filter(|b| !b.is_empty()) {
            match files::write(&s.dir, &format!("{}.b{b}.d{d}.bin", p.base), bin) {
                Ok(path) => line += &format!(", binary {path}"),
                Err(e) => line += &format!(", {e}"),
            }
        }
        out.push(line);
    }
    out
}

fn build_status(c: i32) -> &'static str {
    match c {
        0 => "CL_BUILD_SUCCESS",
        -1 => "CL_BUILD_NONE",
        -2 => "CL_BUILD_ERROR",
        -3 => "CL_BUILD_IN_PROGRESS",
        _ => "unknown build status",
    }
}

fn cstr(b: &[u8]) -> String {
    String::from_utf8_lossy(b.split(|&c| c == 0).next().unwrap_or_default()).into_owned()
}

type ProgramInfo = unsafe extern "C" fn(Obj, u32, usize, *mut c_void, *mut usize) -> i32;
type BuildInfo = unsafe extern "C" fn(Obj, Obj, u32, usize, *mut c_void, *mut usize) -> i32;

/// An answer of any size: its size asked first.
///
/// # Safety
/// `q` is an info query that writes at most the size it is given into the buffer it is given.
unsafe fn ask(q: impl Fn(usize, *mut c_void, *mut usize) -> i32) -> Option<Vec<u8>> {
    let mut n = 0usize;
    if q(0, std::ptr::null_mut(), &mut n) != 0 {
        return None;
    }
    let mut v = vec![0u8; n];
    (q(n, v.as_mut_ptr() as *mut c_void, std::ptr::null_mut()) == 0).then_some(v)
}

/// # Safety
/// `program` is a live program of the driver.
unsafe fn program_info(program: Obj, param: u32) -> Option<Vec<u8>> {
    // SAFETY: `object_slot`: the object is a live ICD object, its dispatch table first (# Safety).
    let f = unsafe { cltap::icd_table::object_slot(program, slot::clGetProgramInfo) };
    if f.is_null() {
        return None;
    }
    // SAFETY: the address is that entry's, and this type its C prototype.
    let f: ProgramInfo = unsafe { std::mem::transmute(f) };
    // SAFETY: `ask`'s # Safety follows from this fn's.
    unsafe { ask(|n, v, r| f(program, param, n, v, r)) }
}

/// # Safety
/// `program` is a live program of the driver and `dev` one of its devices.
unsafe fn build_info(program: Obj, dev: Obj, param: u32) -> Option<Vec<u8>> {
    // SAFETY: `object_slot`: the object is a live ICD object, its dispatch table first (# Safety).
    let f = unsafe { cltap::icd_table::object_slot(program, slot::clGetProgramBuildInfo) };
    if f.is_null() {
        return None;
    }
    // SAFETY: the address is that entry's, and this type its C prototype.
    let f: BuildInfo = unsafe { std::mem::transmute(f) };
    // SAFETY: `ask`'s # Safety follows from this fn's.
    unsafe { ask(|n, v, r| f(program, dev, param, n, v, r)) }
}

/// # Safety
/// `dev` is a live device of the driver.
unsafe fn device_info(dev: Obj, param: u32) -> Option<Vec<u8>> {
    // SAFETY: `object_slot`: the object is a live ICD object, its dispatch table first (# Safety).
    let f = unsafe { cltap::icd_table::object_slot(dev, slot::clGetDeviceInfo) };
    if f.is_null() {
        return None;
    }
    // SAFETY: the address is that entry's, and this type its C prototype.
    let f: ProgramInfo = unsafe { std::mem::transmute(f) };
    // SAFETY: `ask`'s # Safety follows from this fn's.
    unsafe { ask(|n, v, r| f(dev, param, n, v, r)) }
}

fn words(b: &[u8]) -> Vec<u64> {
    b.chunks_exact(8).map(|c| u64::from_ne_bytes(c.try_into().unwrap())).collect()
}

/// # Safety
/// `program` is a live program of the driver.
unsafe fn devices(program: Obj) -> Vec<Obj> {
    // SAFETY: `program_info`'s # Safety follows from this fn's.
    let n = unsafe { program_info(program, CL_PROGRAM_NUM_DEVICES) }
        .filter(|b| b.len() >= 4)
        .map_or(0, |b| u32::from_ne_bytes(b[..4].try_into().unwrap()));
    // SAFETY: `program_info`'s # Safety follows from this fn's.
    let list = unsafe { program_info(program, CL_PROGRAM_DEVICES) }.map(|b| words(&b)).unwrap_or_default();
    list.into_iter().take(n as usize).map(|w| w as Obj).collect()
}

/// # Safety
/// `program` is a live program of the driver and `dev` one of its devices.
unsafe fn status(program: Obj, dev: Obj) -> Option<i32> {
    // SAFETY: `build_info`'s # Safety follows from this fn's.
    (unsafe { build_info(program, dev, CL_PROGRAM_BUILD_STATUS) })
        .filter(|b| b.len() >= 4)
        .map(|b| i32::from_ne_bytes(b[..4].try_into().unwrap()))
}

/// Each device's binary (empty where it has none), as `CL_PROGRAM_BINARIES` gives them.
///
/// # Safety
/// `program` is a live program of the driver with `n` devices.
unsafe fn binaries(program: Obj, n: usize) -> Vec<Vec<u8>> {
    // SAFETY: `program_info`'s # Safety follows from this fn's.
    let sizes = unsafe { program_info(program, CL_PROGRAM_BINARY_SIZES) }.map(|b| words(&b)).unwrap_or_default();
    if sizes.len() != n {
        return Vec::new();
    }
    let mut bins: Vec<Vec<u8>> = sizes.iter().map(|&s| vec![0u8; s as usize]).collect();
    let mut ptrs: Vec<*mut u8> =
        bins.iter_mut().map(|b| if b.is_empty() { std::ptr::null_mut() } else { b.as_mut_ptr() }).collect();
    // SAFETY: `object_slot`: the object is a live ICD object, its dispatch table first (# Safety).
    let f = unsafe { cltap::icd_table::object_slot(program, slot::clGetProgramInfo) };
    if f.is_null() {
        return Vec::new();
    }
    // SAFETY: the address is that entry's, and this type its C prototype.
    let f: ProgramInfo = unsafe { std::mem::transmute(f) };
    let size = ptrs.len() * std::mem::size_of::<*mut u8>();
    // SAFETY: `f` gets arguments its C declaration accepts.
    if unsafe { f(program, CL_PROGRAM_BINARIES, size, ptrs.as_mut_ptr() as *mut c_void, std::ptr::null_mut()) } != 0 {
        return Vec::new();
    }
    bins
}
