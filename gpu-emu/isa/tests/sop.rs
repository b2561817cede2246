//! The scalar ALU and program control (SOP1, SOP2, SOPK, SOPC, SOPP): values worked out by hand
//! from the Vega ISA reference's definitions. Branch offsets are in dwords from the next
//! instruction (llvm-mc leaves label fixups unresolved in -show-encoding output).

mod common;

use common::{run, run_with};
use gfx906::{Fault, Flow, Ranges};

/// `s_cselect_b32 sN, 1, 0`: captures SCC in an SGPR after each instruction under test.
fn scc_to(reg: u32) -> String {
    format!("s_cselect_b32 s{reg}, 1, 0")
}

#[test]
fn unsigned_adds_and_subtracts_carry_and_borrow_through_scc() {
    let src = [
        "s_add_u32 s10, s0, s1".to_string(), // 0xFFFFFFFF + 2 = 1, carry
        scc_to(40),
        "s_addc_u32 s11, s2, s3".into(), // 5 + 7 + carry = 13, no carry
        scc_to(41),
        "s_sub_u32 s12, s2, s3".into(), // 5 - 7 = 0xFFFFFFFE, borrow
        scc_to(42),
        "s_subb_u32 s13, s3, s2".into(), // 7 - 5 - borrow = 1, no borrow
        scc_to(43),
        // A 64-bit add as compilers emit it: 0x1_FFFFFFFF + 1.
        "s_add_u32 s20, s4, s6".into(),
        "s_addc_u32 s21, s5, s7".into(),
        // 0 - 0 - 1 with the borrow in: 0xFFFFFFFF, borrow out.
        "s_sub_u32 s14, 0, 1".into(),
        "s_subb_u32 s15, 0, 0".into(),
        scc_to(44),
        // 6 - 5 - borrow = 0 exactly: no borrow out.
        "s_sub_u32 s18, 0, 1".into(),
        "s_subb_u32 s19, 6, 5".into(),
        scc_to(46),
        // 0xFFFFFFFF + 0 + carry: carry out, 0.
        "s_add_u32 s16, -1, 1".into(),
        "s_addc_u32 s17, -1, 0".into(),
        scc_to(45),
    ]
    .join("\n");
    let w = run(&src, |w| {
        w.s[0] = 0xFFFF_FFFF;
        w.s[1] = 2;
        w.s[2] = 5;
        w.s[3] = 7;
        w.set_sgpr64(4, 0x1_FFFF_FFFF);
        w.set_sgpr64(6, 1);
    });
    assert_eq!(&w.s[10..14], &[1, 13, 0xFFFF_FFFE, 1]);
    assert_eq!(&w.s[40..44], &[1, 0, 1, 0]);
    assert_eq!(w.sgpr64(20), 0x2_0000_0000);
    assert_eq!((w.s[14], w.s[15], w.s[44]), (0xFFFF_FFFF, 0xFFFF_FFFF, 1));
    assert_eq!((w.s[16], w.s[17], w.s[45]), (0, 0, 1));
    assert_eq!((w.s[19], w.s[46]), (0, 0));
}

#[test]
fn signed_adds_set_scc_on_overflow() {
    let src = [
        "s_add_i32 s10, s0, 1".to_string(), // 0x7FFFFFFF + 1 overflows
        scc_to(40),
        "s_sub_i32 s11, s1, 1".into(), // 0x80000000 - 1 overflows
        scc_to(41),
        "s_add_i32 s12, -1, 1".into(), // 0, no overflow (a carry, but not a signed overflow)
        scc_to(42),
        "s_sub_i32 s13, 0, s1".into(), // 0 - 0x80000000 overflows
        scc_to(43),
        "s_addk_i32 s2, 0x7fff".into(), // 0x7FFF0000 + 0x7FFF, no overflow
        scc_to(44),
        "s_addk_i32 s0, 0x1".into(), // 0x7FFFFFFF + 1 overflows
        scc_to(45),
        "s_addk_i32 s3, 0xffff".into(), // 5 + (-1) = 4
        scc_to(46),
        "s_mulk_i32 s4, 0xfffe".into(), // -3 * -2 = 6
    ]
    .join("\n");
    let w = run(&src, |w| {
        w.s[0] = 0x7FFF_FFFF;
        w.s[1] = 0x8000_0000;
        w.s[2] = 0x7FFF_0000;
        w.s[3] = 5;
        w.s[4] = (-3i32) as u32;
    });
    assert_eq!(&w.s[10..14], &[0x8000_0000, 0x7FFF_FFFF, 0, 0x8000_0000]);
    assert_eq!(&w.s[40..47], &[1, 1, 0, 1, 0, 1, 0]);
    assert_eq!((w.s[2], w.s[0], w.s[3], w.s[4]), (0x7FFF_7FFF, 0x8000_0000, 4, 6));
}

