//! HSA's function names and ids, and the layout of the runtime's API
//! tables, generated from `api/hsa.api` and `hsa_api_trace.h` (see
//! build.rs). Plain constants: this imports nothing.

/// One API table of `HsaApiTable`, as cltap knows it.
pub struct TableLayout {
    /// Its `@table` name in `api/hsa.api`.
    pub name: &'static str,
    /// Offset in `HsaApiTable` of the pointer to it.
    pub root_offset: usize,
    /// The HSA function id of its entry 0.
    pub first: usize,
    /// Its function-pointer entries.
    pub entries: usize,
    /// `sizeof`: `VERSION_BYTES + 8 * entries`; ROCr sets the table's
    /// `version.minor_id` to the size of the table it passes.
    pub bytes: usize,
    /// The `version.major_id` of the layout cltap was built for.
    pub major: u32,
}

include!(concat!(env!("OUT_DIR"), "/hsa_api.rs"));
