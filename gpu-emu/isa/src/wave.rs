//! One wave's architectural state: 102 SGPRs and the special scalar registers (kept at their
//! operand codes so that an operand code indexes them directly), up to 256 VGPRs of 64 lanes,
//! SCC, the program counter and the MODE register; and how source operands are read: registers,
//! inline constants (integer and float, by operand type) and the 32-bit literal.

/// Lanes of a wave on gfx9.
pub const LANES: usize = 64;

/// Scalar operand codes of the special registers.
pub mod reg {
    pub const FLAT_SCRATCH_LO: u32 = 102;
    pub const FLAT_SCRATCH_HI: u32 = 103;
    pub const XNACK_MASK_LO: u32 = 104;
    pub const VCC_LO: u32 = 106;
    pub const VCC_HI: u32 = 107;
    pub const TTMP0: u32 = 108;
    pub const M0: u32 = 124;
    pub const EXEC_LO: u32 = 126;
    pub const EXEC_HI: u32 = 127;
    /// Source-only codes.
    pub const ZERO: u32 = 128;
    pub const SHARED_BASE: u32 = 235;
    pub const SHARED_LIMIT: u32 = 236;
    pub const PRIVATE_BASE: u32 = 237;
    pub const PRIVATE_LIMIT: u32 = 238;
    pub const POPS_EXITING_WAVE_ID: u32 = 239;
    pub const VCCZ: u32 = 251;
    pub const EXECZ: u32 = 252;
    pub const SCC: u32 = 253;
    pub const LDS_DIRECT: u32 = 254;
    pub const LITERAL: u32 = 255;
    pub const VGPR0: u32 = 256;
}

/// The apertures flat addresses fall in, as the emulated GPU's topology gives them to ROCr
/// (KFD's gfx9 dGPU bases): a flat address whose high 32 bits are the shared (LDS) or private
/// (scratch) base's is an LDS or scratch address.
pub mod aperture {
    pub const SHARED_BASE: u64 = 0x1_0000_0000_0000;
    pub const PRIVATE_BASE: u64 = 0x2_0000_0000_0000;
    /// Each aperture spans 4 GiB.
    pub const SIZE: u64 = 1 << 32;
}

/// The type an instruction reads an operand as: it decides which inline constant a code means
/// and how a literal widens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    B16,
    F16,
    B32,
    F32,
    B64,
    F64,
}

/// The float inline constants (codes 240 to 248) as f16, f32 and f64 bits.
const INLINE_F16: [u16; 9] = [0x3800, 0xB800, 0x3C00, 0xBC00, 0x4000, 0xC000, 0x4400, 0xC400, 0x3118];
const INLINE_F32: [u32; 9] = [
    0x3F00_0000,
    0xBF00_0000,
    0x3F80_0000,
    0xBF80_0000,
    0x4000_0000,
    0xC000_0000,
    0x4080_0000,
    0xC080_0000,
    0x3E22_F983,
];
const INLINE_F64: [u64; 9] = [
    0x3FE0_0000_0000_0000,
    0xBFE0_0000_0000_0000,
    0x3FF0_0000_0000_0000,
    0xBFF0_0000_0000_0000,
    0x4000_0000_0000_0000,
    0xC000_0000_0000_0000,
    0x4010_0000_0000_0000,
    0xC010_0000_0000_0000,
    0x3FC4_5F30_6DC9_C882,
];

#[derive(Clone)]
pub struct Wave {
    /// Scalar registers by operand code 0..=127: s0..s101, flat_scratch (102, 103), xnack_mask
    /// (104, 105), vcc (106, 107), ttmp0..15 (108..123), m0 (124), exec (126, 127).
    pub s: [u32; 128],
    /// VGPRs, register-major: `v[reg * 64 + lane]`.
    pub v: Vec<u32>,
    pub scc: bool,
    /// The address of the next instruction to run.
    pub pc: u64,
    /// HW_REG_MODE: round and denormal modes (from COMPUTE_PGM_RSRC1), IEEE and DX10 clamp.
    pub mode: u32,
    /// HW_REG_TRAPSTS, HW_REG_STATUS and HW_REG_HW_ID as the wave reads them with s_getreg.
    pub trapsts: u32,
    pub status: u32,
    pub hw_id: u32,
    /// This wave's number within its work-group.
    pub index: u32,
}

