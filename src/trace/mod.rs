//! The record pipeline: capture on the application's threads, in place,
//! into their chunks of the binary trace (`file`, `local`); the trace's
//! life (`writer`); rendering the API log, the timeline and the `.atp` from
//! it (`render`, `printer`, `timeline`, `atp`).

pub mod atp;
pub mod buffers;
pub mod capture;
pub mod enums;
pub mod file;
pub mod hsa_enums;
pub mod local;
pub mod names;
pub mod printer;
pub mod record;
pub mod render;
pub mod timeline;
pub mod tsc;
pub mod writer;
