//! Vector ALU: VOP1, VOP2, VOPC and VOP3 (a and b), with their SDWA and DPP forms and the VOP3
//! input and output modifiers. The four encodings share one table of operations, numbered in the
//! VOP3 opcode space ([`crate::decode::Inst::vop3_op`]): [`lookup`] finds an operation's
//! [`Op`] in [`int`] (integer, bit, move and integer compares) or [`float`] (f16, f32 and f64
//! arithmetic, transcendentals, conversions, float compares and classes). The encoding plumbing
//! here reads each lane's sources (registers, constants, SDWA selects, DPP lane moves, abs/neg),
//! calls the operation per active lane and writes the result (clamp and omod for float results,
//! SDWA dst_sel, the VCC or SGPR-pair bit of compares and carries, EXEC for v_cmpx).

//!
//! Conventions the table relies on: VOP2's v_madmk (src0 × K + src1) and v_madak (src0 × src1 +
//! K) reach their operation as three sources in multiply-add order, [src0, K, src1] and
//! [src0, src1, K]; an operation with [`Op::bit_in`] reads VCC in VOP2 and, in VOP3, the SGPR
//! pair named by src2 when it has two sources (v_cndmask, v_addc) or VCC when it has three
//! (v_div_fmas). VOP3 abs/neg act on the sign bit of a source of any type (16, 32 or 64 bits
//! wide): the assembler allows them only where the operand is a float (v_cndmask_b32_e64 too).

pub mod dpp;
pub mod float;
pub mod int;
pub mod lanes;
pub mod omod;
pub mod sdwa;

use crate::decode::{Ext, Format, Inst};
use crate::exec::{Ctx, Flow};
use crate::fault::Fault;
use crate::wave::{reg, Ty, Wave, LANES};
use dpp::{Dpp, From};
use sdwa::Sdwa;

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
    let n = i.vop3_op();
    if lanes::exec(w, i, n) {
        return Ok(Flow::Next);
    }
    let op = lookup(n).ok_or_else(|| Fault::unimplemented(w.pc, i))?;
    let form = Form::of(i, &op);
    run(w, &op, &form);
    Ok(Flow::Next)
}

/// Where an instruction's operands are and which modifiers apply, whatever its encoding.
struct Form {
    /// Operand codes of the sources (256+ are VGPRs).
    code: [u32; 3],
    literal: Option<u32>,
    /// Per source (bit k for source k).
    abs: u32,
    neg: u32,
    /// VOP3 op_sel: the high half of 16-bit sources (bits 0-2) and of the destination (bit 3).
    opsel: u32,
    clamp: bool,
    omod: u32,
    sdwa: Option<Sdwa>,
    dpp: Option<Dpp>,
    vdst: u32,
    /// The SGPR pair a compare's mask or a carry goes to.
    mask_dst: u32,
    /// The SGPR pair a bit per lane is read from.
    bit_src: u32,
    /// gfx9's op_sel forms of v_mad_u16/i16/f16, v_fma_f16 and v_div_fixup_f16 keep the other
    /// half of their destination; other 16-bit results zero it.
    keep_half: bool,
}

/// VOP2 opcodes of v_madmk_f32/f16 and v_madak_f32/f16.
const VOP2_MADMK: [u16; 2] = [0x17, 0x24];
const VOP2_MADAK: [u16; 2] = [0x18, 0x25];

impl Form {
    fn of(i: &Inst, op: &Op) -> Form {
        let w1 = i.w[1];
        let bit = |n: u32| (w1 >> n) & 1;
        let mut f = Form {
            code: [i.src0(), 0, 0],
            literal: i.literal(),
            abs: 0,
            neg: 0,
            opsel: 0,
            clamp: false,
            omod: 0,
            sdwa: None,
            dpp: None,
            vdst: i.vdst(),
            mask_dst: reg::VCC_LO,
            bit_src: reg::VCC_LO,
            keep_half: false,
        };
        if i.format == Format::Vop3 {
            let vop3b = matches!(op.out, Out::VBit(_));
            f.code = [i.src0(), i.src1(), i.src2()];
            // VOP3b keeps its SGPR destination where VOP3a has abs.
            f.abs = if vop3b { 0 } else { i.vop3_abs() };
            f.neg = i.vop3_neg();
            f.opsel = i.vop3_opsel();
            f.clamp = i.vop3_clamp();
            f.omod = i.vop3_omod();
            f.mask_dst = if vop3b { i.vop3_sdst() } else { i.vdst() };
            if op.srcs < 3 {
                f.bit_src = i.src2();
            }
            f.keep_half = (0x203..=0x207).contains(&i.op);
            return f;
        }
        f.code[1] = i.src1();
        match i.ext {
            Ext::None if i.format == Format::Vop2 && VOP2_MADMK.contains(&i.op) => {
                f.code = [i.src0(), reg::LITERAL, i.src1()];
            }
            Ext::None if i.format == Format::Vop2 && VOP2_MADAK.contains(&i.op) => {
                f.code = [i.src0(), i.src1(), reg::LITERAL];
            }
            Ext::None => {}
            Ext::Sdwa => {
                let s = Sdwa::decode(w1, i.format == Format::Vopc);
                // gfx9: the S0/S1 bits make a source a scalar operand code instead of a VGPR.
                f.code[0] = (w1 & 0xFF) + if bit(23) == 1 { 0 } else { reg::VGPR0 };
                f.code[1] = ((i.w[0] >> 9) & 0xFF) + if bit(31) == 1 { 0 } else { reg::VGPR0 };
                f.abs = s.abs;
                f.neg = s.neg;
                f.clamp = s.clamp;
                f.omod = s.omod;
                if let Some(d) = s.sdst {
                    f.mask_dst = d;
                }
                f.sdwa = Some(s);
            }
            Ext::Dpp => {
                f.code[0] = (w1 & 0xFF) + reg::VGPR0;
                f.neg = bit(20) | bit(22) << 1;
                f.abs = bit(21) | bit(23) << 1;
                f.dpp = Some(Dpp::decode(w1));
            }
        }
        f
    }
}