#[test]
fn min_and_max_say_whether_s0_was_chosen() {
    let src = [
        "s_min_i32 s10, -1, 1".to_string(),
        scc_to(40),
        "s_min_u32 s11, -1, 1".into(),
        scc_to(41),
        "s_max_i32 s12, -5, -3".into(),
        scc_to(42),
        "s_max_u32 s13, s0, 3".into(),
        scc_to(43),
        "s_min_u32 s14, 3, 3".into(), // equal: S1 is chosen
        scc_to(44),
    ]
    .join("\n");
    let w = run(&src, |w| w.s[0] = 0x8000_0000);
    assert_eq!(&w.s[10..15], &[u32::MAX, 1, (-3i32) as u32, 0x8000_0000, 3]);
    assert_eq!(&w.s[40..45], &[1, 0, 0, 1, 0]);
}

#[test]
fn bit_operations_set_scc_when_the_result_is_not_zero() {
    let src = [
        "s_and_b32 s10, s0, s1".to_string(),
        "s_or_b32 s11, s0, s1".into(),
        "s_xor_b32 s12, s0, s1".into(),
        "s_andn2_b32 s13, s0, s1".into(),
        "s_orn2_b32 s14, s0, s1".into(),
        "s_nand_b32 s15, s0, s1".into(),
        "s_nor_b32 s16, s0, s1".into(),
        "s_xnor_b32 s17, s0, s1".into(),
        scc_to(40),
        "s_and_b64 s[20:21], s[2:3], s[4:5]".into(),
        scc_to(41),
        "s_andn2_b64 s[22:23], s[2:3], s[4:5]".into(),
        "s_orn2_b64 s[24:25], s[2:3], s[4:5]".into(),
        "s_xor_b64 s[26:27], s[2:3], -1".into(),
        "s_nor_b64 s[28:29], s[2:3], s[4:5]".into(),
        scc_to(42),
        "s_xnor_b64 s[30:31], s[2:3], s[2:3]".into(),
        scc_to(43),
        "s_or_b64 s[32:33], s[2:3], s[4:5]".into(),
        "s_nand_b64 s[34:35], s[2:3], s[4:5]".into(),
    ]
    .join("\n");
    let w = run(&src, |w| {
        w.s[0] = 0xFF00_FF00;
        w.s[1] = 0x0FF0_0FF0;
        w.set_sgpr64(2, 0xFFFF_0000_0000_FFFF);
        w.set_sgpr64(4, 0x0000_FFFF_0000_00FF);
    });
    assert_eq!(
        &w.s[10..18],
        &[0x0F00_0F00, 0xFFF0_FFF0, 0xF0F0_F0F0, 0xF000_F000, 0xFF0F_FF0F, 0xF0FF_F0FF, 0x000F_000F, 0x0F0F_0F0F]
    );
    assert_eq!(w.s[40], 1);
    // The two masks share no bit in the high dword and 0xFF in the low one.
    assert_eq!(w.sgpr64(20), 0x0000_0000_0000_00FF);
    assert_eq!(w.s[41], 1);
    assert_eq!(w.sgpr64(22), 0xFFFF_0000_0000_FF00);
    assert_eq!(w.sgpr64(24), 0xFFFF_0000_FFFF_FFFF);
    assert_eq!(w.sgpr64(26), 0x0000_FFFF_FFFF_0000);
    assert_eq!(w.sgpr64(28), 0x0000_0000_FFFF_0000);
    assert_eq!(w.s[42], 1);
    assert_eq!(w.sgpr64(30), u64::MAX);
    assert_eq!(w.s[43], 1);
    assert_eq!(w.sgpr64(32), 0xFFFF_FFFF_0000_FFFF);
    assert_eq!(w.sgpr64(34), 0xFFFF_FFFF_FFFF_FF00);

    // An all-zero result clears SCC.
    let w = run("s_mov_b32 s9, 1\ns_cmp_eq_u32 s9, 1\ns_and_b64 s[10:11], s[0:1], 0\ns_cselect_b32 s12, 1, 2", |_| {});
    assert_eq!(w.s[12], 2);
}

