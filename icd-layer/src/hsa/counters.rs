//! Hardware counters around each intercepted kernel dispatch, through the
//! AQLprofile extension (FACTS.md §5), as rocprofiler v1 collects them.
//!
//! For every kernel dispatch the intercept handler sees on a GPU that has
//! the extension, cltap writes `[start, dispatch, stop]` through the
//! runtime's writer instead of the dispatch alone: `start` and `stop` are
//! the PM4 packets AQLprofile builds for this pass's events. Both carry the
//! barrier bit, so a counted dispatch runs alone: the counters see nothing
//! else (rocprofiler v1 serialises counted dispatches the same way). The
//! `stop` packet completes a signal of cltap's; its async handler reads the
//! values (`iterate_data`, one sample per block instance, or per shader
//! engine for SQ; samples of one event are summed) and writes one
//! `KIND_HSA_COUNTERS` record under the dispatch's number.
//!
//! The application's own packet is written unchanged; its completion signal
//! is completed by the dispatch as before.

use super::api::id;
use super::wrappers::orig;
use cltap::hsa::aqlprofile::{self as aql, Event, Pm4Packet, Profile, Table};
use cltap::trace::record::KIND_HSA_COUNTERS;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::OnceLock;

const HSA_STATUS_SUCCESS: u32 = 0;
const HSA_SIGNAL_CONDITION_LT: u32 = 2;
/// `HSA_PACKET_HEADER_BARRIER`'s bit.
const HEADER_BARRIER: u16 = 1 << 8;
const AGENT_INFO_DEVICE: u32 = 17;
const POOL_INFO_SEGMENT: u32 = 0;
const POOL_INFO_GLOBAL_FLAGS: u32 = 1;
const POOL_INFO_RUNTIME_ALLOC_ALLOWED: u32 = 5;
const GLOBAL_FLAG_KERNARG_INIT: u32 = 1;
const GLOBAL_FLAG_FINE_GRAINED: u32 = 2;

/// What this process counts, set once at `OnLoad`.
struct Collector {
    table: Table,
    /// This pass's events, validated on `gpu`.
    events: Vec<Event>,
    gpu: u64,
    /// A host pool the GPU can reach, for the command and output buffers.
    pool: u64,
    pass: u32,
}

static COLLECTOR: OnceLock<Collector> = OnceLock::new();
/// Sessions whose dispatch completed, kept for the next dispatch.
static FREE: Mutex<Vec<Box<Session>>> = Mutex::new(Vec::new());
/// Counted dispatches whose values have not been read yet.
static IN_FLIGHT: Mutex<u64> = Mutex::new(0);
static READ: parking_lot::Condvar = parking_lot::Condvar::new();

/// Waits (at most `limit`) until every counted dispatch's values are
/// recorded: the runtime's `OnUnload` can come while the last `stop`
/// packets still run. Returns how many were still missing.
pub fn drain(limit: std::time::Duration) -> u64 {
    let deadline = std::time::Instant::now() + limit;
    let mut n = IN_FLIGHT.lock();
    while *n > 0 {
        if READ.wait_until(&mut n, deadline).timed_out() {
            break;
        }
    }
    *n
}

/// One counted dispatch: the profile AQLprofile fills, its buffers and the
/// signal the `stop` packet completes.
struct Session {
    profile: Profile,
    signal: u64,
    seq: u64,
    /// The dispatch this session counts: it completes a proxy signal of
    /// cltap's, and the application's own signal is completed only once
    /// the values are read (so the application cannot destroy the queue
    /// before the `stop` packet ran).
    agent: u64,
    words: [u64; cltap::trace::record::DISPATCH_WORDS],
    app_signal: u64,
    proxy: u64,
    /// Record the dispatch (with its times) when it is read.
    record: bool,
}

// SAFETY: the profile's pointers are to this session's buffers and to the
// collector's events, which live as long as the process.
unsafe impl Send for Session {}

/// Turns counting on for `events` (this pass's) on `gpu`, if the runtime
/// has AQLprofile; returns why not otherwise. Called once, from `OnLoad`.
pub fn setup(gpu: u64, table: Table, events: Vec<Event>, pass: u32) -> Result<(), String> {
    let pool = host_pool().ok_or("no host memory pool the GPU can use was found")?;
    let c = Collector { table, events, gpu, pool, pass };
    COLLECTOR.set(c).map_err(|_| "counters were already set up".to_string())
}

/// The runtime's AQLprofile table, if it has the extension.
pub fn table() -> Option<Table> {
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
    (r == HSA_STATUS_SUCCESS && t.start.is_some() && t.stop.is_some() && t.iterate_data.is_some() && t.get_info.is_some()).then_some(t)
}

/// Whether counting is on for dispatches on `agent`.
pub fn counting(agent: u64) -> bool {
    COLLECTOR.get().is_some_and(|c| c.gpu == agent && !c.events.is_empty())
}

