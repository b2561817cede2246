//! The context pool's C entries (`rocprofiler_pool_*`); the ring itself is
//! `cltap::tools::rocprofiler::pool`. A pool handle is checked against the
//! open pools before anything is done with it.
//!
//! The pool's contexts are opened at its first fetch, on the GPU the pool
//! was opened for: a pool opened in `OnLoadTool` (as rocprofiler's own
//! tool does) is opened before cltap has the runtime's entries, so the
//! agent can only be checked then.

use super::agent;
use super::api_base::call;
use cltap::fork::lock::Mutex;
use cltap::tools::rocprofiler::abi::{Agent, Feature, Group, Properties};
use cltap::tools::rocprofiler::abi_ext::{PoolEntry, PoolProperties};
use cltap::tools::rocprofiler::context::Context;
use cltap::tools::rocprofiler::error::RocpError;
use cltap::tools::rocprofiler::pool::Pool;
use cltap::tools::rocprofiler::registry;
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::Arc;

pub(crate) static POOLS: Mutex<Option<HashMap<usize, Arc<Pool>>>> = Mutex::new(None);
/// Closed pools, kept: a dispatch completing as its pool is closed may
/// still be handing an entry back (pools are few, made at start-up).
pub(crate) static CLOSED: Mutex<Vec<Arc<Pool>>> = Mutex::new(Vec::new());

fn get(handle: *mut c_void) -> Result<Arc<Pool>, RocpError> {
    if handle.is_null() {
        return Err(RocpError::Null("pool"));
    }
    let h = handle as usize;
    POOLS.lock().as_ref().and_then(|m| m.get(&h).cloned()).ok_or(RocpError::BadPool(h))
}

/// Each entry's context handler: the entry is complete.
///
/// # Safety
/// `arg` is the pool entry the context's completion was armed with.
unsafe extern "C" fn entry_done(_group: Group, arg: *mut c_void) -> bool {
    // SAFETY: `context_done`'s # Safety follows from this fn's.
    crate::guard::guard((), || unsafe { Pool::context_done(arg) });
    true
}

/// The features of a pool, kept as their address (they are the tool's,
/// and outlive the pool as v1 requires).
#[derive(Clone, Copy)]
struct Features(usize, u32);

/// `hsa_status_t rocprofiler_pool_open(hsa_agent_t, rocprofiler_feature_t*, uint32_t,
/// rocprofiler_pool_t**, uint32_t mode, rocprofiler_pool_properties_t*)`.
///
/// # Safety
/// `features` holds `feature_count` features; `pool` is writable; `properties` is NULL or a
/// live `rocprofiler_pool_properties_t` whose handler accepts its handler argument.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_pool_open(
    agent: Agent,
    features: *mut Feature,
    feature_count: u32,
    pool: *mut *mut c_void,
    mode: u32,
    properties: *mut PoolProperties,
) -> u32 {
    call("rocprofiler_pool_open", || {
        if pool.is_null() {
            return Err(RocpError::Null("pool"));
        }
        // SAFETY: `properties` is NULL or a live, aligned value (# Safety).
        let props = unsafe { properties.as_ref() }.ok_or(RocpError::Null("properties"))?;
        // 5.2.3 ignores the mode of a pool: its contexts are opened with none.
        let _ = mode;
        let f = Features(features as usize, feature_count);
        let opener = Box::new(move |arg: *mut c_void| -> Result<usize, RocpError> {
            let gpu = agent::named(agent.handle)?;
            let p =
                Properties { queue: std::ptr::null_mut(), queue_depth: 0, handler: Some(entry_done), handler_arg: arg };
            // SAFETY: the tool's features, as it gave them to pool_open.
            let ctx = unsafe {
                Context::open(&gpu.catalog, gpu.consts, agent.handle, f.0 as *mut Feature, f.1, 0, Some(&p))?
            };
            super::api_context::within_limits(&ctx)?;
            Ok(registry::insert(ctx).0)
        });
        let p = Pool::new(props.num_entries, props.payload_bytes, props.handler, props.handler_arg, opener)?;
        let handle = Arc::as_ptr(&p) as usize;
        POOLS.lock().get_or_insert_with(HashMap::new).insert(handle, p);
        // SAFETY: `pool` is valid for this access, as the caller promises (# Safety).
        unsafe { *pool = handle as *mut c_void };
        Ok(())
    })
}

/// `hsa_status_t rocprofiler_pool_close(rocprofiler_pool_t*)`: its contexts
/// are closed (each freed once no dispatch uses it).
///
/// # Safety
/// `pool` is NULL or one [`rocprofiler_pool_open`] made, closed here once.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_pool_close(pool: *mut c_void) -> u32 {
    call("rocprofiler_pool_close", || {
        let p = get(pool)?;
        POOLS.lock().as_mut().and_then(|m| m.remove(&(pool as usize)));
        for h in p.contexts() {
            let _ = registry::close(h);
        }
        CLOSED.lock().push(p);
        Ok(())
    })
}

/// `hsa_status_t rocprofiler_pool_fetch(rocprofiler_pool_t*, rocprofiler_pool_entry_t*)`.
///
/// # Safety
/// `pool` is NULL or an open pool; `entry` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_pool_fetch(pool: *mut c_void, entry: *mut PoolEntry) -> u32 {
    call("rocprofiler_pool_fetch", || {
        if entry.is_null() {
            return Err(RocpError::Null("entry"));
        }
        // SAFETY: `entry` is valid for this access (# Safety).
        unsafe { *entry = get(pool)?.fetch()? };
        Ok(())
    })
}

/// `hsa_status_t rocprofiler_pool_flush(rocprofiler_pool_t*)`.
///
/// # Safety
/// `pool` is NULL or an open pool.
#[no_mangle]
pub unsafe extern "C" fn rocprofiler_pool_flush(pool: *mut c_void) -> u32 {
    call("rocprofiler_pool_flush", || {
        get(pool)?.deliver();
        Ok(())
    })
}

/// `hsa_status_t rocprofiler_pool_release(rocprofiler_pool_entry_t*)`:
/// declared by 5.2.3's header, defined nowhere in 5.2.3.
#[no_mangle]
pub extern "C" fn rocprofiler_pool_release(_entry: *mut PoolEntry) -> u32 {
    call("rocprofiler_pool_release", || Err(RocpError::NotInRocprofiler))
}

/// `hsa_status_t rocprofiler_pool_iterate(rocprofiler_pool_t*, callback, void*)`:
/// declared by 5.2.3's header, defined nowhere in 5.2.3.
#[no_mangle]
pub extern "C" fn rocprofiler_pool_iterate(
    _pool: *mut c_void,
    _callback: Option<unsafe extern "C" fn(*mut PoolEntry, *mut c_void) -> u32>,
    _data: *mut c_void,
) -> u32 {
    call("rocprofiler_pool_iterate", || Err(RocpError::NotInRocprofiler))
}
