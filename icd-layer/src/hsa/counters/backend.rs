//! What counting needs of the runtime: AQLprofile's table, the GPU it
//! counts on, a host memory pool the GPU can reach (for the command and
//! output buffers, as rocprofiler uses), and AQLprofile's answers about
//! blocks and events.

use super::super::api::id;
use super::super::wrappers::orig;
use cltap::hsa::aqlprofile::{self as aql, Event, Profile, Table};
use std::ffi::c_void;
use std::sync::OnceLock;

const HSA_STATUS_SUCCESS: u32 = 0;
const AGENT_INFO_DEVICE: u32 = 17;
const POOL_INFO_SEGMENT: u32 = 0;
const POOL_INFO_GLOBAL_FLAGS: u32 = 1;
const POOL_INFO_RUNTIME_ALLOC_ALLOWED: u32 = 5;
const GLOBAL_FLAG_KERNARG_INIT: u32 = 1;
const GLOBAL_FLAG_FINE_GRAINED: u32 = 2;

pub struct Backend {
    pub table: Table,
    /// The first GPU agent, the one counted on.
    pub gpu: u64,
    pub pool: u64,
    /// AQLprofile's verdict on each event asked about.
    verdicts: parking_lot::Mutex<std::collections::HashMap<Event, bool>>,
}

static BACKEND: OnceLock<Option<Backend>> = OnceLock::new();

/// The backend, found once; None when the runtime has no AQLprofile, no
/// GPU agent or no usable pool.
pub fn get() -> Option<&'static Backend> {
    BACKEND
        .get_or_init(|| {
            Some(Backend { table: table()?, gpu: first_gpu()?, pool: host_pool()?, verdicts: Default::default() })
        })
        .as_ref()
}

/// The backend if it was already found, without looking for it: at the end
/// of the process, where asking a runtime that was never asked (the
/// application counted nothing) is neither needed nor safe.
pub fn existing() -> Option<&'static Backend> {
    BACKEND.get().and_then(Option::as_ref)
}

type AgentInfo = unsafe extern "C" fn(u64, u32, *mut c_void) -> u32;
type IterateAgents = unsafe extern "C" fn(unsafe extern "C" fn(u64, *mut c_void) -> u32, *mut c_void) -> u32;
type IteratePools = unsafe extern "C" fn(u64, unsafe extern "C" fn(u64, *mut c_void) -> u32, *mut c_void) -> u32;

fn first_gpu() -> Option<u64> {
    let (agents, info) = (orig(id::hsa_iterate_agents), orig(id::hsa_agent_get_info));
    if agents == 0 || info == 0 {
        return None;
    }
    struct Walk {
        info: AgentInfo,
        found: Option<u64>,
    }
    /// # Safety
    /// Called by the runtime's iteration with the `data` its caller gave it.
    unsafe extern "C" fn each(a: u64, data: *mut c_void) -> u32 {
        // HSA_STATUS_ERROR ends the iteration; no panic leaves a callback.
        crate::guard::guard_at("an HSA iteration callback", 0x1000, || {
            // SAFETY: `(data as *mut Walk)` is valid for this access (# Safety).
            let w = unsafe { &mut *(data as *mut Walk) };
            let mut device = u32::MAX;
            // SAFETY: the entry called here gets arguments its C declaration accepts.
            if w.found.is_none()
                && unsafe { (w.info)(a, AGENT_INFO_DEVICE, &mut device as *mut u32 as *mut c_void) }
                    == HSA_STATUS_SUCCESS
                && device == 1
            {
                w.found = Some(a);
            }
            HSA_STATUS_SUCCESS
        })
    }
    // SAFETY: the runtime's entries; `walk` outlives the iteration.
    unsafe {
        let mut walk = Walk { info: std::mem::transmute::<usize, AgentInfo>(info), found: None };
        let agents = std::mem::transmute::<usize, IterateAgents>(agents);
        agents(each, &mut walk as *mut Walk as *mut c_void);
        walk.found
    }
}

