//! The collection window: when calls are recorded. Every control that can
//! close it (a time schedule, a call limit, an enqueue range, the
//! application's `cltap_pause`) owns one bit of [`STATE`]; the window is
//! open while none is set. A wrapper reads [`STATE`] once (a relaxed load)
//! and, outside the window, forwards the call with nothing else done.
//! Whoever flips the window open or closed notes the change (its time and
//! reason); the next application thread to record a call writes it as a
//! `KIND_WINDOW` record into its own chunk, just before that call, so that
//! the API log reads each change where it happened among that thread's
//! calls ([`log_edges`]). Nothing here runs unless a window control was set.

pub mod schedule;
pub mod spans;

use crate::trace::record::{KIND_WINDOW, WINDOW_CLOSE, WINDOW_OPEN};
use schedule::Schedule;
pub use spans::Reason;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// The window's state: the `CLOSED_*` bits of the controls that hold it
/// closed, and the `WATCH_*` bits of the controls a call must tell. 0 when
/// no window control is set (the wrappers' path is then as before).
pub static STATE: AtomicU32 = AtomicU32::new(0);
pub const CLOSED_TIME: u32 = 1;
pub const CLOSED_CALLS: u32 = 2;
pub const CLOSED_ENQUEUES: u32 = 4;
pub const CLOSED_APP: u32 = 8;
/// The trace has ended: nothing opens again.
pub const CLOSED_END: u32 = 16;
pub const CLOSED: u32 = 0xff;
/// Count recorded calls ([`Settings::calls`]).
pub const WATCH_CALLS: u32 = 1 << 8;
/// Tell each numbered call's command id ([`Settings::enqueues`]).
pub const WATCH_ENQUEUES: u32 = 1 << 9;
/// Counts the window's openings and closings: a call that saw the window
/// open, read its start time, and sees the same count again lies inside
/// the window its records say (see [`stamp`]).
pub const GENERATION: u32 = 0xffff << 16;
/// Some control is set: every call takes the windowed path (never 0).
pub const ARMED: u32 = 1 << 10;
/// Some change of the window is noted and not yet written: the next call
/// recorded writes it first ([`log_edges`]). A bit of the state a call
/// already loads, so that knowing costs a call nothing.
pub const UNLOGGED: u32 = 1 << 12;
/// `CLTAP_TEST_PANIC` is set: every call takes the windowed path, where a
/// wrapper looks whether it is the one to panic (nothing else reads it).
pub const TEST_PANIC: u32 = 1 << 11;

/// The trace clock, read strictly between the loads of [`STATE`] around
/// it (a plain `rdtsc` may be taken early or late): a call's start time
/// and a window's edge are then ordered as the state they saw.
#[inline(always)]
pub fn stamp() -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: LFENCE has no preconditions.
    unsafe {
        std::arch::x86_64::_mm_lfence();
        let t = crate::trace::tsc::now();
        std::arch::x86_64::_mm_lfence();
        t
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        std::sync::atomic::fence(Ordering::SeqCst);
        let t = crate::trace::tsc::now();
        std::sync::atomic::fence(Ordering::SeqCst);
        t
    }
}

/// The window controls (`CLTAP_WINDOW*`, `CLTAP_START_PAUSED`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    pub time: Option<Schedule>,
    /// Only the first N recorded calls.
    pub calls: Option<u64>,
    /// From the call with this command id to the one with the second, inclusive.
    pub enqueues: Option<(u64, u64)>,
    /// Closed until the application calls `cltap_resume`.
    pub start_paused: bool,
}

impl Settings {
    pub fn configured(&self) -> bool {
        self.time.is_some() || self.calls.is_some() || self.enqueues.is_some() || self.start_paused
    }