#[test]
fn shifts_take_the_amount_modulo_the_width() {
    let src = [
        "s_lshl_b32 s10, 1, 33".to_string(), // amount 1
        "s_lshr_b32 s11, s0, 31".into(),
        "s_ashr_i32 s12, s0, 4".into(),
        "s_lshl_b64 s[14:15], 1, 64".into(), // amount 0
        "s_lshr_b64 s[16:17], s[2:3], 63".into(),
        "s_ashr_i64 s[18:19], s[2:3], 60".into(),
        "s_lshl_b64 s[20:21], s[4:5], 36".into(),
        "s_lshl_b32 s13, s0, 1".into(), // shifts the only bit out
        scc_to(40),
    ]
    .join("\n");
    let w = run(&src, |w| {
        w.s[0] = 0x8000_0000;
        w.set_sgpr64(2, 0x8000_0000_0000_0000);
        w.set_sgpr64(4, 0x0000_0000_1234_5678);
    });
    assert_eq!(&w.s[10..14], &[2, 1, 0xF800_0000, 0]);
    assert_eq!(w.sgpr64(14), 1);
    assert_eq!(w.sgpr64(16), 1);
    assert_eq!(w.sgpr64(18), 0xFFFF_FFFF_FFFF_FFF8);
    assert_eq!(w.sgpr64(20), 0x2345_6780_0000_0000);
    assert_eq!(w.s[40], 0);
}

#[test]
fn bit_field_extracts_sign_extend_and_masks_are_made() {
    let src = [
        "s_bfe_u32 s10, s0, 0x80008".to_string(), // bits [15:8] = 0x12
        "s_bfe_i32 s11, s0, 0x80010".into(),      // bits [23:16] = 0xCD, negative
        "s_bfe_i32 s12, s0, 0x80008".into(),      // 0x12, positive
        "s_bfe_u32 s13, s0, 0x1c".into(),         // width 0
        scc_to(40),
        "s_bfe_i32 s14, s0, 0x40000".into(), // bits [3:0] = 4
        scc_to(41),
        "s_bfe_i64 s[16:17], s[2:3], 0x100020".into(), // bits [47:32] = 0x8001, negative
        "s_bfe_u64 s[18:19], s[2:3], 0x10001c".into(), // bits [43:28] = 0x0010
        "s_bfm_b32 s20, 4, 8".into(),
        "s_bfm_b64 s[22:23], 40, 4".into(),
        "s_bfm_b32 s21, 0, 31".into(),
    ]
    .join("\n");
    let w = run(&src, |w| {
        w.s[0] = 0xABCD_1234;
        w.set_sgpr64(2, 0x0000_8001_0000_0000);
    });
    assert_eq!(&w.s[10..15], &[0x12, 0xFFFF_FFCD, 0x12, 0, 4]);
    assert_eq!((w.s[40], w.s[41]), (0, 1));
    assert_eq!(w.sgpr64(16), 0xFFFF_FFFF_FFFF_8001);
    assert_eq!(w.sgpr64(18), 0x0010);
    assert_eq!((w.s[20], w.s[21]), (0xF00, 0));
    assert_eq!(w.sgpr64(22), 0x0000_0FFF_FFFF_FFF0);
}

