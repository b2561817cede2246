//! The few OpenCL calls the dumps and the replay make, straight to a
//! driver through an object's own dispatch table: in the layer they pass no
//! wrapper of cltap's (neither recorded nor seen by the application), and
//! `cltap replay` needs no loader. Every handle is a driver's.

use std::ffi::c_void;

pub type Obj = *mut c_void;

/// Dispatch-table slots (`struct _cl_icd_dispatch`).
pub mod slot {
    pub const GET_DEVICE_IDS: usize = 2;
    pub const GET_DEVICE_INFO: usize = 3;
    pub const CREATE_CONTEXT: usize = 4;
    pub const RELEASE_CONTEXT: usize = 7;
    pub const CREATE_COMMAND_QUEUE: usize = 9;
    pub const RELEASE_COMMAND_QUEUE: usize = 11;
    pub const GET_COMMAND_QUEUE_INFO: usize = 12;
    pub const CREATE_BUFFER: usize = 14;
    pub const RELEASE_MEM_OBJECT: usize = 18;
    pub const GET_MEM_OBJECT_INFO: usize = 20;
    pub const GET_IMAGE_INFO: usize = 21;
    pub const CREATE_SAMPLER: usize = 22;
    pub const RELEASE_SAMPLER: usize = 24;
    pub const GET_SAMPLER_INFO: usize = 25;
    pub const CREATE_PROGRAM_WITH_SOURCE: usize = 26;
    pub const CREATE_PROGRAM_WITH_BINARY: usize = 27;
    pub const RELEASE_PROGRAM: usize = 29;
    pub const BUILD_PROGRAM: usize = 30;
    pub const GET_PROGRAM_INFO: usize = 32;
    pub const GET_PROGRAM_BUILD_INFO: usize = 33;
    pub const CREATE_KERNEL: usize = 34;
    pub const RELEASE_KERNEL: usize = 37;
    pub const SET_KERNEL_ARG: usize = 38;
    pub const GET_KERNEL_INFO: usize = 39;
    pub const FINISH: usize = 47;
    pub const ENQUEUE_READ_BUFFER: usize = 48;
    pub const ENQUEUE_WRITE_BUFFER: usize = 49;
    pub const ENQUEUE_READ_IMAGE: usize = 51;
    pub const ENQUEUE_WRITE_IMAGE: usize = 52;
    pub const ENQUEUE_NDRANGE_KERNEL: usize = 59;
    pub const CREATE_IMAGE: usize = 96;
    pub const GET_EXTENSION_FUNCTION_ADDRESS_FOR_PLATFORM: usize = 107;
    pub const SVM_ALLOC: usize = 126;
    pub const SVM_FREE: usize = 127;
    pub const ENQUEUE_SVM_MEMCPY: usize = 129;
    pub const SET_KERNEL_ARG_SVM_POINTER: usize = 134;
    pub const CREATE_PROGRAM_WITH_IL: usize = 138;
}

pub const CL_DEVICE_NAME: u32 = 0x102B;
pub const CL_DEVICE_PLATFORM: u32 = 0x1031;
pub const CL_DEVICE_SVM_CAPABILITIES: u32 = 0x1053;
pub const CL_SAMPLER_REFERENCE_COUNT: u32 = 0x1150;
pub const CL_SAMPLER_NORMALIZED_COORDS: u32 = 0x1152;
pub const CL_SAMPLER_ADDRESSING_MODE: u32 = 0x1153;
pub const CL_SAMPLER_FILTER_MODE: u32 = 0x1154;
pub const CL_QUEUE_CONTEXT: u32 = 0x1090;
pub const CL_QUEUE_DEVICE: u32 = 0x1091;
pub const CL_MEM_TYPE: u32 = 0x1100;
pub const CL_MEM_FLAGS: u32 = 0x1101;
pub const CL_MEM_SIZE: u32 = 0x1102;
pub const CL_MEM_REFERENCE_COUNT: u32 = 0x1105;
pub const CL_IMAGE_FORMAT: u32 = 0x1110;
pub const CL_IMAGE_ELEMENT_SIZE: u32 = 0x1111;
pub const CL_IMAGE_WIDTH: u32 = 0x1114;
pub const CL_IMAGE_HEIGHT: u32 = 0x1115;
pub const CL_IMAGE_DEPTH: u32 = 0x1116;
pub const CL_IMAGE_ARRAY_SIZE: u32 = 0x1117;
pub const CL_PROGRAM_SOURCE: u32 = 0x1164;
pub const CL_PROGRAM_BINARY_SIZES: u32 = 0x1165;
pub const CL_PROGRAM_BINARIES: u32 = 0x1166;
pub const CL_PROGRAM_IL: u32 = 0x1169;
pub const CL_PROGRAM_BUILD_OPTIONS: u32 = 0x1182;
pub const CL_PROGRAM_BUILD_LOG: u32 = 0x1183;
pub const CL_KERNEL_FUNCTION_NAME: u32 = 0x1190;
pub const CL_KERNEL_NUM_ARGS: u32 = 0x1191;
pub const CL_KERNEL_PROGRAM: u32 = 0x1194;
pub const CL_MEM_OBJECT_BUFFER: u32 = 0x10F0;
pub const CL_MEM_OBJECT_IMAGE1D_ARRAY: u32 = 0x10F5;
pub const CL_MEM_OBJECT_IMAGE2D_ARRAY: u32 = 0x10F3;
pub const CL_MEM_OBJECT_IMAGE1D_BUFFER: u32 = 0x10F6;
pub const CL_MEM_OBJECT_PIPE: u32 = 0x10F7;

