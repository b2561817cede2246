//! Scalar ALU and program control: SOP1, SOP2, SOPK, SOPC and SOPP.

use crate::decode::Inst;
use crate::exec::{Ctx, Flow};
use crate::fault::Fault;
use crate::wave::Wave;

pub fn sop1(w: &mut Wave, i: &Inst, _ctx: &mut Ctx) -> Result<Flow, Fault> {
    Err(Fault::unimplemented(w.pc, i))
}
pub fn sop2(w: &mut Wave, i: &Inst, _ctx: &mut Ctx) -> Result<Flow, Fault> {
    Err(Fault::unimplemented(w.pc, i))
}
pub fn sopk(w: &mut Wave, i: &Inst, _ctx: &mut Ctx) -> Result<Flow, Fault> {
    Err(Fault::unimplemented(w.pc, i))
}
pub fn sopc(w: &mut Wave, i: &Inst, _ctx: &mut Ctx) -> Result<Flow, Fault> {
    Err(Fault::unimplemented(w.pc, i))
}
pub fn sopp(w: &mut Wave, i: &Inst, _ctx: &mut Ctx) -> Result<Flow, Fault> {
    match i.op {
        1 => Ok(Flow::End),
        10 => Ok(Flow::Barrier),
        0 | 12 => Ok(Flow::Next),
        _ => Err(Fault::unimplemented(w.pc, i)),
    }
}
