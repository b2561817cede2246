//! Integer, bit, move and integer-compare operations of the VOP3 opcode space. The opcode numbers
//! are LLVM 15's for gfx906 (`llvm-mc-15 -mcpu=gfx906 -show-encoding`, the VOP3 opcode being bits
//! [25:16] of the first word); the semantics are those of AMD's Vega ISA reference.
//!
//! Sources arrive zero-extended in [`Args::s`]; an operation reinterprets them as signed where the
//! instruction does. 16-bit operations see the low 16 bits (the plumbing has applied op_sel or an
//! SDWA select already).

mod bits;
mod cmp;

use super::{Args, Op, Out, Res};
use crate::wave::Ty::{self, B16, B32, B64};

const fn mk(srcs: u8, ty: [Ty; 3], out: Out, f: fn(&Args) -> Res) -> Op {
    Op { srcs, ty, out, bit_in: false, cmpx: false, f }
}
const fn un(t: Ty, o: Ty, f: fn(&Args) -> Res) -> Op {
    mk(1, [t, t, t], Out::V(o), f)
}
const fn bin(t0: Ty, t1: Ty, o: Ty, f: fn(&Args) -> Res) -> Op {
    mk(2, [t0, t1, t1], Out::V(o), f)
}
const fn tri(t: [Ty; 3], o: Ty, f: fn(&Args) -> Res) -> Op {
    mk(3, t, Out::V(o), f)
}
/// A 32-bit result with a carry or borrow bit out; `bit_in` for the forms that also read one.
const fn carry(bit_in: bool, f: fn(&Args) -> Res) -> Op {
    Op { srcs: 2, ty: [B32; 3], out: Out::VBit(B32), bit_in, cmpx: false, f }
}

#[inline]
fn r(v: u64) -> Res {
    Res { v, bit: false }
}
#[inline]
fn r32(v: u32) -> Res {
    r(u64::from(v))
}
#[inline]
fn r16(v: u16) -> Res {
    r(u64::from(v))
}
#[inline]
fn u(a: &Args, k: usize) -> u32 {
    a.s[k] as u32
}
#[inline]
fn i(a: &Args, k: usize) -> i32 {
    a.s[k] as u32 as i32
}
#[inline]
fn h(a: &Args, k: usize) -> u16 {
    a.s[k] as u16
}
#[inline]
fn hi(a: &Args, k: usize) -> i16 {
    a.s[k] as u16 as i16
}
/// The low 24 bits, sign-extended (the i24 multiplies).
#[inline]
fn i24(a: &Args, k: usize) -> i64 {
    i64::from(((a.s[k] as u32) << 8) as i32 >> 8)
}
#[inline]
fn u24(a: &Args, k: usize) -> u64 {
    a.s[k] & 0xFF_FFFF
}

/// The operation numbered `n` in the VOP3 opcode space, if it is an integer one.
pub fn op(n: u16) -> Option<Op> {
    if (0xA0..=0xFF).contains(&n) {
        return Some(cmp::op(n));
    }
    bits::op(n).or_else(|| arith(n))
}

