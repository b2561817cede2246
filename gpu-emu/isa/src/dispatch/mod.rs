//! A kernel dispatch on the shader core: the kernel object read ([`descriptor`]), the grid cut
//! into work-groups and waves with each wave's initial registers ([`initial`]), the waves of a
//! work-group run between barriers ([`group`]), work-groups spread over host threads, and what ran
//! counted per shader engine.
//!
//! Scratch: the dispatch owns one zeroed block with a slot of 64 lanes × the lane stride for every
//! wave that can be in flight at once (a work-group's waves on each host thread); a wave's slot is
//! its byte offset in the block (the private segment wave offset SGPR). The memory the waves see
//! is the caller's plus that block.

pub mod descriptor;
pub mod group;
pub mod initial;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use crate::code::Code;
use crate::counts::Counts;
use crate::exec::{self, Ctx};
use crate::fault::Fault;
use crate::memory::Memory;
use crate::wave::Wave;

pub use descriptor::Descriptor;
pub use initial::Plan;

/// Shader engines of gfx906: work-group g runs on engine g % 4.
pub const ENGINES: usize = 4;
/// Instructions one wave may run before the dispatch faults (a kernel that never ends must not
/// hang the process that emulates it).
pub const INSTRUCTION_LIMIT: u64 = 1 << 34;
/// Work-groups per host thread below which fewer threads are started.
const GROUPS_PER_THREAD: u64 = 4;

/// The fields of an AQL kernel dispatch packet (`hsa_kernel_dispatch_packet_t`) the dispatch
/// needs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Packet {
    /// Dimensions in the low 2 bits.
    pub setup: u16,
    pub workgroup_size: [u16; 3],
    pub grid_size: [u32; 3],
    pub private_segment_size: u32,
    pub group_segment_size: u32,
    pub kernel_object: u64,
    pub kernarg_address: u64,
}

/// One dispatch: the packet and where it came from (for the dispatch-ptr, queue-ptr and
/// dispatch-id SGPRs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Dispatch {
    pub packet: Packet,
    /// The packet's own address in its queue's ring.
    pub packet_address: u64,
    /// The queue's `amd_queue_t`.
    pub queue_address: u64,
    pub dispatch_id: u64,
}

/// How to run a dispatch.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Host threads that run work-groups (at least one).
    pub threads: usize,
    /// Instructions per wave before it faults.
    pub limit: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options { threads: 1, limit: INSTRUCTION_LIMIT }
    }
}

/// What a dispatch ran.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Outcome {
    pub total: Counts,
    pub engines: [Counts; ENGINES],
}

/// The caller's memory and the dispatch's scratch block.
struct WithScratch<'a> {
    mem: &'a dyn Memory,
    start: u64,
    end: u64,
}

impl Memory for WithScratch<'_> {
    fn valid(&self, addr: u64, len: u64) -> bool {
        let inside = addr >= self.start && addr.checked_add(len).is_some_and(|e| e <= self.end);
        inside || self.mem.valid(addr, len)
    }
}

