//! The call record: what the hot path writes into a chunk and the renderer
//! reads. Everything is 8-byte aligned; a record is a header, one word per
//! argument, then the captured contents behind pointer arguments.
//!
//! A record is written in two phases. Before the call is forwarded it holds
//! the header (thread, function, start time, command id) and the argument
//! words, without [`FLAG_DONE`]; after the call returns, the captures follow
//! and the header is completed (end time, result, [`FLAG_DONE`]). A record
//! without [`FLAG_DONE`] is a call that never returned.

/// Largest record; longer captures are truncated to fit.
pub const MAX_RECORD: usize = 8192;

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Header {
    /// Whole record, bytes, a multiple of 8.
    pub len: u32,
    pub fn_id: u16,
    pub nargs: u8,
    pub flags: u8,
    pub tid: u32,
    /// What the record describes: [`KIND_OPENCL_CALL`] or
    /// [`KIND_HSA_CALL`]; other values are kept for device records.
    pub kind: u16,
    pub _pad: u16,
    pub cmd_id: u64,
    pub t0: u64,
    pub t1: u64,
    pub ret: u64,
}

pub const HEADER: usize = std::mem::size_of::<Header>();
pub const FLAG_CMD: u8 = 1;
/// The call succeeded, so the contents behind its pointers were captured.
pub const FLAG_OK: u8 = 2;
/// The call returned and the record is complete.
pub const FLAG_DONE: u8 = 4;
/// The record was completed elsewhere (later in the thread's records),
/// because calls made inside this one (callbacks) came after it.
pub const FLAG_MOVED: u8 = 8;
/// A dispatch (`KIND_HSA_DISPATCH`) or an NDRange's kernel statistics
/// (`KIND_KERNEL_INFO`) of a kernel outside the kernel filter
/// (`CLTAP_KERNEL_*`): it was neither counted nor timed.
pub const FLAG_FILTERED: u8 = 16;

/// An OpenCL call; `fn_id` indexes `api/opencl.api`'s functions.
pub const KIND_OPENCL_CALL: u16 = 0;
/// An HSA call; `fn_id` indexes `api/hsa.api`'s functions (its own id
/// space). HSA calls take no command id: their `cmd_id` (without
/// [`FLAG_CMD`]) is the call's number among the HSA calls its thread
/// opened, from 1, which a [`KIND_HSA_DISPATCH`] record names in
/// [`DISPATCH_CALL`] (0 in traces older than that word).
pub const KIND_HSA_CALL: u16 = 1;
/// A kernel dispatch seen by cltap's HSA queue interceptor
/// (`ROCP_HSA_INTERCEPT=1|2`): not a call. `fn_id` is 0, `cmd_id` a
/// process-wide dispatch number (from 1), `t0`/`t1` the dispatch's begin and
/// end (the agent's profiling times, ns; 0 without timestamps), and the
/// argument words are indexed by the `DISPATCH_*` constants below.
pub const KIND_HSA_DISPATCH: u16 = 2;
/// The times of one `hsa_amd_memory_async_copy` or
/// `hsa_amd_memory_async_copy_rect` (`CLTAP_ATP=1` only): not a call.
/// `fn_id` is 0, `t0`/`t1` the copy's own start and end
/// (`hsa_amd_profiling_get_async_copy_time`, ns of the runtime's system
/// clock), argument word 0 the calling thread's id, word 1 the call's
/// ordinal among that thread's recorded calls of the same function (from 0;
/// also `cmd_id`) and word 2 which function ([`COPY_PLAIN`] or
/// [`COPY_RECT`]; absent in older traces: plain): the link to its call
/// record.
pub const KIND_HSA_COPY: u16 = 3;
/// Argument words of a [`KIND_HSA_COPY`] record.
pub const COPY_TID: usize = 0;
pub const COPY_ORDINAL: usize = 1;
pub const COPY_FN: usize = 2;
/// `hsa_amd_memory_async_copy`.
pub const COPY_PLAIN: u64 = 0;
/// `hsa_amd_memory_async_copy_rect`.
pub const COPY_RECT: u64 = 1;

