//! The application's own async-copy times, under `CLTAP_ATP=1`.
//!
//! cltap times a copy through a proxy completion signal of its own
//! ([`super::copytimes`]). ROCr notes which agent ran an async copy in its
//! C++ signal object, not in `amd_signal_t`, and
//! `hsa_amd_profiling_get_async_copy_time` refuses (`HSA_STATUS_ERROR`) a
//! signal without that agent: the application's signal never gets it, as the
//! copy ran on the proxy. So cltap answers that query itself for the signals
//! whose last copy it proxied: the times the runtime gave for the proxy (the
//! same raw timestamps, converted by the same runtime), stored before the
//! application's signal is decremented, so they are there when the
//! application sees its copy complete. Any other signal goes to the runtime.
//!
//! Without cltap the runtime has times only when the application enabled
//! async-copy profiling; cltap enables it for itself, so the application's
//! own setting is kept here and the answer is given only when it was on at
//! the copy's submission. An application turning it off does not turn it
//! off for cltap.
//!
//! `OnLoad` puts [`get_time`] and [`enable`] in [`ORIG`](super::wrappers::ORIG)
//! for those two functions (the generated wrappers still record the calls);
//! cltap's own calls go to the runtime's entries kept here.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

const HSA_STATUS_SUCCESS: u32 = 0;
const HSA_STATUS_ERROR: u32 = 0x1000;

static RUNTIME_GET: AtomicUsize = AtomicUsize::new(0);
static RUNTIME_ENABLE: AtomicUsize = AtomicUsize::new(0);
/// The application's last successful `hsa_amd_profiling_async_copy_enable`.
static APP_PROFILES: AtomicBool = AtomicBool::new(false);
/// Whether cltap has turned async-copy profiling on for itself.
static CLTAP_PROFILES: AtomicBool = AtomicBool::new(false);

/// Times of the proxied copy last completed on each application signal.
pub(crate) fn answers() -> &'static Mutex<HashMap<u64, [u64; 2]>> {
    static A: std::sync::OnceLock<Mutex<HashMap<u64, [u64; 2]>>> = std::sync::OnceLock::new();
    A.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Keeps the runtime's `hsa_amd_profiling_get_async_copy_time` and returns
/// what goes in its place.
pub fn take_get_time(runtime: usize) -> usize {
    RUNTIME_GET.store(runtime, Ordering::Release);
    get_time as *const () as usize
}

/// Keeps the runtime's `hsa_amd_profiling_async_copy_enable` and returns
/// what goes in its place.
pub fn take_enable(runtime: usize) -> usize {
    RUNTIME_ENABLE.store(runtime, Ordering::Release);
    enable as *const () as usize
}

/// The application's setting now (stored with a proxied copy).
pub fn app_profiles() -> bool {
    APP_PROFILES.load(Ordering::Acquire)
}

/// Turns async-copy profiling on for cltap (once); false when the runtime
/// refused or has no such entry.
pub fn profile_for_cltap() -> bool {
    if CLTAP_PROFILES.load(Ordering::Acquire) {
        return true;
    }
    let f = RUNTIME_ENABLE.load(Ordering::Acquire);
    if f == 0 {
        return false;
    }
    // SAFETY: the runtime's entry, as hsa_ext_amd.h declares it.
    let on = unsafe { std::mem::transmute::<usize, unsafe extern "C" fn(bool) -> u32>(f)(true) } == HSA_STATUS_SUCCESS;
    CLTAP_PROFILES.store(on, Ordering::Release);
    on
}

/// The runtime's own answer for `signal` (cltap's query on its proxy).
///
/// # Safety
/// `signal` is a live signal handle.
pub unsafe fn runtime_time(signal: u64) -> Option<[u64; 2]> {
    let f = RUNTIME_GET.load(Ordering::Acquire);
    if f == 0 {
        return None;
    }
    // SAFETY: the address is the entry named, and the fn type is its C prototype: `signal` is a live signal handle (#
    // Safety).
    let f: unsafe extern "C" fn(u64, *mut [u64; 2]) -> u32 = unsafe { std::mem::transmute(f) };
    let mut t = [0u64; 2];
    // SAFETY: `f` gets arguments its C declaration accepts.
    (unsafe { f(signal, &mut t) } == HSA_STATUS_SUCCESS).then_some(t)
}

/// A copy with `signal` was submitted: whatever cltap held for it is stale.
pub fn forget(signal: u64) {
    if signal != 0 {
        if let Ok(mut a) = answers().lock() {
            a.remove(&signal);
        }
    }
}

/// A proxied copy completed with `times`, before its application signal is
/// decremented: `hsa_amd_profiling_get_async_copy_time(signal)` answers them
/// if the application profiled copies when it submitted this one.
pub fn keep(signal: u64, times: Option<[u64; 2]>, app_profiled: bool) {
    if let (Some(t), true, Ok(mut a)) = (times, app_profiled, answers().lock()) {
        a.insert(signal, t);
    }
}

/// `hsa_amd_profiling_get_async_copy_time`, behind the generated wrapper.
///
/// # Safety
/// `time` is writable.
unsafe extern "C" fn get_time(signal: u64, time: *mut [u64; 2]) -> u32 {
    let kept = if time.is_null() {
        None
    } else {
        crate::guard::guard_at("hsa_amd_profiling_get_async_copy_time", None, || {
            answers().lock().ok().and_then(|a| a.get(&signal).copied())
        })
    };
    if let Some(t) = kept {
        // SAFETY: `time` is writable (# Safety).
        unsafe { std::ptr::write_unaligned(time, t) };
        return HSA_STATUS_SUCCESS;
    }
    let f = RUNTIME_GET.load(Ordering::Acquire);
    if f == 0 {
        return HSA_STATUS_ERROR;
    }
    // SAFETY: the address is that entry's, and this type its C prototype.
    let f: unsafe extern "C" fn(u64, *mut [u64; 2]) -> u32 = unsafe { std::mem::transmute(f) };
    // SAFETY: `f` gets arguments its C declaration accepts.
    unsafe { f(signal, time) }
}

/// `hsa_amd_profiling_async_copy_enable`, behind the generated wrapper.
///
/// # Safety
/// None beyond the C ABI.
unsafe extern "C" fn enable(on: bool) -> u32 {
    let f = RUNTIME_ENABLE.load(Ordering::Acquire);
    if f == 0 {
        return HSA_STATUS_ERROR;
    }
    // SAFETY: the address is that entry's, and this type its C prototype.
    let f: unsafe extern "C" fn(bool) -> u32 = unsafe { std::mem::transmute(f) };
    // SAFETY: `f` gets arguments its C declaration accepts.
    let r = unsafe { f(on) };
    if r == HSA_STATUS_SUCCESS {
        APP_PROFILES.store(on, Ordering::Release);
    }
    if !on && CLTAP_PROFILES.load(Ordering::Acquire) {
        // cltap still times copies.
        // SAFETY: `f` gets arguments its C declaration accepts.
        unsafe { f(true) };
    }
    r
}
