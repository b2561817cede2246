//! Scalar ALU and program control: SOP1, SOP2, SOPK, SOPC and SOPP, one module each ([`sopc`]
//! and [`sopp`] share one), the hardware registers of s_getreg/s_setreg in [`hwreg`].
//!
//! SCC follows the Vega ISA reference per instruction: carry or borrow for the unsigned adds and
//! subtracts, signed overflow for the signed ones, "S0 was chosen" for min/max, "result is not
//! zero" for the bit operations, shifts and bit-field extracts; moves, multiplies, s_bfm, s_brev,
//! s_ff*, s_flbit*, s_sext and the packs leave it alone.

mod hwreg;
mod sop1;
mod sop2;
mod sopc;
mod sopk;

pub use sop1::sop1;
pub use sop2::sop2;
pub use sopc::{sopc, sopp};
pub use sopk::sopk;

use crate::decode::Inst;
use crate::wave::{Ty, Wave};

/// A 32-bit scalar source (SGPR, constant or the literal).
#[inline]
fn s32(w: &Wave, i: &Inst, code: u32) -> u32 {
    w.scalar32(code, Ty::B32, i.literal())
}

/// A 64-bit scalar source (SGPR pair, constant widened, or the literal).
#[inline]
fn s64(w: &Wave, i: &Inst, code: u32) -> u64 {
    w.scalar64(code, Ty::B64, i.literal())
}

/// The branch target `simm16` dwords from the next instruction (`w.pc`).
#[inline]
fn relative(w: &Wave, simm16: u16) -> u64 {
    w.pc.wrapping_add((i64::from(simm16 as i16) * 4) as u64)
}

/// Bit-field extract of S1's field (offset S1[4:0] or [5:0], width S1[22:16]) from a value of
/// `bits` bits, zero- or sign-extended. The shift is arithmetic for the signed forms, so a field
/// that runs past the top bit is filled with the sign, as the ISA's pseudo-code shifts S0.i.
fn bfe(v: u64, ctl: u32, bits: u32, signed: bool) -> u64 {
    let off = ctl & (bits - 1);
    let width = (ctl >> 16) & 0x7F;
    if width == 0 {
        return 0;
    }
    let shifted = if signed {
        let sv = (v << (64 - bits)) as i64 >> (64 - bits);
        (sv >> off) as u64
    } else {
        v >> off
    };
    let r = if width >= bits {
        shifted
    } else if signed {
        let s = 64 - width;
        (((shifted << s) as i64) >> s) as u64
    } else {
        shifted & ((1u64 << width) - 1)
    };
    if bits == 32 {
        r & 0xFFFF_FFFF
    } else {
        r
    }
}

/// The index of the first set bit from the LSB, or -1 when there is none.
fn ff1(v: u64) -> u32 {
    if v == 0 {
        u32::MAX
    } else {
        v.trailing_zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfe_extracts_and_extends() {
        // 0xABCD_1234: bits [15:8] are 0x12.
        assert_eq!(bfe(0xABCD_1234, 8 | 8 << 16, 32, false), 0x12);
        // bits [23:16] are 0xCD, negative as an i8.
        assert_eq!(bfe(0xABCD_1234, 16 | 8 << 16, 32, true), 0xFFFF_FFCD);
        assert_eq!(bfe(0xABCD_1234, 16, 32, true), 0);
        // A field past bit 31: the signed form fills with the sign.
        assert_eq!(bfe(0x8000_0000, 28 | 8 << 16, 32, true), 0xFFFF_FFF8);
        assert_eq!(bfe(0x8000_0000, 28 | 8 << 16, 32, false), 0x8);
        assert_eq!(bfe(u64::MAX, 4 | 64 << 16, 64, false), u64::MAX >> 4);
    }
}
