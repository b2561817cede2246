//! `CLTAP_ATP=1`: the times of each `hsa_amd_memory_async_copy` and
//! `hsa_amd_memory_async_copy_rect`, as rocprofiler's HSA tracer takes them.
//! `OnLoad` puts [`async_copy`] and [`async_copy_rect`] in the AMD table's
//! entries: it records the application's call as the generated
//! wrapper does, turns async-copy profiling on once (the runtime's
//! `hsa_amd_profiling_async_copy_enable(true)`), and forwards the copy with
//! a proxy completion signal of cltap's. The proxy's async handler reads
//! the copy's start and end (`hsa_amd_profiling_get_async_copy_time`),
//! writes one `KIND_HSA_COPY` record, keeps the times for the application's
//! own query ([`super::copyanswer`]: ROCr would refuse it on the application's
//! signal, which never ran the copy), subtracts 1 from the application's
//! signal (as the runtime would have) and destroys the proxy.
//!
//! The link to the call's record: the copy record holds the calling thread's
//! id, which function, and the call's ordinal among that thread's recorded
//! calls of that function (from 0), which the `.atp` writer counts the same
//! way.

use super::api::id;
use super::wrappers::orig;
use crate::bracket;
use cltap::trace::record::*;
use std::cell::Cell;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};

const HSA_STATUS_SUCCESS: u32 = 0;
const HSA_STATUS_ERROR: u32 = 0x1000;

static ON: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// This thread's recorded copy calls so far, plain and rect.
    static ORDINAL: [Cell<u64>; 2] = const { [Cell::new(0), Cell::new(0)] };
}

/// Turns the replacement on (before the tables are installed).
pub fn set_on(on: bool) {
    ON.store(on, Ordering::Release);
}

pub fn on() -> bool {
    ON.load(Ordering::Acquire)
}

/// What `OnLoad` puts in the AMD table's `hsa_amd_memory_async_copy` entry.
pub fn async_copy_entry() -> usize {
    async_copy as *const () as usize
}

/// What `OnLoad` puts in the AMD table's `hsa_amd_memory_async_copy_rect` entry.
pub fn async_copy_rect_entry() -> usize {
    async_copy_rect as *const () as usize
}

/// The link of a recorded call of function `which` to its copy record.
fn link(on: bool, which: u64) -> Option<(u32, u64, u64)> {
    on.then(|| {
        let n = ORDINAL.with(|c| {
            let n = c[which as usize].get();
            c[which as usize].set(n + 1);
            n
        });
        (tid(), which, n)
    })
}

fn tid() -> u32 {
    cltap::trace::local::thread_id()
}

type AsyncCopy = unsafe extern "C" fn(*mut c_void, u64, *mut c_void, u64, usize, u32, *mut c_void, u64) -> u32;

/// `hsa_amd_memory_async_copy`, as the application calls it.
///
/// # Safety
/// As `hsa_amd_memory_async_copy`: `src` readable and `dst` writable for `size` bytes, `deps`
/// holding `num_deps` signals.
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn async_copy(
    mut dst: *mut c_void,
    mut dst_agent: u64,
    mut src: *mut c_void,
    mut src_agent: u64,
    mut size: usize,
    mut num_deps: u32,
    mut deps: *mut c_void,
    mut signal: u64,
) -> u32 {
    super::traced::traced!(
        id::hsa_amd_memory_async_copy,
        (dst, dst_agent, src, src_agent, size, num_deps, deps, signal),
        // SAFETY: `async_copy_recorded`'s # Safety follows from this fn's.
        unsafe { async_copy_recorded(dst, dst_agent, src, src_agent, size, num_deps, deps, signal) }
    )
}

