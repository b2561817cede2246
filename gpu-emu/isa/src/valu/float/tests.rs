//! Unit tests of the float operations, each expected value worked out by hand.

use super::op;
use crate::valu::{Args, Res};

/// MODE with IEEE set and every denormal kept (f32, f64, f16).
const KEEP: u32 = 0x200 | 0xF0;
/// MODE with IEEE set and every denormal flushed.
const FLUSH: u32 = 0x200;

fn run(n: u16, s: [u64; 3], mode: u32) -> Res {
    let o = op(n).unwrap_or_else(|| panic!("op {n:#x} missing"));
    (o.f)(&Args { s, mode, ..Args::default() })
}
fn run_bit(n: u16, s: [u64; 3], bit: bool, old: u64) -> Res {
    (op(n).unwrap().f)(&Args { s, mode: KEEP, bit, old, ..Args::default() })
}
fn f(x: f32) -> u64 {
    u64::from(x.to_bits())
}
fn d(x: f64) -> u64 {
    x.to_bits()
}
fn v32(n: u16, s: [u64; 3]) -> u32 {
    run(n, s, KEEP).v as u32
}

#[test]
fn rndne_rounds_halves_to_even() {
    assert_eq!(v32(0x15e, [f(2.5), 0, 0]), 0x4000_0000); // 2.0
    assert_eq!(v32(0x15e, [f(3.5), 0, 0]), 0x4080_0000); // 4.0
    assert_eq!(v32(0x15e, [f(-2.5), 0, 0]), 0xC000_0000); // -2.0
    assert_eq!(run(0x159, [d(0.5), 0, 0], KEEP).v, 0); // +0.0
}

#[test]
fn fract_of_negatives_is_positive_and_below_one() {
    assert_eq!(v32(0x15b, [f(-0.25), 0, 0]), 0x3F40_0000); // 0.75
    assert_eq!(v32(0x15b, [f(1.75), 0, 0]), 0x3F40_0000);
    // -2^-30: 1 - 2^-30 rounds to 1.0 in f32; the result stays at the largest f32 below 1.
    assert_eq!(v32(0x15b, [0xB080_0000, 0, 0]), 0x3F7F_FFFF);
    assert_eq!(run(0x172, [d(-1.25), 0, 0], KEEP).v, 0x3FE8_0000_0000_0000); // 0.75
}

/// The sequence clang-15 emits for an f32 `a / b` on gfx906 (denormals kept), run op by op.
fn divide32(n: u32, den: u32) -> u32 {
    let (n, den) = (u64::from(n), u64::from(den));
    let neg = |x: u64| x ^ 0x8000_0000;
    let one = f(1.0);
    let s1 = run(0x1e0, [den, den, n], KEEP); // v_div_scale_f32 v1, s[4:5], d, d, n
    let s2 = run(0x1e0, [n, den, n], KEEP); // v_div_scale_f32 v2, vcc, n, d, n
    let (v1, v2, vcc) = (s1.v, s2.v, s2.bit);
    let mut v3 = run(0x162, [v1, 0, 0], KEEP).v; // v_rcp_f32
    let mut v4 = run(0x1cb, [neg(v1), v3, one], KEEP).v; // v_fma_f32 -v1, v3, 1.0
    v3 = run_bit(0x13b, [v4, v3, 0], false, v3).v; // v_fmac_f32 v3, v4, v3
    v4 = run(0x105, [v2, v3, 0], KEEP).v; // v_mul_f32
    let v5 = run(0x1cb, [neg(v1), v4, v2], KEEP).v;
    v4 = run_bit(0x13b, [v5, v3, 0], false, v4).v;
    let r = run(0x1cb, [neg(v1), v4, v2], KEEP).v;
    let q = run_bit(0x1e2, [r, v3, v4], vcc, 0).v; // v_div_fmas_f32
    run(0x1de, [q, den, n], KEEP).v as u32 // v_div_fixup_f32
}

