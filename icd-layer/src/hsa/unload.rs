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
    wait_for_counted("HSA shut-down");
    let inside = SHUTTING_DOWN.try_with(|d| d.get() > 0).unwrap_or(false);
    if inside {
        PENDING.store(true, Ordering::Release);
    } else {
        life::finish();
    }
}

/// Waits (at most 5 s) until every counted dispatch's values were read and
/// handed on, before the tools end: at `OnUnload`, and at exit when the
/// application never shut HSA down (the HSA front's part in the end of the
/// process, `life::prepare_exit`). The values are read on the runtime's
/// signal thread, which still runs then. A rocprofiler v1 tool's completion
/// handlers have thus all run before its `OnUnloadTool`, as they would had
/// the application waited for its dispatches; a program that returns from
/// `main` right after its last dispatch (issue #41) is the usual case.
/// Bounded: a dispatch that never completes must not hang the exit. Those
/// still missing then are said in one line, and a tool's `get_data` on
/// them fails (`LostAtExit`) instead of waiting.
pub fn wait_for_counted(when: &str) {
    // Once given up (at OnUnload), not again at exit: the same dispatches
    // would be waited for and reported twice.
    static GAVE_UP: AtomicBool = AtomicBool::new(false);
    if GAVE_UP.load(Ordering::Acquire) {
        return;
    }
    let missing = crate::guard::guard(0, || super::counters::drain(std::time::Duration::from_secs(5)));
    if missing > 0 {
        GAVE_UP.store(true, Ordering::Release);
        cltap::warn!("counters: {missing} dispatch(es) still running at {when}: their values are missing");
        crate::guard::guard((), cltap::tools::rocprofiler::registry::stop_waiting);
    }
}
