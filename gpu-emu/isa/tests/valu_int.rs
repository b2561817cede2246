//! Integer, bit and compare operations of the VALU, run from llvm-mc's encodings; expected values
//! worked out by hand.

mod common;

use gfx906::Wave;

/// Sets VGPR `reg` of every lane to `f(lane)`.
fn lanes(w: &mut Wave, reg: u32, f: impl Fn(usize) -> u32) {
    for l in 0..64 {
        w.set_vgpr(reg, l, f(l));
    }
}

/// Runs `src` with v1, v2, v3 of every lane set to `a`, `b`, `c`; returns v0 of lane 0.
fn one(src: &str, a: u32, b: u32, c: u32) -> u32 {
    let w = common::run(src, |w| {
        lanes(w, 1, |_| a);
        lanes(w, 2, |_| b);
        lanes(w, 3, |_| c);
    });
    w.vgpr(0, 0)
}

#[test]
fn add_co_chains_a_64_bit_add() {
    // lane 0: 0x1_FFFFFFFF + 1; lane 1: 0xFFFFFFFF_FFFFFFFF + 1 (carries out); lane 2: 5 + 7.
    let a: [u64; 3] = [0x1_FFFF_FFFF, u64::MAX, 5];
    let b: [u64; 3] = [1, 1, 7];
    let w = common::run("v_add_co_u32_e32 v4, vcc, v0, v2\nv_addc_co_u32_e32 v5, vcc, v1, v3, vcc", |w| {
        for l in 0..3 {
            w.set_vgpr64(0, l, a[l]);
            w.set_vgpr64(2, l, b[l]);
        }
    });
    assert_eq!(w.vgpr64(4, 0), 0x2_0000_0000);
    assert_eq!(w.vgpr64(4, 1), 0);
    assert_eq!(w.vgpr64(4, 2), 12);
    // Only lane 1 carries out of the high half; lanes 3.. add 0 + 0.
    assert_eq!(w.vcc(), 0b010);
}

#[test]
fn carries_in_vop3_go_through_sgpr_pairs() {
    let w = common::run("v_sub_co_u32_e64 v4, s[8:9], v0, v2\nv_subb_co_u32_e64 v5, s[10:11], v1, v3, s[8:9]", |w| {
        // lane 0: 0x1_00000000 - 1 = 0xFFFFFFFF; lane 1: 0 - 1 = all ones, borrows out.
        w.set_vgpr64(0, 0, 0x1_0000_0000);
        w.set_vgpr64(2, 0, 1);
        w.set_vgpr64(0, 1, 0);
        w.set_vgpr64(2, 1, 1);
    });
    assert_eq!(w.vgpr64(4, 0), 0xFFFF_FFFF);
    assert_eq!(w.vgpr64(4, 1), u64::MAX);
    assert_eq!(w.sgpr64(8), 0b11);
    assert_eq!(w.sgpr64(10), 0b10);
}

#[test]
fn add_u32_clamp_saturates() {
    assert_eq!(one("v_add_u32_e64 v0, v1, v2 clamp", 0xFFFF_FFF0, 0x20, 0), u32::MAX);
    assert_eq!(one("v_add_u32_e64 v0, v1, v2", 0xFFFF_FFF0, 0x20, 0), 0x10);
    assert_eq!(one("v_sub_u32_e64 v0, v1, v2 clamp", 3, 5, 0), 0);
    assert_eq!(one("v_subrev_u32_e32 v0, v1, v2", 3, 5, 0), 2);
    assert_eq!(one("v_add_i32 v0, v1, v2 clamp", 0x7FFF_FFFF, 1, 0), 0x7FFF_FFFF);
    assert_eq!(one("v_add_i32 v0, v1, v2", 0x7FFF_FFFF, 1, 0), 0x8000_0000);
    assert_eq!(one("v_sub_i32 v0, v1, v2 clamp", 0x8000_0000, 1, 0), 0x8000_0000);
    assert_eq!(one("v_add_co_u32_e64 v0, s[2:3], v1, v2 clamp", 0xFFFF_FFFF, 2, 0), u32::MAX);
}

