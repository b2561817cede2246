//! LDS and GDS: the DS encoding, LDS atomics included.

use crate::decode::Inst;
use crate::exec::{Ctx, Flow};
use crate::fault::Fault;
use crate::wave::Wave;

pub fn exec(w: &mut Wave, i: &Inst, _ctx: &mut Ctx) -> Result<Flow, Fault> {
    Err(Fault::unimplemented(w.pc, i))
}