/// What goes around a counted dispatch.
pub struct Wrapped {
    pub start: Pm4Packet,
    pub stop: Pm4Packet,
    /// The dispatch packet's completion signal instead of the application's.
    pub proxy: u64,
}

/// The packets around dispatch `seq` (record words `words`, completion
/// signal `app_signal`); with `record`, its record is written when its
/// values are read. None when a step failed (the dispatch then goes
/// uncounted, unchanged).
pub fn wrap(seq: u64, agent: u64, words: [u64; cltap::trace::record::DISPATCH_WORDS], app_signal: u64, record: bool) -> Option<Wrapped> {
    let c = COLLECTOR.get()?;
    let mut s = FREE.lock().pop().or_else(|| new_session(c))?;
    s.seq = seq;
    s.agent = agent;
    s.words = words;
    s.app_signal = app_signal;
    s.record = record;
    s.proxy = match signal() {
        Some(p) => p,
        None => {
            FREE.lock().push(s);
            return None;
        }
    };
    let (mut start, mut stop) = (Pm4Packet::default(), Pm4Packet::default());
    // SAFETY: AQLprofile's entries on a profile whose buffers it sized.
    unsafe {
        if (c.table.start?)(&mut s.profile, &mut start) != HSA_STATUS_SUCCESS || (c.table.stop?)(&s.profile, &mut stop) != HSA_STATUS_SUCCESS {
            super::proxy::forward(0, [0, 0], s.proxy);
            FREE.lock().push(s);
            return None;
        }
    }
    start.header |= HEADER_BARRIER;
    stop.header |= HEADER_BARRIER;
    stop.completion_signal = s.signal;
    let arg = Box::into_raw(s);
    *IN_FLIGHT.lock() += 1;
    let on = orig(id::hsa_amd_signal_async_handler);
    // SAFETY: the runtime's entry; `arg` comes back in `on_stopped`.
    unsafe {
        let on: unsafe extern "C" fn(u64, u32, i64, unsafe extern "C" fn(i64, *mut c_void) -> bool, *mut c_void) -> u32 = std::mem::transmute(on);
        if on((*arg).signal, HSA_SIGNAL_CONDITION_LT, 1, on_stopped, arg as *mut c_void) != HSA_STATUS_SUCCESS {
            let s = Box::from_raw(arg);
            super::proxy::forward(0, [0, 0], s.proxy);
            FREE.lock().push(s);
            done_one();
            return None;
        }
        Some(Wrapped { start, stop, proxy: (*arg).proxy })
    }
}

/// A new signal of cltap's, at 1.
fn signal() -> Option<u64> {
    let create = orig(id::hsa_signal_create);
    if create == 0 {
        return None;
    }
    let mut signal = 0u64;
    // SAFETY: the runtime's entry.
    unsafe {
        let create: unsafe extern "C" fn(i64, u32, *const u64, *mut u64) -> u32 = std::mem::transmute(create);
        (create(1, 0, std::ptr::null(), &mut signal) == HSA_STATUS_SUCCESS && signal != 0).then_some(signal)
    }
}

fn new_session(c: &Collector) -> Option<Box<Session>> {
    let mut profile = Profile::pmc(c.gpu, &c.events);
    let get_info = c.table.get_info?;
    let (mut cmd, mut out) = (0u32, 0u32);
    // SAFETY: AQLprofile's entries; each answer is a u32.
    unsafe {
        if get_info(&profile, aql::INFO_COMMAND_BUFFER_SIZE, &mut cmd as *mut u32 as *mut c_void) != HSA_STATUS_SUCCESS
            || get_info(&profile, aql::INFO_PMC_DATA_SIZE, &mut out as *mut u32 as *mut c_void) != HSA_STATUS_SUCCESS
        {
            return None;
        }
    }
    profile.command_buffer = aql::Descriptor { ptr: allocate(c, cmd as usize)?, size: cmd };
    profile.output_buffer = aql::Descriptor { ptr: allocate(c, out as usize)?, size: out };
    let signal = signal()?;
    Some(Box::new(Session { profile, signal, seq: 0, agent: 0, words: [0; cltap::trace::record::DISPATCH_WORDS], app_signal: 0, proxy: 0, record: false }))
}

