//! KFD events. Each has an id, a mailbox slot (signal events: ROCr copies its address into
//! `amd_signal_t.event_mailbox_ptr`), a signalled flag and manual or automatic reset. Waits block on
//! one condition variable, woken by `hsaKmtSetEvent` or by the command processor's "interrupt"
//! ([`raise`]). As in KFD's `set_event`, setting an event wakes every thread waiting on it at that
//! moment, and an automatic-reset event with waiters stays unsignalled (it is consumed by waking
//! them); with no waiter it stays signalled for the next wait, which consumes it. A memory fault is
//! delivered by writing the fault into every memory event's data and raising them
//! ([`raise_memory_fault`]), as KFD does.
//!
//! One thing KFD's semantics alone get wrong for ROCr 5.2.3, which shares one automatic-reset event
//! between every queue's inactive signal: a set meant for a thread that checked its signal but is
//! not yet waiting here latches the event, and another thread's wait on the same event (ROCr's
//! async-events thread) consumes it; the first then sleeps until the next set, which in queue
//! teardown never comes (docs/gpu-emu.md#the-lost-wake-up-in-queue-teardown). Later KFDs and ROCrs
//! fix this with an event age the caller passes; ROCr 5.2.3 passes none, so each thread's age is
//! kept here: a wait also returns at once for a set of one of its events that this thread has not
//! seen, i.e. one since its last wait on that event returned. ROCr re-checks its signals after every
//! return, so such a return costs one look, and no set is lost.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use crate::sys::*;

struct Event {
    /// The `HsaEvent` handed to the caller (a leaked Box), written on a memory fault.
    handle: usize,
    kind: HSA_EVENTTYPE,
    manual_reset: bool,
    signalled: bool,
    /// Threads waiting on it now.
    waiters: u32,
    /// Times it was set: a waiter that saw another count at its start was woken by a set.
    sets: u64,
}

impl Event {
    fn set(&mut self) {
        self.sets += 1;
        self.signalled = self.manual_reset || self.waiters == 0;
    }
}

#[derive(Default)]
struct Table {
    next_id: u32,
    events: HashMap<u32, Event>,
}

static TABLE: Mutex<Option<Table>> = Mutex::new(None);

thread_local! {
    /// This thread's event ages: each event's set count when its last wait on it returned (absent:
    /// it never waited on it, so every set is one it has not seen).
    static SEEN: RefCell<HashMap<u32, u64>> = RefCell::new(HashMap::new());
}
static WAKE: Condvar = Condvar::new();

const MAILBOX_SLOTS: usize = 4096;

/// The event page: one 64-bit mailbox per event slot.
fn mailboxes() -> &'static [AtomicU64] {
    static PAGE: OnceLock<Box<[AtomicU64]>> = OnceLock::new();
    PAGE.get_or_init(|| (0..MAILBOX_SLOTS).map(|_| AtomicU64::new(0)).collect())
}

fn table() -> MutexGuard<'static, Option<Table>> {
    let mut t = TABLE.lock().unwrap_or_else(|e| e.into_inner());
    t.get_or_insert_with(|| Table { next_id: 1, ..Default::default() });
    t
}

fn with_table<R>(f: impl FnOnce(&mut Table) -> R) -> R {
    let mut t = table();
    f(t.as_mut().expect("initialised by table()"))
}

/// Signals the event `id` (the command processor's interrupt); unknown ids are ignored.
pub fn raise(id: u32) {
    with_table(|t| {
        if let Some(e) = t.events.get_mut(&id) {
            e.set();
        }
    });
    WAKE.notify_all();
}

/// Writes a GPU memory fault at `address` on the GPU node into every memory event and raises them:
/// ROCr's fault handler then reports it (and aborts unless the application handles it).
pub fn raise_memory_fault(address: u64) -> usize {
    let raised = with_table(|t| {
        let mut n = 0;
        for e in t.events.values_mut().filter(|e| e.kind == HSA_EVENTTYPE_MEMORY) {
            let mut fault = HsaMemoryAccessFault {
                NodeId: crate::topology::GPU_NODE,
                VirtualAddress: address,
                Flags: HSA_EVENTID_MEMORY_FATAL_PROCESS,
                ..Default::default()
            };
            fault.Failure.set_NotPresent(1);
            let ev = e.handle as *mut HsaEvent;
            // SAFETY: the HsaEvent this table allocated and still owns; only its data union changes.
            unsafe {
                let mut data = std::ptr::addr_of!((*ev).EventData).read_unaligned();
                data.EventData.MemoryAccessFault = fault;
                std::ptr::addr_of_mut!((*ev).EventData).write_unaligned(data);
            }
            e.set();
            n += 1;
        }
        n
    });
    WAKE.notify_all();
    raised
}