#[test]
fn multiplies() {
    assert_eq!(one("v_mul_hi_u32 v0, v1, v2", u32::MAX, u32::MAX, 0), 0xFFFF_FFFE);
    assert_eq!(one("v_mul_lo_u32 v0, v1, v2", u32::MAX, u32::MAX, 0), 1);
    assert_eq!(one("v_mul_hi_i32 v0, v1, v2", u32::MAX, 5, 0), u32::MAX);
    assert_eq!(one("v_mul_hi_i32 v0, v1, v2", 0x4000_0000, 8, 0), 2);
    // The i24 forms ignore the top byte and sign-extend bit 23.
    assert_eq!(one("v_mul_i32_i24_e32 v0, v1, v2", 0x00FF_FFFF, 3, 0), 0xFFFF_FFFD);
    assert_eq!(one("v_mul_u32_u24_e32 v0, v1, v2", 0xAB00_0002, 3, 0), 6);
    assert_eq!(one("v_mul_hi_u32_u24_e32 v0, v1, v2", 0xFF_FFFF, 0xFF_FFFF, 0), 0xFFFF);
    assert_eq!(one("v_mul_hi_i32_i24_e32 v0, v1, v2", 0x80_0000, 0x80_0000, 0), 0x4000);
    assert_eq!(one("v_mad_u32_u24 v0, v1, v2, v3", 0x100_0010, 0x10, 7), 0x107);
    assert_eq!(one("v_mad_i32_i24 v0, v1, v2, v3", 0xFF_FFFF, 2, 7), 5);
    assert_eq!(one("v_mul_lo_u16_e32 v0, v1, v2", 0x1_0101, 0x100, 0), 0x0100);
}

#[test]
fn mad_64_bit_results_and_carry() {
    let w = common::run("v_mad_u64_u32 v[4:5], s[2:3], v1, v2, v[6:7]", |w| {
        lanes(w, 1, |_| u32::MAX);
        lanes(w, 2, |_| u32::MAX);
        // lane 0 adds 1: 0xFFFFFFFE_00000001 + 1; lane 1 adds all ones: carries out.
        w.set_vgpr64(6, 0, 1);
        w.set_vgpr64(6, 1, u64::MAX);
    });
    assert_eq!(w.vgpr64(4, 0), 0xFFFF_FFFE_0000_0002);
    assert_eq!(w.vgpr64(4, 1), 0xFFFF_FFFE_0000_0000);
    assert_eq!(w.sgpr64(2), 0b10);
    let w = common::run("v_mad_i64_i32 v[4:5], s[2:3], v1, v2, v[6:7]", |w| {
        lanes(w, 1, |_| (-3i32) as u32);
        lanes(w, 2, |_| 5);
        w.set_vgpr64(6, 0, 10);
    });
    assert_eq!(w.vgpr64(4, 0) as i64, -5);
    assert_eq!(w.sgpr64(2), 0);
}

#[test]
fn bit_fields() {
    assert_eq!(one("v_bfe_u32 v0, v1, v2, v3", 0x1234_5678, 8, 12), 0x456);
    assert_eq!(one("v_bfe_u32 v0, v1, v2, v3", 0x1234_5678, 8, 0), 0);
    assert_eq!(one("v_bfe_i32 v0, v1, v2, v3", 0x0000_F000, 12, 4), u32::MAX);
    assert_eq!(one("v_bfe_i32 v0, v1, v2, v3", 0x0000_7000, 12, 4), 7);
    assert_eq!(one("v_bfe_i32 v0, v1, v2, v3", 0x8000_0000, 31, 1), u32::MAX);
    assert_eq!(one("v_bfi_b32 v0, v1, v2, v3", 0xFF00_FF00, 0x1234_5678, 0xAABB_CCDD), 0x12BB_56DD);
    assert_eq!(one("v_bfm_b32 v0, v1, v2", 4, 8, 0), 0xF00);
    assert_eq!(one("v_alignbit_b32 v0, v1, v2, v3", 0x1234_5678, 0x9ABC_DEF0, 8), 0x789A_BCDE);
    assert_eq!(one("v_alignbit_b32 v0, v1, v2, v3", 0x1234_5678, 0x9ABC_DEF0, 32), 0x9ABC_DEF0);
    assert_eq!(one("v_alignbyte_b32 v0, v1, v2, v3", 0x1234_5678, 0x9ABC_DEF0, 3), 0x3456_789A);
    // Bytes of {v1, v2}: 0-3 from v2, 4-7 from v1; 0x0C zero, 0x0D ones, 0x09 the sign of byte 3.
    assert_eq!(one("v_perm_b32 v0, v1, v2, v3", 0x8899_AABB, 0x1122_3344, 0x0D0C_0704), 0xFF00_88BB);
    assert_eq!(one("v_perm_b32 v0, v1, v2, v3", 0x8899_AABB, 0x9122_3344, 0x0C09_0B00), 0x00FF_FF44);
}

