//! The C ABI of cltap's tool support: the buffer API (`include/cltap_buffer.h`)
//! and the loading of `ROCP_TOOL_LIB` tools at start-up. The logic is in the
//! core (`cltap::tools`).

pub mod buffer;
pub mod rocprofiler;
pub mod toollib;
pub mod tracer;
pub mod tracer_call;