/// The driver's entry in `obj`'s dispatch table, as a function of type `F`.
///
/// # Safety
/// `obj` is a live driver object and `F` the type of the slot's function.
unsafe fn entry<F: Copy>(obj: Obj, slot: usize) -> Option<F> {
    if obj.is_null() {
        return None;
    }
    // SAFETY: `obj` is a live driver object (the contract): its first word is its dispatch table.
    let p = unsafe { crate::icd_table::object_slot(obj, slot) };
    // SAFETY: `F` is the function pointer type of the slot (the contract).
    (!p.is_null()).then(|| unsafe { std::mem::transmute_copy::<*const c_void, F>(&p) })
}

type Info = unsafe extern "C" fn(Obj, u32, usize, *mut c_void, *mut usize) -> i32;
type Info2 = unsafe extern "C" fn(Obj, Obj, u32, usize, *mut c_void, *mut usize) -> i32;

/// An answer of any size: its size asked first. `q` is a query that
/// writes at most its size argument's bytes.
fn ask(q: impl Fn(usize, *mut c_void, *mut usize) -> i32) -> Option<Vec<u8>> {
    let mut n = 0usize;
    if q(0, std::ptr::null_mut(), &mut n) != 0 {
        return None;
    }
    let mut v = vec![0u8; n];
    (q(n, v.as_mut_ptr() as *mut c_void, std::ptr::null_mut()) == 0).then_some(v)
}

/// `clGet*Info(obj, param)` through slot `slot`.
///
/// # Safety
/// `obj` is a live driver object of the kind the slot's query takes.
pub unsafe fn info(obj: Obj, slot: usize, param: u32) -> Option<Vec<u8>> {
    // SAFETY: a live object of the slot's kind (the contract); the slot is a `clGet*Info`.
    let f: Info = unsafe { entry(obj, slot) }?;
    // SAFETY: the query writes at most `n` bytes to `v` and one size to `r`.
    ask(|n, v, r| unsafe { f(obj, param, n, v, r) })
}

/// `clGetProgramBuildInfo(program, device, param)`.
///
/// # Safety
/// Live driver handles.
pub unsafe fn build_info(program: Obj, device: Obj, param: u32) -> Option<Vec<u8>> {
    // SAFETY: a live program (the contract), whose slot is clGetProgramBuildInfo.
    let f: Info2 = unsafe { entry(program, slot::GET_PROGRAM_BUILD_INFO) }?;
    // SAFETY: the query writes at most `n` bytes to `v` and one size to `r`.
    ask(|n, v, r| unsafe { f(program, device, param, n, v, r) })
}

/// The first word of an answer.
pub fn word(b: &[u8]) -> Option<u64> {
    match b.len() {
        n if n >= 8 => Some(u64::from_ne_bytes(b[..8].try_into().ok()?)),
        n if n >= 4 => Some(u32::from_ne_bytes(b[..4].try_into().ok()?) as u64),
        _ => None,
    }
}

/// A C string answer without its NUL.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b.split(|&c| c == 0).next().unwrap_or_default()).into_owned()
}

/// # Safety
/// A live driver kernel.
pub unsafe fn kernel_name(k: Obj) -> Option<String> {
    // SAFETY: a live kernel (the contract).
    unsafe { info(k, slot::GET_KERNEL_INFO, CL_KERNEL_FUNCTION_NAME) }.map(|b| text(&b))
}

/// A memory object's type and size.
///
/// # Safety
/// A live driver memory object.
pub unsafe fn mem_kind(m: Obj) -> Option<(u32, usize)> {
    // SAFETY: a live memory object (the contract).
    let t = word(&unsafe { info(m, slot::GET_MEM_OBJECT_INFO, CL_MEM_TYPE) }?)? as u32;
    // SAFETY: as above.
    let s = word(&unsafe { info(m, slot::GET_MEM_OBJECT_INFO, CL_MEM_SIZE) }?)? as usize;
    Some((t, s))
}