#[test]
fn bit_counts_and_scans() {
    assert_eq!(one("v_ffbh_u32_e32 v0, v1", 0x0001_0000, 0, 0), 15);
    assert_eq!(one("v_ffbh_u32_e32 v0, v1", 0, 0, 0), u32::MAX);
    assert_eq!(one("v_ffbl_b32_e32 v0, v1", 0x0001_0000, 0, 0), 16);
    assert_eq!(one("v_ffbl_b32_e32 v0, v1", 0, 0, 0), u32::MAX);
    assert_eq!(one("v_ffbh_i32_e32 v0, v1", 0xFFF0_0000, 0, 0), 12);
    assert_eq!(one("v_ffbh_i32_e32 v0, v1", u32::MAX, 0, 0), u32::MAX);
    assert_eq!(one("v_bfrev_b32_e32 v0, v1", 0x0000_0001, 0, 0), 0x8000_0000);
    assert_eq!(one("v_bcnt_u32_b32 v0, v1, v2", 0xF0F0_0001, 10, 0), 19);
    assert_eq!(one("v_not_b32_e32 v0, v1", 0x0F0F_0000, 0, 0), 0xF0F0_FFFF);
    assert_eq!(one("v_xnor_b32_e32 v0, v1, v2", 0xFF00_FF00, 0xF0F0_F0F0, 0), 0xF00F_F00F);
}

#[test]
fn mbcnt_counts_active_lanes_below_over_a_partial_exec() {
    let w = common::run("v_mbcnt_lo_u32_b32 v1, exec_lo, 0\nv_mbcnt_hi_u32_b32 v1, exec_hi, v1", |w| {
        w.set_exec(0xF0F0_0000_0000_00AA);
        lanes(w, 1, |_| 0xDEAD);
    });
    let want = [(1, 0), (3, 1), (5, 2), (7, 3), (52, 4), (55, 7), (60, 8), (63, 11)];
    for (lane, n) in want {
        assert_eq!(w.vgpr(1, lane), n, "lane {lane}");
    }
    for lane in [0, 2, 8, 31, 32, 51, 56] {
        assert_eq!(w.vgpr(1, lane), 0xDEAD, "lane {lane} is off in EXEC");
    }
    // With all lanes on, mbcnt of all ones is the lane number.
    let w = common::run("v_mbcnt_lo_u32_b32 v1, -1, 0\nv_mbcnt_hi_u32_b32 v1, -1, v1", |_| {});
    assert!((0..64).all(|l| w.vgpr(1, l) == l as u32));
}

#[test]
fn shifts() {
    assert_eq!(one("v_lshlrev_b32_e32 v0, v1, v2", 36, 1, 0), 16);
    assert_eq!(one("v_lshrrev_b32_e32 v0, v1, v2", 4, 0x8000_0000, 0), 0x0800_0000);
    assert_eq!(one("v_ashrrev_i32_e32 v0, v1, v2", 4, 0x8000_0000, 0), 0xF800_0000);
    assert_eq!(one("v_lshrrev_b16_e32 v0, v1, v2", 17, 0xFFFF_8000, 0), 0x4000);
    assert_eq!(one("v_ashrrev_i16_e32 v0, v1, v2", 1, 0x8000, 0), 0xC000);
    let w = common::run("v_lshlrev_b64 v[4:5], 36, v[6:7]\nv_ashrrev_i64 v[8:9], v1, v[10:11]", |w| {
        w.set_vgpr64(6, 0, 0x1234_5678_9ABC_DEF1);
        w.set_vgpr(1, 0, 68);
        w.set_vgpr64(10, 0, 0x8000_0000_0000_0000);
    });
    assert_eq!(w.vgpr64(4, 0), 0xABCD_EF10_0000_0000);
    assert_eq!(w.vgpr64(8, 0), 0xF800_0000_0000_0000);
}

