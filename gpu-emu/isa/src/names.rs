//! Mnemonics by (family, opcode), as LLVM 15's disassembler names gfx906's instructions, without
//! the `_e32`/`_e64`/`_sdwa`/`_dpp` suffixes. The table is generated from LLVM itself by
//! `gpu-emu/isa/gen-names.py` and checked against LLVM on real code objects by `tests/oracle.rs`.
//!
//! VOP3 has LLVM's own VOP3 table: the VOP3 form of a VOP1, VOP2 or VOPC operation has the same
//! name, and the few without a VOP3 form in LLVM (v_madmk/v_madak, v_readfirstlane_b32,
//! v_swap_b32) have none there.

use crate::decode::{Format, Inst};

#[rustfmt::skip]
mod table;

/// FLAT's segment field: 0 FLAT, 1 SCRATCH, 2 GLOBAL.
pub const SEG_FLAT: u32 = 0;
pub const SEG_SCRATCH: u32 = 1;
pub const SEG_GLOBAL: u32 = 2;

/// The mnemonic of opcode `op` of `format`; None for an opcode gfx906 does not have. FLAT's
/// names depend on the segment as well: this gives the FLAT segment's (`flat_load_dword`); see
/// [`flat_mnemonic`] and [`mnemonic_of`].
pub fn mnemonic(format: Format, op: u16) -> Option<&'static str> {
    match format {
        Format::Sop2 => table::sop2(op),
        Format::Sopk => table::sopk(op),
        Format::Sop1 => table::sop1(op),
        Format::Sopc => table::sopc(op),
        Format::Sopp => table::sopp(op),
        Format::Smem => table::smem(op),
        Format::Vop2 => table::vop2(op),
        Format::Vop1 => table::vop1(op),
        Format::Vopc => table::vopc(op),
        Format::Vop3 => table::vop3(op),
        Format::Vop3p => table::vop3p(op),
        Format::Vintrp => table::vintrp(op),
        Format::Ds => table::ds(op),
        Format::Flat => table::flat(op),
        Format::Mubuf => table::mubuf(op),
        Format::Mtbuf => table::mtbuf(op),
        Format::Mimg => table::mimg(op),
        Format::Exp => table::exp(op),
    }
}

/// The mnemonic of FLAT opcode `op` in segment `seg` (`flat_`, `scratch_` or `global_`); None
/// where the segment lacks the opcode (SCRATCH has no atomics) or for segment 3.
pub fn flat_mnemonic(seg: u32, op: u16) -> Option<&'static str> {
    match seg {
        SEG_FLAT => table::flat(op),
        SEG_SCRATCH => table::scratch(op),
        SEG_GLOBAL => table::global(op),
        _ => None,
    }
}

/// The mnemonic of a decoded instruction, FLAT's segment included.
pub fn mnemonic_of(i: &Inst) -> Option<&'static str> {
    match i.format {
        Format::Flat => flat_mnemonic(i.flat_seg(), i.op),
        f => mnemonic(f, i.op),
    }
}

/// Whether a vector memory instruction (MUBUF, MTBUF, FLAT/GLOBAL/SCRATCH, MIMG) reads memory,
/// writes it, or both (atomics); (false, false) for every other instruction and for the cache
/// controls (`buffer_wbinvl1`).
pub fn memory_direction(format: Format, op: u16) -> (bool, bool) {
    if !matches!(format, Format::Mubuf | Format::Mtbuf | Format::Flat | Format::Mimg) {
        return (false, false);
    }
    mnemonic(format, op).map_or((false, false), direction)
}

/// The direction from the name: loads read, stores write, atomics both. An image instruction
/// that is none of these (sample, gather4, get_lod, get_resinfo) returns data through the read
/// path, so counts as a read.
fn direction(name: &str) -> (bool, bool) {
    if name.contains("_atomic") {
        (true, true)
    } else if name.contains("_load") {
        (true, false)
    } else if name.contains("_store") {
        (false, true)
    } else {
        (name.starts_with("image_"), false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_llvm() {
        assert_eq!(mnemonic(Format::Vop2, 0x01), Some("v_add_f32"));
        assert_eq!(mnemonic(Format::Vop3, 0x101), Some("v_add_f32"));
        assert_eq!(mnemonic(Format::Vop3, 0x117), None, "v_madmk_f32 has no VOP3 form");
        assert_eq!(mnemonic(Format::Sopp, 0x01), Some("s_endpgm"));
        assert_eq!(mnemonic(Format::Sop2, 0x7F), None);
        assert_eq!(flat_mnemonic(SEG_FLAT, 0x14), Some("flat_load_dword"));
        assert_eq!(flat_mnemonic(SEG_GLOBAL, 0x14), Some("global_load_dword"));
        assert_eq!(flat_mnemonic(SEG_SCRATCH, 0x14), Some("scratch_load_dword"));
        assert_eq!(flat_mnemonic(SEG_SCRATCH, 0x40), None, "scratch has no atomics");
        assert_eq!(flat_mnemonic(3, 0x14), None);
    }

    #[test]
    fn directions() {
        assert_eq!(memory_direction(Format::Flat, 0x14), (true, false));
        assert_eq!(memory_direction(Format::Flat, 0x1C), (false, true));
        assert_eq!(memory_direction(Format::Flat, 0x42), (true, true), "flat_atomic_add");
        assert_eq!(memory_direction(Format::Mubuf, 0x3E), (false, false), "buffer_wbinvl1");
        assert_eq!(memory_direction(Format::Mtbuf, 0x04), (false, true), "tbuffer_store_format_x");
        assert_eq!(memory_direction(Format::Mimg, 0x20), (true, false), "image_sample");
        assert_eq!(memory_direction(Format::Mimg, 0x08), (false, true), "image_store");
        assert_eq!(memory_direction(Format::Ds, 0x36), (false, false));
    }
}
