//! The VALU instructions that move data between lanes and scalar registers, or do nothing, run
//! here rather than through the per-lane table: v_nop, v_clrexcp, v_readfirstlane_b32,
//! v_readlane_b32, v_writelane_b32 and v_swap_b32.

use crate::decode::{Format, Inst};
use crate::wave::{Ty, Wave, LANES};

const NOP: u16 = 0x140;
const READFIRSTLANE: u16 = 0x142;
const CLREXCP: u16 = 0x175;
const SWAP: u16 = 0x191;
const READLANE: u16 = 0x289;
const WRITELANE: u16 = 0x28A;

/// Runs `i` if it is one of these; false if it is not.
pub fn exec(w: &mut Wave, i: &Inst, n: u16) -> bool {
    match n {
        // Exceptions are not modelled, so there are none to clear.
        NOP | CLREXCP => {}
        READFIRSTLANE => {
            let exec = w.exec();
            let lane = if exec == 0 { 0 } else { exec.trailing_zeros() as usize };
            let v = w.src32(i.src0(), lane, Ty::B32, i.literal());
            // VOP1 and VOP3 both name the SGPR in the vdst field.
            w.set_sgpr(i.vdst(), v);
        }
        READLANE => {
            let lane = (w.scalar32(i.src1(), Ty::B32, None) & 63) as usize;
            let v = w.src32(i.src0(), lane, Ty::B32, None);
            w.set_sgpr(i.vdst(), v);
        }
        WRITELANE => {
            // EXEC does not gate v_writelane: the named lane is written whatever its bit.
            let lane = (w.scalar32(i.src1(), Ty::B32, None) & 63) as usize;
            let v = w.scalar32(i.src0(), Ty::B32, None);
            w.set_vgpr(i.vdst(), lane, v);
        }
        SWAP if i.format == Format::Vop1 && i.src0() >= 256 => {
            let (a, b) = (i.vdst(), i.src0().wrapping_sub(256));
            let exec = w.exec();
            for lane in (0..LANES).filter(|&l| exec >> l & 1 == 1) {
                let (x, y) = (w.vgpr(a, lane), w.vgpr(b, lane));
                w.set_vgpr(a, lane, y);
                w.set_vgpr(b, lane, x);
            }
        }
        _ => return false,
    }
    true
}
