//! VOP3P: packed 16-bit math, v_fma_mix and dot products, assembled by llvm-mc; expected values
//! worked out by hand.

mod common;

use gfx906::Wave;

/// MODE with IEEE and DX10_CLAMP set and every denormal kept.
const MODE: u32 = 0x3F0;

fn set(w: &mut Wave, reg: u32, lanes: &[u32]) {
    for (lane, &v) in lanes.iter().enumerate() {
        w.set_vgpr(reg, lane, v);
    }
}

fn one(source: &str, v1: u32, v2: u32, v3: u32, v0: u32) -> u32 {
    let w = common::run(source, |w| {
        w.mode = MODE;
        set(w, 1, &[v1]);
        set(w, 2, &[v2]);
        set(w, 3, &[v3]);
        set(w, 0, &[v0]);
    });
    w.vgpr(0, 0)
}

#[test]
fn pk_add_f16_with_op_sel() {
    // v1 = (hi 2.0, lo 1.0), v2 = (hi 4.0, lo 0.5).
    let (a, b) = (0x4000_3C00, 0x4400_3800);
    assert_eq!(one("v_pk_add_f16 v0, v1, v2", a, b, 0, 0), 0x4600_3E00); // (6.0, 1.5)
                                                                         // op_sel:[1,0]: the low result reads v1's high half; op_sel_hi:[0,1]: the high reads v1's low.
    assert_eq!(one("v_pk_add_f16 v0, v1, v2 op_sel:[1,0] op_sel_hi:[0,1]", a, b, 0, 0), 0x4500_4100); // (5.0, 2.5)
                                                                                                      // neg_lo on src1: the low half subtracts.
    assert_eq!(one("v_pk_add_f16 v0, v1, v2 neg_lo:[0,1]", a, b, 0, 0), 0x4600_3800); // (6.0, 0.5)
                                                                                      // clamp: 6.0 and 1.5 clamp to 1.0.
    assert_eq!(one("v_pk_add_f16 v0, v1, v2 clamp", a, b, 0, 0), 0x3C00_3C00);
}

#[test]
fn pk_f16_fma_mul_min_max() {
    let (a, b, c) = (0x4000_3C00, 0xC400_3800, 0x3C00_3C00); // (2, 1), (-4, 0.5), (1, 1)
    assert_eq!(one("v_pk_fma_f16 v0, v1, v2, v3", a, b, c, 0), 0xC700_3E00); // (-7, 1.5)
    assert_eq!(one("v_pk_mul_f16 v0, v1, v2", a, b, 0, 0), 0xC800_3800); // (-8, 0.5)
    assert_eq!(one("v_pk_min_f16 v0, v1, v2", a, b, 0, 0), 0xC400_3800);
    assert_eq!(one("v_pk_max_f16 v0, v1, v2", a, b, 0, 0), 0x4000_3C00);
    // An inline constant is a 16-bit value in the low half: op_sel_hi:[1,0] uses it for both.
    assert_eq!(one("v_pk_mul_f16 v0, v1, 2.0 op_sel_hi:[1,0]", a, 0, 0, 0), 0x4400_4000);
    // (4, 2)
}

#[test]
fn pk_integer_ops() {
    assert_eq!(one("v_pk_add_u16 v0, v1, v2", 0xFFFF_0001, 0x0002_0002, 0, 0), 0x0001_0003);
    assert_eq!(one("v_pk_add_u16 v0, v1, v2 clamp", 0xFFFF_0001, 0x0002_0002, 0, 0), 0xFFFF_0003);
    assert_eq!(one("v_pk_sub_i16 v0, v1, v2 clamp", 0x8000_0005, 0x0001_0007, 0, 0), 0x8000_FFFE);
    assert_eq!(one("v_pk_sub_i16 v0, v1, v2", 0x8000_0005, 0x0001_0007, 0, 0), 0x7FFF_FFFE);
    assert_eq!(one("v_pk_mul_lo_u16 v0, v1, v2", 0x0100_0003, 0x0100_0005, 0, 0), 0x0000_000F);
    assert_eq!(one("v_pk_mad_i16 v0, v1, v2, v3", 0xFFFE_0003, 0x0003_0004, 0x0001_0001, 0), 0xFFFB_000D);
    assert_eq!(one("v_pk_mad_u16 v0, v1, v2, v3", 0x0002_0003, 0x0003_0004, 0x0001_0001, 0), 0x0007_000D);
    // Shifts: amounts from src0, values from src1, each half on its own.
    assert_eq!(one("v_pk_lshlrev_b16 v0, v1, v2", 0x0004_0011, 0x0001_0001, 0, 0), 0x0010_0002);
    assert_eq!(one("v_pk_lshrrev_b16 v0, v1, v2", 0x0004_0001, 0x8000_8000, 0, 0), 0x0800_4000);
    assert_eq!(one("v_pk_ashrrev_i16 v0, v1, v2", 0x0004_0001, 0x8000_8000, 0, 0), 0xF800_C000);
    assert_eq!(one("v_pk_max_i16 v0, v1, v2", 0xFFFF_0001, 0x0001_FFFF, 0, 0), 0x0001_0001);
    assert_eq!(one("v_pk_min_u16 v0, v1, v2", 0xFFFF_0001, 0x0001_FFFF, 0, 0), 0x0001_0001);
    assert_eq!(one("v_pk_max_u16 v0, v1, v2", 0xFFFF_0001, 0x0001_FFFF, 0, 0), 0xFFFF_FFFF);
}

