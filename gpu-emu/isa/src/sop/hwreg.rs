//! The hardware registers s_getreg_b32 and s_setreg_b32 name (gfx9 ids, as LLVM's `hwreg()`
//! names them), and the field of one that an instruction's simm16 selects.

use crate::exec::Ctx;
use crate::wave::{aperture, Wave};

pub const MODE: u32 = 1;
pub const STATUS: u32 = 2;
pub const TRAPSTS: u32 = 3;
pub const HW_ID: u32 = 4;
pub const GPR_ALLOC: u32 = 5;
pub const LDS_ALLOC: u32 = 6;
pub const IB_STS: u32 = 7;
pub const SH_MEM_BASES: u32 = 15;
/// TBA_LO, TBA_HI, TMA_LO, TMA_HI: the trap handler's addresses.
pub const TBA_TMA: std::ops::RangeInclusive<u32> = 16..=19;

/// STATUS bits that mirror live wave state.
const STATUS_SCC: u32 = 1;
const STATUS_EXECZ: u32 = 1 << 9;
const STATUS_VCCZ: u32 = 1 << 10;

/// SGPRs every gfx9 wave is given (s0..s101, VCC, FLAT_SCRATCH, XNACK_MASK and the padding to a
/// granule of 16), as GPR_ALLOC reports them.
const SGPRS_ALLOCATED: u32 = 112;

/// The field simm16 selects: register id [5:0], bit offset [10:6], size - 1 [15:11].
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub id: u32,
    pub offset: u32,
    /// The field's bits, at the offset (a field past bit 31 is cut there).
    pub mask: u32,
}

impl Field {
    pub fn of(simm16: u16) -> Field {
        let s = u32::from(simm16);
        let offset = (s >> 6) & 31;
        let size = ((s >> 11) & 31) + 1;
        let mask = (((1u64 << size) - 1) << offset) as u32;
        Field { id: s & 0x3F, offset, mask }
    }
}

/// A hardware register as the wave reads it; None for an id the emulator does not model.
pub fn read(w: &Wave, ctx: &Ctx, id: u32) -> Option<u32> {
    Some(match id {
        MODE => w.mode,
        STATUS => {
            let live = (if w.scc { STATUS_SCC } else { 0 })
                | (if w.exec() == 0 { STATUS_EXECZ } else { 0 })
                | (if w.vcc() == 0 { STATUS_VCCZ } else { 0 });
            (w.status & !(STATUS_SCC | STATUS_EXECZ | STATUS_VCCZ)) | live
        }
        TRAPSTS => w.trapsts,
        HW_ID => w.hw_id,
        // VGPR_SIZE [13:8] in granules of 4 VGPRs, SGPR_SIZE [27:24] in granules of 16 SGPRs,
        // both minus one; the bases are 0 (every wave owns its whole register file here).
        GPR_ALLOC => {
            let vgprs = (w.vgprs() as u32).div_ceil(4).max(1) - 1;
            let sgprs = SGPRS_ALLOCATED / 16 - 1;
            (vgprs & 0x3F) << 8 | (sgprs & 0xF) << 24
        }
        // LDS_SIZE [20:12] in granules of 64 dwords; base 0.
        LDS_ALLOC => {
            let granules = (ctx.lds.len() as u32).div_ceil(256);
            (granules & 0x1FF) << 12
        }
        // Every memory access completes within its instruction: no counter is ever outstanding.
        IB_STS => 0,
        // The apertures' bits [63:48]: private in [15:0], shared in [31:16], the layout LLVM
        // reads the aperture bases from when it lacks the aperture registers.
        SH_MEM_BASES => ((aperture::SHARED_BASE >> 48) as u32) << 16 | (aperture::PRIVATE_BASE >> 48) as u32,
        // No trap handler is installed.
        id if TBA_TMA.contains(&id) => 0,
        _ => return None,
    })
}

/// Writes `value`'s bits under `mask` into a hardware register. MODE and TRAPSTS are the ones a
/// user wave may change; the others are read-only to it and ignore the write, as the hardware
/// does. None for an id the emulator does not model.
pub fn write(w: &mut Wave, id: u32, value: u32, mask: u32) -> Option<()> {
    let merge = |old: u32| (old & !mask) | (value & mask);
    match id {
        MODE => w.mode = merge(w.mode),
        TRAPSTS => w.trapsts = merge(w.trapsts),
        STATUS | HW_ID | GPR_ALLOC | LDS_ALLOC | IB_STS | SH_MEM_BASES => {}
        id if TBA_TMA.contains(&id) => {}
        _ => return None,
    }
    Some(())
}
