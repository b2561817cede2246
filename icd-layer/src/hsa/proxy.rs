//! Completion signals of cltap's own. To time a dispatch or a copy, cltap
//! gives it a proxy signal, reads the times when the proxy completes, then
//! hands the completion on to the application's signal exactly as the
//! runtime would have signalled it.

use super::api::id;

/// `amd_signal_t.start_ts` / `end_ts` (`amd_hsa_signal.h`): a signal's
/// handle is its `amd_signal_t`'s address, in ROCr as in the double.
const SIGNAL_START_TS: usize = 32;
const SIGNAL_END_TS: usize = 40;

pub use super::wrappers::orig;

const HSA_SIGNAL_CONDITION_LT: u32 = 2;

/// What the runtime calls when a signal of cltap's completes.
pub type Done = unsafe extern "C" fn(i64, *mut std::ffi::c_void) -> bool;

/// A new signal of cltap's, at 1.
pub fn new_signal() -> Option<u64> {
    let create = orig(id::hsa_signal_create);
    if create == 0 {
        return None;
    }
    let mut signal = 0u64;
    // SAFETY: the runtime's entry.
    unsafe {
        let create: unsafe extern "C" fn(i64, u32, *const u64, *mut u64) -> u32 = std::mem::transmute(create);
        (create(1, 0, std::ptr::null(), &mut signal) == 0 && signal != 0).then_some(signal)
    }
}

/// Asks the runtime to call `done(value, arg)` once `signal` drops below 1;
/// false when it refused (the caller still owns `arg`).
///
/// # Safety
/// `done` must accept `arg`.
pub unsafe fn when_done(signal: u64, done: Done, arg: *mut std::ffi::c_void) -> bool {
    let on = orig(id::hsa_amd_signal_async_handler);
    if on == 0 {
        return false;
    }
    // SAFETY: the address is the entry named, and the fn type is its C prototype: `done` must accept `arg` (#
    // Safety).
    let on: unsafe extern "C" fn(u64, u32, i64, Done, *mut std::ffi::c_void) -> u32 =
        unsafe { std::mem::transmute(on) };
    // SAFETY: the runtime's own entry; `done` accepts `arg` (# Safety), and `signal` is the caller's.
    (unsafe { on(signal, HSA_SIGNAL_CONDITION_LT, 1, done, arg) }) == 0
}

/// Destroys a signal of cltap's.
pub fn destroy(signal: u64) {
    let destroy = orig(id::hsa_signal_destroy);
    if destroy != 0 {
        // SAFETY: the runtime's entry, on cltap's own signal.
        unsafe {
            let destroy: unsafe extern "C" fn(u64) -> u32 = std::mem::transmute(destroy);
            destroy(signal);
        }
    }
}

const HSA_SYSTEM_INFO_TIMESTAMP: u32 = 2;

/// `HSA_SYSTEM_INFO_TIMESTAMP` now (0 when the runtime cannot say): the
/// clock of the dispatch record's dispatch and complete times.
pub fn timestamp() -> u64 {
    let f = orig(id::hsa_system_get_info);
    if f == 0 {
        return 0;
    }
    let mut t = 0u64;
    // SAFETY: the runtime's entry; TIMESTAMP writes one u64.
    unsafe {
        let f: unsafe extern "C" fn(u32, *mut std::ffi::c_void) -> u32 = std::mem::transmute(f);
        if f(HSA_SYSTEM_INFO_TIMESTAMP, &mut t as *mut u64 as *mut std::ffi::c_void) != 0 {
            return 0;
        }
    }
    t
}

