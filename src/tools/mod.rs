//! What cltap offers tool libraries: loading them (`ROCP_TOOL_LIB`),
//! handing them the trace's records in buffers (after ROCprofiler-SDK's buffered services), the
//! tracer API (after Level Zero's tracer) and rocprofiler v1's library API. Plain Rust; the C ABI lives
//! in the layer (`icd-layer/src/tools/`).

pub mod buffer;
pub mod buffer_feed;
pub mod buffer_registry;
pub mod rocprofiler;
pub mod toollib;
pub mod toollib_end;
pub mod toollib_settings;
pub mod tracer;
pub mod tracer_ids;
mod tracer_object;
pub(crate) mod tracer_thread;
