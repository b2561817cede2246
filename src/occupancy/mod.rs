//! Theoretical occupancy: how many waves of a dispatch a compute unit can
//! hold at once, what limits them, and the `.occupancy` row that reports it.
//! A pure function of the device's limits, the kernel's resource use and the
//! launch's sizes; `docs/occupancy.md` gives the rules and their sources.
//!
//! `limits` (what a device offers, with AMD presets), `model` (the
//! calculation), `row` (to the file format).

mod limits;
mod model;
mod row;

#[cfg(test)]
mod tests;

pub use limits::{gfx_ip_major, DeviceLimits};
pub use model::{occupancy, KernelUse, Launch, Limiter, Occupancy};