/// `size` bytes (at least 64) of the host pool, reachable by the GPU.
fn allocate(c: &Collector, size: usize) -> Option<*mut c_void> {
    let (alloc, allow) = (orig(id::hsa_amd_memory_pool_allocate), orig(id::hsa_amd_agents_allow_access));
    if alloc == 0 {
        return None;
    }
    let mut p: *mut c_void = std::ptr::null_mut();
    // SAFETY: the runtime's entries.
    unsafe {
        let alloc: unsafe extern "C" fn(u64, usize, u32, *mut *mut c_void) -> u32 = std::mem::transmute(alloc);
        if alloc(c.pool, size.max(64), 0, &mut p) != HSA_STATUS_SUCCESS || p.is_null() {
            return None;
        }
        if allow != 0 {
            let allow: unsafe extern "C" fn(u32, *const u64, *const u32, *const c_void) -> u32 = std::mem::transmute(allow);
            allow(1, &c.gpu, std::ptr::null(), p);
        }
        std::ptr::write_bytes(p as *mut u8, 0, size);
    }
    Some(p)
}

/// The `stop` packet completed: the values are read and recorded.
unsafe extern "C" fn on_stopped(_value: i64, arg: *mut c_void) -> bool {
    if arg.is_null() {
        return false;
    }
    let s = Box::from_raw(arg as *mut Session);
    crate::guard::guard((), || read(&s));
    // The dispatch (recorded now, with its times, when asked) and the
    // application's signal, completed as the runtime would have.
    crate::guard::guard((), || super::proxy::dispatch_done(s.agent, s.seq, s.words, s.app_signal, s.proxy, s.record));
    let store = orig(id::hsa_signal_store_screlease);
    if store != 0 {
        let store: unsafe extern "C" fn(u64, i64) = std::mem::transmute(store);
        store(s.signal, 1);
    }
    FREE.lock().push(s);
    done_one();
    false
}

fn done_one() {
    let mut n = IN_FLIGHT.lock();
    *n = n.saturating_sub(1);
    READ.notify_all();
}

fn read(s: &Session) {
    let Some(c) = COLLECTOR.get() else { return };
    let Some(iterate) = c.table.iterate_data else { return };
    unsafe extern "C" fn each(kind: u32, data: *mut aql::PmcData, sums: *mut c_void) -> u32 {
        if kind == aql::INFO_PMC_DATA && !data.is_null() {
            let d = &*data;
            *(*(sums as *mut BTreeMap<Event, u64>)).entry(d.event).or_insert(0) += d.result;
        }
        HSA_STATUS_SUCCESS
    }
    let mut sums: BTreeMap<Event, u64> = BTreeMap::new();
    // SAFETY: AQLprofile's entry; `sums` outlives the iteration.
    unsafe {
        if iterate(&s.profile, each, &mut sums as *mut BTreeMap<Event, u64> as *mut c_void) != HSA_STATUS_SUCCESS {
            return;
        }
    }
    let mut words = Vec::with_capacity(1 + 2 * sums.len());
    words.push(c.pass as u64);
    for (e, v) in &sums {
        words.push(aql::pack(e));
        words.push(*v);
    }
    cltap::trace::local::record_kind::<KIND_HSA_COUNTERS>(s.seq, 0, 0, &words, None);
}

type PoolGetInfo = unsafe extern "C" fn(u64, u32, *mut c_void) -> u32;

/// The first pool of a CPU agent that is global, fine-grained or for
/// kernel arguments, and allocatable: what rocprofiler uses for its
/// command and output buffers.
fn host_pool() -> Option<u64> {
    let (agents, info, pools, pinfo) = (orig(id::hsa_iterate_agents), orig(id::hsa_agent_get_info), orig(id::hsa_amd_agent_iterate_memory_pools), orig(id::hsa_amd_memory_pool_get_info));
    if [agents, info, pools, pinfo].contains(&0) {
        return None;
    }
    struct Walk {
        info: unsafe extern "C" fn(u64, u32, *mut c_void) -> u32,
        pools: unsafe extern "C" fn(u64, unsafe extern "C" fn(u64, *mut c_void) -> u32, *mut c_void) -> u32,
        pinfo: PoolGetInfo,
        found: Option<u64>,
    }
    unsafe extern "C" fn agent(a: u64, data: *mut c_void) -> u32 {
        let w = &mut *(data as *mut Walk);
        let mut device = u32::MAX;
        if w.found.is_none() && (w.info)(a, AGENT_INFO_DEVICE, &mut device as *mut u32 as *mut c_void) == HSA_STATUS_SUCCESS && device == 0 {
            (w.pools)(a, pool, data);
        }
        HSA_STATUS_SUCCESS
    }
    unsafe extern "C" fn pool(p: u64, data: *mut c_void) -> u32 {
        let w = &mut *(data as *mut Walk);
        let get = |attr: u32| {
            let mut v = 0u64;
            ((w.pinfo)(p, attr, &mut v as *mut u64 as *mut c_void) == HSA_STATUS_SUCCESS).then_some(v)
        };
        let global = get(POOL_INFO_SEGMENT) == Some(0);
        let flags = get(POOL_INFO_GLOBAL_FLAGS).unwrap_or(0) as u32;
        let alloc = get(POOL_INFO_RUNTIME_ALLOC_ALLOWED).unwrap_or(0) as u8 != 0;
        if w.found.is_none() && global && alloc && flags & (GLOBAL_FLAG_KERNARG_INIT | GLOBAL_FLAG_FINE_GRAINED) != 0 {
            w.found = Some(p);
        }
        HSA_STATUS_SUCCESS
    }
    // SAFETY: the runtime's entries; `walk` outlives the iterations.
    unsafe {
        let mut walk = Walk { info: std::mem::transmute::<usize, _>(info), pools: std::mem::transmute::<usize, _>(pools), pinfo: std::mem::transmute::<usize, PoolGetInfo>(pinfo), found: None };
        let agents: unsafe extern "C" fn(unsafe extern "C" fn(u64, *mut c_void) -> u32, *mut c_void) -> u32 = std::mem::transmute(agents);
        agents(agent, &mut walk as *mut Walk as *mut c_void);
        walk.found
    }
}

