//! Hardware counters around each intercepted kernel dispatch, through the
//! AQLprofile extension (docs/platform-facts.md#intercept-queues-and-aqlprofile), as rocprofiler v1 collects them.
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

//! A tool that loaded through cltap (rocprofiler v1's dispatch callback)
//! can ask for its own events around a dispatch ([`set_tool_hook`]); that
//! dispatch is then counted for the tool, not for cltap's own request
//! (hardware counters cannot count two profiles at once).

mod backend;
pub(crate) mod session;

use cltap::hsa::aqlprofile::Event;
use cltap::trace::record::DISPATCH_WORDS;
use parking_lot::RwLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

pub use session::{drain, in_completion, ToolDone, Wrapped};

/// cltap's own request: this pass's events (validated) and the pass.
static OWN: OnceLock<(Arc<[Event]>, u32)> = OnceLock::new();

/// Whether cltap's own request counts dispatches on `agent`.
pub fn counting(agent: u64) -> bool {
    OWN.get().is_some_and(|(e, _)| !e.is_empty()) && backend::get().is_some_and(|b| b.gpu == agent)
}

/// The application's own AQL vendor packet (a PM4 packet, as AQLprofile's
/// start and stop are, e.g. what AMD's OpenCL runtime submits for
/// `clEnqueueBeginPerfCounterAMD` and `clEnqueueEndPerfCounterAMD`) on a
/// queue: the application programs the GPU's counters itself. They come in
/// pairs, start then stop, so each one flips whether its counters are armed
/// on that queue. Only called while cltap's own request counts there.
pub fn app_vendor_packet(armed: &AtomicBool) {
    armed.fetch_xor(true, Ordering::Relaxed);
}

/// Whether the application's own counters are armed on queue `number`, so a
/// dispatch there is left to them: the GPU's counters count one profile at
/// a time, and cltap's start packet would reprogram the application's (it
/// would read zeros). The application's request wins, as a rocprofiler
/// tool's does, and one line says so, once.
pub fn app_counts(armed: &AtomicBool, number: u32) -> bool {
    static SAID: AtomicBool = AtomicBool::new(false);
    let on = armed.load(Ordering::Relaxed);
    if on && !SAID.swap(true, Ordering::Relaxed) {
        cltap::warn!(
            "counters: the application collects hardware counters itself (its own AQLprofile packets on HSA queue {number}, \
             e.g. clEnqueueBeginPerfCounterAMD) and cltap's own request (CLTAP_COUNTERS or ROCP_INPUT) cannot be counted around the same dispatches: \
             the application's request is served, and cltap's own has no values for the dispatches between its start and stop"
        );
    }
    on
}

/// What a tool is told of a dispatch before it is submitted.
pub struct DispatchInfo<'a> {
    pub agent: u64,
    /// The application's `hsa_queue_t*`.
    pub queue: *const std::ffi::c_void,
    pub queue_index: u64,
    /// The queue's number among the intercept queues (from 0).
    pub queue_number: u32,
    /// The application's kernel dispatch packet.
    pub packet: &'a [u8; 64],
    pub kernel_object: u64,
    /// What cltap knows of the kernel (its name as rocprofiler v1 gives it).
    pub kernel: &'a super::kernels::Kernel,
    /// When the dispatch was seen (HSA timestamp), on a timed queue; else 0.
    pub dispatch_time: u64,
}

/// A tool's events for one dispatch and what receives their values.
pub struct ToolRequest {
    pub events: Vec<Event>,
    pub done: ToolDone,
}

