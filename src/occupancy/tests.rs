//! Hand-computed cases. gfx906: 4 SIMDs × 10 wave slots = 40 waves per CU,
//! 256 VGPRs per lane in 4s, 800 SGPRs per SIMD in 16s, 64 KiB LDS in 512 B
//! blocks, 16 multi-wave groups per CU.

use super::*;
use cltap_formats::perf::{read_occupancy, write_occupancy, OccupancyFile};

fn gfx906() -> DeviceLimits {
    DeviceLimits::amd("gfx906", "gfx906", 60, 1024)
}

fn use_(vgprs: u32, sgprs: u32, lds: u64) -> KernelUse {
    KernelUse { vgprs: Some(vgprs), sgprs: Some(sgprs), lds_bytes: Some(lds) }
}

fn run(d: &DeviceLimits, k: KernelUse, wg_size: u64) -> Occupancy {
    occupancy(d, &k, &Launch { wg_size, global_size: 1 << 20 })
}

/// (active waves, percent, limiter).
fn summary(o: &Occupancy) -> (Option<u64>, Option<f64>, Option<Limiter>) {
    (o.active_waves, o.occupancy_percent, o.limiter)
}

#[test]
fn vgprs_128_give_two_waves_per_simd() {
    let o = run(&gfx906(), use_(128, 16, 0), 256);
    // 256 / 128 = 2 per SIMD, 8 per CU, two whole 4-wave groups.
    assert_eq!(o.vgpr_limited_waves, Some(8));
    assert_eq!(o.sgpr_limited_waves, Some(40));
    assert_eq!(o.lds_limited_waves, Some(40));
    assert_eq!(o.wg_limited_waves, Some(40));
    assert_eq!(summary(&o), (Some(8), Some(20.0), Some(Limiter::Vgpr)));
}

#[test]
fn lds_40k_per_256_item_group_fits_one_group() {
    let o = run(&gfx906(), use_(8, 16, 40 * 1024), 256);
    // 65536 / 40960 = 1 group of 4 waves.
    assert_eq!(o.lds_limited_waves, Some(4));
    assert_eq!(summary(&o), (Some(4), Some(10.0), Some(Limiter::Lds)));
}

#[test]
fn lds_is_allocated_in_512_byte_blocks() {
    // 1600 B takes 2048: 32 one-wave groups, not 65536 / 1600 = 40.
    let o = run(&gfx906(), use_(8, 16, 1600), 64);
    assert_eq!(summary(&o), (Some(32), Some(80.0), Some(Limiter::Lds)));
}

#[test]
fn vgprs_are_allocated_in_fours() {
    // 65 takes 68: 256 / 68 = 3 per SIMD, 12 per CU; 64 would allow 16.
    let o = run(&gfx906(), use_(65, 16, 0), 256);
    assert_eq!(o.vgpr_limited_waves, Some(12));
    let o = run(&gfx906(), use_(64, 16, 0), 256);
    assert_eq!(o.vgpr_limited_waves, Some(16));
}

#[test]
fn only_whole_work_groups_count() {
    // 84 VGPRs: 3 per SIMD, 12 waves; groups of 5 waves: 2 groups, 10 waves.
    let o = run(&gfx906(), use_(84, 16, 0), 320);
    assert_eq!(o.waves_per_wg, Some(5));
    assert_eq!(o.wg_limited_waves, Some(40));
    assert_eq!(summary(&o), (Some(10), Some(25.0), Some(Limiter::Vgpr)));
}

#[test]
fn sgprs_are_allocated_in_sixteens_from_800() {
    // 102 takes 112: 800 / 112 = 7 per SIMD, 28 per CU.
    let o = run(&gfx906(), use_(24, 102, 0), 64);
    assert_eq!(summary(&o), (Some(28), Some(70.0), Some(Limiter::Sgpr)));
}

#[test]
fn small_kernels_in_one_wave_groups_fill_the_wave_slots() {
    let o = run(&gfx906(), use_(24, 16, 0), 64);
    assert_eq!(o.max_wg_per_cu, Some(40));
    assert_eq!(summary(&o), (Some(40), Some(100.0), Some(Limiter::WaveSlots)));
}

#[test]
fn two_wave_groups_run_out_of_work_group_slots() {
    // 16 groups × 2 waves = 32 < 40.
    let o = run(&gfx906(), use_(24, 16, 0), 128);
    assert_eq!(o.max_wg_per_cu, Some(16));
    assert_eq!(summary(&o), (Some(32), Some(80.0), Some(Limiter::WorkGroupSlots)));
}

#[test]
fn a_resource_tied_with_the_slots_is_not_the_limit() {
    // 24 VGPRs allow exactly 10 waves per SIMD, as the slots do.
    let o = run(&gfx906(), use_(24, 16, 0), 256);
    assert_eq!(o.vgpr_limited_waves, Some(40));
    assert_eq!(o.limiter, Some(Limiter::WaveSlots));
}