/// The runtime's AQLprofile table, if it has the extension.
fn table() -> Option<Table> {
    let get = orig(id::hsa_system_get_major_extension_table);
    if get == 0 {
        return None;
    }
    let mut t = Table::default();
    // SAFETY: the runtime's entry; it fills at most `size` bytes of `t`.
    let r = unsafe {
        let get: unsafe extern "C" fn(u16, u16, usize, *mut c_void) -> u32 = std::mem::transmute(get);
        get(aql::EXTENSION, 1, std::mem::size_of::<Table>(), &mut t as *mut Table as *mut c_void)
    };
    (r == HSA_STATUS_SUCCESS
        && t.start.is_some()
        && t.stop.is_some()
        && t.iterate_data.is_some()
        && t.get_info.is_some())
    .then_some(t)
}

impl Backend {
    /// `size` bytes (at least 64) of the host pool, reachable by the GPU.
    pub fn allocate(&self, size: usize) -> Option<*mut c_void> {
        let (alloc, allow) = (orig(id::hsa_amd_memory_pool_allocate), orig(id::hsa_amd_agents_allow_access));
        if alloc == 0 {
            return None;
        }
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: the runtime's entries.
        unsafe {
            let alloc: unsafe extern "C" fn(u64, usize, u32, *mut *mut c_void) -> u32 = std::mem::transmute(alloc);
            if alloc(self.pool, size.max(64), 0, &mut p) != HSA_STATUS_SUCCESS || p.is_null() {
                return None;
            }
            if allow != 0 {
                let allow: unsafe extern "C" fn(u32, *const u64, *const u32, *const c_void) -> u32 =
                    std::mem::transmute(allow);
                allow(1, &self.gpu, std::ptr::null(), p);
            }
            std::ptr::write_bytes(p as *mut u8, 0, size);
        }
        Some(p)
    }

    /// Gives back what [`Self::allocate`] gave.
    pub fn free(&self, p: *mut c_void) {
        let free = orig(id::hsa_amd_memory_pool_free);
        if free != 0 && !p.is_null() {
            // SAFETY: the runtime's entry, on memory it allocated.
            unsafe {
                let free: unsafe extern "C" fn(*mut c_void) -> u32 = std::mem::transmute(free);
                free(p);
            }
        }
    }
    /// Whether AQLprofile accepts `e` on `agent`; a refused event is named once.
    /// Asked of AQLprofile once per event (a tool's request comes with
    /// every dispatch).
    pub fn valid(&self, e: &Event) -> bool {
        if let Some(v) = self.verdicts.lock().get(e) {
            return *v;
        }
        let Some(validate) = self.table.validate_event else { return true };
        let mut ok = false;
        // SAFETY: AQLprofile's entry.
        let r = unsafe { validate(self.gpu, e, &mut ok) };
        let ok = r == HSA_STATUS_SUCCESS && ok;
        if !ok {
            cltap::warn!(
                "AQLprofile refuses event (block {}, instance {}, id {}): it is not counted",
                e.block_name,
                e.block_index,
                e.counter_id
            );
        }
        self.verdicts.lock().insert(*e, ok);
        ok
    }

    /// A block's instances (`INFO_BLOCK_ID`) and counter slots
    /// (`INFO_BLOCK_COUNTERS`), asked of AQLprofile.
    pub fn block_counts(&self, block: cltap::metrics::Block) -> Option<cltap::metrics::BlockCounts> {
        let get = self.table.get_info?;
        let name = std::ffi::CString::new(block.name()).ok()?;
        let mut q = aql::IdQuery { name: name.as_ptr(), id: 0, instance_count: 0 };
        let probe = [Event { block_name: block.aql_id(), block_index: 0, counter_id: 0 }];
        let profile = Profile::pmc(self.gpu, &probe);
        let mut slots = 0u32;
        // SAFETY: AQLprofile's entry; BLOCK_ID fills the query, BLOCK_COUNTERS a u32.
        unsafe {
            if get(&profile, aql::INFO_BLOCK_ID, &mut q as *mut aql::IdQuery as *mut c_void) != HSA_STATUS_SUCCESS {
                return None;
            }
            if get(&profile, aql::INFO_BLOCK_COUNTERS, &mut slots as *mut u32 as *mut c_void) != HSA_STATUS_SUCCESS {
                return None;
            }
        }
        (q.instance_count > 0 && slots > 0)
            .then_some(cltap::metrics::BlockCounts { instances: q.instance_count, slots })
    }
}

