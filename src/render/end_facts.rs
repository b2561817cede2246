//! What the summary shows beyond the calls, as the trace's `KIND_END`
//! records give it back (`render::device` reads them; `Results` carries
//! them).

/// What the layer knows of an HSA run beyond the calls: packets by AQL
/// type and dispatches per kernel (`ROCP_HSA_INTERCEPT`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HsaExtra {
    /// `(type, packets)`: kernel_dispatch, barrier_and, barrier_or, ….
    pub packets: Vec<(String, u64)>,
    /// `(kernel_object, name if known, dispatches)`.
    pub kernels: Vec<(u64, Option<String>, u64)>,
}

/// What the summary shows of the process's end, beyond the trace's calls.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EndFacts {
    /// Commands not complete at exit.
    pub pending: i64,
    /// Lines for the summary's notes.
    pub notes: Vec<String>,
    /// The HSA front's counts (`None`: cltap was not an HSA tool).
    pub hsa: Option<HsaExtra>,
    /// The summary counts the calls instead of timing them: the trace
    /// does not hold them all (`CLTAP_ERRORS_ONLY`).
    pub counted: bool,
    /// The count of every call: (function, calls, failed calls).
    pub tally: Vec<(String, u64, u64)>,
    /// What the argument dumps did (`None`: no dump control was on).
    pub dumps: Option<crate::dumps::facts::DumpFacts>,
}
