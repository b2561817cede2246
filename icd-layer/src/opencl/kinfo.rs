//! With counters asked for (`CLTAP_COUNTERS`), what the driver tells of
//! each NDRange's kernel on its device: one `KIND_KERNEL_INFO` record per
//! successful enqueue, under its command id. OpenCL drivers without
//! hardware counters (PoCL, Intel, Oclgrind, NVIDIA) report these kernel
//! statistics in the counter files instead. Asked straight of the driver
//! through the object's own dispatch table, so nothing is logged.

use super::api::slot;
use super::handles;
use cltap::icd_table::object_slot;
use cltap::trace::record::*;
use std::ffi::c_void;

const CL_QUEUE_DEVICE: u32 = 0x1091;
const CL_KERNEL_WORK_GROUP_SIZE: u32 = 0x11B0;
const CL_KERNEL_LOCAL_MEM_SIZE: u32 = 0x11B2;
const CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: u32 = 0x11B3;
const CL_KERNEL_PRIVATE_MEM_SIZE: u32 = 0x11B4;
const CL_DEVICE_MAX_COMPUTE_UNITS: u32 = 0x1002;
const CL_DEVICE_MAX_WORK_GROUP_SIZE: u32 = 0x1004;
const CL_DEVICE_LOCAL_MEM_SIZE: u32 = 0x1023;
const CL_DEVICE_TYPE: u32 = 0x1000;
const CL_DEVICE_NAME: u32 = 0x102B;
const CL_KERNEL_FUNCTION_NAME: u32 = 0x1190;

/// A string answer, empty when the driver has none (asked for its size
/// first: kernel names can be long).
///
/// # Safety
/// `f` is an info query that writes at most the size it is given into the buffer it is given.
unsafe fn text(f: impl Fn(usize, *mut c_void, *mut usize) -> i32) -> String {
    let mut n = 0usize;
    if f(0, std::ptr::null_mut(), &mut n) != 0 || n == 0 || n > 1 << 16 {
        return String::new();
    }
    let mut buf = vec![0u8; n];
    if f(n, buf.as_mut_ptr() as *mut c_void, std::ptr::null_mut()) != 0 {
        return String::new();
    }
    let end = buf.iter().position(|b| *b == 0).unwrap_or(n);
    String::from_utf8_lossy(&buf[..end]).replace(['\t', '\n'], " ")
}

type InfoFn = unsafe extern "C" fn(*mut c_void, u32, usize, *mut c_void, *mut usize) -> i32;
type KernelWgInfo = unsafe extern "C" fn(*mut c_void, *mut c_void, u32, usize, *mut c_void, *mut usize) -> i32;

/// Whether NDRanges get their kernel's statistics recorded.
pub fn on() -> bool {
    crate::life::config().counting()
}

/// A number-valued answer (`size` bytes, little-endian, at most 8).
///
/// # Safety
/// `f` writes at most `size` bytes into the buffer it is given.
unsafe fn number(f: impl Fn(usize, *mut c_void) -> i32, size: usize) -> u64 {
    let mut v = 0u64;
    if f(size, &mut v as *mut u64 as *mut c_void) == 0 {
        v
    } else {
        u64::MAX
    }
}