/// The proxy completed: the application's signal (if any) gets the times
/// the runtime stamped on the proxy (so its own profiling queries read what
/// they would), and is decremented by one; the proxy is destroyed. The
/// fields are copied raw: the runtime converts them to its clock when the
/// application asks (ROCr's `TranslateTime`), so they must not be the
/// converted `times`, which only say whether there are times at all.
///
/// ROCr also notes, in its own signal object (not in `amd_signal_t`), which
/// agent ran an async copy; that cannot be carried over, so the application's
/// own async-copy time queries are answered by [`super::copyanswer`].
///
/// # Safety
/// `app_signal` is 0 or a live signal handle; `proxy` is cltap's signal.
pub unsafe fn forward(app_signal: u64, times: [u64; 2], proxy: u64) {
    if app_signal != 0 {
        if times[0] != 0 && app_signal.is_multiple_of(64) && proxy.is_multiple_of(64) {
            // SAFETY: the address read here is readable: `app_signal` is 0 or a live signal handle; `proxy` is
            // cltap's signal (# Safety).
            let start = unsafe { std::ptr::read_volatile((proxy as usize + SIGNAL_START_TS) as *const u64) };
            // SAFETY: the address read here is readable, as the caller promises (# Safety).
            let end = unsafe { std::ptr::read_volatile((proxy as usize + SIGNAL_END_TS) as *const u64) };
            // SAFETY: the address written here is writable, as the caller promises (# Safety).
            unsafe { std::ptr::write_volatile((app_signal as usize + SIGNAL_START_TS) as *mut u64, start) };
            // SAFETY: the address written here is writable, as the caller promises (# Safety).
            unsafe { std::ptr::write_volatile((app_signal as usize + SIGNAL_END_TS) as *mut u64, end) };
        }
        let sub = orig(id::hsa_signal_subtract_screlease);
        if sub != 0 {
            // SAFETY: the address is that entry's, and this type its C prototype.
            let sub: unsafe extern "C" fn(u64, i64) = unsafe { std::mem::transmute(sub) };
            // SAFETY: `sub` gets arguments its C declaration accepts.
            unsafe { sub(app_signal, 1) };
        }
    }
    destroy(proxy);
}

/// A proxied dispatch completed: reads its begin and end from the proxy
/// (0 when the queue does not profile), records it when `record` (with the
/// time cltap saw the completion, and the kernel's name as it was when the
/// dispatch was submitted), then hands the completion on to the
/// application's signal.
///
/// # Safety
/// As [`forward`]; `words` are the dispatch's record words.
pub unsafe fn dispatch_done(
    agent: u64,
    seq: u64,
    mut words: [u64; cltap::trace::record::DISPATCH_WORDS],
    name: Option<&str>,
    app_signal: u64,
    proxy: u64,
    record: bool,
) {
    use cltap::trace::record::*;
    // SAFETY: `dispatch_times`'s # Safety follows from this fn's: As [`forward`]; `words` are the dispatch's record
    // words (# Safety).
    let times = unsafe { dispatch_times(agent, proxy) };
    if record {
        words[DISPATCH_TIME_COMPLETE] = timestamp();
        cltap::trace::local::record_kind::<KIND_HSA_DISPATCH>(seq, times[0], times[1], &words, name);
    }
    // SAFETY: `forward`'s # Safety follows from this fn's.
    unsafe { forward(app_signal, times, proxy) };
}

/// A completed proxied dispatch's begin and end (0 when the queue does not
/// profile).
///
/// # Safety
/// `proxy` is cltap's signal of a dispatch that completed.
pub unsafe fn dispatch_times(agent: u64, proxy: u64) -> [u64; 2] {
    let mut times = [0u64; 2];
    // A queue that does not profile leaves the raw stamps at 0; asking ROCr
    // then makes it print "Signal … time stamps may be invalid" (a debug
    // line Debian's build keeps), which the application would not see
    // without cltap.
    if proxy.is_multiple_of(64) {
        // SAFETY: the address read here is readable: `proxy` is cltap's signal of a dispatch that completed (#
        // Safety).
        let start = unsafe { std::ptr::read_volatile((proxy as usize + SIGNAL_START_TS) as *const u64) };
        // SAFETY: the address read here is readable, as the caller promises (# Safety).
        let end = unsafe { std::ptr::read_volatile((proxy as usize + SIGNAL_END_TS) as *const u64) };
        if start == 0 || end == 0 {
            return times;
        }
    }
    let get = orig(id::hsa_amd_profiling_get_dispatch_time);
    if get != 0 {
        // SAFETY: the address is that entry's, and this type its C prototype.
        let get: unsafe extern "C" fn(u64, u64, *mut [u64; 2]) -> u32 = unsafe { std::mem::transmute(get) };
        // SAFETY: `get` gets arguments its C declaration accepts.
        if unsafe { get(agent, proxy, &mut times) } != 0 {
            times = [0, 0];
        }
    }
    times
}
