//! The C ABI of cltap's tool support: the buffer API (`include/cltap_buffer.h`)
//! and the loading of `ROCP_TOOL_LIB` tools at start-up. The logic is in the
//! core (`cltap::tools`).

pub mod buffer;
pub mod rocprofiler;
pub mod toollib;
pub mod tracer;
pub mod tracer_call;

/// The configuration, asked for by a tool-facing entry (a tool may call
/// cltap before any OpenCL or HSA call): the tools load with it.
pub fn config() -> &'static cltap::config::Config {
    crate::fork::register();
    crate::life::start_tools_with(toollib::load_once);
    crate::life::config()
}

/// Whether cltap records (see `life::recording`), asked the same way.
pub fn recording() -> bool {
    config();
    crate::life::recording()
}
