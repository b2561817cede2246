//! What every wrapper calls around the forwarded call: its record opened
//! before, completed after, or the call only counted. Function ids index
//! `cltap::meta::FUNCTIONS`.

use cltap::calls::{Tally, MAX_FUNCTIONS};
use cltap::trace::local::{self, Opened};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

pub static TALLY: Tally = Tally::new();
static MISSING_SEEN: [AtomicBool; MAX_FUNCTIONS] = [const { AtomicBool::new(false) }; MAX_FUNCTIONS];

/// Whether each function is recorded (the API log is on and
/// `CLTAP_LOG_FILTER` lets it through).
static LOGGED: [AtomicBool; MAX_FUNCTIONS] = [const { AtomicBool::new(false) }; MAX_FUNCTIONS];
/// Calls that take a command id while the trace is on, logged or not.
static NUMBERED: [AtomicBool; MAX_FUNCTIONS] = [const { AtomicBool::new(false) }; MAX_FUNCTIONS];
/// Command ids: one process-wide sequence for calls that return an event.
static NEXT_CMD: AtomicU64 = AtomicU64::new(1);

/// Once the trace has started: which functions are recorded.
pub fn record_calls(logs: impl Fn(&str) -> bool) {
    for (i, f) in cltap::meta::FUNCTIONS.iter().enumerate() {
        LOGGED[i].store(logs(f.name), Ordering::Release);
        NUMBERED[i].store(f.event_out, Ordering::Release);
    }
}

#[derive(Clone, Copy)]
pub struct Enter {
    pub on: bool,
    pub cmd: u64,
    rec: Opened,
}

/// Before each forwarded call: one relaxed load when the call is not
/// logged; otherwise its record is opened in this thread's chunk of the
/// trace, so that a call that never returns is still there.
#[inline(always)]
pub fn enter(id: usize, args: &[u64]) -> Enter {
    if !LOGGED[id].load(Ordering::Relaxed) {
        // Command ids stay the same whatever CLTAP_LOG_FILTER leaves out.
        if NUMBERED[id].load(Ordering::Relaxed) {
            NEXT_CMD.fetch_add(1, Ordering::Relaxed);
        }
        return Enter { on: false, cmd: 0, rec: Opened::NONE };
    }
    let f = &cltap::meta::FUNCTIONS[id];
    let cmd = if f.event_out { NEXT_CMD.fetch_add(1, Ordering::Relaxed) } else { 0 };
    let t0 = cltap::trace::tsc::now();
    // SAFETY: the application's argument words.
    let rec = unsafe { local::open(id, f, f.event_out.then_some(cmd), t0, args) };
    Enter { on: true, cmd, rec }
}

/// After a logged call: its record is completed. The host tally is taken
/// from the trace, so nothing here is written by other threads.
#[inline(always)]
pub fn exit(id: usize, e: Enter, ret: u64, args: &[u64], failed: bool) {
    exit_with_lws(id, e, ret, args, failed, || None)
}

/// [`exit`] for a function that launches an NDRange (`[lws]` in the API
/// description): `lws` gives the local size the driver chose, as sizes and
/// their count. It is asked after the call's end is taken, so the driver's
/// answer does not count in the call's time.
#[inline(always)]
pub fn exit_with_lws(id: usize, e: Enter, ret: u64, args: &[u64], _failed: bool, lws: impl FnOnce() -> Option<([usize; 3], usize)>) {
    let t1 = cltap::trace::tsc::now();
    // SAFETY: the arguments are the application's, after a call that used them.
    unsafe {
        let lws = lws();
        local::complete(e.rec, &cltap::meta::FUNCTIONS[id], t1, ret, args, lws.as_ref().map(|(v, n)| &v[..*n]))
    };
}

/// After a call cltap answers in hand-written code: logged if on, else counted.
pub fn finish_call(id: usize, e: Enter, ret: u64, args: &[u64], failed: bool) {
    if e.on {
        exit(id, e, ret, args, failed)
    } else {
        done(id, failed)
    }
}

/// After each forwarded call that is not logged.
#[inline(always)]
pub fn done(id: usize, failed: bool) {
    TALLY.record(id, failed);
}

/// The driver has no entry for a call: the wrapper returns
/// `CL_INVALID_OPERATION` instead of jumping to NULL (FACTS.md §8).
#[cold]
pub fn missing(id: usize) {
    if !MISSING_SEEN[id].swap(true, Ordering::Relaxed) {
        cltap::warn!("{}: the driver has no entry for this function; returned CL_INVALID_OPERATION", cltap::meta::FUNCTIONS[id].name);
    }
    TALLY.record(id, true);
}
