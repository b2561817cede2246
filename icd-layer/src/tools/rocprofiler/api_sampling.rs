//! The sampling API. Standalone sampling (`start`, `stop`, `read`) submits
//! AQLprofile's packets to a queue of the profiler's own and reads a real
//! GPU's counters between them: cltap drives no such queue, so these
//! return `HSA_STATUS_ERROR` and set `rocprofiler_errno` (after checking
//! the context and group, so a bad handle still says so). They never make
//! data up.
//!
//! `get_data` is the intercepting flow's: it waits for the group's
//! dispatch, if one is counting it, and writes the features its values
//! complete; a group no dispatch collected is an error.

use super::api_base::call;
use super::api_queue::in_dispatch_callback;
use cltap::tools::rocprofiler::abi::Group;
use cltap::tools::rocprofiler::error::RocpError;
use cltap::tools::rocprofiler::registry;
use std::ffi::c_void;

fn sample(context: *mut c_void, group_index: u32) -> Result<(), RocpError> {
    registry::get(context as usize)?.group(group_index)?;
    Err(RocpError::Sampling)
}

fn get_data(context: *mut c_void, group_index: u32) -> Result<(), RocpError> {
    // Never wait inside the tool's dispatch callback, nor in its completion
    // handler on the runtime's signal thread (see Context::get_data).
    let may_wait = !in_dispatch_callback() && !crate::hsa::counters::in_completion();
    registry::get(context as usize)?.get_data(group_index, may_wait)
}

/// The group a `rocprofiler_group_*` function is given.
///
/// # Safety
/// `g` is NULL or points at a `rocprofiler_group_t` that stays live for the call.
unsafe fn group(g: *mut Group) -> Result<(*mut c_void, u32), RocpError> {
    // SAFETY: `g` is NULL or a live, aligned value (# Safety).
    let g = unsafe { g.as_ref() }.ok_or(RocpError::Null("group"))?;
    Ok((g.context, g.index))
}

/// `hsa_status_t rocprofiler_start(rocprofiler_t*, uint32_t group_index)`.
///
/// # Safety
/// `context` is NULL or an open context.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_start(context: *mut c_void, group_index: u32) -> u32 {
    call("rocprofiler_start", || sample(context, group_index))
}

/// `hsa_status_t rocprofiler_stop(rocprofiler_t*, uint32_t group_index)`.
///
/// # Safety
/// `context` is NULL or an open context.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_stop(context: *mut c_void, group_index: u32) -> u32 {
    call("rocprofiler_stop", || sample(context, group_index))
}

/// `hsa_status_t rocprofiler_read(rocprofiler_t*, uint32_t group_index)`.
///
/// # Safety
/// `context` is NULL or an open context.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_read(context: *mut c_void, group_index: u32) -> u32 {
    call("rocprofiler_read", || sample(context, group_index))
}

/// `hsa_status_t rocprofiler_get_data(rocprofiler_t*, uint32_t group_index)`.
///
/// # Safety
/// `context` is NULL or an open context.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_get_data(context: *mut c_void, group_index: u32) -> u32 {
    call("rocprofiler_get_data", || get_data(context, group_index))
}

/// `hsa_status_t rocprofiler_group_start(rocprofiler_group_t*)`.
///
/// # Safety
/// `g` is NULL or a group `rocprofiler_get_group` wrote, of an open context.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_group_start(g: *mut Group) -> u32 {
    // SAFETY: `group`: the group pointer is NULL or a live `rocprofiler_group_t` (# Safety).
    call("rocprofiler_group_start", || unsafe { group(g) }.and_then(|(c, i)| sample(c, i)))
}

/// `hsa_status_t rocprofiler_group_stop(rocprofiler_group_t*)`.
///
/// # Safety
/// `g` is NULL or a group `rocprofiler_get_group` wrote, of an open context.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_group_stop(g: *mut Group) -> u32 {
    // SAFETY: `group`: the group pointer is NULL or a live `rocprofiler_group_t` (# Safety).
    call("rocprofiler_group_stop", || unsafe { group(g) }.and_then(|(c, i)| sample(c, i)))
}

/// `hsa_status_t rocprofiler_group_read(rocprofiler_group_t*)`.
///
/// # Safety
/// `g` is NULL or a group `rocprofiler_get_group` wrote, of an open context.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_group_read(g: *mut Group) -> u32 {
    // SAFETY: `group`: the group pointer is NULL or a live `rocprofiler_group_t` (# Safety).
    call("rocprofiler_group_read", || unsafe { group(g) }.and_then(|(c, i)| sample(c, i)))
}

/// `hsa_status_t rocprofiler_group_get_data(rocprofiler_group_t*)`.
///
/// # Safety
/// `g` is NULL or a group `rocprofiler_get_group` wrote, of an open context.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_group_get_data(g: *mut Group) -> u32 {
    // SAFETY: `group`: the group pointer is NULL or a live `rocprofiler_group_t` (# Safety).
    call("rocprofiler_group_get_data", || unsafe { group(g) }.and_then(|(c, i)| get_data(c, i)))
}
