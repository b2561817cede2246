//! Per-dispatch hardware counters and kernel statistics: which events a run
//! counts ([`pass`]), the rows a run's trace gives ([`collect`], [`row`]),
//! the join between an NDRange and its HSA dispatch ([`join`]) and between
//! the runs of a multi-pass request ([`passes`]), and the `.csv`, `.occupancy` and `results.csv` files
//! ([`files`]). docs/counters.md describes the whole.

pub mod collect;
pub mod files;
pub mod join;
pub mod pass;
pub mod passes;
pub mod report;
pub mod row;
