//! HSA facts cltap needs beyond the API description: the AQL packets that
//! pass through intercept queues, and what is recorded of each dispatch.
//! Plain Rust; the layouts are checked against Debian's `hsa.h` by a test.

pub mod aqlprofile;
pub mod codeobj;
pub mod kd;
pub mod packet;
