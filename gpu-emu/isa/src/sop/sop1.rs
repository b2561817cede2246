//! SOP1: one scalar source, one scalar destination; moves, bit counts and scans, the EXEC
//! save-and-modify forms, M0-relative moves and the program-counter moves.

use super::{ff1, s32, s64};
use crate::decode::Inst;
use crate::exec::{Ctx, Flow};
use crate::fault::Fault;
use crate::wave::{reg, Wave};

pub fn sop1(w: &mut Wave, i: &Inst, _ctx: &mut Ctx) -> Result<Flow, Fault> {
    let (c0, d) = (i.ssrc0(), i.sdst());
    let op = i.op;
    match op {
        0 => w.set_sgpr(d, s32(w, i, c0)),
        1 => w.set_sgpr64(d, s64(w, i, c0)),
        2 => {
            if w.scc {
                w.set_sgpr(d, s32(w, i, c0));
            }
        }
        3 => {
            if w.scc {
                w.set_sgpr64(d, s64(w, i, c0));
            }
        }
        4 => set32_nz(w, d, !s32(w, i, c0)),
        5 => set64_nz(w, d, !s64(w, i, c0)),
        6 => set32_nz(w, d, wqm(u64::from(s32(w, i, c0))) as u32),
        7 => set64_nz(w, d, wqm(s64(w, i, c0))),
        8 => w.set_sgpr(d, s32(w, i, c0).reverse_bits()),
        9 => w.set_sgpr64(d, s64(w, i, c0).reverse_bits()),
        10 => set32_nz(w, d, s32(w, i, c0).count_zeros()),
        11 => set32_nz(w, d, s64(w, i, c0).count_zeros()),
        12 => set32_nz(w, d, s32(w, i, c0).count_ones()),
        13 => set32_nz(w, d, s64(w, i, c0).count_ones()),
        14 => w.set_sgpr(d, ff1(u64::from(!s32(w, i, c0)))),
        15 => w.set_sgpr(d, ff1(!s64(w, i, c0))),
        16 => w.set_sgpr(d, ff1(u64::from(s32(w, i, c0)))),
        17 => w.set_sgpr(d, ff1(s64(w, i, c0))),
        18 => w.set_sgpr(d, flbit(u64::from(s32(w, i, c0)), 32)),
        19 => w.set_sgpr(d, flbit(s64(w, i, c0), 64)),
        20 => w.set_sgpr(d, flbit_signed(u64::from(s32(w, i, c0)), 32)),
        21 => w.set_sgpr(d, flbit_signed(s64(w, i, c0), 64)),
        22 => w.set_sgpr(d, s32(w, i, c0) as i8 as i32 as u32),
        23 => w.set_sgpr(d, s32(w, i, c0) as i16 as i32 as u32),
        24 => w.set_sgpr(d, w.sgpr(d) & !(1 << (s32(w, i, c0) & 31))),
        25 => w.set_sgpr64(d, w.sgpr64(d) & !(1 << (s32(w, i, c0) & 63))),
        26 => w.set_sgpr(d, w.sgpr(d) | 1 << (s32(w, i, c0) & 31)),
        27 => w.set_sgpr64(d, w.sgpr64(d) | 1 << (s32(w, i, c0) & 63)),
        // s_getpc_b64: the address of the next instruction, which exec.rs has left in w.pc.
        28 => w.set_sgpr64(d, w.pc),
        29 => w.pc = s64(w, i, c0),
        30 => {
            let target = s64(w, i, c0);
            w.set_sgpr64(d, w.pc);
            w.pc = target;
        }
        32..=39 | 51..=54 => saveexec(w, op, s64(w, i, c0), d),
        40 => set32_nz(w, d, quadmask(u64::from(s32(w, i, c0)))),
        41 => set64_nz(w, d, u64::from(quadmask(s64(w, i, c0)))),
        42 => {
            let v = w.sgpr(relative_sgpr(w, i, c0, 1)?);
            w.set_sgpr(d, v);
        }
        43 => {
            let v = w.sgpr64(relative_sgpr(w, i, c0, 2)?);
            w.set_sgpr64(d, v);
        }
        44 => {
            let v = s32(w, i, c0);
            let at = relative_sgpr(w, i, d, 1)?;
            w.set_sgpr(at, v);
        }
        45 => {
            let v = s64(w, i, c0);
            let at = relative_sgpr(w, i, d, 2)?;
            w.set_sgpr64(at, v);
        }
        48 => set32_nz(w, d, (s32(w, i, c0) as i32).wrapping_abs() as u32),
        55 => w.set_sgpr64(d, bitreplicate(s32(w, i, c0))),
        // s_rfe_b64, s_cbranch_join, s_set_gpr_idx_idx and anything else.
        _ => return Err(Fault::unimplemented(w.pc, i)),
    }
    Ok(Flow::Next)
}

