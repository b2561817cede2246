//! Profiling forced on and hidden: the application's own queue properties
//! kept for its queries, and profiling queries on a queue it did not make
//! for profiling refused as its driver would have.

use super::super::api::slot;
use super::{forget_queue, fork_handlers, handle_info, info_fn, on, read, CL_EVENT_COMMAND_QUEUE};
use cltap::devtime::cl::CL_PROFILING_COMMAND_QUEUED;
use cltap::devtime::memo::Memo;
use cltap::devtime::queues::{self, AppQueue, CL_QUEUE_PROPERTIES, CL_QUEUE_PROPERTIES_ARRAY};
use cltap::icd_table::object_slot;
use std::ffi::c_void;

/// Per driver: whether it refuses profiling queries on a queue made
/// without profiling (see `driver_refuses`).
pub(super) static REFUSES: Memo<bool> = Memo::new();
/// Per driver: whether it returns the terminator for a queue made with the
/// empty list `{0}` (PoCL and Intel do, NVIDIA answers with no entries).
pub(super) static EMPTY_LIST_TERMINATOR: Memo<bool> = Memo::new();

/// # Safety
/// `queue` is NULL or the live queue the application just made.
pub unsafe fn remember_bits(queue: *mut c_void, app: u64) {
    if on() && !queue.is_null() {
        fork_handlers();
        forget_queue(queue);
        queues::remember(queue as usize, AppQueue::from_bits(app));
    }
}

/// # Safety
/// `queue` is NULL or the live queue the application just made; `app` is NULL or its
/// zero-terminated property list.
pub unsafe fn remember_list(queue: *mut c_void, app: *mut c_void) {
    if !on() || queue.is_null() {
        return;
    }
    fork_handlers();
    forget_queue(queue);
    // SAFETY: `read_list`'s # Safety follows from this fn's.
    let pairs = unsafe { queues::read_list(app as *const u64) };
    queues::remember(queue as usize, AppQueue::from_list(pairs, app.is_null()));
}

/// Whether this queue's driver refuses profiling queries for commands of a
/// queue made without profiling, as the specification says it must (some
/// drivers, such as Oclgrind, answer anyway). Probed once per driver, the
/// first time an application asks such a question, with a marker on a
/// scratch queue straight through the driver. The scratch queue and event
/// are kept: releasing them right after the marker completes races with
/// PoCL's worker thread.
///
/// # Safety
/// `queue` is a live command queue of the driver (its dispatch table first).
unsafe fn driver_refuses(queue: *mut c_void) -> bool {
    // SAFETY: `object_slot`: the object is a live ICD object, its dispatch table first (# Safety).
    let slot = |h: *mut c_void, s: usize| unsafe { object_slot(h, s) };
    // SAFETY: `info_fn`: the handle is a live object of the driver, its dispatch table first (# Safety).
    let Some(qi) = (unsafe { info_fn(queue, slot::clGetCommandQueueInfo) }) else { return true };
    // SAFETY: `handle_info`: `f` is the info query of the handle's kind, its answer one handle (# Safety).
    let (ctx, dev) = unsafe { (handle_info(qi, queue, 0x1090), handle_info(qi, queue, 0x1091)) };
    if ctx.is_null() || dev.is_null() {
        return true;
    }
    // SAFETY: `key_of`: the handle is NULL or a live object (# Safety).
    let key = unsafe { cltap::exts::key_of(queue) } as usize;
    if let Some(r) = REFUSES.get(key) {
        return r;
    }
    let probe = || -> Option<bool> {
        let create = slot(ctx, slot::clCreateCommandQueue);
        let marker = slot(queue, slot::clEnqueueMarkerWithWaitList);
        if create.is_null() || marker.is_null() {
            return None;
        }
        // SAFETY: the address is that entry's, and this type its C prototype.
        let create: unsafe extern "C" fn(*mut c_void, *mut c_void, u64, *mut i32) -> *mut c_void =
            unsafe { std::mem::transmute(create) };
        let mut err = 0;
        // SAFETY: `create` gets arguments its C declaration accepts.
        let q = unsafe { create(ctx, dev, 0, &mut err) };
        if q.is_null() {
            return None;
        }
        // SAFETY: the address is that entry's, and this type its C prototype.
        let marker: unsafe extern "C" fn(*mut c_void, u32, *const c_void, *mut *mut c_void) -> i32 =
            unsafe { std::mem::transmute(slot(q, slot::clEnqueueMarkerWithWaitList)) };
        let mut ev: *mut c_void = std::ptr::null_mut();
        let mut refuses = None;
        // SAFETY: `marker` gets arguments its C declaration accepts.
        if unsafe { marker(q, 0, std::ptr::null(), &mut ev) } == 0 && !ev.is_null() {
            // SAFETY: the address is that entry's, and this type its C prototype.
            let finish: unsafe extern "C" fn(*mut c_void) -> i32 =
                unsafe { std::mem::transmute(slot(q, slot::clFinish)) };
            // SAFETY: `finish` gets arguments its C declaration accepts.
            unsafe { finish(q) };
            // SAFETY: `info_fn`: the handle is a live object of the driver, its dispatch table first (# Safety).
            let pi = unsafe { info_fn(ev, slot::clGetEventProfilingInfo) }?;
            // SAFETY: `read`: `f` is the info query of the handle's kind, its answer exactly a `T` (# Safety).
            refuses = Some(unsafe { read::<u64>(pi, ev, CL_PROFILING_COMMAND_QUEUED + 3) }.is_none());
        }
        refuses
    };
    let r = probe().unwrap_or(true);
    REFUSES.insert(key, r);
    r
}

