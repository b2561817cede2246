//! The replay's arguments made from what was captured: buffers, images
//! (a 1D image over a buffer of its own), SVM allocations, samplers; read
//! back after the kernel, and released.

use super::ReplayError;
use crate::dumps::cl::{self, slot, Obj};
use crate::dumps::manifest::Arg;
use std::ffi::c_void;

const CL_MEM_READ_WRITE: u64 = 1;
const CL_MEM_COPY_HOST_PTR: u64 = 1 << 5;
const CL_MEM_OBJECT_IMAGE1D_BUFFER: u32 = 0x10F6;
const CL_MEM_OBJECT_IMAGE1D_ARRAY: u32 = 0x10F5;
const CL_MEM_OBJECT_IMAGE2D_ARRAY: u32 = 0x10F3;
const CL_MEM_OBJECT_IMAGE2D: u32 = 0x10F1;
const CL_MEM_OBJECT_IMAGE3D: u32 = 0x10F2;

pub(super) fn fail(what: &str, code: i32) -> ReplayError {
    ReplayError::Driver(format!("{what} failed ({code})"))
}

pub(super) fn check(what: &str, h: Obj, err: i32) -> Result<Obj, ReplayError> {
    if h.is_null() || err != 0 {
        return Err(fail(what, err));
    }
    Ok(h)
}

/// An argument the replay made, to read back and release.
pub(super) enum Made {
    /// A buffer, or an image (and the buffer under a 1D buffer image).
    Mem(Obj, Option<Obj>),
    Svm(Obj),
    Sampler(Obj),
}

impl Made {
    /// The word `clSetKernelArg` (or `clSetKernelArgSVMPointer`) takes.
    pub(super) fn handle(&self) -> Obj {
        match self {
            Made::Mem(m, _) | Made::Svm(m) | Made::Sampler(m) => *m,
        }
    }

    /// The contents after the kernel, for an argument that has some.
    ///
    /// # Safety
    /// `q` is the queue of the context the object was made in.
    pub(super) unsafe fn read(&self, q: Obj, a: &Arg) -> Result<Option<Vec<u8>>, ReplayError> {
        let mut v = vec![0u8; a.size];
        match (self, &a.image) {
            // SAFETY: a buffer of `a.size` bytes made for `a`, on its context's queue.
            (Made::Mem(m, _), None) => {
                return unsafe { cl::read_buffer(q, *m, a.size, &[]) }
                    .map(Some)
                    .map_err(|e| fail("reading a buffer back", e))
            }
            (Made::Mem(m, _), Some(img)) => {
                // SAFETY: the image made for `a`; `v` holds its whole region.
                unsafe { cl::image_io(q, *m, img.region, v.as_mut_ptr(), false, &[]) }
                    .map_err(|e| fail("reading an image back", e))?;
            }
            (Made::Svm(p), _) => {
                // SAFETY: an SVM allocation of `a.size` bytes made for `a`.
                let r = unsafe { cl::svm_copy(q, false, v.as_mut_ptr().cast(), *p, a.size, &[]) };
                if r != 0 {
                    return Err(fail("clEnqueueSVMMemcpy", r));
                }
            }
            (Made::Sampler(_), _) => return Ok(None),
        }
        Ok(Some(v))
    }

    /// # Safety
    /// Made in `ctx`, released once.
    pub(super) unsafe fn release(self, ctx: Obj) {
        // SAFETY: objects the replay made, released once (the contract).
        unsafe {
            match self {
                Made::Mem(m, under) => {
                    cl::release(m, slot::RELEASE_MEM_OBJECT);
                    if let Some(b) = under {
                        cl::release(b, slot::RELEASE_MEM_OBJECT);
                    }
                }
                Made::Sampler(s) => cl::release(s, slot::RELEASE_SAMPLER),
                Made::Svm(p) => {
                    if let Some(f) = cl::raw::<unsafe extern "C" fn(Obj, Obj)>(ctx, slot::SVM_FREE) {
                        f(ctx, p)
                    }
                }
            }
        }
    }
}

/// A sampler of the captured modes.
///
/// # Safety
/// `ctx` is the driver's context.
pub(super) unsafe fn sampler(ctx: Obj, a: &Arg) -> Result<Made, ReplayError> {
    let [n, am, fm] = a.sampler.ok_or_else(|| ReplayError::Arg(a.index, "a sampler without its modes".into()))?;
    type F = unsafe extern "C" fn(Obj, u32, u32, u32, *mut i32) -> Obj;
    // SAFETY: the context (the contract); the slot is clCreateSampler, which every version has.
    let f: F = unsafe { cl::raw(ctx, slot::CREATE_SAMPLER) }.ok_or_else(|| fail("clCreateSampler", -59))?;
    let mut err = 0;
    // SAFETY: plain values and an error slot.
    check("clCreateSampler", unsafe { f(ctx, n, am, fm, &mut err) }, err).map(Made::Sampler)
}

