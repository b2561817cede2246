//! Instruction words to [`Inst`]: the encoding family, the opcode within it, the words the
//! instruction takes (a 32-bit literal, an SDWA or DPP word included) and named field accessors.
//! The bit positions are those of AMD's Vega ISA reference ("Microcode Formats"), checked against
//! `llvm-mc-15 -mcpu=gfx906 -show-encoding`.

use crate::names;

/// An encoding family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    Sop2,
    Sopk,
    Sop1,
    Sopc,
    Sopp,
    Smem,
    Vop2,
    Vop1,
    Vopc,
    Vop3,
    Vop3p,
    Vintrp,
    Ds,
    Mubuf,
    Mtbuf,
    Mimg,
    /// FLAT, GLOBAL and SCRATCH: one encoding, told apart by [`Inst::seg`].
    Flat,
    Exp,
}

/// The extra word a VOP1, VOP2 or VOPC instruction carries in place of src0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ext {
    None,
    /// src0 = 0xF9: sub-dword selection, in the second word.
    Sdwa,
    /// src0 = 0xFA: data-parallel lane permutation, in the second word.
    Dpp,
}

/// Operand code of a 32-bit literal that follows the instruction.
pub const LITERAL: u32 = 255;
/// Operand code of SDWA in a VOP1/VOP2/VOPC src0.
pub const SDWA: u32 = 0xF9;
/// Operand code of DPP in a VOP1/VOP2/VOPC src0.
pub const DPP: u32 = 0xFA;

/// One decoded instruction. The fields are read from the raw words by the accessors below, named
/// as the ISA reference names them; which apply depends on [`Inst::format`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inst {
    pub format: Format,
    /// The opcode within the family. VOP1, VOP2 and VOPC keep their own opcode numbers; see
    /// [`Inst::vop3_op`] for the VOP3 number of the same operation.
    pub op: u16,
    /// The instruction's words: the encoding's one or two, then the literal if any.
    pub w: [u32; 3],
    /// How many words the instruction takes (1 to 3).
    pub len: u8,
    pub ext: Ext,
}

/// Why words did not decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("the code ends inside an instruction")]
    Truncated,
    #[error("no gfx906 encoding starts with {0:#010x}")]
    Unknown(u32),
}

#[inline]
fn bits(w: u32, lo: u32, width: u32) -> u32 {
    (w >> lo) & ((1u32 << width) - 1)
}

/// VOP2 opcodes that always carry a 32-bit literal (v_madmk_f32, v_madak_f32, v_madmk_f16,
/// v_madak_f16).
const VOP2_WITH_LITERAL: [u16; 4] = [0x17, 0x18, 0x24, 0x25];
/// SOPK's s_setreg_imm32_b32, which carries a 32-bit literal.
const SOPK_SETREG_IMM32: u16 = 0x14;

/// Decodes the instruction at the start of `code`.
pub fn decode(code: &[u32]) -> Result<Inst, DecodeError> {
    let w0 = *code.first().ok_or(DecodeError::Truncated)?;
    let (format, op, base_len) = family(w0)?;
    let mut inst = Inst { format, op, w: [w0, 0, 0], len: base_len, ext: Ext::None };
    if base_len == 2 {
        inst.w[1] = *code.get(1).ok_or(DecodeError::Truncated)?;
    }
    let literal = match format {
        Format::Sop2 | Format::Sopc => bits(w0, 0, 8) == LITERAL || bits(w0, 8, 8) == LITERAL,
        Format::Sop1 => bits(w0, 0, 8) == LITERAL,
        Format::Sopk => op == SOPK_SETREG_IMM32,
        Format::Vop1 | Format::Vop2 | Format::Vopc => {
            let src0 = bits(w0, 0, 9);
            if src0 == SDWA || src0 == DPP {
                inst.ext = if src0 == SDWA { Ext::Sdwa } else { Ext::Dpp };
                inst.w[1] = *code.get(1).ok_or(DecodeError::Truncated)?;
                inst.len = 2;
                false
            } else {
                src0 == LITERAL || (format == Format::Vop2 && VOP2_WITH_LITERAL.contains(&op))
            }
        }
        _ => false,
    };
    if literal {
        let at = inst.len as usize;
        inst.w[at] = *code.get(at).ok_or(DecodeError::Truncated)?;
        inst.len += 1;
    }
    Ok(inst)
}

