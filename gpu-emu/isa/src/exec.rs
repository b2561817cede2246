//! One step of a wave: fetch the instruction at its pc, count it, advance the pc past it (so a
//! branch's target and s_getpc_b64 see the next instruction's address, as on the hardware) and
//! run it in its family's module.

use crate::code::Code;
use crate::counts::Counts;
use crate::decode::Format;
use crate::fault::Fault;
use crate::memory::Memory;
use crate::wave::Wave;

/// What a wave's instruction leaves it to do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Next,
    /// s_barrier: wait until every wave of the work-group has reached it (or ended).
    Barrier,
    /// s_endpgm.
    End,
}

/// What one wave executes against: the dispatch's memory and code, its work-group's LDS, the
/// dispatch's scratch layout, and the counters the instructions add to.
pub struct Ctx<'a> {
    pub mem: &'a dyn Memory,
    pub code: &'a Code,
    /// The work-group's LDS (its group segment: the kernel's static size plus the packet's dynamic
    /// size), zeroed at the work-group's start.
    pub lds: &'a mut [u8],
    /// Bytes of scratch each lane has (see [`crate::memory`]).
    pub scratch_lane_stride: u32,
    pub counts: &'a mut Counts,
}

/// Runs the wave's next instruction.
pub fn step(w: &mut Wave, ctx: &mut Ctx) -> Result<Flow, Fault> {
    let pc = w.pc;
    let i = ctx.code.fetch(pc)?;
    ctx.counts.count(&i);
    ctx.counts.lanes += u64::from(w.exec().count_ones());
    w.pc = pc + i.bytes();
    let r = match i.format {
        Format::Sop1 => crate::sop::sop1(w, &i, ctx),
        Format::Sop2 => crate::sop::sop2(w, &i, ctx),
        Format::Sopk => crate::sop::sopk(w, &i, ctx),
        Format::Sopc => crate::sop::sopc(w, &i, ctx),
        Format::Sopp => crate::sop::sopp(w, &i, ctx),
        Format::Smem => crate::smem::exec(w, &i, ctx),
        Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3 => crate::valu::exec(w, &i, ctx),
        Format::Vop3p => crate::vop3p::exec(w, &i, ctx),
        Format::Ds => crate::ds::exec(w, &i, ctx),
        Format::Flat => crate::flat::exec(w, &i, ctx),
        Format::Mubuf | Format::Mtbuf => crate::buffer::exec(w, &i, ctx),
        Format::Mimg => crate::mimg::exec(w, &i, ctx),
        Format::Vintrp | Format::Exp => Err(Fault::unimplemented(pc, &i)),
    };
    // A fault names the instruction's own address, not the next one's.
    r.map_err(|f| match f {
        Fault::Unimplemented { name, words, .. } => Fault::Unimplemented { pc, name, words },
        Fault::Illegal { name, why, .. } => Fault::Illegal { pc, name, why },
        Fault::Memory { addr, len, name, .. } => Fault::Memory { pc, addr, len, name },
        Fault::Trap { code, .. } => Fault::Trap { pc, code },
        other => other,
    })
}

/// Runs a wave until it ends, reaches a barrier or faults (at most `limit` instructions, then an
/// error: a runaway loop in a test must not hang it).
pub fn run(w: &mut Wave, ctx: &mut Ctx, limit: u64) -> Result<Flow, Fault> {
    for _ in 0..limit {
        match step(w, ctx)? {
            Flow::Next => {}
            other => return Ok(other),
        }
    }
    Err(Fault::Illegal { pc: w.pc, name: "wave", why: "ran past the instruction limit" })
}