#[test]
fn division_sequence_rounds_correctly() {
    assert_eq!(divide32(f(1.0) as u32, f(3.0) as u32), 0x3EAA_AAAB); // 1/3
    assert_eq!(divide32(f(6.0) as u32, f(3.0) as u32), 0x4000_0000); // exactly 2
                                                                     // 3·2^-140 / 2 = 3·2^-141: a denormal quotient (numerator scaled, flag set).
    assert_eq!(divide32(0x600, f(2.0) as u32), 0x300);
    // 2^100 / 2^-20 = 2^120: denominator scaled, flag set.
    assert_eq!(divide32(0x7180_0000, 0x3580_0000), 0x7B80_0000);
    // 2^127 / 2^-20 overflows.
    assert_eq!(divide32(0x7F00_0000, 0x3580_0000), 0x7F80_0000);
    assert_eq!(divide32(f(1.0) as u32, 0), 0x7F80_0000); // 1/0 = +inf
    assert_eq!(divide32(f(-1.0) as u32, 0), 0xFF80_0000);
    assert!(f32::from_bits(divide32(0, 0)).is_nan());
}

#[test]
fn div_scale_flags_and_scales() {
    // Numerator 2^100 over 2^-20: the gap is at least 96, the flag is set and only the
    // denominator (S0 == S1) is scaled by 2^64.
    let r = run(0x1e0, [0x3580_0000, 0x3580_0000, 0x7180_0000], KEEP);
    assert_eq!((r.v, r.bit), (0x5580_0000, true)); // 2^44
    let r = run(0x1e0, [0x7180_0000, 0x3580_0000, 0x7180_0000], KEEP);
    assert_eq!((r.v, r.bit), (0x7180_0000, true));
    // v_div_fmas with the flag and a small S2: the result is scaled by 2^-64.
    assert_eq!(run_bit(0x1e2, [f(1.0), f(1.0), f(1.0)], true, 0).v, 0x2000_0000); // 2 · 2^-64 = 2^-63
    assert_eq!(run_bit(0x1e2, [f(1.0), f(1.0), f(1.0)], false, 0).v, f(2.0));
}

#[test]
fn f64_division_sequence() {
    let neg = |x: u64| x ^ (1 << 63);
    let (n, den) = (d(1.0), d(3.0));
    let v2 = run(0x1e1, [den, den, n], KEEP).v;
    let mut v4 = run(0x165, [v2, 0, 0], KEEP).v;
    let v6 = run(0x1cc, [neg(v2), v4, d(1.0)], KEEP).v;
    v4 = run(0x1cc, [v4, v6, v4], KEEP).v;
    let s = run(0x1e1, [n, den, n], KEEP);
    let v8 = run(0x1cc, [neg(v2), v4, d(1.0)], KEEP).v;
    v4 = run(0x1cc, [v4, v8, v4], KEEP).v;
    let v8 = run(0x281, [s.v, v4, 0], KEEP).v;
    let r = run(0x1cc, [neg(v2), v8, s.v], KEEP).v;
    let q = run_bit(0x1e3, [r, v4, v8], s.bit, 0).v;
    assert_eq!(run(0x1df, [q, den, n], KEEP).v, 0x3FD5_5555_5555_5555);
}

#[test]
fn min_max_nan_rules_under_ieee_mode() {
    let snan = 0x7F80_0001u64;
    let qnan = 0x7FC0_0000u64;
    assert_eq!(run(0x10a, [snan, f(1.0), 0], FLUSH).v, 0x7FC0_0001); // quieted
    assert_eq!(run(0x10b, [f(1.0), snan, 0], FLUSH).v, 0x7FC0_0001);
    assert_eq!(run(0x10a, [snan, f(1.0), 0], 0).v, f(1.0)); // IEEE off: the number
    assert_eq!(run(0x10a, [qnan, f(1.0), 0], FLUSH).v, f(1.0));
    assert_eq!(run(0x10b, [f(-3.0), qnan, 0], FLUSH).v, f(-3.0));
    assert_eq!(run(0x10a, [f(0.0), f(-0.0), 0], FLUSH).v, 0x8000_0000);
    assert_eq!(run(0x10b, [f(-0.0), f(0.0), 0], FLUSH).v, 0);
    assert_eq!(run(0x282, [d(2.0), d(f64::NAN), 0], FLUSH).v, d(2.0));
    assert_eq!(run(0x12e, [0x7C01, 0x3C00, 0], FLUSH).v, 0x7E01); // f16 sNaN quieted
    assert_eq!(v32(0x1d6, [f(3.0), f(1.0), f(2.0)]), 0x4000_0000); // med3 = 2
    assert_eq!(v32(0x1d6, [f(3.0), qnan, f(2.0)]), 0x4000_0000); // NaN: min3
    assert_eq!(v32(0x1d0, [f(3.0), f(-1.0), f(2.0)]), 0xBF80_0000);
    assert_eq!(v32(0x1d3, [f(3.0), f(-1.0), f(2.0)]), 0x4040_0000);
}