fn arith(n: u16) -> Option<Op> {
    Some(match n {
        0x100 => Op { bit_in: true, ..bin(B32, B32, B32, |a| r32(if a.bit { u(a, 1) } else { u(a, 0) })) },
        0x106 => bin(B32, B32, B32, |a| r32((i24(a, 0) * i24(a, 1)) as u32)),
        0x107 => bin(B32, B32, B32, |a| r32(((i24(a, 0) * i24(a, 1)) >> 32) as u32)),
        0x108 => bin(B32, B32, B32, |a| r32((u24(a, 0) * u24(a, 1)) as u32)),
        0x109 => bin(B32, B32, B32, |a| r32(((u24(a, 0) * u24(a, 1)) >> 32) as u32)),
        0x10C => bin(B32, B32, B32, |a| r32(i(a, 0).min(i(a, 1)) as u32)),
        0x10D => bin(B32, B32, B32, |a| r32(i(a, 0).max(i(a, 1)) as u32)),
        0x10E => bin(B32, B32, B32, |a| r32(u(a, 0).min(u(a, 1)))),
        0x10F => bin(B32, B32, B32, |a| r32(u(a, 0).max(u(a, 1)))),
        // v_add/sub/subrev_co_u32: the carry (borrow) out goes to VCC or the VOP3b SGPR pair.
        0x119 => carry(false, |a| add_co(a, u(a, 0), u(a, 1), false)),
        0x11A => carry(false, |a| sub_co(a, u(a, 0), u(a, 1), false)),
        0x11B => carry(false, |a| sub_co(a, u(a, 1), u(a, 0), false)),
        0x11C => carry(true, |a| add_co(a, u(a, 0), u(a, 1), a.bit)),
        0x11D => carry(true, |a| sub_co(a, u(a, 0), u(a, 1), a.bit)),
        0x11E => carry(true, |a| sub_co(a, u(a, 1), u(a, 0), a.bit)),
        // 16-bit add/sub: clamp saturates unsigned.
        0x126 => bin(B16, B16, B16, |a| r16(sat_u16(a, u32::from(h(a, 0)) + u32::from(h(a, 1))))),
        0x127 => bin(B16, B16, B16, |a| r16(sub_u16(a, h(a, 0), h(a, 1)))),
        0x128 => bin(B16, B16, B16, |a| r16(sub_u16(a, h(a, 1), h(a, 0)))),
        0x129 => bin(B16, B16, B16, |a| r16(h(a, 0).wrapping_mul(h(a, 1)))),
        0x12F => bin(B16, B16, B16, |a| r16(h(a, 0).max(h(a, 1)))),
        0x130 => bin(B16, B16, B16, |a| r16(hi(a, 0).max(hi(a, 1)) as u16)),
        0x131 => bin(B16, B16, B16, |a| r16(h(a, 0).min(h(a, 1)))),
        0x132 => bin(B16, B16, B16, |a| r16(hi(a, 0).min(hi(a, 1)) as u16)),
        // gfx9's carry-less 32-bit add/sub: clamp saturates unsigned.
        0x134 => bin(B32, B32, B32, |a| r32(add_u32(a, u(a, 0), u(a, 1)))),
        0x135 => bin(B32, B32, B32, |a| r32(sub_u32(a, u(a, 0), u(a, 1)))),
        0x136 => bin(B32, B32, B32, |a| r32(sub_u32(a, u(a, 1), u(a, 0)))),
        0x141 => un(B32, B32, |a| r32(u(a, 0))),
        0x1C2 => tri([B32; 3], B32, |a| r32((i24(a, 0) * i24(a, 1) + i64::from(i(a, 2))) as u32)),
        0x1C3 => tri([B32; 3], B32, |a| r32((u24(a, 0) * u24(a, 1) + u64::from(u(a, 2))) as u32)),
        0x1D1 => tri([B32; 3], B32, |a| r32(i(a, 0).min(i(a, 1)).min(i(a, 2)) as u32)),
        0x1D2 => tri([B32; 3], B32, |a| r32(u(a, 0).min(u(a, 1)).min(u(a, 2)))),
        0x1D4 => tri([B32; 3], B32, |a| r32(i(a, 0).max(i(a, 1)).max(i(a, 2)) as u32)),
        0x1D5 => tri([B32; 3], B32, |a| r32(u(a, 0).max(u(a, 1)).max(u(a, 2)))),
        0x1D7 => tri([B32; 3], B32, |a| r32(med3(i(a, 0), i(a, 1), i(a, 2)) as u32)),
        0x1D8 => tri([B32; 3], B32, |a| r32(med3(u(a, 0), u(a, 1), u(a, 2)))),
        0x1D9 => tri([B32; 3], B32, |a| r32(sad_u8(u(a, 0), u(a, 1), false).wrapping_add(u(a, 2)))),
        0x1DA => tri([B32; 3], B32, |a| r32((sad_u8(u(a, 0), u(a, 1), false) << 16).wrapping_add(u(a, 2)))),
        0x1DB => tri([B32; 3], B32, |a| {
            let d = |s: u32| u32::from((u(a, 0) >> s) as u16).abs_diff(u32::from((u(a, 1) >> s) as u16));
            r32((d(0) + d(16)).wrapping_add(u(a, 2)))
        }),
        0x1DC => tri([B32; 3], B32, |a| r32(u(a, 0).abs_diff(u(a, 1)).wrapping_add(u(a, 2)))),
        0x1E4 => tri([B32; 3], B32, |a| r32(sad_u8(u(a, 0), u(a, 1), true).wrapping_add(u(a, 2)))),
        // v_mad_u64_u32 / v_mad_i64_i32: VOP3b, the carry (overflow) out to the SGPR pair.
        0x1E8 => mk(3, [B32, B32, B64], Out::VBit(B64), |a| {
            let (v, c) = (a.s[0] * a.s[1]).overflowing_add(a.s[2]);
            Res { v, bit: c }
        }),
        0x1E9 => mk(3, [B32, B32, B64], Out::VBit(B64), |a| {
            let p = i128::from(i(a, 0)) * i128::from(i(a, 1)) + i128::from(a.s[2] as i64);
            Res { v: p as u64, bit: i64::try_from(p).is_err() }
        }),
        // v_mad_legacy_u16/i16 (VI's v_mad_u16/i16) and gfx9's v_mad_u16/i16 with op_sel.
        0x1EB | 0x204 => tri([B16; 3], B16, |a| r16(mad_u16(a))),
        0x1EC | 0x205 => tri([B16; 3], B16, |a| r16(mad_i16(a))),
        0x1F1 => tri([B16, B16, B32], B32, |a| r32(u32::from(h(a, 0)) * u32::from(h(a, 1)) + u(a, 2))),
        0x1F2 => {
            tri([B16, B16, B32], B32, |a| r32((i32::from(hi(a, 0)) * i32::from(hi(a, 1))).wrapping_add(i(a, 2)) as u32))
        }
        0x1F3 => tri([B32; 3], B32, |a| r32((u(a, 0) ^ u(a, 1)).wrapping_add(u(a, 2)))),
        0x1F5 => tri([B16; 3], B16, |a| r16(hi(a, 0).min(hi(a, 1)).min(hi(a, 2)) as u16)),
        0x1F6 => tri([B16; 3], B16, |a| r16(h(a, 0).min(h(a, 1)).min(h(a, 2)))),
        0x1F8 => tri([B16; 3], B16, |a| r16(hi(a, 0).max(hi(a, 1)).max(hi(a, 2)) as u16)),
        0x1F9 => tri([B16; 3], B16, |a| r16(h(a, 0).max(h(a, 1)).max(h(a, 2)))),
        0x1FB => tri([B16; 3], B16, |a| r16(med3(hi(a, 0), hi(a, 1), hi(a, 2)) as u16)),
        0x1FC => tri([B16; 3], B16, |a| r16(med3(h(a, 0), h(a, 1), h(a, 2)))),
        0x1FD => tri([B32; 3], B32, |a| r32((u(a, 0) << (u(a, 1) & 31)).wrapping_add(u(a, 2)))),
        0x1FE => tri([B32; 3], B32, |a| r32(u(a, 0).wrapping_add(u(a, 1)) << (u(a, 2) & 31))),
        0x1FF => tri([B32; 3], B32, |a| r32(u(a, 0).wrapping_add(u(a, 1)).wrapping_add(u(a, 2)))),
        0x285 => bin(B32, B32, B32, |a| r32(u(a, 0).wrapping_mul(u(a, 1)))),
        0x286 => bin(B32, B32, B32, |a| r32((((a.s[0] & 0xFFFF_FFFF) * (a.s[1] & 0xFFFF_FFFF)) >> 32) as u32)),
        0x287 => bin(B32, B32, B32, |a| r32(((i64::from(i(a, 0)) * i64::from(i(a, 1))) >> 32) as u32)),
        0x28B => bin(B32, B32, B32, |a| r32(u(a, 0).count_ones().wrapping_add(u(a, 1)))),
        // v_mbcnt: the set bits of lanes below this one, in the low or high half of a mask.
        0x28C => bin(B32, B32, B32, |a| {
            let below = if a.lane >= 32 { u32::MAX } else { (1u32 << a.lane) - 1 };
            r32((u(a, 0) & below).count_ones().wrapping_add(u(a, 1)))
        }),
        0x28D => bin(B32, B32, B32, |a| {
            let below = if a.lane <= 32 { 0 } else { (1u32 << (a.lane - 32)) - 1 };
            r32((u(a, 0) & below).count_ones().wrapping_add(u(a, 1)))
        }),
        0x297 => bin(B32, B32, B32, |a| r32(u(a, 0).min(0xFFFF) | u(a, 1).min(0xFFFF) << 16)),
        0x298 => bin(B32, B32, B32, |a| {
            let s = |v: i32| v.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as u16 as u32;
            r32(s(i(a, 0)) | s(i(a, 1)) << 16)
        }),
        // gfx9's signed 32- and 16-bit add/sub (VOP3 only): clamp saturates signed.
        0x29C => bin(B32, B32, B32, |a| r32(add_sub_i32(a, i64::from(i(a, 0)) + i64::from(i(a, 1))))),
        0x29D => bin(B32, B32, B32, |a| r32(add_sub_i32(a, i64::from(i(a, 0)) - i64::from(i(a, 1))))),
        0x29E => bin(B16, B16, B16, |a| r16(add_sub_i16(a, i32::from(hi(a, 0)) + i32::from(hi(a, 1))))),
        0x29F => bin(B16, B16, B16, |a| r16(add_sub_i16(a, i32::from(hi(a, 0)) - i32::from(hi(a, 1))))),
        _ => return None,
    })
}