/// `OnLoad` with counters asked for: plans this run's pass on the first GPU
/// agent that has AQLprofile, turns counting on, and records the plan
/// (`KIND_COUNTER_PLAN`). Where no GPU can count, the plan says 0 passes and
/// one line says why; the dispatches are still recorded.
pub fn on_load(agents: &[super::agents::Agent]) {
    use cltap::trace::record::*;
    let cfg = crate::life::config();
    let names = cltap::counters::pass::requested(cfg);
    let joined = names.join(",");
    let table = table();
    let gpu = agents.iter().find(|a| a.words[AGENT_DEVICE] == 1);
    let plan = |passes: u32, agent: u64| {
        let mut w = vec![0u64; PLAN_BLOCKS];
        w[PLAN_PASSES] = passes as u64;
        w[PLAN_AGENT] = agent;
        if let (Some(t), true) = (table.as_ref(), agent != 0) {
            for b in cltap::metrics::Block::ALL {
                if let Some(c) = block_counts(t, agent, *b) {
                    w.push(((b.aql_id() as u64) << 32) | ((c.instances as u64 & 0xFFFF) << 16) | (c.slots as u64 & 0xFFFF));
                }
            }
        }
        cltap::trace::local::record_kind::<KIND_COUNTER_PLAN>(cfg.counter_pass as u64, 0, 0, &w, Some(&joined));
    };
    let (Some(table), Some(gpu)) = (table, gpu) else {
        cltap::warn!("hardware counters are not available: the HSA runtime has no AQLprofile extension or no GPU agent; {joined} will read NA");
        plan(0, 0);
        return;
    };
    let handle = gpu.words[AGENT_HANDLE];
    let name = gpu.name.clone().unwrap_or_default();
    let blocks = |b: cltap::metrics::Block| block_counts(&table, handle, b);
    match cltap::counters::pass::hsa_pass(cfg, &names, &name, &blocks) {
        Ok(chosen) => {
            for w in &chosen.warnings {
                cltap::warn!("{w}");
            }
            let events: Vec<Event> = chosen.events.into_iter().filter(|e| valid(&table, handle, e)).collect();
            if let Err(why) = setup(handle, table, events, cfg.counter_pass) {
                cltap::warn!("hardware counters are not available on {name}: {why}; {joined} will read NA");
                plan(0, handle);
                return;
            }
            plan(chosen.passes, handle);
        }
        Err(e) => {
            cltap::warn!("CLTAP_COUNTERS={joined}: {e}; no counters are collected");
            plan(0, handle);
        }
    }
}

/// Whether AQLprofile accepts `e` on `agent`; a refused event is named once.
fn valid(table: &Table, agent: u64, e: &Event) -> bool {
    let Some(validate) = table.validate_event else { return true };
    let mut ok = false;
    // SAFETY: AQLprofile's entry.
    let r = unsafe { validate(agent, e, &mut ok) };
    if r != HSA_STATUS_SUCCESS || !ok {
        cltap::warn!("AQLprofile refuses event (block {}, instance {}, id {}): it is not counted", e.block_name, e.block_index, e.counter_id);
        return false;
    }
    true
}

/// A block's instances (`INFO_BLOCK_ID`) and counter slots
/// (`INFO_BLOCK_COUNTERS`), asked of AQLprofile.
fn block_counts(table: &Table, agent: u64, block: cltap::metrics::Block) -> Option<cltap::metrics::BlockCounts> {
    let get = table.get_info?;
    let name = std::ffi::CString::new(block.name()).ok()?;
    let mut q = aql::IdQuery { name: name.as_ptr(), id: 0, instance_count: 0 };
    let probe = [Event { block_name: block.aql_id(), block_index: 0, counter_id: 0 }];
    let profile = Profile::pmc(agent, &probe);
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
    (q.instance_count > 0 && slots > 0).then_some(cltap::metrics::BlockCounts { instances: q.instance_count, slots })
}
