//! What can go wrong in the v1 API, the `hsa_status_t` each failure
//! returns, and the calling thread's last failure (`rocprofiler_errno`,
//! `rocprofiler_error_string`).
//!
//! rocprofiler v1 keeps one process-wide "last message"; cltap keeps it per
//! thread, like `errno`, so that a tool's handler running on the runtime's
//! signal thread cannot overwrite the message an application thread is
//! about to read. A successful call leaves it as it was (the seed: "the
//! last failed library API call").

use super::abi::status;
use crate::metrics::MetricsError;
use std::cell::RefCell;
use std::ffi::{c_char, CString};

#[derive(Debug, thiserror::Error)]
pub enum RocpError {
    #[error("{0} is NULL")]
    Null(&'static str),
    #[error("{0:#x} is not an open profiling context (closed already, or not made by rocprofiler_open)")]
    BadContext(usize),
    #[error("group index {index} is out of range: the context has {count} group(s)")]
    BadGroup { index: u32, count: u32 },
    #[error("agent {0:#x} is not the GPU cltap counts on (the first GPU agent with AQLprofile)")]
    UnknownAgent(u64),
    #[error("the HSA runtime has not loaded cltap yet: the v1 API works once OnLoad has installed cltap (from a dispatch callback, or after hsa_init returned)")]
    NotInitialized,
    #[error("hardware counters are not available: {0}")]
    NoCounters(String),
    #[error("the metrics file cannot be used: {0}")]
    Catalog(String),
    #[error("{0}")]
    Metrics(#[from] MetricsError),
    #[error("input metric '{0}' is registered more than once")]
    Duplicate(String),
    #[error("feature '{0}' is a trace (thread trace, SPM or PC sampling): cltap collects metric features only; its AQLprofile path for traces needs a real GPU and is not implemented")]
    TraceUnsupported(String),
    #[error("feature {index} has kind {kind}, which is neither a metric (0) nor a trace (1)")]
    FeatureKind { index: usize, kind: u32 },
    #[error("mode {0:#x}: standalone profiling (ROCPROFILER_MODE_STANDALONE, CREATEQUEUE) is not supported: it programs the counters through a queue of the profiler's own on a real GPU, which cltap does not drive; open with mode 0 and return the group from a rocprofiler_set_queue_callbacks dispatch callback")]
    StandaloneMode(u32),
    #[error("standalone sampling (start, stop, read) is not supported: it needs a queue of the profiler's own on a real GPU, which cltap does not drive; the counters are collected around a dispatch when a dispatch callback returns the group")]
    Sampling,
    #[error("ROCPROFILER_MODE_SINGLEGROUP, but the features need {0} groups (passes)")]
    SingleGroup(usize),
    #[error("group {0} has no data: it was never returned from a dispatch callback (standalone sampling is not supported), or its dispatch was not counted")]
    NotCollected(u32),
    #[error("group {0}'s dispatch is still running, and waiting for it here (inside a dispatch callback) would block its own queue")]
    WouldBlock(u32),
    #[error("group {0}'s dispatch was still running when the process ended, and cltap stopped waiting for it (5 s): its values are missing")]
    LostAtExit(u32),
    #[error("metric '{name}' needs group(s) {groups:?}, not collected yet")]
    Incomplete { name: String, groups: Vec<usize> },
    #[error("unknown info kind ({0})")]
    InfoKind(u32),
    #[error("the info callback returned {0:#x}")]
    Callback(u32),
    #[error("a pool needs at least one entry (num_entries is 0)")]
    PoolSize,
    #[error("NULL agent")]
    NullAgent,
    #[error("corrupted pool entry: it was fetched again before the pool's handler received it")]
    PoolCorrupted,
    #[error("the pool's contexts cannot be opened: {0}")]
    PoolOpen(String),
    #[error("{0:#x} is not an open context pool (closed already, or not made by rocprofiler_pool_open)")]
    BadPool(usize),
    #[error("time id {0} is not one of rocprofiler_time_id_t's (0 to 4)")]
    BadTimeId(u32),
    #[error("invalid mode ({0:#x}): without ROCPROFILER_MODE_STANDALONE, rocprofiler 5.2.3 accepts mode 0 only")]
    InvalidMode(u32),
    #[error("the features need {0} groups (passes) of the GPU's counters: rocprofiler 5.2.3 refuses a context over the counters' limit (\"Metrics list exceeds HW limits\"); open one context per pass")]
    OverLimit(u32),
    #[error("rocprofiler 5.2.3 declares this function in its header but does not define it (a tool calling it does not link with rocprofiler); cltap exports it so such a tool loads, and returns this error")]
    NotInRocprofiler,
    #[error("not implemented in rocprofiler 5.2.3, which returns this error too")]
    NotImplemented,
    #[error("internal error in cltap (reported on stderr); the call did nothing")]
    Internal,
}

impl RocpError {
    /// The `hsa_status_t` a call failing so returns.
    pub fn status(&self) -> u32 {
        match self {
            RocpError::Null(_) | RocpError::BadContext(_) | RocpError::BadPool(_) => status::INVALID_ARGUMENT,
            RocpError::NotInitialized => status::NOT_INITIALIZED,
            RocpError::Callback(s) => *s,
            _ => status::ERROR,
        }
    }
}

thread_local! {
    static LAST: RefCell<(u32, CString)> = RefCell::new((status::SUCCESS, CString::default()));
}

/// Records a failure of `function` on this thread; returns its status.
pub fn fail(function: &str, e: &RocpError) -> u32 {
    let s = e.status();
    // v1 logs "<function>(), <what>"; NULs cannot appear in a C string.
    let text = format!("{function}(), {e}").replace('\0', " ");
    LAST.with(|l| *l.borrow_mut() = (s, CString::new(text).unwrap_or_default()));
    s
}

/// The status of this thread's last failed call (`HSA_STATUS_SUCCESS` if none).
pub fn last_status() -> u32 {
    LAST.with(|l| l.borrow().0)
}

/// This thread's last failure's message ("" if none), valid until the
/// thread's next failed call.
pub fn last_message() -> *const c_char {
    LAST.with(|l| l.borrow().1.as_ptr())
}

/// Runs a v1 call's body: its error, if any, becomes this thread's last
/// failure and its status the call's result.
pub fn answer(function: &str, r: Result<(), RocpError>) -> u32 {
    match r {
        Ok(()) => status::SUCCESS,
        Err(e) => fail(function, &e),
    }
}
