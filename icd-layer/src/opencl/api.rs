//! OpenCL's function names, ids and dispatch slot numbers, generated from
//! `api/opencl.api` (see build.rs). Plain constants: this imports nothing.

include!(concat!(env!("OUT_DIR"), "/api.rs"));
