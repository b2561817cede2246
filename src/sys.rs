//! The OpenCL types and constants the generated code names. opencl-sys is
//! used for types only: its `static` feature (which would link libOpenCL into
//! the layer) and `CL_HAS_ANON_UNION` (which reshapes the dispatch table) stay
//! off.

pub use opencl_sys::cl_egl::*;
pub use opencl_sys::*;

/// AMD's perf-counter extension (`cl_profile_amd.h` of ROCm-OpenCL-Runtime),
/// which opencl-sys lacks.
#[allow(non_camel_case_types)]
pub type cl_perfcounter_property = cl_ulong;
#[allow(non_camel_case_types)]
pub type cl_perfcounter_info = cl_uint;
/// `struct { cl_DeviceClockMode_AMD clock_mode; }`: one 4-byte enum, passed
/// by value in one integer register as a `cl_uint` is.
#[allow(non_camel_case_types)]
pub type cl_set_device_clock_mode_input_amd = cl_uint;

/// AMD's other extensions' scalar types (`cl_thread_trace_amd.h`,
/// `cl_kernel_info_amd.h` and the `cl_ext.h` of ROCm-OpenCL-Runtime); the
/// thread-trace command name is a C enum, as wide as a `cl_uint`.
#[allow(non_camel_case_types)]
pub type cl_thread_trace_param = cl_uint;
#[allow(non_camel_case_types)]
pub type cl_threadtrace_info = cl_uint;
#[allow(non_camel_case_types)]
pub type cl_threadtrace_command_name_amd = cl_uint;
#[allow(non_camel_case_types)]
pub type cl_file_flags_amd = cl_uint;
#[allow(non_camel_case_types)]
pub type cl_file_info_amd = cl_uint;
#[allow(non_camel_case_types)]
pub type cl_kernel_info_amd = cl_uint;
