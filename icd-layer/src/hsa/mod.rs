//! HSA: `libcltap_layer.so` as an HSA tool library (`HSA_TOOLS_LIB`). The
//! runtime calls `OnLoad` with its API tables at the end of `hsa_init`;
//! cltap saves each entry and puts its wrapper there, so every later HSA
//! call of the application passes through cltap and is recorded, as an
//! OpenCL call is, into the same trace (records of kind `KIND_HSA_CALL`).
//! `OnUnload` (at the last `hsa_shut_down`) ends the trace.
//!
//! The wrappers and the tables' layout are generated from `api/hsa.api`,
//! held at build time to ROCr's `hsa_api_trace.h` (see build.rs and
//! `api/HSA.md`). Within `hsa/`:
//!
//! ```text
//! onload    → wrappers, unload, api, intercept, copytimes, copyanswer, once, agents, counters; bracket, life, config (via life)
//! intercept → wrappers, api, kernels, counters, proxy, traced; bracket, guard
//! counters  → wrappers, api, proxy, agents; life, guard (signals through proxy)
//! copytimes → wrappers, api, proxy, copyanswer, traced; bracket, guard
//! copyanswer → nothing
//! once      → nothing
//! unload    → counters; life, guard
//! proxy     → wrappers, api
//! kernels   → wrappers, api, traced; bracket, guard
//! agents    → wrappers, api
//! traced    → (tools::tracer_call)
//! wrappers  → unload, api, codeobjs; bracket
//! codeobjs  → nothing of hsa
//! api       → nothing
//! ```

pub mod agents;
pub mod api;
pub mod codeobjs;
pub mod copyanswer;
pub mod copytimes;
pub mod counters;
pub mod in_front;
pub mod intercept;
pub mod kernels;
pub mod mark;
pub mod names;
pub mod once;
pub mod onload;
pub mod proxy;
pub mod room;
mod traced;
pub mod unload;
pub mod wrappers;