    /// The state the run starts in.
    pub fn initial_state(&self) -> u32 {
        let mut s = 0;
        if self.time.is_some_and(|t| !t.at(0).open) {
            s |= CLOSED_TIME;
        }
        if let Some(n) = self.calls {
            s |= WATCH_CALLS | if n == 0 { CLOSED_CALLS } else { 0 };
        }
        if self.enqueues.is_some() {
            s |= WATCH_ENQUEUES | CLOSED_ENQUEUES;
        }
        if self.start_paused {
            s |= CLOSED_APP;
        }
        s
    }
}

static CONFIGURED: AtomicBool = AtomicBool::new(false);
static ENDED: AtomicBool = AtomicBool::new(false);
/// Windows opened so far (the open one's number).
static OPENED: AtomicU64 = AtomicU64::new(0);
/// Recorded calls left under the call limit.
static CALLS_LEFT: AtomicU64 = AtomicU64::new(0);
static ENQ_FIRST: AtomicU64 = AtomicU64::new(0);
static ENQ_LAST: AtomicU64 = AtomicU64::new(0);
/// The trace's clock when the window was armed.
static START_TSC: AtomicU64 = AtomicU64::new(0);

/// Whether the window is open now (any control, or none set).
#[inline(always)]
pub fn open() -> bool {
    STATE.load(Ordering::Relaxed) & CLOSED == 0
}

/// Arms the controls once the trace has started (before any call is
/// recorded): the initial state, its first window, the time schedule's
/// thread.
pub fn arm(s: &Settings) {
    // The schedule counts from here, where its first window opens, not
    // from when its thread first runs (on a busy machine, milliseconds later).
    let armed = std::time::Instant::now();
    START_TSC.store(crate::trace::tsc::now(), Ordering::Relaxed);
    if !s.configured() {
        return;
    }
    CONFIGURED.store(true, Ordering::Release);
    CALLS_LEFT.store(s.calls.unwrap_or(0), Ordering::Relaxed);
    if let Some((a, b)) = s.enqueues {
        ENQ_FIRST.store(a, Ordering::Relaxed);
        ENQ_LAST.store(b, Ordering::Relaxed);
    }
    let init = s.initial_state();
    STATE.store(init | ARMED, Ordering::Release);
    crate::fastpath::changed();
    if init & CLOSED == 0 {
        edge(true, Reason::Start);
    }
    if let Some(t) = s.time {
        let _ = std::thread::Builder::new()
            .name("cltap-window".into())
            .spawn(move || crate::panics::thread_body("the cltap-window thread", || run_schedule(t, armed)));
    }
}

/// The time schedule: this thread flips the window at each change, so that
/// no call reads a clock to know.
fn run_schedule(s: Schedule, start: std::time::Instant) {
    // The kernel's default timer slack (50 µs) would add to every edge.
    // SAFETY: prctl with PR_SET_TIMERSLACK takes one integer and touches
    // only this thread's setting.
    let slack_ns: libc::c_ulong = 1;
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, slack_ns, 0, 0, 0) };
    loop {
        let elapsed = start.elapsed().as_nanos() as u64;
        let at = s.at(elapsed);
        if ENDED.load(Ordering::Acquire) {
            return;
        }
        if at.open {
            change(0, CLOSED_TIME, Reason::Time);
        } else {
            change(CLOSED_TIME, 0, Reason::Time);
        }
        let Some(next) = at.next else {
            // Stays, holding its chunk of the trace (where it wrote
            // changes itself, past NOTED_MAX): the chunk is then rendered
            // after the calls' threads' chunks, which are sealed first at
            // the end (a thread that ended would have its chunk sealed,
            // and rendered, at once).
            loop {
                std::thread::park();
            }
        };
        std::thread::sleep(std::time::Duration::from_nanos(next.saturating_sub(elapsed)));
    }
}