#[test]
fn multiplies_shifted_adds_packs_and_differences() {
    let src = [
        "s_mul_i32 s10, -3, 7".to_string(),
        "s_mul_hi_u32 s11, -1, -1".into(),   // 0xFFFFFFFE_00000001
        "s_mul_hi_i32 s12, -1, -1".into(),   // 1
        "s_mul_hi_i32 s13, s0, 2".into(),    // -2^32
        "s_lshl2_add_u32 s14, s1, 4".into(), // 0x1_00000004 + 4: carry out of the shift
        scc_to(40),
        "s_lshl1_add_u32 s15, 3, 4".into(),
        scc_to(41),
        "s_lshl3_add_u32 s16, 1, -1".into(), // 8 + 0xFFFFFFFF: carry out of the add
        scc_to(42),
        "s_lshl4_add_u32 s17, 2, 3".into(),
        "s_pack_ll_b32_b16 s20, s2, s3".into(),
        "s_pack_lh_b32_b16 s21, s2, s3".into(),
        "s_pack_hh_b32_b16 s22, s2, s3".into(),
        "s_absdiff_i32 s23, -5, 3".into(),
        "s_absdiff_i32 s24, 3, 3".into(),
        scc_to(43),
    ]
    .join("\n");
    let w = run(&src, |w| {
        w.s[0] = 0x8000_0000;
        w.s[1] = 0x4000_0001;
        w.s[2] = 0x1111_2222;
        w.s[3] = 0x3333_4444;
    });
    assert_eq!(&w.s[10..14], &[(-21i32) as u32, 0xFFFF_FFFE, 0, 0xFFFF_FFFF]);
    assert_eq!(&w.s[14..18], &[8, 10, 7, 35]);
    assert_eq!(&w.s[40..43], &[1, 0, 1]);
    assert_eq!(&w.s[20..25], &[0x4444_2222, 0x3333_2222, 0x3333_1111, 8, 0]);
    assert_eq!(w.s[43], 0);
}

#[test]
fn scans_find_the_first_bit_or_return_minus_one() {
    let src = "\
        s_ff1_i32_b32 s10, 0
        s_ff1_i32_b32 s11, 0x80
        s_ff0_i32_b32 s12, -1
        s_ff0_i32_b32 s13, 0xffff
        s_ff1_i32_b64 s14, s[2:3]
        s_ff0_i32_b64 s15, -1
        s_flbit_i32_b32 s16, 0
        s_flbit_i32_b32 s17, 1
        s_flbit_i32_b64 s18, 1
        s_flbit_i32 s19, -1
        s_flbit_i32 s20, 0x40000000
        s_flbit_i32 s21, 0xffff0000
        s_flbit_i32_i64 s22, s[4:5]
        s_flbit_i32_i64 s23, 0
        s_flbit_i32_b64 s24, s[2:3]";
    let w = run(src, |w| {
        w.set_sgpr64(2, 1 << 40);
        w.set_sgpr64(4, 0xFFFF_FFFF);
    });
    let m1 = u32::MAX;
    assert_eq!(&w.s[10..25], &[m1, 7, m1, 16, 40, m1, m1, 31, 63, m1, 1, 16, 32, m1, 23]);
}

