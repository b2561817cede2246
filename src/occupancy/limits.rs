//! What a device offers per compute unit, with the AMD presets cltap knows
//! and the generic form for devices that tell only what OpenCL asks.

/// A device's limits; `None` where it cannot tell (OpenCL on PoCL, Intel and
/// NVIDIA reports no register files or wave slots).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceLimits {
    pub name: String,
    /// `gfx906`, `gfx90a`, …; AMD devices only.
    pub gfx_ip: Option<String>,
    pub compute_units: Option<u32>,
    pub simds_per_cu: Option<u32>,
    pub wave_size: Option<u32>,
    /// Wave slots per SIMD (gfx9: 10).
    pub max_waves_per_simd: Option<u32>,
    /// Work-groups a CU holds when each is one wave (GCN: 40, the wave
    /// slots, since a one-wave group needs no barrier).
    pub max_wg_per_cu: Option<u32>,
    /// Work-groups a CU holds when each has several waves (GCN: 16, the
    /// barrier resources).
    pub max_multi_wave_wg_per_cu: Option<u32>,
    /// VGPRs per SIMD lane (gfx9: 256; gfx90a: 512 unified with AGPRs).
    pub vgprs_per_simd: Option<u32>,
    /// VGPRs are allocated in blocks of this many (gfx9: 4; gfx90a: 8).
    pub vgpr_granule: Option<u32>,
    /// SGPRs per SIMD (gfx8-9: 800).
    pub sgprs_per_simd: Option<u32>,
    /// SGPRs are allocated in blocks of this many (gfx8-9: 16).
    pub sgpr_granule: Option<u32>,
    /// The most SGPRs one wave can address (gfx8-9: 102): RCP's "Max.
    /// number of SGPR" column.
    pub max_sgprs_per_wave: Option<u32>,
    /// LDS bytes per CU (gfx9: 65536).
    pub lds_per_cu: Option<u64>,
    /// LDS is allocated in blocks of this many bytes (gfx7 and later: 512).
    pub lds_granule: Option<u64>,
    /// The most work-items in one group (`CL_DEVICE_MAX_WORK_GROUP_SIZE`,
    /// `HSA_AGENT_INFO_WORKGROUP_MAX_SIZE`).
    pub max_wg_size: Option<u64>,
    /// The most work-items in one launch (`HSA_AGENT_INFO_GRID_MAX_SIZE`, or
    /// the product of `CL_DEVICE_MAX_WORK_ITEM_SIZES` as RCP takes it).
    pub max_global_size: Option<u64>,
}

impl DeviceLimits {
    /// Only what any OpenCL device reports; everything wave- or
    /// register-related unknown.
    pub fn generic(
        name: &str,
        compute_units: Option<u32>,
        max_wg_size: Option<u64>,
        lds_per_cu: Option<u64>,
    ) -> DeviceLimits {
        DeviceLimits {
            name: name.to_string(),
            gfx_ip: None,
            compute_units,
            simds_per_cu: None,
            wave_size: None,
            max_waves_per_simd: None,
            max_wg_per_cu: None,
            max_multi_wave_wg_per_cu: None,
            vgprs_per_simd: None,
            vgpr_granule: None,
            sgprs_per_simd: None,
            sgpr_granule: None,
            max_sgprs_per_wave: None,
            lds_per_cu,
            lds_granule: None,
            max_wg_size,
            max_global_size: None,
        }
    }

    /// An AMD GPU by its `gfxNNN` name. gfx9 parts (Vega, MI50/60, MI100,
    /// MI200, MI300) get their register files and slots; other generations
    /// get only the generic limits, wave size 64 and 4 SIMDs, because their
    /// register files work differently (gfx10+: wave32, work-group
    /// processors) and cltap does not model them.
    pub fn amd(name: &str, gfx_ip: &str, compute_units: u32, max_wg_size: u64) -> DeviceLimits {
        let mut d = DeviceLimits::generic(name, Some(compute_units), Some(max_wg_size), Some(65536));
        d.gfx_ip = Some(gfx_ip.to_string());
        d.simds_per_cu = Some(4);
        d.wave_size = Some(64);
        d.lds_granule = Some(512);
        if gfx_ip_major(gfx_ip) != Some(9) {
            return d;
        }
        // gfx90a and gfx94x: 512 registers per lane shared by VGPRs and
        // AGPRs, allocated in 8s, 8 waves per SIMD (LLVM's AMDGPUBaseInfo:
        // getVGPRAllocGranule, getMaxWavesPerEU).
        let unified = gfx_ip == "gfx90a" || gfx_ip.starts_with("gfx94");
        d.max_waves_per_simd = Some(if unified { 8 } else { 10 });
        d.max_wg_per_cu = Some(if unified { 32 } else { 40 });
        d.max_multi_wave_wg_per_cu = Some(16);
        d.vgprs_per_simd = Some(if unified { 512 } else { 256 });
        d.vgpr_granule = Some(if unified { 8 } else { 4 });
        d.sgprs_per_simd = Some(800);
        d.sgpr_granule = Some(16);
        d.max_sgprs_per_wave = Some(102);
        d
    }

    /// Wave slots per CU, when the device has waves.
    pub fn max_waves_per_cu(&self) -> Option<u64> {
        Some(u64::from(self.simds_per_cu?) * u64::from(self.max_waves_per_simd?))
    }
}

/// The major GFX IP number RCP writes ("Graphics IP Version"): 9 for
/// `gfx906` and `gfx90a`, 10 for `gfx1030`, 11 for `gfx1100`, 8 for `gfx803`.
/// The digits after `gfx` end with a two-character minor and stepping, so
/// the major is what comes before them.
pub fn gfx_ip_major(gfx_ip: &str) -> Option<u32> {
    let rest = gfx_ip.strip_prefix("gfx")?;
    if rest.len() < 3 || !rest.is_ascii() {
        return None;
    }
    rest[..rest.len() - 2].parse().ok()
}