fn add_co(a: &Args, x: u32, y: u32, c: bool) -> Res {
    let s = u64::from(x) + u64::from(y) + u64::from(c);
    let carry = s > u64::from(u32::MAX);
    let v = if carry && a.clamp { u32::MAX } else { s as u32 };
    Res { v: u64::from(v), bit: carry }
}

fn sub_co(a: &Args, x: u32, y: u32, b: bool) -> Res {
    let borrow = u64::from(y) + u64::from(b) > u64::from(x);
    let v = if borrow && a.clamp { 0 } else { x.wrapping_sub(y).wrapping_sub(u32::from(b)) };
    Res { v: u64::from(v), bit: borrow }
}

fn add_u32(a: &Args, x: u32, y: u32) -> u32 {
    if a.clamp {
        x.saturating_add(y)
    } else {
        x.wrapping_add(y)
    }
}

fn sub_u32(a: &Args, x: u32, y: u32) -> u32 {
    if a.clamp {
        x.saturating_sub(y)
    } else {
        x.wrapping_sub(y)
    }
}

fn sat_u16(a: &Args, v: u32) -> u16 {
    if a.clamp {
        v.min(0xFFFF) as u16
    } else {
        v as u16
    }
}

fn sub_u16(a: &Args, x: u16, y: u16) -> u16 {
    if a.clamp {
        x.saturating_sub(y)
    } else {
        x.wrapping_sub(y)
    }
}

