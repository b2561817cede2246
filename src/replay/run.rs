//! The replay's OpenCL calls: a context and queue on the driver's first
//! device, the program built with the captured options, the arguments
//! made from the captured contents before the enqueue, the kernel run,
//! and the buffers and images read back and compared.

use super::objects::{self, check, fail, Made};
use super::{Driver, Outcome, ReplayError};
use crate::dumps::cl::{self, slot, Obj};
use crate::dumps::diff;
use crate::dumps::manifest::{Arg, Capture};
use std::ffi::{c_void, CString};
use std::path::Path;

const CL_DEVICE_TYPE_ALL: u64 = 0xFFFF_FFFF;
const CL_CONTEXT_PLATFORM: isize = 0x1084;

type GetIds = unsafe extern "C" fn(u32, *mut Obj, *mut u32) -> i32;
type Gefa = unsafe extern "C" fn(*const std::ffi::c_char) -> *mut c_void;

/// The platforms of `driver`.
unsafe fn platforms(driver: &Driver) -> Result<Vec<Obj>, ReplayError> {
    let lib_name = match driver {
        Driver::Library(p) => p.as_os_str().to_owned(),
        Driver::Loader => "libOpenCL.so.1".into(),
    };
    // SAFETY: loading an OpenCL driver or loader runs its initialisers, which is what the user asked for.
    let lib = unsafe { libloading::Library::new(&lib_name) }
        .map_err(|e| ReplayError::Driver(format!("cannot load {}: {e}", lib_name.to_string_lossy())))?;
    let get: GetIds = match driver {
        // SAFETY: clGetPlatformIDs has this type (OpenCL's cl.h).
        Driver::Loader => {
            *unsafe { lib.get::<GetIds>(b"clGetPlatformIDs\0") }.map_err(|e| ReplayError::Driver(e.to_string()))?
        }
        // SAFETY: clIcdGetPlatformIDsKHR has this type (cl_khr_icd).
        Driver::Library(_) => match unsafe { lib.get::<GetIds>(b"clIcdGetPlatformIDsKHR\0") } {
            Ok(f) => *f,
            Err(_) => {
                // SAFETY: clGetExtensionFunctionAddress has this type (cl.h).
                let g = unsafe { lib.get::<Gefa>(b"clGetExtensionFunctionAddress\0") }
                    .map_err(|_| ReplayError::Driver("not an OpenCL ICD (no clIcdGetPlatformIDsKHR)".into()))?;
                // SAFETY: a NUL-terminated name.
                let p = unsafe { g(c"clIcdGetPlatformIDsKHR".as_ptr()) };
                if p.is_null() {
                    return Err(ReplayError::Driver("not an OpenCL ICD (no clIcdGetPlatformIDsKHR)".into()));
                }
                // SAFETY: the driver's clIcdGetPlatformIDsKHR, of this type (cl_khr_icd).
                unsafe { std::mem::transmute::<*mut c_void, GetIds>(p) }
            }
        },
    };
    // The driver's objects live as long as the process: so does its library.
    std::mem::forget(lib);
    let mut n = 0u32;
    // SAFETY: the count alone.
    let r = unsafe { get(0, std::ptr::null_mut(), &mut n) };
    if r != 0 || n == 0 {
        return Err(ReplayError::Driver(format!("no OpenCL platform ({r})")));
    }
    let mut v = vec![std::ptr::null_mut(); n as usize];
    // SAFETY: room for `n` platforms.
    let r = unsafe { get(n, v.as_mut_ptr(), std::ptr::null_mut()) };
    if r != 0 {
        return Err(fail("listing the platforms", r));
    }
    Ok(v)
}