/// The application's `cltap_pause` (`open` false) or `cltap_resume`.
pub fn set_paused(paused: bool) {
    if !CONFIGURED.load(Ordering::Acquire) {
        // Pausing a run that set no control arms the window then: its
        // records so far were all inside one window, from the start.
        if !paused || CONFIGURED.swap(true, Ordering::AcqRel) {
            return;
        }
        STATE.fetch_or(ARMED, Ordering::AcqRel);
        crate::fastpath::changed();
        OPENED.store(1, Ordering::Relaxed);
        edge_at(true, Reason::Start, 1, START_TSC.load(Ordering::Relaxed));
    }
    if paused {
        change(CLOSED_APP, 0, Reason::App)
    } else {
        change(0, CLOSED_APP, Reason::App)
    }
}

/// At the end of the trace: an open window closes, and none opens again.
/// When it returns no change is being recorded.
pub fn end() {
    if !CONFIGURED.load(Ordering::Acquire) || ENDED.swap(true, Ordering::AcqRel) {
        return;
    }
    change(CLOSED_END, 0, Reason::End);
    // No call is recorded any more: what is noted is written here.
    for e in std::mem::take(&mut *NOTED.lock()) {
        write(e);
    }
}

/// One recorded call under the call limit: the last one closes the window.
#[cold]
pub fn count_call() {
    let left = CALLS_LEFT.fetch_sub(1, Ordering::Relaxed);
    if left == 1 {
        change(CLOSED_CALLS, 0, Reason::Calls);
    } else if left == 0 {
        CALLS_LEFT.store(0, Ordering::Relaxed);
    }
}

/// Where a numbered call's command id lies in the enqueue range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InRange {
    No,
    Yes,
    /// The range's last call: the window closes once it has returned
    /// ([`close_enqueues`]), so that its record lies inside.
    Last,
}

/// A numbered call took command id `cmd`: where it lies in the enqueue
/// range (any other control may still hold the window closed). The range's
/// first call opens the window.
#[cold]
pub fn command(cmd: u64) -> InRange {
    let (a, b) = (ENQ_FIRST.load(Ordering::Relaxed), ENQ_LAST.load(Ordering::Relaxed));
    if cmd == a {
        change(0, CLOSED_ENQUEUES, Reason::Enqueues);
    }
    if cmd > b && STATE.load(Ordering::Relaxed) & CLOSED_ENQUEUES == 0 {
        // The last call was not recorded (the log filter): closed now.
        change(CLOSED_ENQUEUES, 0, Reason::Enqueues);
    }
    match cmd {
        _ if cmd == b => InRange::Last,
        _ if (a..b).contains(&cmd) => InRange::Yes,
        _ => InRange::No,
    }
}

/// The enqueue range's last call has returned.
#[cold]
pub fn close_enqueues() {
    change(CLOSED_ENQUEUES, 0, Reason::Enqueues);
}

/// Sets and clears bits; a change of the window's open-ness is noted.
/// An opening's time is read before the change is seen, a closing's after:
/// every call recorded inside lies between them. An opening is noted
/// before the state flips, so that a call that sees it open finds it.
/// One change at a time, so that [`end`] waits for one being recorded.
static CHANGING: crate::fork::lock::Mutex<()> = crate::fork::lock::Mutex::new(());

/// The prepare handler's part ([`crate::fork`]): a change notes under
/// [`CHANGING`], so the notes come second.
pub(crate) fn hold_for_fork() {
    crate::fork::kept::keep(CHANGING.lock());
    crate::fork::kept::keep(NOTED.lock());
}

fn change(set: u32, clear: u32, why: Reason) {
    let _one = CHANGING.lock();
    let before = stamp();
    let flip = |s: u32| {
        let n = (s | set) & !clear;
        if (s & CLOSED == 0) != (n & CLOSED == 0) {
            n.wrapping_add(1 << 16) | UNLOGGED
        } else {
            n
        }
    };
    // Only changes (under this lock) move the closed bits and the
    // generation: whether this one flips is known before it is made.
    let now = STATE.load(Ordering::Acquire);
    let (was, is) = (now & CLOSED == 0, flip(now) & CLOSED == 0);
    if was == is {
        STATE.fetch_update(Ordering::AcqRel, Ordering::Acquire, |s| Some(flip(s))).ok();
        return;
    }
    if is {
        let n = OPENED.fetch_add(1, Ordering::AcqRel) + 1;
        note(Edge { open: true, why, n, t: before, gen: generation(flip(now)) });
    }
    let Ok(prev) = STATE.fetch_update(Ordering::AcqRel, Ordering::Acquire, |s| Some(flip(s))) else {
        return;
    };
    if !is {
        let after = stamp();
        note(Edge { open: false, why, n: OPENED.load(Ordering::Acquire), t: after, gen: generation(flip(prev)) });
    }
}

