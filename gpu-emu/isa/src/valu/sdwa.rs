//! SDWA (sub-dword addressing): a byte or word of each source, and of the destination, in place
//! of the whole dword.

/// The fields of the SDWA word.
#[derive(Debug, Clone, Copy)]
pub struct Sdwa {
    pub dst_sel: u32,
    pub dst_unused: u32,
    pub clamp: bool,
    pub omod: u32,
    pub sel: [u32; 2],
    pub sext: [bool; 2],
    /// neg and abs per source, as VOP3's bit masks (bit 0 src0, bit 1 src1).
    pub neg: u32,
    pub abs: u32,
    /// VOPC: the compare's destination, when the SD bit names one (else VCC).
    pub sdst: Option<u32>,
}

pub const DWORD: u32 = 6;
const UNUSED_SEXT: u32 = 1;
const UNUSED_PRESERVE: u32 = 2;

impl Sdwa {
    pub fn decode(word: u32, vopc: bool) -> Sdwa {
        let b = |lo: u32, n: u32| (word >> lo) & ((1 << n) - 1);
        Sdwa {
            dst_sel: if vopc { DWORD } else { b(8, 3) },
            dst_unused: if vopc { 0 } else { b(11, 2) },
            clamp: !vopc && b(13, 1) == 1,
            omod: if vopc { 0 } else { b(14, 2) },
            sel: [b(16, 3), b(24, 3)],
            sext: [b(19, 1) == 1, b(27, 1) == 1],
            neg: b(20, 1) | b(28, 1) << 1,
            abs: b(21, 1) | b(29, 1) << 1,
            sdst: (vopc && b(15, 1) == 1).then(|| b(8, 7)),
        }
    }
}

/// The selected byte or word of `v`, zero- or sign-extended.
pub fn select(v: u32, sel: u32, sext: bool) -> u32 {
    let (shift, bits) = match sel {
        0..=3 => (8 * sel, 8),
        4 | 5 => (16 * (sel - 4), 16),
        _ => return v,
    };
    let x = v >> shift;
    if sext {
        (((x << (32 - bits)) as i32) >> (32 - bits)) as u32
    } else {
        x & ((1 << bits) - 1)
    }
}

/// The destination dword after writing `v` to the selected byte or word of `old`.
pub fn place(old: u32, v: u32, sel: u32, unused: u32) -> u32 {
    let (shift, bits) = match sel {
        0..=3 => (8 * sel, 8),
        4 | 5 => (16 * (sel - 4), 16),
        _ => return v,
    };
    let field = ((1u32 << bits) - 1) << shift;
    let placed = (v << shift) & field;
    match unused {
        UNUSED_PRESERVE => (old & !field) | placed,
        UNUSED_SEXT => {
            // The bits above the field copy its top bit; those below stay zero.
            let top = shift + bits;
            let neg = (v >> (bits - 1)) & 1 == 1;
            let above = if top >= 32 || !neg { 0 } else { u32::MAX << top };
            placed | above
        }
        _ => placed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selects_and_places() {
        assert_eq!(select(0x1234_80FF, 1, true), 0xFFFF_FF80);
        assert_eq!(select(0x1234_80FF, 1, false), 0x80);
        assert_eq!(select(0x8234_80FF, 5, true), 0xFFFF_8234);
        assert_eq!(place(0xAAAA_BBBB, 0x1234_5678, 5, UNUSED_PRESERVE), 0x5678_BBBB);
        assert_eq!(place(0xAAAA_BBBB, 0x1234_5678, 1, 0), 0x0000_7800);
        assert_eq!(place(0xAAAA_BBBB, 0x0000_0080, 1, UNUSED_SEXT), 0xFFFF_8000);
    }
}