#[test]
fn counts_reversals_and_single_bits() {
    let src = [
        "s_bcnt1_i32_b64 s10, s[2:3]".to_string(),
        scc_to(40),
        "s_bcnt0_i32_b32 s11, -1".into(),
        scc_to(41),
        "s_bcnt0_i32_b64 s12, s[2:3]".into(),
        "s_bcnt1_i32_b32 s13, 0x80000001".into(),
        "s_brev_b32 s14, 1".into(),
        "s_brev_b64 s[16:17], 6".into(),
        "s_sext_i32_i8 s18, 0x180".into(),
        "s_sext_i32_i16 s19, 0x17fff".into(),
        "s_bitset1_b64 s[20:21], 35".into(),
        "s_bitset0_b32 s22, 3".into(),
        "s_bitset1_b32 s23, 63".into(), // bit 31
        "s_bitset0_b64 s[24:25], 32".into(),
        "s_not_b64 s[26:27], s[2:3]".into(),
        "s_not_b32 s28, -1".into(),
        scc_to(42),
        "s_wqm_b64 s[30:31], s[4:5]".into(),
        "s_wqm_b32 s29, 0x10".into(),
        "s_quadmask_b32 s32, 0x10000001".into(),
        "s_quadmask_b64 s[34:35], s[6:7]".into(),
        "s_bitreplicate_b64_b32 s[36:37], 0x80000005".into(),
        "s_abs_i32 s38, s0".into(),
        scc_to(43),
        "s_abs_i32 s39, -7".into(),
    ]
    .join("\n");
    let w = run(&src, |w| {
        w.s[0] = 0x8000_0000;
        w.set_sgpr64(2, 0xF0F0);
        w.set_sgpr64(4, 0x0000_0100_0000_0012);
        w.set_sgpr64(6, 0x8000_0000_0000_0F00);
        w.s[22] = 0xFF;
        w.set_sgpr64(24, u64::MAX);
    });
    assert_eq!(&w.s[10..14], &[8, 0, 56, 2]);
    assert_eq!((w.s[40], w.s[41]), (1, 0));
    assert_eq!(w.s[14], 0x8000_0000);
    assert_eq!(w.sgpr64(16), 0x6000_0000_0000_0000);
    assert_eq!((w.s[18], w.s[19]), (0xFFFF_FF80, 0x7FFF));
    assert_eq!(w.sgpr64(20), 1 << 35);
    assert_eq!((w.s[22], w.s[23]), (0xF7, 0x8000_0000));
    assert_eq!(w.sgpr64(24), 0xFFFF_FFFE_FFFF_FFFF);
    assert_eq!(w.sgpr64(26), !0xF0F0u64);
    assert_eq!((w.s[28], w.s[42]), (0, 0));
    assert_eq!(w.sgpr64(30), 0x0000_0F00_0000_00FF);
    assert_eq!(w.s[29], 0xF0);
    assert_eq!(w.s[32], 0x81);
    assert_eq!(w.sgpr64(34), 0x8004);
    assert_eq!(w.sgpr64(36), 0xC000_0000_0000_0033);
    assert_eq!((w.s[38], w.s[43], w.s[39]), (0x8000_0000, 1, 7));
}

#[test]
fn moves_and_conditional_moves_follow_scc() {
    let src = "\
        s_mov_b64 s[10:11], s[2:3]
        s_movk_i32 s12, 0x8000
        s_cmp_eq_u32 0, 1
        s_cmov_b32 s13, 5
        s_cmov_b64 s[14:15], s[2:3]
        s_cmovk_i32 s16, 9
        s_cmp_eq_u32 0, 0
        s_cmov_b32 s17, 5
        s_cmov_b64 s[18:19], s[2:3]
        s_cmovk_i32 s20, 0xfff7
        s_cselect_b64 s[22:23], s[2:3], 0
        s_mov_b32 s24, 0x12345678
        s_mov_b64 s[26:27], -2";
    let w = run(src, |w| w.set_sgpr64(2, 0x0123_4567_89AB_CDEF));
    assert_eq!(w.sgpr64(10), 0x0123_4567_89AB_CDEF);
    assert_eq!(w.s[12], 0xFFFF_8000);
    assert_eq!((w.s[13], w.sgpr64(14), w.s[16]), (0, 0, 0));
    assert_eq!((w.s[17], w.sgpr64(18), w.s[20]), (5, 0x0123_4567_89AB_CDEF, (-9i32) as u32));
    assert_eq!(w.sgpr64(22), 0x0123_4567_89AB_CDEF);
    assert_eq!(w.s[24], 0x1234_5678);
    assert_eq!(w.sgpr64(26), (-2i64) as u64);
}

