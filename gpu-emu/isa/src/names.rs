//! Mnemonics by (family, opcode), as LLVM 15's disassembler names gfx906's instructions.
//! (Stub: filled from llvm-objdump-15 by `gpu-emu/isa/gen-names.sh`.)

use crate::decode::Format;

/// The mnemonic of opcode `op` of `format`; None for an opcode gfx906 does not have.
pub fn mnemonic(_format: Format, _op: u16) -> Option<&'static str> {
    None
}

/// Whether a vector memory instruction reads memory, writes it, or both (atomics).
pub fn memory_direction(_format: Format, _op: u16) -> (bool, bool) {
    (false, false)
}
