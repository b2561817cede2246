//! What one run counts. The requested names (`CLTAP_COUNTERS`, plus the
//! metrics of a `ROCP_INPUT` file) are resolved against the metrics catalog
//! for the GPU (`ROCP_METRICS`, else cltap's built-in file) and split into
//! passes by the backend's counter slots; a run collects the events of its
//! pass (`CLTAP_COUNTER_PASS`).

use crate::config::Config;
use crate::hsa::aqlprofile;
use crate::metrics::{BlockInfo, Catalog, MetricsError};

/// One run's share of a counter request on one GPU.
#[derive(Debug, Clone)]
pub struct PassSetup {
    /// This pass's events, as AQLprofile takes them.
    pub events: Vec<aqlprofile::Event>,
    /// How many runs the whole request needs.
    pub passes: u32,
    /// The catalog's warnings (e.g. an expression rocprofiler would read
    /// differently), to print once.
    pub warnings: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum PassError {
    #[error(transparent)]
    Metrics(#[from] MetricsError),
    #[error("CLTAP_COUNTER_PASS={pass} but the request needs only {passes} pass(es)")]
    NoSuchPass { pass: u32, passes: u32 },
}

/// The events of `cfg.counter_pass` for `names` on the GPU called `gpu`
/// (its agent name, e.g. `gfx906`), with the block counts `blocks` gives.
pub fn hsa_pass(cfg: &Config, names: &[String], gpu: &str, blocks: &dyn BlockInfo) -> Result<PassSetup, PassError> {
    let cat = Catalog::load(cfg.metrics_file.as_deref(), gpu, blocks)?;
    let warnings = cat.warnings().to_vec();
    let plan = cat.plan(names)?;
    let passes = plan.passes().len() as u32;
    let Some(events) = plan.passes().get(cfg.counter_pass as usize) else {
        return Err(PassError::NoSuchPass { pass: cfg.counter_pass, passes });
    };
    let events = events.iter().map(|e| e.to_aql()).collect();
    Ok(PassSetup { events, passes, warnings })
}
