//! `cltap replay FOLDER`: a captured enqueue (`CLTAP_CAPTURE`) run again
//! without the application, on a driver of the user's choice, and its
//! results compared with the captured ones. The driver is called straight
//! through its objects' dispatch tables (`crate::dumps::cl`): an ICD
//! library named by `--driver`, or the loader's first platform.

#![deny(unsafe_op_in_unsafe_fn)]

mod objects;
mod run;

use crate::dumps::manifest::{Capture, FILE};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("{0}: {1}")]
    Read(PathBuf, std::io::Error),
    #[error("{0}: not a capture ({1})")]
    Manifest(PathBuf, serde_json::Error),
    #[error("{0}")]
    Driver(String),
    #[error("argument {0} cannot be replayed: {1}")]
    Arg(u32, String),
}

/// What a replay found: per buffer or image argument its comparison with
/// the captured contents after the enqueue, in argument order.
pub struct Outcome {
    pub device: String,
    pub results: Vec<(u32, crate::dumps::diff::Change)>,
}

impl Outcome {
    pub fn matches(&self) -> bool {
        self.results.iter().all(|(_, c)| *c == crate::dumps::diff::Change::Same)
    }
}

/// Where the replay runs.
pub enum Driver {
    /// An ICD library, by path.
    Library(PathBuf),
    /// The OpenCL loader (`libOpenCL.so.1`) and what its environment selects.
    Loader,
}

pub fn read(folder: &Path) -> Result<Capture, ReplayError> {
    let p = folder.join(FILE);
    let b = std::fs::read(&p).map_err(|e| ReplayError::Read(p.clone(), e))?;
    serde_json::from_slice(&b).map_err(|e| ReplayError::Manifest(p, e))
}

/// Runs the capture in `folder` on `driver`; the replay's contents after
/// the enqueue go to `out` (`after/a<I>.bin`) when given.
pub fn replay(folder: &Path, driver: &Driver, out: Option<&Path>) -> Result<Outcome, ReplayError> {
    let c = read(folder)?;
    // SAFETY: the driver's entries are called as OpenCL defines them, with
    // handles it made, inside `run`.
    unsafe { run::run(folder, &c, driver, out) }
}
