//! Per-dispatch hardware counters and kernel statistics: which events a run
//! counts ([`pass`]), the rows a run's trace gives ([`collect`], [`row`]),
//! the joins between an NDRange and its HSA dispatch and between passes
//! ([`join`]), and the `.csv`, `.occupancy` and `results.csv` files
//! ([`files`]). docs/counters.md describes the whole.

pub mod collect;
pub mod files;
pub mod join;
pub mod pass;
pub mod report;
pub mod row;