impl Wave {
    /// A wave with `vgprs` VGPRs (all registers zero).
    pub fn new(vgprs: usize) -> Wave {
        Wave {
            s: [0; 128],
            v: vec![0; vgprs.clamp(1, 256) * LANES],
            scc: false,
            pc: 0,
            mode: 0,
            trapsts: 0,
            status: 0,
            hw_id: 0,
            index: 0,
        }
    }

    /// VGPRs this wave has.
    pub fn vgprs(&self) -> usize {
        self.v.len() / LANES
    }

    pub fn exec(&self) -> u64 {
        self.sgpr64(reg::EXEC_LO)
    }
    pub fn set_exec(&mut self, mask: u64) {
        self.set_sgpr64(reg::EXEC_LO, mask);
    }
    pub fn vcc(&self) -> u64 {
        self.sgpr64(reg::VCC_LO)
    }
    pub fn set_vcc(&mut self, mask: u64) {
        self.set_sgpr64(reg::VCC_LO, mask);
    }
    pub fn m0(&self) -> u32 {
        self.s[reg::M0 as usize]
    }

    /// A scalar register (code 0..127); code 125 and codes past the table read 0.
    pub fn sgpr(&self, code: u32) -> u32 {
        self.s.get(code as usize).copied().unwrap_or(0)
    }
    /// Writes a scalar register (code 0..127); writes elsewhere are dropped, as the hardware
    /// drops writes to read-only codes.
    pub fn set_sgpr(&mut self, code: u32, value: u32) {
        if let Some(r) = self.s.get_mut(code as usize) {
            *r = value;
        }
    }
    pub fn sgpr64(&self, code: u32) -> u64 {
        u64::from(self.sgpr(code)) | u64::from(self.sgpr(code + 1)) << 32
    }
    pub fn set_sgpr64(&mut self, code: u32, value: u64) {
        self.set_sgpr(code, value as u32);
        self.set_sgpr(code + 1, (value >> 32) as u32);
    }

    /// VGPR `reg`, lane `lane`; a register past the wave's allocation reads 0.
    #[inline]
    pub fn vgpr(&self, reg: u32, lane: usize) -> u32 {
        self.v.get(reg as usize * LANES + lane).copied().unwrap_or(0)
    }
    #[inline]
    pub fn set_vgpr(&mut self, reg: u32, lane: usize, value: u32) {
        if let Some(r) = self.v.get_mut(reg as usize * LANES + lane) {
            *r = value;
        }
    }
    #[inline]
    pub fn vgpr64(&self, reg: u32, lane: usize) -> u64 {
        u64::from(self.vgpr(reg, lane)) | u64::from(self.vgpr(reg + 1, lane)) << 32
    }
    #[inline]
    pub fn set_vgpr64(&mut self, reg: u32, lane: usize, value: u64) {
        self.set_vgpr(reg, lane, value as u32);
        self.set_vgpr(reg + 1, lane, (value >> 32) as u32);
    }

    /// A source operand that is not a VGPR, as 32 bits of type `ty` (16-bit types in the low
    /// half). `literal` is the instruction's literal word, if it has one.
    pub fn scalar32(&self, code: u32, ty: Ty, literal: Option<u32>) -> u32 {
        match code {
            0..=127 => self.sgpr(code),
            128..=208 => inline_int(code) as u32,
            240..=248 => {
                let i = (code - 240) as usize;
                match ty {
                    Ty::F16 | Ty::B16 => u32::from(INLINE_F16[i]),
                    _ => INLINE_F32[i],
                }
            }
            reg::SHARED_BASE => (aperture::SHARED_BASE >> 32) as u32,
            reg::SHARED_LIMIT => ((aperture::SHARED_BASE + aperture::SIZE - 1) >> 32) as u32,
            reg::PRIVATE_BASE => (aperture::PRIVATE_BASE >> 32) as u32,
            reg::PRIVATE_LIMIT => ((aperture::PRIVATE_BASE + aperture::SIZE - 1) >> 32) as u32,
            reg::VCCZ => u32::from(self.vcc() == 0),
            reg::EXECZ => u32::from(self.exec() == 0),
            reg::SCC => u32::from(self.scc),
            reg::LITERAL => literal.unwrap_or(0),
            _ => 0,
        }
    }