/// An SVM allocation holding `b`, where the device has coarse-grain SVM.
///
/// # Safety
/// `ctx`, `dev` and `q` are the driver's, of one context.
pub(super) unsafe fn svm(ctx: Obj, dev: Obj, q: Obj, a: &Arg, b: &[u8]) -> Result<Made, ReplayError> {
    const COARSE_GRAIN_BUFFER: u64 = 1;
    // SAFETY: the driver's device.
    let caps =
        unsafe { cl::info(dev, slot::GET_DEVICE_INFO, cl::CL_DEVICE_SVM_CAPABILITIES) }.and_then(|b| cl::word(&b));
    if caps.unwrap_or(0) & COARSE_GRAIN_BUFFER == 0 {
        return Err(ReplayError::Arg(a.index, "an SVM pointer, and the replay's device has no SVM".into()));
    }
    type F = unsafe extern "C" fn(Obj, u64, usize, u32) -> Obj;
    // SAFETY: the context (the contract); the slot is clSVMAlloc.
    let f: F = unsafe { cl::raw(ctx, slot::SVM_ALLOC) }.ok_or_else(|| fail("clSVMAlloc", -59))?;
    // SAFETY: plain values.
    let p = unsafe { f(ctx, CL_MEM_READ_WRITE, b.len().max(1), 0) };
    if p.is_null() {
        return Err(fail("clSVMAlloc", 0));
    }
    // SAFETY: `b.len()` bytes at each end; the queue of the allocation's context.
    let r = unsafe { cl::svm_copy(q, false, p, b.as_ptr().cast(), b.len(), &[]) };
    if r != 0 {
        // SAFETY: made above, freed once.
        unsafe { Made::Svm(p).release(ctx) };
        return Err(fail("clEnqueueSVMMemcpy", r));
    }
    Ok(Made::Svm(p))
}

pub(super) unsafe fn buffer(ctx: Obj, b: &mut [u8]) -> Result<Obj, ReplayError> {
    type F = unsafe extern "C" fn(Obj, u64, usize, *mut c_void, *mut i32) -> Obj;
    // SAFETY: the context (the contract); the slot is clCreateBuffer.
    let f: F = unsafe { cl::raw(ctx, slot::CREATE_BUFFER) }.ok_or_else(|| fail("clCreateBuffer", -59))?;
    let mut err = 0;
    let flags = CL_MEM_READ_WRITE | if b.is_empty() { 0 } else { CL_MEM_COPY_HOST_PTR };
    let host = if b.is_empty() { std::ptr::null_mut() } else { b.as_mut_ptr() as *mut c_void };
    // SAFETY: `host` holds the size's bytes (or is NULL without CL_MEM_COPY_HOST_PTR).
    check("clCreateBuffer", unsafe { f(ctx, flags, b.len().max(1), host, &mut err) }, err)
}

#[repr(C)]
struct ImageDesc {
    image_type: u32,
    width: usize,
    height: usize,
    depth: usize,
    array_size: usize,
    row_pitch: usize,
    slice_pitch: usize,
    num_mip_levels: u32,
    num_samples: u32,
    mem_object: Obj,
}

pub(super) unsafe fn image(ctx: Obj, a: &Arg, b: &mut [u8]) -> Result<Made, ReplayError> {
    let i = a.image.as_ref().ok_or_else(|| ReplayError::Arg(a.index, "an image without its shape".into()))?;
    // A 1D buffer image: over a buffer of its own that holds the contents.
    let under = if i.mem_type == CL_MEM_OBJECT_IMAGE1D_BUFFER {
        // SAFETY: the context (the contract).
        Some(unsafe { buffer(ctx, b) }?)
    } else {
        None
    };
    let [w, h, d] = i.region;
    let (height, depth, array) = match i.mem_type {
        CL_MEM_OBJECT_IMAGE1D_ARRAY => (0, 0, h),
        CL_MEM_OBJECT_IMAGE2D_ARRAY => (h, 0, d),
        CL_MEM_OBJECT_IMAGE2D => (h, 0, 0),
        CL_MEM_OBJECT_IMAGE3D => (h, d, 0),
        _ => (0, 0, 0),
    };
    let desc = ImageDesc {
        image_type: i.mem_type,
        width: w,
        height,
        depth,
        array_size: array,
        row_pitch: 0,
        slice_pitch: 0,
        num_mip_levels: 0,
        num_samples: 0,
        mem_object: under.unwrap_or(std::ptr::null_mut()),
    };
    type F = unsafe extern "C" fn(Obj, u64, *const [u32; 2], *const ImageDesc, *mut c_void, *mut i32) -> Obj;
    // SAFETY: the context (the contract); the slot is clCreateImage.
    let f: F = unsafe { cl::raw(ctx, slot::CREATE_IMAGE) }.ok_or_else(|| fail("clCreateImage", -59))?;
    let mut err = 0;
    let (flags, host) = match under {
        Some(_) => (CL_MEM_READ_WRITE, std::ptr::null_mut()),
        None => (CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, b.as_mut_ptr() as *mut c_void),
    };
    // SAFETY: `host` is NULL or `b`, which holds the whole image, tightly packed, as the descriptor says.
    let m = unsafe { f(ctx, flags, &i.format, &desc, host, &mut err) };
    match check("clCreateImage", m, err) {
        Ok(m) => Ok(Made::Mem(m, under)),
        Err(e) => {
            if let Some(u) = under {
                // SAFETY: made above, released once.
                unsafe { cl::release(u, slot::RELEASE_MEM_OBJECT) };
            }
            Err(e)
        }
    }
}
