//! The rest of 5.2.3's header: `rocprofiler_set_hsa_callbacks` (fed from
//! cltap's own interception), `rocprofiler_get_time`,
//! `rocprofiler_queue_create_profiled`, and the two functions 5.2.3
//! declares without defining (`rocprofiler_add_feature`,
//! `rocprofiler_features_set_open`).
//!
//! The callbacks are called as 5.2.3 calls them: `submit` for every packet
//! an intercept queue submits (whatever the settings), the others from the
//! HSA entries of [`super::hsa_entries`], when a tool's settings left
//! `hsa_intercepting` on. They live in atomics: the submit hook runs for
//! every packet, on the application's thread, and takes no lock.

use super::api_base::call;
use super::hsa_callbacks;
use cltap::tools::rocprofiler::abi::{Feature, Properties};
use cltap::tools::rocprofiler::abi_ext::TIME_ID_COUNT;
use cltap::tools::rocprofiler::abi_ext::{cb_id, HsaCallbackData, HsaCallbacks, SubmitData};
use cltap::tools::rocprofiler::error::RocpError;
use std::ffi::c_void;

/// `device_type` of a GPU (`HSA_DEVICE_TYPE_GPU`).
const DEVICE_TYPE_GPU: u32 = 1;

fn on_submit(packet: &[u8; 64], queue: usize, agent: u64, kernel: Option<&std::ffi::CStr>) {
    if !hsa_callbacks::wanted(cb_id::SUBMIT) {
        return;
    }
    let data = HsaCallbackData {
        submit: SubmitData {
            packet: packet.as_ptr() as *const c_void,
            kernel_name: kernel.map_or(std::ptr::null(), |n| n.as_ptr()),
            queue: queue as *mut c_void,
            device_type: DEVICE_TYPE_GPU,
            device_id: super::agent::index_of(agent),
        },
    };
    hsa_callbacks::issue(cb_id::SUBMIT, &data);
}

/// `hsa_status_t rocprofiler_set_hsa_callbacks(const rocprofiler_hsa_callbacks_t, void* arg)`:
/// replaces every callback (a NULL one is off).
#[no_mangle]
pub extern "C" fn rocprofiler_set_hsa_callbacks(callbacks: HsaCallbacks, arg: *mut c_void) -> u32 {
    call("rocprofiler_set_hsa_callbacks", || {
        let all = [
            callbacks.allocate,
            callbacks.device,
            callbacks.memcopy,
            callbacks.submit,
            callbacks.ksymbol,
            callbacks.codeobj,
        ];
        hsa_callbacks::set(all, arg);
        crate::hsa::intercept::set_submit_hook(
            callbacks.submit.map(|_| on_submit as crate::hsa::intercept::SubmitHook),
        );
        if all.iter().enumerate().any(|(i, f)| f.is_some() && i as u32 != cb_id::SUBMIT) {
            super::hsa_entries::put_in_front();
        }
        Ok(())
    })
}

/// The shift from the HSA timestamp to clock `id`, and its error: both
/// read around one `clock_gettime`.
fn correlate(id: u32) -> Option<(i128, u64)> {
    let clock = [
        libc::CLOCK_REALTIME,
        libc::CLOCK_REALTIME_COARSE,
        libc::CLOCK_MONOTONIC,
        libc::CLOCK_MONOTONIC_COARSE,
        libc::CLOCK_MONOTONIC_RAW,
    ][id as usize];
    let t0 = crate::hsa::proxy::timestamp();
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a plain system call into a local.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    let t1 = crate::hsa::proxy::timestamp();
    if t0 == 0 || t1 < t0 {
        return None;
    }
    let now = ts.tv_sec as i128 * 1_000_000_000 + ts.tv_nsec as i128;
    let mid = (t0 as i128 + t1 as i128) / 2;
    Some((now - mid, (t1 - t0).div_ceil(2)))
}

/// `hsa_status_t rocprofiler_get_time(rocprofiler_time_id_t, uint64_t timestamp,
/// uint64_t* value_ns, uint64_t* error_ns)`: a profiling timestamp (HSA
/// system timestamp, ns) on a Linux clock.
///
/// # Safety
/// `value_ns` is writable; `error_ns` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_get_time(id: u32, timestamp: u64, value_ns: *mut u64, error_ns: *mut u64) -> u32 {
    call("rocprofiler_get_time", || {
        if id >= TIME_ID_COUNT {
            return Err(RocpError::BadTimeId(id));
        }
        let (shift, err) = correlate(id).ok_or(RocpError::NotInitialized)?;
        // SAFETY: `error_ns` is NULL or a live, aligned value (# Safety).
        if let Some(e) = unsafe { error_ns.as_mut() } {
            *e = err;
        }
        // SAFETY: `value_ns` is NULL or a live, aligned value, as the caller promises (# Safety).
        if let Some(v) = unsafe { value_ns.as_mut() } {
            *v = (timestamp as i128 + shift).max(0) as u64;
        }
        Ok(())
    })
}

/// `hsa_status_t rocprofiler_queue_create_profiled(hsa_agent_t, uint32_t size,
/// hsa_queue_type32_t, callback, void* data, uint32_t private, uint32_t group, hsa_queue_t**)`:
/// an intercept queue whose dispatches the dispatch callback sees, with
/// their times.
///
/// # Safety
/// As `hsa_queue_create`: `queue` writable, `callback` NULL or accepting `data`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn rocprofiler_queue_create_profiled(
    agent: u64,
    size: u32,
    qtype: u32,
    callback: *mut c_void,
    data: *mut c_void,
    private_segment_size: u32,
    group_segment_size: u32,
    queue: *mut *mut u8,
) -> u32 {
    let mut r = 0;
    let st = call("rocprofiler_queue_create_profiled", || {
        if queue.is_null() {
            return Err(RocpError::Null("queue"));
        }
        r = crate::hsa::intercept::create_profiled(
            agent,
            size,
            qtype,
            callback,
            data,
            private_segment_size,
            group_segment_size,
            queue,
        );
        Ok(())
    });
    if st != 0 {
        st
    } else {
        r
    }
}

/// `hsa_status_t rocprofiler_add_feature(const rocprofiler_feature_t*, rocprofiler_feature_set_t*)`:
/// declared by 5.2.3's header, defined nowhere in 5.2.3.
#[no_mangle]
pub extern "C" fn rocprofiler_add_feature(_feature: *const Feature, _set: *mut c_void) -> u32 {
    call("rocprofiler_add_feature", || Err(RocpError::NotInRocprofiler))
}

/// `hsa_status_t rocprofiler_features_set_open(hsa_agent_t, rocprofiler_feature_set_t*,
/// rocprofiler_t**, uint32_t mode, rocprofiler_properties_t*)`: the same.
#[no_mangle]
pub extern "C" fn rocprofiler_features_set_open(
    _agent: u64,
    _set: *mut c_void,
    _context: *mut *mut c_void,
    _mode: u32,
    _properties: *mut Properties,
) -> u32 {
    call("rocprofiler_features_set_open", || Err(RocpError::NotInRocprofiler))
}