#[test]
fn saveexec_saves_the_old_mask_and_scc_says_whether_lanes_are_left() {
    const EXEC: u64 = 0xFFFF_0000_FFFF_0000;
    const S0: u64 = 0x0000_FFFF_FFFF_FFFF;
    let cases: &[(&str, u64, bool)] = &[
        ("s_and_saveexec_b64", S0 & EXEC, false),
        ("s_or_saveexec_b64", S0 | EXEC, false),
        ("s_xor_saveexec_b64", S0 ^ EXEC, false),
        ("s_andn2_saveexec_b64", 0x0000_FFFF_0000_FFFF, false),
        ("s_orn2_saveexec_b64", 0x0000_FFFF_FFFF_FFFF, false),
        ("s_nand_saveexec_b64", 0xFFFF_FFFF_0000_FFFF, false),
        ("s_nor_saveexec_b64", 0x0000_0000_0000_0000, false),
        ("s_xnor_saveexec_b64", 0x0000_0000_FFFF_0000, false),
        ("s_andn1_saveexec_b64", 0xFFFF_0000_0000_0000, false),
        ("s_orn1_saveexec_b64", 0xFFFF_0000_FFFF_0000, false),
        ("s_andn1_wrexec_b64", 0xFFFF_0000_0000_0000, true),
        ("s_andn2_wrexec_b64", 0x0000_FFFF_0000_FFFF, true),
    ];
    for &(op, exec, wr) in cases {
        let w = run(&format!("{op} s[10:11], s[0:1]\n{}", scc_to(40)), |w| {
            w.set_sgpr64(0, S0);
            w.set_exec(EXEC);
        });
        assert_eq!(w.exec(), exec, "{op}");
        assert_eq!(w.sgpr64(10), if wr { exec } else { EXEC }, "{op}");
        assert_eq!(w.s[40], u32::from(exec != 0), "{op}");
    }
}

#[test]
fn m0_relative_moves_index_the_scalar_registers() {
    let src = "\
        s_mov_b32 m0, 3
        s_movrels_b32 s20, s1
        s_movreld_b32 s10, s0
        s_mov_b32 m0, 2
        s_movrels_b64 s[22:23], s[2:3]
        s_movreld_b64 s[30:31], s[6:7]";
    let w = run(src, |w| {
        w.s[0] = 0xAAAA;
        w.s[4] = 0x4444;
        w.s[5] = 0x5555;
        w.set_sgpr64(6, 0x7777_6666);
    });
    assert_eq!(w.s[20], 0x4444);
    assert_eq!(w.s[13], 0xAAAA);
    assert_eq!(w.sgpr64(22), 0x5555_0000_4444);
    assert_eq!(w.sgpr64(32), 0x7777_6666);

    // An index past the scalar registers faults rather than touching anything.
    let r = run_with("s_movreld_b32 s10, s0", &Ranges::default(), 0, |w| w.s[124] = 200);
    assert!(matches!(r.result, Err(Fault::Illegal { .. })), "{:?}", r.result);
}

#[test]
fn branches_go_forward_backward_and_loop() {
    // s1 += 3 five times: the s_cbranch_scc1 goes back 4 dwords, to the s_add_u32.
    let src = "\
        s_mov_b32 s0, 5
        s_mov_b32 s1, 0
        s_add_u32 s1, s1, 3
        s_sub_u32 s0, s0, 1
        s_cmp_lg_u32 s0, 0
        s_cbranch_scc1 -4
        s_branch 1
        s_mov_b32 s2, 1
        s_cbranch_scc0 1
        s_mov_b32 s3, 1
        s_cbranch_vccz 1
        s_mov_b32 s4, 1
        s_cbranch_vccnz 1
        s_mov_b32 s5, 1
        s_cbranch_execnz 1
        s_mov_b32 s6, 1
        s_cbranch_execz 1
        s_mov_b32 s7, 1
        s_cbranch_scc1 1
        s_mov_b32 s8, 1
        s_cbranch_cdbgsys 1
        s_mov_b32 s9, 1";
    let r = run_with(src, &Ranges::default(), 0, |w| w.set_vcc(0));
    assert_eq!(r.result, Ok(Flow::End));
    let w = r.wave;
    assert_eq!(w.s[1], 15);
    // Taken: s_branch, scc0 (SCC is 0 after the loop), vccz, execnz; not taken: vccnz, execz,
    // scc1, the debugger branch.
    assert_eq!(&w.s[2..10], &[0, 0, 0, 1, 0, 1, 1, 1]);
    // Two moves, the loop's four instructions five times, then the 12 of the 16 after it that
    // are not skipped and s_endpgm.
    assert_eq!(r.counts.insts, 2 + 5 * 4 + 12 + 1);
}

