//! Radeon Compute Profiler's application trace (`.atp`): a `Key=Value`
//! header, then up to six sections (OpenCL API trace and timestamps, HSA API
//! trace, timestamps and kernel timestamps, perf markers), each but the HSA
//! kernel timestamps a list of per-thread blocks. `docs/atp-format.md`
//! describes the file and every place where cltap knowingly differs from RCP.
//!
//! The layout follows RCP's writers (GPUOpen-Tools/radeon_compute_profiler and
//! its CodeXL predecessor), named in each file: `header` (the header),
//! `write` (sections and blocks), `api` (API lines), `timestamps` (OpenCL
//! timestamp lines), `hsa` (HSA timestamp lines), `kernels` (HSA kernel
//! dispatch lines), `markers` (perf-marker lines), `quote` (argument text),
//! `fields` (columns, numbers, handles), `read` (the reader), `types` (API-type
//! numbers).

mod api;
mod fields;
mod header;
mod hsa;
mod kernels;
mod markers;
mod quote;
mod read;
mod syntax;
mod timestamps;
mod types;
mod write;

#[cfg(test)]
mod tests;

pub use api::write_api_call;
pub use header::{write_header, HeaderInfo};
pub use hsa::write_hsa_timestamp;
pub use kernels::write_kernel_dispatch;
pub use markers::write_marker;
pub use quote::push_quoted;
pub use read::read;
pub use syntax::ReadError;
pub use timestamps::write_timestamp;
pub use types::{api_name, api_type, hsa_api_name, hsa_api_type, rcp_is_enqueue, HASHED_FIRST, HASHED_LAST};
pub use write::{write, write_block_start, write_dispatch_count, write_section_start};

pub const API_SECTION: &str = "=====ocl API Trace Output=====";
pub const TIMESTAMP_SECTION: &str = "=====ocl Timestamp Output=====";
pub const HSA_API_SECTION: &str = "=====hsa API Trace Output=====";
pub const HSA_TIMESTAMP_SECTION: &str = "=====hsa Timestamp Output=====";
pub const HSA_KERNEL_SECTION: &str = "=====hsa Kernel Timestamp Output=====";
pub const MARKER_SECTION: &str = "=====Perfmarker Output=====";

/// The `TraceFileVersion` RCP's last releases write (`AtpFileWriter`'s 3.2).
pub const TRACE_FILE_VERSION: &str = "3.2";

/// Written for a whitespace-delimited field that would otherwise be empty: an
/// empty field would shift every field after it. RCP uses `NA` for unknown
/// values in its other files.
pub const EMPTY_FIELD: &str = "NA";

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Atp {
    /// `Key=Value` lines, in file order.
    pub header: Vec<(String, String)>,
    pub api: Vec<Block<ApiCall>>,
    pub timestamps: Vec<Block<Timestamp>>,
    /// `=====hsa API Trace Output=====`: the same lines as [`Atp::api`].
    pub hsa_api: Vec<Block<ApiCall>>,
    pub hsa_timestamps: Vec<Block<HsaTimestamp>>,
    /// `=====hsa Kernel Timestamp Output=====`, in file order (not per thread).
    pub kernel_dispatches: Vec<KernelDispatch>,
    pub markers: Vec<Block<Marker>>,
}

/// One thread's entries within a section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block<T> {
    pub tid: u64,
    pub items: Vec<T>,
}

/// `Ret = Name ( a;b;c )`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiCall {
    pub ret: String,
    pub name: String,
    /// Each argument already formatted (`0x7f…`, `NULL`, `[4]`, `[1024,1,1]`,
    /// `["text"]`, `CL_MEM_READ_WRITE|CL_MEM_COPY_HOST_PTR`, …).
    pub args: Vec<String>,
}

/// One timestamp line; times are host-CPU nanoseconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timestamp {
    /// RCP's API-type number, see [`api_type`].
    pub api_type: u32,
    pub name: String,
    pub start: u64,
    pub end: u64,
    /// Present for enqueue calls that succeeded (RCP writes none otherwise).
    pub enqueue: Option<Enqueue>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enqueue {
    /// `CL_COMMAND_*` value and name, e.g. 4592, `CL_COMMAND_NDRANGE_KERNEL`.
    pub cmd_type: u32,
    pub cmd_name: String,
    pub queued: u64,
    pub submit: u64,
    pub start: u64,
    pub end: u64,
    pub queue_id: u32,
    pub queue: u64,
    pub context_id: u32,
    pub context: u64,
    /// As given; the writer turns spaces (any whitespace) into `_`, the reader
    /// returns what the file holds.
    pub device: String,
    pub detail: Detail,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detail {
    /// Markers, barriers, unmaps, migrations, …: nothing after the device.
    None,
    /// NDRange and task dispatches. `local: None` is written `{NULL}`. A kernel
    /// with an empty name, no global size and no local size is RCP's
    /// native-kernel form: the handle alone (the function's address).
    Kernel { handle: u64, name: String, global: Vec<u64>, local: Option<Vec<u64>> },
    /// Data transfers and fills: bytes moved.
    Transfer { bytes: u64 },
}

/// One line of the HSA timestamp section; times are host-CPU nanoseconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HsaTimestamp {
    /// See [`hsa_api_type`]; its own numbering, not OpenCL's.
    pub api_type: u32,
    pub name: String,
    pub start: u64,
    pub end: u64,
    /// For `hsa_amd_memory_async_copy` (and `_rect`): the copy's own times.
    pub copy: Option<AsyncCopy>,
}

/// When an asynchronous copy started and completed (host-CPU nanoseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AsyncCopy {
    pub start: u64,
    pub end: u64,
}

/// One line of the HSA kernel-timestamp section: a kernel dispatch packet and
/// when it ran (host-CPU nanoseconds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelDispatch {
    /// The kernel symbol's name (demangled); kept with spaces and commas, the
    /// writer stores them as `&nbsp;` and `&comma;` and the reader turns them
    /// back.
    pub kernel_name: String,
    /// The packet's `kernel_object`.
    pub kernel_handle: u64,
    pub start: u64,
    pub end: u64,
    /// The agent's name; whitespace becomes `_` as in [`Enqueue::device`].
    pub agent_name: String,
    pub agent_handle: u64,
    /// Zero-based index of the queue the packet went through.
    pub queue_index: u64,
    /// Zero-based index of the agent among the GPU agents.
    pub agent_index: u32,
    /// `HSA_PACKET_TYPE_KERNEL_DISPATCH`, or the number of an unnamed type.
    pub packet_type: String,
    /// The packet's index in its queue.
    pub packet_id: u64,
    /// The packet as text, e.g. `{header,setup,…,{completion_signal}}`: the
    /// rest of the line, trimmed, line breaks written as spaces.
    pub packet: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Marker {
    /// Name and group are kept with spaces; the writer stores them as
    /// `&nbsp;` (RCP's convention) and the reader turns them back.
    Begin {
        name: String,
        time: u64,
        group: String,
    },
    End {
        time: u64,
    },
}