/// A change of the window not yet written into the trace.
#[derive(Clone, Copy)]
struct Edge {
    open: bool,
    why: Reason,
    n: u64,
    t: u64,
    /// The state's generation once changed.
    gen: u16,
}

/// Changes noted and not yet written, oldest first.
static NOTED: crate::fork::lock::Mutex<Vec<Edge>> = crate::fork::lock::Mutex::new(Vec::new());
/// Past this many, the changing thread writes them itself: a run that
/// records no call for a long time keeps no more.
const NOTED_MAX: usize = 4096;

fn generation(s: u32) -> u16 {
    (s >> 16) as u16
}

fn note(e: Edge) {
    let mut noted = NOTED.lock();
    noted.push(e);
    if noted.len() >= NOTED_MAX {
        for e in noted.drain(..) {
            write(e);
        }
    }
}

/// A call about to be recorded (its state `w`, which it saw open, with
/// [`UNLOGGED`]) writes the changes noted up to its generation into its
/// own chunk, so that they come before its record. A call that passed its
/// check before a later change leaves that change to the next call.
#[cold]
#[inline(never)]
pub fn log_edges(w: u32) {
    let gen = generation(w);
    // The bit is cleared only while the generation is this call's, so a
    // later change keeps it set for the calls after it.
    let _ = STATE.fetch_update(Ordering::AcqRel, Ordering::Acquire, |s| {
        (generation(s) == gen && s & UNLOGGED != 0).then_some(s & !UNLOGGED)
    });
    let mut noted = NOTED.lock();
    // Generations wrap at 16 bits: `e.gen` is at or before `gen` when the
    // distance forward from it is less than half the range.
    let upto = noted.iter().position(|e| gen.wrapping_sub(e.gen) >= 0x8000).unwrap_or(noted.len());
    for e in noted.drain(..upto) {
        write(e);
    }
}

fn write(e: Edge) {
    edge_at(e.open, e.why, e.n, e.t);
}

/// The start's opening and the end's closing (no call races them).
fn edge(open: bool, why: Reason) {
    let n = if open { OPENED.fetch_add(1, Ordering::AcqRel) + 1 } else { OPENED.load(Ordering::Acquire) };
    edge_at(open, why, n, stamp());
}

fn edge_at(open: bool, why: Reason, n: u64, t: u64) {
    let words = [if open { WINDOW_OPEN } else { WINDOW_CLOSE }, why as u64];
    crate::trace::local::record_kind::<KIND_WINDOW>(n, t, t, &words, None);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_control_starts_in_its_own_state() {
        assert_eq!(Settings::default().initial_state(), 0);
        let s = Settings { calls: Some(5), ..Settings::default() };
        assert_eq!(s.initial_state(), WATCH_CALLS);
        let s = Settings { calls: Some(0), start_paused: true, ..Settings::default() };
        assert_eq!(s.initial_state(), WATCH_CALLS | CLOSED_CALLS | CLOSED_APP);
        let s = Settings { enqueues: Some((3, 4)), ..Settings::default() };
        assert_eq!(s.initial_state(), WATCH_ENQUEUES | CLOSED_ENQUEUES);
        let s = Settings { time: Schedule::parse("1s:1s"), ..Settings::default() };
        assert_eq!(s.initial_state(), CLOSED_TIME);
        let s = Settings { time: Schedule::parse("0:1s"), ..Settings::default() };
        assert_eq!(s.initial_state(), 0);
    }
}