#[test]
fn getpc_setpc_and_swappc_round_trip() {
    // 0 s_getpc_b64 (next = +4), 4 +20 = the function at 24, 12 s_swappc (return to 16).
    let src = "\
        s_getpc_b64 s[0:1]
        s_add_u32 s0, s0, 20
        s_addc_u32 s1, s1, 0
        s_swappc_b64 s[2:3], s[0:1]
        s_mov_b32 s5, 7
        s_endpgm
        s_mov_b32 s4, 9
        s_setpc_b64 s[2:3]";
    let r = run_with(src, &Ranges::default(), 0, |_| {});
    assert_eq!(r.result, Ok(Flow::End));
    let w = r.wave;
    assert_eq!((w.s[4], w.s[5]), (9, 7));
    assert_eq!(w.sgpr64(0) - w.sgpr64(2), 8);
    assert_eq!(r.counts.insts, 8);
}

#[test]
fn call_saves_the_return_address() {
    // 0 s_getpc_b64 (+4), 4 s_call_b64 to 8 + 3 * 4 = 20 (one dword short would add 1 to s4),
    // returning to 8.
    let src = "\
        s_getpc_b64 s[6:7]
        s_call_b64 s[30:31], 3
        s_mov_b32 s5, 7
        s_endpgm
        s_mov_b32 s4, 1
        s_add_u32 s4, s4, 9
        s_setpc_b64 s[30:31]";
    let w = run(src, |_| {});
    assert_eq!((w.s[4], w.s[5]), (9, 7));
    assert_eq!(w.sgpr64(30) - w.sgpr64(6), 4);
}

#[test]
fn compares_set_scc() {
    let src = [
        "s_cmp_lt_i32 s0, 1".to_string(), // -1 < 1 signed
        scc_to(40),
        "s_cmp_lt_u32 s0, 1".into(), // not unsigned
        scc_to(41),
        "s_cmp_ge_i32 s1, s1".into(),
        scc_to(42),
        "s_cmp_gt_u32 s0, s1".into(),
        scc_to(43),
        "s_cmp_le_i32 s1, s0".into(),
        scc_to(44),
        "s_cmp_lg_i32 s1, s1".into(),
        scc_to(45),
        "s_bitcmp1_b32 s2, 4".into(),
        scc_to(46),
        "s_bitcmp0_b32 s2, 36".into(), // bit 4 again
        scc_to(47),
        "s_bitcmp0_b64 s[4:5], 40".into(),
        scc_to(48),
        "s_bitcmp1_b64 s[4:5], 39".into(),
        scc_to(49),
        "s_cmp_eq_u64 s[4:5], s[6:7]".into(),
        scc_to(50),
        "s_cmp_lg_u64 s[4:5], s[6:7]".into(),
        scc_to(51),
        "s_cmpk_eq_i32 s0, 0xffff".into(), // sign-extended: -1
        scc_to(52),
        "s_cmpk_eq_u32 s0, 0xffff".into(), // zero-extended
        scc_to(53),
        "s_cmpk_gt_u32 s0, 0xffff".into(),
        scc_to(54),
        "s_cmpk_lt_i32 s0, 0".into(),
        scc_to(55),
        "s_cmpk_le_u32 s1, 0x1234".into(),
        scc_to(56),
    ]
    .join("\n");
    let w = run(&src, |w| {
        w.s[0] = u32::MAX;
        w.s[1] = 0x1234;
        w.s[2] = 0x10;
        w.set_sgpr64(4, 1 << 40);
        w.set_sgpr64(6, 1 << 40);
    });
    assert_eq!(&w.s[40..57], &[1, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 1, 1]);
}

