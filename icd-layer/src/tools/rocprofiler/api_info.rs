//! The info API over the counting GPU's metrics catalog. cltap has no
//! traces (no thread trace, SPM or PC sampling): trace info lists nothing
//! and counts 0.
//!
//! `rocprofiler_get_info(agent, ROCPROFILER_INFO_KIND_METRIC, &info)` is
//! cltap's extension (v1 answers "unknown info kind"): with
//! `info.metric.name` set, it fills in that metric's entry, or fails
//! naming the unknown metric and the close ones.

use super::agent;
use super::api_base::call;
use cltap::tools::rocprofiler::abi::{self, Agent, InfoCallback, InfoData, InfoQuery};
use cltap::tools::rocprofiler::error::RocpError;
use std::ffi::{c_void, CStr};

/// `hsa_status_t rocprofiler_get_info(const hsa_agent_t*, rocprofiler_info_kind_t, void* data)`.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_get_info(agent: *const Agent, kind: u32, data: *mut c_void) -> u32 {
    call("rocprofiler_get_info", || {
        let agent = agent.as_ref().ok_or(RocpError::Null("agent"))?;
        if data.is_null() {
            return Err(RocpError::Null("data"));
        }
        let gpu = agent::named(agent.handle)?;
        match kind {
            abi::INFO_KIND_METRIC_COUNT => *(data as *mut u32) = gpu.info.len() as u32,
            abi::INFO_KIND_TRACE_COUNT => *(data as *mut u32) = 0,
            abi::INFO_KIND_METRIC => {
                let d = data as *mut InfoData;
                let name = (*d).u.metric.name;
                if name.is_null() {
                    return Err(RocpError::Null("info.metric.name"));
                }
                let name = CStr::from_ptr(name).to_string_lossy().into_owned();
                *d = gpu.info.find(&gpu.catalog, &name, gpu.index)?;
            }
            k => return Err(RocpError::InfoKind(k)),
        }
        Ok(())
    })
}

/// Walks `kind`'s info for `agent` (NULL: every GPU agent, which for cltap
/// is the one it counts on).
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
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_iterate_info(
    agent: *const Agent,
    kind: u32,
    callback: Option<InfoCallback>,
    data: *mut c_void,
) -> u32 {
    call("rocprofiler_iterate_info", || walk(agent, kind, callback, data))
}

/// `hsa_status_t rocprofiler_query_info(const hsa_agent_t*, rocprofiler_info_query_t, callback, void* data)`.
/// The query union has no tag; its `info_kind` is read: the metric and
/// trace kinds walk as `rocprofiler_iterate_info` does. A trace-parameter
/// query has no trace to name (rocprofiler 5.x implements no query at all).
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_query_info(
    agent: *const Agent,
    query: InfoQuery,
    callback: Option<InfoCallback>,
    data: *mut c_void,
) -> u32 {
    call("rocprofiler_query_info", || walk(agent, query.info_kind, callback, data))
}
