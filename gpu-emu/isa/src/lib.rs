//! gfx906 (GCN 5, "Vega") machine code, decoded and executed: the shader core of cltap's emulated
//! GPU (`gpu-emu/`), for tests, never a driver. It runs the code that Debian's clang-15 and comgr
//! 5.2.3 emit for OpenCL C and HIP kernels and ROCr's and ROCclr's own blit kernels, one wave of
//! 64 lanes at a time, and counts what it ran.
//!
//! One concern per module: [`decode`] (words to instructions), [`names`] (mnemonics, as LLVM's
//! disassembler names them), [`wave`] (registers and operands), [`memory`] (what memory
//! instructions may touch), [`code`] (fetching and caching decoded code), [`exec`] (one step of a
//! wave), one module per encoding family ([`sop`], [`smem`], [`valu`], [`vop3p`], [`ds`],
//! [`flat`], [`buffer`]), [`fault`] (what stops a wave), [`counts`] (what ran) and [`dispatch`]
//! (a grid's work-groups and waves from the kernel descriptor, with barriers).
//!
//! The sources for the semantics are AMD's public "Vega Instruction Set Architecture" reference
//! and LLVM's AMDGPU documentation ("AMDGPU Usage": the kernel descriptor and the initial
//! kernel execution state); gem5's Vega model was read to settle details.

pub mod buffer;
pub mod code;
pub mod counts;
pub mod decode;
pub mod dispatch;
pub mod ds;
pub mod exec;
pub mod fault;
pub mod flat;
pub mod memory;
pub mod mimg;
pub mod names;
pub mod smem;
pub mod sop;
pub mod valu;
pub mod vop3p;
pub mod wave;

pub use code::Code;
pub use counts::Counts;
pub use decode::{decode, Format, Inst};
pub use exec::{Ctx, Flow};
pub use fault::Fault;
pub use memory::{Memory, Ranges};
pub use wave::Wave;