/// One HSA agent, as the runtime described it when cltap was loaded
/// (`OnLoad`): not a call. `fn_id` is 0, `cmd_id` the agent's place in
/// `hsa_iterate_agents`' order (from 0), the name a [`NAME_PARAM`] capture,
/// and the argument words are indexed by the `AGENT_*` constants below
/// (0 where the runtime did not answer).
pub const KIND_HSA_AGENT: u16 = 4;
/// Argument words of a [`KIND_HSA_AGENT`] record.
pub const AGENT_HANDLE: usize = 0;
/// Zero-based among the agents of the same device type (RCP's agent index).
pub const AGENT_INDEX: usize = 1;
/// `hsa_device_type_t`: 0 CPU, 1 GPU, 2 DSP.
pub const AGENT_DEVICE: usize = 2;
pub const AGENT_COMPUTE_UNITS: usize = 3;
pub const AGENT_SIMDS_PER_CU: usize = 4;
pub const AGENT_SHADER_ENGINES: usize = 5;
pub const AGENT_WAVEFRONT_SIZE: usize = 6;
pub const AGENT_MAX_WAVES_PER_CU: usize = 7;
pub const AGENT_MAX_CLOCK_MHZ: usize = 8;
pub const AGENT_WORKGROUP_MAX: usize = 9;
pub const AGENT_WORDS: usize = 10;

/// One dispatch's hardware counters (AQLprofile): not a call. `cmd_id` is
/// the dispatch's number (its [`KIND_HSA_DISPATCH`] record's), word 0 the
/// pass that counted them, then pairs of words: an event (block, instance
/// and event id packed as `cltap::hsa::aqlprofile::pack` does) and its value,
/// summed over the samples AQLprofile gave for it.
pub const KIND_HSA_COUNTERS: u16 = 5;
/// The counters this run collects (`CLTAP_COUNTERS` / `ROCP_INPUT`), once
/// per process: not a call. `cmd_id` is this run's pass (from 0), word 0 the
/// number of passes the request needs (0 when no device can count), word 1
/// the agent counted on (0 for OpenCL), and the [`NAME_PARAM`] capture the
/// requested names, comma-separated.
pub const KIND_COUNTER_PLAN: u16 = 6;
pub const PLAN_PASSES: usize = 0;
pub const PLAN_AGENT: usize = 1;
/// Then one word per block the GPU has: AQLprofile block id (bits 32..48),
/// instances (16..32) and counter slots (0..16), as the backend gave them.
pub const PLAN_BLOCKS: usize = 2;
/// What an OpenCL driver tells of the kernel of one NDRange (with
/// counters requested): not a call. `cmd_id` is the NDRange's command id,
/// the words are indexed by the `KINFO_*` constants (`u64::MAX` where the
/// driver did not answer), and the [`NAME_PARAM`] capture is the kernel's
/// function name and the device's name, separated by a tab.
pub const KIND_KERNEL_INFO: u16 = 7;
/// `CL_KERNEL_LOCAL_MEM_SIZE`.
pub const KINFO_LOCAL_MEM: usize = 0;
/// `CL_KERNEL_PRIVATE_MEM_SIZE`.
pub const KINFO_PRIVATE_MEM: usize = 1;
/// `CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE`.
pub const KINFO_PREFERRED_MULTIPLE: usize = 2;
/// `CL_KERNEL_WORK_GROUP_SIZE`.
pub const KINFO_WORK_GROUP_SIZE: usize = 3;
/// The device's `CL_DEVICE_MAX_COMPUTE_UNITS`, `CL_DEVICE_LOCAL_MEM_SIZE`
/// and `CL_DEVICE_MAX_WORK_GROUP_SIZE` (for the occupancy file).
pub const KINFO_DEVICE_CUS: usize = 4;
pub const KINFO_DEVICE_LOCAL_MEM: usize = 5;
pub const KINFO_DEVICE_MAX_WG: usize = 6;
/// `CL_DEVICE_TYPE`.
pub const KINFO_DEVICE_TYPE: usize = 7;
pub const KINFO_WORDS: usize = 8;

/// A kernel object's descriptor, once per kernel object, when the HSA
/// interceptor first sees it dispatched: not a call. `cmd_id` is the kernel
/// object, the 8 words its 64-byte AMDHSA kernel descriptor (as the AMD
/// loader extension gave it), the [`NAME_PARAM`] capture its name.
pub const KIND_HSA_KERNEL: u16 = 8;