fn is_wide(t: Ty) -> bool {
    matches!(t, Ty::B64 | Ty::F64)
}

/// Source `k` of lane `lane`, with its select, op_sel and abs/neg applied.
fn read(w: &Wave, f: &Form, t: Ty, k: usize, lane: usize) -> u64 {
    let code = f.code[k];
    let (mut v, sign) = match t {
        Ty::B64 | Ty::F64 => (w.src64(code, lane, t, f.literal), 63),
        Ty::B32 | Ty::F32 => (u64::from(w.src32(code, lane, t, f.literal)), 31),
        Ty::B16 | Ty::F16 => (u64::from(w.src32(code, lane, t, f.literal)), 15),
    };
    if let Some(s) = &f.sdwa {
        if k < 2 && sign != 63 {
            v = u64::from(sdwa::select(v as u32, s.sel[k], s.sext[k]));
        }
    }
    if sign == 15 {
        if f.opsel >> k & 1 == 1 {
            v >>= 16;
        }
        v &= 0xFFFF;
    }
    if f.abs >> k & 1 == 1 {
        v &= !(1 << sign);
    }
    if f.neg >> k & 1 == 1 {
        v ^= 1 << sign;
    }
    v
}

fn run(w: &mut Wave, op: &Op, f: &Form) {
    let exec = w.exec();
    let bits = if !op.bit_in {
        0
    } else if f.bit_src == reg::VCC_LO {
        w.vcc()
    } else {
        w.scalar64(f.bit_src, Ty::B64, None)
    };
    let out_ty = match op.out {
        Out::V(t) | Out::VBit(t) => Some(t),
        Out::Mask => None,
    };
    let mut res = [Res::default(); LANES];
    let mut wrote = 0u64;
    for (lane, r) in res.iter_mut().enumerate() {
        if exec >> lane & 1 == 0 {
            continue;
        }
        let mut src0_lane = Some(lane);
        if let Some(d) = &f.dpp {
            src0_lane = match d.source(lane, exec) {
                From::Lane(s) => Some(s),
                From::Invalid if d.bound_ctrl => None,
                _ => continue,
            };
        }
        let mut a = Args { mode: w.mode, clamp: f.clamp, lane: lane as u32, ..Args::default() };
        for k in 0..usize::from(op.srcs.min(3)) {
            a.s[k] = match (k, src0_lane) {
                (0, Some(l)) => read(w, f, op.ty[0], 0, l),
                // bound_ctrl: an invalid source lane reads 0 (its modifiers still apply).
                (0, None) => read_zero(f, op.ty[0]),
                _ => read(w, f, op.ty[k], k, lane),
            };
        }
        a.bit = bits >> lane & 1 == 1;
        if let Some(t) = out_ty {
            a.old = if is_wide(t) { w.vgpr64(f.vdst, lane) } else { u64::from(w.vgpr(f.vdst, lane)) };
        }
        *r = (op.f)(&a);
        wrote |= 1 << lane;
    }
    if let Some(t) = out_ty {
        write_v(w, f, t, &res, wrote);
    }
    if matches!(op.out, Out::Mask | Out::VBit(_)) {
        // Lanes that did not run write 0.
        let mask = res.iter().enumerate().fold(0u64, |m, (l, r)| m | (u64::from(r.bit) & (wrote >> l)) << l);
        w.set_sgpr64(f.mask_dst, mask);
        if op.cmpx {
            w.set_exec(mask);
        }
    }
}

fn read_zero(f: &Form, t: Ty) -> u64 {
    let sign = match t {
        Ty::B64 | Ty::F64 => 63,
        Ty::B32 | Ty::F32 => 31,
        Ty::B16 | Ty::F16 => 15,
    };
    let neg = f.neg & 1 == 1 && f.abs & 1 == 0;
    u64::from(neg) << sign
}

fn write_v(w: &mut Wave, f: &Form, t: Ty, res: &[Res; LANES], wrote: u64) {
    let float = matches!(t, Ty::F16 | Ty::F32 | Ty::F64);
    for (lane, r) in res.iter().enumerate() {
        if wrote >> lane & 1 == 0 {
            continue;
        }
        let v = if float { omod::apply(t, r.v, f.omod, f.clamp, w.mode) } else { r.v };
        if is_wide(t) {
            w.set_vgpr64(f.vdst, lane, v);
            continue;
        }
        let old = w.vgpr(f.vdst, lane);
        let mut d = v as u32;
        if matches!(t, Ty::B16 | Ty::F16) {
            let h = d & 0xFFFF;
            d = match (f.opsel >> 3 & 1 == 1, f.keep_half) {
                (true, _) => (old & 0xFFFF) | h << 16,
                (false, true) => (old & 0xFFFF_0000) | h,
                (false, false) => h,
            };
        }
        if let Some(s) = &f.sdwa {
            d = sdwa::place(old, d, s.dst_sel, s.dst_unused);
        }
        w.set_vgpr(f.vdst, lane, d);
    }
}
