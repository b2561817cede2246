//! cltap's tracer API (Level Zero's tracer model,
//! docs/platform-facts.md#public-documents), the logic behind
//! `include/cltap.h`: tools
//! create tracers, give them prologue and epilogue callbacks per function,
//! enable and disable them from any thread, and destroy them.
//!
//! The rules this module keeps:
//! - **Cost when off.** A wrapper asks [`on`] for its slot: one relaxed load
//!   of a per-function count of enabled tracers with a callback there. Only
//!   when that is not zero does it build the parameter struct and call
//!   [`enter`] and [`exit`]. The counts change only when a tracer is
//!   enabled, disabled or destroyed.
//! - **Pairing.** [`enter`] opens a frame per tracer that takes part in the
//!   call (enabled, with a prologue or an epilogue for it), runs its
//!   prologue, and [`exit`] runs the epilogue each frame chose, whatever
//!   happened to the tracer's enabled state in between. A tracer enabled
//!   during a call has no frame in it, so no epilogue.
//! - **Instance data.** Each frame holds a 64-bit slot, zero at the
//!   prologue; what the prologue leaves there the epilogue receives.
//! - **Destroy** takes the tracer out of the list (no new frames), then
//!   waits until no *other* thread has a frame of it: callbacks running
//!   there, and calls between their prologue and epilogue, finish. Frames of
//!   the destroying thread itself are not waited for (it may be inside a
//!   traced call or a callback); their epilogues are skipped, since after
//!   `destroy` returns none of the tracer's callbacks runs again.
//! - **No recursion.** Calls that a callback makes on its thread are
//!   forwarded (and recorded by cltap) but not traced.
//!
//! Steady-state traced calls write only their thread's own state: each
//! thread keeps a copy of the tracers' list, refreshed when its generation
//! changes (a tracer created or destroyed).

