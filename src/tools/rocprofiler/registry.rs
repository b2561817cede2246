//! The open contexts, by handle. A handle (`rocprofiler_t*`) is the
//! context's address; every call looks it up here first, so a closed or
//! foreign pointer is an error, never a dereference.
//!
//! A dispatch still counting a group holds its context (an `Arc`), so
//! `rocprofiler_close` from the tool's handler, or before the values come
//! back, frees the context only once nothing uses it. [`free_all`] drops
//! the contexts a tool never closed, once the tools have ended
//! (`toollib_end`): never before, since a tool's `OnUnloadTool` reads the
//! contexts whose completion handler has not run (rocprof's tool does).

use super::context::Context;
use super::error::RocpError;
use crate::fork::lock::Mutex;
use std::collections::HashMap;
use std::sync::Arc;

static OPEN: Mutex<Option<HashMap<usize, Arc<Context>>>> = Mutex::new(None);

/// The prepare handler's part ([`crate::fork`]).
pub(crate) fn hold_for_fork() {
    crate::fork::kept::keep(OPEN.lock());
}

/// Registers a new context; returns it with its handle.
pub fn insert(c: Context) -> (usize, Arc<Context>) {
    let c = Arc::new(c);
    let handle = Arc::as_ptr(&c) as usize;
    OPEN.lock().get_or_insert_with(HashMap::new).insert(handle, c.clone());
    (handle, c)
}

/// The open context of `handle`.
pub fn get(handle: usize) -> Result<Arc<Context>, RocpError> {
    if handle == 0 {
        return Err(RocpError::Null("context"));
    }
    OPEN.lock().as_ref().and_then(|m| m.get(&handle).cloned()).ok_or(RocpError::BadContext(handle))
}

/// Closes `handle`: it is no longer valid, and the context is freed when
/// the last dispatch using it is done.
pub fn close(handle: usize) -> Result<(), RocpError> {
    if handle == 0 {
        // v1 accepts rocprofiler_close(NULL) and does nothing.
        return Ok(());
    }
    let c = OPEN.lock().as_mut().and_then(|m| m.remove(&handle)).ok_or(RocpError::BadContext(handle))?;
    c.close();
    Ok(())
}

/// How many contexts are open.
pub fn open_count() -> usize {
    OPEN.lock().as_ref().map_or(0, |m| m.len())
}

/// Every open context stops waiting for dispatches (see
/// [`Context::stop_waiting`]): the process is ending without them.
pub fn stop_waiting() {
    let all: Vec<Arc<Context>> = OPEN.lock().as_ref().map(|m| m.values().cloned().collect()).unwrap_or_default();
    for c in all {
        c.stop_waiting();
    }
}

/// Closes every open context; returns how many there were.
pub fn free_all() -> usize {
    let all = OPEN.lock().take().unwrap_or_default();
    for c in all.values() {
        c.close();
    }
    all.len()
}
