//! AQLprofile counter blocks and how many instances and counter slots each has
//! on a GPU.
//!
//! The block names and their numbers are those of
//! `hsa_ven_amd_aqlprofile_block_name_t` in `hsa/hsa_ven_amd_aqlprofile.h`
//! (ROCm 5.2.3 headers, Debian's `libhsa-runtime-dev`): an event handed to
//! AQLprofile is (block number, block instance, counter id), so the number is
//! what the collector needs, the name is what files and users write.

use std::fmt;

macro_rules! blocks {
    ($($name:ident = $id:literal,)*) => {
        /// A hardware counter block as AQLprofile numbers it.
        #[allow(clippy::upper_case_acronyms)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u32)]
        pub enum Block { $($name = $id,)* }

        impl Block {
            /// Every block, in AQLprofile order.
            pub const ALL: &'static [Block] = &[$(Block::$name,)*];

            /// The name files use (`block=SQ`).
            pub fn name(self) -> &'static str {
                match self { $(Block::$name => stringify!($name),)* }
            }
        }
    };
}

blocks! {
    CPC = 0, CPF = 1, GDS = 2, GRBM = 3, GRBMSE = 4, SPI = 5, SQ = 6, SQCS = 7,
    SRBM = 8, SX = 9, TA = 10, TCA = 11, TCC = 12, TCP = 13, TD = 14,
    MCARB = 15, MCHUB = 16, MCMCBVM = 17, MCSEQ = 18, MCVML2 = 19, MCXBAR = 20,
    ATC = 21, ATCL2 = 22, GCEA = 23, RPB = 24, SDMA = 25,
    GL1A = 26, GL1C = 27, GL2A = 28, GL2C = 29, GCR = 30, GUS = 31,
}

impl Block {
    /// The value of `hsa_ven_amd_aqlprofile_block_name_t` for this block.
    pub fn aql_id(self) -> u32 {
        self as u32
    }

    /// The block of an AQLprofile block-name value.
    pub fn from_aql_id(id: u32) -> Option<Block> {
        Block::ALL.get(id as usize).copied().filter(|b| b.aql_id() == id)
    }

    /// Looks a block up by the name a metrics file uses (exact, upper case,
    /// as AQLprofile's `HSA_VEN_AMD_AQLPROFILE_INFO_BLOCK_ID` query does).
    pub fn from_name(name: &str) -> Option<Block> {
        Block::ALL.iter().copied().find(|b| b.name() == name)
    }

    /// All names, space separated, for error messages.
    pub fn names() -> String {
        Block::ALL.iter().map(|b| b.name()).collect::<Vec<_>>().join(" ")
    }
}

impl fmt::Display for Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How many copies of a block the GPU has and how many counters each copy can
/// count at once (its slots). Every instance is a separate set of hardware
/// counters: an event on `TCC` uses one slot on each of the 16 TCC instances.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockCounts {
    pub instances: u32,
    pub slots: u32,
}

/// Where the catalog learns block instance and slot counts. At run time the
/// collector answers from AQLprofile (`HSA_VEN_AMD_AQLPROFILE_INFO_BLOCK_ID`
/// gives `instance_count`; the slot count per block comes from the backend);
/// without a GPU, [`gfx9_defaults`] answers.
pub trait BlockInfo {
    /// `None`: the GPU has no such block.
    fn counts(&self, block: Block) -> Option<BlockCounts>;
}

impl<F: Fn(Block) -> Option<BlockCounts>> BlockInfo for F {
    fn counts(&self, block: Block) -> Option<BlockCounts> {
        self(block)
    }
}

/// A fixed table of block counts.
#[derive(Clone, Debug)]
pub struct StaticBlocks {
    table: Vec<(Block, BlockCounts)>,
}

impl StaticBlocks {
    pub fn new(table: &[(Block, u32, u32)]) -> StaticBlocks {
        StaticBlocks {
            table: table.iter().map(|&(b, instances, slots)| (b, BlockCounts { instances, slots })).collect(),
        }
    }