/// One line per event, by id, for the watchdog's report: what a thread blocked in a wait is
/// waiting for, and whether a set reached it.
pub fn describe() -> Vec<String> {
    with_table(|t| {
        let mut ids: Vec<&u32> = t.events.keys().collect();
        ids.sort_unstable();
        ids.into_iter()
            .map(|id| {
                let e = &t.events[id];
                let kind = match e.kind {
                    HSA_EVENTTYPE_SIGNAL => "signal".to_string(),
                    HSA_EVENTTYPE_MEMORY => "memory".to_string(),
                    other => format!("type {other}"),
                };
                format!(
                    "event {id}: {kind}, {} reset, {}, {} waiters, set {} times",
                    if e.manual_reset { "manual" } else { "automatic" },
                    if e.signalled { "signalled" } else { "unsignalled" },
                    e.waiters,
                    e.sets
                )
            })
            .collect()
    })
}

fn event_id(ev: *const HsaEvent) -> u32 {
    // SAFETY: the caller passes an HsaEvent this module created.
    unsafe { std::ptr::addr_of!((*ev).EventId).read_unaligned() }
}

#[no_mangle]
pub extern "C" fn hsaKmtCreateEvent(
    desc: *mut HsaEventDescriptor,
    manual_reset: bool,
    signalled: bool,
    out: *mut *mut HsaEvent,
) -> HSAKMT_STATUS {
    crate::guard(|| {
        if desc.is_null() || out.is_null() {
            return HSAKMT_STATUS_INVALID_PARAMETER;
        }
        // SAFETY: checked non-null.
        let kind = unsafe { std::ptr::addr_of!((*desc).EventType).read_unaligned() };
        let id = with_table(|t| {
            let id = t.next_id;
            t.next_id += 1;
            id
        });
        let mut ev = HsaEvent { EventId: id, ..Default::default() };
        ev.EventData.EventType = kind;
        ev.EventData.HWData1 = id as u64;
        if kind == HSA_EVENTTYPE_SIGNAL {
            ev.EventData.HWData2 = &mailboxes()[id as usize % MAILBOX_SLOTS] as *const AtomicU64 as u64;
        }
        ev.EventData.HWData3 = id;
        let handle = Box::into_raw(Box::new(ev));
        let event = Event { handle: handle as usize, kind, manual_reset, signalled, waiters: 0, sets: 0 };
        with_table(|t| t.events.insert(id, event));
        // SAFETY: checked non-null.
        unsafe { *out = handle };
        HSAKMT_STATUS_SUCCESS
    })
}

#[no_mangle]
pub extern "C" fn hsaKmtDestroyEvent(ev: *mut HsaEvent) -> HSAKMT_STATUS {
    crate::guard(|| {
        if ev.is_null() {
            return HSAKMT_STATUS_INVALID_HANDLE;
        }
        match with_table(|t| t.events.remove(&event_id(ev))) {
            Some(e) => {
                // SAFETY: allocated by hsaKmtCreateEvent as a Box, removed from the table just now.
                drop(unsafe { Box::from_raw(e.handle as *mut HsaEvent) });
                HSAKMT_STATUS_SUCCESS
            }
            None => HSAKMT_STATUS_INVALID_HANDLE,
        }
    })
}

#[no_mangle]
pub extern "C" fn hsaKmtSetEvent(ev: *mut HsaEvent) -> HSAKMT_STATUS {
    crate::guard(|| {
        if ev.is_null() {
            return HSAKMT_STATUS_INVALID_HANDLE;
        }
        raise(event_id(ev));
        HSAKMT_STATUS_SUCCESS
    })
}

#[no_mangle]
pub extern "C" fn hsaKmtResetEvent(ev: *mut HsaEvent) -> HSAKMT_STATUS {
    crate::guard(|| {
        if ev.is_null() {
            return HSAKMT_STATUS_INVALID_HANDLE;
        }
        with_table(|t| t.events.get_mut(&event_id(ev)).map(|e| e.signalled = false));
        HSAKMT_STATUS_SUCCESS
    })
}

#[no_mangle]
pub extern "C" fn hsaKmtWaitOnEvent(ev: *mut HsaEvent, ms: u32) -> HSAKMT_STATUS {
    let mut list = [ev];
    hsaKmtWaitOnMultipleEvents(list.as_mut_ptr(), 1, true, ms)
}

