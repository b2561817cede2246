//! The record pipeline and the API log: capture on the application's
//! threads, per-thread buffers, a background writer, the seed-004 printer.

pub mod atp;
pub mod buffers;
pub mod capture;
pub mod enums;
pub mod names;
pub mod printer;
pub mod record;
pub mod timeline;
pub mod tsc;
pub mod writer;