/// An image's shape: (element size, region) as `clEnqueueReadImage` takes
/// the whole image, and its format (channel order, type).
///
/// # Safety
/// A live driver image.
pub unsafe fn image_shape(m: Obj, ty: u32) -> Option<(usize, [usize; 3], [u32; 2])> {
    // SAFETY: a live image (the contract).
    let q = |p| unsafe { info(m, slot::GET_IMAGE_INFO, p) }.and_then(|b| word(&b)).map(|w| w as usize);
    let el = q(CL_IMAGE_ELEMENT_SIZE)?;
    let (w, h, d) = (q(CL_IMAGE_WIDTH)?, q(CL_IMAGE_HEIGHT).unwrap_or(0), q(CL_IMAGE_DEPTH).unwrap_or(0));
    let arr = q(CL_IMAGE_ARRAY_SIZE).unwrap_or(0);
    let region = match ty {
        CL_MEM_OBJECT_IMAGE1D_ARRAY => [w, arr.max(1), 1],
        CL_MEM_OBJECT_IMAGE2D_ARRAY => [w, h.max(1), arr.max(1)],
        _ => [w, h.max(1), d.max(1)],
    };
    // SAFETY: as above.
    let f = unsafe { info(m, slot::GET_IMAGE_INFO, CL_IMAGE_FORMAT) }?;
    let fmt = if f.len() >= 8 {
        [u32::from_ne_bytes(f[..4].try_into().ok()?), u32::from_ne_bytes(f[4..8].try_into().ok()?)]
    } else {
        [0, 0]
    };
    Some((el, region, fmt))
}

type ReadBuf = unsafe extern "C" fn(Obj, Obj, u32, usize, usize, *mut c_void, u32, *const Obj, *mut Obj) -> i32;
type ReadImg = unsafe extern "C" fn(
    Obj,
    Obj,
    u32,
    *const usize,
    *const usize,
    usize,
    usize,
    *mut c_void,
    u32,
    *const Obj,
    *mut Obj,
) -> i32;

/// A blocking read of `size` bytes of buffer `m` on queue `q`, after
/// `wait` (driver events).
///
/// # Safety
/// Live driver handles of one context.
pub unsafe fn read_buffer(q: Obj, m: Obj, size: usize, wait: &[Obj]) -> Result<Vec<u8>, i32> {
    // SAFETY: a live queue (the contract), whose slot is clEnqueueReadBuffer.
    let f: ReadBuf = unsafe { entry(q, slot::ENQUEUE_READ_BUFFER) }.ok_or(-59)?;
    let mut v = vec![0u8; size];
    let (n, w) = if wait.is_empty() { (0, std::ptr::null()) } else { (wait.len() as u32, wait.as_ptr()) };
    // SAFETY: a blocking read of `size` bytes into `v`, which holds them; live handles (the contract).
    match unsafe { f(q, m, 1, 0, size, v.as_mut_ptr() as *mut c_void, n, w, std::ptr::null_mut()) } {
        0 => Ok(v),
        e => Err(e),
    }
}

/// A blocking write of `bytes` into buffer `m` on queue `q`.
///
/// # Safety
/// Live driver handles of one context.
pub unsafe fn write_buffer(q: Obj, m: Obj, bytes: &[u8], wait: &[Obj]) -> Result<(), i32> {
    // SAFETY: a live queue (the contract), whose slot is clEnqueueWriteBuffer.
    let f: ReadBuf = unsafe { entry(q, slot::ENQUEUE_WRITE_BUFFER) }.ok_or(-59)?;
    let (n, w) = if wait.is_empty() { (0, std::ptr::null()) } else { (wait.len() as u32, wait.as_ptr()) };
    // SAFETY: a blocking write that reads `bytes` whole before it returns; live handles (the contract).
    match unsafe { f(q, m, 1, 0, bytes.len(), bytes.as_ptr() as *mut c_void, n, w, std::ptr::null_mut()) } {
        0 => Ok(()),
        e => Err(e),
    }
}

/// A blocking read (`write`: write) of a whole image, tightly packed.
///
/// # Safety
/// Live driver handles of one context; `bytes` holds the whole region.
pub unsafe fn image_io(
    q: Obj,
    m: Obj,
    region: [usize; 3],
    bytes: *mut u8,
    write: bool,
    wait: &[Obj],
) -> Result<(), i32> {
    let s = if write { slot::ENQUEUE_WRITE_IMAGE } else { slot::ENQUEUE_READ_IMAGE };
    // SAFETY: a live queue (the contract), whose slot is clEnqueueReadImage or clEnqueueWriteImage.
    let f: ReadImg = unsafe { entry(q, s) }.ok_or(-59)?;
    let origin = [0usize; 3];
    let (n, w) = if wait.is_empty() { (0, std::ptr::null()) } else { (wait.len() as u32, wait.as_ptr()) };
    // SAFETY: blocking, tightly packed: `bytes` holds the whole region (the contract).
    match unsafe {
        f(q, m, 1, origin.as_ptr(), region.as_ptr(), 0, 0, bytes as *mut c_void, n, w, std::ptr::null_mut())
    } {
        0 => Ok(()),
        e => Err(e),
    }
}

