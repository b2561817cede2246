//! Float VALU operations as assembled instructions (VOP1, VOP2, VOPC, VOP3), expected values
//! worked out by hand. They run through the VALU plumbing (sources with modifiers, VCC/EXEC).

mod common;

use gfx906::Wave;

/// MODE with IEEE and DX10_CLAMP set and every denormal kept (gfx906 OpenCL kernels' default).
const MODE: u32 = 0x3F0;

fn f(x: f32) -> u32 {
    x.to_bits()
}

/// Runs `source` with v1, v2, v3 of lane 0 set; returns the wave.
fn run3(source: &str, v1: u32, v2: u32, v3: u32) -> Wave {
    common::run(source, |w| {
        w.mode = MODE;
        w.set_vgpr(1, 0, v1);
        w.set_vgpr(2, 0, v2);
        w.set_vgpr(3, 0, v3);
    })
}

fn v0(source: &str, v1: u32, v2: u32, v3: u32) -> u32 {
    run3(source, v1, v2, v3).vgpr(0, 0)
}

#[test]
fn basic_arithmetic_and_modifiers() {
    assert_eq!(v0("v_add_f32 v0, v1, v2", f(1.5), f(2.25), 0), f(3.75));
    assert_eq!(v0("v_subrev_f32 v0, v1, v2", f(1.5), f(2.25), 0), f(0.75));
    assert_eq!(v0("v_mul_f32_e64 v0, -v1, |v2|", f(1.5), f(-2.0), 0), f(-3.0));
    assert_eq!(v0("v_fma_f32 v0, v1, v2, v3", f(2.0), f(3.0), f(1.0)), f(7.0));
    assert_eq!(v0("v_add_f32_e64 v0, v1, v2 clamp", f(1.5), f(2.25), 0), f(1.0));
    assert_eq!(v0("v_add_f32_e64 v0, v1, v2 mul:2", f(1.5), f(2.25), 0), f(7.5));
    assert_eq!(v0("v_rndne_f32 v0, v1", f(2.5), 0, 0), f(2.0));
    assert_eq!(v0("v_fract_f32 v0, v1", f(-0.25), 0, 0), f(0.75));
}

#[test]
fn madmk_and_madak_take_the_literal_where_the_assembly_puts_it() {
    // v_madmk: D = S0 · K + S1; v_madak: D = S0 · S1 + K.
    assert_eq!(v0("v_madmk_f32 v0, v1, 0x40000000, v2", f(3.0), f(1.0), 0), f(7.0));
    assert_eq!(v0("v_madak_f32 v0, v1, v2, 0x40000000", f(3.0), f(5.0), 0), f(17.0));
    assert_eq!(v0("v_mac_f32 v0, v1, v2", f(3.0), f(5.0), 0), f(15.0));
}

#[test]
fn compiler_division_sequence_gives_correctly_rounded_one_third() {
    // What clang-15 emits for `a[0] = a[1] / a[2]` (numerator in s2, denominator in s3).
    let seq = "v_mov_b32_e32 v0, s2
v_div_scale_f32 v1, s[4:5], s3, s3, v0
v_mov_b32_e32 v2, s3
v_div_scale_f32 v2, vcc, s2, v2, s2
v_rcp_f32_e32 v3, v1
v_fma_f32 v4, -v1, v3, 1.0
v_fmac_f32_e32 v3, v4, v3
v_mul_f32_e32 v4, v2, v3
v_fma_f32 v5, -v1, v4, v2
v_fmac_f32_e32 v4, v5, v3
v_fma_f32 v1, -v1, v4, v2
v_div_fmas_f32 v1, v1, v3, v4
v_div_fixup_f32 v0, v1, s3, v0";
    let div = |n: f32, d: f32| {
        common::run(seq, |w| {
            w.mode = MODE;
            w.s[2] = n.to_bits();
            w.s[3] = d.to_bits();
        })
        .vgpr(0, 0)
    };
    assert_eq!(div(1.0, 3.0), 0x3EAA_AAAB);
    assert_eq!(div(-10.0, 4.0), f(-2.5));
    assert_eq!(div(1.0, 0.0), 0x7F80_0000);
    assert_eq!(div(f32::from_bits(0x600), 2.0), 0x300); // a denormal quotient
}

