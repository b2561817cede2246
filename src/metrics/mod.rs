//! Hardware-counter metrics as rocprofiler v1 defines them (`ROCP_METRICS`
//! XML files, `ROCP_INPUT` request files), in plain Rust: reading the files,
//! resolving derived expressions down to AQLprofile events, splitting the
//! events into passes, and computing values from collected counts.
//!
//! The collector's view:
//!
//! ```ignore
//! let cat = Catalog::load(None, "gfx906:sramecc+:xnack-", &backend_blocks)?;
//! for w in cat.warnings() { eprintln!("{w}"); }
//! let plan = cat.plan(&["GPUBusy", "SQ_WAVES"])?;
//! for pass in plan.passes() { /* program AQLprofile with these events */ }
//! let v = plan.evaluate("GPUBusy", &values, &consts); // values: Event -> u64
//! ```
//!
//! docs/metrics.md describes the syntax and the decisions (precedence,
//! division by zero, instances, passes).

mod blocks;
mod catalog;
mod consts;
mod error;
mod eval;
mod explain;
pub mod expr;
mod input;
mod plan;
pub mod quirk;
mod syntax;
mod xml;

pub use blocks::{gfx9_defaults, gfx9_defaults_for, Block, BlockCounts, BlockInfo, StaticBlocks};
pub use catalog::{Catalog, Counter, Derived, Metric, MetricKind, Ref, Target, DEFAULT_METRICS, DEFAULT_METRICS_NAME};
pub use consts::{Const, Consts};
pub use error::{MetricsError, Origin};
pub use eval::{event_label, Event, Request};
pub use explain::{describe_plan, explain};
pub use input::{parse_input, read_input, InputFile, Requested};
pub use plan::{Plan, Planned};

#[cfg(test)]
mod tests;