    /// Replaces (or adds) one block's counts.
    pub fn with(mut self, block: Block, instances: u32, slots: u32) -> StaticBlocks {
        self.table.retain(|(b, _)| *b != block);
        self.table.push((block, BlockCounts { instances, slots }));
        self
    }
}

impl BlockInfo for StaticBlocks {
    fn counts(&self, block: Block) -> Option<BlockCounts> {
        self.table.iter().find(|(b, _)| *b == block).map(|(_, c)| *c)
    }
}

/// Block counts of a gfx906 (Vega 20), used when no GPU is at hand
/// (`cltap metrics list`). Instance counts and per-block counter numbers follow
/// the gfx9 ("AI") tables of AMD's first open AQLprofile sources
/// (`runtime/hsa-ext-aql-profile`, `ai_blockinfo.h`, in ROCm/ROCR-Runtime): TA,
/// TD and TCP 16 instances of 2, 2 and 4 counters; TCC 16 of 4; TCA 2 of 4.
/// SQ is limited to 8 counters as AQLprofile does for compute; GRBMSE is taken
/// as one instance per shader engine (4) — an assumption, the real backend
/// reports the true figure.
pub fn gfx9_defaults() -> StaticBlocks {
    use Block::*;
    StaticBlocks::new(&[
        (CPC, 1, 2),
        (CPF, 1, 2),
        (GDS, 1, 4),
        (GRBM, 1, 2),
        (GRBMSE, 4, 4),
        (SPI, 1, 4),
        (SQ, 1, 8),
        (SQCS, 1, 8),
        (SRBM, 1, 2),
        (SX, 1, 4),
        (TA, 16, 2),
        (TCA, 2, 4),
        (TCC, 16, 4),
        (TCP, 16, 4),
        (TD, 16, 2),
    ])
}

/// [`gfx9_defaults`] adjusted for the GPU named: gfx908 (MI100) and gfx90a
/// (MI200) have 32 TCC channels, as rocprofiler's derived metrics for them
/// (`sum(TCC_HIT,32)` in `src/core/counters/metrics/derived_counters.xml`)
/// assume.
pub fn gfx9_defaults_for(gpu: &str) -> StaticBlocks {
    let base = gpu.split(':').next().unwrap_or("").trim();
    match base {
        "gfx908" | "gfx90a" => gfx9_defaults().with(Block::TCC, 32, 4),
        _ => gfx9_defaults(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_the_aqlprofile_header() {
        assert_eq!(Block::CPC.aql_id(), 0);
        assert_eq!(Block::SQ.aql_id(), 6);
        assert_eq!(Block::TCC.aql_id(), 12);
        assert_eq!(Block::SDMA.aql_id(), 25);
        assert_eq!(Block::GUS.aql_id(), 31);
        assert_eq!(Block::ALL.len(), 32);
        for (i, b) in Block::ALL.iter().enumerate() {
            assert_eq!(b.aql_id(), i as u32);
            assert_eq!(Block::from_name(b.name()), Some(*b));
        }
        assert_eq!(Block::from_name("sq"), None);
    }

    #[test]
    fn defaults_per_gpu() {
        let d = gfx9_defaults();
        assert_eq!(d.counts(Block::SQ), Some(BlockCounts { instances: 1, slots: 8 }));
        assert_eq!(d.counts(Block::TCC), Some(BlockCounts { instances: 16, slots: 4 }));
        assert_eq!(d.counts(Block::GL2C), None);
        let mi100 = gfx9_defaults_for("gfx908:sramecc+:xnack-");
        assert_eq!(mi100.counts(Block::TCC), Some(BlockCounts { instances: 32, slots: 4 }));
        let closure = |b: Block| (b == Block::SQ).then_some(BlockCounts { instances: 1, slots: 16 });
        assert_eq!(closure.counts(Block::SQ).unwrap().slots, 16);
    }
}
