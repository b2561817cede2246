//! The emulated AQLprofile: the `hsa_ven_amd_aqlprofile_*` functions of
//! `libhsa-amd-aqlprofile64.so`, which ROCr `dlopen`s to serve the `hsa_ven_amd_aqlprofile`
//! extension (`hsa_system_get_major_extension_table(0x202, 1, …)`). The launcher links them, from
//! this crate, into a library of that name. PMC profiles on the emulated gfx906 only (trace
//! profiles are refused); their start/stop/read packets carry the commands of [`crate::pm4`], which
//! the emulator's command processor runs, and the counters read [`crate::pmc`]'s invented model.
//!
//! `hsa_ven_amd_aqlprofile_start(profile, NULL)` sets the command and output buffer sizes in the
//! profile, as rocprofiler v1 expects; `get_info(COMMAND_BUFFER_SIZE / PMC_DATA_SIZE)` gives the same
//! numbers. A failure returns an `hsa_status_t` and leaves a message for `error_string` (per thread).

use std::cell::RefCell;
use std::ffi::{c_char, c_void, CString};
use std::sync::atomic::{AtomicU32, Ordering};

use cltap::hsa::aqlprofile::{self as aql, DataCallback, IdQuery, Pm4Packet, PmcData, Profile};

use crate::pm4::{self, Op};
use crate::pmc::{self, Event};

const SUCCESS: u32 = 0;
const INFO_BREAK: u32 = 1;
const ERROR: u32 = 0x1000;
const INVALID_ARGUMENT: u32 = 0x1001;
const INVALID_AGENT: u32 = 0x1004;
/// `HSA_AQLPROFILE_VERSION_MAJOR` of the 5.2.3 header: ROCr refuses a library with another.
const VERSION_MAJOR: u32 = 2;
const VERSION_MINOR: u32 = 0;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::new("no error").expect("no NUL"));
}

fn fail(status: u32, msg: String) -> u32 {
    LAST_ERROR.with(|e| *e.borrow_mut() = CString::new(msg.replace('\0', " ")).expect("NULs replaced"));
    status
}

/// Whether `agent` is the emulated gfx906: asks the ROCr this library was loaded into. ROCr is
/// looked up by its soname, not in the global scope: a library that ROCr came with may have been
/// loaded with RTLD_LOCAL (an OpenCL ICD, which the ICD loader opens so).
fn is_gfx906(agent: u64) -> bool {
    type GetInfo = unsafe extern "C" fn(u64, u32, *mut c_void) -> u32;
    // SAFETY: the already loaded ROCr (RTLD_NOLOAD), then a symbol by a NUL-terminated name.
    let f = unsafe {
        let rocr = libc::dlopen(c"libhsa-runtime64.so.1".as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD);
        let f = libc::dlsym(if rocr.is_null() { libc::RTLD_DEFAULT } else { rocr }, c"hsa_agent_get_info".as_ptr());
        if !rocr.is_null() {
            // The process keeps ROCr loaded: this only drops the reference NOLOAD took.
            libc::dlclose(rocr);
        }
        f
    };
    if f.is_null() {
        return false;
    }
    // SAFETY: ROCr's hsa_agent_get_info, with the signature hsa.h gives it.
    let get_info: GetInfo = unsafe { std::mem::transmute::<*mut c_void, GetInfo>(f) };
    let mut name = [0u8; 64];
    // SAFETY: HSA_AGENT_INFO_NAME (0) writes at most 64 bytes.
    let st = unsafe { get_info(agent, 0, name.as_mut_ptr() as *mut c_void) };
    st == SUCCESS && name.starts_with(b"gfx906\0")
}

fn events_of(p: &Profile) -> Vec<Event> {
    if p.events.is_null() {
        return Vec::new();
    }
    // SAFETY: the profile's array of `event_count` events.
    unsafe { std::slice::from_raw_parts(p.events, p.event_count as usize) }
        .iter()
        .map(|e| Event { block: e.block_name, index: e.block_index, counter: e.counter_id })
        .collect()
}