/// Answers a queue query whose true answer would reveal the forced flag.
///
/// # Safety
/// `queue` is a live command queue; `value` is NULL or writable for `size` bytes and `size_ret`
/// NULL or writable, as `clGetCommandQueueInfo` declares them.
pub unsafe fn answer_queue_info(
    queue: *mut c_void,
    param: u32,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> Option<i32> {
    if !on() {
        return None;
    }
    fork_handlers();
    let bytes: Vec<u8> = match param as u64 {
        CL_QUEUE_PROPERTIES => {
            queues::profiling(queue as usize)?;
            // The driver's answer with only the profiling bit put back.
            // SAFETY: `info_fn`: the handle is a live object of the driver, its dispatch table first (# Safety).
            let f = unsafe { info_fn(queue, slot::clGetCommandQueueInfo) }?;
            // SAFETY: `read`: `f` is the info query of the handle's kind, its answer exactly a `T` (# Safety).
            let v: u64 = unsafe { read(f, queue, param) }?;
            let app_profiling = queues::profiling(queue as usize).unwrap_or(true);
            queues::properties_answer(v, app_profiling).to_ne_bytes().to_vec()
        }
        _ if param == CL_QUEUE_PROPERTIES_ARRAY => match queues::lookup(queue as usize)?.list {
            Some(l) => {
                // SAFETY: `returns_terminator`'s # Safety follows from this fn's.
                let terminator = unsafe { returns_terminator(queue, l.len() == 1) };
                queues::array_answer(l, terminator)
            }
            None => Vec::new(),
        },
        _ => return None,
    };
    // SAFETY: `write_answer`'s # Safety follows from this fn's.
    Some(unsafe { queues::write_answer(&bytes, size, value as *mut u8, size_ret) })
}

/// Whether `queue`'s driver includes the terminator in its
/// `CL_QUEUE_PROPERTIES_ARRAY` answer. For a non-empty list the driver's
/// answer about the list it was given says; for an empty one a scratch
/// queue made with `{0}` is asked, once per driver.
///
/// # Safety
/// `queue` is a live command queue of the driver.
unsafe fn returns_terminator(queue: *mut c_void, empty: bool) -> bool {
    // SAFETY: `info_fn`: the handle is a live object of the driver, its dispatch table first (# Safety).
    let Some(qi) = (unsafe { info_fn(queue, slot::clGetCommandQueueInfo) }) else { return true };
    let words = |q: *mut c_void| {
        let mut n = 0usize;
        // SAFETY: `qi` gets arguments its C declaration accepts.
        (unsafe { qi(q, CL_QUEUE_PROPERTIES_ARRAY, 0, std::ptr::null_mut(), &mut n) } == 0).then_some(n / 8)
    };
    if !empty {
        return queues::has_terminator(words(queue));
    }
    // SAFETY: `key_of`: the handle is NULL or a live object (# Safety).
    let key = unsafe { cltap::exts::key_of(queue) } as usize;
    if let Some(t) = EMPTY_LIST_TERMINATOR.get(key) {
        return t;
    }
    let probe = || -> Option<bool> {
        // SAFETY: `handle_info`: `f` is the info query of the handle's kind, its answer one handle (# Safety).
        let (ctx, dev) = unsafe { (handle_info(qi, queue, 0x1090), handle_info(qi, queue, 0x1091)) };
        // SAFETY: `object_slot`: the object is a live ICD object, its dispatch table first (# Safety).
        let create = unsafe { object_slot(ctx, slot::clCreateCommandQueueWithProperties) };
        if ctx.is_null() || dev.is_null() || create.is_null() {
            return None;
        }
        // SAFETY: the address is that entry's, and this type its C prototype.
        let create: unsafe extern "C" fn(*mut c_void, *mut c_void, *const u64, *mut i32) -> *mut c_void =
            unsafe { std::mem::transmute(create) };
        let empty = [0u64];
        let mut err = 0;
        // SAFETY: `create` gets arguments its C declaration accepts.
        let q = unsafe { create(ctx, dev, empty.as_ptr(), &mut err) };
        if q.is_null() {
            return None;
        }
        let n = words(q);
        // SAFETY: `object_slot`: the object is a live ICD object, its dispatch table first (# Safety).
        let release = unsafe { object_slot(q, slot::clReleaseCommandQueue) };
        if !release.is_null() {
            // SAFETY: the entry called here gets arguments its C declaration accepts.
            unsafe { std::mem::transmute::<*const c_void, unsafe extern "C" fn(*mut c_void) -> i32>(release)(q) };
        }
        n.map(|n| n > 0)
    };
    let t = probe().unwrap_or(true);
    EMPTY_LIST_TERMINATOR.insert(key, t);
    t
}

/// `CL_PROFILING_INFO_NOT_AVAILABLE` for an event of a queue the application
/// did not create for profiling.
///
/// # Safety
/// `event` is a live event of the driver.
pub unsafe fn refuse_profiling(event: *mut c_void) -> Option<i32> {
    if !on() || event.is_null() {
        return None;
    }
    fork_handlers();
    // SAFETY: `info_fn`: the handle is a live object of the driver, its dispatch table first (# Safety).
    let f = unsafe { info_fn(event, slot::clGetEventInfo) }?;
    // SAFETY: `handle_info`: `f` is the info query of the handle's kind, its answer one handle (# Safety).
    let q = unsafe { handle_info(f, event, CL_EVENT_COMMAND_QUEUE) };
    if q.is_null() {
        return None;
    }
    let profiling = queues::profiling(q as usize)?;
    // SAFETY: `driver_refuses`'s # Safety follows from this fn's.
    (!profiling && unsafe { driver_refuses(q) }).then_some(-7)
}
