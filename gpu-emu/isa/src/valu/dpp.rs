//! DPP (data-parallel primitives): src0 of a VOP1, VOP2 or VOPC read from another lane, chosen by
//! the DPP word's dpp_ctrl, with row and bank masks saying which lanes may write.

use crate::wave::LANES;

/// The fields of the DPP word.
#[derive(Debug, Clone, Copy)]
pub struct Dpp {
    pub ctrl: u32,
    /// Out-of-range or inactive source lanes read 0 instead of leaving the lane unwritten.
    pub bound_ctrl: bool,
    pub row_mask: u32,
    pub bank_mask: u32,
}

/// Where a lane's src0 comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum From {
    Lane(usize),
    /// The source lane is out of range or off in EXEC: 0 with bound_ctrl, else no write.
    Invalid,
    /// The row or bank mask disables this lane: it is not written.
    Masked,
}

impl Dpp {
    pub fn decode(word: u32) -> Dpp {
        Dpp {
            ctrl: (word >> 8) & 0x1FF,
            bound_ctrl: (word >> 19) & 1 == 1,
            bank_mask: (word >> 24) & 0xF,
            row_mask: (word >> 28) & 0xF,
        }
    }

    /// The lane `lane` reads src0 from, given the wave's EXEC.
    pub fn source(&self, lane: usize, exec: u64) -> From {
        let row_bit = lane / 16;
        // A bank is a group of four consecutive lanes within a row.
        let bank_bit = (lane % 16) / 4;
        if self.row_mask & (1 << row_bit) == 0 || self.bank_mask & (1 << bank_bit) == 0 {
            return From::Masked;
        }
        let c = self.ctrl as usize;
        let base = lane & !15;
        let pos = lane % 16;
        let src = match c {
            0x000..=0x0FF => Some((lane & !3) | ((c >> (2 * (lane & 3))) & 3)),
            0x101..=0x10F => (pos + (c & 15) < 16).then(|| lane + (c & 15)),
            0x111..=0x11F => (pos >= (c & 15)).then(|| lane - (c & 15)),
            0x121..=0x12F => Some(base + (pos + 16 - (c & 15)) % 16),
            0x130 => (lane + 1 < LANES).then_some(lane + 1),
            0x134 => Some((lane + 1) % LANES),
            0x138 => lane.checked_sub(1),
            0x13C => Some((lane + LANES - 1) % LANES),
            0x140 => Some(base + 15 - pos),
            0x141 => Some((lane & !7) + 7 - (lane % 8)),
            // row_bcast:15: the last lane of the previous row; row_bcast:31: lane 31 to rows 2, 3.
            0x142 => (lane >= 16).then(|| base - 1),
            0x143 => (lane >= 32).then_some(31),
            _ => None,
        };
        match src {
            Some(s) if exec >> s & 1 == 1 => From::Lane(s),
            _ => From::Invalid,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dpp(ctrl: u32) -> Dpp {
        Dpp { ctrl, bound_ctrl: false, row_mask: 0xF, bank_mask: 0xF }
    }

    #[test]
    fn lane_moves() {
        let all = u64::MAX;
        // quad_perm:[3,2,1,0]
        assert_eq!(dpp(0x1B).source(5, all), From::Lane(6));
        assert_eq!(dpp(0x111).source(16, all), From::Invalid);
        assert_eq!(dpp(0x111).source(17, all), From::Lane(16));
        assert_eq!(dpp(0x101).source(15, all), From::Invalid);
        assert_eq!(dpp(0x124).source(17, all), From::Lane(29));
        assert_eq!(dpp(0x13C).source(0, all), From::Lane(63));
        assert_eq!(dpp(0x140).source(18, all), From::Lane(29));
        assert_eq!(dpp(0x141).source(9, all), From::Lane(14));
        assert_eq!(dpp(0x142).source(40, all), From::Lane(31));
        assert_eq!(dpp(0x143).source(40, all), From::Lane(31));
        assert_eq!(dpp(0x143).source(20, all), From::Invalid);
        assert_eq!(dpp(0x111).source(17, !(1 << 16)), From::Invalid);
        let masked = Dpp { row_mask: 0xA, bank_mask: 0xE, ..dpp(0x111) };
        assert_eq!(masked.source(1, all), From::Masked);
        assert_eq!(masked.source(17, all), From::Masked);
        assert_eq!(masked.source(21, all), From::Lane(20));
    }
}
