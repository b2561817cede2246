//! The tool's HSA callbacks (`rocprofiler_set_hsa_callbacks`) by
//! `rocprofiler_hsa_cb_id_t`, and their argument, in atomics: they are
//! called on the application's threads (the submit callback for every
//! packet), so reading them takes no lock.

use cltap::tools::rocprofiler::abi_ext::{HsaCallback, HsaCallbackData};
use std::cell::Cell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The tool's callbacks by `rocprofiler_hsa_cb_id_t`, and their argument.
static CALLBACKS: [AtomicUsize; 6] = [const { AtomicUsize::new(0) }; 6];
static ARG: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Inside a callback: the tool's own HSA calls there call back nothing
    /// (5.2.3's `recursion_`).
    static IN_CALLBACK: Cell<bool> = const { Cell::new(false) };
}

/// Whether callback `id` is set (and this thread is not inside one).
pub fn wanted(id: u32) -> bool {
    CALLBACKS[id as usize].load(Ordering::Acquire) != 0 && !IN_CALLBACK.with(|c| c.get())
}

/// Calls callback `id` with `data`, if it is set.
pub fn issue(id: u32, data: &HsaCallbackData) {
    let f = CALLBACKS[id as usize].load(Ordering::Acquire);
    if f == 0 || IN_CALLBACK.with(|c| c.replace(true)) {
        return;
    }
    // SAFETY: only ever stored from an `HsaCallback`; the tool's own argument.
    unsafe {
        let f = std::mem::transmute::<usize, HsaCallback>(f);
        f(id, data, ARG.load(Ordering::Acquire) as *mut c_void);
    }
    IN_CALLBACK.with(|c| c.set(false));
}

/// Replaces every callback (a None one is off) and the argument.
pub fn set(all: [Option<HsaCallback>; 6], arg: *mut c_void) {
    ARG.store(arg as usize, Ordering::Release);
    for (slot, f) in CALLBACKS.iter().zip(all) {
        slot.store(f.map_or(0, |f| f as usize), Ordering::Release);
    }
}
