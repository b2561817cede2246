//! One counted dispatch: the profile AQLprofile fills, its buffers, the
//! signal the `stop` packet completes, and where the values go when it
//! fires (the trace, or a tool). Sessions of cltap's own request are kept
//! for the next dispatch; a tool's are freed after use.

use super::super::api::id;
use super::super::room::{self, Room};
use super::super::wrappers::orig;
use super::backend::{self, Backend};
use cltap::fork::condvar::Condvar;
use cltap::fork::lock::Mutex;
use cltap::hsa::aqlprofile::{self as aql, Event, Pm4Packet, Profile};
use cltap::trace::record::{DISPATCH_WORDS, KIND_HSA_COUNTERS};
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::Arc;

const HSA_STATUS_SUCCESS: u32 = 0;
/// `HSA_PACKET_HEADER_BARRIER`'s bit.
const HEADER_BARRIER: u16 = 1 << 8;

/// What receives a tool's values and the dispatch's begin and end (0 when
/// the queue does not profile), on the runtime's signal thread.
pub type ToolDone = Box<dyn FnOnce(&BTreeMap<Event, u64>, [u64; 2]) + Send>;

pub enum Sink {
    /// cltap's own request: a `KIND_HSA_COUNTERS` record of this pass.
    Trace { pass: u32 },
    /// A tool's request; with `pass`, cltap's own events were counted too
    /// and go to the trace as [`Sink::Trace`]'s do.
    Tool { done: Option<ToolDone>, pass: Option<u32> },
}

