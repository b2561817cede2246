//! What every wrapper calls around the forwarded call: its record opened
//! before, completed after, or the call only counted. OpenCL's function ids
//! index `cltap::meta::FUNCTIONS` (`enter`, `exit`, `done`); HSA's index
//! `cltap::meta::HSA_FUNCTIONS` (`enter_hsa`, `exit_hsa`, `done_hsa`), and
//! their records say so by their kind ([`enter_kind`], [`exit_kind`]). The
//! OpenCL path is what it was: nothing of HSA's is on it.

use cltap::calls::{Tally, MAX_FUNCTIONS};
use cltap::trace::capture::Captured;
use cltap::trace::local::{self, Opened};
use cltap::trace::record::KIND_HSA_CALL;
use cltap::window;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};

pub static TALLY: Tally = Tally::new();
/// HSA's calls, counted when nothing records them (by HSA function id).
pub static HSA_TALLY: Tally = Tally::new();
/// Whether each HSA function is recorded.
static HSA_LOGGED: [AtomicBool; MAX_FUNCTIONS] = [const { AtomicBool::new(false) }; MAX_FUNCTIONS];
static MISSING_SEEN: [AtomicBool; MAX_FUNCTIONS] = [const { AtomicBool::new(false) }; MAX_FUNCTIONS];

/// Whether each function is recorded (the API log is on and
/// `CLTAP_LOG_FILTER` lets it through).
static LOGGED: [AtomicBool; MAX_FUNCTIONS] = [const { AtomicBool::new(false) }; MAX_FUNCTIONS];
/// Calls that take a command id while the trace is on, logged or not.
static NUMBERED: [AtomicBool; MAX_FUNCTIONS] = [const { AtomicBool::new(false) }; MAX_FUNCTIONS];
/// Command ids: one process-wide sequence for calls that return an event.
static NEXT_CMD: AtomicU64 = AtomicU64::new(1);

/// `CLTAP_ERRORS_ONLY`: which functions' failed calls are recorded (no
/// call of theirs is opened before it is forwarded).
static ERR_LOGGED: [AtomicBool; MAX_FUNCTIONS] = [const { AtomicBool::new(false) }; MAX_FUNCTIONS];
static HSA_ERR_LOGGED: [AtomicBool; MAX_FUNCTIONS] = [const { AtomicBool::new(false) }; MAX_FUNCTIONS];
/// Whether `CLTAP_ERRORS_ONLY` is on: creators then get cltap's own
/// `errcode_ret` slot where the application passed NULL.
static ERRORS_ONLY: AtomicBool = AtomicBool::new(false);

/// Per function: how its layer-mode wrapper's fast path may serve a call
/// (0: it may not, the whole wrapper runs); its ICD-mode wrapper reads
/// only [`FAST_RECORD`]. Kept in step with everything
/// it sums up by [`refresh_fast`]; 0 until the configuration is read.
static FAST: [AtomicU8; MAX_FUNCTIONS] = [const { AtomicU8::new(0) }; MAX_FUNCTIONS];
/// The fast path forwards the call, nothing else.
pub const FAST_FORWARD: u8 = 1;
/// The fast path forwards the call and counts it in [`TALLY`].
pub const FAST_COUNT: u8 = 2;
/// The call is recorded and nothing else looks at it: no collection
/// window, no tool's tracer, no errors-only mode, no device-timing hook;
/// and the trace's clock is the TSC.
/// Only functions with a record path (`crate::opencl::api::RECORD_PATH`)
/// get it; their wrapper then takes [`recorded`].
pub const FAST_RECORD: u8 = 3;
/// One recomputation at a time, so that the last one's view of the
/// flags, read after the last change, is what stays.
pub(crate) static REFRESHING: cltap::fork::lock::Mutex<()> = cltap::fork::lock::Mutex::new(());

/// Whether, and how, OpenCL function `id`'s call may take the fast path:
/// one relaxed load of a byte of the layer's own.
#[inline(always)]
pub fn fast(id: usize) -> u8 {
    FAST[id].load(Ordering::Relaxed)
}

/// A call the fast path forwarded, counted ([`FAST_COUNT`]).
#[inline(always)]
pub fn count(id: usize, failed: bool) {
    TALLY.count(id, failed);
}