/// A collection window opened or closed (`CLTAP_WINDOW*`,
/// `cltap_pause`/`cltap_resume`): not a call. `cmd_id` is the window's
/// number (from 1), `t0` and `t1` the trace clock at the change, word 0
/// [`WINDOW_OPEN`] or [`WINDOW_CLOSE`], word 1 the reason
/// (`cltap::window::Reason`).
pub const KIND_WINDOW: u16 = 9;
pub const WINDOW_OPEN: u64 = 1;
pub const WINDOW_CLOSE: u64 = 0;
/// A line of cltap's own for the API log (a program's files written, its
/// build options replaced): not a call. `fn_id` and `cmd_id` are 0,
/// `t0`/`t1` when it was written, the [`NAME_PARAM`] capture its text. The
/// event checks' and controls' notes have one word saying what they report
/// (`cltap::controls::NOTE_*`); the others have none.
pub const KIND_NOTE: u16 = 10;

/// One OpenCL command as the device ran it (device timing): not a call,
/// written when its profiling counters were read, on the thread that read
/// them. `fn_id` is the enqueue function (its index in `api/opencl.api`),
/// `cmd_id` the command id of the enqueue's call record, `t0`/`t1` the record
/// clock when that enqueue call began and ended, `ret` the status the command
/// ended with (`CL_COMPLETE`, 0, or a negative error, as an `i32`). The words
/// are indexed by the `COMMAND_*` constants; the [`NAME_PARAM`] capture is
/// the device's name, then a tab and the kernel's name for a kernel.
pub const KIND_CL_COMMAND: u16 = 11;
/// The application's queue and context handles.
pub const COMMAND_QUEUE: usize = 0;
pub const COMMAND_CONTEXT: usize = 1;
/// `CL_PROFILING_COMMAND_QUEUED`, `_SUBMIT`, `_START`, `_END`: the device's ns.
pub const COMMAND_QUEUED: usize = 2;
pub const COMMAND_SUBMIT: usize = 3;
pub const COMMAND_START: usize = 4;
pub const COMMAND_END: usize = 5;
/// The thread that enqueued it.
pub const COMMAND_TID: usize = 6;
/// `CL_EVENT_COMMAND_TYPE` (0 where the driver would not say).
pub const COMMAND_TYPE: usize = 7;
/// Bits saying which optional fields hold a value: [`COMMAND_HAS_TO_HOST`],
/// [`COMMAND_HAS_BYTES`], [`COMMAND_HAS_KERNEL`], [`COMMAND_HAS_LOCAL`].
pub const COMMAND_HAS: usize = 8;
/// Nanoseconds to add to the device's times to put them on `CLOCK_MONOTONIC`
/// (`clGetDeviceAndHostTimer`), as an `i64`.
pub const COMMAND_TO_HOST: usize = 9;
/// Bytes a transfer moved.
pub const COMMAND_BYTES: usize = 10;
/// How many global and local sizes follow (at most 3 each).
pub const COMMAND_GLOBAL_DIMS: usize = 11;
pub const COMMAND_LOCAL_DIMS: usize = 12;
/// The global sizes (words 13, 14, 15), then the local sizes (16, 17, 18).
pub const COMMAND_GLOBAL: usize = 13;
pub const COMMAND_LOCAL: usize = 16;
pub const COMMAND_WORDS: usize = 19;
pub const COMMAND_HAS_TO_HOST: u64 = 1;
pub const COMMAND_HAS_BYTES: u64 = 2;
pub const COMMAND_HAS_KERNEL: u64 = 4;
pub const COMMAND_HAS_LOCAL: u64 = 8;
/// An OpenCL command whose profiling counters could not be read: not a call.
/// `fn_id` is the enqueue function, `cmd_id` its command id, no words; the
/// [`NAME_PARAM`] capture says why.
pub const KIND_CL_UNTIMED: u16 = 12;
/// A fact of the process's end for the summary, written just before the
/// trace closes: not a call. `cmd_id` says which (the `END_*` constants);
/// the words and the [`NAME_PARAM`] capture are that fact's.
pub const KIND_END: u16 = 13;
/// A thread's OS name (`PR_GET_NAME`, at most 15 bytes), read once, when
/// the thread takes its first chunk (its first recorded call, or its first
/// after a `fork`): not a call. `cmd_id` 0, `t0` = `t1` when it was read,
/// no words, the name as the [`NAME_PARAM`] capture. A thread renamed later
/// keeps the name it had then.
pub const KIND_THREAD: u16 = 14;
/// Word 0: the commands that had not completed when the process ended.
pub const END_PENDING: u64 = 0;
/// A line of the summary's notes (an extension function the driver gave
/// that cltap does not know), as the capture.
pub const END_NOTE: u64 = 1;
/// Word 0: the HSA packets of the type the capture names.
pub const END_HSA_PACKETS: u64 = 2;
/// Word 0 a kernel object, word 1 its dispatches, word 2 1 when the
/// capture is its name.
pub const END_HSA_KERNEL: u64 = 3;
/// Word 0 a function's calls, word 1 its failed calls, the capture its
/// name: the summary's counts where it counts calls instead of timing them
/// ([`END_COUNTED`], or a trace that holds no call).
pub const END_TALLY: u64 = 4;
/// cltap was the process's HSA tool: the summary has the HSA packets and
/// kernels that follow (none when the runtime saw none).
pub const END_HSA: u64 = 5;
/// The trace does not hold every call (`CLTAP_ERRORS_ONLY`): the summary
/// counts them from the [`END_TALLY`] facts that follow.
pub const END_COUNTED: u64 = 6;
/// What the argument dumps did: words enqueues dumped, files, bytes, ns
/// the application's threads waited for them, enqueues captured and
/// arguments injected (`u64::MAX` where that control was off); the
/// capture the dumps' folder, a tab, the captures' folder.
pub const END_DUMPS: u64 = 7;

