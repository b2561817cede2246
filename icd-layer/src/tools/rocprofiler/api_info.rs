//! The info API over the counting GPU's metrics catalog. cltap has no
//! traces (no thread trace, SPM or PC sampling): trace info lists nothing
//! and counts 0.
//!
//! As 5.2.3: `rocprofiler_get_info` answers the two counts only (any
//! other kind is "unknown info kind"), and `rocprofiler_query_info` is not
//! implemented.

use super::agent;
use super::api_base::call;
use cltap::tools::rocprofiler::abi::{self, Agent, InfoCallback, InfoQuery};
use cltap::tools::rocprofiler::error::RocpError;
use std::ffi::c_void;

/// `hsa_status_t rocprofiler_get_info(const hsa_agent_t*, rocprofiler_info_kind_t, void* data)`.
///
/// # Safety
/// `agent` is NULL or a live `hsa_agent_t`; `data` is NULL or a writable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_get_info(agent: *const Agent, kind: u32, data: *mut c_void) -> u32 {
    call("rocprofiler_get_info", || {
        // 5.2.3: "NULL agent", HSA_STATUS_ERROR.
        // SAFETY: `agent` is NULL or a live, aligned value (# Safety).
        let agent = unsafe { agent.as_ref() }.ok_or(RocpError::NullAgent)?;
        if data.is_null() {
            return Err(RocpError::Null("data"));
        }
        let gpu = agent::named(agent.handle)?;
        // SAFETY: `data` is non-NULL (checked) and, for these two kinds, points at the caller's `uint32_t`.
        match kind {
            abi::INFO_KIND_METRIC_COUNT => unsafe { *(data as *mut u32) = gpu.info.len() as u32 },
            abi::INFO_KIND_TRACE_COUNT => unsafe { *(data as *mut u32) = 0 },
            k => return Err(RocpError::InfoKind(k)),
        }
        Ok(())
    })
}

/// Walks `kind`'s info for `agent` (NULL: every GPU agent, which for cltap
/// is the one it counts on).
///
/// # Safety
/// `agent` is NULL or points at a live `hsa_agent_t`; `callback` accepts `data`.
unsafe fn walk(
    agent: *const Agent,
    kind: u32,
    callback: Option<InfoCallback>,
    data: *mut c_void,
) -> Result<(), RocpError> {
    let callback = callback.ok_or(RocpError::Null("callback"))?;
    // SAFETY: `agent` is NULL or a live, aligned value (# Safety).
    let gpu = match unsafe { agent.as_ref() } {
        Some(a) => agent::named(a.handle)?,
        None => agent::gpu()?,
    };
    match kind {
        // SAFETY: `callback` gets arguments its C declaration accepts.
        abi::INFO_KIND_METRIC => gpu.info.iterate(gpu.index, |d| unsafe { callback(d, data) }),
        abi::INFO_KIND_TRACE => Ok(()),
        k => Err(RocpError::InfoKind(k)),
    }
}

/// `hsa_status_t rocprofiler_iterate_info(const hsa_agent_t*, rocprofiler_info_kind_t, callback, void* data)`.
///
/// # Safety
/// `agent` is NULL or a live `hsa_agent_t`; `callback` accepts `data`.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_iterate_info(
    agent: *const Agent,
    kind: u32,
    callback: Option<InfoCallback>,
    data: *mut c_void,
) -> u32 {
    // SAFETY: `walk`'s # Safety follows from this fn's.
    call("rocprofiler_iterate_info", || unsafe { walk(agent, kind, callback, data) })
}

/// `hsa_status_t rocprofiler_query_info(const hsa_agent_t*, rocprofiler_info_query_t, callback, void* data)`:
/// `HSA_STATUS_ERROR`, as 5.2.3, which implements no query.
#[no_mangle]
pub extern "C" fn rocprofiler_query_info(
    _agent: *const Agent,
    _query: InfoQuery,
    _callback: Option<InfoCallback>,
    _data: *mut c_void,
) -> u32 {
    call("rocprofiler_query_info", || Err(RocpError::NotImplemented))
}
