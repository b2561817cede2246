//! The model of cltap's API descriptions (`api/opencl.api`, grammar in
//! `api/FORMAT.md`; `api/hsa.api`, its additions in `api/HSA.md`) and their
//! parser, plus a scanner of ROCr's `hsa_api_trace.h` that the build checks
//! `api/hsa.api` against, and the writer of the tracer API's C header
//! (`cheader`). Build scripts turn the model into code; nothing here runs
//! inside the layer.

pub mod cheader;
pub mod cproto;
pub mod hsa_header;
mod infer;
mod parse;
pub mod types;

pub use parse::{parse, parse_hsa, ParseError};

/// The HSA API tables of `hsa_api_trace.h`, in `HsaApiTable`'s order, by the
/// names `api/hsa.api`'s `@table` sections give them.
pub const HSA_TABLES: [&str; 4] = ["core", "amd", "finalizer", "image"];

/// One `@table` section of `api/hsa.api`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    pub name: String,
    /// Index in `Api::functions` of its entry 0.
    pub first: usize,
    pub entries: usize,
    /// Line of the `@table` header.
    pub line: usize,
}

/// What a parameter means to the layer. Decided once, here, so that the
/// wrappers, the ICD-mode handle translation and the argument capture agree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// By-value integer, enum or bitfield.
    Scalar,
    /// By-value object handle.
    Handle,
    /// `const T*` holding `len` elements.
    InArray { len: Len },
    /// `const void*` holding `len` bytes.
    InBytes { len: Len },
    /// `const char*`.
    InString,
    /// `const char**` with `len` strings.
    InStrings { len: Len },
    /// A pointer cltap never reads (host memory, opaque structs).
    HostPtr,
    /// Non-const `T*` receiving one value.
    OutValue,
    /// Non-const `T*` receiving one handle (`cl_event* event`).
    OutHandle,
    /// Non-const `T*` receiving up to `cap` elements, the total in `count`.
    OutArray { cap: Len, count: Option<String> },
    /// `void* param_value` of `size` bytes, shaped by the `param_name` parameter.
    InfoResult { size: String },
    /// `cl_int* errcode_ret`.
    Errcode,
    /// Zero-terminated property list of the given kind.
    Properties(PropKind),
    /// A function pointer the driver calls back.
    Callback(CallbackKind),
    /// The `void* user_data` handed to the preceding callback.
    UserData,
    /// A struct of `size` bytes passed by value (HSA, `[struct=N]`): carried
    /// through unchanged, not recorded.
    ByValue { size: u64 },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Len {
    Param(String),
    Const(u64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PropKind {
    Context,
    Queue,
    Mem,
    Sampler,
    Pipe,
    Partition,
    Semaphore,
    CommandBuffer,
    MemIntel,
    Command,
    /// AMD's perf-counter properties, (name, value) pairs of `cl_ulong`;
    /// written `[props]`, as AMD's header declares the list non-const.
    PerfCounterAmd,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallbackKind {
    ContextNotify,
    ProgramNotify,
    EventNotify,
    MemNotify,
    ContextDestructor,
    SvmFree,
    NativeKernel,
    /// Any HSA callback (api/HSA.md lists them): only forwarded and printed.
    Hsa,
}

/// The result a function returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetKind {
    /// `cl_int` status code.
    Status,
    /// A handle; failures are reported through `errcode_ret`.
    Handle,
    /// `void*`.
    Pointer,
    /// `void`.
    Void,
    /// Any other scalar.
    Scalar,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dispatch {
    /// The parameter at this index selects the driver.
    Param(usize),
    /// No parameter selects a driver; the layer handles the call itself.
    None,
}

#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    /// The C type as written, whitespace-normalised (`const size_t*`).
    pub c_type: String,
    pub role: Role,
}

impl Param {
    /// The C type with one level of pointer and `const` removed.
    pub fn pointee(&self) -> &str {
        types::pointee(&self.c_type)
    }
}

#[derive(Debug, Clone)]
pub struct Function {
    pub name: String,
    /// Index in `struct _cl_icd_dispatch`, or `None` for extension-only
    /// entries; for HSA, the entry's index in its table.
    pub slot: Option<usize>,
    /// The extension (OpenCL), or the table (HSA).
    pub ext: String,
    pub ret_type: String,
    pub ret: RetKind,
    pub params: Vec<Param>,
    pub dispatch: Dispatch,
    /// Slot that exists only on Windows (D3D/DX9 sharing).
    pub windows_only: bool,
    /// Implemented by cltap itself (its own extensions), never by a driver.
    pub local: bool,
    /// Launches an NDRange: a successful call with a NULL local size has the
    /// driver's choice recorded (`[lws]`).
    pub lws: bool,
    /// HSA `[init]`: the runtime loads its tools (cltap among them) inside
    /// the first call of this function (`hsa_init`).
    pub init: bool,
    /// HSA `[shutdown]`: the runtime unloads its tools inside this call
    /// (`hsa_shut_down`).
    pub shutdown: bool,
    /// Line of the declaration in the description, for messages.
    pub line: usize,
}

impl Function {
    pub fn param_index(&self, name: &str) -> Option<usize> {
        self.params.iter().position(|p| p.name == name)
    }

    /// True when the call has a `cl_event*` output and so gets a command id.
    pub fn has_event_out(&self) -> bool {
        self.params.iter().any(|p| p.role == Role::OutHandle && p.pointee() == "cl_event")
    }
}

#[derive(Debug, Clone)]
pub struct Api {
    pub functions: Vec<Function>,
    /// HSA: the `@table` sections in file order (empty for OpenCL).
    pub tables: Vec<Table>,
}

/// The number of entries in the dispatch table cltap builds.
pub const DISPATCH_SLOTS: usize = 150;

impl Api {
    pub fn by_slot(&self) -> Vec<Option<&Function>> {
        let mut v = vec![None; DISPATCH_SLOTS];
        for f in &self.functions {
            if let Some(s) = f.slot {
                v[s] = Some(f);
            }
        }
        v
    }
}
#[cfg(test)]
mod cproto_tests;