/// A signed sum or difference computed wide: wrapped, or saturated under clamp.
fn add_sub_i32(a: &Args, wide: i64) -> u32 {
    if a.clamp {
        wide.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 as u32
    } else {
        wide as i32 as u32
    }
}

fn add_sub_i16(a: &Args, wide: i32) -> u16 {
    if a.clamp {
        wide.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as u16
    } else {
        wide as u16
    }
}

fn mad_u16(a: &Args) -> u16 {
    let v = u32::from(h(a, 0)) * u32::from(h(a, 1)) + u32::from(h(a, 2));
    sat_u16(a, v)
}

fn mad_i16(a: &Args) -> u16 {
    let v = i32::from(hi(a, 0)) * i32::from(hi(a, 1)) + i32::from(hi(a, 2));
    add_sub_i16(a, v)
}

fn med3<T: Ord + Copy>(x: T, y: T, z: T) -> T {
    x.max(y).min(x.min(y).max(z))
}

/// Sum of absolute differences of the four bytes; `masked` (v_msad_u8) skips the bytes where the
/// reference (src1) is zero.
fn sad_u8(x: u32, y: u32, masked: bool) -> u32 {
    (0..4)
        .map(|k| ((x >> (8 * k)) & 0xFF, (y >> (8 * k)) & 0xFF))
        .filter(|&(_, b)| !masked || b != 0)
        .map(|(a, b)| a.abs_diff(b))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(n: u16, s: [u64; 3]) -> Res {
        (op(n).unwrap().f)(&Args { s, ..Args::default() })
    }

    #[test]
    fn med3_picks_the_middle() {
        assert_eq!(med3(3, 1, 2), 2);
        assert_eq!(med3(-5, 7, 0), 0);
        assert_eq!(med3(9u32, 9, 1), 9);
    }

    #[test]
    fn signed_sub_of_the_most_negative() {
        // 0 - i32::MIN overflows: wraps to i32::MIN, saturates to i32::MAX under clamp.
        let min = u64::from(i32::MIN as u32);
        assert_eq!(run(0x29D, [0, min, 0]).v, min);
        let a = Args { s: [0, min, 0], clamp: true, ..Args::default() };
        assert_eq!((op(0x29D).unwrap().f)(&a).v, i32::MAX as u64);
    }
}
