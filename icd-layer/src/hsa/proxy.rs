//! Completion signals of cltap's own. To time a dispatch or a copy, cltap
//! gives it a proxy signal, reads the times when the proxy completes, then
//! hands the completion on to the application's signal exactly as the
//! runtime would have signalled it.

use super::api::id;
use super::wrappers::ORIG;
use std::sync::atomic::Ordering;

/// `amd_signal_t.start_ts` / `end_ts` (`amd_hsa_signal.h`): a signal's
/// handle is its `amd_signal_t`'s address, in ROCr as in the double.
const SIGNAL_START_TS: usize = 32;
const SIGNAL_END_TS: usize = 40;

/// The runtime's own entry `i` (cltap's calls are never the application's).
pub fn orig(i: usize) -> usize {
    ORIG[i].load(Ordering::Acquire)
}

/// The proxy completed: the application's signal (if any) gets the times
/// the runtime would have stamped on it (so its own profiling queries read
/// what they would) and is decremented by one; the proxy is destroyed.
///
/// # Safety
/// `app_signal` is 0 or a live signal handle; `proxy` is cltap's signal.
pub unsafe fn forward(app_signal: u64, times: [u64; 2], proxy: u64) {
    if app_signal != 0 {
        if times[0] != 0 && app_signal.is_multiple_of(64) {
            std::ptr::write_volatile((app_signal as usize + SIGNAL_START_TS) as *mut u64, times[0]);
            std::ptr::write_volatile((app_signal as usize + SIGNAL_END_TS) as *mut u64, times[1]);
        }
        let sub = orig(id::hsa_signal_subtract_screlease);
        if sub != 0 {
            let sub: unsafe extern "C" fn(u64, i64) = std::mem::transmute(sub);
            sub(app_signal, 1);
        }
    }
    let destroy = orig(id::hsa_signal_destroy);
    if destroy != 0 {
        let destroy: unsafe extern "C" fn(u64) -> u32 = std::mem::transmute(destroy);
        destroy(proxy);
    }
}
