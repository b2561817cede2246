//! Unit tests of the tracer logic, with Rust callbacks standing in for a
//! tool's. Tests run in parallel over the same global tables, so each uses
//! its own functions (slots) and its own user data.

use super::*;
use crate::tools::tracer_ids::{api_id, slot, DOMAIN_HSA, DOMAIN_OPENCL};
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::mpsc;
use std::sync::Mutex as StdMutex;

/// What the callbacks saw, in order: (prologue?, api id, params, result
/// word or 0, instance on entry).
type Event = (bool, u32, usize, u64, u64);

#[derive(Default)]
struct Log {
    events: StdMutex<Vec<Event>>,
}

impl Log {
    fn ud(&self) -> *mut c_void {
        self as *const Log as *mut c_void
    }
    fn take(&self) -> Vec<(bool, u32, usize, u64, u64)> {
        std::mem::take(&mut *self.events.lock().unwrap())
    }
}

/// Prologue: logs, then leaves `params + api_id` as instance data.
///
/// # Safety
/// Called by the tracer: `params` the call's parameter block, `ud` the test's state it was
/// created with (live for the test).
unsafe extern "C" fn log_pro(api: u32, params: *mut c_void, result: *const c_void, ud: *mut c_void, inst: *mut u64) {
    assert!(result.is_null());
    // SAFETY: `ud` is the test's `Log`, live for the test (# Safety).
    let log = unsafe { &*(ud as *const Log) };
    // SAFETY: `inst` is valid for this access, as the caller promises (# Safety).
    log.events.lock().unwrap().push((true, api, params as usize, 0, unsafe { *inst }));
    // SAFETY: `inst` is valid for this access, as the caller promises (# Safety).
    unsafe { *inst = params as u64 + api as u64 };
}

/// # Safety
/// Called by the tracer: `params` the call's parameter block, `ud` the test's state it was
/// created with (live for the test).
unsafe extern "C" fn log_epi(api: u32, params: *mut c_void, result: *const c_void, ud: *mut c_void, inst: *mut u64) {
    // SAFETY: `(ud as *const Log)` is valid for this access, as the caller promises (# Safety).
    let log = unsafe { &*(ud as *const Log) };
    // SAFETY: `(result as *const u64)` is valid for this access, as the caller promises (# Safety).
    let r = if result.is_null() { 0 } else { unsafe { *(result as *const u64) } };
    // SAFETY: `inst` is valid for this access, as the caller promises (# Safety).
    log.events.lock().unwrap().push((false, api, params as usize, r, unsafe { *inst }));
}

fn ocl(name: &str) -> u32 {
    api_id(DOMAIN_OPENCL, crate::meta::by_name(name).unwrap() as u32)
}

fn hsa(name: &str) -> u32 {
    api_id(DOMAIN_HSA, crate::meta::hsa_by_name(name).unwrap() as u32)
}

/// One traced call of `id` with `params`, returning `ret`.
fn call(id: u32, params: usize, ret: u64) {
    let s = slot(id).unwrap();
    if on(s) {
        unsafe {
            let e = enter(s, params as *mut c_void);
            exit(e, s, params as *mut c_void, &ret as *const u64 as *const c_void);
        }
    }
}

#[test]
fn prologue_and_epilogue_pair_with_instance_data() {
    let log = Log::default();
    let id = ocl("clGetPlatformInfo");
    let t = create(log.ud());
    set_callback(t, id, Some(log_pro), Some(log_epi)).unwrap();
    call(id, 0x1000, 7);
    assert!(log.take().is_empty(), "a disabled tracer sees nothing");
    enable(t).unwrap();
    call(id, 0x1000, 7);
    assert_eq!(log.take(), vec![(true, id, 0x1000, 0, 0), (false, id, 0x1000, 7, 0x1000 + id as u64)]);
    disable(t).unwrap();
    call(id, 0x1000, 7);
    assert!(log.take().is_empty());
    destroy(t).unwrap();
}

#[test]
fn counts_say_which_functions_are_traced() {
    let log = Log::default();
    let (a, b) = (ocl("clGetDeviceInfo"), hsa("hsa_system_get_info"));
    let t = create(log.ud());
    set_callback(t, a, None, Some(log_epi)).unwrap();
    let (sa, sb) = (slot(a).unwrap(), slot(b).unwrap());
    assert!(!on(sa));
    enable(t).unwrap();
    enable(t).unwrap();
    assert!(on(sa), "an enabled tracer with a callback turns its function on");
    assert!(!on(sb), "functions without callbacks stay off");
    disable(t).unwrap();
    disable(t).unwrap();
    assert!(!on(sa));
    enable(t).unwrap();
    destroy(t).unwrap();
    assert!(!on(sa), "destroy takes an enabled tracer's counts away");
}

