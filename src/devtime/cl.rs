//! The OpenCL event queries that device timing makes of each command
//! (its status, its command type, its four profiling times), named once
//! for the layer that makes them and for the bench that measures what the
//! driver charges for them.

pub const CL_EVENT_COMMAND_TYPE: u32 = 0x11D1;
pub const CL_EVENT_COMMAND_EXECUTION_STATUS: u32 = 0x11D3;
/// The first of the four profiling times (QUEUED, SUBMIT, START, END).
pub const CL_PROFILING_COMMAND_QUEUED: u32 = 0x1280;
