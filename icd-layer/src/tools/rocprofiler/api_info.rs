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
/// Called through the C ABI: every argument is as this entry's C
/// declaration defines it (each pointer valid for what the entry reads and
/// writes through it, or NULL where the API allows NULL).
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_get_info(agent: *const Agent, kind: u32, data: *mut c_void) -> u32 {
    call("rocprofiler_get_info", || {
        // 5.2.3: "NULL agent", HSA_STATUS_ERROR.
        let agent = agent.as_ref().ok_or(RocpError::NullAgent)?;
        if data.is_null() {
            return Err(RocpError::Null("data"));
        }
        let gpu = agent::named(agent.handle)?;
        match kind {
            abi::INFO_KIND_METRIC_COUNT => *(data as *mut u32) = gpu.info.len() as u32,
            abi::INFO_KIND_TRACE_COUNT => *(data as *mut u32) = 0,
            k => return Err(RocpError::InfoKind(k)),
        }
        Ok(())
    })
}

/// Walks `kind`'s info for `agent` (NULL: every GPU agent, which for cltap
/// is the one it counts on).
///
/// # Safety
/// Each pointer argument must be valid for the reads and writes this
/// function makes through it (or NULL where it checks for NULL), and each
/// handle or function pointer must be of the kind its type names.
unsafe fn walk(
    agent: *const Agent,
    kind: u32,
    callback: Option<InfoCallback>,
    data: *mut c_void,
) -> Result<(), RocpError> {
    let callback = callback.ok_or(RocpError::Null("callback"))?;
    let gpu = match agent.as_ref() {
        Some(a) => agent::named(a.handle)?,
        None => agent::gpu()?,
    };
    match kind {
        abi::INFO_KIND_METRIC => gpu.info.iterate(gpu.index, |d| callback(d, data)),
        abi::INFO_KIND_TRACE => Ok(()),
        k => Err(RocpError::InfoKind(k)),
    }
}

/// `hsa_status_t rocprofiler_iterate_info(const hsa_agent_t*, rocprofiler_info_kind_t, callback, void* data)`.
///
/// # Safety
/// Called through the C ABI: every argument is as this entry's C
/// declaration defines it (each pointer valid for what the entry reads and
/// writes through it, or NULL where the API allows NULL).
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_iterate_info(
    agent: *const Agent,
    kind: u32,
    callback: Option<InfoCallback>,
    data: *mut c_void,
) -> u32 {
    call("rocprofiler_iterate_info", || walk(agent, kind, callback, data))
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
