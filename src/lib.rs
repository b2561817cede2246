//! cltap's core: everything the layer does that is not C ABI. It is plain Rust
//! and is unit-tested without a driver; `icd-layer/` is the thin shell that
//! exposes it to loaders and applications.

pub mod atp_input;
pub mod bounded;
pub mod calls;
pub mod config;
pub mod controls;
pub mod counters;
pub mod decode;
pub mod devtime;
pub mod diag;
pub mod diff;
pub mod dumps;
pub mod exts;
pub mod fastpath;
pub mod fork;
#[doc(hidden)]
pub mod fuzz;
pub mod hsa;
pub mod icd;
pub mod icd_table;
pub mod kfilter;
pub mod memory;
pub mod meta;
pub mod metrics;
pub mod naming;
pub mod normalize;
pub mod occupancy;
pub mod panics;
pub mod programs;
pub mod render;
pub mod replay;
pub mod report;
pub mod report_ranks;
pub mod rocpd_report;
pub mod summary;
pub mod switched;
pub mod sys;
pub mod tools;
pub mod trace;
pub mod window;