/// # Safety
/// Arguments as `hsa_amd_memory_async_copy` declares them (`dep_signals` holds `num_dep_signals` handles).
#[allow(clippy::too_many_arguments)]
unsafe fn async_copy_recorded(
    dst: *mut c_void,
    dst_agent: u64,
    src: *mut c_void,
    src_agent: u64,
    size: usize,
    num_deps: u32,
    deps: *mut c_void,
    signal: u64,
) -> u32 {
    let app = [dst as u64, dst_agent, src as u64, src_agent, size as u64, num_deps as u64, deps as u64, signal];
    let t = crate::guard::part("hsa_amd_memory_async_copy", || {
        bracket::enter_hsa(::cltap::meta::hsa_described::hsa_amd_memory_async_copy, &app)
    })
    .unwrap_or(bracket::Enter::OFF);
    let link = link(t.on, COPY_PLAIN);
    let r = crate::guard::guard(HSA_STATUS_ERROR, || {
        let f = orig(id::hsa_amd_memory_async_copy);
        if f == 0 {
            return HSA_STATUS_ERROR;
        }
        // SAFETY: the runtime's entry, with the application's arguments.
        let f: AsyncCopy = unsafe { std::mem::transmute(f) };
        with_proxy(signal, link, |s| unsafe { f(dst, dst_agent, src, src_agent, size, num_deps, deps, s) })
    });
    crate::guard::part("hsa_amd_memory_async_copy", || {
        if t.on {
            bracket::exit_hsa(::cltap::meta::hsa_described::hsa_amd_memory_async_copy, t, r as u64, &app);
        } else {
            bracket::done_hsa(id::hsa_amd_memory_async_copy, !cltap::trace::capture::hsa_status_ok(r as u64));
        }
    });
    r
}

type AsyncCopyRect = unsafe extern "C" fn(
    *const c_void,
    *const c_void,
    *const c_void,
    *const c_void,
    *const c_void,
    u64,
    u32,
    u32,
    *const c_void,
    u64,
) -> u32;

/// `hsa_amd_memory_async_copy_rect`, as the application calls it.
///
/// # Safety
/// As `hsa_amd_memory_async_copy_rect`: the pitched pointers and `range` readable, `deps`
/// holding `num_deps` signals.
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn async_copy_rect(
    mut dst: *const c_void,
    mut dst_offset: *const c_void,
    mut src: *const c_void,
    mut src_offset: *const c_void,
    mut range: *const c_void,
    mut agent: u64,
    mut dir: u32,
    mut num_deps: u32,
    mut deps: *const c_void,
    mut signal: u64,
) -> u32 {
    super::traced::traced!(
        id::hsa_amd_memory_async_copy_rect,
        (dst, dst_offset, src, src_offset, range, agent, dir, num_deps, deps, signal),
        // SAFETY: `async_copy_rect_recorded`'s # Safety follows from this fn's.
        unsafe {
            async_copy_rect_recorded(dst, dst_offset, src, src_offset, range, agent, dir, num_deps, deps, signal)
        }
    )
}

/// # Safety
/// Arguments as `hsa_amd_memory_async_copy_rect` declares them: the two pitched pointers and
/// `range` readable, `dep_signals` holding `num_dep_signals` handles.
#[allow(clippy::too_many_arguments)]
unsafe fn async_copy_rect_recorded(
    dst: *const c_void,
    dst_offset: *const c_void,
    src: *const c_void,
    src_offset: *const c_void,
    range: *const c_void,
    agent: u64,
    dir: u32,
    num_deps: u32,
    deps: *const c_void,
    signal: u64,
) -> u32 {
    let app = [
        dst as u64,
        dst_offset as u64,
        src as u64,
        src_offset as u64,
        range as u64,
        agent,
        dir as u64,
        num_deps as u64,
        deps as u64,
        signal,
    ];
    let t = crate::guard::part("hsa_amd_memory_async_copy_rect", || {
        bracket::enter_hsa(::cltap::meta::hsa_described::hsa_amd_memory_async_copy_rect, &app)
    })
    .unwrap_or(bracket::Enter::OFF);
    let link = link(t.on, COPY_RECT);
    let r = crate::guard::guard(HSA_STATUS_ERROR, || {
        let f = orig(id::hsa_amd_memory_async_copy_rect);
        if f == 0 {
            return HSA_STATUS_ERROR;
        }
        // SAFETY: the runtime's entry, with the application's arguments.
        let f: AsyncCopyRect = unsafe { std::mem::transmute(f) };
        with_proxy(signal, link, |s| unsafe {
            f(dst, dst_offset, src, src_offset, range, agent, dir, num_deps, deps, s)
        })
    });
    crate::guard::part("hsa_amd_memory_async_copy_rect", || {
        if t.on {
            bracket::exit_hsa(::cltap::meta::hsa_described::hsa_amd_memory_async_copy_rect, t, r as u64, &app);
        } else {
            bracket::done_hsa(id::hsa_amd_memory_async_copy_rect, !cltap::trace::capture::hsa_status_ok(r as u64));
        }
    });
    r
}

