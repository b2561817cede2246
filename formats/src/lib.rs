//! Every file format cltap writes, each with a reader; round-trip tests show
//! that the two agree.

pub mod apilog;
pub mod atp;
pub mod cltrace;
pub mod digits;
pub mod memory;
pub mod perf;
pub mod pftrace;
pub mod rocpd;
#[cfg(test)]
mod test_rng;
mod text;
pub use text::escape_controls;
