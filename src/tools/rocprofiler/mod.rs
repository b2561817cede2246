//! rocprofiler v1's library API (rocprofiler's library API documentation; the ABI of ROCm 5.x's
//! `inc/rocprofiler.h`), in plain Rust: the C types ([`abi`]), errors and
//! the per-thread last error ([`error`]), contexts planned into groups with
//! the metrics catalog ([`context`]), the open contexts ([`registry`]), one
//! dispatch's collection for a tool ([`collect`]) and the info API over the
//! catalog ([`info`]), the context pool ([`pool`]) and the rest of the
//! header's types ([`abi_ext`]). The exported C functions are in the layer
//! (`icd-layer/src/tools/rocprofiler/`); docs/rocprofiler-v1.md says what
//! is supported and what returns an error.
//!
//! ```text
//! collect → context, error      registry → context, error
//! context → abi, error, metrics info → abi, error, metrics
//! pool → abi_ext, error
//! ```

pub mod abi;
pub mod abi_ext;
pub mod collect;
pub mod context;
pub mod error;
pub mod info;
pub mod pool;
pub mod registry;

#[cfg(test)]
mod pool_tests;
#[cfg(test)]
mod tests;