type Hook = Box<dyn Fn(&DispatchInfo<'_>) -> Option<ToolRequest> + Send + Sync>;
pub(crate) static HOOK: RwLock<Option<Hook>> = RwLock::new(None);
static HOOKED: AtomicBool = AtomicBool::new(false);

/// Sets (or with None removes) the function asked, for every intercepted
/// kernel dispatch, whether a tool wants it counted.
pub fn set_tool_hook(hook: Option<Hook>) {
    let mut h = HOOK.write();
    HOOKED.store(hook.is_some(), Ordering::Release);
    *h = hook;
}

/// The tool's request for this dispatch, if a tool is hooked and wants it.
pub fn tool_request(d: &DispatchInfo<'_>) -> Option<ToolRequest> {
    if !HOOKED.load(Ordering::Acquire) {
        return None;
    }
    // Recursive: the hook may submit a dispatch of its own (nested read),
    // which must not wait behind a writer queued in between.
    let h = HOOK.read_recursive();
    crate::guard::guard(None, || h.as_ref().and_then(|f| f(d)))
}

/// The packets around dispatch `seq` (record words `words`, completion
/// signal `app_signal`), counting the tool's events if `tool` asks, else
/// cltap's own; with `record`, the dispatch's record is written when its
/// values are read. `stop` is the queue's room and where the `stop` packet
/// goes in its hidden queue, told when it completes. None when nothing
/// counts it or a step failed (the dispatch then goes unchanged).
#[allow(clippy::too_many_arguments)]
pub fn wrap(
    seq: u64,
    agent: u64,
    words: [u64; DISPATCH_WORDS],
    name: Option<Arc<str>>,
    app_signal: u64,
    record: bool,
    tool: Option<ToolRequest>,
    stop: (&'static super::room::Room, u64),
) -> Option<Wrapped> {
    let b = backend::get().filter(|b| b.gpu == agent)?;
    let d = session::Dispatch { seq, agent, words, name, app_signal, record, stop };
    match tool {
        Some(t) => {
            // cltap's own request is served around the same dispatch when
            // both fit the counters together; else the tool's wins, said once.
            let own = OWN.get().filter(|(e, _)| !e.is_empty());
            let mut events = t.events;
            let mut pass = None;
            if let Some((own_events, p)) = own {
                let mut both = events.clone();
                both.extend(own_events.iter().filter(|e| !events.contains(e)).copied());
                match overflow(b, &both) {
                    None => {
                        events = both;
                        pass = Some(*p);
                    }
                    Some(why) => lost_once(&why),
                }
            }
            let events: Arc<[Event]> = events.into();
            session::wrap(b, d, &events, session::Sink::Tool { done: Some(t.done), pass })
        }
        None => {
            let (events, pass) = OWN.get()?;
            session::wrap(b, d, events, session::Sink::Trace { pass: *pass })
        }
    }
}

/// Why `events` cannot be counted at once on the backend's GPU (a block
/// instance asked for more events than it has counters), or None.
fn overflow(b: &backend::Backend, events: &[Event]) -> Option<String> {
    let mut per: std::collections::BTreeMap<(u32, u32), u32> = std::collections::BTreeMap::new();
    for e in events {
        *per.entry((e.block_name, e.block_index)).or_insert(0) += 1;
    }
    per.into_iter().find_map(|((block, index), n)| {
        let blk = cltap::metrics::Block::from_aql_id(block)?;
        let slots = b.block_counts(blk)?.slots;
        (n > slots).then(|| format!("{}[{index}] would need {n} counters and has {slots}", blk.name()))
    })
}

/// One line, the first time a tool's request and cltap's own cannot share
/// a dispatch.
fn lost_once(why: &str) {
    static SAID: AtomicBool = AtomicBool::new(false);
    if !SAID.swap(true, Ordering::AcqRel) {
        let names = crate::life::config().counters.join(",");
        cltap::warn!("counters: a rocprofiler tool (ROCP_TOOL_LIB) and cltap's own request ({names}) cannot be counted around the same dispatch ({why}): the tool's request is served, and cltap's own read None/NA for the dispatches the tool counts");
    }
}

/// `OnLoad` with counters asked for: plans this run's pass on the first GPU
/// agent that has AQLprofile, turns counting on, and records the plan
/// (`KIND_COUNTER_PLAN`). Where no GPU can count, the plan says 0 passes and
/// one line says why; the dispatches are still recorded.
pub fn on_load(agents: &[super::agents::Agent]) {
    use cltap::trace::record::*;
    let cfg = crate::life::config();
    // CLTAP_COUNTERS with ROCP_INPUT's names, merged when the configuration was read.
    let names = cfg.counters.clone();
    let joined = names.join(",");
    let backend = backend::get();
    let gpu = agents.iter().find(|a| a.words[AGENT_DEVICE] == 1);
    let plan = |passes: u32, agent: u64| {
        let mut w = vec![0u64; PLAN_BLOCKS];
        w[PLAN_PASSES] = passes as u64;
        w[PLAN_AGENT] = agent;
        if let (Some(be), true) = (backend, agent != 0) {
            for b in cltap::metrics::Block::ALL {
                if let Some(c) = be.block_counts(*b) {
                    w.push(
                        ((b.aql_id() as u64) << 32) | ((c.instances as u64 & 0xFFFF) << 16) | (c.slots as u64 & 0xFFFF),
                    );
                }
            }
        }
        cltap::trace::local::record_kind::<KIND_COUNTER_PLAN>(cfg.counter_pass as u64, 0, 0, &w, Some(&joined));
    };
    let (Some(be), Some(gpu)) = (backend, gpu.filter(|g| backend.is_some_and(|b| b.gpu == g.words[AGENT_HANDLE])))
    else {
        cltap::warn!("hardware counters are not available: the HSA runtime has no AQLprofile extension, no GPU agent or no host memory pool for it; {joined} will read NA");
        plan(0, 0);
        return;
    };
    let handle = gpu.words[AGENT_HANDLE];
    let name = gpu.name.clone().unwrap_or_default();
    let blocks = |b: cltap::metrics::Block| be.block_counts(b);
    match cltap::counters::pass::hsa_pass(cfg, &names, &name, &blocks) {
        Ok(chosen) => {
            for w in &chosen.warnings {
                cltap::warn!("{w}");
            }
            let events: Vec<Event> = chosen.events.into_iter().filter(|e| be.valid(e)).collect();
            let _ = OWN.set((events.into(), cfg.counter_pass));
            plan(chosen.passes, handle);
        }
        Err(e) => {
            // Named by the variable the failing name came from.
            let why = e.to_string();
            let culprit = names.iter().find(|n| why.contains(&format!("'{n}'"))).or(names.first());
            let var = culprit.map_or_else(|| format!("CLTAP_COUNTERS={joined}"), |n| cfg.counters_source(n));
            cltap::warn!("{var}: {why}; no counters are collected");
            plan(0, handle);
        }
    }
}

/// The GPU agent counting works on, when the runtime has AQLprofile.
pub fn gpu() -> Option<u64> {
    backend::get().map(|b| b.gpu)
}

/// A block's instances and counter slots on that GPU, as AQLprofile says.
pub fn block_counts(block: cltap::metrics::Block) -> Option<cltap::metrics::BlockCounts> {
    backend::get()?.block_counts(block)
}

/// Whether AQLprofile accepts `e` on that GPU (a refused one is named once).
pub fn valid(e: &Event) -> bool {
    backend::get().is_some_and(|b| b.valid(e))
}
