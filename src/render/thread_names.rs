//! Threads' OS names, from the trace's `KIND_THREAD` records, for the
//! outputs that draw a track per thread (timeline, `.pftrace`, rocpd). A
//! thread's record comes first in its first chunk, so its name is known
//! before any of its calls is drawn.

use crate::trace::record::{View, KIND_THREAD};
use std::collections::HashMap;

#[derive(Debug, Default)]
pub struct ThreadNames(HashMap<u32, String>);

impl ThreadNames {
    /// Keeps the name a `KIND_THREAD` record gives; other records are left.
    pub fn learn(&mut self, v: &View<'_>) {
        if v.header.kind == KIND_THREAD {
            if let Some(n) = v.kernel_name().filter(|n| !n.is_empty()) {
                self.0.insert(v.header.tid, n);
            }
        }
    }

    /// The thread's OS name (the viewers show its id beside it, and
    /// rocprofv3 keeps the OS name too), or `thread tid` for a thread
    /// without a name record (a trace of an older cltap).
    pub fn of(&self, tid: u32) -> String {
        match self.0.get(&tid) {
            Some(n) => n.clone(),
            None => format!("thread {tid}"),
        }
    }
}
