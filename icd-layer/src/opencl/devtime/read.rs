//! A read of one queue's held events: which have finished, their four
//! profiling times, and cltap's reference given back. Each driver call is
//! paid on NVIDIA under the lock its enqueues take, so a read asks only
//! what it cannot know:
//! - an in-order queue finishes its commands in order: the last held
//!   event's status says whether all have; if not, the first still running
//!   is found by bisection, so a read of `n` events asks about log₂ `n`
//!   statuses, not `n`;
//! - an event whose four times the driver gives has completed (the
//!   specification gives them only for `CL_COMPLETE`); its status is asked
//!   only where one is refused;
//! - a command's type is its enqueue function's, asked once per function
//!   and queue (`QueueList::cmd_type`).
//!
//! So a completed command costs four profiling queries and the release.

use super::super::api::slot;
use super::{info_fn, read, release};
use cltap::devtime::cl::{CL_EVENT_COMMAND_EXECUTION_STATUS, CL_EVENT_COMMAND_TYPE, CL_PROFILING_COMMAND_QUEUED};
use cltap::devtime::enqueue::{self, Counters};
use cltap::devtime::pending::{self, Held, QueueList, OUTSTANDING};
use std::ffi::c_void;

const CL_COMPLETE: i32 = 0;

/// The event's `CL_EVENT_COMMAND_EXECUTION_STATUS`, where the driver says.
///
/// # Safety
/// `ev` is an event the caller holds a reference on.
unsafe fn status(ev: usize) -> Option<i32> {
    let ev = ev as *mut c_void;
    // SAFETY: `ev` is an event of the driver's with a reference held (# Safety), asked its own info.
    unsafe { info_fn(ev, slot::clGetEventInfo).and_then(|f| read::<i32>(f, ev, CL_EVENT_COMMAND_EXECUTION_STATUS)) }
}

/// Whether a status is one of a command no longer running: complete,
/// failed (negative), or not to be had.
fn finished(st: Option<i32>) -> bool {
    st.is_none_or(|s| s <= CL_COMPLETE)
}

/// How many of an in-order queue's `batch` have finished: the last's
/// status, then a bisection for the first still running.
///
/// # Safety
/// The caller holds a reference on each event of `batch`.
unsafe fn finished_prefix(batch: &[Held]) -> usize {
    let n = batch.len();
    // SAFETY (each status here): the caller holds a reference on every event of `batch`.
    if n == 0 || finished(unsafe { status(batch[n - 1].ev) }) {
        return n;
    }
    // batch[hi] is running; the first running is in [lo, hi].
    let (mut lo, mut hi) = (0, n - 1);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if finished(unsafe { status(batch[mid].ev) }) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The four profiling times of a finished command's event.
///
/// # Safety
/// `ev` is an event the caller holds a reference on.
unsafe fn counters(ev: *mut c_void) -> Counters {
    // SAFETY: `ev` is the driver's event with a reference held (# Safety).
    let Some(info) = (unsafe { info_fn(ev, slot::clGetEventProfilingInfo) }) else { return Counters::Absent };
    let mut t = [0u64; 4];
    for (i, v) in t.iter_mut().enumerate() {
        // SAFETY: each answer is a cl_ulong, written into the 8 bytes of `v`.
        let r = unsafe {
            info(ev, CL_PROFILING_COMMAND_QUEUED + i as u32, 8, v as *mut u64 as *mut c_void, std::ptr::null_mut())
        };
        if r != 0 {
            return Counters::Refused(cltap::trace::names::status_text(r));
        }
    }
    Counters::Read(t)
}

/// What became of one held event in a read.
enum Fate {
    /// Read (or given up on), to be released.
    Done,
    /// Still running: back into the list.
    Running,
}

/// Reads held event `h` of `list`, whose status is `known` where it was
/// asked already.
///
/// # Safety
/// The caller holds cltap's reference on `h.ev`.
unsafe fn read_one(list: &QueueList, h: &Held, known: Option<Option<i32>>) -> Fate {
    let ev = h.ev as *mut c_void;
    // SAFETY (the queries of this function): the caller holds cltap's reference on `ev` (# Safety).
    let (st, c) = match known {
        Some(Some(st)) if st > CL_COMPLETE => return Fate::Running,
        Some(Some(st)) => (Some(st), unsafe { counters(ev) }),
        Some(None) => (None, Counters::Absent),
        None => match unsafe { counters(ev) } {
            c @ Counters::Read(t) if enqueue::has_start(t) => (Some(CL_COMPLETE), c),
            c => (unsafe { status(h.ev) }, c),
        },
    };
    match st {
        Some(st) if st > CL_COMPLETE => Fate::Running,
        Some(st) => {
            OUTSTANDING.sub();
            let ty = list.cmd_type(h.cmd.api, || {
                // SAFETY: as above.
                unsafe { info_fn(ev, slot::clGetEventInfo).and_then(|f| read::<u32>(f, ev, CL_EVENT_COMMAND_TYPE)) }
            });
            enqueue::completed(&h.cmd, list.desc(), st, ty, c);
            Fate::Done
        }
        None => {
            OUTSTANDING.sub();
            cltap::devtime::untimed(h.cmd.cmd_id, h.cmd.api, "the event's status could not be read".into());
            Fate::Done
        }
    }
}

/// Reads the held events of `list` that have completed (or failed), and
/// lets go of them; the others stay. The driver calls run without the
/// list's lock, and the releases after the rest is back in the list.
///
/// # Safety
/// Every event held in `list` carries a reference of cltap's on a live
/// event of the driver's (as the enqueue wrappers put them there).
pub(super) unsafe fn read_list(list: &QueueList) {
    let reading = pending::Reading::begin();
    let batch = list.take();
    if batch.is_empty() {
        list.put_back(batch);
        return;
    }
    let mut rest = Vec::new();
    let mut done = Vec::with_capacity(batch.len());
    // Events held since before a fork are the parent's commands, which may
    // never run in the child: a list holding any is read event by event.
    let in_order = list.in_order() && !batch.iter().any(|h| h.inherited);
    if in_order {
        // SAFETY: cltap holds a reference on each event of the batch (# Safety).
        let n = unsafe { finished_prefix(&batch) };
        let mut running = false;
        for (i, h) in batch.into_iter().enumerate() {
            // In order, what follows a running command is still to run.
            if i >= n || running {
                rest.push(h);
                continue;
            }
            // SAFETY: as above.
            match unsafe { read_one(list, &h, None) } {
                Fate::Done => done.push(h.ev),
                Fate::Running => {
                    running = true;
                    rest.push(h)
                }
            }
        }
    } else {
        // A command of this process is still running.
        let mut running = false;
        for h in batch {
            if list.in_order() && running {
                rest.push(h);
                continue;
            }
            // SAFETY: cltap holds a reference on each event of the batch (# Safety).
            let st = unsafe { status(h.ev) };
            if h.inherited {
                // The parent's command (the parent times it): only cltap's
                // reference on the child's copy of its event is given back
                // once it has finished; it holds up none of the child's.
                if finished(st) {
                    done.push(h.ev)
                } else {
                    rest.push(h)
                }
                continue;
            }
            // SAFETY: as above.
            match unsafe { read_one(list, &h, Some(st)) } {
                Fate::Done => done.push(h.ev),
                Fate::Running => {
                    running = true;
                    rest.push(h)
                }
            }
        }
    }
    list.put_back(rest);
    for ev in done {
        // SAFETY: cltap's own reference, given back once, after the list no longer holds it.
        unsafe { release(ev as *mut c_void) };
    }
    drop(reading);
}
