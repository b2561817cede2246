//! `ROCP_TOOL_LIB` in the layer: the tools are loaded once per process,
//! right after the configuration is first read, which is the start-up of
//! whichever API comes first: HSA's `OnLoad` or OpenCL's initialisation
//! (`clInitLayer`, or ICD mode's driver loading). Their `OnUnloadTool`
//! runs from `cltap::tools::toollib_end`, before cltap closes its files.
//!
//! A tool's load function runs inside that start-up (as rocprofiler's runs
//! inside `hsa_init`): it may create buffers and read its settings, but must
//! not call OpenCL or HSA.

use cltap::config::Config;
use std::sync::atomic::{AtomicBool, Ordering};

static STARTED: AtomicBool = AtomicBool::new(false);

/// Loads the tools once. `recording` false (a bad setting: cltap is a pure
/// pass-through) loads none. A call made while they load (by a tool, or
/// by another thread) returns at once.
#[inline]
pub fn load_once(cfg: &Config, recording: bool) {
    if STARTED.load(Ordering::Relaxed) || STARTED.swap(true, Ordering::AcqRel) {
        return;
    }
    if !recording || cfg.tool_libs.is_empty() {
        return;
    }
    let settings = cltap::tools::toollib_settings::RocprofilerSettings::offered(cfg.hsa_mode());
    crate::guard::guard(Vec::new(), || cltap::tools::toollib::load_all(&cfg.tool_libs, settings));
}

/// The HSA interception mode in effect: the configuration's, raised to
/// what a tool asked for in its settings.
pub fn hsa_mode(cfg: &Config) -> u8 {
    cfg.hsa_mode()
        .max(cltap::tools::toollib::requested_hsa_mode())
        .max(super::rocprofiler::api_queue::requested_hsa_mode())
}
