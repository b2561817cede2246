//! The layer's one `pthread_atfork` handler: every process-wide lock of
//! cltap and of the layer is taken before a `fork`, in the fixed order of
//! `docs/architecture.md` (Fork), and released after it in the parent and
//! in the child, which first makes some state its own (`cltap::fork`,
//! `cltap::devtime::fork`). Registered once, when the layer starts.

use crate::hsa::{copyanswer, counters, intercept, kernels};
use crate::opencl::devtime::fork as memos;
use crate::tools::rocprofiler::{agent, api_pool};
use cltap::fork::keep;
use std::sync::PoisonError;

extern "C" fn prepare() {
    // 1. The tool's dispatch hook: it runs (read-locked) what a tool
    // wrote, which may take any of the locks below.
    keep(counters::HOOK.write());
    // 2. The counting GPU: held while it is loaded, through HSA calls.
    agent::hold_for_fork();
    // 3. Tracers' destroyers, threads and registry; 4. the fast-path
    // refresh a tracer's enabling runs.
    cltap::fork::hold_tracers();
    keep(crate::bracket::REFRESHING.lock());
    // 5. The window's changes (which record) and the programs' registry.
    cltap::fork::hold_window_and_programs();
    // 6, 7. Device timing, then the layer's memos of it.
    cltap::devtime::fork::prepare();
    memos::hold_memos();
    // 8, 9. Locks under which no other is taken.
    cltap::fork::hold_leaves();
    keep(crate::life::FRONTS.lock());
    keep(crate::opencl::programs::PENDING.lock().unwrap_or_else(PoisonError::into_inner));
    keep(crate::opencl::exts::UNKNOWN_SEEN.lock());
    keep(api_pool::POOLS.lock());
    keep(api_pool::CLOSED.lock());
    keep(kernels::KERNELS.write().unwrap_or_else(PoisonError::into_inner));
    keep(intercept::KERNEL_DISPATCHES.lock().unwrap_or_else(PoisonError::into_inner));
    keep(intercept::QUEUES.lock().unwrap_or_else(PoisonError::into_inner));
    keep(counters::session::FREE.lock());
    keep(counters::session::IN_FLIGHT.lock());
    keep(copyanswer::answers().lock().unwrap_or_else(PoisonError::into_inner));
    crate::opencl::exts::DRIVERS.hold_for_fork();
    crate::opencl::next::hold_for_fork();
    if let Some(hs) = crate::opencl::handles::if_ready() {
        hs.hold_for_fork();
    }
    // 10. The tools' buffers, then stderr.
    cltap::fork::hold_last();
}

extern "C" fn parent() {
    // SAFETY: `prepare` ran on this thread, and nothing was released since.
    unsafe {
        cltap::fork::parent();
        memos::release_memos();
        cltap::devtime::fork::parent();
    }
}

extern "C" fn child() {
    memos::forget_reader();
    // SAFETY: `prepare` ran on this thread, the child's only one, and
    // nothing was released since.
    unsafe {
        cltap::fork::child();
        memos::release_memos();
        cltap::devtime::fork::child();
    }
}

/// Registers the handlers (once, however often it is called).
pub fn register() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // SAFETY: plain functions, registered once; they take and release
    // cltap's own locks, and allocate only in the prepare handler and the
    // child (whose allocator the C library has made its own).
    ONCE.call_once(|| unsafe {
        libc::pthread_atfork(Some(prepare), Some(parent), Some(child));
    });
}
