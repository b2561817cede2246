//! Vector ALU: VOP1, VOP2, VOPC and VOP3 (a and b), with their SDWA and DPP forms and the VOP3
//! input and output modifiers. The four encodings share one table of operations, numbered in the
//! VOP3 opcode space ([`crate::decode::Inst::vop3_op`]): [`lookup`] finds an operation's
//! [`Op`] in [`int`] (integer, bit, move and integer compares) or [`float`] (f16, f32 and f64
//! arithmetic, transcendentals, conversions, float compares and classes). The encoding plumbing
//! here reads each lane's sources (registers, constants, SDWA selects, DPP lane moves, abs/neg),
//! calls the operation per active lane and writes the result (clamp and omod for float results,
//! SDWA dst_sel, the VCC or SGPR-pair bit of compares and carries, EXEC for v_cmpx).

pub mod float;
pub mod int;

use crate::decode::Inst;
use crate::exec::{Ctx, Flow};
use crate::fault::Fault;
use crate::wave::{Ty, Wave};

/// Where an operation's result goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Out {
    /// A VGPR (or a pair, for 64-bit types) of this type.
    V(Ty),
    /// A compare: one bit per lane, into VCC (VOPC) or the VOP3 SGPR pair.
    Mask,
    /// A VGPR of this type and a bit per lane into VCC (VOP2) or the VOP3b SGPR pair: carry-out of
    /// v_add_co_u32, v_div_scale's flag.
    VBit(Ty),
}

/// What one lane's operation gets.
#[derive(Debug, Clone, Copy, Default)]
pub struct Args {
    /// The sources, after modifiers and selects, zero-extended to 64 bits (16-bit values in the low
    /// 16 bits, 32-bit values in the low 32).
    pub s: [u64; 3],
    /// The lane's bit of VCC (VOP2) or of the VOP3 SGPR-pair source, for operations with
    /// [`Op::bit_in`]: a carry-in, v_cndmask's condition, v_div_fmas's scale flag.
    pub bit: bool,
    /// The wave's MODE register (round and denormal modes, IEEE, DX10 clamp).
    pub mode: u32,
    /// The instruction's clamp bit. Float clamping to [0, 1] is done by the plumbing; an integer
    /// operation that saturates under clamp reads it here.
    pub clamp: bool,
    /// The lane's number (0..63).
    pub lane: u32,
    /// The destination's value before the instruction (v_mac_*, v_fmac_* accumulate into it).
    pub old: u64,
}

/// One lane's result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Res {
    /// The value, in the low bits for 16- and 32-bit types.
    pub v: u64,
    /// The compare result, carry-out or flag, for [`Out::Mask`] and [`Out::VBit`].
    pub bit: bool,
}

/// An operation of the VOP3 opcode space.
#[derive(Clone, Copy)]
pub struct Op {
    /// How many sources it reads (1 to 3), and each one's type.
    pub srcs: u8,
    pub ty: [Ty; 3],
    pub out: Out,
    /// Reads a bit per lane ([`Args::bit`]).
    pub bit_in: bool,
    /// A v_cmpx: the compare result also goes to EXEC.
    pub cmpx: bool,
    pub f: fn(&Args) -> Res,
}

/// The operation numbered `op` in the VOP3 opcode space, if the emulator implements it.
pub fn lookup(op: u16) -> Option<Op> {
    int::op(op).or_else(|| float::op(op))
}

pub fn exec(w: &mut Wave, i: &Inst, _ctx: &mut Ctx) -> Result<Flow, Fault> {
    Err(Fault::unimplemented(w.pc, i))
}