/// A PMC profile this library can run, with no more events on one block instance than it has
/// counter slots (callers split larger sets over passes). Gives its events and sample count.
fn check_profile(p: *const Profile) -> Result<(Profile, Vec<Event>, u32), u32> {
    // SAFETY: the caller's profile, if not null.
    let p = unsafe { p.as_ref() }.ok_or_else(|| fail(INVALID_ARGUMENT, "NULL profile".into()))?;
    if !is_gfx906(p.agent) {
        return Err(fail(INVALID_AGENT, "profile agent is not the emulated gfx906".into()));
    }
    if p.event_type != aql::EVENT_TYPE_PMC {
        return Err(fail(ERROR, format!("only PMC profiles are supported (type {})", p.event_type)));
    }
    let events = events_of(p);
    if events.is_empty() {
        return Err(fail(INVALID_ARGUMENT, "profile without events".into()));
    }
    for (i, e) in events.iter().enumerate() {
        if let Some(why) = pmc::problem(e) {
            return Err(fail(INVALID_ARGUMENT, format!("event {i} ({}, {}, {}): {why}", e.block, e.index, e.counter)));
        }
        let b = pmc::block(e.block).expect("valid events have a block");
        let same = events[..=i].iter().filter(|o| o.block == e.block && o.index == e.index).count() as u32;
        if same > b.slots {
            return Err(fail(
                INVALID_ARGUMENT,
                format!("more than {} events on {}[{}]: split them over several passes", b.slots, b.name, e.index),
            ));
        }
    }
    let samples = pmc::sample_count(&events);
    Ok((*p, events, samples))
}

fn check_buffers(p: &Profile, samples: u32) -> Result<(), u32> {
    let (cmd, data) = (pm4::command_size(p.event_count), pm4::data_size(samples));
    if p.command_buffer.ptr.is_null() || p.command_buffer.ptr as usize & 3 != 0 || p.command_buffer.size < cmd {
        return Err(fail(INVALID_ARGUMENT, format!("command buffer: {cmd} bytes, 4-aligned, needed")));
    }
    if p.output_buffer.ptr.is_null() || p.output_buffer.ptr as usize & 7 != 0 || p.output_buffer.size < data {
        return Err(fail(INVALID_ARGUMENT, format!("output buffer: {data} bytes, 8-aligned, needed")));
    }
    Ok(())
}

fn make_packet(op: Op, p: *const Profile, pkt: *mut Pm4Packet) -> u32 {
    let (p, events, samples) = match check_profile(p) {
        Ok(v) => v,
        Err(st) => return st,
    };
    if pkt.is_null() {
        return fail(INVALID_ARGUMENT, "NULL packet".into());
    }
    if let Err(st) = check_buffers(&p, samples) {
        return st;
    }
    let data = p.output_buffer.ptr as u64;
    if op == Op::Start {
        // No data until a stop or read ran.
        // SAFETY: the output buffer, checked above.
        unsafe { (*(data as *const AtomicU32)).store(0, Ordering::Release) };
    }
    let mut bytes = [0u8; 64];
    // SAFETY: the caller's 64-byte packet; header and completion signal are kept.
    unsafe { std::ptr::copy_nonoverlapping(pkt as *const u8, bytes.as_mut_ptr(), 64) };
    pm4::write(op, p.command_buffer.ptr as *mut u8, &events, data, p.output_buffer.size, &mut bytes);
    // SAFETY: as above.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), pkt as *mut u8, 64) };
    SUCCESS
}

#[no_mangle]
pub extern "C" fn hsa_ven_amd_aqlprofile_version_major() -> u32 {
    VERSION_MAJOR
}

#[no_mangle]
pub extern "C" fn hsa_ven_amd_aqlprofile_version_minor() -> u32 {
    VERSION_MINOR
}

#[no_mangle]
pub extern "C" fn hsa_ven_amd_aqlprofile_error_string(out: *mut *const c_char) -> u32 {
    if out.is_null() {
        return INVALID_ARGUMENT;
    }
    // The CString lives in this thread's slot until the next failure on the thread.
    LAST_ERROR.with(|e| unsafe { *out = e.borrow().as_ptr() });
    SUCCESS
}

