//! What stops a wave: the faults a GPU raises (an illegal or unimplemented instruction, a memory
//! access outside what is mapped for the GPU, a trap). The emulator never skips an instruction it
//! cannot run: the dispatch faults, naming the instruction and its address.

use crate::decode::DecodeError;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Fault {
    #[error("illegal instruction at {pc:#x}: {why}")]
    Decode { pc: u64, why: DecodeError },
    #[error("illegal instruction at {pc:#x}: {name} ({words}) is not implemented by the emulator")]
    Unimplemented { pc: u64, name: &'static str, words: String },
    #[error("illegal instruction at {pc:#x}: {name}: {why}")]
    Illegal { pc: u64, name: &'static str, why: &'static str },
    #[error("memory access fault at {addr:#x} ({len} bytes) by {name} at {pc:#x}")]
    Memory { pc: u64, addr: u64, len: u64, name: &'static str },
    #[error("s_trap {code} at {pc:#x}")]
    Trap { pc: u64, code: u16 },
}

impl Fault {
    /// An instruction the emulator does not implement (a GPU would raise an illegal instruction).
    pub fn unimplemented(pc: u64, inst: &crate::decode::Inst) -> Fault {
        let words = inst.w[..inst.len as usize].iter().map(|w| format!("{w:#010x}")).collect::<Vec<_>>().join(" ");
        Fault::Unimplemented { pc, name: inst.name(), words }
    }
}