/// The first device of the first platform that has one.
unsafe fn device(driver: &Driver) -> Result<(Obj, Obj), ReplayError> {
    type Devs = unsafe extern "C" fn(Obj, u64, u32, *mut Obj, *mut u32) -> i32;
    // SAFETY: `platforms` loads the driver it is asked for and keeps it.
    for p in unsafe { platforms(driver) }? {
        // SAFETY: a platform the driver gave; the slot is clGetDeviceIDs.
        let Some(f) = (unsafe { cl::raw::<Devs>(p, slot::GET_DEVICE_IDS) }) else { continue };
        let mut d: Obj = std::ptr::null_mut();
        // SAFETY: room for one device.
        if unsafe { f(p, CL_DEVICE_TYPE_ALL, 1, &mut d, std::ptr::null_mut()) } == 0 && !d.is_null() {
            return Ok((p, d));
        }
    }
    Err(ReplayError::Driver("no OpenCL device".into()))
}

pub(super) unsafe fn run(
    folder: &Path,
    c: &Capture,
    driver: &Driver,
    out: Option<&Path>,
) -> Result<Outcome, ReplayError> {
    // SAFETY: as `platforms`.
    let (plat, dev) = unsafe { device(driver) }?;
    let device_name =
        // SAFETY: the driver's device.
        unsafe { cl::info(dev, slot::GET_DEVICE_INFO, cl::CL_DEVICE_NAME) }.map(|b| cl::text(&b)).unwrap_or_default();
    let mut err = 0i32;
    type MkCtx = unsafe extern "C" fn(*const isize, u32, *const Obj, *mut c_void, *mut c_void, *mut i32) -> Obj;
    let props = [CL_CONTEXT_PLATFORM, plat as isize, 0];
    // SAFETY: the driver's platform; the slot is clCreateContext.
    let mk: MkCtx = unsafe { cl::raw(plat, slot::CREATE_CONTEXT) }.ok_or_else(|| fail("clCreateContext", -59))?;
    let ctx = check(
        "clCreateContext",
        // SAFETY: a property list ended by 0, one device of the platform, no callback.
        unsafe { mk(props.as_ptr(), 1, &dev, std::ptr::null_mut(), std::ptr::null_mut(), &mut err) },
        err,
    )?;
    type MkQ = unsafe extern "C" fn(Obj, Obj, u64, *mut i32) -> Obj;
    // SAFETY: the context made above; the slot is clCreateCommandQueue.
    let mkq: MkQ =
        unsafe { cl::raw(ctx, slot::CREATE_COMMAND_QUEUE) }.ok_or_else(|| fail("clCreateCommandQueue", -59))?;
    // SAFETY: the context's device, default properties.
    let q = check("clCreateCommandQueue", unsafe { mkq(ctx, dev, 0, &mut err) }, err)?;
    // SAFETY: the context and device made and found above.
    let prog = unsafe { program(folder, c, ctx, dev) }?;
    type MkK = unsafe extern "C" fn(Obj, *const std::ffi::c_char, *mut i32) -> Obj;
    // SAFETY: the program built above; the slot is clCreateKernel.
    let mkk: MkK = unsafe { cl::raw(prog, slot::CREATE_KERNEL) }.ok_or_else(|| fail("clCreateKernel", -59))?;
    let name = CString::new(c.kernel.clone()).map_err(|_| ReplayError::Driver("a kernel name with a NUL".into()))?;
    // SAFETY: a NUL-terminated name.
    let k = check(&format!("clCreateKernel({})", c.kernel), unsafe { mkk(prog, name.as_ptr(), &mut err) }, err)?;
    type SetArg = unsafe extern "C" fn(Obj, u32, usize, *const c_void) -> i32;
    // SAFETY: the kernel made above; the slot is clSetKernelArg.
    let set: SetArg = unsafe { cl::raw(k, slot::SET_KERNEL_ARG) }.ok_or_else(|| fail("clSetKernelArg", -59))?;
    type SetPtr = unsafe extern "C" fn(Obj, u32, *const c_void) -> i32;
    let mut made: Vec<(Made, &Arg)> = Vec::new();
    for a in &c.args {
        let before = |a: &Arg| -> Result<Vec<u8>, ReplayError> {
            let f = a.before.as_ref().ok_or_else(|| ReplayError::Arg(a.index, "no contents before".into()))?;
            std::fs::read(folder.join(f)).map_err(|e| ReplayError::Read(folder.join(f), e))
        };
        let r = match a.kind.as_str() {
            "scalar" => {
                let b = before(a)?;
                // SAFETY: `b.len()` readable bytes, copied by the driver.
                unsafe { set(k, a.index, b.len(), b.as_ptr() as *const c_void) }
            }
            // SAFETY: NULL with a size: local memory.
            "local" => unsafe { set(k, a.index, a.size, std::ptr::null()) },
            "svm" => {
                // SAFETY: the context, device and queue made and found above.
                let m = unsafe { objects::svm(ctx, dev, q, a, &before(a)?) }?;
                // SAFETY: the kernel made above; the slot is clSetKernelArgSVMPointer.
                let sp: SetPtr = unsafe { cl::raw(k, slot::SET_KERNEL_ARG_SVM_POINTER) }
                    .ok_or_else(|| fail("clSetKernelArgSVMPointer", -59))?;
                // SAFETY: an SVM allocation of the kernel's context.
                let r = unsafe { sp(k, a.index, m.handle()) };
                made.push((m, a));
                r
            }
            "buffer" | "image" | "sampler" => {
                // SAFETY: the context made above; the contents are copied at creation.
                let m = match a.kind.as_str() {
                    "buffer" => Made::Mem(unsafe { objects::buffer(ctx, &mut before(a)?) }?, None),
                    "image" => unsafe { objects::image(ctx, a, &mut before(a)?) }?,
                    _ => unsafe { objects::sampler(ctx, a) }?,
                };
                let h = m.handle();
                made.push((m, a));
                // SAFETY: the object's handle, one word, copied by the driver.
                unsafe { set(k, a.index, 8, &h as *const Obj as *const c_void) }
            }
            other => return Err(ReplayError::Arg(a.index, format!("a {other} argument"))),
        };
        if r != 0 {
            return Err(ReplayError::Arg(a.index, format!("clSetKernelArg failed ({r})")));
        }
    }
    type Nd =
        unsafe extern "C" fn(Obj, Obj, u32, *const usize, *const usize, *const usize, u32, *const Obj, *mut Obj) -> i32;
    // SAFETY: the queue made above; the slot is clEnqueueNDRangeKernel.
    let nd: Nd =
        unsafe { cl::raw(q, slot::ENQUEUE_NDRANGE_KERNEL) }.ok_or_else(|| fail("clEnqueueNDRangeKernel", -59))?;
    let ptr = |v: &Option<Vec<usize>>| v.as_ref().map_or(std::ptr::null(), |v| v.as_ptr());
    // SAFETY: `work_dim` sizes in each array given (the capture's), no events.
    let r = unsafe {
        nd(
            q,
            k,
            c.work_dim,
            ptr(&c.global_offset),
            c.global.as_ptr(),
            ptr(&c.local),
            0,
            std::ptr::null(),
            std::ptr::null_mut(),
        )
    };
    if r != 0 {
        return Err(fail("clEnqueueNDRangeKernel", r));
    }
    // SAFETY: the queue made above.
    let r = unsafe { cl::finish(q) };
    if r != 0 {
        return Err(fail("clFinish", r));
    }
    let mut results = Vec::new();
    for (m, a) in made {
        let i = a.index;
        // SAFETY: made above in the queue's context.
        let got = unsafe { m.read(q, a) };
        // SAFETY: made above, released once.
        unsafe { m.release(ctx) };
        let Some(got) = got? else { continue };
        if let Some(o) = out {
            let d = o.join("after");
            std::fs::create_dir_all(&d).map_err(|e| ReplayError::Read(d.clone(), e))?;
            std::fs::write(d.join(format!("a{i}.bin")), &got).map_err(|e| ReplayError::Read(d.clone(), e))?;
        }
        if let Some(f) = &a.after {
            let want = std::fs::read(folder.join(f)).map_err(|e| ReplayError::Read(folder.join(f), e))?;
            results.push((i, diff::compare(&want, &got)));
        }
    }
    // SAFETY: each made above, released once, the kernel before its program.
    unsafe {
        cl::release(k, slot::RELEASE_KERNEL);
        cl::release(prog, slot::RELEASE_PROGRAM);
        cl::release(q, slot::RELEASE_COMMAND_QUEUE);
        cl::release(ctx, slot::RELEASE_CONTEXT);
    }
    Ok(Outcome { device: device_name, results })
}