/// Blocks until one (or all) of the events is signalled or `ms` passes (`u32::MAX`: no limit).
/// Automatic-reset events that satisfied the wait are reset, as KFD does.
#[no_mangle]
pub extern "C" fn hsaKmtWaitOnMultipleEvents(
    events: *mut *mut HsaEvent,
    count: u32,
    all: bool,
    ms: u32,
) -> HSAKMT_STATUS {
    crate::guard(|| {
        if events.is_null() || count == 0 {
            return HSAKMT_STATUS_INVALID_PARAMETER;
        }
        // SAFETY: the caller's array of `count` events.
        let ids: Vec<u32> =
            unsafe { std::slice::from_raw_parts(events, count as usize) }.iter().map(|&e| event_id(e)).collect();
        let deadline = (ms != HSA_EVENTTIMEOUT_INFINITE).then(|| Instant::now() + Duration::from_millis(ms.into()));
        // The set counts this thread has seen: an event set since then fired for it, whether the set
        // came before this call (and another thread's wait consumed it) or during it.
        // (A thread past its thread-locals has seen nothing: at worst one return too early.)
        let seen: Vec<u64> = SEEN
            .try_with(|s| {
                let s = s.borrow();
                ids.iter().map(|id| s.get(id).copied().unwrap_or(0)).collect()
            })
            .unwrap_or_else(|_| vec![0; ids.len()]);
        let mut guard = table();
        let mut waiting = false;
        let status = loop {
            let t = guard.as_mut().expect("initialised by table()");
            let fired: Vec<bool> = ids
                .iter()
                .zip(&seen)
                .map(|(id, &s0)| t.events.get(id).is_some_and(|e| e.signalled || e.sets > s0))
                .collect();
            let n = fired.iter().filter(|&&f| f).count();
            if (all && n == ids.len()) || (!all && n > 0) {
                // A signalled automatic-reset event is consumed by the wait it satisfies.
                for (id, _) in ids.iter().zip(&fired).filter(|(_, &f)| f) {
                    if let Some(e) = t.events.get_mut(id).filter(|e| !e.manual_reset) {
                        e.signalled = false;
                    }
                }
                break HSAKMT_STATUS_SUCCESS;
            }
            let wait = match deadline {
                None => Duration::from_secs(3600),
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => left,
                    _ => break HSAKMT_STATUS_WAIT_TIMEOUT,
                },
            };
            if !waiting {
                waiting = true;
                set_waiting(t, &ids, true);
            }
            guard = WAKE.wait_timeout(guard, wait).unwrap_or_else(|e| e.into_inner()).0;
        };
        let t = guard.as_mut().expect("initialised by table()");
        if waiting {
            set_waiting(t, &ids, false);
        }
        // The caller looks at its signals after this return: every set so far is seen.
        let _ = SEEN.try_with(|s| {
            let mut s = s.borrow_mut();
            for id in &ids {
                if let Some(e) = t.events.get(id) {
                    s.insert(*id, e.sets);
                }
            }
        });
        status
    })
}

