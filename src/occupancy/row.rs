//! An [`Occupancy`] as a line of the `.occupancy` file.

use cltap_formats::perf::OccupancyRow;

use super::model::Occupancy;

impl Occupancy {
    /// The file row for a dispatch from thread `thread_id` of `kernel` on
    /// `device`; unknown values become `NA`.
    pub fn to_row(&self, thread_id: u64, kernel: &str, device: &str) -> OccupancyRow {
        let n = |v: Option<u32>| v.map(u64::from);
        OccupancyRow {
            thread_id,
            kernel: kernel.to_string(),
            device: device.to_string(),
            compute_units: n(self.compute_units),
            max_waves_per_cu: self.max_waves_per_cu,
            max_wg_per_cu: self.max_wg_per_cu,
            max_vgprs: n(self.max_vgprs),
            max_sgprs: n(self.max_sgprs),
            max_lds: self.max_lds,
            vgprs_used: n(self.vgprs_used),
            sgprs_used: n(self.sgprs_used),
            lds_used: self.lds_used,
            wave_size: n(self.wave_size),
            wg_size: Some(self.wg_size),
            waves_per_wg: self.waves_per_wg,
            max_wg_size: self.max_wg_size,
            max_waves_per_wg: self.max_waves_per_wg,
            global_size: Some(self.global_size),
            max_global_size: self.max_global_size,
            vgpr_limited_waves: self.vgpr_limited_waves,
            sgpr_limited_waves: self.sgpr_limited_waves,
            lds_limited_waves: self.lds_limited_waves,
            wg_limited_waves: self.wg_limited_waves,
            occupancy: self.occupancy_percent,
            gfx_ip: n(self.gfx_ip_major),
            simds_per_cu: n(self.simds_per_cu),
            limiting_factor: self.limiter.map(|l| l.as_str().to_string()),
        }
    }
}