/// The program made from the captured file and built with its options.
unsafe fn program(folder: &Path, c: &Capture, ctx: Obj, dev: Obj) -> Result<Obj, ReplayError> {
    let path = folder.join(&c.program.file);
    let bytes = std::fs::read(&path).map_err(|e| ReplayError::Read(path.clone(), e))?;
    let mut err = 0i32;
    let prog = match c.program.kind.as_str() {
        "source" => {
            type F = unsafe extern "C" fn(Obj, u32, *const *const u8, *const usize, *mut i32) -> Obj;
            let f: F =
                // SAFETY: the context (the contract); the slot is clCreateProgramWithSource.
                unsafe { cl::raw(ctx, slot::CREATE_PROGRAM_WITH_SOURCE) }.ok_or_else(|| fail("clCreateProgramWithSource", -59))?;
            let (p, n) = (bytes.as_ptr(), bytes.len());
            // SAFETY: one string of `n` bytes.
            unsafe { f(ctx, 1, &p, &n, &mut err) }
        }
        "il" => {
            type F = unsafe extern "C" fn(Obj, *const u8, usize, *mut i32) -> Obj;
            // SAFETY: the context (the contract); the slot is clCreateProgramWithIL.
            let f: F = unsafe { cl::raw(ctx, slot::CREATE_PROGRAM_WITH_IL) }
                .ok_or_else(|| fail("clCreateProgramWithIL", -59))?;
            // SAFETY: `bytes.len()` bytes of IL.
            unsafe { f(ctx, bytes.as_ptr(), bytes.len(), &mut err) }
        }
        _ => {
            type F =
                unsafe extern "C" fn(Obj, u32, *const Obj, *const usize, *const *const u8, *mut i32, *mut i32) -> Obj;
            let f: F =
                // SAFETY: the context (the contract); the slot is clCreateProgramWithBinary.
                unsafe { cl::raw(ctx, slot::CREATE_PROGRAM_WITH_BINARY) }.ok_or_else(|| fail("clCreateProgramWithBinary", -59))?;
            let (p, n) = (bytes.as_ptr(), bytes.len());
            let mut st = 0i32;
            // SAFETY: one device, one binary of `n` bytes, one status.
            unsafe { f(ctx, 1, &dev, &n, &p, &mut st, &mut err) }
        }
    };
    let prog = check("making the program", prog, err)?;
    type Build = unsafe extern "C" fn(Obj, u32, *const Obj, *const std::ffi::c_char, *mut c_void, *mut c_void) -> i32;
    // SAFETY: the program made above; the slot is clBuildProgram.
    let b: Build = unsafe { cl::raw(prog, slot::BUILD_PROGRAM) }.ok_or_else(|| fail("clBuildProgram", -59))?;
    let opts = CString::new(c.program.options.clone()).unwrap_or_default();
    // SAFETY: one device, NUL-terminated options, no callback.
    let r = unsafe { b(prog, 1, &dev, opts.as_ptr(), std::ptr::null_mut(), std::ptr::null_mut()) };
    if r != 0 {
        // SAFETY: the program and its device.
        let log =
            unsafe { cl::build_info(prog, dev, cl::CL_PROGRAM_BUILD_LOG) }.map(|b| cl::text(&b)).unwrap_or_default();
        return Err(ReplayError::Driver(format!("clBuildProgram failed ({r}); the build log:\n{log}")));
    }
    Ok(prog)
}