/// The family, opcode and encoding length (1 or 2 words, before any literal or SDWA/DPP word).
fn family(w: u32) -> Result<(Format, u16, u8), DecodeError> {
    let f = |format, op: u32, len| Ok((format, op as u16, len));
    match w >> 23 {
        0x17D => return f(Format::Sop1, bits(w, 8, 8), 1),
        0x17E => return f(Format::Sopc, bits(w, 16, 7), 1),
        0x17F => return f(Format::Sopp, bits(w, 16, 7), 1),
        0x1A7 => return f(Format::Vop3p, bits(w, 16, 7), 2),
        _ => {}
    }
    if w >> 28 == 0xB {
        return f(Format::Sopk, bits(w, 23, 5), 1);
    }
    if w >> 30 == 0x2 {
        return f(Format::Sop2, bits(w, 23, 7), 1);
    }
    if w >> 31 == 0 {
        return match w >> 25 {
            0x3F => f(Format::Vop1, bits(w, 9, 8), 1),
            0x3E => f(Format::Vopc, bits(w, 17, 8), 1),
            _ => f(Format::Vop2, bits(w, 25, 6), 1),
        };
    }
    match w >> 26 {
        0x30 => f(Format::Smem, bits(w, 18, 8), 2),
        0x34 => f(Format::Vop3, bits(w, 16, 10), 2),
        0x35 => f(Format::Vintrp, bits(w, 16, 2), 1),
        0x36 => f(Format::Ds, bits(w, 17, 8), 2),
        0x37 => f(Format::Flat, bits(w, 18, 7), 2),
        0x38 => f(Format::Mubuf, bits(w, 18, 7), 2),
        0x3A => f(Format::Mtbuf, bits(w, 15, 4), 2),
        0x3C => f(Format::Mimg, bits(w, 18, 7), 2),
        0x31 => f(Format::Exp, 0, 2),
        _ => Err(DecodeError::Unknown(w)),
    }
}

/// The VOP3 opcode space: VOPC ops at 0x000, VOP2 at 0x100, VOP1 at 0x140, VOP3-only ops above.
pub const VOP3_FROM_VOPC: u16 = 0x000;
pub const VOP3_FROM_VOP2: u16 = 0x100;
pub const VOP3_FROM_VOP1: u16 = 0x140;

impl Inst {
    /// The instruction's size in bytes.
    pub fn bytes(&self) -> u64 {
        u64::from(self.len) * 4
    }