/// Recomputes every OpenCL function's fast-path flag from what the whole
/// wrapper would look at: the function recorded, numbered or recorded when
/// it fails; a tool's tracer on it; any collection-window control; device
/// timing, an execution control or the argument dumps on, for the functions they hook. Called
/// once the configuration is read and after any of these changes ([`cltap::fastpath::changed`]).
pub fn refresh_fast() {
    let _one = REFRESHING.lock();
    let quiet = window::STATE.load(Ordering::Acquire) == 0 && !ERRORS_ONLY.load(Ordering::Acquire);
    let timing = cltap::devtime::on();
    let controls = cltap::controls::on();
    let dumps = cltap::dumps::on();
    let mode = if TALLY.is_on() { FAST_COUNT } else { FAST_FORWARD };
    for i in 0..cltap::meta::FUNCTIONS.len() {
        let logged = LOGGED[i].load(Ordering::Acquire);
        let watched = ERR_LOGGED[i].load(Ordering::Acquire)
            || cltap::tools::tracer::on(cltap::tools::tracer_ids::slot_of(0, i))
            || (timing && crate::opencl::api::DEVTIME_HOOKED[i])
            || (controls && crate::opencl::api::CONTROLS_HOOKED[i])
            || (dumps && crate::opencl::api::DUMPS_HOOKED[i]);
        let flag = if !quiet || watched {
            0
        } else if logged {
            // A numbered function takes its command id on this path too.
            // The record path reads the TSC without asking the clock's
            // source, so it is taken only where the TSC is the source.
            if crate::opencl::api::RECORD_PATH[i] && cltap::trace::tsc::invariant() {
                FAST_RECORD
            } else {
                0
            }
        } else if NUMBERED[i].load(Ordering::Acquire) {
            0
        } else {
            mode
        };
        FAST[i].store(flag, Ordering::Release);
    }
}

/// A call of a function whose fast byte is [`FAST_RECORD`]: its record
/// opened, the driver called (`call`), the record completed, as [`enter`]
/// and [`exit`] do for a logged call outside any window, on one straight
/// path. Nothing of the other paths (the window, the tracer, errors-only,
/// the `Enter` they share) is checked or kept across the call, so the
/// frame holds only the record. `EVENT_OUT`: the function returns an event
/// and takes a command id; `word` is the return value as the record keeps
/// it.
///
/// # Safety
/// `args` are the application's argument words, and `call` forwards that
/// call.
#[inline(always)]
pub unsafe fn recorded<const EVENT_OUT: bool, D: Captured, R: Copy>(
    d: D,
    args: &[u64],
    call: impl FnOnce() -> R,
    word: impl FnOnce(R) -> u64,
) -> R {
    // This path is not under the wrapper's `guard::wrapper`: its own parts
    // are caught here, so that the driver is called once and its answer
    // returned whatever they do (docs/architecture.md#panics).
    let name = d.meta().name;
    let rec = crate::guard::part(name, || {
        let cmd = if EVENT_OUT { Some(NEXT_CMD.fetch_add(1, Ordering::Relaxed)) } else { None };
        // The record path is taken only where the trace's clock is the TSC
        // (`refresh_fast`).
        // SAFETY: the application's argument words (this function's contract).
        unsafe { local::open(d, cmd, cltap::trace::tsc::now_tsc(), args) }
    });
    let r = call();
    if let Some(rec) = rec {
        crate::guard::part(name, || {
            let t1 = cltap::trace::tsc::now_tsc();
            // SAFETY: as for `open`, after the call that used them.
            unsafe { local::complete(rec, d, t1, word(r), args, None) }
        });
    }
    r
}

/// Once the trace has started: which functions are recorded, every call
/// or (`errors_only`) the failed ones only.
pub fn record_calls(logs: impl Fn(&str) -> bool, errors_only: bool) {
    for (i, f) in cltap::meta::FUNCTIONS.iter().enumerate() {
        LOGGED[i].store(logs(f.name) && !errors_only, Ordering::Release);
        ERR_LOGGED[i].store(logs(f.name) && errors_only, Ordering::Release);
        NUMBERED[i].store(f.event_out, Ordering::Release);
    }
    for (i, f) in cltap::meta::HSA_FUNCTIONS.iter().enumerate() {
        HSA_LOGGED[i].store(logs(f.name) && !errors_only, Ordering::Release);
        HSA_ERR_LOGGED[i].store(logs(f.name) && errors_only, Ordering::Release);
    }
    ERRORS_ONLY.store(errors_only, Ordering::Release);
}