#[test]
fn gfx90a_has_512_vgprs_in_eights_and_8_waves_per_simd() {
    let d = DeviceLimits::amd("gfx90a", "gfx90a", 104, 1024);
    let o = run(&d, use_(128, 16, 0), 256);
    assert_eq!(o.max_waves_per_cu, Some(32));
    assert_eq!(o.vgpr_limited_waves, Some(16));
    assert_eq!(summary(&o), (Some(16), Some(50.0), Some(Limiter::Vgpr)));
    // 60 takes 64: 8 per SIMD, all 32 slots.
    let o = run(&d, use_(60, 16, 0), 256);
    assert_eq!(o.vgpr_limited_waves, Some(32));
}

#[test]
fn reported_columns_follow_rcp() {
    let o = run(&gfx906(), use_(128, 16, 0), 256);
    assert_eq!(o.max_vgprs, Some(256));
    assert_eq!(o.max_sgprs, Some(102));
    assert_eq!(o.max_lds, Some(65536));
    assert_eq!(o.max_waves_per_wg, Some(16));
    assert_eq!(o.gfx_ip_major, Some(9));
    assert_eq!(o.simds_per_cu, Some(4));
    assert_eq!(o.compute_units, Some(60));
}

#[test]
fn non_amd_devices_leave_registers_and_waves_unknown() {
    let d = DeviceLimits::generic("cpu-haswell", Some(16), Some(4096), Some(4 << 20));
    let k = KernelUse { lds_bytes: Some(1024), ..KernelUse::default() };
    let o = run(&d, k, 256);
    assert_eq!(o.waves_per_wg, None);
    assert_eq!(o.vgpr_limited_waves, None);
    assert_eq!(summary(&o), (None, None, None));
    assert_eq!((o.compute_units, o.max_lds, o.max_wg_size), (Some(16), Some(4 << 20), Some(4096)));

    // A wave size (NVIDIA's warp) tells waves per group, still no occupancy.
    let mut d = d;
    d.wave_size = Some(32);
    let o = run(&d, k, 256);
    assert_eq!((o.waves_per_wg, o.max_waves_per_wg), (Some(8), Some(128)));
    assert_eq!(o.occupancy_percent, None);
}

#[test]
fn unknown_use_or_group_size_gives_no_occupancy() {
    let mut k = use_(8, 16, 0);
    k.sgprs = None;
    let o = run(&gfx906(), k, 256);
    assert_eq!(o.sgpr_limited_waves, None);
    assert_eq!(o.vgpr_limited_waves, Some(40));
    assert_eq!(summary(&o), (None, None, None));
    let o = run(&gfx906(), use_(8, 16, 0), 0);
    assert_eq!((o.waves_per_wg, o.wg_limited_waves, o.occupancy_percent), (None, None, None));
}

#[test]
fn other_amd_generations_are_not_modelled() {
    let d = DeviceLimits::amd("gfx1030", "gfx1030", 40, 1024);
    let o = run(&d, use_(8, 16, 0), 256);
    assert_eq!(o.gfx_ip_major, Some(10));
    assert_eq!(o.waves_per_wg, Some(4));
    assert_eq!(summary(&o), (None, None, None));
}

#[test]
fn gfx_ip_major_numbers() {
    for (name, major) in [
        ("gfx906", Some(9)),
        ("gfx90a", Some(9)),
        ("gfx940", Some(9)),
        ("gfx803", Some(8)),
        ("gfx1030", Some(10)),
        ("gfx1100", Some(11)),
        ("gfx9", None),
        ("sm_80", None),
    ] {
        assert_eq!(gfx_ip_major(name), major, "{name}");
    }
}

#[test]
fn rows_carry_every_value_and_read_back() {
    let o = run(&gfx906(), use_(128, 16, 0), 256);
    let row = o.to_row(4242, "wide", "gfx906");
    assert_eq!(row.vgpr_limited_waves, Some(8));
    assert_eq!(row.occupancy, Some(20.0));
    assert_eq!(row.gfx_ip, Some(9));
    assert_eq!(row.limiting_factor.as_deref(), Some("VGPR"));
    let cpu = DeviceLimits::generic("cpu", Some(16), Some(4096), None);
    let na = run(&cpu, KernelUse::default(), 64).to_row(1, "k", "cpu");
    assert_eq!((na.max_vgprs, na.occupancy, na.limiting_factor.as_deref()), (None, None, None));
    let file = OccupancyFile { header: vec![("ListSeparator".into(), ",".into())], rows: vec![row, na] };
    assert_eq!(read_occupancy(&write_occupancy(&file)).unwrap(), file);
}
