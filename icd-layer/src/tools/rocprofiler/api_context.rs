//! Contexts and groups: open (planned on the agent's catalog), close,
//! groups, metrics. A context handle is checked against the open contexts
//! before anything is done with it.

use super::agent;
use super::api_base::call;
use cltap::tools::rocprofiler::abi::{Agent, Feature, Group, Properties, MODE_STANDALONE};
use cltap::tools::rocprofiler::context::Context;
use cltap::tools::rocprofiler::error::RocpError;
use cltap::tools::rocprofiler::registry;
use std::ffi::c_void;

/// `hsa_status_t rocprofiler_open(hsa_agent_t, rocprofiler_feature_t*, uint32_t,
/// rocprofiler_t**, uint32_t mode, rocprofiler_properties_t*)`.
///
/// # Safety
/// `features` holds `feature_count` features, live until the context is closed; `context` is
/// writable; `properties` is NULL or a live `rocprofiler_properties_t`.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_open(
    agent: Agent,
    features: *mut Feature,
    feature_count: u32,
    context: *mut *mut c_void,
    mode: u32,
    properties: *mut Properties,
) -> u32 {
    call("rocprofiler_open", || {
        if context.is_null() {
            return Err(RocpError::Null("context"));
        }
        // As 5.2.3: a mode without STANDALONE is invalid (SINGLEGROUP alone too).
        if mode != 0 && mode & MODE_STANDALONE == 0 {
            return Err(RocpError::InvalidMode(mode));
        }
        let gpu = agent::named(agent.handle)?;
        // SAFETY: `open`'s # Safety follows from this fn's.
        let ctx = unsafe {
            Context::open(&gpu.catalog, gpu.consts, agent.handle, features, feature_count, mode, properties.as_ref())
        }?;
        within_limits(&ctx)?;
        let (handle, _) = registry::insert(ctx);
        // SAFETY: `context` is valid for this access, as the caller promises (# Safety).
        unsafe { *context = handle as *mut c_void };
        Ok(())
    })
}

/// 5.2.3 refuses a context whose features need more than one pass of the
/// counters ("Metrics list exceeds HW limits"): so does cltap, although it
/// could collect them group by group (`rocprofiler_get_group`).
pub fn within_limits(ctx: &Context) -> Result<(), RocpError> {
    match ctx.group_count() {
        0 | 1 => Ok(()),
        n => Err(RocpError::OverLimit(n)),
    }
}

/// `hsa_status_t rocprofiler_close(rocprofiler_t*)`: the handle is invalid
/// at once; the context is freed when no dispatch uses it any more.
///
/// # Safety
/// `context` is NULL or one [`rocprofiler_open`] made, closed here once.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_close(context: *mut c_void) -> u32 {
    call("rocprofiler_close", || registry::close(context as usize))
}

/// `hsa_status_t rocprofiler_reset(rocprofiler_t*, uint32_t group_index)`.
///
/// # Safety
/// `context` is NULL or an open context.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_reset(context: *mut c_void, group_index: u32) -> u32 {
    call("rocprofiler_reset", || registry::get(context as usize)?.reset(group_index))
}

/// `hsa_status_t rocprofiler_get_agent(rocprofiler_t*, hsa_agent_t*)`.
///
/// # Safety
/// `context` is NULL or an open context; `agent` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_get_agent(context: *mut c_void, agent: *mut Agent) -> u32 {
    call("rocprofiler_get_agent", || {
        let c = registry::get(context as usize)?;
        // SAFETY: `agent` is NULL or a live, aligned value (# Safety).
        let out = unsafe { agent.as_mut() }.ok_or(RocpError::Null("agent"))?;
        *out = Agent { handle: c.agent() };
        Ok(())
    })
}

/// `hsa_status_t rocprofiler_group_count(const rocprofiler_t*, uint32_t*)`.
///
/// # Safety
/// `context` is NULL or an open context; `group_count` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_group_count(context: *const c_void, group_count: *mut u32) -> u32 {
    call("rocprofiler_group_count", || {
        let c = registry::get(context as usize)?;
        // SAFETY: `group_count` is NULL or a live, aligned value (# Safety).
        *unsafe { group_count.as_mut() }.ok_or(RocpError::Null("group_count"))? = c.group_count();
        Ok(())
    })
}

/// `hsa_status_t rocprofiler_get_group(rocprofiler_t*, uint32_t, rocprofiler_group_t*)`.
///
/// # Safety
/// `context` is NULL or an open context; `group` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_get_group(context: *mut c_void, group_index: u32, group: *mut Group) -> u32 {
    call("rocprofiler_get_group", || {
        let c = registry::get(context as usize)?;
        // SAFETY: `group` is NULL or a live, aligned value (# Safety).
        let out = unsafe { group.as_mut() }.ok_or(RocpError::Null("group"))?;
        *out = c.group(group_index)?;
        Ok(())
    })
}

/// `hsa_status_t rocprofiler_get_metrics(const rocprofiler_t*)`: every
/// feature whose groups were collected gets its value.
///
/// # Safety
/// `context` is NULL or an open context.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_get_metrics(context: *const c_void) -> u32 {
    call("rocprofiler_get_metrics", || registry::get(context as usize)?.get_metrics())
}

/// `hsa_status_t rocprofiler_iterate_trace_data(rocprofiler_t*, callback, void*)`:
/// a context of cltap's has no trace features (open refuses them), so
/// there is no trace data; the callback is never called (as in v1 for a
/// context without traces).
///
/// # Safety
/// `context` is NULL or an open context (the callback is not called).
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_iterate_trace_data(
    context: *mut c_void,
    _callback: *const c_void,
    _data: *mut c_void,
) -> u32 {
    call("rocprofiler_iterate_trace_data", || registry::get(context as usize).map(|_| ()))
}
