//! OpenCL's part in the layer's start-up and finish. Every OpenCL path that
//! starts the layer (`clInitLayer*`, ICD mode's driver loading) asks for
//! the configuration here, which first joins OpenCL's [`Front`] to the end
//! of the process.

use super::{api, devtime, exts};
use crate::life::{self, Front};
use cltap::config::Config;

static OPENCL: Front = Front { drain: devtime::drain, notes, hsa: None };

pub fn config() -> &'static Config {
    // The core's metadata and the layer's wrappers come from one description.
    debug_assert!(api::NAMES.iter().zip(cltap::meta::FUNCTIONS.iter()).all(|(a, b)| *a == b.name));
    life::join(&OPENCL);
    crate::fork::register();
    life::start_tools_with(crate::tools::toollib::load_once);
    life::config()
}

fn notes() -> Vec<String> {
    let unknown = exts::unknown_extensions();
    let mut notes = Vec::new();
    if !unknown.is_empty() {
        notes.push(format!("extension functions unknown to cltap, passed through unrecorded: {}", unknown.join(", ")));
    }
    notes
}