#[test]
fn compares_write_vcc_and_cmpx_writes_exec() {
    let w = common::run("v_cmp_lt_f32 vcc, v1, v2", |w| {
        w.mode = MODE;
        w.set_exec(0b111);
        for (lane, (a, b)) in [(1.0, 2.0), (2.0, 1.0), (f32::NAN, 1.0)].into_iter().enumerate() {
            w.set_vgpr(1, lane, f(a));
            w.set_vgpr(2, lane, f(b));
        }
    });
    assert_eq!(w.vcc(), 0b001);
    let w = common::run("v_cmpx_nge_f32 vcc, v1, v2", |w| {
        w.mode = MODE;
        w.set_exec(0b111);
        for (lane, (a, b)) in [(1.0, 2.0), (2.0, 1.0), (f32::NAN, 1.0)].into_iter().enumerate() {
            w.set_vgpr(1, lane, f(a));
            w.set_vgpr(2, lane, f(b));
        }
    });
    assert_eq!(w.exec(), 0b101);
    let w = run3("v_cmp_class_f32_e64 s[10:11], v1, v2", f(f32::NEG_INFINITY), 1 << 2, 0);
    assert_eq!(w.s[10] & 1, 1);
}

#[test]
fn conversions_clamp() {
    assert_eq!(v0("v_cvt_u32_f32 v0, v1", f(1099511627776.0), 0, 0), u32::MAX);
    assert_eq!(v0("v_cvt_u32_f32 v0, v1", f(-1.5), 0, 0), 0);
    assert_eq!(v0("v_cvt_i32_f32 v0, v1", 0x7FC0_0000, 0, 0), 0);
    assert_eq!(v0("v_cvt_f16_f32 v0, v1", 0x3F80_1000, 0, 0) & 0xFFFF, 0x3C00);
    assert_eq!(v0("v_cvt_f32_f16 v0, v1", 0x3555, 0, 0), 0x3EAA_A000);
    assert_eq!(v0("v_cvt_pkrtz_f16_f32 v0, v1, v2", f(1.0), f(-2.0), 0), 0xC000_3C00);
}

#[test]
fn f64_ops() {
    let w = common::run("v_add_f64 v[0:1], v[2:3], v[4:5]", |w| {
        w.mode = MODE;
        w.set_vgpr64(2, 0, 0.1f64.to_bits());
        w.set_vgpr64(4, 0, 0.2f64.to_bits());
    });
    assert_eq!(w.vgpr64(0, 0), 0x3FD3_3333_3333_3334);
    let w = common::run("v_cvt_f64_i32 v[0:1], v2", |w| w.set_vgpr(2, 0, -3i32 as u32));
    assert_eq!(w.vgpr64(0, 0), (-3.0f64).to_bits());
}

#[test]
fn f16_ops_and_lanes_off_untouched() {
    let w = common::run("v_add_f16 v0, v1, v2", |w| {
        w.mode = MODE;
        w.set_exec(0b01);
        for lane in 0..2 {
            w.set_vgpr(1, lane, 0x3C00);
            w.set_vgpr(2, lane, 0x4000);
            w.set_vgpr(0, lane, 0x1234_5678);
        }
    });
    assert_eq!(w.vgpr(0, 0) & 0xFFFF, 0x4200); // 1 + 2 = 3
    assert_eq!(w.vgpr(0, 1), 0x1234_5678);
    assert_eq!(v0("v_fma_f16 v0, v1, v2, v3", 0x4000, 0x4200, 0x3C00,) & 0xFFFF, 0x4700);
    // 2·3 + 1
}

#[test]
fn min_max_nan_under_ieee_mode() {
    assert_eq!(v0("v_min_f32 v0, v1, v2", 0x7F80_0001, f(1.0), 0), 0x7FC0_0001);
    assert_eq!(v0("v_max_f32 v0, v1, v2", 0x7FC0_0000, f(1.0), 0), f(1.0));
    assert_eq!(v0("v_med3_f32 v0, v1, v2, v3", f(5.0), f(-1.0), f(2.0)), f(2.0));
}
