//! Vector ALU: VOP1, VOP2, VOPC and VOP3 (a and b), with their SDWA and DPP forms and the VOP3
//! input and output modifiers. The four encodings share one table of operations, numbered in the
//! VOP3 opcode space ([`crate::decode::Inst::vop3_op`]).

use crate::decode::Inst;
use crate::exec::{Ctx, Flow};
use crate::fault::Fault;
use crate::wave::Wave;

pub fn exec(w: &mut Wave, i: &Inst, _ctx: &mut Ctx) -> Result<Flow, Fault> {
    Err(Fault::unimplemented(w.pc, i))
}