/// A copy whose proxy signal has not completed yet.
struct Pending {
    tid: u32,
    which: u64,
    ordinal: u64,
    app_signal: u64,
    proxy: u64,
    /// The application profiled async copies when it submitted this one.
    app_profiled: bool,
    /// The forwarded call failed: the handler only destroys the proxy.
    cancelled: AtomicBool,
}

/// Runs `call` (the copy) with a proxy completion signal of cltap's in
/// place of the application's `signal`, so the copy's times can be read when
/// it completes; the plain call when nothing is recorded, there is no
/// signal, or a step fails.
fn with_proxy(signal: u64, link: Option<(u32, u64, u64)>, call: impl Fn(u64) -> u32) -> u32 {
    super::copyanswer::forget(signal);
    let Some((tid, which, ordinal)) = link else { return call(signal) };
    let (store, sub) = (orig(id::hsa_signal_store_screlease), orig(id::hsa_signal_subtract_screlease));
    if signal == 0 || [store, sub].contains(&0) || !super::copyanswer::profile_for_cltap() {
        return call(signal);
    }
    // SAFETY: the runtime's entries, with arguments as hsa.h defines them.
    unsafe {
        let Some(proxy) = super::proxy::new_signal() else { return call(signal) };
        let arg = Box::into_raw(Box::new(Pending {
            tid,
            which,
            ordinal,
            app_signal: signal,
            proxy,
            app_profiled: super::copyanswer::app_profiles(),
            cancelled: AtomicBool::new(false),
        }));
        if !super::proxy::when_done(proxy, on_complete, arg as *mut c_void) {
            drop(Box::from_raw(arg));
            super::proxy::destroy(proxy);
            return call(signal);
        }
        let r = call(proxy);
        if r != HSA_STATUS_SUCCESS {
            // The copy never runs: the handler is released and the proxy
            // destroyed there, the application's signal left alone.
            (*arg).cancelled.store(true, Ordering::Release);
            let store: unsafe extern "C" fn(u64, i64) = std::mem::transmute(store);
            store(proxy, 0);
        }
        r
    }
}

/// The proxy signal completed.
///
/// # Safety
/// `arg` is the copy the handler was registered with, passed once.
unsafe extern "C" fn on_complete(_value: i64, arg: *mut c_void) -> bool {
    if arg.is_null() {
        return false;
    }
    // SAFETY: `arg as *mut Pending` came from `Box::into_raw` and is freed once (# Safety).
    let p = unsafe { Box::from_raw(arg as *mut Pending) };
    crate::guard::guard((), || complete(&p));
    false
}

fn complete(p: &Pending) {
    // SAFETY: the runtime's entries; `t` is an hsa_amd_profiling_async_copy_time_t.
    unsafe {
        if p.cancelled.load(Ordering::Acquire) {
            // The copy was never forwarded: only the proxy goes.
            super::proxy::forward(0, [0, 0], p.proxy);
            return;
        }
        let times = super::copyanswer::runtime_time(p.proxy);
        if let Some(t) = times {
            cltap::trace::local::record_kind::<KIND_HSA_COPY>(
                p.ordinal,
                t[0],
                t[1],
                &[p.tid as u64, p.ordinal, p.which],
                None,
            );
        }
        super::copyanswer::keep(p.app_signal, times, p.app_profiled);
        let t = times.unwrap_or([0, 0]);
        super::proxy::forward(p.app_signal, t, p.proxy);
    }
}