#[test]
fn errors() {
    let log = Log::default();
    let t = create(log.ud());
    let id = ocl("clRetainContext");
    assert_eq!(set_callback(t, api_id(DOMAIN_OPENCL, 0xfff0), Some(log_pro), None), Err(TracerError::InvalidApiId));
    assert_eq!(set_domain_callbacks(t, 9, Some(log_pro), None), Err(TracerError::InvalidDomain));
    enable(t).unwrap();
    assert_eq!(set_callback(t, id, Some(log_pro), None), Err(TracerError::TracerEnabled));
    destroy(t).unwrap();
    assert_eq!(destroy(t), Err(TracerError::InvalidTracer));
    assert_eq!(enable(t), Err(TracerError::InvalidTracer));
    assert_eq!(set_callback(t, id, None, None), Err(TracerError::InvalidTracer));
    assert_ne!(create(log.ud()), t, "handles are never reused");
}

#[test]
fn enabled_mid_call_no_epilogue_disabled_mid_call_epilogue() {
    let log = Log::default();
    let id = ocl("clRetainKernel");
    let s = slot(id).unwrap();
    let t = create(log.ud());
    set_callback(t, id, Some(log_pro), Some(log_epi)).unwrap();
    unsafe {
        // Enabled between the two halves: neither runs.
        let e = enter(s, 8 as *mut c_void);
        enable(t).unwrap();
        exit(e, s, 8 as *mut c_void, std::ptr::null());
        assert!(log.take().is_empty());
        // Disabled between them: the epilogue still runs.
        let e = enter(s, 8 as *mut c_void);
        disable(t).unwrap();
        exit(e, s, 8 as *mut c_void, std::ptr::null());
    }
    assert_eq!(log.take(), vec![(true, id, 8, 0, 0), (false, id, 8, 0, 8 + id as u64)]);
    destroy(t).unwrap();
}

#[test]
fn nested_calls_pair_inside_out_and_two_tracers_nest() {
    let (l1, l2) = (Log::default(), Log::default());
    let (a, b) = (hsa("hsa_iterate_agents"), hsa("hsa_agent_get_info"));
    let (t1, t2) = (create(l1.ud()), create(l2.ud()));
    for t in [t1, t2] {
        for id in [a, b] {
            set_callback(t, id, Some(log_pro), Some(log_epi)).unwrap();
        }
        enable(t).unwrap();
    }
    let (sa, sb) = (slot(a).unwrap(), slot(b).unwrap());
    unsafe {
        let ea = enter(sa, 0x10 as *mut c_void);
        let eb = enter(sb, 0x20 as *mut c_void);
        exit(eb, sb, 0x20 as *mut c_void, &2u64 as *const u64 as *const c_void);
        exit(ea, sa, 0x10 as *mut c_void, &1u64 as *const u64 as *const c_void);
    }
    for l in [&l1, &l2] {
        assert_eq!(
            l.take(),
            vec![
                (true, a, 0x10, 0, 0),
                (true, b, 0x20, 0, 0),
                (false, b, 0x20, 2, 0x20 + b as u64),
                (false, a, 0x10, 1, 0x10 + a as u64)
            ]
        );
    }
    destroy(t1).unwrap();
    destroy(t2).unwrap();
}

/// A prologue that makes a traced call itself.
///
/// # Safety
/// Called by the tracer: `params` the call's parameter block, `ud` the test's state it was
/// created with (live for the test).
unsafe extern "C" fn calling_pro(
    api: u32,
    params: *mut c_void,
    result: *const c_void,
    ud: *mut c_void,
    inst: *mut u64,
) {
    // SAFETY: `log_pro`'s # Safety follows from this fn's.
    unsafe { log_pro(api, params, result, ud, inst) };
    call(api, 0x99, 0);
}

#[test]
fn calls_made_by_callbacks_are_not_traced() {
    let log = Log::default();
    let id = ocl("clRetainSampler");
    let t = create(log.ud());
    set_callback(t, id, Some(calling_pro), Some(log_epi)).unwrap();
    enable(t).unwrap();
    call(id, 0x5, 0);
    let ev = log.take();
    assert_eq!(ev.len(), 2, "{ev:?}");
    assert!(ev.iter().all(|e| e.2 == 0x5));
    destroy(t).unwrap();
}

