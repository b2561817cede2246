//! The OpenCL types and constants the generated code names. opencl-sys is
//! used for types only: its `static` feature (which would link libOpenCL into
//! the layer) and `CL_HAS_ANON_UNION` (which reshapes the dispatch table) stay
//! off.

pub use opencl_sys::cl_egl::*;
pub use opencl_sys::*;
