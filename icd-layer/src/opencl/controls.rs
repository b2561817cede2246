//! The event checks and execution controls around the calls they hook
//! (`cltap::controls` holds their state, texts and arithmetic). Only the
//! generated wrappers of queue creation, of calls with an event wait list
//! and of enqueues call in here, and only when a control is on.
//!
//! cltap's own calls here (event and queue queries, `clFlush`, `clFinish`,
//! a user event for a skipped enqueue, the release of an event of its own)
//! go straight to the driver through the object's dispatch table: they pass
//! no wrapper, so they are neither recorded nor seen by the application.
//! Handles here are the driver's (ICD mode has unwrapped them before the
//! call).

use super::api::slot;
use cltap::controls::checks::{self, Event, List};
use cltap::controls::{FINISH, NOTE_EVENT_CHECK, NOTE_FAILED_COMMAND};
use cltap::dumps::cl::{kernel_name, raw as entry};
use cltap::icd::handles::HandleSpace;
use cltap::trace::names::{execution_status_text, status_text};
use std::ffi::c_void;

type Obj = *mut c_void;
type GetInfo = unsafe extern "C" fn(Obj, u32, usize, *mut c_void, *mut usize) -> i32;
type OnQueue = unsafe extern "C" fn(Obj) -> i32;
type CreateUserEvent = unsafe extern "C" fn(Obj, *mut i32) -> Obj;
type SetUserEventStatus = unsafe extern "C" fn(Obj, i32) -> i32;

const CL_QUEUE_CONTEXT: u32 = 0x1090;
const CL_EVENT_COMMAND_TYPE: u32 = 0x11D1;
const CL_EVENT_COMMAND_EXECUTION_STATUS: u32 = 0x11D3;
const CL_EVENT_CONTEXT: u32 = 0x11D4;
const CL_COMMAND_USER: u32 = 0x1204;
const CL_COMPLETE: i32 = 0;
const CL_INVALID_EVENT: i32 = -58;
const CL_INVALID_OPERATION: i32 = -59;
/// Longer lists are checked up to here: the checks must not cost more
/// than the call.
const MOST_CHECKED: u32 = 4096;

/// A fixed-size answer of a `clGet*Info` of `obj` (a queue, an event, a
/// kernel), or the driver's error.
///
/// # Safety
/// `obj` is NULL or a live object of the driver's; `slot` is a `clGet*Info` entry of its kind.
unsafe fn info<T: Copy + Default>(obj: Obj, slot: usize, param: u32) -> Result<T, i32> {
    // SAFETY: as this function's # Safety; the slot's function has GetInfo's type.
    let f: GetInfo = unsafe { entry(obj, slot) }.ok_or(CL_INVALID_OPERATION)?;
    let mut v = T::default();
    // SAFETY: the driver writes at most size_of::<T>() bytes into `v`, which is that big.
    match unsafe { f(obj, param, std::mem::size_of::<T>(), &mut v as *mut T as *mut c_void, std::ptr::null_mut()) } {
        0 => Ok(v),
        e => Err(e),
    }
}

/// An event as the driver describes it; `app` is the application's handle
/// for it (in ICD mode, one cltap did not give out is no event of any
/// driver's, and is not looked into).
///
/// # Safety
/// As for [`entry`], for a handle cltap gave out in ICD mode.
unsafe fn describe(e: Obj, app: Obj, hs: Option<&HandleSpace>) -> Event {
    if app.is_null() {
        return Event::Null;
    }
    if hs.is_some_and(|hs| !hs.is_ours(app)) {
        return Event::Invalid(CL_INVALID_EVENT);
    }
    // SAFETY (the three queries): `e` is the driver's event (# Safety), asked its own info.
    let context = match unsafe { info::<u64>(e, slot::clGetEventInfo, CL_EVENT_CONTEXT) } {
        Ok(c) => c,
        Err(code) => return Event::Invalid(code),
    };
    let status =
        unsafe { info::<i32>(e, slot::clGetEventInfo, CL_EVENT_COMMAND_EXECUTION_STATUS) }.unwrap_or(CL_COMPLETE);
    let user = unsafe { info::<u32>(e, slot::clGetEventInfo, CL_EVENT_COMMAND_TYPE) } == Ok(CL_COMMAND_USER);
    Event::Known { context, status, user }
}

/// Before a call with an event wait list (`CLTAP_EVENT_CHECKS`): each
/// entry checked, and each finding noted before the call's record. The
/// call is then forwarded as it was, whatever was found.
///
/// # Safety
/// `list` is the list the driver gets (its handles), `app` the
/// application's, both of `count` entries (or NULL); `queue` is NULL or
/// the driver's queue.
#[allow(clippy::too_many_arguments)]
pub unsafe fn check_list(
    call: &str,
    name: &str,
    queue: Obj,
    count: u32,
    list: *const Obj,
    app: *const Obj,
    blocking: bool,
    hs: Option<&HandleSpace>,
) {
    let context = if queue.is_null() {
        None
    } else {
        // SAFETY: a non-NULL `queue` is the driver's queue (# Safety).
        unsafe { info::<u64>(queue, slot::clGetCommandQueueInfo, CL_QUEUE_CONTEXT) }.ok()
    };
    let l = List { call, name, count, null: list.is_null(), context, blocking };
    let n = if list.is_null() { 0 } else { count.min(MOST_CHECKED) as usize };
    let events: Vec<(u64, Event)> = (0..n)
        .map(|i| {
            // SAFETY: both lists have `count` entries (# Safety) and i < count.
            let (d, a) = unsafe { (*list.add(i), if app.is_null() { *list.add(i) } else { *app.add(i) }) };
            // SAFETY: `d` is the driver's handle for the application's `a` (# Safety).
            (a as u64, unsafe { describe(d, a, hs) })
        })
        .collect();
    for f in checks::findings(&l, &events) {
        report(NOTE_EVENT_CHECK, &f);
    }
}

