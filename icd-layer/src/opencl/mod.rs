//! OpenCL: loader-layer mode, ICD mode and everything they call. The
//! wrappers and tables are generated from `api/opencl.api` (see build.rs);
//! `lib.rs` draws how these modules import one another.

pub mod api;
pub mod controls;
pub mod devtime;
pub mod drivers;
pub mod dumps;
pub mod exts;
pub mod front;
pub mod handles;
pub mod icd;
pub mod kinfo;
pub mod layer;
pub mod lws;
pub mod markers;
pub mod next;
pub mod programs;
pub mod trampolines;