/// Records the statistics of the NDRange with command id `cmd`.
///
/// # Safety
/// `app` are the arguments of a successful `clEnqueueNDRangeKernel`-shaped
/// call (queue, kernel first).
/// `within`: the launch is inside the kernel filter (else its record is
/// flagged, and the counter files leave it out).
pub unsafe fn record(cmd: u64, app: &[u64], within: bool) {
    let (mut queue, mut kernel) = (app[0] as *mut c_void, app[1] as *mut c_void);
    if let Some(hs) = handles::if_ready().filter(|h| h.is_ours(queue)) {
        queue = hs.unwrap(queue);
        kernel = hs.unwrap(kernel);
    }
    // SAFETY: `object_slot`: the object is a live ICD object, its dispatch table first (# Safety).
    let qi = unsafe { object_slot(queue, slot::clGetCommandQueueInfo) };
    // SAFETY: `object_slot`: the object is a live ICD object, its dispatch table first (# Safety).
    let kwi = unsafe { object_slot(kernel, slot::clGetKernelWorkGroupInfo) };
    if qi.is_null() || kwi.is_null() {
        return;
    }
    // SAFETY: the address is that entry's, and this type its C prototype.
    let qi: InfoFn = unsafe { std::mem::transmute(qi) };
    // SAFETY: the address is that entry's, and this type its C prototype.
    let kwi: KernelWgInfo = unsafe { std::mem::transmute(kwi) };
    let mut dev: *mut c_void = std::ptr::null_mut();
    // SAFETY: `qi` gets arguments its C declaration accepts.
    if unsafe { qi(queue, CL_QUEUE_DEVICE, 8, &mut dev as *mut *mut c_void as *mut c_void, std::ptr::null_mut()) } != 0
        || dev.is_null()
    {
        return;
    }
    let size_t = std::mem::size_of::<usize>();
    // SAFETY: `number`'s # Safety follows from this fn's.
    let k =
        |param: u32, size: usize| unsafe { number(|n, p| kwi(kernel, dev, param, n, p, std::ptr::null_mut()), size) };
    let mut w = [u64::MAX; KINFO_WORDS];
    w[KINFO_LOCAL_MEM] = k(CL_KERNEL_LOCAL_MEM_SIZE, 8);
    w[KINFO_PRIVATE_MEM] = k(CL_KERNEL_PRIVATE_MEM_SIZE, 8);
    w[KINFO_PREFERRED_MULTIPLE] = k(CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, size_t);
    w[KINFO_WORK_GROUP_SIZE] = k(CL_KERNEL_WORK_GROUP_SIZE, size_t);
    // SAFETY: `object_slot`: the object is a live ICD object, its dispatch table first (# Safety).
    let ki = unsafe { object_slot(kernel, slot::clGetKernelInfo) };
    let kernel_name = if ki.is_null() {
        String::new()
    } else {
        // SAFETY: the address is that entry's, and this type its C prototype.
        let ki: InfoFn = unsafe { std::mem::transmute(ki) };
        // SAFETY: `text`'s # Safety follows from this fn's.
        unsafe { text(|n, p, r| ki(kernel, CL_KERNEL_FUNCTION_NAME, n, p, r)) }
    };
    let mut device_name = String::new();
    // SAFETY: `object_slot`: the object is a live ICD object, its dispatch table first (# Safety).
    let di = unsafe { object_slot(dev, slot::clGetDeviceInfo) };
    if !di.is_null() {
        // SAFETY: the address is that entry's, and this type its C prototype.
        let di: InfoFn = unsafe { std::mem::transmute(di) };
        // SAFETY: `number`'s # Safety follows from this fn's.
        let d = |param: u32, size: usize| unsafe { number(|n, p| di(dev, param, n, p, std::ptr::null_mut()), size) };
        w[KINFO_DEVICE_CUS] = d(CL_DEVICE_MAX_COMPUTE_UNITS, 4);
        w[KINFO_DEVICE_LOCAL_MEM] = d(CL_DEVICE_LOCAL_MEM_SIZE, 8);
        w[KINFO_DEVICE_MAX_WG] = d(CL_DEVICE_MAX_WORK_GROUP_SIZE, size_t);
        w[KINFO_DEVICE_TYPE] = d(CL_DEVICE_TYPE, 8);
        // SAFETY: `text`'s # Safety follows from this fn's.
        device_name = unsafe { text(|n, p, r| di(dev, CL_DEVICE_NAME, n, p, r)) };
    }
    let names = format!("{kernel_name}\t{device_name}");
    let flags = if within { 0 } else { FLAG_FILTERED };
    cltap::trace::local::record_kind_flagged::<KIND_KERNEL_INFO>(flags, cmd, 0, 0, &w, Some(&names));
}