/// A line of the controls': in the trace (the API log, the summary), or
/// on stderr where no trace takes it.
fn report(what: u64, text: &str) {
    if !cltap::controls::note(what, text) {
        cltap::warn!("{text}");
    }
}

/// A skipped enqueue (`CLTAP_SKIP_ENQUEUES`): nothing reaches the driver
/// but, where the application asked for an event, a user event of the
/// queue's context, already complete, which it may wait on, query and
/// release as any other.
///
/// # Safety
/// `queue` is the driver's queue; `event` NULL or where the event goes.
pub unsafe fn skipped(queue: Obj, event: *mut Obj) -> i32 {
    if event.is_null() {
        return 0;
    }
    // SAFETY: `queue` is the driver's queue (# Safety).
    let context = match unsafe { info::<Obj>(queue, slot::clGetCommandQueueInfo, CL_QUEUE_CONTEXT) } {
        Ok(c) => c,
        Err(e) => return e,
    };
    // SAFETY: the driver's answer is its own context; the slot is clCreateUserEvent's.
    let Some(create) = (unsafe { entry::<CreateUserEvent>(context, slot::clCreateUserEvent) }) else {
        return CL_INVALID_OPERATION;
    };
    let mut err = 0;
    // SAFETY: a context of the driver's and a writable error slot.
    let ev = unsafe { create(context, &mut err) };
    if ev.is_null() {
        return if err != 0 { err } else { CL_INVALID_OPERATION };
    }
    // SAFETY: `ev` is the driver's new event; the slot is clSetUserEventStatus', called on a user event.
    if let Some(set) = unsafe { entry::<SetUserEventStatus>(ev, slot::clSetUserEventStatus) } {
        // SAFETY: as above.
        unsafe { set(ev, CL_COMPLETE) };
    }
    // SAFETY: a non-NULL `event` is where the event goes (# Safety).
    unsafe { *event = ev };
    0
}

/// After an enqueue, with `CLTAP_FINISH_AFTER_ENQUEUE` or
/// `CLTAP_FLUSH_AFTER_ENQUEUE` (`bits`): the queue flushed, or finished
/// and the command's status read from its event; a command that failed is
/// named with its CMD ID (`cmd`, 0 where the call was not recorded) in the
/// API log and on stderr. `own`: the event is the controls', released here.
///
/// # Safety
/// `queue` is the driver's queue, `event` NULL or where the driver wrote
/// the command's event (when `ok`), `kernel` NULL or the driver's kernel.
#[allow(clippy::too_many_arguments)]
pub unsafe fn after_enqueue(
    call: &str,
    cmd: u64,
    bits: u8,
    queue: Obj,
    ok: bool,
    event: *mut Obj,
    own: bool,
    kernel: Obj,
) {
    // SAFETY: after a successful call the driver wrote its event at a non-NULL `event` (# Safety).
    let ev = if ok && !event.is_null() { unsafe { *event } } else { std::ptr::null_mut() };
    let slot = if bits & FINISH != 0 { slot::clFinish } else { slot::clFlush };
    // SAFETY: `queue` is the driver's queue (# Safety); clFinish's and clFlush's slots take it alone.
    let waited = unsafe { entry::<OnQueue>(queue, slot) }.map(|f| unsafe { f(queue) });
    if bits & FINISH != 0 && ok {
        let status = if ev.is_null() {
            None
        } else {
            // SAFETY: `ev` is the driver's event of this command.
            unsafe { info::<i32>(ev, slot::clGetEventInfo, CL_EVENT_COMMAND_EXECUTION_STATUS) }.ok()
        };
        let why = match (waited, status) {
            (Some(w), _) if w != 0 => Some(format!("clFinish after it returned {}", status_text(w))),
            (_, Some(s)) if s < 0 => Some(format!("the command ended with {}", execution_status_text(s))),
            _ => None,
        };
        if let Some(why) = why {
            // SAFETY: `kernel` is NULL or the driver's kernel (# Safety).
            let text = format!("{}: {why}", unsafe { command_text(call, cmd, kernel) });
            cltap::controls::note(NOTE_FAILED_COMMAND, &text);
            cltap::warn!("finish after enqueue: {text}");
        }
    }
    if own && !ev.is_null() {
        // SAFETY: `ev` is the controls' own event of the driver's, released once here; the
        // slot takes the one object, as OnQueue does.
        if let Some(release) = unsafe { entry::<OnQueue>(ev, slot::clReleaseEvent) } {
            // SAFETY: as above.
            unsafe { release(ev) };
        }
    }
}

/// `clEnqueueNDRangeKernel (CMD ID 7, kernel vecadd)`.
///
/// # Safety
/// `kernel` is NULL or the driver's kernel.
unsafe fn command_text(call: &str, cmd: u64, kernel: Obj) -> String {
    let mut parts = Vec::new();
    if cmd != 0 {
        parts.push(format!("CMD ID {cmd}"));
    }
    // SAFETY: `kernel` is NULL or the driver's kernel (# Safety).
    if let Some(k) = (!kernel.is_null()).then(|| unsafe { kernel_name(kernel) }).flatten() {
        parts.push(format!("kernel {k}"));
    }
    if parts.is_empty() {
        call.to_string()
    } else {
        format!("{call} ({})", parts.join(", "))
    }
}
