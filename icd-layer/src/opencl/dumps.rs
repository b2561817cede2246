//! Argument dumps, injection and capture around kernel enqueues
//! (`cltap::dumps` selects, reads, writes and names). The generated
//! wrappers of the calls that set kernel arguments, make kernels and
//! memory objects, release memory objects and enqueue kernels call in here;
//! with no control on, each hook is one relaxed load, and while one is on
//! those wrappers leave their fast path (`bracket::refresh_fast`). Handles
//! here are the driver's (ICD mode has unwrapped them before the call).

#![deny(unsafe_op_in_unsafe_fn)]

use cltap::dumps::{self, args, cl, enqueue};
use std::ffi::c_void;

type Obj = *mut c_void;

/// After a successful `clSetKernelArg`: the value's bytes kept (NULL:
/// local memory of `size` bytes).
///
/// # Safety
/// The call's arguments, which the driver accepted.
pub unsafe fn arg_set(kernel: Obj, index: u32, size: usize, value: *const c_void) {
    if !dumps::on() {
        return;
    }
    let set = if value.is_null() {
        args::Set::Local(size)
    } else {
        // SAFETY: the driver accepted `size` bytes at `value` (the contract).
        args::Set::Value(unsafe { std::slice::from_raw_parts(value as *const u8, size) }.to_vec())
    };
    args::set(kernel as u64, index, set);
}

/// After a successful `clSetKernelArgSVMPointer` (or a USM or ARM pointer).
pub fn arg_pointer(kernel: Obj, index: u32, value: *const c_void) {
    if dumps::on() {
        args::set(kernel as u64, index, args::Set::Svm(value as u64));
    }
}

/// After `clSVMAlloc` (or a USM allocation, `usm`): its size kept, so
/// that a pointer into it can be read to the allocation's end.
pub fn svm_made(p: Obj, size: usize, usm: bool) {
    if dumps::on() && !p.is_null() {
        args::svm_made(p as u64, size as u64, usm);
    }
}

/// After `clSVMFree` (or `clMemFreeINTEL`).
pub fn svm_gone(p: Obj) {
    if dumps::on() && !p.is_null() {
        args::svm_gone(p as u64);
    }
}

/// After a sampler was made.
pub fn sampler_made(s: Obj) {
    if dumps::on() && !s.is_null() {
        args::sampler_made(s as u64);
    }
}

/// After `clCreateKernel` or `clCloneKernel` (`from`: the source kernel).
pub fn kernel_made(k: Obj, from: Obj) {
    if dumps::on() && !k.is_null() {
        args::kernel_made(k as u64, (!from.is_null()).then_some(from as u64));
    }
}

/// After a successful `clCreateKernelsInProgram`.
///
/// # Safety
/// The call's arguments, which the driver filled.
pub unsafe fn kernels_made(kernels: *const Obj, cap: u32, count: *const u32) {
    if !dumps::on() || kernels.is_null() {
        return;
    }
    // SAFETY: the count the driver wrote (the contract).
    let n = if count.is_null() { cap } else { unsafe { *count }.min(cap) };
    for i in 0..n as usize {
        // SAFETY: the driver filled `n` of the array's `cap` entries.
        kernel_made(unsafe { *kernels.add(i) }, std::ptr::null_mut());
    }
}

/// After a call that made a memory object.
pub fn mem_made(m: Obj) {
    if dumps::on() && !m.is_null() {
        args::mem_made(m as u64);
    }
}

/// Before `clReleaseMemObject`: whether this is the last reference (the
/// handle may then name another object later).
///
/// # Safety
/// The application's handle, as it passes it to the driver.
pub unsafe fn last_ref(m: Obj) -> bool {
    // SAFETY: `m` is the application's handle (# Safety); the slot and the
    // query are the memory objects'.
    unsafe { last_of(m, args::is_mem, cl::slot::GET_MEM_OBJECT_INFO, cl::CL_MEM_REFERENCE_COUNT) }
}

/// After the last reference of `m` was released.
pub fn mem_gone(m: Obj) {
    args::mem_gone(m as u64);
}

/// Before `clReleaseSampler`: whether this is the last reference (the
/// handle may then name another object later, or be a scalar's value).
///
/// # Safety
/// The application's handle, as it passes it to the driver.
pub unsafe fn last_sampler_ref(s: Obj) -> bool {
    // SAFETY: `s` is the application's handle (# Safety); the slot and the
    // query are the samplers'.
    unsafe { last_of(s, args::is_sampler, cl::slot::GET_SAMPLER_INFO, cl::CL_SAMPLER_REFERENCE_COUNT) }
}

/// After the last reference of sampler `s` was released.
pub fn sampler_gone(s: Obj) {
    args::sampler_gone(s as u64);
}

/// Whether `obj`, an object the table `tracked` holds, has one reference
/// left, asked with the `clGet*Info` at `slot` for `count`.
///
/// # Safety
/// `obj` is the application's handle; `slot` and `count` are the info query
/// and reference-count name of the kind `tracked` holds.
unsafe fn last_of(obj: Obj, tracked: fn(u64) -> bool, slot: usize, count: u32) -> bool {
    if !dumps::on() || obj.is_null() || !tracked(obj as u64) {
        return false;
    }
    // SAFETY: an object of that kind cltap saw made and not yet released for
    // the last time.
    unsafe { cl::info(obj, slot, count) }.and_then(|b| cl::word(&b)).map(|w| w as u32) == Some(1)
}

/// Before a kernel enqueue: its injections and before-dumps, when selected.
///
/// # Safety
/// The call's arguments, as the driver gets them.
#[allow(clippy::too_many_arguments)]
pub unsafe fn before(
    queue: Obj,
    kernel: Obj,
    work_dim: u32,
    offset: *const usize,
    global: *const usize,
    local: *const usize,
    num_events: u32,
    wait: *const Obj,
) -> Option<enqueue::Pending> {
    if !dumps::on() || global.is_null() || work_dim == 0 || work_dim > 3 {
        return None;
    }
    // SAFETY: each array the application passed holds `work_dim` sizes (the contract).
    let dims =
        |p: *const usize| (!p.is_null()).then(|| unsafe { std::slice::from_raw_parts(p, work_dim as usize) }.to_vec());
    // SAFETY: the wait list holds `num_events` events (the contract).
    let wait: &[Obj] = if wait.is_null() || num_events == 0 {
        &[]
    } else {
        unsafe { std::slice::from_raw_parts(wait, num_events as usize) }
    };
    let l = enqueue::Launch {
        queue,
        kernel,
        work_dim,
        offset: dims(offset),
        global: dims(global).unwrap_or_default(),
        local: dims(local),
        wait,
    };
    // SAFETY: the driver's live handles and events of this call.
    unsafe { enqueue::before(&l) }
}

/// After the kernel enqueue's record: its after-dumps and capture, and
/// their lines in the API log.
///
/// # Safety
/// The same enqueue's handles, still live.
pub unsafe fn after(p: Option<enqueue::Pending>, status: i32) {
    if let Some(p) = p {
        // SAFETY: the same enqueue's handles, still live (the contract).
        for t in unsafe { enqueue::after(p, status) } {
            dumps::note(&t);
        }
    }
}