/// Whether `CLTAP_ERRORS_ONLY` is on (asked by creators only, before the
/// call, to lend an `errcode_ret` slot).
#[inline(always)]
pub fn errors_only() -> bool {
    ERRORS_ONLY.load(Ordering::Relaxed)
}

/// Whether a failed call of OpenCL function `id` is recorded after it
/// returned (`CLTAP_ERRORS_ONLY`). Asked only when the call failed.
#[inline(always)]
pub fn logs_error(id: usize) -> bool {
    ERR_LOGGED[id].load(Ordering::Relaxed)
}

/// The same for HSA function `id`.
#[inline(always)]
pub fn logs_hsa_error(id: usize) -> bool {
    HSA_ERR_LOGGED[id].load(Ordering::Relaxed)
}

/// Most parameters a described function has (clEnqueueReadBufferRect: 14).
const MAX_PARAMS: usize = 32;

/// Records a failed call after it returned (`CLTAP_ERRORS_ONLY`): nothing
/// was read or written before it, so its record starts and ends at one
/// post-call clock reading (duration 0). `app` are the application's
/// argument words, as the record shows them; `errcode` the `errcode_ret`
/// the driver wrote to (cltap's own slot where the application passed
/// NULL), from which its status is captured.
#[cold]
#[inline(never)]
pub fn error(id: usize, ret: u64, app: &[u64], errcode: Option<(usize, u64)>) {
    let f = &cltap::meta::FUNCTIONS[id];
    let mut seen = [0u64; MAX_PARAMS];
    let n = app.len().min(MAX_PARAMS);
    seen[..n].copy_from_slice(&app[..n]);
    if let Some((i, w)) = errcode.filter(|(i, _)| *i < n) {
        seen[i] = w;
    }
    let t = cltap::trace::tsc::now();
    // SAFETY: the application's argument words after the call; `seen`
    // differs only by a slot that lives in the caller's frame.
    unsafe {
        let rec = local::open(f, None, t, app);
        local::complete(rec, f, t, ret, &seen[..n], None);
    }
}

/// [`error`] for HSA function `id`.
#[cold]
#[inline(never)]
pub fn error_hsa(id: usize, ret: u64, app: &[u64]) {
    let f = &cltap::meta::HSA_FUNCTIONS[id];
    let t = cltap::trace::tsc::now();
    // SAFETY: the application's argument words, after the call.
    unsafe {
        let rec = local::open_kind::<KIND_HSA_CALL, _>(f, None, t, app);
        local::complete_kind::<KIND_HSA_CALL, _>(rec, f, t, ret, app, None);
    }
}

const CLOSE: u8 = 1;
const TEST_AFTER: u8 = 2;

#[derive(Clone, Copy)]
pub struct Enter {
    pub on: bool,
    /// Inside the collection window (recorded or not by the log filter):
    /// device timing follows it.
    pub inside: bool,
    /// [`CLOSE`]: the enqueue range's last call, the window closes after
    /// it; [`TEST_AFTER`]: `CLTAP_TEST_PANIC` panics after it.
    close: u8,
    pub cmd: u64,
    rec: Opened,
}

impl Enter {
    /// A call nothing records (its record could not be opened).
    pub const OFF: Enter = Enter { on: false, inside: true, close: 0, cmd: 0, rec: Opened::NONE };
}

/// Before each forwarded call: one relaxed load when the call is not
/// logged; otherwise its record is opened in this thread's chunk of the
/// trace, so that a call that never returns is still there.
#[inline(always)]
pub fn enter(d: impl Captured, args: &[u64]) -> Enter {
    let id = d.id();
    // Any window control set: one relaxed load decides (never set, 0).
    let w = window::STATE.load(Ordering::Relaxed);
    if w != 0 {
        return enter_windowed(id, args, w);
    }
    if !LOGGED[id].load(Ordering::Relaxed) {
        // Command ids stay the same whatever CLTAP_LOG_FILTER leaves out.
        if NUMBERED[id].load(Ordering::Relaxed) {
            NEXT_CMD.fetch_add(1, Ordering::Relaxed);
        }
        return Enter { on: false, inside: true, close: 0, cmd: 0, rec: Opened::NONE };
    }
    let f = d.meta();
    let cmd = if f.event_out { NEXT_CMD.fetch_add(1, Ordering::Relaxed) } else { 0 };
    let t0 = cltap::trace::tsc::now();
    // SAFETY: the application's argument words.
    let rec = unsafe { local::open(d, f.event_out.then_some(cmd), t0, args) };
    Enter { on: true, inside: true, close: 0, cmd, rec }
}