fn set32_nz(w: &mut Wave, d: u32, v: u32) {
    w.set_sgpr(d, v);
    w.scc = v != 0;
}

fn set64_nz(w: &mut Wave, d: u32, v: u64) {
    w.set_sgpr64(d, v);
    w.scc = v != 0;
}

/// The *_saveexec_b64 and *_wrexec_b64 forms: EXEC becomes S0 combined with the old EXEC, SCC
/// says whether any lane is left on; the destination gets the old EXEC (saveexec) or the new one
/// (wrexec).
fn saveexec(w: &mut Wave, op: u16, s0: u64, d: u32) {
    let old = w.exec();
    let new = match op {
        32 => s0 & old,
        33 => s0 | old,
        34 => s0 ^ old,
        35 | 54 => s0 & !old,
        36 => s0 | !old,
        37 => !(s0 & old),
        38 => !(s0 | old),
        39 => !(s0 ^ old),
        51 | 53 => !s0 & old,
        // 52: s_orn1_saveexec_b64.
        _ => !s0 | old,
    };
    w.set_exec(new);
    w.scc = new != 0;
    w.set_sgpr64(d, if matches!(op, 53 | 54) { new } else { old });
}

/// Each nibble with any bit set becomes 0xF.
fn wqm(x: u64) -> u64 {
    let any = (x | x >> 1 | x >> 2 | x >> 3) & 0x1111_1111_1111_1111;
    any * 0xF
}

/// Bit k of the result: whether nibble k of `x` has any bit set.
fn quadmask(x: u64) -> u32 {
    (0..16).filter(|k| (x >> (k * 4)) & 0xF != 0).fold(0, |m, k| m | 1 << k)
}

/// Bits 2k and 2k+1 of the result are bit k of `x`.
fn bitreplicate(x: u32) -> u64 {
    (0..32).filter(|k| x >> k & 1 != 0).fold(0, |m, k| m | 3 << (2 * k))
}

/// Leading zeros of a value of `bits` bits, or -1 for zero.
fn flbit(v: u64, bits: u32) -> u32 {
    if v == 0 {
        u32::MAX
    } else {
        v.leading_zeros() - (64 - bits)
    }
}

/// The position from the MSB of the first bit opposite the sign bit in a value of `bits` bits
/// (how many bits from the top equal the sign), or -1 when every bit is the same (0 and -1).
fn flbit_signed(v: u64, bits: u32) -> u32 {
    let top = v << (64 - bits);
    let n = if (top as i64) < 0 { top.leading_ones() } else { top.leading_zeros() };
    if n >= bits {
        u32::MAX
    } else {
        n
    }
}

/// The register `base + M0` of an M0-relative move: `base` must name an SGPR, and the `count`
/// registers at the index must lie among the scalar registers.
fn relative_sgpr(w: &Wave, i: &Inst, base: u32, count: u32) -> Result<u32, Fault> {
    let at = u64::from(base) + u64::from(w.m0());
    if base > reg::EXEC_HI || at + u64::from(count) > u64::from(reg::EXEC_HI) + 1 {
        return Err(Fault::Illegal { pc: w.pc, name: i.name(), why: "M0-relative register index out of range" });
    }
    Ok(at as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(wqm(0x0000_0000_0100_0810), 0x0000_0000_0F00_0FF0);
        assert_eq!(quadmask(0x8000_0000_0000_0021), 0x8003);
        assert_eq!(bitreplicate(0x8000_0005), 0xC000_0000_0000_0033);
        assert_eq!(flbit(0, 32), u32::MAX);
        assert_eq!(flbit(1, 32), 31);
        assert_eq!(flbit(1, 64), 63);
        assert_eq!(flbit_signed(0x4000_0000, 32), 1);
        assert_eq!(flbit_signed(0xFFFF_FFFE, 32), 31);
        assert_eq!(flbit_signed(0xFFFF_FFFF, 32), u32::MAX);
        assert_eq!(flbit_signed(0, 32), u32::MAX);
        assert_eq!(flbit_signed(u64::MAX, 64), u32::MAX);
        assert_eq!(flbit_signed(0xFFFF_FFFF, 64), 32);
    }
}