/// Argument words of a [`KIND_HSA_DISPATCH`] record.
pub const DISPATCH_AGENT: usize = 0;
/// `hsa_queue_t.id` of the queue the application submitted to.
pub const DISPATCH_QUEUE_ID: usize = 1;
/// The packet's index in that queue (its write index).
pub const DISPATCH_QUEUE_INDEX: usize = 2;
pub const DISPATCH_KERNEL_OBJECT: usize = 3;
/// Grid sizes x, y, z: words 4, 5, 6.
pub const DISPATCH_GRID: usize = 4;
/// Workgroup sizes x, y, z: words 7, 8, 9.
pub const DISPATCH_WORKGROUP: usize = 7;
pub const DISPATCH_PRIVATE_SEGMENT: usize = 10;
pub const DISPATCH_GROUP_SEGMENT: usize = 11;
/// `HSA_SYSTEM_INFO_TIMESTAMP` when the interceptor saw the packet (0
/// without timestamps).
pub const DISPATCH_TIME_DISPATCH: usize = 12;
/// `HSA_SYSTEM_INFO_TIMESTAMP` when its completion was seen (0 when not taken).
pub const DISPATCH_TIME_COMPLETE: usize = 13;
/// The thread that submitted the packet (the record itself may be written
/// on the runtime's signal thread, when its times are known); absent in
/// older traces.
pub const DISPATCH_TID: usize = 14;
/// The packet's completion signal as the application wrote it (the
/// `hsa_signal_t` handle; rocprof's `sig`); absent in older traces.
pub const DISPATCH_SIGNAL: usize = 15;
/// The queue's number among the intercept queues, from 0 in creation order
/// (rocprofiler v1's `queue_id`, rocprof's `queue-id`); absent in older traces.
pub const DISPATCH_QUEUE_NUMBER: usize = 16;
/// The HSA call, on thread [`DISPATCH_TID`], inside which the packet was
/// submitted (its record's `cmd_id`): the intercept handler runs inside the
/// doorbell store that submits the packets. 0 when no traced call was open
/// (a runtime's own thread, a call left out by the filter); absent in
/// older traces.
pub const DISPATCH_CALL: usize = 17;
/// Argument words of a dispatch record.
pub const DISPATCH_WORDS: usize = 18;
/// The capture `param` of a dispatch record's kernel name (a string), when
/// cltap knows it.
pub const NAME_PARAM: u8 = 255;