    /// The mnemonic, as LLVM's disassembler names it (without `_e32`/`_e64`/`_sdwa`/`_dpp`; FLAT
    /// by its segment: `flat_`, `global_`, `scratch_`).
    pub fn name(&self) -> &'static str {
        names::mnemonic_of(self).unwrap_or("<unknown>")
    }

    /// The 32-bit literal, when the instruction has one.
    pub fn literal(&self) -> Option<u32> {
        let has = match self.format {
            Format::Sop1 | Format::Sop2 | Format::Sopc | Format::Sopk => self.len == 2,
            Format::Vop1 | Format::Vop2 | Format::Vopc => self.ext == Ext::None && self.len == 2,
            _ => false,
        };
        has.then(|| self.w[self.len as usize - 1])
    }

    /// For VOP1, VOP2, VOPC and VOP3: the operation's number in the VOP3 opcode space, so that one
    /// table of semantics serves all four encodings.
    pub fn vop3_op(&self) -> u16 {
        match self.format {
            Format::Vopc => VOP3_FROM_VOPC + self.op,
            Format::Vop2 => VOP3_FROM_VOP2 + self.op,
            Format::Vop1 => VOP3_FROM_VOP1 + self.op,
            _ => self.op,
        }
    }

    // --- SOP1 / SOP2 / SOPC / SOPK / SOPP ---

    /// SOP1/SOP2/SOPC: ssrc0 (operand code 0..255).
    pub fn ssrc0(&self) -> u32 {
        bits(self.w[0], 0, 8)
    }
    /// SOP2/SOPC: ssrc1.
    pub fn ssrc1(&self) -> u32 {
        bits(self.w[0], 8, 8)
    }
    /// SOP1/SOP2/SOPK: sdst (operand code 0..127).
    pub fn sdst(&self) -> u32 {
        bits(self.w[0], 16, 7)
    }
    /// SOPK/SOPP: simm16.
    pub fn simm16(&self) -> u16 {
        bits(self.w[0], 0, 16) as u16
    }

    // --- SMEM ---

    /// SMEM: sbase, as the first SGPR of the pair (the field holds half of it).
    pub fn smem_sbase(&self) -> u32 {
        bits(self.w[0], 0, 6) << 1
    }
    /// SMEM: sdata, the first SGPR written or read.
    pub fn smem_sdata(&self) -> u32 {
        bits(self.w[0], 6, 7)
    }
    /// SMEM: soe, an SGPR offset as well as the immediate.
    pub fn smem_soe(&self) -> bool {
        bits(self.w[0], 14, 1) == 1
    }
    pub fn smem_glc(&self) -> bool {
        bits(self.w[0], 16, 1) == 1
    }
    /// SMEM: imm, the offset field is an immediate (else it names an SGPR).
    pub fn smem_imm(&self) -> bool {
        bits(self.w[0], 17, 1) == 1
    }
    /// SMEM: the 21-bit offset field.
    pub fn smem_offset(&self) -> u32 {
        bits(self.w[1], 0, 21)
    }
    /// SMEM: soffset (an SGPR, with soe).
    pub fn smem_soffset(&self) -> u32 {
        bits(self.w[1], 25, 7)
    }

    // --- VOP1 / VOP2 / VOPC ---

    /// VOP1/VOP2/VOPC: src0 (operand code 0..511; 256+ are VGPRs).
    pub fn src0(&self) -> u32 {
        match self.format {
            Format::Vop3 | Format::Vop3p => bits(self.w[1], 0, 9),
            _ => bits(self.w[0], 0, 9),
        }
    }
    /// VOP2/VOPC: vsrc1 as a VGPR number; VOP3/VOP3P: src1 as an operand code.
    pub fn src1(&self) -> u32 {
        match self.format {
            Format::Vop3 | Format::Vop3p => bits(self.w[1], 9, 9),
            _ => bits(self.w[0], 9, 8) + 256,
        }
    }
    /// VOP3/VOP3P: src2 as an operand code.
    pub fn src2(&self) -> u32 {
        bits(self.w[1], 18, 9)
    }
    /// VOP1/VOP2/VOP3/VOP3P: the destination VGPR.
    pub fn vdst(&self) -> u32 {
        match self.format {
            Format::Vop3 | Format::Vop3p => bits(self.w[0], 0, 8),
            _ => bits(self.w[0], 17, 8),
        }
    }

    // --- VOP3 / VOP3P ---

    /// VOP3a: abs bits for src0..src2. VOP3P: neg_hi.
    pub fn vop3_abs(&self) -> u32 {
        bits(self.w[0], 8, 3)
    }
    /// VOP3b: the scalar destination (carry out, or a VOPC result).
    pub fn vop3_sdst(&self) -> u32 {
        bits(self.w[0], 8, 7)
    }
    /// VOP3a: op_sel (4 bits); VOP3P: op_sel (3 bits, src0..src2).
    pub fn vop3_opsel(&self) -> u32 {
        match self.format {
            Format::Vop3p => bits(self.w[0], 11, 3),
            _ => bits(self.w[0], 11, 4),
        }
    }
    /// VOP3P: op_sel_hi for src0..src2 (src2's bit lives in the first word).
    pub fn vop3p_opsel_hi(&self) -> u32 {
        bits(self.w[1], 27, 2) | bits(self.w[0], 14, 1) << 2
    }
    pub fn vop3_clamp(&self) -> bool {
        bits(self.w[0], 15, 1) == 1
    }
    /// VOP3: output modifier (0 none, 1 ×2, 2 ×4, 3 ÷2).
    pub fn vop3_omod(&self) -> u32 {
        bits(self.w[1], 27, 2)
    }
    /// VOP3: neg bits for src0..src2; VOP3P: neg_lo.
    pub fn vop3_neg(&self) -> u32 {
        bits(self.w[1], 29, 3)
    }

    // --- SDWA / DPP (the second word of a VOP1/VOP2/VOPC) ---

    /// The SDWA or DPP word.
    pub fn ext_word(&self) -> u32 {
        self.w[1]
    }

    // --- DS ---

    pub fn ds_offset0(&self) -> u32 {
        bits(self.w[0], 0, 8)
    }
    pub fn ds_offset1(&self) -> u32 {
        bits(self.w[0], 8, 8)
    }
    /// DS: the 16-bit offset of single-address instructions (offset1:offset0).
    pub fn ds_offset16(&self) -> u32 {
        bits(self.w[0], 0, 16)
    }
    pub fn ds_gds(&self) -> bool {
        bits(self.w[0], 16, 1) == 1
    }
    pub fn ds_addr(&self) -> u32 {
        bits(self.w[1], 0, 8)
    }
    pub fn ds_data0(&self) -> u32 {
        bits(self.w[1], 8, 8)
    }
    pub fn ds_data1(&self) -> u32 {
        bits(self.w[1], 16, 8)
    }
    pub fn ds_vdst(&self) -> u32 {
        bits(self.w[1], 24, 8)
    }

    // --- MUBUF / MTBUF ---

    pub fn buf_offset(&self) -> u32 {
        bits(self.w[0], 0, 12)
    }
    pub fn buf_offen(&self) -> bool {
        bits(self.w[0], 12, 1) == 1
    }
    pub fn buf_idxen(&self) -> bool {
        bits(self.w[0], 13, 1) == 1
    }
    pub fn buf_glc(&self) -> bool {
        bits(self.w[0], 14, 1) == 1
    }
    /// MUBUF: lds (the data goes to LDS at M0).
    pub fn buf_lds(&self) -> bool {
        self.format == Format::Mubuf && bits(self.w[0], 16, 1) == 1
    }
    /// MTBUF: the data format (dfmt).
    pub fn mtbuf_dfmt(&self) -> u32 {
        bits(self.w[0], 19, 4)
    }
    /// MTBUF: the number format (nfmt).
    pub fn mtbuf_nfmt(&self) -> u32 {
        bits(self.w[0], 23, 3)
    }
    pub fn buf_vaddr(&self) -> u32 {
        bits(self.w[1], 0, 8)
    }
    pub fn buf_vdata(&self) -> u32 {
        bits(self.w[1], 8, 8)
    }
    /// MUBUF/MTBUF: the first SGPR of the 4-SGPR buffer resource.
    pub fn buf_srsrc(&self) -> u32 {
        bits(self.w[1], 16, 5) << 2
    }
    /// MUBUF/MTBUF: soffset (an operand code: an SGPR, M0 or an inline constant).
    pub fn buf_soffset(&self) -> u32 {
        bits(self.w[1], 24, 8)
    }

    // --- FLAT / GLOBAL / SCRATCH ---

    /// FLAT: the 13-bit offset field (unsigned for FLAT, signed for GLOBAL and SCRATCH).
    pub fn flat_offset(&self) -> i32 {
        let raw = bits(self.w[0], 0, 13) as i32;
        if self.flat_seg() == 0 {
            raw & 0xFFF
        } else {
            (raw << 19) >> 19
        }
    }
    /// FLAT: the segment, 0 FLAT, 1 SCRATCH, 2 GLOBAL.
    pub fn flat_seg(&self) -> u32 {
        bits(self.w[0], 14, 2)
    }
    pub fn flat_glc(&self) -> bool {
        bits(self.w[0], 16, 1) == 1
    }
    pub fn flat_addr(&self) -> u32 {
        bits(self.w[1], 0, 8)
    }
    pub fn flat_data(&self) -> u32 {
        bits(self.w[1], 8, 8)
    }
    /// FLAT: saddr (an SGPR pair for GLOBAL, an SGPR for SCRATCH; 0x7F means none).
    pub fn flat_saddr(&self) -> u32 {
        bits(self.w[1], 16, 7)
    }
    pub fn flat_vdst(&self) -> u32 {
        bits(self.w[1], 24, 8)
    }
}