pub struct Session {
    profile: Profile,
    /// What `profile.events` points into.
    _events: Arc<[Event]>,
    signal: u64,
    seq: u64,
    /// The dispatch this session counts: it completes a proxy signal of
    /// cltap's, and the application's own signal is completed only once
    /// the values are read (so the application cannot destroy the queue
    /// before the `stop` packet ran).
    agent: u64,
    words: [u64; DISPATCH_WORDS],
    name: Option<Arc<str>>,
    app_signal: u64,
    proxy: u64,
    /// Record the dispatch (with its times) when it is read.
    record: bool,
    /// Told when the `stop` packet completed.
    stop: Option<(&'static Room, u64)>,
    sink: Sink,
}

// SAFETY: the profile's pointers are to this session's buffers and events.
unsafe impl Send for Session {}

thread_local! {
    /// Set while a tool's values are handed over on the runtime's signal
    /// thread: nothing there may wait for another dispatch's values.
    static HANDING_OVER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this thread is handing a tool its values (see [`HANDING_OVER`]).
pub fn in_completion() -> bool {
    HANDING_OVER.try_with(|h| h.get()).unwrap_or(false)
}

/// Sessions of cltap's own request, kept for the next dispatch. Kept
/// boxed: each goes to the runtime's signal handler as a raw box
/// (`Box::into_raw`), so reusing one must not allocate a new box.
#[allow(clippy::vec_box)]
pub(crate) static FREE: Mutex<Vec<Box<Session>>> = Mutex::new(Vec::new());
/// Counted dispatches whose values have not been read yet.
pub(crate) static IN_FLIGHT: Mutex<u64> = Mutex::new(0);
static READ: Condvar = Condvar::new();

/// The dispatch a session is for.
pub struct Dispatch {
    pub seq: u64,
    pub agent: u64,
    pub words: [u64; DISPATCH_WORDS],
    pub name: Option<Arc<str>>,
    pub app_signal: u64,
    /// Record it (with its times) when its values are read.
    pub record: bool,
    /// The queue's room and the `stop` packet's index in its hidden queue.
    pub stop: (&'static Room, u64),
}

/// What goes around a counted dispatch.
pub struct Wrapped {
    pub start: Pm4Packet,
    pub stop: Pm4Packet,
    /// The dispatch packet's completion signal instead of the application's.
    pub proxy: u64,
}

/// The packets that count `events` around `d`; None when a step failed
/// (the dispatch then goes uncounted, unchanged).
pub fn wrap(b: &'static Backend, d: Dispatch, events: &Arc<[Event]>, sink: Sink) -> Option<Wrapped> {
    let reuse = matches!(sink, Sink::Trace { .. });
    let found = if reuse { FREE.lock().pop() } else { None };
    let mut s = match found {
        Some(s) => s,
        None => new_session(b, events.clone())?,
    };
    s.sink = sink;
    s.seq = d.seq;
    s.agent = d.agent;
    s.words = d.words;
    s.name = d.name;
    s.app_signal = d.app_signal;
    s.record = d.record;
    s.stop = Some(d.stop);
    s.proxy = match super::super::proxy::new_signal() {
        Some(p) => p,
        None => {
            release(b, s);
            return None;
        }
    };
    let (mut start, mut stop) = (Pm4Packet::default(), Pm4Packet::default());
    // SAFETY: AQLprofile's entries on a profile whose buffers it sized.
    let made = unsafe {
        match (b.table.start, b.table.stop) {
            (Some(st), Some(sp)) => {
                st(&mut s.profile, &mut start) == HSA_STATUS_SUCCESS && sp(&s.profile, &mut stop) == HSA_STATUS_SUCCESS
            }
            _ => false,
        }
    };
    if !made {
        // SAFETY: the proxy is cltap's; no application signal is touched.
        unsafe { super::super::proxy::forward(0, [0, 0], s.proxy) };
        release(b, s);
        return None;
    }
    start.header |= HEADER_BARRIER;
    stop.header |= HEADER_BARRIER;
    stop.completion_signal = s.signal;
    let (signal, proxy) = (s.signal, s.proxy);
    let arg = Box::into_raw(s);
    *IN_FLIGHT.lock() += 1;
    // SAFETY: `on_stopped` takes back the session it is given.
    unsafe {
        if !super::super::proxy::when_done(signal, on_stopped, arg as *mut c_void) {
            let s = Box::from_raw(arg);
            super::super::proxy::forward(0, [0, 0], s.proxy);
            release(b, s);
            done_one();
            return None;
        }
    }
    Some(Wrapped { start, stop, proxy })
}

fn new_session(b: &Backend, events: Arc<[Event]>) -> Option<Box<Session>> {
    let mut profile = Profile::pmc(b.gpu, &events);
    let get_info = b.table.get_info?;
    let (mut cmd, mut out) = (0u32, 0u32);
    // SAFETY: AQLprofile's entries; each answer is a u32.
    unsafe {
        if get_info(&profile, aql::INFO_COMMAND_BUFFER_SIZE, &mut cmd as *mut u32 as *mut c_void) != HSA_STATUS_SUCCESS
            || get_info(&profile, aql::INFO_PMC_DATA_SIZE, &mut out as *mut u32 as *mut c_void) != HSA_STATUS_SUCCESS
        {
            return None;
        }
    }
    let cmd_buf = b.allocate(cmd as usize)?;
    let Some(out_buf) = b.allocate(out as usize) else {
        b.free(cmd_buf);
        return None;
    };
    profile.command_buffer = aql::Descriptor { ptr: cmd_buf, size: cmd };
    profile.output_buffer = aql::Descriptor { ptr: out_buf, size: out };
    let Some(signal) = super::super::proxy::new_signal() else {
        b.free(cmd_buf);
        b.free(out_buf);
        return None;
    };
    Some(Box::new(Session {
        profile,
        _events: events,
        signal,
        seq: 0,
        agent: 0,
        words: [0; DISPATCH_WORDS],
        name: None,
        app_signal: 0,
        proxy: 0,
        record: false,
        stop: None,
        sink: Sink::Trace { pass: 0 },
    }))
}

/// A session done with: kept for cltap's own next dispatch, else freed.
fn release(b: &Backend, s: Box<Session>) {
    if matches!(s.sink, Sink::Trace { .. }) {
        FREE.lock().push(s);
        return;
    }
    b.free(s.profile.command_buffer.ptr);
    b.free(s.profile.output_buffer.ptr);
    super::super::proxy::destroy(s.signal);
}

/// The `stop` packet completed: the values are read and handed on.
///
/// # Safety
/// `arg` is the session the handler was registered with, passed once.
unsafe extern "C" fn on_stopped(_value: i64, arg: *mut c_void) -> bool {
    if arg.is_null() {
        return false;
    }
    room::on_signal_thread();
    // SAFETY: `arg as *mut Session` came from `Box::into_raw` and is freed once (# Safety).
    let mut s = unsafe { Box::from_raw(arg as *mut Session) };
    if let Some((room, at)) = s.stop {
        room.passed(at);
    }
    let Some(b) = backend::get() else { return false };
    let values = crate::guard::guard(BTreeMap::new(), || read(b, &s));
    match &mut s.sink {
        Sink::Trace { pass } => record_values(s.seq, *pass, &values),
        Sink::Tool { done, pass } => {
            if let Some(pass) = *pass {
                record_values(s.seq, pass, &values);
            }
            if let Some(done) = done.take() {
                // SAFETY: `dispatch_times`'s # Safety follows from this fn's.
                let times = unsafe { super::super::proxy::dispatch_times(s.agent, s.proxy) };
                let was = HANDING_OVER.with(|h| h.replace(true));
                crate::guard::guard((), || done(&values, times));
                HANDING_OVER.with(|h| h.set(was));
            }
        }
    }
    // The dispatch (recorded now, with its times, when asked) and the
    // application's signal, completed as the runtime would have.
    crate::guard::guard((), || {
        // SAFETY: `dispatch_done`'s # Safety follows from this fn's.
        unsafe {
            super::super::proxy::dispatch_done(
                s.agent,
                s.seq,
                s.words,
                s.name.as_deref(),
                s.app_signal,
                s.proxy,
                s.record,
            )
        }
    });
    let store = orig(id::hsa_signal_store_screlease);
    if store != 0 {
        // SAFETY: the address is that entry's, and this type its C prototype.
        let store: unsafe extern "C" fn(u64, i64) = unsafe { std::mem::transmute(store) };
        // SAFETY: `store` gets arguments its C declaration accepts.
        unsafe { store(s.signal, 1) };
    }
    release(b, s);
    done_one();
    false
}

/// The values of dispatch `seq` for cltap's own request (`KIND_HSA_COUNTERS`).
fn record_values(seq: u64, pass: u32, values: &BTreeMap<Event, u64>) {
    let mut words = Vec::with_capacity(1 + 2 * values.len());
    words.push(pass as u64);
    for (e, v) in values {
        words.push(aql::pack(e));
        words.push(*v);
    }
    cltap::trace::local::record_kind::<KIND_HSA_COUNTERS>(seq, 0, 0, &words, None);
}

/// Every sample, summed per event (rocprofiler v1 sums an event's samples).
fn read(b: &Backend, s: &Session) -> BTreeMap<Event, u64> {
    let mut sums: BTreeMap<Event, u64> = BTreeMap::new();
    let Some(iterate) = b.table.iterate_data else { return sums };
    /// # Safety
    /// Called by aqlprofile's iteration: `data` is a live sample, `sums` what its caller gave it.
    unsafe extern "C" fn each(kind: u32, data: *mut aql::PmcData, sums: *mut c_void) -> u32 {
        // HSA_STATUS_ERROR ends the iteration; no panic leaves a callback.
        crate::guard::guard_at("an HSA iteration callback", 0x1000, || {
            if kind == aql::INFO_PMC_DATA && !data.is_null() {
                // SAFETY: `data` is valid for this access (# Safety).
                let d = unsafe { &*data };
                // SAFETY: `(*(sums as *mut BTreeMap<Event, u64>))` is valid for this access, as the caller promises
                // (# Safety).
                unsafe { *(*(sums as *mut BTreeMap<Event, u64>)).entry(d.event).or_insert(0) += d.result };
            }
            HSA_STATUS_SUCCESS
        })
    }
    // SAFETY: AQLprofile's entry; `sums` outlives the iteration.
    unsafe {
        if iterate(&s.profile, each, &mut sums as *mut BTreeMap<Event, u64> as *mut c_void) != HSA_STATUS_SUCCESS {
            sums.clear();
        }
    }
    sums
}

fn done_one() {
    let mut n = IN_FLIGHT.lock();
    *n = n.saturating_sub(1);
    READ.notify_all();
}

/// Waits (at most `limit`) until every counted dispatch's values are read:
/// the runtime's `OnUnload` can come while the last `stop` packets still
/// run. Returns how many were still missing. With none missing, the
/// sessions kept for reuse go too: their signals would otherwise be counted
/// by ROCr's "Resource leak detected by SharedSignalPool" line at shut-down,
/// which the application does not print without cltap.
pub fn drain(limit: std::time::Duration) -> u64 {
    let deadline = std::time::Instant::now() + limit;
    let mut n = IN_FLIGHT.lock();
    while *n > 0 {
        if READ.wait_until(&mut n, deadline) {
            break;
        }
    }
    let missing = *n;
    drop(n);
    if missing == 0 {
        // Sessions kept for reuse exist only where the backend was found.
        if let Some(b) = backend::existing() {
            let pool = std::mem::take(&mut *FREE.lock());
            for s in pool {
                b.free(s.profile.command_buffer.ptr);
                b.free(s.profile.output_buffer.ptr);
                super::super::proxy::destroy(s.signal);
            }
        }
    }
    missing
}