#[no_mangle]
pub extern "C" fn hsa_ven_amd_aqlprofile_validate_event(
    agent: u64,
    event: *const aql::Event,
    result: *mut bool,
) -> u32 {
    ffi(|| {
        // SAFETY: the caller's event, if not null.
        let (Some(e), false) = (unsafe { event.as_ref() }, result.is_null()) else {
            return fail(INVALID_ARGUMENT, "validate_event: NULL event or result".into());
        };
        if !is_gfx906(agent) {
            return fail(INVALID_AGENT, "validate_event: not the emulated gfx906".into());
        }
        let why = pmc::problem(&Event { block: e.block_name, index: e.block_index, counter: e.counter_id });
        if let Some(why) = why {
            fail(SUCCESS, format!("event ({}, {}, {}): {why}", e.block_name, e.block_index, e.counter_id));
        }
        // SAFETY: checked non-null.
        unsafe { *result = why.is_none() };
        SUCCESS
    })
}

#[no_mangle]
pub extern "C" fn hsa_ven_amd_aqlprofile_start(p: *mut Profile, pkt: *mut Pm4Packet) -> u32 {
    ffi(|| {
        if !p.is_null() && pkt.is_null() {
            // The size query.
            return match check_profile(p) {
                Ok((_, _, samples)) => {
                    // SAFETY: checked non-null; the caller's profile.
                    unsafe {
                        (*p).command_buffer.size = pm4::command_size((*p).event_count);
                        (*p).output_buffer.size = pm4::data_size(samples);
                    }
                    SUCCESS
                }
                Err(st) => st,
            };
        }
        make_packet(Op::Start, p, pkt)
    })
}

#[no_mangle]
pub extern "C" fn hsa_ven_amd_aqlprofile_stop(p: *const Profile, pkt: *mut Pm4Packet) -> u32 {
    ffi(|| make_packet(Op::Stop, p, pkt))
}

#[no_mangle]
pub extern "C" fn hsa_ven_amd_aqlprofile_read(p: *const Profile, pkt: *mut Pm4Packet) -> u32 {
    ffi(|| make_packet(Op::Read, p, pkt))
}

/// Legacy (gfx8) devices only; the emulated gfx906 never needs it.
#[no_mangle]
pub extern "C" fn hsa_ven_amd_aqlprofile_legacy_get_pm4(_pkt: *const Pm4Packet, _data: *mut c_void) -> u32 {
    fail(ERROR, "legacy_get_pm4: only for gfx8, not the emulated gfx906".into())
}

#[no_mangle]
pub extern "C" fn hsa_ven_amd_aqlprofile_iterate_data(
    p: *const Profile,
    cb: Option<DataCallback>,
    data: *mut c_void,
) -> u32 {
    ffi(|| {
        let (p, events, samples) = match check_profile(p) {
            Ok(v) => v,
            Err(st) => return st,
        };
        let Some(cb) = cb else {
            return fail(INVALID_ARGUMENT, "iterate_data: NULL callback".into());
        };
        let out = p.output_buffer.ptr as *const u8;
        if out.is_null() || p.output_buffer.size < pm4::data_size(samples) {
            return fail(INVALID_ARGUMENT, "iterate_data: output buffer missing or too small".into());
        }
        // SAFETY: the output buffer, checked to hold the header and the samples.
        let (magic, count) =
            unsafe { ((*(out as *const AtomicU32)).load(Ordering::Acquire), (out.add(4) as *const u32).read()) };
        if magic != pm4::DATA_MAGIC {
            return fail(ERROR, "iterate_data: no counter data: the profile's stop or read packet has not run".into());
        }
        if count != samples {
            return fail(
                ERROR,
                format!("iterate_data: the data holds {count} samples, the profile's events {samples}"),
            );
        }
        // SAFETY: the profile's events (checked non-empty).
        let raw = unsafe { std::slice::from_raw_parts(p.events, p.event_count as usize) };
        let mut k = 0usize;
        for (e, raw) in events.iter().zip(raw) {
            // sample_id counts within the event: a consumer sums an event's samples.
            for s in 0..pmc::samples(e) {
                let mut info = PmcData::default();
                info.sample_id = s;
                info.event = *raw;
                // SAFETY: sample k of the output buffer.
                info.result = unsafe { (out.add(pm4::DATA_HEADER as usize + 8 * k) as *const u64).read_unaligned() };
                k += 1;
                // SAFETY: the caller's callback with its own data.
                match unsafe { cb(aql::INFO_PMC_DATA, &mut info, data) } {
                    SUCCESS => {}
                    INFO_BREAK => return SUCCESS,
                    st => return st,
                }
            }
        }
        SUCCESS
    })
}

