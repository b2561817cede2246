//! The capture path: records made on the application's threads, in place,
//! into their chunks of the binary trace (`file`, `local`, `capture`); the
//! trace's life (`writer`), which hands sealed chunks to `crate::render`;
//! `process` holds what needs both a thread's state and the trace.

pub mod amd_enums;
pub mod buffers;
pub mod capture;
pub mod delivered;
pub mod enums;
pub mod file;
pub mod hsa_clock;
pub mod hsa_enums;
pub mod local;
pub mod names;
pub mod process;
pub mod record;
pub mod settings;
pub mod tsc;
pub mod writer;