#[test]
fn three_operand_logic_and_adds() {
    assert_eq!(one("v_lshl_add_u32 v0, v1, v2, v3", 3, 4, 5), 53);
    assert_eq!(one("v_add_lshl_u32 v0, v1, v2, v3", 3, 4, 5), 224);
    assert_eq!(one("v_add3_u32 v0, v1, v2, v3", u32::MAX, 2, 3), 4);
    assert_eq!(one("v_lshl_or_b32 v0, v1, v2, v3", 1, 8, 0xF), 0x10F);
    assert_eq!(one("v_and_or_b32 v0, v1, v2, v3", 0xFF, 0x1234, 0x10000), 0x10034);
    assert_eq!(one("v_or3_b32 v0, v1, v2, v3", 1, 2, 4), 7);
    assert_eq!(one("v_xad_u32 v0, v1, v2, v3", 0xF0, 0xFF, 1), 0x10);
}

#[test]
fn min_max_med() {
    assert_eq!(one("v_min_i32_e32 v0, v1, v2", (-5i32) as u32, 3, 0), (-5i32) as u32);
    assert_eq!(one("v_max_u32_e32 v0, v1, v2", (-5i32) as u32, 3, 0), (-5i32) as u32);
    assert_eq!(one("v_min3_i32 v0, v1, v2, v3", 4, (-2i32) as u32, 9), (-2i32) as u32);
    assert_eq!(one("v_max3_u32 v0, v1, v2, v3", 4, 2, 9), 9);
    assert_eq!(one("v_med3_i32 v0, v1, v2, v3", 4, (-2i32) as u32, 9), 4);
    assert_eq!(one("v_med3_u32 v0, v1, v2, v3", 4, (-2i32) as u32, 9), 9);
    // 16-bit forms see only the low halves and zero the high half of the result.
    assert_eq!(one("v_max_i16_e32 v0, v1, v2", 0x1_FFFF, 0x2_0001, 0), 1);
    assert_eq!(one("v_min_u16_e32 v0, v1, v2", 0x1_FFFF, 0x2_0001, 0), 1);
    assert_eq!(one("v_med3_i16 v0, v1, v2, v3", 0xFFFE, 5, 0x8000), 0xFFFE);
    assert_eq!(one("v_max3_u16 v0, v1, v2, v3", 0xFFFE, 5, 0x8000), 0xFFFE);
}

#[test]
fn sums_of_absolute_differences() {
    // |1-4| + |10-2| + |0-0| + |255-0| = 266, plus 7.
    assert_eq!(one("v_sad_u8 v0, v1, v2, v3", 0xFF00_0A01, 0x0000_0204, 7), 273);
    assert_eq!(one("v_sad_hi_u8 v0, v1, v2, v3", 0xFF00_0A01, 0x0000_0204, 7), (266 << 16) + 7);
    // msad skips the bytes where v2 is 0: |1-4| + |10-2| = 11.
    assert_eq!(one("v_msad_u8 v0, v1, v2, v3", 0xFF00_0A01, 0x0000_0204, 0), 11);
    assert_eq!(one("v_sad_u16 v0, v1, v2, v3", 0x0001_0010, 0x0003_0008, 1), 11);
    assert_eq!(one("v_sad_u32 v0, v1, v2, v3", 3, 10, 1), 8);
}

#[test]
fn sixteen_bit_adds_and_mads() {
    assert_eq!(one("v_add_u16_e32 v0, v1, v2", 0xAAAA_FFFF, 2, 0), 1);
    assert_eq!(one("v_add_u16_e64 v0, v1, v2 clamp", 0xFFFF, 2, 0), 0xFFFF);
    assert_eq!(one("v_sub_u16_e64 v0, v1, v2 clamp", 1, 2, 0), 0);
    assert_eq!(one("v_add_i16 v0, v1, v2 clamp", 0x7FFF, 1, 0), 0x7FFF);
    assert_eq!(one("v_sub_i16 v0, v1, v2", 0x8000, 1, 0), 0x7FFF);
    assert_eq!(one("v_mad_u32_u16 v0, v1, v2, v3 op_sel:[1,0,0,0]", 0x0003_0005, 7, 1), 22);
    assert_eq!(one("v_mad_i32_i16 v0, v1, v2, v3", 0xFFFF, 7, 10), 3);
    // gfx9's v_mad_u16 keeps the half of v0 it does not write; op_sel[3] picks the high half.
    let w = common::run("v_mad_u16 v0, v1, v2, v3 op_sel:[0,1,0,1]\nv_mad_u16 v4, v1, v2, v3", |w| {
        lanes(w, 0, |_| 0x1111_2222);
        lanes(w, 4, |_| 0x3333_4444);
        lanes(w, 1, |_| 3);
        lanes(w, 2, |_| 0x0005_0002);
        lanes(w, 3, |_| 1);
    });
    assert_eq!(w.vgpr(0, 0), 0x0010_2222);
    assert_eq!(w.vgpr(4, 0), 0x3333_0007);
    assert_eq!(one("v_mad_u16 v0, v1, v2, v3 clamp", 0x100, 0x100, 0), 0xFFFF);
    assert_eq!(one("v_sat_pk_u8_i16_e32 v0, v1", 0xFF80_0123, 0, 0), 0x00FF);
    assert_eq!(one("v_cvt_pk_u16_u32 v0, v1, v2", 0x1_0000, 0x1234, 0), 0x1234_FFFF);
    assert_eq!(one("v_cvt_pk_i16_i32 v0, v1, v2", (-40000i32) as u32, 5, 0), 0x0005_8000);
}