/// [`enter`] under a collection window (`w`: its state): outside it the
/// call is forwarded with nothing recorded, only its command id taken so
/// that ids stay the same whatever the window leaves out.
#[inline(never)]
fn enter_windowed(id: usize, args: &[u64], w: u32) -> Enter {
    if w & window::TEST_PANIC != 0 {
        crate::guard::test_panic_before(id, false);
    }
    let numbered = NUMBERED[id].load(Ordering::Relaxed);
    let cmd = if numbered { NEXT_CMD.fetch_add(1, Ordering::Relaxed) } else { 0 };
    // A numbered call under an enqueue range: its id decides, whatever
    // the range's bit says (its first and last calls flip it).
    let mut close = 0;
    if w & window::TEST_PANIC != 0 && crate::guard::test_panics_after(id) {
        close |= TEST_AFTER;
    }
    let (open, w) = if numbered && w & window::WATCH_ENQUEUES != 0 {
        let r = window::command(cmd);
        if r == window::InRange::Last {
            close |= CLOSE;
        }
        let w = window::STATE.load(Ordering::Relaxed);
        (r != window::InRange::No && w & window::CLOSED & !window::CLOSED_ENQUEUES == 0, w)
    } else {
        (w & window::CLOSED == 0, w)
    };
    if !open || !LOGGED[id].load(Ordering::Relaxed) {
        return Enter { on: false, inside: open, close: 0, cmd: 0, rec: Opened::NONE };
    }
    // The window flipped while the start was read: the call is outside.
    let t0 = window::stamp();
    if (window::STATE.load(Ordering::Relaxed) ^ w) & window::GENERATION != 0 {
        return Enter { on: false, inside: false, close: 0, cmd: 0, rec: Opened::NONE };
    }
    // The window's changes this call saw go into the log before it (and
    // before a close the call limit makes after it).
    if w & window::UNLOGGED != 0 {
        window::log_edges(w);
    }
    if w & window::WATCH_CALLS != 0 {
        window::count_call();
    }
    let f = &cltap::meta::FUNCTIONS[id];
    // SAFETY: the application's argument words.
    let rec = unsafe { local::open(f, numbered.then_some(cmd), t0, args) };
    Enter { on: true, inside: true, close, cmd, rec }
}

/// Opens the record of a call of another API than OpenCL's (whose
/// [`enter`] stays as it was): `KIND` says whose function `d` is.
#[inline(always)]
pub fn enter_kind<const KIND: u16>(d: impl Captured, cmd: Option<u64>, args: &[u64]) -> Enter {
    let t0 = cltap::trace::tsc::now();
    // SAFETY: the application's argument words.
    let rec = unsafe { local::open_kind::<KIND, _>(d, cmd, t0, args) };
    Enter { on: true, inside: true, close: 0, cmd: cmd.unwrap_or(0), rec }
}

/// Before each forwarded HSA call (`d` is an entry of `HSA_FUNCTIONS`): one
/// relaxed load when the call is not logged; otherwise its record is opened.
/// HSA calls take no command id.
#[inline(always)]
pub fn enter_hsa(d: impl Captured, args: &[u64]) -> Enter {
    let id = d.id();
    let w = window::STATE.load(Ordering::Relaxed);
    if w & window::CLOSED != 0 || !HSA_LOGGED[id].load(Ordering::Relaxed) {
        return Enter { on: false, inside: w & window::CLOSED == 0, close: 0, cmd: 0, rec: Opened::NONE };
    }
    if w == 0 {
        return enter_kind::<KIND_HSA_CALL>(d, None, args);
    }
    if w & window::TEST_PANIC != 0 {
        crate::guard::test_panic_before(id, true);
    }
    // As in `enter_windowed`.
    let t0 = window::stamp();
    if (window::STATE.load(Ordering::Relaxed) ^ w) & window::GENERATION != 0 {
        return Enter { on: false, inside: false, close: 0, cmd: 0, rec: Opened::NONE };
    }
    // The window's changes this call saw go into the log before it (and
    // before a close the call limit makes after it).
    if w & window::UNLOGGED != 0 {
        window::log_edges(w);
    }
    if w & window::WATCH_CALLS != 0 {
        window::count_call();
    }
    // SAFETY: the application's argument words.
    let rec = unsafe { local::open_kind::<KIND_HSA_CALL, _>(d, None, t0, args) };
    Enter { on: true, inside: true, close: 0, cmd: 0, rec }
}