#[test]
fn fma_mix_reads_f32_or_f16_halves() {
    // v1 f32 1.5; v2 holds f16 (hi 4.0, lo 2.0); v3 f32 0.25.
    let (a, b, c) = (0x3FC0_0000, 0x4400_4000, 0x3E80_0000);
    // op_sel_hi:[0,1,0]: src1 is f16, op_sel picks its low half: 1.5·2 + 0.25 = 3.25.
    assert_eq!(one("v_fma_mix_f32 v0, v1, v2, v3 op_sel_hi:[0,1,0]", a, b, c, 0), 0x4050_0000);
    // op_sel:[0,1,0]: the high half: 1.5·4 + 0.25 = 6.25.
    assert_eq!(one("v_fma_mix_f32 v0, v1, v2, v3 op_sel:[0,1,0] op_sel_hi:[0,1,0]", a, b, c, 0), 0x40C8_0000);
    // neg_hi takes the absolute value, neg_lo negates: −|−1.5|·2 − 0.25 = −3.25.
    assert_eq!(one("v_fma_mix_f32 v0, -|v1|, v2, -v3 op_sel_hi:[0,1,0]", 0xBFC0_0000, b, c, 0), 0xC050_0000);
    // mixlo writes the f16 result to the low half and keeps the high half; mixhi the converse.
    assert_eq!(one("v_fma_mixlo_f16 v0, v1, v2, v3 op_sel_hi:[0,1,0]", a, b, c, 0xDEAD_BEEF), 0xDEAD_4280);
    assert_eq!(one("v_fma_mixhi_f16 v0, v1, v2, v3 op_sel_hi:[0,1,0]", a, b, c, 0xDEAD_BEEF), 0x4280_BEEF);
    assert_eq!(one("v_fma_mixlo_f16 v0, v1, v2, v3 op_sel_hi:[0,1,0] clamp", a, b, c, 0), 0x3C00);
}

#[test]
fn dot_products() {
    // Signed bytes: (1, -2, 3, -4) · (5, 6, -7, 8) + 10 = 5 - 12 - 21 - 32 + 10 = -50.
    assert_eq!(one("v_dot4_i32_i8 v0, v1, v2, v3", 0xFC03_FE01, 0x08F9_0605, 10, 0), -50i32 as u32);
    // The same bytes unsigned: 1·5 + 254·6 + 3·249 + 252·8 + 10 = 5 + 1524 + 747 + 2016 + 10.
    assert_eq!(one("v_dot4_u32_u8 v0, v1, v2, v3", 0xFC03_FE01, 0x08F9_0605, 10, 0), 4302);
    // Nibbles: v1 = 0xF...1 = (1, -1, 0 ×5, ... high nibble 0xF = -1), v2 all 2.
    // Elements of v1 low to high: 1, 15(-1), 0, 0, 0, 0, 0, 15(-1); sum of 2·each = 2 - 2 - 2 = -2.
    assert_eq!(one("v_dot8_i32_i4 v0, v1, v2, v3", 0xF000_00F1, 0x2222_2222, 0, 0), -2i32 as u32);
    assert_eq!(one("v_dot8_u32_u4 v0, v1, v2, v3", 0xF000_00F1, 0x2222_2222, 0, 0), 2 + 30 + 30);
    // i16 halves: (-3)·7 + 2·(-5) + 100 = 69.
    assert_eq!(one("v_dot2_i32_i16 v0, v1, v2, v3", 0x0002_FFFD, 0xFFFB_0007, 100, 0), 69);
    assert_eq!(one("v_dot2_u32_u16 v0, v1, v2, v3", 0x0002_0003, 0x0005_0007, 100, 0), 131);
    // Saturation under clamp.
    assert_eq!(one("v_dot2_i32_i16 v0, v1, v2, v3 clamp", 0x8000_8000, 0x8000_8000, 0x7FFF_FFFF, 0), 0x7FFF_FFFF);
    // f16: 2·0.5 + 4·(-1) + 1.5 = -1.5.
    assert_eq!(one("v_dot2_f32_f16 v0, v1, v2, v3", 0x4400_4000, 0xBC00_3800, 0x3FC0_0000, 0), 0xBFC0_0000);
}

#[test]
fn lanes_off_in_exec_are_untouched() {
    let w = common::run("v_pk_add_u16 v0, v1, v2", |w| {
        w.set_exec(0x5);
        for lane in 0..4 {
            w.set_vgpr(1, lane, 0x0001_0001 * (lane as u32 + 1));
            w.set_vgpr(2, lane, 0x0010_0010);
            w.set_vgpr(0, lane, 0xAAAA_AAAA);
        }
    });
    assert_eq!(w.vgpr(0, 0), 0x0011_0011);
    assert_eq!(w.vgpr(0, 1), 0xAAAA_AAAA);
    assert_eq!(w.vgpr(0, 2), 0x0013_0013);
    assert_eq!(w.vgpr(0, 3), 0xAAAA_AAAA);
}