#[test]
fn denormals_flush_or_keep_by_mode() {
    let tiny = 1u64; // 2^-149
    assert_eq!(run(0x101, [tiny, f(0.0), 0], KEEP).v, 1);
    assert_eq!(run(0x101, [tiny, f(0.0), 0], FLUSH).v, 0);
    assert_eq!(run(0x101, [0x8000_0001, f(-0.0), 0], FLUSH).v, 0x8000_0000); // sign kept
                                                                             // 2^-126 · 0.5 = 2^-127, a denormal result.
    assert_eq!(run(0x105, [0x0080_0000, f(0.5), 0], KEEP).v, 0x0040_0000);
    assert_eq!(run(0x105, [0x0080_0000, f(0.5), 0], FLUSH).v, 0);
    // f32 kept, f64/f16 flushed: MODE[5:4] = 3, MODE[7:6] = 0.
    assert_eq!(run(0x101, [tiny, f(0.0), 0], 0x230).v, 1);
    assert_eq!(run(0x280, [1, d(0.0), 0], 0x230).v, 0);
    assert_eq!(run(0x11f, [1, 0, 0], 0x230).v, 0);
    assert_eq!(run(0x11f, [1, 0, 0], KEEP).v, 1);
    // v_mad_f32 flushes whatever MODE says; v_fma_f32 does not.
    assert_eq!(run(0x1c1, [tiny, f(1.0), f(0.0)], KEEP).v, 0);
    assert_eq!(run(0x1cb, [tiny, f(1.0), f(0.0)], KEEP).v, 1);
    // Compares see a flushed denormal as zero.
    assert!(run(0x42, [tiny, f(0.0), 0], FLUSH).bit);
    assert!(!run(0x42, [tiny, f(0.0), 0], KEEP).bit);
}

#[test]
fn conversions_clamp_and_zero_nan() {
    let two40 = f(1099511627776.0);
    assert_eq!(v32(0x147, [two40, 0, 0]), u32::MAX);
    assert_eq!(v32(0x147, [0x7FC0_0000, 0, 0]), 0);
    assert_eq!(v32(0x147, [f(-1.5), 0, 0]), 0);
    assert_eq!(v32(0x147, [f(3.99), 0, 0]), 3);
    assert_eq!(v32(0x148, [f(-1.5), 0, 0]), -1i32 as u32);
    assert_eq!(v32(0x148, [f(3e9), 0, 0]), i32::MAX as u32);
    assert_eq!(v32(0x148, [f(f32::NEG_INFINITY), 0, 0]), i32::MIN as u32);
    assert_eq!(v32(0x14c, [f(-2.5), 0, 0]), -2i32 as u32); // floor(-2.0)
    assert_eq!(v32(0x14c, [f(2.5), 0, 0]), 3);
    assert_eq!(v32(0x14d, [f(-2.5), 0, 0]), -3i32 as u32);
    assert_eq!(v32(0x143, [d(-7.9), 0, 0]), -7i32 as u32);
    assert_eq!(v32(0x155, [d(5e9), 0, 0]), u32::MAX);
    assert_eq!(v32(0x145, [u64::from(-3i32 as u32), 0, 0]), 0xC040_0000);
    // 2^24 + 1 is not an f32: nearest even is 2^24.
    assert_eq!(v32(0x146, [(1 << 24) + 1, 0, 0]), 0x4B80_0000);
    assert_eq!(v32(0x153, [0x00AB_0000, 0, 0]), 0x432B_0000); // 171.0
    assert_eq!(v32(0x14e, [0xF, 0, 0]), 0xBD80_0000); // -1/16
    assert_eq!(v32(0x14e, [0x7, 0, 0]), 0x3EE0_0000); // 7/16
    assert_eq!(run(0x150, [f(0.1), 0, 0], KEEP).v, 0x3FB9_9999_A000_0000);
    assert_eq!(v32(0x14f, [d(0.1), 0, 0]), 0x3DCC_CCCD);
    assert_eq!(v32(0x1dd, [f(200.4), 2, 0x1122_3344]), 0x11C8_3344);
    assert_eq!(v32(0x294, [f(-2.0), f(0.5), 0]), 0x4000_8001); // 0.5·32767 = 16383.5 → 16384
}