/// A sampler's normalized coordinates, addressing and filter modes.
///
/// # Safety
/// A live driver sampler.
pub unsafe fn sampler(s: Obj) -> Option<[u32; 3]> {
    // SAFETY: a live sampler (the contract).
    let q = |p| unsafe { info(s, slot::GET_SAMPLER_INFO, p) }.and_then(|b| word(&b)).map(|w| w as u32);
    Some([q(CL_SAMPLER_NORMALIZED_COORDS)?, q(CL_SAMPLER_ADDRESSING_MODE)?, q(CL_SAMPLER_FILTER_MODE)?])
}

type Memcpy = unsafe extern "C" fn(Obj, u32, *mut c_void, *const c_void, usize, u32, *const Obj, *mut Obj) -> i32;
type Gefafp = unsafe extern "C" fn(Obj, *const std::ffi::c_char) -> *mut c_void;

/// A blocking copy of `size` bytes between host memory and an SVM
/// allocation (`usm`: a USM one, copied with the driver's
/// `clEnqueueMemcpyINTEL`), on queue `q` after `wait`.
///
/// # Safety
/// Live driver handles; `dst` and `src` hold `size` bytes.
pub unsafe fn svm_copy(q: Obj, usm: bool, dst: *mut c_void, src: *const c_void, size: usize, wait: &[Obj]) -> i32 {
    let f: Option<Memcpy> = if usm {
        // SAFETY: a live queue, its device and platform (the contract); the slot is
        // clGetExtensionFunctionAddressForPlatform, whose answer for this name has Memcpy's type.
        unsafe {
            let dev = info(q, slot::GET_COMMAND_QUEUE_INFO, CL_QUEUE_DEVICE).and_then(|b| word(&b));
            let plat =
                dev.and_then(|d| info(d as Obj, slot::GET_DEVICE_INFO, CL_DEVICE_PLATFORM)).and_then(|b| word(&b));
            let g = plat.and_then(|p| entry::<Gefafp>(p as Obj, slot::GET_EXTENSION_FUNCTION_ADDRESS_FOR_PLATFORM));
            match (plat, g) {
                (Some(p), Some(g)) => {
                    let a = g(p as Obj, c"clEnqueueMemcpyINTEL".as_ptr());
                    (!a.is_null()).then(|| std::mem::transmute::<*mut c_void, Memcpy>(a))
                }
                _ => None,
            }
        }
    } else {
        // SAFETY: a live queue (the contract), whose slot is clEnqueueSVMMemcpy.
        unsafe { entry(q, slot::ENQUEUE_SVM_MEMCPY) }
    };
    let Some(f) = f else { return -59 };
    let (n, w) = if wait.is_empty() { (0, std::ptr::null()) } else { (wait.len() as u32, wait.as_ptr()) };
    // SAFETY: blocking, `size` bytes at each end (the contract).
    unsafe { f(q, 1, dst, src, size, n, w, std::ptr::null_mut()) }
}

/// `clFinish(q)`.
///
/// # Safety
/// A live driver queue.
pub unsafe fn finish(q: Obj) -> i32 {
    // SAFETY: a live queue (the contract), whose slot is clFinish.
    match unsafe { entry::<unsafe extern "C" fn(Obj) -> i32>(q, slot::FINISH) } {
        // SAFETY: clFinish of that live queue.
        Some(f) => unsafe { f(q) },
        None => -59,
    }
}

/// `clRelease*(obj)` through slot `slot`.
///
/// # Safety
/// A live driver object the caller owns a reference to.
pub unsafe fn release(obj: Obj, slot: usize) {
    // SAFETY: a live object whose slot `slot` is its clRelease* (the contract).
    if let Some(f) = unsafe { entry::<unsafe extern "C" fn(Obj) -> i32>(obj, slot) } {
        // SAFETY: the caller's reference, given up.
        unsafe { f(obj) };
    }
}

/// The raw entry of `slot`, for calls this module does not wrap (the
/// replay's, the execution controls' in the layer).
///
/// # Safety
/// As [`entry`].
pub unsafe fn raw<F: Copy>(obj: Obj, slot: usize) -> Option<F> {
    // SAFETY: the caller's contract is `entry`'s.
    unsafe { entry(obj, slot) }
}