/// `saddr` value meaning "no scalar address" (`off`).
pub const SADDR_OFF: u32 = 0x7F;

#[cfg(test)]
mod tests {
    use super::*;

    fn words(bytes: &[u8]) -> Vec<u32> {
        bytes.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
    }

    // Encodings from llvm-mc-15 -arch=amdgcn -mcpu=gfx906 -show-encoding.
    #[test]
    fn families_and_lengths() {
        let cases: &[(&[u8], Format, u16, u8)] = &[
            (&[0xf2, 0x00, 0x80, 0xbe], Format::Sop1, 0x00, 1),
            (&[0x01, 0x05, 0x00, 0x02], Format::Vop2, 0x01, 1),
            (&[0x10, 0x80, 0x50, 0xdc, 0x02, 0x00, 0x7f, 0x01], Format::Flat, 0x14, 2),
            (&[0xf9, 0x02, 0x02, 0x7e, 0x02, 0x15, 0x00, 0x00], Format::Vop1, 0x01, 2),
            (&[0x01, 0x40, 0x8f, 0xd3, 0x02, 0x07, 0x02, 0x18], Format::Vop3p, 0x0f, 2),
            (&[0x01, 0x05, 0x00, 0x2e, 0x00, 0x00, 0x00, 0x40], Format::Vop2, 0x17, 2),
            (&[0x01, 0xf8, 0x00, 0xba, 0x03, 0x00, 0x00, 0x00], Format::Sopk, 0x14, 2),
            (&[0x02, 0x00, 0x06, 0xc0, 0x10, 0x00, 0x00, 0x00], Format::Smem, 0x01, 2),
            (&[0x08, 0x00, 0x6c, 0xd8, 0x02, 0x00, 0x00, 0x01], Format::Ds, 0x36, 2),
        ];
        for &(bytes, format, op, len) in cases {
            let i = decode(&words(bytes)).unwrap();
            assert_eq!((i.format, i.op, i.len), (format, op, len), "{bytes:x?}");
        }
    }