#[test]
fn f16_conversions_round_to_nearest_even() {
    assert_eq!(v32(0x14a, [0x3F80_1000, 0, 0]), 0x3C00); // 1 + 2^-11: tie, to even
    assert_eq!(v32(0x14a, [0x3F80_1800, 0, 0]), 0x3C01); // 1 + 3·2^-12: up
    assert_eq!(v32(0x14a, [0x3F80_3000, 0, 0]), 0x3C02); // 1 + 1.5 ulp: tie, to even
    assert_eq!(v32(0x14a, [f(65519.0), 0, 0]), 0x7BFF);
    assert_eq!(v32(0x14a, [f(65520.0), 0, 0]), 0x7C00);
    assert_eq!(v32(0x14b, [0x3555, 0, 0]), 0x3EAA_A000);
    assert_eq!(v32(0x14b, [0x8001, 0, 0]), 0xB380_0000); // -2^-24, f16 denormal kept
    assert_eq!(run(0x14b, [0x8001, 0, 0], FLUSH).v, 0x8000_0000);
    // v_cvt_pkrtz: toward zero, and too large gives the largest f16.
    assert_eq!(v32(0x296, [0x3F80_1800, f(65520.0), 0]), 0x7BFF_3C00);
    assert_eq!(v32(0x17b, [0xBC00, 0, 0]), 0); // u16(-1.0)
    assert_eq!(v32(0x17c, [0x7C00, 0, 0]), 0x7FFF); // i16(+inf)
    assert_eq!(v32(0x17c, [0xC500, 0, 0]), 0xFFFB); // i16(-5.0)
    assert_eq!(v32(0x17a, [0xFFFD, 0, 0]), 0xC200); // f16(-3)
    assert_eq!(v32(0x179, [65535, 0, 0]), 0x7C00); // 65535 rounds past 65504
    assert_eq!(v32(0x2a0, [0x3C00, 0xC000, 0]), 0xC000_3C00);
}

#[test]
fn class_masks() {
    let class = |x: u64, mask: u32| run(0x10, [x, u64::from(mask), 0], FLUSH).bit;
    assert!(class(f(f32::NEG_INFINITY), 1 << 2));
    assert!(!class(f(f32::NEG_INFINITY), !(1 << 2) & 0x3FF));
    assert!(class(1, 1 << 7)); // +denormal, even when MODE flushes
    assert!(class(0x8000_0000, 1 << 5));
    assert!(class(0x7FC0_0000, 1 << 1));
    assert!(!class(0x7FC0_0000, 1 << 0));
    assert!(class(0x7F80_0001, 1 << 0));
    assert!(class(f(-2.0), 1 << 3));
    assert!(class(f(2.0), 1 << 8));
    assert!(run(0x12, [d(f64::INFINITY), 1 << 9, 0], FLUSH).bit);
    assert!(run(0x14, [0x8200, 1 << 4, 0], FLUSH).bit); // f16 -denormal
    assert!(op(0x11).unwrap().cmpx && !op(0x10).unwrap().cmpx);
}