#[test]
fn compares_into_vcc_and_sgpr_pairs() {
    let w = common::run(
        "v_cmp_lt_i32_e32 vcc, v1, v2\nv_cmp_gt_u32_e64 s[2:3], v1, v2\nv_cmp_ne_u16_e64 s[4:5], v1, v2",
        |w| {
            w.set_exec(0xF);
            w.set_vcc(u64::MAX);
            w.set_sgpr64(2, u64::MAX);
            // lane 0: -1 vs 1; lane 1: 2 vs 2; lane 2: 3 vs 0x10003 (equal low halves); lane 3: 0 vs -5.
            let a = [u32::MAX, 2, 3, 0];
            let b = [1, 2, 0x1_0003, (-5i32) as u32];
            lanes(w, 1, |l| a.get(l).copied().unwrap_or(0));
            lanes(w, 2, |l| b.get(l).copied().unwrap_or(7));
        },
    );
    // Lanes off in EXEC write 0 bits.
    // lane 2 compares 3 with 0x10003 as 32 bits.
    assert_eq!(w.vcc(), 0b0101);
    assert_eq!(w.sgpr64(2), 0b0001);
    assert_eq!(w.sgpr64(4), 0b1001);
}

#[test]
fn sixty_four_bit_compares() {
    let w = common::run("v_cmp_lt_i64_e32 vcc, v[2:3], v[4:5]\nv_cmp_lt_u64_e64 s[6:7], v[2:3], v[4:5]", |w| {
        w.set_exec(0b11);
        w.set_vgpr64(2, 0, u64::MAX);
        w.set_vgpr64(4, 0, 1);
        w.set_vgpr64(2, 1, 0x1_0000_0000);
        w.set_vgpr64(4, 1, 0x1_0000_0001);
    });
    assert_eq!(w.vcc(), 0b11);
    assert_eq!(w.sgpr64(6), 0b10);
}

#[test]
fn cmpx_writes_exec_and_the_mask() {
    let w = common::run("v_cmpx_eq_u32_e32 vcc, 0, v1\nv_mov_b32_e32 v2, 9", |w| {
        lanes(w, 1, |l| (l % 2) as u32);
        lanes(w, 2, |_| 1);
    });
    let even = 0x5555_5555_5555_5555u64;
    assert_eq!(w.exec(), even);
    assert_eq!(w.vcc(), even);
    assert_eq!((w.vgpr(2, 0), w.vgpr(2, 1)), (9, 1));
    let w = common::run("v_cmpx_lt_u32_e64 s[4:5], v1, 3", |w| {
        w.set_exec(0xFF00);
        lanes(w, 1, |l| l as u32 % 5);
    });
    // Lanes 8..15 hold 3, 4, 0, 1, 2, 3, 4, 0.
    assert_eq!(w.exec(), 0b1001_1100 << 8);
    assert_eq!(w.sgpr64(4), 0b1001_1100 << 8);
}

#[test]
fn compare_results_feed_cndmask() {
    let w = common::run(
        "v_cmp_f_u32_e64 s[2:3], v1, v2\nv_cmp_t_i32_e32 vcc, v1, v2\nv_cndmask_b32_e32 v3, v1, v2, vcc\nv_cndmask_b32_e64 v4, v1, v2, s[2:3]",
        |w| {
            lanes(w, 1, |_| 10);
            lanes(w, 2, |_| 20);
        },
    );
    assert_eq!((w.sgpr64(2), w.vcc()), (0, u64::MAX));
    assert_eq!((w.vgpr(3, 5), w.vgpr(4, 5)), (20, 10));
}
