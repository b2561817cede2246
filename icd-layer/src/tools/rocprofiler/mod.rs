//! rocprofiler v1's library API, exported by `libcltap_layer.so` with the
//! C ABI of ROCm 5.x's `inc/rocprofiler.h` (cltap's re-declaration:
//! `include/rocprofiler/rocprofiler.h`). A tool loaded with `ROCP_TOOL_LIB`
//! resolves these symbols against cltap, which makes its own library global
//! before it opens the tools. The logic is in `cltap::tools::rocprofiler`;
//! here are the C entry points (no panic crosses them: each runs under
//! `guard`), the agent's catalog, and the dispatch hook.
//!
//! ```text
//! api_info, api_context → agent, base      api_sampling → base, api_queue
//! api_queue → agent, base; hsa::counters (the tool hook), hsa::intercept, hsa::proxy
//! agent → hsa::wrappers, hsa::counters, life
//! api_pool → agent, base      api_hsa → agent, base, hsa_callbacks, hsa_entries; hsa::intercept (hook), hsa::proxy
//! hsa_entries → hsa_callbacks, agent; hsa::names, hsa::onload (entries put in front), hsa::wrappers
//! ```

pub(crate) mod agent;
mod api_base;
mod api_context;
mod api_hsa;
mod api_info;
pub(crate) mod api_pool;
pub mod api_queue;
mod api_sampling;
mod hsa_callbacks;
mod hsa_entries;