/// get_info(PMC_DATA): sample `sample_id` of the event in the query, or their sum for u32::MAX.
///
/// # Safety
/// Called by the iteration with a live sample `got` and the `arg` its caller gave it.
unsafe extern "C" fn pick_sample(kind: u32, got: *mut PmcData, arg: *mut c_void) -> u32 {
    // SAFETY: `got`, `(arg as *mut PmcData)` are valid for this access (# Safety).
    let (got, wanted) = unsafe { (&*got, &mut *(arg as *mut PmcData)) };
    if kind != aql::INFO_PMC_DATA || got.event != wanted.event {
        return SUCCESS;
    }
    if wanted.sample_id == u32::MAX {
        wanted.result += got.result;
        return SUCCESS;
    }
    if wanted.sample_id != got.sample_id {
        return SUCCESS;
    }
    wanted.result = got.result;
    INFO_BREAK
}

#[no_mangle]
pub extern "C" fn hsa_ven_amd_aqlprofile_get_info(p: *const Profile, attribute: u32, value: *mut c_void) -> u32 {
    ffi(|| {
        if value.is_null() {
            return fail(INVALID_ARGUMENT, "get_info: NULL value".into());
        }
        let size = |f: fn(&Profile, u32) -> u32| match check_profile(p) {
            Ok((p, _, samples)) => {
                // SAFETY: checked non-null; a uint32_t answer.
                unsafe { *(value as *mut u32) = f(&p, samples) };
                SUCCESS
            }
            Err(st) => st,
        };
        match attribute {
            aql::INFO_COMMAND_BUFFER_SIZE => size(|p, _| pm4::command_size(p.event_count)),
            aql::INFO_PMC_DATA_SIZE => size(|_, samples| pm4::data_size(samples)),
            aql::INFO_PMC_DATA => {
                // SAFETY: checked non-null; the caller's info_data_t.
                unsafe { (*(value as *mut PmcData)).result = 0 };
                hsa_ven_amd_aqlprofile_iterate_data(p, Some(pick_sample), value)
            }
            aql::INFO_BLOCK_COUNTERS => {
                // SAFETY: the caller's profile, if not null.
                let Some(prof) = (unsafe { p.as_ref() }).filter(|p| is_gfx906(p.agent)) else {
                    return fail(INVALID_AGENT, "get_info: not the emulated gfx906".into());
                };
                match events_of(prof).first().and_then(|e| pmc::block(e.block)) {
                    Some(b) => {
                        // SAFETY: checked non-null; a uint32_t answer.
                        unsafe { *(value as *mut u32) = b.slots };
                        SUCCESS
                    }
                    None => fail(INVALID_ARGUMENT, "get_info(BLOCK_COUNTERS): no modelled block in events[0]".into()),
                }
            }
            aql::INFO_BLOCK_ID => {
                // SAFETY: the caller's profile, if not null.
                if !(unsafe { p.as_ref() }).is_some_and(|p| is_gfx906(p.agent)) {
                    return fail(INVALID_AGENT, "get_info: not the emulated gfx906".into());
                }
                // SAFETY: checked non-null; the caller's id query.
                let q = unsafe { &mut *(value as *mut IdQuery) };
                // SAFETY: the query's NUL-terminated block name, if any.
                let name = (!q.name.is_null()).then(|| unsafe { std::ffi::CStr::from_ptr(q.name) }.to_string_lossy());
                match name.as_deref().and_then(pmc::block_named) {
                    Some(b) => {
                        q.id = b.id;
                        q.instance_count = b.instances;
                        SUCCESS
                    }
                    None => fail(INVALID_ARGUMENT, format!("get_info(BLOCK_ID): block {name:?} not modelled")),
                }
            }
            other => fail(ERROR, format!("get_info({other}): traces and SPM are not supported")),
        }
    })
}

/// Runs an exported function's body; a panic becomes HSA_STATUS_ERROR instead of unwinding into C.
fn ffi(body: impl FnOnce() -> u32) -> u32 {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)).unwrap_or(ERROR)
}
