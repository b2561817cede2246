//! Tests of the metrics library that span several of its files: the reader
//! (good files and every malformed case with its message), the evaluator
//! (property tests against a reference, precedence, division by zero,
//! cycles), the planner, and the shipped default file.

mod defaults;
mod evaluator;
mod planner;
mod reader;

use super::{gfx9_defaults, Catalog, MetricsError};
use std::path::Path;

/// Loads `text` as `m.xml` for `gpu` with the gfx906 block counts.
fn load(text: &str, gpu: &str) -> Result<Catalog, MetricsError> {
    Catalog::from_text("m.xml", text, Path::new("."), gpu, &gfx9_defaults())
}

/// The message of a load that must fail.
fn fails(text: &str, gpu: &str) -> String {
    match load(text, gpu) {
        Ok(_) => panic!("loaded:\n{text}"),
        Err(e) => e.to_string(),
    }
}