#[test]
fn compares_and_unordered() {
    let nan = 0x7FC0_0000u64;
    assert!(run(0x41, [f(1.0), f(2.0), 0], FLUSH).bit); // lt
    assert!(!run(0x41, [nan, f(2.0), 0], FLUSH).bit);
    assert!(run(0x49, [nan, f(2.0), 0], FLUSH).bit); // nge
    assert!(!run(0x45, [nan, f(2.0), 0], FLUSH).bit); // lg
    assert!(run(0x4d, [nan, nan, 0], FLUSH).bit); // neq
    assert!(run(0x48, [f(1.0), nan, 0], FLUSH).bit); // u
    assert!(run(0x4f, [nan, nan, 0], FLUSH).bit); // tru
    assert!(!run(0x40, [f(1.0), f(1.0), 0], FLUSH).bit); // f
    assert!(run(0x66, [d(2.0), d(2.0), 0], FLUSH).bit); // ge f64
    assert!(run(0x24, [0x4000, 0x3C00, 0], FLUSH).bit); // gt f16
    assert!(op(0x54).unwrap().cmpx && !op(0x44).unwrap().cmpx);
}

#[test]
fn legacy_multiply_and_madmk() {
    assert_eq!(v32(0x104, [f(0.0), f(f32::INFINITY), 0]), 0);
    assert!(f32::from_bits(v32(0x105, [f(0.0), f(f32::INFINITY), 0])).is_nan());
    assert_eq!(v32(0x1c0, [f(0.0), 0x7FC0_0000, f(2.0)]), 0x4000_0000);
    assert_eq!(v32(0x117, [f(3.0), f(2.0), f(1.0)]), 0x40E0_0000); // 3·2+1 = 7
    assert_eq!(run_bit(0x116, [f(3.0), f(2.0), 0], false, f(1.0)).v, f(7.0)); // mac
    assert_eq!(run_bit(0x123, [0x4200, 0x4000, 0], false, 0x3C00).v, 0x4700); // 3·2+1 f16
}

#[test]
fn scaling_frexp_and_transcendentals() {
    assert_eq!(v32(0x288, [f(1.0), u64::from(-149i32 as u32), 0]), 1);
    assert_eq!(v32(0x288, [f(1.5), u64::from(-149i32 as u32), 0]), 2); // tie to even
    assert_eq!(v32(0x288, [f(1.0), 128, 0]), 0x7F80_0000);
    assert_eq!(run(0x284, [d(1.5), u64::from(-1074i32 as u32), 0], KEEP).v, 2);
    assert_eq!(v32(0x174, [f(-12.0), 0, 0]), 0xBF40_0000); // -0.75
    assert_eq!(v32(0x173, [f(-12.0), 0, 0]), 4);
    assert_eq!(v32(0x173, [1, 0, 0]), -148i32 as u32); // 2^-149 = 0.5 · 2^-148
    assert_eq!(v32(0x169, [f(0.25), 0, 0]), 0x3F80_0000); // sin(π/2)
    assert_eq!(v32(0x16a, [f(0.5), 0, 0]), 0xBF80_0000); // cos(π)
    assert_eq!(v32(0x160, [f(3.0), 0, 0]), 0x4100_0000); // 2^3
    assert_eq!(v32(0x161, [f(8.0), 0, 0]), 0x4040_0000);
    assert_eq!(v32(0x161, [f(0.0), 0, 0]), 0xFF80_0000);
    assert_eq!(v32(0x167, [f(2.0), 0, 0]), 0x3FB5_04F3);
    assert_eq!(v32(0x164, [f(4.0), 0, 0]), 0x3F00_0000);
    assert_eq!(v32(0x164, [f(-0.0), 0, 0]), 0xFF80_0000);
    assert_eq!(v32(0x162, [f(-0.0), 0, 0]), 0xFF80_0000);
    assert_eq!(v32(0x17e, [0x4400, 0, 0]), 0x4000); // sqrt_f16(4) = 2
                                                    // The first 53 bits of 2/π.
    assert_eq!(run(0x292, [d(1.0), 0, 0], KEEP).v, 0x3FE4_5F30_6DC9_C882);
    assert_eq!(run(0x280, [d(0.1), d(0.2), 0], KEEP).v, 0x3FD3_3333_3333_3334);
}