    /// A source operand that is not a VGPR, as 64 bits of type `ty`: a register pair, an inline
    /// constant widened as the type needs (integers sign-extended, floats as f64), a literal
    /// (the high half of an f64; zero-extended for integers).
    pub fn scalar64(&self, code: u32, ty: Ty, literal: Option<u32>) -> u64 {
        match code {
            0..=127 => self.sgpr64(code),
            128..=208 => inline_int(code) as u64,
            240..=248 => {
                let i = (code - 240) as usize;
                match ty {
                    Ty::F64 | Ty::B64 => INLINE_F64[i],
                    _ => u64::from(INLINE_F32[i]),
                }
            }
            reg::SHARED_BASE => aperture::SHARED_BASE,
            reg::SHARED_LIMIT => aperture::SHARED_BASE + aperture::SIZE - 1,
            reg::PRIVATE_BASE => aperture::PRIVATE_BASE,
            reg::PRIVATE_LIMIT => aperture::PRIVATE_BASE + aperture::SIZE - 1,
            reg::LITERAL => {
                let l = u64::from(literal.unwrap_or(0));
                if ty == Ty::F64 {
                    l << 32
                } else {
                    l
                }
            }
            _ => u64::from(self.scalar32(code, ty, literal)),
        }
    }

    /// A vector source operand (any code; 256+ is a VGPR) for one lane, as 32 bits.
    #[inline]
    pub fn src32(&self, code: u32, lane: usize, ty: Ty, literal: Option<u32>) -> u32 {
        if code >= reg::VGPR0 {
            self.vgpr(code - reg::VGPR0, lane)
        } else {
            self.scalar32(code, ty, literal)
        }
    }

    /// A vector source operand for one lane, as 64 bits.
    #[inline]
    pub fn src64(&self, code: u32, lane: usize, ty: Ty, literal: Option<u32>) -> u64 {
        if code >= reg::VGPR0 {
            self.vgpr64(code - reg::VGPR0, lane)
        } else {
            self.scalar64(code, ty, literal)
        }
    }
}

/// Integer inline constants: 128 is 0, 129..192 are 1..64, 193..208 are -1..-16.
fn inline_int(code: u32) -> i64 {
    match code {
        128..=192 => i64::from(code - 128),
        193..=208 => -i64::from(code - 192),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_constants_follow_the_operand_type() {
        let w = Wave::new(4);
        assert_eq!(w.scalar32(129, Ty::B32, None), 1);
        assert_eq!(w.scalar32(193, Ty::B32, None), u32::MAX);
        assert_eq!(w.scalar64(193, Ty::B64, None), u64::MAX);
        assert_eq!(w.scalar32(242, Ty::F32, None), 1.0f32.to_bits());
        assert_eq!(w.scalar64(242, Ty::F64, None), 1.0f64.to_bits());
        assert_eq!(w.scalar32(242, Ty::F16, None), 0x3C00);
        assert_eq!(w.scalar64(255, Ty::F64, Some(0x4000_0000)), 2.0f64.to_bits());
    }

    #[test]
    fn special_registers_live_at_their_codes() {
        let mut w = Wave::new(4);
        w.set_exec(0xFFFF_0000_0000_FFFF);
        assert_eq!(w.scalar32(reg::EXEC_HI, Ty::B32, None), 0xFFFF_0000);
        assert_eq!(w.scalar32(reg::EXECZ, Ty::B32, None), 0);
        w.set_vcc(0);
        assert_eq!(w.scalar32(reg::VCCZ, Ty::B32, None), 1);
    }
}
