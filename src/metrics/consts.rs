//! The agent constants an expression may name. rocprofiler v1 defines the same
//! names from its agent description (`src/core/metrics.h`, `MetricsDict`):
//! `SIMD_NUM` there is the GPU-wide SIMD count (SIMDs per CU × CUs), not the
//! per-CU figure, and cltap keeps that meaning.

use std::fmt;

#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Const {
    CU_NUM,
    SIMD_NUM,
    SE_NUM,
    XCC_NUM,
    MAX_WAVE_SIZE,
}

impl Const {
    pub const ALL: [Const; 5] = [Const::CU_NUM, Const::SIMD_NUM, Const::SE_NUM, Const::XCC_NUM, Const::MAX_WAVE_SIZE];

    pub fn name(self) -> &'static str {
        match self {
            Const::CU_NUM => "CU_NUM",
            Const::SIMD_NUM => "SIMD_NUM",
            Const::SE_NUM => "SE_NUM",
            Const::XCC_NUM => "XCC_NUM",
            Const::MAX_WAVE_SIZE => "MAX_WAVE_SIZE",
        }
    }

    pub fn from_name(name: &str) -> Option<Const> {
        Const::ALL.into_iter().find(|c| c.name() == name)
    }

    pub fn meaning(self) -> &'static str {
        match self {
            Const::CU_NUM => "compute units on the GPU",
            Const::SIMD_NUM => "SIMDs on the whole GPU (SIMDs per CU x CUs)",
            Const::SE_NUM => "shader engines",
            Const::XCC_NUM => "accelerator complex dies (1 before gfx940)",
            Const::MAX_WAVE_SIZE => "wavefront size",
        }
    }
}

impl fmt::Display for Const {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Values of the constants for one agent; the collector fills it from
/// `hsa_agent_get_info`. A constant left at 0 that an expression divides by
/// makes that metric 0 (the division-by-zero rule).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Consts {
    pub cu_num: u32,
    pub simd_num: u32,
    pub se_num: u32,
    pub xcc_num: u32,
    pub max_wave_size: u32,
}

impl Consts {
    pub fn get(&self, c: Const) -> f64 {
        f64::from(match c {
            Const::CU_NUM => self.cu_num,
            Const::SIMD_NUM => self.simd_num,
            Const::SE_NUM => self.se_num,
            Const::XCC_NUM => self.xcc_num,
            Const::MAX_WAVE_SIZE => self.max_wave_size,
        })
    }
}
