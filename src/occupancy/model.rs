//! The calculation: how many waves of one dispatch fit on a compute unit at
//! once, under each resource alone and together. It follows RCP's
//! `CLCUInfoSI::ComputeNumActiveWaves` (used by `CLCUInfoVI` for gfx8 and
//! gfx9) with the register granules of LLVM's AMDGPUUsage; where the two
//! differ `docs/occupancy.md` says which is taken and why.

use super::limits::{gfx_ip_major, DeviceLimits};

/// What one kernel uses; `None` where unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelUse {
    /// VGPRs per work-item (code object `.vgpr_count`).
    pub vgprs: Option<u32>,
    /// SGPRs per wave, VCC, FLAT_SCRATCH and XNACK included (code object
    /// `.sgpr_count` counts them).
    pub sgprs: Option<u32>,
    /// LDS bytes per work-group: the kernel's fixed size plus what the
    /// dispatch adds (dynamic `__local` arguments).
    pub lds_bytes: Option<u64>,
}

/// One dispatch's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    /// Work-items per group (all dimensions multiplied). 0 (left to the
    /// runtime and not found out) leaves every wave count unknown.
    pub wg_size: u64,
    /// Work-items in the launch (all dimensions multiplied).
    pub global_size: u64,
}

/// What bounds the number of waves on a compute unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limiter {
    Vgpr,
    Sgpr,
    Lds,
    /// The CU's work-group slots (barriers): full groups of several waves
    /// run out before the wave slots.
    WorkGroupSlots,
    /// The CU's wave slots: the kernel reaches the hardware's limit.
    WaveSlots,
}

impl Limiter {
    /// The word in the `.occupancy` file's "Limiting factor" column.
    pub fn as_str(self) -> &'static str {
        match self {
            Limiter::Vgpr => "VGPR",
            Limiter::Sgpr => "SGPR",
            Limiter::Lds => "LDS",
            Limiter::WorkGroupSlots => "Work-group slots",
            Limiter::WaveSlots => "Wave slots",
        }
    }
}

/// Every `.occupancy` column RCP computes, and the limiting factor. Wave
/// counts are per compute unit.
#[derive(Debug, Clone, PartialEq)]
pub struct Occupancy {
    pub compute_units: Option<u32>,
    pub max_waves_per_cu: Option<u64>,
    /// For this dispatch's group size: one-wave groups and larger ones have
    /// different limits.
    pub max_wg_per_cu: Option<u64>,
    pub max_vgprs: Option<u32>,
    pub max_sgprs: Option<u32>,
    pub max_lds: Option<u64>,
    pub vgprs_used: Option<u32>,
    pub sgprs_used: Option<u32>,
    pub lds_used: Option<u64>,
    pub wave_size: Option<u32>,
    pub wg_size: u64,
    pub waves_per_wg: Option<u64>,
    pub max_wg_size: Option<u64>,
    pub max_waves_per_wg: Option<u64>,
    pub global_size: u64,
    pub max_global_size: Option<u64>,
    pub vgpr_limited_waves: Option<u64>,
    pub sgpr_limited_waves: Option<u64>,
    pub lds_limited_waves: Option<u64>,
    pub wg_limited_waves: Option<u64>,
    /// Waves that fit at once: the least of the limits above.
    pub active_waves: Option<u64>,
    /// `active_waves` as a percentage of `max_waves_per_cu`.
    pub occupancy_percent: Option<f64>,
    pub gfx_ip_major: Option<u32>,
    pub simds_per_cu: Option<u32>,
    pub limiter: Option<Limiter>,
}

fn round_up(n: u64, granule: u64) -> u64 {
    n.div_ceil(granule.max(1)) * granule.max(1)
}

/// Whole work-groups' worth of waves: `waves` rounded down to a multiple of
/// `per_wg`, then no more than `cap` (which already is such a multiple).
fn whole_groups(waves: u64, per_wg: u64, cap: u64) -> u64 {
    (waves / per_wg * per_wg).min(cap)
}