    #[test]
    fn fields() {
        // global_load_dword v1, v[2:3], off offset:16
        let i = decode(&words(&[0x10, 0x80, 0x50, 0xdc, 0x02, 0x00, 0x7f, 0x01])).unwrap();
        assert_eq!((i.flat_seg(), i.flat_offset(), i.flat_addr(), i.flat_saddr(), i.flat_vdst()), (2, 16, 2, 0x7f, 1));
        // s_load_dwordx2 s[0:1], s[4:5], 0x10
        let i = decode(&words(&[0x02, 0x00, 0x06, 0xc0, 0x10, 0x00, 0x00, 0x00])).unwrap();
        assert_eq!((i.smem_sbase(), i.smem_sdata(), i.smem_imm(), i.smem_offset()), (4, 0, true, 0x10));
        // v_madmk_f32 v0, v1, 0x40000000, v2
        let i = decode(&words(&[0x01, 0x05, 0x00, 0x2e, 0x00, 0x00, 0x00, 0x40])).unwrap();
        assert_eq!(i.literal(), Some(0x4000_0000));
        assert_eq!((i.src0(), i.src1(), i.vdst()), (257, 258, 0));
    }

    #[test]
    fn truncated_code_is_an_error() {
        assert_eq!(decode(&[]), Err(DecodeError::Truncated));
        assert_eq!(decode(&[0xc006_0002]), Err(DecodeError::Truncated));
    }
}
