//! SOPC (scalar compares into SCC) and SOPP (program control: branches, the end of the program,
//! barriers, waits and hints).

use super::{relative, s32, s64};
use crate::decode::Inst;
use crate::exec::{Ctx, Flow};
use crate::fault::Fault;
use crate::wave::Wave;

pub fn sopc(w: &mut Wave, i: &Inst, _ctx: &mut Ctx) -> Result<Flow, Fault> {
    let (c0, c1) = (i.ssrc0(), i.ssrc1());
    w.scc = match i.op {
        0..=11 => {
            let (a, b) = (s32(w, i, c0), s32(w, i, c1));
            let (ai, bi) = (a as i32, b as i32);
            match i.op {
                0 => ai == bi,
                1 => ai != bi,
                2 => ai > bi,
                3 => ai >= bi,
                4 => ai < bi,
                5 => ai <= bi,
                6 => a == b,
                7 => a != b,
                8 => a > b,
                9 => a >= b,
                10 => a < b,
                _ => a <= b,
            }
        }
        12 => s32(w, i, c0) >> (s32(w, i, c1) & 31) & 1 == 0,
        13 => s32(w, i, c0) >> (s32(w, i, c1) & 31) & 1 == 1,
        14 => s64(w, i, c0) >> (s32(w, i, c1) & 63) & 1 == 0,
        15 => s64(w, i, c0) >> (s32(w, i, c1) & 63) & 1 == 1,
        18 => s64(w, i, c0) == s64(w, i, c1),
        19 => s64(w, i, c0) != s64(w, i, c1),
        // s_setvskip, s_set_gpr_idx_on and anything else.
        _ => return Err(Fault::unimplemented(w.pc, i)),
    };
    Ok(Flow::Next)
}

pub fn sopp(w: &mut Wave, i: &Inst, _ctx: &mut Ctx) -> Result<Flow, Fault> {
    let simm = i.simm16();
    let taken = match i.op {
        1 | 27 => return Ok(Flow::End),
        10 => return Ok(Flow::Barrier),
        // s_trap: the trap id is simm16[7:0]; exec.rs puts the instruction's own pc in the fault.
        18 => return Err(Fault::Trap { pc: w.pc, code: simm & 0xFF }),
        2 => true,
        4 => !w.scc,
        5 => w.scc,
        6 => w.vcc() == 0,
        7 => w.vcc() != 0,
        8 => w.exec() == 0,
        9 => w.exec() != 0,
        // s_nop, s_wakeup, s_waitcnt (every access completes within its instruction), s_sleep,
        // s_setprio, s_sendmsg and s_sendmsghalt (no message a compute wave sends has an effect
        // here), s_icache_inv, s_incperflevel, s_decperflevel, s_ttracedata; the debugger
        // branches s_cbranch_cdbg* are not taken (no debugger is attached).
        0 | 3 | 12 | 14..=17 | 19..=26 => false,
        // s_setkill, s_sethalt, s_set_gpr_idx_off, s_set_gpr_idx_mode, s_endpgm_ordered_ps_done.
        _ => return Err(Fault::unimplemented(w.pc, i)),
    };
    if taken {
        w.pc = relative(w, simm);
    }
    Ok(Flow::Next)
}
