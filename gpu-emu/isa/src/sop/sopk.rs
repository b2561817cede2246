//! SOPK: a 16-bit immediate with one SGPR (read, written or both), the hardware-register moves
//! and s_call_b64.

use super::hwreg::{self, Field};
use super::relative;
use crate::decode::Inst;
use crate::exec::{Ctx, Flow};
use crate::fault::Fault;
use crate::wave::Wave;

pub fn sopk(w: &mut Wave, i: &Inst, ctx: &mut Ctx) -> Result<Flow, Fault> {
    let d = i.sdst();
    let simm = i.simm16();
    // The signed forms sign-extend the immediate, the unsigned compares zero-extend it.
    let sext = simm as i16 as i32;
    let zext = u32::from(simm);
    let cur = w.sgpr(d);
    let ci = cur as i32;
    match i.op {
        0 => w.set_sgpr(d, sext as u32),
        1 => {
            if w.scc {
                w.set_sgpr(d, sext as u32);
            }
        }
        2 => w.scc = ci == sext,
        3 => w.scc = ci != sext,
        4 => w.scc = ci > sext,
        5 => w.scc = ci >= sext,
        6 => w.scc = ci < sext,
        7 => w.scc = ci <= sext,
        8 => w.scc = cur == zext,
        9 => w.scc = cur != zext,
        10 => w.scc = cur > zext,
        11 => w.scc = cur >= zext,
        12 => w.scc = cur < zext,
        13 => w.scc = cur <= zext,
        14 => {
            let (v, overflow) = ci.overflowing_add(sext);
            w.set_sgpr(d, v as u32);
            w.scc = overflow;
        }
        15 => w.set_sgpr(d, ci.wrapping_mul(sext) as u32),
        17 => {
            let f = Field::of(simm);
            let v = hwreg::read(w, ctx, f.id).ok_or_else(|| Fault::unimplemented(w.pc, i))?;
            w.set_sgpr(d, (v & f.mask) >> f.offset);
        }
        // s_setreg_b32 reads the SGPR in the sdst field; s_setreg_imm32_b32 the literal.
        18 | 20 => {
            let f = Field::of(simm);
            let src = if i.op == 18 { cur } else { i.literal().unwrap_or(0) };
            hwreg::write(w, f.id, src << f.offset, f.mask).ok_or_else(|| Fault::unimplemented(w.pc, i))?;
        }
        21 => {
            let target = relative(w, simm);
            w.set_sgpr64(d, w.pc);
            w.pc = target;
        }
        // s_cbranch_i_fork and anything else.
        _ => return Err(Fault::unimplemented(w.pc, i)),
    }
    Ok(Flow::Next)
}
