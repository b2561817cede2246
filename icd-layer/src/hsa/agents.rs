//! At `OnLoad`, one `KIND_HSA_AGENT` record per agent the runtime has: its
//! name and the limits the renderers need (the `.atp`'s agent names and
//! indices, the metrics' constants, the occupancy model). Asked of the
//! runtime's own entries, so they are not logged as the application's.

use super::api::id;
use super::wrappers::orig;
use cltap::trace::record::*;
use std::ffi::c_void;

const HSA_STATUS_SUCCESS: u32 = 0;
const AGENT_INFO_NAME: u32 = 0;
const AGENT_INFO_WAVEFRONT_SIZE: u32 = 6;
const AGENT_INFO_WORKGROUP_MAX_SIZE: u32 = 8;
const AGENT_INFO_DEVICE: u32 = 17;
const AMD_AGENT_INFO_COMPUTE_UNIT_COUNT: u32 = 0xA002;
const AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY: u32 = 0xA003;
const AMD_AGENT_INFO_MAX_WAVES_PER_CU: u32 = 0xA00A;
const AMD_AGENT_INFO_NUM_SIMDS_PER_CU: u32 = 0xA00B;
const AMD_AGENT_INFO_NUM_SHADER_ENGINES: u32 = 0xA00C;

/// `hsa_agent_get_info`.
pub type GetInfo = unsafe extern "C" fn(u64, u32, *mut c_void) -> u32;

/// One agent as recorded.
pub struct Agent {
    pub words: [u64; AGENT_WORDS],
    pub name: Option<String>,
}

/// Records every agent and returns them; none when the runtime's entries
/// are missing.
pub fn record_all() -> Vec<Agent> {
    let mut out = Vec::new();
    let (iterate, info) = (orig(id::hsa_iterate_agents), orig(id::hsa_agent_get_info));
    if iterate == 0 || info == 0 {
        return out;
    }
    /// # Safety
    /// Called by `hsa_iterate_agents` with the `data` its caller gave it.
    unsafe extern "C" fn each(agent: u64, data: *mut c_void) -> u32 {
        // HSA_STATUS_ERROR ends the iteration; no panic leaves a callback.
        crate::guard::guard_at("an HSA iteration callback", 0x1000, || {
            // SAFETY: `(*(data as *mut Vec<u64>))` is valid for this access (# Safety).
            unsafe { (*(data as *mut Vec<u64>)).push(agent) };
            HSA_STATUS_SUCCESS
        })
    }
    let mut agents: Vec<u64> = Vec::new();
    // SAFETY: the runtime's entries; `agents` outlives the iteration.
    unsafe {
        let iterate: unsafe extern "C" fn(unsafe extern "C" fn(u64, *mut c_void) -> u32, *mut c_void) -> u32 =
            std::mem::transmute(iterate);
        if iterate(each, &mut agents as *mut Vec<u64> as *mut c_void) != HSA_STATUS_SUCCESS {
            return out;
        }
    }
    // SAFETY: the runtime's hsa_agent_get_info.
    let info: GetInfo = unsafe { std::mem::transmute(info) };
    let mut per_type = [0u64; 3];
    for (i, agent) in agents.into_iter().enumerate() {
        let mut w = [0u64; AGENT_WORDS];
        w[AGENT_HANDLE] = agent;
        let device = read_u32(info, agent, AGENT_INFO_DEVICE);
        w[AGENT_DEVICE] = device as u64;
        if let Some(n) = per_type.get_mut(device as usize) {
            w[AGENT_INDEX] = *n;
            *n += 1;
        }
        w[AGENT_COMPUTE_UNITS] = read_u32(info, agent, AMD_AGENT_INFO_COMPUTE_UNIT_COUNT) as u64;
        w[AGENT_SIMDS_PER_CU] = read_u32(info, agent, AMD_AGENT_INFO_NUM_SIMDS_PER_CU) as u64;
        w[AGENT_SHADER_ENGINES] = read_u32(info, agent, AMD_AGENT_INFO_NUM_SHADER_ENGINES) as u64;
        w[AGENT_WAVEFRONT_SIZE] = read_u32(info, agent, AGENT_INFO_WAVEFRONT_SIZE) as u64;
        w[AGENT_MAX_WAVES_PER_CU] = read_u32(info, agent, AMD_AGENT_INFO_MAX_WAVES_PER_CU) as u64;
        w[AGENT_MAX_CLOCK_MHZ] = read_u32(info, agent, AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY) as u64;
        w[AGENT_WORKGROUP_MAX] = read_u32(info, agent, AGENT_INFO_WORKGROUP_MAX_SIZE) as u64;
        let name = read_name(info, agent);
        cltap::trace::local::record_kind::<KIND_HSA_AGENT>(i as u64, 0, 0, &w, name.as_deref());
        out.push(Agent { words: w, name });
    }
    out
}

/// A 32-bit answer, 0 when the runtime has none.
pub fn read_u32(info: GetInfo, agent: u64, attribute: u32) -> u32 {
    // A u64 slot: a runtime writing more than documented stays in bounds.
    let mut v = 0u64;
    // SAFETY: the runtime's entry, writing at most 8 bytes for these attributes.
    let r = unsafe { info(agent, attribute, &mut v as *mut u64 as *mut c_void) };
    if r == HSA_STATUS_SUCCESS {
        v as u32
    } else {
        0
    }
}

/// `HSA_AGENT_INFO_NAME`: 64 bytes, NUL-padded.
pub fn read_name(info: GetInfo, agent: u64) -> Option<String> {
    let mut buf = [0u8; 64];
    // SAFETY: the runtime's entry; NAME writes 64 bytes.
    if unsafe { info(agent, AGENT_INFO_NAME, buf.as_mut_ptr() as *mut c_void) } != HSA_STATUS_SUCCESS {
        return None;
    }
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    Some(String::from_utf8_lossy(&buf[..end]).into_owned())
}