/// One captured content: `bytes` of data follow, padded to 8.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capture {
    pub param: u8,
    pub tag: u8,
    pub _pad: u16,
    pub bytes: u32,
    /// Elements or bytes the application had, before truncation.
    pub total: u64,
}

pub const CAPTURE: usize = std::mem::size_of::<Capture>();

#[repr(u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    /// An input array, element by element.
    Array = 1,
    /// Raw bytes (kernel argument values, fill patterns, IL, info answers).
    Bytes = 2,
    /// A string, without its NUL.
    Str = 3,
    /// One value written by the callee (`*errcode_ret`, `*event`, …).
    Out = 4,
    /// Elements written by the callee into an output array.
    OutArray = 5,
    /// A zero-terminated property list, terminator excluded.
    Props = 6,
    /// The local work size the driver chose for a NULL local size.
    LocalSize = 7,
}

impl Tag {
    pub fn from_u8(v: u8) -> Option<Tag> {
        Some(match v {
            1 => Tag::Array,
            2 => Tag::Bytes,
            3 => Tag::Str,
            4 => Tag::Out,
            5 => Tag::OutArray,
            6 => Tag::Props,
            7 => Tag::LocalSize,
            _ => return None,
        })
    }
}

pub const fn pad8(n: usize) -> usize {
    (n + 7) & !7
}

pub mod view;

pub use view::{Args, Captures, Data, View};

/// Why the bytes at some offset are not a record.
pub fn check(buf: &[u8]) -> Result<Header, String> {
    if buf.len() < HEADER {
        return Err(format!("{} bytes left, a record header needs {HEADER}", buf.len()));
    }
    // SAFETY: the buffer holds at least a header; read_unaligned copes with any address.
    let h: Header = unsafe { std::ptr::read_unaligned(buf.as_ptr() as *const Header) };
    let len = h.len as usize;
    if !len.is_multiple_of(8) || len < HEADER + 8 * h.nargs as usize {
        return Err(format!("record length {len} is not a multiple of 8 or is shorter than its {} arguments", h.nargs));
    }
    if len > buf.len() {
        return Err(format!("record length {len} runs past the end ({} bytes left)", buf.len()));
    }
    Ok(h)
}

/// A record that may not be complete: `buf` runs from the record to the end
/// of what its chunk holds (see [`view::read_last`]).
pub fn last(buf: &[u8]) -> Option<View<'_>> {
    let mut v = View::default();
    view::read_last(buf, &mut v).then_some(v)
}

/// Splits a buffer into records. Stops at the first malformed one.
pub fn records(mut buf: &[u8]) -> impl Iterator<Item = View<'_>> {
    std::iter::from_fn(move || {
        let h = check(buf).ok()?;
        let (rec, rest) = buf.split_at(h.len as usize);
        buf = rest;
        let mut v = View::default();
        view::read_wide(rec, h, &mut v);
        Some(v)
    })
}

/// Encodes a record (for tools and tests; the hot path writes in place).
/// `len` and `nargs` are set from what is given.
pub fn encode(h: &Header, args: &[u64], captures: &[(Capture, &[u8])]) -> Vec<u8> {
    let mut v = Vec::new();
    encode_into(&mut v, h, args, captures);
    v
}

/// [`encode`], appended to `out`, of any captures' data ([`View`]'s too).
pub fn encode_into<D: AsRef<[u8]>>(out: &mut Vec<u8>, h: &Header, args: &[u64], captures: &[(Capture, D)]) {
    let start = out.len();
    out.resize(start + HEADER, 0);
    for a in args {
        out.extend_from_slice(&a.to_ne_bytes());
    }
    for (c, d) in captures {
        let d = d.as_ref();
        let c = Capture { bytes: d.len() as u32, ..*c };
        // SAFETY: Capture is a plain repr(C) struct of integers.
        out.extend_from_slice(unsafe { std::slice::from_raw_parts(&c as *const Capture as *const u8, CAPTURE) });
        out.extend_from_slice(d);
        out.resize(start + pad8(out.len() - start), 0);
    }
    let h = Header { len: (out.len() - start) as u32, nargs: args.len() as u8, ..*h };
    // SAFETY: as above, for Header.
    out[start..start + HEADER]
        .copy_from_slice(unsafe { std::slice::from_raw_parts(&h as *const Header as *const u8, HEADER) });
}
