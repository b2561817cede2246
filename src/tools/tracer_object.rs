//! One tracer of the tracer API: its prologue and epilogue tables and its
//! state, shared by the registry (`tracer`) and each thread's frames
//! (`tracer_thread`).

use super::tracer_ids::SLOTS;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// `void cb(uint32_t api_id, void* params, const void* result, void*
/// user_data, uint64_t* instance_data)`: `result` is NULL in a prologue.
pub type Callback = unsafe extern "C" fn(u32, *mut c_void, *const c_void, *mut c_void, *mut u64);

/// One tracer. Its callbacks change only while it is disabled, so a call
/// never sees half of a change.
pub struct Tracer {
    pub(super) id: u64,
    pub(super) user_data: usize,
    pub(super) prologue: Box<[AtomicUsize]>,
    pub(super) epilogue: Box<[AtomicUsize]>,
    pub(super) enabled: AtomicBool,
    /// Set when a destroy starts: no new frames.
    pub(super) dying: AtomicBool,
    /// Set when the destroy returns: remaining frames (the destroying
    /// thread's own) skip their epilogues.
    pub(super) destroyed: AtomicBool,
}

impl Tracer {
    pub(super) fn new(id: u64, user_data: *mut c_void) -> Self {
        let table = || (0..SLOTS).map(|_| AtomicUsize::new(0)).collect::<Vec<_>>().into_boxed_slice();
        Tracer {
            id,
            user_data: user_data as usize,
            prologue: table(),
            epilogue: table(),
            enabled: AtomicBool::new(false),
            dying: AtomicBool::new(false),
            destroyed: AtomicBool::new(false),
        }
    }

    pub(super) fn callback(table: &[AtomicUsize], slot: usize) -> Option<Callback> {
        match table[slot].load(Ordering::Acquire) {
            0 => None,
            // SAFETY: only `Callback`s are stored (see `set`).
            f => Some(unsafe { std::mem::transmute::<usize, Callback>(f) }),
        }
    }

    pub(super) fn set(&self, slot: usize, prologue: Option<Callback>, epilogue: Option<Callback>) {
        self.prologue[slot].store(prologue.map_or(0, |f| f as usize), Ordering::Release);
        self.epilogue[slot].store(epilogue.map_or(0, |f| f as usize), Ordering::Release);
    }

    pub(super) fn has_callback(&self, slot: usize) -> bool {
        self.prologue[slot].load(Ordering::Relaxed) != 0 || self.epilogue[slot].load(Ordering::Relaxed) != 0
    }

    pub(super) fn user_data(&self) -> *mut c_void {
        self.user_data as *mut c_void
    }
}

/// The live tracers in creation order, as each thread copies them.
pub type Snapshot = Arc<[Arc<Tracer>]>;