/// After a logged HSA call: its record is completed.
#[inline(always)]
pub fn exit_hsa(d: impl Captured, e: Enter, ret: u64, args: &[u64]) {
    exit_kind::<KIND_HSA_CALL>(d, e, ret, args, None)
}

/// After an HSA call that is not logged: counted.
#[inline(always)]
pub fn done_hsa(id: usize, failed: bool) {
    HSA_TALLY.record(id, failed);
}

/// Completes the record [`enter_kind`] opened (`d` is its function).
#[inline(always)]
pub fn exit_kind<const KIND: u16>(d: impl Captured, e: Enter, ret: u64, args: &[u64], lws: Option<&[usize]>) {
    let t1 = cltap::trace::tsc::now();
    // SAFETY: the arguments are the application's, after a call that used them.
    unsafe { local::complete_kind::<KIND, _>(e.rec, d, t1, ret, args, lws) };
}

/// After a logged call: its record is completed. The host tally is taken
/// from the trace, so nothing here is written by other threads.
#[inline(always)]
pub fn exit(d: impl Captured, e: Enter, ret: u64, args: &[u64], failed: bool) {
    exit_with_lws(d, e, ret, args, failed, || None)
}

/// [`exit`] for a function that launches an NDRange (`[lws]` in the API
/// description): `lws` gives the local size the driver chose, as sizes and
/// their count. It is asked after the call's end is taken, so the driver's
/// answer does not count in the call's time.
#[inline(always)]
pub fn exit_with_lws(
    d: impl Captured,
    e: Enter,
    ret: u64,
    args: &[u64],
    _failed: bool,
    lws: impl FnOnce() -> Option<([usize; 3], usize)>,
) {
    let t1 = cltap::trace::tsc::now();
    // SAFETY: the arguments are the application's, after a call that used them.
    unsafe {
        let lws = lws();
        local::complete(e.rec, d, t1, ret, args, lws.as_ref().map(|(v, n)| &v[..*n]))
    };
    if e.close != 0 {
        closing(e.close);
    }
}

/// After a call whose [`Enter`] says the window closes or
/// `CLTAP_TEST_PANIC` panics.
#[cold]
#[inline(never)]
fn closing(close: u8) {
    if close & CLOSE != 0 {
        window::close_enqueues();
    }
    if close & TEST_AFTER != 0 {
        crate::guard::test_panic_after();
    }
}

/// After a call cltap answers in hand-written code: logged if on, else
/// counted (and, failed under `CLTAP_ERRORS_ONLY`, recorded now).
pub fn finish_call(id: usize, e: Enter, ret: u64, args: &[u64], failed: bool) {
    if e.on {
        exit(&cltap::meta::FUNCTIONS[id], e, ret, args, failed)
    } else {
        done(id, failed);
        if failed && logs_error(id) {
            error(id, ret, args, None);
        }
    }
}

/// After each forwarded call that is not logged.
#[inline(always)]
pub fn done(id: usize, failed: bool) {
    TALLY.record(id, failed);
}

/// The driver has no entry for a call: the wrapper returns
/// `CL_INVALID_OPERATION` instead of jumping to NULL (docs/platform-facts.md#driver-quirks).
#[cold]
pub fn missing(id: usize) {
    if !MISSING_SEEN[id].swap(true, Ordering::Relaxed) {
        cltap::warn!(
            "{}: the driver has no entry for this function; returned CL_INVALID_OPERATION",
            cltap::meta::FUNCTIONS[id].name
        );
    }
    TALLY.record(id, true);
}