/// Per-thread tallies for the stress test; the params word names the thread
/// and the call, and the prologue leaves a checkable instance.
struct Stress {
    pro: [AtomicU64; 8],
    epi: [AtomicU64; 8],
    bad: AtomicU64,
}

/// # Safety
/// Called by the tracer: `params` the call's parameter block, `ud` the test's state it was
/// created with (live for the test).
unsafe extern "C" fn stress_pro(_api: u32, params: *mut c_void, _r: *const c_void, ud: *mut c_void, inst: *mut u64) {
    // SAFETY: `(ud as *const Stress)` is valid for this access, as the caller promises (# Safety).
    let s = unsafe { &*(ud as *const Stress) };
    let w = params as u64;
    // SAFETY: `inst` is valid for this access, as the caller promises (# Safety).
    if unsafe { *inst } != 0 {
        s.bad.fetch_add(1, Ordering::Relaxed);
    }
    // SAFETY: `inst` is valid for this access, as the caller promises (# Safety).
    unsafe { *inst = w ^ 0x5a5a_5a5a_5a5a_5a5a };
    s.pro[(w >> 32) as usize].fetch_add(1, Ordering::Relaxed);
}

/// # Safety
/// Called by the tracer: `params` the call's parameter block, `ud` the test's state it was
/// created with (live for the test).
unsafe extern "C" fn stress_epi(_api: u32, params: *mut c_void, _r: *const c_void, ud: *mut c_void, inst: *mut u64) {
    // SAFETY: `(ud as *const Stress)` is valid for this access, as the caller promises (# Safety).
    let s = unsafe { &*(ud as *const Stress) };
    let w = params as u64;
    // SAFETY: `inst` is valid for this access, as the caller promises (# Safety).
    if unsafe { *inst } != w ^ 0x5a5a_5a5a_5a5a_5a5a {
        s.bad.fetch_add(1, Ordering::Relaxed);
    }
    s.epi[(w >> 32) as usize].fetch_add(1, Ordering::Relaxed);
}

#[test]
fn pairing_holds_while_another_thread_toggles() {
    let s = Stress { pro: Default::default(), epi: Default::default(), bad: AtomicU64::new(0) };
    let id = ocl("clRetainEvent");
    let sl = slot(id).unwrap();
    let t = create(&s as *const Stress as *mut c_void);
    set_callback(t, id, Some(stress_pro), Some(stress_epi)).unwrap();
    let done = AtomicBool::new(false);
    let started = AtomicU64::new(0);
    std::thread::scope(|sc| {
        for th in 0..8u64 {
            let (done, started) = (&done, &started);
            sc.spawn(move || {
                started.fetch_add(1, Ordering::SeqCst);
                let mut k = 1u64;
                while !done.load(Ordering::Acquire) {
                    let w = (th << 32) | k;
                    if on(sl) {
                        unsafe {
                            let e = enter(sl, w as *mut c_void);
                            exit(e, sl, w as *mut c_void, std::ptr::null());
                        }
                    }
                    k += 1;
                }
            });
        }
        while started.load(Ordering::SeqCst) < 8 {
            std::thread::yield_now();
        }
        for _ in 0..10_000 {
            enable(t).unwrap();
            disable(t).unwrap();
        }
        done.store(true, Ordering::Release);
    });
    assert_eq!(s.bad.load(Ordering::Relaxed), 0, "instance data arrived intact");
    for th in 0..8 {
        assert_eq!(
            s.pro[th].load(Ordering::Relaxed),
            s.epi[th].load(Ordering::Relaxed),
            "thread {th}: every prologue has its epilogue"
        );
    }
    destroy(t).unwrap();
}

/// A prologue that says it started, then blocks until released.
struct Blocker {
    entered: StdMutex<Option<mpsc::Sender<()>>>,
    release: StdMutex<Option<mpsc::Receiver<()>>>,
    order: AtomicU64,
    epilogue_at: AtomicU64,
}

/// # Safety
/// Called by the tracer: `params` the call's parameter block, `ud` the test's state it was
/// created with (live for the test).
unsafe extern "C" fn blocking_pro(_api: u32, _p: *mut c_void, _r: *const c_void, ud: *mut c_void, _i: *mut u64) {
    // SAFETY: `(ud as *const Blocker)` is valid for this access, as the caller promises (# Safety).
    let b = unsafe { &*(ud as *const Blocker) };
    if let Some(tx) = b.entered.lock().unwrap().take() {
        tx.send(()).unwrap();
        let rx = b.release.lock().unwrap().take().unwrap();
        rx.recv().unwrap();
    }
}