use super::tracer_ids::{self, api_id_of_slot, SLOTS};
pub use super::tracer_object::Callback;
use super::tracer_object::{Snapshot, Tracer};
use super::tracer_thread::{self as thread, Frame};
use crate::fork::lock::Mutex;
use std::ffi::c_void;
use std::sync::atomic::{fence, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TracerError {
    #[error("a required pointer argument is NULL")]
    InvalidArgument,
    #[error("no such tracer (never created, or destroyed)")]
    InvalidTracer,
    #[error("no function has this id")]
    InvalidApiId,
    #[error("no such domain")]
    InvalidDomain,
    #[error("callbacks can only be changed while the tracer is disabled")]
    TracerEnabled,
}

struct Live {
    t: Arc<Tracer>,
    /// The slots this tracer adds to `COUNTS` while enabled.
    counted: Vec<u16>,
}

struct Registry {
    live: Vec<Live>,
    next_id: u64,
    snapshot: Option<Snapshot>,
}

impl Registry {
    fn find(&mut self, id: u64) -> Result<&mut Live, TracerError> {
        self.live.iter_mut().find(|l| l.t.id == id).ok_or(TracerError::InvalidTracer)
    }

    /// A new list for the threads to copy (under the lock: `GEN` moves only here).
    fn publish(&mut self) {
        self.snapshot = Some(self.live.iter().map(|l| l.t.clone()).collect());
        GEN.fetch_add(1, Ordering::Release);
    }
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry { live: Vec::new(), next_id: 1, snapshot: None });
/// The list's generation: a thread whose copy is older takes a new one.
static GEN: AtomicU64 = AtomicU64::new(0);
/// Per slot: how many enabled tracers have a callback for that function.
static COUNTS: [AtomicU32; SLOTS] = [const { AtomicU32::new(0) }; SLOTS];

/// Whether a call of `slot`'s function must go through [`enter`] and
/// [`exit`]: the wrappers' one relaxed load.
#[inline(always)]
pub fn on(slot: usize) -> bool {
    COUNTS[slot].load(Ordering::Relaxed) != 0
}

/// A new tracer, disabled, without callbacks; its handle (never 0, never reused).
pub fn create(user_data: *mut c_void) -> u64 {
    let mut r = REGISTRY.lock();
    let id = r.next_id;
    r.next_id += 1;
    r.live.push(Live { t: Arc::new(Tracer::new(id, user_data)), counted: Vec::new() });
    r.publish();
    id
}

/// Sets (or clears, with `None`) the callbacks of one function.
pub fn set_callback(
    id: u64,
    api_id: u32,
    prologue: Option<Callback>,
    epilogue: Option<Callback>,
) -> Result<(), TracerError> {
    let slot = tracer_ids::slot(api_id).ok_or(TracerError::InvalidApiId)?;
    let mut r = REGISTRY.lock();
    let l = r.find(id)?;
    if l.t.enabled.load(Ordering::Acquire) {
        return Err(TracerError::TracerEnabled);
    }
    l.t.set(slot, prologue, epilogue);
    Ok(())
}

/// Sets the same callbacks for every function of a domain.
pub fn set_domain_callbacks(
    id: u64,
    domain: u32,
    prologue: Option<Callback>,
    epilogue: Option<Callback>,
) -> Result<(), TracerError> {
    let n = tracer_ids::count(domain).ok_or(TracerError::InvalidDomain)?;
    let mut r = REGISTRY.lock();
    let l = r.find(id)?;
    if l.t.enabled.load(Ordering::Acquire) {
        return Err(TracerError::TracerEnabled);
    }
    for i in 0..n {
        l.t.set(tracer_ids::slot_of(domain, i), prologue, epilogue);
    }
    Ok(())
}

/// Enables a tracer (enabling an enabled one does nothing): calls that
/// start from here on take part.
pub fn enable(id: u64) -> Result<(), TracerError> {
    let mut r = REGISTRY.lock();
    let l = r.find(id)?;
    if !l.t.enabled.load(Ordering::Acquire) {
        l.counted = (0..SLOTS).filter(|&s| l.t.has_callback(s)).map(|s| s as u16).collect();
        // Enabled before counted: a wrapper that sees the count finds the
        // tracer enabled (or, racing a disable, not: then it skips it).
        l.t.enabled.store(true, Ordering::Release);
        for &s in &l.counted {
            COUNTS[s as usize].fetch_add(1, Ordering::Release);
        }
        crate::fastpath::changed();
    }
    Ok(())
}

/// Disables a tracer: calls that start from here on do not take part;
/// calls whose prologue ran still get their epilogue.
pub fn disable(id: u64) -> Result<(), TracerError> {
    let mut r = REGISTRY.lock();
    uncount(r.find(id)?);
    Ok(())
}

fn uncount(l: &mut Live) {
    if l.t.enabled.swap(false, Ordering::AcqRel) {
        for &s in &l.counted {
            COUNTS[s as usize].fetch_sub(1, Ordering::Release);
        }
        l.counted.clear();
        crate::fastpath::changed();
    }
}

/// Destroys a tracer; see the module's notes for what it waits for.
pub fn destroy(id: u64) -> Result<(), TracerError> {
    let t = {
        let mut r = REGISTRY.lock();
        let at = r.live.iter().position(|l| l.t.id == id).ok_or(TracerError::InvalidTracer)?;
        let mut l = r.live.remove(at);
        uncount(&mut l);
        r.publish();
        l.t
    };
    thread::begin_destroy();
    // Against `enter`'s check after opening its frame: either that thread
    // sees `dying`, or the look at its frames below sees the frame.
    t.dying.store(true, Ordering::SeqCst);
    fence(Ordering::SeqCst);
    thread::wait_for_other_threads(Arc::as_ptr(&t));
    t.destroyed.store(true, Ordering::Release);
    thread::end_destroy();
    thread::keep_if_held(t);
    Ok(())
}

/// What [`enter`] opened for one call: how many frames (tracers taking part).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub struct Entered(u32);

impl Entered {
    pub const NONE: Entered = Entered(0);

    pub fn any(self) -> bool {
        self.0 != 0
    }
}

/// Before a call of `slot`'s function: a frame per enabled tracer with a
/// callback for it, in creation order, and its prologue. `params` is the
/// call's parameter struct (pointers to its parameters; NULL without any).
///
/// # Safety
/// `params` must be what the function's callbacks expect, valid until [`exit`].
pub unsafe fn enter(slot: usize, params: *mut c_void) -> Entered {
    let api_id = api_id_of_slot(slot);
    thread::with_local(|l| {
        if l.in_callback() {
            return Entered::NONE;
        }
        let Some(list) = l.tracers(GEN.load(Ordering::Acquire), load_snapshot) else { return Entered::NONE };
        let mut n = 0;
        for t in list.iter() {
            if !t.enabled.load(Ordering::Acquire) {
                continue;
            }
            let prologue = Tracer::callback(&t.prologue, slot);
            let epilogue = Tracer::callback(&t.epilogue, slot);
            if prologue.is_none() && epilogue.is_none() {
                continue;
            }
            let idx = l.push(Frame { tracer: Arc::as_ptr(t), epilogue, instance: 0 });
            fence(Ordering::SeqCst);
            if t.dying.load(Ordering::SeqCst) {
                l.pop();
                continue;
            }
            if let Some(p) = prologue {
                let mut instance = 0u64;
                // SAFETY: the tool's callback, with the arguments it was promised.
                l.callback(|| unsafe { p(api_id, params, std::ptr::null(), t.user_data(), &mut instance) });
                l.set_instance(idx, instance);
            }
            if epilogue.is_none() {
                l.pop();
                continue;
            }
            n += 1;
        }
        Entered(n)
    })
    .unwrap_or(Entered::NONE)
}

/// The prepare handler's part ([`crate::fork`]).
pub(crate) fn hold_for_fork() {
    crate::fork::kept::keep(REGISTRY.lock());
}

fn load_snapshot() -> (u64, Snapshot) {
    let r = REGISTRY.lock();
    let s = r.snapshot.clone().unwrap_or_else(|| Arc::from(Vec::new()));
    (GEN.load(Ordering::Acquire), s)
}

/// After the call: the epilogues of the frames [`enter`] opened, in the
/// reverse order. `result` points at the call's result (NULL for `void`).
///
/// # Safety
/// `e` is what [`enter`] returned on this thread for this call, and every
/// call entered on this thread since has exited; `params` as for `enter`.
pub unsafe fn exit(e: Entered, slot: usize, params: *mut c_void, result: *const c_void) {
    if !e.any() {
        return;
    }
    let api_id = api_id_of_slot(slot);
    thread::with_local(|l| {
        for _ in 0..e.0 {
            let Some(f) = l.top() else { return };
            // SAFETY: a frame keeps its tracer alive (see `Frame::tracer`).
            let t = unsafe { &*f.tracer };
            if let Some(epi) = f.epilogue.filter(|_| !t.destroyed.load(Ordering::Acquire)) {
                let mut instance = f.instance;
                // SAFETY: as for the prologue.
                l.callback(|| unsafe { epi(api_id, params, result, t.user_data(), &mut instance) });
            }
            l.pop();
        }
    });
}

#[cfg(test)]
#[path = "tracer_tests.rs"]
mod tests;