/// Waves per CU a per-wave register budget allows: per SIMD
/// `file / round_up(used, granule)`, no more than the SIMD's wave slots.
fn register_limited(file: Option<u32>, granule: Option<u32>, used: Option<u32>, d: &DeviceLimits) -> Option<u64> {
    let per_wave = round_up(u64::from(used?.max(1)), u64::from(granule?));
    let per_simd = (u64::from(file?) / per_wave).min(u64::from(d.max_waves_per_simd?));
    Some(per_simd * u64::from(d.simds_per_cu?))
}

/// The occupancy of one dispatch of a kernel on a device.
pub fn occupancy(d: &DeviceLimits, k: &KernelUse, launch: &Launch) -> Occupancy {
    let wave_size = d.wave_size.filter(|&w| w > 0).map(u64::from);
    let waves_per_wg = wave_size.filter(|_| launch.wg_size > 0).map(|w| launch.wg_size.div_ceil(w));
    let max_waves_per_cu = d.max_waves_per_cu();
    let max_wg_per_cu = match waves_per_wg {
        Some(1) => d.max_wg_per_cu,
        Some(_) => d.max_multi_wave_wg_per_cu,
        None => None,
    }
    .map(u64::from);

    // Work-group and wave slots alone: as many whole groups as both allow.
    let wg_limited = (|| {
        let per_wg = waves_per_wg?;
        let slots = (per_wg * max_wg_per_cu?).min(max_waves_per_cu?);
        Some(slots / per_wg * per_wg)
    })();

    let by_registers = |file, granule, used| {
        let waves = register_limited(file, granule, used, d)?;
        Some(whole_groups(waves, waves_per_wg?, wg_limited?))
    };
    let vgpr_limited = by_registers(d.vgprs_per_simd, d.vgpr_granule, k.vgprs);
    let sgpr_limited = by_registers(d.sgprs_per_simd, d.sgpr_granule, k.sgprs);

    // LDS: whole groups; a kernel that uses none is not limited by it.
    let lds_limited = (|| {
        let per_wg = waves_per_wg?;
        let cap = wg_limited?;
        let used = k.lds_bytes?;
        if used == 0 {
            return Some(cap);
        }
        let groups = d.lds_per_cu? / round_up(used, d.lds_granule.unwrap_or(1));
        Some((groups * per_wg).min(cap))
    })();

    // Every limit must be known for the minimum to mean anything.
    let active = (|| Some(wg_limited?.min(vgpr_limited?).min(sgpr_limited?).min(lds_limited?)))();
    let limiter = active.and_then(|a| {
        let resources = [(Limiter::Vgpr, vgpr_limited?), (Limiter::Sgpr, sgpr_limited?), (Limiter::Lds, lds_limited?)];
        let slots = wg_limited?;
        match resources.iter().find(|(_, w)| *w == a && a < slots) {
            Some((l, _)) => Some(*l),
            None if waves_per_wg? * max_wg_per_cu? < max_waves_per_cu? => Some(Limiter::WorkGroupSlots),
            None => Some(Limiter::WaveSlots),
        }
    });

    Occupancy {
        compute_units: d.compute_units,
        max_waves_per_cu,
        max_wg_per_cu,
        max_vgprs: d.vgprs_per_simd,
        max_sgprs: d.max_sgprs_per_wave,
        max_lds: d.lds_per_cu,
        vgprs_used: k.vgprs,
        sgprs_used: k.sgprs,
        lds_used: k.lds_bytes,
        wave_size: d.wave_size,
        wg_size: launch.wg_size,
        waves_per_wg,
        max_wg_size: d.max_wg_size,
        max_waves_per_wg: wave_size.zip(d.max_wg_size).map(|(w, m)| m.div_ceil(w)),
        global_size: launch.global_size,
        max_global_size: d.max_global_size,
        vgpr_limited_waves: vgpr_limited,
        sgpr_limited_waves: sgpr_limited,
        lds_limited_waves: lds_limited,
        wg_limited_waves: wg_limited,
        active_waves: active,
        occupancy_percent: active
            .zip(max_waves_per_cu)
            .filter(|&(_, m)| m > 0)
            .map(|(a, m)| a as f64 * 100.0 / m as f64),
        gfx_ip_major: d.gfx_ip.as_deref().and_then(gfx_ip_major),
        simds_per_cu: d.simds_per_cu,
        limiter,
    }
}