fn set_waiting(t: &mut Table, ids: &[u32], on: bool) {
    for id in ids {
        if let Some(e) = t.events.get_mut(id) {
            e.waiters = if on { e.waiters + 1 } else { e.waiters.saturating_sub(1) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn create(manual: bool) -> *mut HsaEvent {
        let mut desc = HsaEventDescriptor { EventType: HSA_EVENTTYPE_SIGNAL, ..Default::default() };
        let mut ev = std::ptr::null_mut();
        assert_eq!(hsaKmtCreateEvent(&mut desc, manual, false, &mut ev), HSAKMT_STATUS_SUCCESS);
        ev
    }

    #[test]
    fn a_wait_times_out_then_wakes_on_set_from_another_thread() {
        let ev = create(false);
        assert_eq!(hsaKmtWaitOnEvent(ev, 0), HSAKMT_STATUS_WAIT_TIMEOUT);
        let id = event_id(ev);
        let setter = std::thread::spawn(move || raise(id));
        assert_eq!(hsaKmtWaitOnEvent(ev, HSA_EVENTTIMEOUT_INFINITE), HSAKMT_STATUS_SUCCESS);
        setter.join().unwrap();
        // Automatic reset: consumed by the wait.
        assert_eq!(hsaKmtWaitOnEvent(ev, 0), HSAKMT_STATUS_WAIT_TIMEOUT);
        assert_eq!(hsaKmtDestroyEvent(ev), HSAKMT_STATUS_SUCCESS);
    }

    #[test]
    fn a_memory_fault_fills_and_raises_the_memory_events() {
        let mut desc = HsaEventDescriptor { EventType: HSA_EVENTTYPE_MEMORY, ..Default::default() };
        let mut ev = std::ptr::null_mut();
        assert_eq!(hsaKmtCreateEvent(&mut desc, true, false, &mut ev), HSAKMT_STATUS_SUCCESS);
        assert!(raise_memory_fault(0x1000) >= 1);
        assert_eq!(hsaKmtWaitOnEvent(ev, 0), HSAKMT_STATUS_SUCCESS);
        // SAFETY: the event created above.
        let fault = unsafe { (*ev).EventData.EventData.MemoryAccessFault };
        let (node, address, flags) = (fault.NodeId, fault.VirtualAddress, fault.Flags);
        assert_eq!((node, address, flags), (1, 0x1000, HSA_EVENTID_MEMORY_FATAL_PROCESS));
        assert_eq!(fault.Failure.NotPresent(), 1);
        assert_eq!(hsaKmtDestroyEvent(ev), HSAKMT_STATUS_SUCCESS);
    }

    #[test]
    fn one_set_wakes_every_thread_waiting_on_an_automatic_reset_event() {
        let ev = create(false);
        let id = event_id(ev);
        let handle = ev as usize;
        // Each waiter then waits again without blocking: the set is consumed, and each has seen it.
        let waiters: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn(move || {
                    let ev = handle as *mut HsaEvent;
                    (hsaKmtWaitOnEvent(ev, HSA_EVENTTIMEOUT_INFINITE), hsaKmtWaitOnEvent(ev, 0))
                })
            })
            .collect();
        // Set once every thread is waiting (no sleep: the table says so).
        while with_table(|t| t.events[&id].waiters) < 4 {
            std::thread::yield_now();
        }
        raise(id);
        for w in waiters {
            assert_eq!(w.join().unwrap(), (HSAKMT_STATUS_SUCCESS, HSAKMT_STATUS_WAIT_TIMEOUT));
        }
        assert!(!with_table(|t| t.events[&id].signalled), "consumed by waking them");
        assert_eq!(hsaKmtDestroyEvent(ev), HSAKMT_STATUS_SUCCESS);
    }

    /// ROCr 5.2.3's queue teardown, step by step (docs/gpu-emu.md#the-lost-wake-up-in-queue-teardown):
    /// the destroying thread has checked its signal and is on its way into the wait; the async-events
    /// thread's handler stores the new value and sets the shared event (nobody waits here yet, so it
    /// latches); the async-events thread's own next wait, on that event among others, consumes it.
    /// With KFD's semantics alone the destroying thread then sleeps for good (the hang under load);
    /// it has not seen that set, so its wait returns.
    #[test]
    fn a_set_another_threads_wait_consumed_still_wakes_a_thread_that_had_not_seen_it() {
        let (shared, wake) = (create(false), create(false));
        let id = event_id(shared);
        // The destroying thread once waited on the shared event and saw every set so far.
        assert_eq!(hsaKmtWaitOnEvent(shared, 0), HSAKMT_STATUS_WAIT_TIMEOUT);
        // The handler's set, on the async-events thread.
        raise(id);
        // That thread's next wait on [wake, shared] returns at once and consumes the set.
        let list = [wake as usize, shared as usize];
        let consumer = std::thread::spawn(move || {
            let mut l = list.map(|e| e as *mut HsaEvent);
            let first = hsaKmtWaitOnMultipleEvents(l.as_mut_ptr(), 2, false, HSA_EVENTTIMEOUT_INFINITE - 1);
            (first, hsaKmtWaitOnMultipleEvents(l.as_mut_ptr(), 2, false, 0))
        });
        assert_eq!(consumer.join().unwrap(), (HSAKMT_STATUS_SUCCESS, HSAKMT_STATUS_WAIT_TIMEOUT));
        assert!(!with_table(|t| t.events[&id].signalled), "consumed by the other thread's wait");
        // The destroying thread's wait: a set it has not seen, so it returns (0 ms: no blocking).
        assert_eq!(hsaKmtWaitOnEvent(shared, 0), HSAKMT_STATUS_SUCCESS);
        // And once seen, it waits again.
        assert_eq!(hsaKmtWaitOnEvent(shared, 0), HSAKMT_STATUS_WAIT_TIMEOUT);
        for e in [shared, wake] {
            assert_eq!(hsaKmtDestroyEvent(e), HSAKMT_STATUS_SUCCESS);
        }
    }

    #[test]
    fn manual_reset_events_stay_set_and_wait_all_needs_all() {
        let (a, b) = (create(true), create(true));
        assert_eq!(hsaKmtSetEvent(a), HSAKMT_STATUS_SUCCESS);
        let mut both = [a, b];
        assert_eq!(hsaKmtWaitOnMultipleEvents(both.as_mut_ptr(), 2, true, 0), HSAKMT_STATUS_WAIT_TIMEOUT);
        assert_eq!(hsaKmtWaitOnMultipleEvents(both.as_mut_ptr(), 2, false, 0), HSAKMT_STATUS_SUCCESS);
        assert_eq!(hsaKmtWaitOnEvent(a, 0), HSAKMT_STATUS_SUCCESS, "manual reset keeps it set");
        assert_eq!(hsaKmtResetEvent(a), HSAKMT_STATUS_SUCCESS);
        assert_eq!(hsaKmtWaitOnEvent(a, 0), HSAKMT_STATUS_WAIT_TIMEOUT);
        for e in both {
            assert_eq!(hsaKmtDestroyEvent(e), HSAKMT_STATUS_SUCCESS);
        }
    }
}