/// # Safety
/// Called by the tracer: `params` the call's parameter block, `ud` the test's state it was
/// created with (live for the test).
unsafe extern "C" fn blocking_epi(_api: u32, _p: *mut c_void, _r: *const c_void, ud: *mut c_void, _i: *mut u64) {
    // SAFETY: `(ud as *const Blocker)` is valid for this access, as the caller promises (# Safety).
    let b = unsafe { &*(ud as *const Blocker) };
    b.epilogue_at.store(b.order.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
}

#[test]
fn destroy_waits_for_a_blocked_callback_and_its_epilogue() {
    let (etx, erx) = mpsc::channel();
    let (rtx, rrx) = mpsc::channel();
    let b = Blocker {
        entered: StdMutex::new(Some(etx)),
        release: StdMutex::new(Some(rrx)),
        order: AtomicU64::new(0),
        epilogue_at: AtomicU64::new(0),
    };
    let id = ocl("clRetainDevice");
    let sl = slot(id).unwrap();
    let t = create(&b as *const Blocker as *mut c_void);
    set_callback(t, id, Some(blocking_pro), Some(blocking_epi)).unwrap();
    enable(t).unwrap();
    let destroyed_at = AtomicU64::new(0);
    std::thread::scope(|sc| {
        sc.spawn(|| unsafe {
            let e = enter(sl, std::ptr::null_mut());
            exit(e, sl, std::ptr::null_mut(), std::ptr::null());
        });
        erx.recv().unwrap();
        let destroyer = sc.spawn(|| {
            destroy(t).unwrap();
            destroyed_at.store(b.order.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
        });
        // The destroy has begun (or wrongly finished): it must not be back
        // while the prologue is still blocked.
        while thread::destroying() == 0 && destroyed_at.load(Ordering::SeqCst) == 0 {
            std::thread::yield_now();
        }
        assert_eq!(destroyed_at.load(Ordering::SeqCst), 0, "destroy returned while a callback was running");
        rtx.send(()).unwrap();
        destroyer.join().unwrap();
    });
    let (e, d) = (b.epilogue_at.load(Ordering::SeqCst), destroyed_at.load(Ordering::SeqCst));
    assert!(e != 0 && e < d, "the epilogue (at {e}) ran before destroy returned (at {d})");
}

/// # Safety
/// Called by the tracer: `params` the call's parameter block, `ud` the test's state it was
/// created with (live for the test).
unsafe extern "C" fn self_destroying_pro(_api: u32, _p: *mut c_void, _r: *const c_void, ud: *mut c_void, _i: *mut u64) {
    // SAFETY: `(ud as *const AtomicU64)` is valid for this access, as the caller promises (# Safety).
    let handle = unsafe { &*(ud as *const AtomicU64) };
    destroy(handle.load(Ordering::SeqCst)).unwrap();
}

/// # Safety
/// Called by the tracer: `params` the call's parameter block, `ud` the test's state it was
/// created with (live for the test).
unsafe extern "C" fn counting_epi(_api: u32, _p: *mut c_void, _r: *const c_void, ud: *mut c_void, _i: *mut u64) {
    // SAFETY: `(*(ud as *const AtomicU64))` is valid for this access, as the caller promises (# Safety).
    unsafe { (*(ud as *const AtomicU64)).fetch_add(1 << 32, Ordering::SeqCst) };
}

#[test]
fn destroy_from_inside_its_own_callback_returns_and_skips_the_epilogue() {
    let handle = AtomicU64::new(0);
    let id = ocl("clRetainMemObject");
    let t = create(&handle as *const AtomicU64 as *mut c_void);
    handle.store(t, Ordering::SeqCst);
    set_callback(t, id, Some(self_destroying_pro), Some(counting_epi)).unwrap();
    enable(t).unwrap();
    call(id, 1, 0);
    assert_eq!(handle.load(Ordering::SeqCst), t, "no epilogue after destroy returned");
    assert_eq!(destroy(t), Err(TracerError::InvalidTracer));
}

#[test]
fn destroy_from_inside_a_traced_call_returns() {
    let log = Log::default();
    let id = ocl("clRetainProgram");
    let s = slot(id).unwrap();
    let t = create(log.ud());
    set_callback(t, id, Some(log_pro), Some(log_epi)).unwrap();
    enable(t).unwrap();
    unsafe {
        let e = enter(s, 3 as *mut c_void);
        // As an application callback inside the call would: not a tracer
        // callback, but this thread holds the tracer's frame.
        destroy(t).unwrap();
        exit(e, s, 3 as *mut c_void, std::ptr::null());
    }
    assert_eq!(log.take(), vec![(true, id, 3, 0, 0)], "the epilogue is skipped once destroyed");
}
