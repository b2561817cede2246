//! The end of the HSA runtime: ROCr calls the tools' `OnUnload` inside the
//! last `hsa_shut_down`, whose own wrapper is then still open. cltap ends its
//! trace only once that call has returned and been recorded; an `OnUnload`
//! from anywhere else ends it at once. The end of the process (the exit
//! handler of `life`) ends it too if the application never shut HSA down;
//! `life::finish` runs once whichever comes first.

use crate::life;

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

thread_local! {
    /// `hsa_shut_down` calls open on this thread.
    static SHUTTING_DOWN: Cell<u32> = const { Cell::new(0) };
}

/// `OnUnload` ran inside an `hsa_shut_down` that has not returned yet.
static PENDING: AtomicBool = AtomicBool::new(false);

/// An `hsa_shut_down` call in flight on this thread.
pub struct ShutDown(());

impl ShutDown {
    #[inline]
    pub fn begin() -> ShutDown {
        let _ = SHUTTING_DOWN.try_with(|d| d.set(d.get() + 1));
        ShutDown(())
    }

    /// After the call's record: the trace ends if `OnUnload` asked for it.
    #[inline]
    pub fn end(self) {
        let outer = SHUTTING_DOWN
            .try_with(|d| {
                d.set(d.get().saturating_sub(1));
                d.get() == 0
            })
            .unwrap_or(true);
        if outer && PENDING.swap(false, Ordering::AcqRel) {
            crate::guard::guard((), life::finish);
        }
    }
}

/// `OnUnload`: the runtime lets go of its tools.
pub fn on_unload() {
    // Counters of the last dispatches are read on the runtime's signal
    // thread, which still runs here.
    let missing = crate::guard::guard(0, || super::counters::drain(std::time::Duration::from_secs(5)));
    if missing > 0 {
        cltap::warn!("counters: {missing} dispatch(es) still running at HSA shut-down: their values are missing");
    }
    let inside = SHUTTING_DOWN.try_with(|d| d.get() > 0).unwrap_or(false);
    if inside {
        PENDING.store(true, Ordering::Release);
    } else {
        life::finish();
    }
}