#[test]
fn getreg_and_setreg_reach_mode_and_the_read_only_registers() {
    let src = "\
        s_getreg_b32 s0, hwreg(HW_REG_MODE, 4, 4)
        s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0xfffffff5
        s_setreg_b32 hwreg(HW_REG_MODE, 4, 2), s1
        s_getreg_b32 s2, hwreg(HW_REG_MODE)
        s_getreg_b32 s3, hwreg(HW_REG_SH_MEM_BASES)
        s_getreg_b32 s4, hwreg(HW_REG_GPR_ALLOC)
        s_getreg_b32 s5, hwreg(HW_REG_HW_ID)
        s_getreg_b32 s6, hwreg(HW_REG_STATUS)
        s_getreg_b32 s7, hwreg(HW_REG_HW_ID, 8, 4)
        s_setreg_b32 hwreg(HW_REG_HW_ID), s1
        s_getreg_b32 s8, hwreg(HW_REG_IB_STS)";
    let w = run(src, |w| {
        w.mode = 0x0000_03F0;
        w.s[1] = 0xFFFF_FFFE;
        w.hw_id = 0x1234_5678;
        w.scc = true;
        w.set_vcc(0);
    });
    assert_eq!(w.s[0], 0xF);
    // Low nibble 5 from the literal, bits [5:4] = 2 from s1's low bits, the rest kept.
    assert_eq!((w.s[2], w.mode), (0x3E5, 0x3E5));
    // Shared aperture 0x1_0000_0000_0000 in [31:16], private 0x2_0000_0000_0000 in [15:0].
    assert_eq!(w.s[3], 0x0001_0002);
    // 256 VGPRs: 64 granules of 4, minus 1; 112 SGPRs: 7 granules of 16, minus 1.
    assert_eq!(w.s[4], 0x0600_3F00);
    assert_eq!((w.s[5], w.s[7], w.hw_id), (0x1234_5678, 0x6, 0x1234_5678));
    // SCC was set by the caller and nothing above changes it; VCC is 0, EXEC is not.
    assert_eq!(w.s[6] & 0x601, 0x401);
    assert_eq!(w.s[8], 0);

    let r = run_with("s_getreg_b32 s0, hwreg(8)", &Ranges::default(), 0, |_| {});
    assert!(matches!(r.result, Err(Fault::Unimplemented { .. })), "{:?}", r.result);
}

#[test]
fn program_control_ends_waits_and_traps() {
    let w = run(
        "s_waitcnt 0\ns_sleep 1\ns_setprio 2\ns_sendmsg sendmsg(MSG_GS_DONE, GS_OP_NOP)\ns_icache_inv\ns_nop 3",
        |_| {},
    );
    assert_eq!(w.exec(), u64::MAX);

    let r = run_with("s_barrier", &Ranges::default(), 0, |_| {});
    assert_eq!(r.result, Ok(Flow::Barrier));

    let r = run_with("s_endpgm_saved\ns_mov_b32 s0, 1", &Ranges::default(), 0, |_| {});
    assert_eq!(r.result, Ok(Flow::End));
    assert_eq!(r.wave.s[0], 0);

    // The trap's pc is its own address, one instruction after the start.
    let r = run_with("s_nop 0\ns_trap 2", &Ranges::default(), 0, |_| {});
    assert_eq!(r.result, Err(Fault::Trap { pc: r.wave.pc - 4, code: 2 }));

    let r = run_with("s_sethalt 1", &Ranges::default(), 0, |_| {});
    assert!(matches!(r.result, Err(Fault::Unimplemented { .. })), "{:?}", r.result);
    let r = run_with("s_cbranch_join s0", &Ranges::default(), 0, |_| {});
    assert!(matches!(r.result, Err(Fault::Unimplemented { .. })), "{:?}", r.result);
}