/// Runs the dispatch `d` to its end: the kernel object and all memory the waves touch are checked
/// against `mem`; `code` covers the kernel's machine code. The first fault (by work-group) stops
/// it.
pub fn run(d: &Dispatch, mem: &dyn Memory, code: &Code, opt: &Options) -> Result<Outcome, Fault> {
    let kd = Descriptor::read(mem, d.packet.kernel_object)?;
    let mut plan = Plan::new(d, kd)?;
    let groups =
        plan.group_count().ok_or(Fault::Illegal { pc: plan.entry, name: "dispatch", why: "grid too large" })?;
    if groups == 0 {
        return Ok(Outcome::default());
    }
    let threads = opt.threads.clamp(1, 256).min(groups.div_ceil(GROUPS_PER_THREAD) as usize);
    let slots = threads * plan.waves_per_group;
    let bytes = plan.wave_scratch() * slots as u64;
    let mut scratch: Vec<u64> = Vec::new();
    if bytes > 0 {
        scratch.try_reserve_exact(bytes.div_ceil(8) as usize).map_err(|_| Fault::Illegal {
            pc: plan.entry,
            name: "dispatch",
            why: "scratch does not fit in host memory",
        })?;
        scratch.resize(bytes.div_ceil(8) as usize, 0);
    }
    // Only the waves touch the block from here on, through its address.
    let start = scratch.as_mut_ptr() as u64;
    plan.scratch_base = if bytes > 0 { start } else { 0 };
    let seen = WithScratch { mem, start, end: start + if bytes > 0 { bytes } else { 0 } };
    let shared = Shared {
        plan: &plan,
        mem: &seen,
        code,
        limit: opt.limit,
        groups,
        next: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        first: Mutex::new(None),
    };
    let mut engines = [Counts::default(); ENGINES];
    if threads == 1 {
        engines = shared.worker(0);
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let shared = &shared;
                    s.spawn(move || shared.worker(t))
                })
                .collect();
            for h in handles {
                // A worker never panics; if one did, its counts are lost, not the dispatch.
                if let Ok(e) = h.join() {
                    for (sum, c) in engines.iter_mut().zip(e.iter()) {
                        sum.add(c);
                    }
                }
            }
        });
    }
    drop(scratch);
    if let Some((_, f)) = shared.first.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(f);
    }
    let mut total = Counts::default();
    for e in &engines {
        total.add(e);
    }
    Ok(Outcome { total, engines })
}

/// What the host threads share.
struct Shared<'a> {
    plan: &'a Plan,
    mem: &'a dyn Memory,
    code: &'a Code,
    limit: u64,
    groups: u64,
    /// The next work-group to run.
    next: AtomicU64,
    /// Set by a fault: no more work-groups start.
    stop: AtomicBool,
    /// The fault of the lowest work-group that faulted.
    first: Mutex<Option<(u64, Fault)>>,
}

impl Shared<'_> {
    /// One host thread: work-groups from the counter until none is left or one faulted.
    fn worker(&self, thread: usize) -> [Counts; ENGINES] {
        let mut engines = [Counts::default(); ENGINES];
        let mut lds = vec![0u8; self.plan.lds_bytes];
        let first_slot = (thread * self.plan.waves_per_group) as u32;
        while !self.stop.load(Ordering::Acquire) {
            let g = self.next.fetch_add(1, Ordering::AcqRel);
            if g >= self.groups {
                break;
            }
            lds.fill(0);
            let mut waves = self.plan.waves(g, first_slot);
            let counts = &mut engines[(g % ENGINES as u64) as usize];
            counts.waves += waves.len() as u64;
            if let Err(f) = run_group_of(&mut waves, self, &mut lds, counts) {
                self.stop.store(true, Ordering::Release);
                let mut first = self.first.lock().unwrap_or_else(|e| e.into_inner());
                if first.as_ref().is_none_or(|(at, _)| g < *at) {
                    *first = Some((g, f));
                }
            }
        }
        engines
    }
}

/// Runs one work-group's waves with its LDS, each wave held to the instruction limit.
fn run_group_of(waves: &mut [Wave], sh: &Shared, lds: &mut [u8], counts: &mut Counts) -> Result<(), Fault> {
    let mut ctx = Ctx { mem: sh.mem, code: sh.code, lds, scratch_lane_stride: sh.plan.lane_stride, counts };
    let mut ran = vec![0u64; waves.len()];
    group::run_group(waves, |w| {
        let i = w.index as usize;
        let before = ctx.counts.insts;
        let left = sh.limit.saturating_sub(ran[i]);
        let r = if left == 0 {
            Err(Fault::Illegal { pc: w.pc, name: "wave", why: "ran past the instruction limit" })
        } else {
            exec::run(w, &mut ctx, left)
        };
        ran[i] += ctx.counts.insts - before;
        r
    })
}
