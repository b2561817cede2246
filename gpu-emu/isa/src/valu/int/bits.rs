//! Shifts, logic, bit fields, bit counts, byte permutes and packs.

use super::{bin, r, r16, r32, tri, u, un, Args};
use crate::valu::Op;
use crate::wave::Ty::{B16, B32, B64};

pub(super) fn op(n: u16) -> Option<Op> {
    Some(match n {
        // The "rev" shifts take the shift amount in src0 and the value in src1.
        0x110 => bin(B32, B32, B32, |a| r32(u(a, 1) >> (u(a, 0) & 31))),
        0x111 => bin(B32, B32, B32, |a| r32(((u(a, 1) as i32) >> (u(a, 0) & 31)) as u32)),
        0x112 => bin(B32, B32, B32, |a| r32(u(a, 1) << (u(a, 0) & 31))),
        0x113 => bin(B32, B32, B32, |a| r32(u(a, 0) & u(a, 1))),
        0x114 => bin(B32, B32, B32, |a| r32(u(a, 0) | u(a, 1))),
        0x115 => bin(B32, B32, B32, |a| r32(u(a, 0) ^ u(a, 1))),
        0x12A => bin(B16, B16, B16, |a| r16((a.s[1] as u16) << (a.s[0] & 15))),
        0x12B => bin(B16, B16, B16, |a| r16((a.s[1] as u16) >> (a.s[0] & 15))),
        0x12C => bin(B16, B16, B16, |a| r16(((a.s[1] as u16 as i16) >> (a.s[0] & 15)) as u16)),
        0x13D => bin(B32, B32, B32, |a| r32(!(u(a, 0) ^ u(a, 1)))),
        0x16B => un(B32, B32, |a| r32(!u(a, 0))),
        0x16C => un(B32, B32, |a| r32(u(a, 0).reverse_bits())),
        // v_ffbh_u32 / v_ffbl_b32: bit position from the MSB / LSB, all ones when no bit is set.
        0x16D => un(B32, B32, |a| r32(if u(a, 0) == 0 { u32::MAX } else { u(a, 0).leading_zeros() })),
        0x16E => un(B32, B32, |a| r32(if u(a, 0) == 0 { u32::MAX } else { u(a, 0).trailing_zeros() })),
        // v_ffbh_i32: the first bit, from the MSB, that differs from the sign bit.
        0x16F => un(B32, B32, |a| {
            let v = u(a, 0);
            let x = if v >> 31 == 1 { !v } else { v };
            r32(if x == 0 { u32::MAX } else { x.leading_zeros() })
        }),
        // v_sat_pk_u8_i16: two signed halves saturated to bytes, packed into the low half.
        0x18F => un(B32, B32, |a| {
            let s = |v: u32| (v as u16 as i16).clamp(0, 255) as u32;
            r32(s(u(a, 0)) | s(u(a, 0) >> 16) << 8)
        }),
        0x1C8 => tri([B32; 3], B32, |a| r32(bfe(a) & mask(u(a, 2) & 31))),
        0x1C9 => tri([B32; 3], B32, |a| {
            let w = u(a, 2) & 31;
            r32(if w == 0 { 0 } else { (((bfe(a) << (32 - w)) as i32) >> (32 - w)) as u32 })
        }),
        0x1CA => tri([B32; 3], B32, |a| r32((u(a, 0) & u(a, 1)) | (!u(a, 0) & u(a, 2)))),
        // v_lerp_u8: per byte, the rounded average, src2's byte's low bit the rounding.
        0x1CD => tri([B32; 3], B32, |a| {
            let b = |k: usize, s: u32| (u(a, k) >> s) & 0xFF;
            r32((0..4).map(|j| ((b(0, 8 * j) + b(1, 8 * j) + (b(2, 8 * j) & 1)) >> 1) << (8 * j)).sum())
        }),
        // v_alignbit / v_alignbyte: the low 32 bits of {src0, src1} shifted right.
        0x1CE => tri([B32; 3], B32, |a| r32((pair(a) >> (u(a, 2) & 31)) as u32)),
        0x1CF => tri([B32; 3], B32, |a| r32((pair(a) >> (8 * (u(a, 2) & 3))) as u32)),
        0x1ED => tri([B32; 3], B32, |a| r32(perm(pair(a), u(a, 2)))),
        0x200 => tri([B32; 3], B32, |a| r32((u(a, 0) << (u(a, 1) & 31)) | u(a, 2))),
        0x201 => tri([B32; 3], B32, |a| r32((u(a, 0) & u(a, 1)) | u(a, 2))),
        0x202 => tri([B32; 3], B32, |a| r32(u(a, 0) | u(a, 1) | u(a, 2))),
        0x28F => bin(B32, B64, B64, |a| r(a.s[1] << (a.s[0] & 63))),
        0x290 => bin(B32, B64, B64, |a| r(a.s[1] >> (a.s[0] & 63))),
        0x291 => bin(B32, B64, B64, |a| r(((a.s[1] as i64) >> (a.s[0] & 63)) as u64)),
        0x293 => bin(B32, B32, B32, |a| r32(mask(u(a, 0) & 31) << (u(a, 1) & 31))),
        _ => return None,
    })
}

/// src0 shifted right by src1's low 5 bits: the field v_bfe extracts, at bit 0.
fn bfe(a: &Args) -> u32 {
    u(a, 0) >> (u(a, 1) & 31)
}

/// The low `w` bits set (w < 32).
fn mask(w: u32) -> u32 {
    (1u32 << w) - 1
}

fn pair(a: &Args) -> u64 {
    (a.s[0] & 0xFFFF_FFFF) << 32 | (a.s[1] & 0xFFFF_FFFF)
}

/// v_perm_b32: each byte of `sel` picks a byte of {src0, src1} (0-7), the sign of byte 1, 3, 5
/// or 7 spread to a byte (8-11), zero (12) or all ones (13 and above).
fn perm(src: u64, sel: u32) -> u32 {
    let byte = |s: u32| -> u32 {
        match s {
            0..=7 => ((src >> (8 * s)) & 0xFF) as u32,
            8..=11 => {
                let bit = 16 * (s - 8) + 15;
                if (src >> bit) & 1 == 1 {
                    0xFF
                } else {
                    0
                }
            }
            12 => 0,
            _ => 0xFF,
        }
    };
    (0..4).map(|k| byte((sel >> (8 * k)) & 0xFF) << (8 * k)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perm_selects_bytes_signs_and_constants() {
        // src0 = 0x8899AABB (bytes 4-7), src1 = 0x11223344 (bytes 0-3)
        let src = 0x8899_AABB_1122_3344u64;
        assert_eq!(perm(src, 0x0004_0700), 0x44BB_8844);
        // 8: bit 15 (0x33 → 0), 10: bit 47 (0xAA → 1), 12: 0x00, 13: 0xFF
        assert_eq!(perm(src, 0x0D0C_0A08), 0xFF00_FF00);
    }
}
