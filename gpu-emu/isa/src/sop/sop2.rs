//! SOP2: two scalar sources, one scalar destination.

use super::{bfe, s32, s64};
use crate::decode::Inst;
use crate::exec::{Ctx, Flow};
use crate::fault::Fault;
use crate::wave::Wave;

/// SOP2 opcodes whose destination is an SGPR pair.
fn is_64(op: u16) -> bool {
    matches!(op, 11 | 13 | 15 | 17 | 19 | 21 | 23 | 25 | 27 | 29 | 31 | 33 | 35 | 39 | 40)
}

pub fn sop2(w: &mut Wave, i: &Inst, _ctx: &mut Ctx) -> Result<Flow, Fault> {
    let (c0, c1, d) = (i.ssrc0(), i.ssrc1(), i.sdst());
    if is_64(i.op) {
        // Shift amounts, s_bfm's operands and s_bfe's control are 32-bit sources even here.
        let a = if i.op == 35 { u64::from(s32(w, i, c0)) } else { s64(w, i, c0) };
        let b = match i.op {
            29 | 31 | 33 | 35 | 39 | 40 => u64::from(s32(w, i, c1)),
            _ => s64(w, i, c1),
        };
        let (v, scc) = alu64(i.op, a, b, w.scc).ok_or_else(|| Fault::unimplemented(w.pc, i))?;
        w.set_sgpr64(d, v);
        if let Some(scc) = scc {
            w.scc = scc;
        }
    } else {
        let (a, b) = (s32(w, i, c0), s32(w, i, c1));
        let (v, scc) = alu32(i.op, a, b, w.scc).ok_or_else(|| Fault::unimplemented(w.pc, i))?;
        w.set_sgpr(d, v);
        if let Some(scc) = scc {
            w.scc = scc;
        }
    }
    Ok(Flow::Next)
}

/// A 32-bit SOP2 operation: the result and the new SCC (None: SCC unchanged).
fn alu32(op: u16, a: u32, b: u32, scc: bool) -> Option<(u32, Option<bool>)> {
    let (ai, bi) = (a as i32, b as i32);
    let nz = |v: u32| Some((v, Some(v != 0)));
    match op {
        0 => {
            let (v, c) = a.overflowing_add(b);
            Some((v, Some(c)))
        }
        1 => Some((a.wrapping_sub(b), Some(b > a))),
        2 => {
            let (v, o) = ai.overflowing_add(bi);
            Some((v as u32, Some(o)))
        }
        3 => {
            let (v, o) = ai.overflowing_sub(bi);
            Some((v as u32, Some(o)))
        }
        4 => {
            let t = u64::from(a) + u64::from(b) + u64::from(scc);
            Some((t as u32, Some(t > u64::from(u32::MAX))))
        }
        5 => {
            let sub = u64::from(b) + u64::from(scc);
            Some((a.wrapping_sub(b).wrapping_sub(u32::from(scc)), Some(sub > u64::from(a))))
        }
        6 => Some((ai.min(bi) as u32, Some(ai < bi))),
        7 => Some((a.min(b), Some(a < b))),
        8 => Some((ai.max(bi) as u32, Some(ai > bi))),
        9 => Some((a.max(b), Some(a > b))),
        10 => Some((if scc { a } else { b }, None)),
        12 => nz(a & b),
        14 => nz(a | b),
        16 => nz(a ^ b),
        18 => nz(a & !b),
        20 => nz(a | !b),
        22 => nz(!(a & b)),
        24 => nz(!(a | b)),
        26 => nz(!(a ^ b)),
        28 => nz(a << (b & 31)),
        30 => nz(a >> (b & 31)),
        32 => nz((ai >> (b & 31)) as u32),
        34 => Some(((((1u64 << (a & 31)) - 1) as u32) << (b & 31), None)),
        36 => Some((a.wrapping_mul(b), None)),
        37 => nz(bfe(u64::from(a), b, 32, false) as u32),
        38 => nz(bfe(u64::from(a), b, 32, true) as u32),
        42 => nz(ai.wrapping_sub(bi).wrapping_abs() as u32),
        44 => Some((((u64::from(a) * u64::from(b)) >> 32) as u32, None)),
        45 => Some((((i64::from(ai) * i64::from(bi)) >> 32) as u32, None)),
        // s_lshl1..4_add_u32: SCC is the carry out of the 64-bit sum, bits shifted out included.
        46..=49 => {
            let t = (u64::from(a) << (op - 45)) + u64::from(b);
            Some((t as u32, Some(t >> 32 != 0)))
        }
        50 => Some(((a & 0xFFFF) | b << 16, None)),
        51 => Some(((a & 0xFFFF) | (b & 0xFFFF_0000), None)),
        52 => Some((a >> 16 | (b & 0xFFFF_0000), None)),
        _ => None,
    }
}

/// A 64-bit SOP2 operation (for the shifts, s_bfm and s_bfe, `b` holds the 32-bit source).
fn alu64(op: u16, a: u64, b: u64, scc: bool) -> Option<(u64, Option<bool>)> {
    let nz = |v: u64| Some((v, Some(v != 0)));
    match op {
        11 => Some((if scc { a } else { b }, None)),
        13 => nz(a & b),
        15 => nz(a | b),
        17 => nz(a ^ b),
        19 => nz(a & !b),
        21 => nz(a | !b),
        23 => nz(!(a & b)),
        25 => nz(!(a | b)),
        27 => nz(!(a ^ b)),
        29 => nz(a << (b & 63)),
        31 => nz(a >> (b & 63)),
        33 => nz(((a as i64) >> (b & 63)) as u64),
        35 => Some(((1u64 << (a & 63)).wrapping_sub(1) << (b & 63), None)),
        39 => nz(bfe(a, b as u32, 64, false)),
        40 => nz(bfe(a, b as u32, 64, true)),
        _ => None,
    }
}
