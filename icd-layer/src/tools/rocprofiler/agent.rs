//! The GPU agent a v1 call names, as the v1 API needs it: whether it is the
//! GPU cltap counts on (the counter backend's), its index among the GPU
//! agents, and its metrics catalog (`ROCP_METRICS` from cltap's
//! configuration, else the shipped file; the section by the agent's name;
//! block instances and slots as AQLprofile answers), loaded once.
//!
//! Everything here asks the runtime through its saved entries, so it only
//! works once `OnLoad` has installed cltap: before that (a tool's
//! `OnLoadTool` runs inside `OnLoad`, before the tables are saved) it says
//! so, and never asks the counter backend, which would remember "no
//! AQLprofile" for the rest of the run.

use crate::hsa::agents::{read_name, read_u32, GetInfo};
use crate::hsa::api::id;
use crate::hsa::wrappers::orig;
use cltap::fork::lock::Mutex;
use cltap::metrics::{Catalog, Consts};
use cltap::tools::rocprofiler::error::RocpError;
use cltap::tools::rocprofiler::info::InfoTable;
use std::ffi::c_void;
use std::sync::Arc;

const HSA_STATUS_SUCCESS: u32 = 0;
const AGENT_INFO_WAVEFRONT_SIZE: u32 = 6;
const AGENT_INFO_DEVICE: u32 = 17;
const AMD_AGENT_INFO_COMPUTE_UNIT_COUNT: u32 = 0xA002;
const AMD_AGENT_INFO_NUM_SIMDS_PER_CU: u32 = 0xA00B;
const AMD_AGENT_INFO_NUM_SHADER_ENGINES: u32 = 0xA00C;

/// The counting GPU, ready for the v1 API.
pub struct Gpu {
    pub handle: u64,
    /// Its index among the GPU agents (`agent_index` of v1's structures).
    pub index: u32,
    pub catalog: Catalog,
    pub consts: Consts,
    pub info: InfoTable,
}

/// Why the GPU could not be loaded (said again on each call).
#[derive(Clone)]
enum Failed {
    NoCounters(String),
    Catalog(String),
}

impl From<Failed> for RocpError {
    fn from(f: Failed) -> RocpError {
        match f {
            Failed::NoCounters(s) => RocpError::NoCounters(s),
            Failed::Catalog(s) => RocpError::Catalog(s),
        }
    }
}

/// The loaded GPU, or why it could not be loaded.
static GPU: Mutex<Option<Result<Arc<Gpu>, Failed>>> = Mutex::new(None);

/// The fork's prepare handler's part (`crate::fork`).
pub(crate) fn hold_for_fork() {
    cltap::fork::keep(GPU.lock());
}

/// Whether `OnLoad` has saved the runtime's entries (core and AMD tables).
fn installed() -> Result<(), RocpError> {
    if orig(id::hsa_iterate_agents) == 0
        || orig(id::hsa_agent_get_info) == 0
        || orig(id::hsa_amd_memory_pool_allocate) == 0
    {
        return Err(RocpError::NotInitialized);
    }
    Ok(())
}

/// The GPU once loaded: read without a lock on every dispatch.
static READY: std::sync::OnceLock<Arc<Gpu>> = std::sync::OnceLock::new();

/// The GPU cltap counts on.
pub fn gpu() -> Result<Arc<Gpu>, RocpError> {
    if let Some(g) = READY.get() {
        return Ok(g.clone());
    }
    installed()?;
    let mut g = GPU.lock();
    let loaded = g.get_or_insert_with(|| {
        crate::guard::guard(Err(Failed::NoCounters("internal error".into())), load).map(Arc::new)
    });
    if let Ok(ok) = loaded {
        let _ = READY.set(ok.clone());
    }
    loaded.clone().map_err(RocpError::from)
}

/// The GPU `agent` names, if it is the one cltap counts on.
pub fn named(agent: u64) -> Result<Arc<Gpu>, RocpError> {
    let g = gpu()?;
    if g.handle != agent {
        return Err(RocpError::UnknownAgent(agent));
    }
    Ok(g)
}

/// `agent`'s index among the GPU agents, where it is the counting GPU; 0
/// otherwise (cltap counts on one GPU).
pub fn index_of(agent: u64) -> u32 {
    named(agent).map_or(0, |g| g.index)
}

fn get_info() -> GetInfo {
    // SAFETY: the runtime's hsa_agent_get_info (checked non-zero by `installed`).
    unsafe { std::mem::transmute::<usize, GetInfo>(orig(id::hsa_agent_get_info)) }
}

fn load() -> Result<Gpu, Failed> {
    let no = |why: &str| Failed::NoCounters(why.to_string());
    let handle = crate::hsa::counters::gpu()
        .ok_or_else(|| no("the HSA runtime has no AQLprofile extension, no GPU agent or no host memory pool for it"))?;
    let info = get_info();
    let name = read_name(info, handle).ok_or_else(|| no("the GPU agent has no name"))?;
    let blocks = |b: cltap::metrics::Block| crate::hsa::counters::block_counts(b);
    let cfg = crate::tools::config();
    let catalog =
        Catalog::load(cfg.metrics_file.as_deref(), &name, &blocks).map_err(|e| Failed::Catalog(e.to_string()))?;
    for w in catalog.warnings() {
        cltap::warn!("{w}");
    }
    let u = |attr| read_u32(info, handle, attr);
    let cu = u(AMD_AGENT_INFO_COMPUTE_UNIT_COUNT);
    let consts = Consts {
        cu_num: cu,
        simd_num: cu * u(AMD_AGENT_INFO_NUM_SIMDS_PER_CU),
        se_num: u(AMD_AGENT_INFO_NUM_SHADER_ENGINES),
        xcc_num: 1,
        max_wave_size: u(AGENT_INFO_WAVEFRONT_SIZE),
    };
    let info_table = InfoTable::new(&catalog);
    Ok(Gpu { handle, index: gpu_index(info, handle), catalog, consts, info: info_table })
}

/// `agent`'s position among the GPU agents, in the runtime's order.
fn gpu_index(info: GetInfo, agent: u64) -> u32 {
    struct Walk {
        info: GetInfo,
        agent: u64,
        gpus: u32,
        found: Option<u32>,
    }
    /// # Safety
    /// Called by `hsa_iterate_agents` with the `data` its caller gave it.
    unsafe extern "C" fn each(a: u64, data: *mut c_void) -> u32 {
        // HSA_STATUS_ERROR ends the iteration; no panic leaves a callback.
        crate::guard::guard_at("an HSA iteration callback", 0x1000, || {
            // SAFETY: `(data as *mut Walk)` is valid for this access (# Safety).
            let w = unsafe { &mut *(data as *mut Walk) };
            if a == w.agent {
                w.found = Some(w.gpus);
            }
            if read_u32(w.info, a, AGENT_INFO_DEVICE) == 1 {
                w.gpus += 1;
            }
            HSA_STATUS_SUCCESS
        })
    }
    let mut walk = Walk { info, agent, gpus: 0, found: None };
    // SAFETY: the runtime's entry; `walk` outlives the iteration.
    unsafe {
        let iterate: unsafe extern "C" fn(unsafe extern "C" fn(u64, *mut c_void) -> u32, *mut c_void) -> u32 =
            std::mem::transmute(orig(id::hsa_iterate_agents));
        iterate(each, &mut walk as *mut Walk as *mut c_void);
    }
    walk.found.unwrap_or(0)
}