type PoolGetInfo = unsafe extern "C" fn(u64, u32, *mut c_void) -> u32;

/// The first pool of a CPU agent that is global, fine-grained or for
/// kernel arguments, and allocatable: what rocprofiler uses for its
/// command and output buffers.
fn host_pool() -> Option<u64> {
    let (agents, info, pools, pinfo) = (
        orig(id::hsa_iterate_agents),
        orig(id::hsa_agent_get_info),
        orig(id::hsa_amd_agent_iterate_memory_pools),
        orig(id::hsa_amd_memory_pool_get_info),
    );
    if [agents, info, pools, pinfo].contains(&0) {
        return None;
    }
    struct Walk {
        info: AgentInfo,
        pools: IteratePools,
        pinfo: PoolGetInfo,
        found: Option<u64>,
    }
    /// # Safety
    /// Called by `hsa_iterate_agents` with the `data` its caller gave it.
    unsafe extern "C" fn agent(a: u64, data: *mut c_void) -> u32 {
        // HSA_STATUS_ERROR ends the iteration; no panic leaves a callback.
        crate::guard::guard_at("an HSA iteration callback", 0x1000, || {
            // SAFETY: `(data as *mut Walk)` is valid for this access (# Safety).
            let w = unsafe { &mut *(data as *mut Walk) };
            let mut device = u32::MAX;
            // SAFETY: the entry called here gets arguments its C declaration accepts.
            if w.found.is_none()
                && unsafe { (w.info)(a, AGENT_INFO_DEVICE, &mut device as *mut u32 as *mut c_void) }
                    == HSA_STATUS_SUCCESS
                && device == 0
            {
                // SAFETY: the entry called here gets arguments its C declaration accepts.
                unsafe { (w.pools)(a, pool, data) };
            }
            HSA_STATUS_SUCCESS
        })
    }
    /// # Safety
    /// Called by the pool iteration with the `data` its caller gave it.
    unsafe extern "C" fn pool(p: u64, data: *mut c_void) -> u32 {
        // HSA_STATUS_ERROR ends the iteration; no panic leaves a callback.
        crate::guard::guard_at("an HSA iteration callback", 0x1000, || {
            // SAFETY: `(data as *mut Walk)` is valid for this access (# Safety).
            let w = unsafe { &mut *(data as *mut Walk) };
            let get = |attr: u32| {
                let mut v = 0u64;
                // SAFETY: the entry called here gets arguments its C declaration accepts.
                (unsafe { (w.pinfo)(p, attr, &mut v as *mut u64 as *mut c_void) } == HSA_STATUS_SUCCESS).then_some(v)
            };
            let global = get(POOL_INFO_SEGMENT) == Some(0);
            let flags = get(POOL_INFO_GLOBAL_FLAGS).unwrap_or(0) as u32;
            let alloc = get(POOL_INFO_RUNTIME_ALLOC_ALLOWED).unwrap_or(0) as u8 != 0;
            if w.found.is_none()
                && global
                && alloc
                && flags & (GLOBAL_FLAG_KERNARG_INIT | GLOBAL_FLAG_FINE_GRAINED) != 0
            {
                w.found = Some(p);
            }
            HSA_STATUS_SUCCESS
        })
    }
    // SAFETY: the runtime's entries; `walk` outlives the iterations.
    unsafe {
        let mut walk = Walk {
            info: std::mem::transmute::<usize, AgentInfo>(info),
            pools: std::mem::transmute::<usize, IteratePools>(pools),
            pinfo: std::mem::transmute::<usize, PoolGetInfo>(pinfo),
            found: None,
        };
        let agents = std::mem::transmute::<usize, IterateAgents>(agents);
        agents(agent, &mut walk as *mut Walk as *mut c_void);
        walk.found
    }
}
