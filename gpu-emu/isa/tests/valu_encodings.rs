//! The VALU's encodings: SDWA selects, DPP lane moves and masks, VOP3 destinations and
//! modifiers, lane reads and writes, EXEC masking, literals and inline constants.

mod common;

use gfx906::{Fault, Ranges, Wave};

fn lanes(w: &mut Wave, reg: u32, f: impl Fn(usize) -> u32) {
    for l in 0..64 {
        w.set_vgpr(reg, l, f(l));
    }
}

#[test]
fn sdwa_sign_extended_byte_into_a_preserved_word() {
    let w = common::run("v_mov_b32_sdwa v1, sext(v2) dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_1", |w| {
        lanes(w, 1, |_| 0xAAAA_BBBB);
        lanes(w, 2, |l| if l == 0 { 0x1234_80FF } else { 0x1234_7FFF });
    });
    // Byte 1 is 0x80 → 0xFFFFFF80; its low word goes to the high word of v1.
    assert_eq!(w.vgpr(1, 0), 0xFF80_BBBB);
    assert_eq!(w.vgpr(1, 1), 0x007F_BBBB);
}

#[test]
fn sdwa_pad_and_sext_of_the_unused_bits() {
    let w = common::run(
        "v_add_u32_sdwa v1, v2, v3 dst_sel:BYTE_1 dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:BYTE_2\n\
         v_sub_u16_sdwa v4, sext(v2), v3 dst_sel:WORD_0 dst_unused:UNUSED_SEXT src0_sel:BYTE_0 src1_sel:BYTE_0",
        |w| {
            lanes(w, 1, |_| 0xFFFF_FFFF);
            lanes(w, 4, |_| 0x1234_5678);
            lanes(w, 2, |_| 0x0003_0080);
            lanes(w, 3, |_| 0x0005_0001);
        },
    );
    // WORD_1 of v2 (3) + BYTE_2 of v3 (5) = 8, in byte 1, the rest zero.
    assert_eq!(w.vgpr(1, 0), 0x0000_0800);
    // sext(0x80) - 1 = 0xFF7F as 16 bits: negative, so the high word fills with ones.
    assert_eq!(w.vgpr(4, 0), 0xFFFF_FF7F);
}

#[test]
fn sdwa_scalar_source_and_vopc_destination() {
    let w = common::run(
        "v_add_u32_sdwa v1, s2, v3 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1 src1_sel:DWORD\n\
         v_cmp_lt_i16_sdwa s[6:7], sext(v4), v5 src0_sel:BYTE_0 src1_sel:WORD_1\n\
         v_cmp_lt_i32_sdwa vcc, s2, v5 src0_sel:BYTE_0 src1_sel:WORD_1",
        |w| {
            w.set_exec(0b11);
            w.set_vcc(u64::MAX);
            w.set_sgpr(2, 0x0007_0001);
            lanes(w, 3, |l| l as u32);
            // lane 0: sext(0xFF) = -1 < -2 (the sign-extending i16 compare) is false; lane 1:
            // -1 < 1 is true.
            lanes(w, 4, |_| 0xFF);
            lanes(w, 5, |l| if l == 0 { 0xFFFE_1234 } else { 0x0001_0000 });
        },
    );
    assert_eq!((w.vgpr(1, 0), w.vgpr(1, 1)), (7, 8));
    assert_eq!(w.sgpr64(6), 0b10);
    // s2's byte 0 is 1; WORD_1 without sext is 0xFFFE: 1 < 65534 (lane 0), 1 < 1 false.
    assert_eq!(w.vcc(), 0b01);
}

#[test]
fn dpp_quad_perm() {
    let w = common::run("v_mov_b32_dpp v1, v0 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", |w| {
        lanes(w, 0, |l| 100 + l as u32);
    });
    assert_eq!((w.vgpr(1, 0), w.vgpr(1, 1), w.vgpr(1, 2), w.vgpr(1, 3)), (101, 100, 103, 102));
    assert_eq!(w.vgpr(1, 62), 163);
}

#[test]
fn dpp_row_shr_with_and_without_bound_ctrl() {
    let setup = |w: &mut Wave| {
        lanes(w, 0, |l| 100 + l as u32);
        lanes(w, 1, |_| 7);
    };
    let w = common::run("v_mov_b32_dpp v1, v0 row_shr:1 bound_ctrl:0", setup);
    // The first lane of each row has no source: with bound_ctrl it reads 0.
    assert_eq!((w.vgpr(1, 0), w.vgpr(1, 1), w.vgpr(1, 16), w.vgpr(1, 17)), (0, 100, 0, 116));
    let w = common::run("v_mov_b32_dpp v1, v0 row_shr:1 row_mask:0xf bank_mask:0xf", setup);
    // Without it the lane is not written.
    assert_eq!((w.vgpr(1, 0), w.vgpr(1, 1), w.vgpr(1, 16), w.vgpr(1, 17)), (7, 100, 7, 116));
    // A source lane off in EXEC counts as out of range.
    let w = common::run("v_mov_b32_dpp v1, v0 row_shr:1 bound_ctrl:0", |w| {
        setup(w);
        w.set_exec(!(1 << 4));
    });
    assert_eq!((w.vgpr(1, 4), w.vgpr(1, 5), w.vgpr(1, 6)), (7, 0, 105));
}

#[test]
fn dpp_row_and_bank_masks_leave_lanes_unwritten() {
    let w = common::run("v_add_u32_dpp v1, v0, v2 row_shr:1 row_mask:0x5 bank_mask:0xd", |w| {
        lanes(w, 0, |l| l as u32);
        lanes(w, 1, |_| 7);
        lanes(w, 2, |_| 1000);
    });
    // Rows 1 and 3 are masked, and bank 1 (lanes 4-7 of each row).
    assert_eq!(w.vgpr(1, 17), 7);
    assert_eq!(w.vgpr(1, 5), 7);
    assert_eq!(w.vgpr(1, 3), 1002);
    assert_eq!(w.vgpr(1, 41), 1040);
}

#[test]
fn dpp_row_bcast_and_wave_moves() {
    let w = common::run(
        "v_mov_b32_dpp v1, v0 row_bcast:15 row_mask:0xa\nv_mov_b32_dpp v2, v0 wave_ror:1 row_mask:0xf bank_mask:0xf\n\
         v_mov_b32_dpp v3, v0 row_mirror row_mask:0xf bank_mask:0xf",
        |w| {
            lanes(w, 0, |l| 100 + l as u32);
            lanes(w, 1, |_| 7);
        },
    );
    assert_eq!((w.vgpr(1, 3), w.vgpr(1, 20), w.vgpr(1, 36), w.vgpr(1, 50)), (7, 115, 7, 147));
    assert_eq!((w.vgpr(2, 0), w.vgpr(2, 1)), (163, 100));
    assert_eq!((w.vgpr(3, 0), w.vgpr(3, 17)), (115, 130));
}

#[test]
fn readlane_writelane_readfirstlane() {
    let w = common::run(
        "v_readlane_b32 s4, v1, s2\nv_readlane_b32 s5, v1, 5\nv_writelane_b32 v3, s6, 7\nv_readfirstlane_b32 s7, v1",
        |w| {
            lanes(w, 1, |l| 100 + l as u32);
            lanes(w, 3, |_| 1);
            w.set_sgpr(2, 64 + 37);
            w.set_sgpr(6, 0xCAFE);
            // Lane 7 is off in EXEC: v_writelane writes it anyway.
            w.set_exec(0xFFFF_FF00);
        },
    );
    assert_eq!((w.sgpr(4), w.sgpr(5), w.sgpr(7)), (137, 105, 108));
    assert_eq!((w.vgpr(3, 7), w.vgpr(3, 8)), (0xCAFE, 1));
    let w = common::run("v_readfirstlane_b32 s7, v1", |w| {
        lanes(w, 1, |l| 100 + l as u32);
        w.set_exec(0);
    });
    assert_eq!(w.sgpr(7), 100);
}

#[test]
fn exec_masked_lanes_keep_their_registers() {
    let w = common::run("v_mov_b32_e32 v1, 0x12345678\nv_add_co_u32_e32 v2, vcc, -1, v2", |w| {
        w.set_exec(0x8000_0000_0000_0001);
        lanes(w, 1, |_| 5);
        lanes(w, 2, |_| 1);
        w.set_vcc(u64::MAX);
    });
    assert_eq!((w.vgpr(1, 0), w.vgpr(1, 1), w.vgpr(1, 62), w.vgpr(1, 63)), (0x1234_5678, 5, 5, 0x1234_5678));
    // 1 + 0xFFFFFFFF carries in the two active lanes; the others' VCC bits are cleared.
    assert_eq!(w.vcc(), 0x8000_0000_0000_0001);
    assert_eq!((w.vgpr(2, 0), w.vgpr(2, 1)), (0, 1));
}

#[test]
fn literals_and_inline_constants() {
    let w = common::run(
        "v_add_u32_e32 v1, 0x12345678, v0\nv_mov_b32_e32 v2, -16\nv_add_u32_e32 v3, 64, v0\nv_mov_b32_e32 v4, 0.5\n\
         v_lshlrev_b64 v[5:6], 4, -1\nv_mov_b32_e64 v7, s9",
        |w| {
            lanes(w, 0, |l| l as u32);
            w.set_sgpr(9, 0xABCD);
        },
    );
    assert_eq!(w.vgpr(1, 3), 0x1234_567B);
    assert_eq!(w.vgpr(2, 0), 0xFFFF_FFF0);
    assert_eq!(w.vgpr(3, 2), 66);
    assert_eq!(w.vgpr(4, 0), 0x3F00_0000);
    assert_eq!(w.vgpr64(5, 0), 0xFFFF_FFFF_FFFF_FFF0);
    assert_eq!(w.vgpr(7, 9), 0xABCD);
}

#[test]
fn vop3_source_modifiers_act_on_the_sign_bit() {
    let w = common::run("v_cndmask_b32_e64 v3, -v1, |v2|, s[4:5]", |w| {
        lanes(w, 1, |_| 0x3F80_0000);
        lanes(w, 2, |_| 0xC000_0000);
        w.set_sgpr64(4, 0b10);
    });
    assert_eq!((w.vgpr(3, 0), w.vgpr(3, 1)), (0xBF80_0000, 0x4000_0000));
}

#[test]
fn vop3b_carry_reads_and_writes_sgpr_pairs() {
    let w = common::run("v_addc_co_u32_e64 v1, s[8:9], v2, v3, s[10:11]", |w| {
        lanes(w, 2, |_| u32::MAX);
        lanes(w, 3, |_| 0);
        w.set_sgpr64(10, 0b0110);
        w.set_exec(0b0111);
    });
    assert_eq!((w.vgpr(1, 0), w.vgpr(1, 1), w.vgpr(1, 2)), (u32::MAX, 0, 0));
    assert_eq!(w.sgpr64(8), 0b0110);
}

#[test]
fn swap_exchanges_registers_in_active_lanes() {
    let w = common::run("v_swap_b32 v1, v2", |w| {
        lanes(w, 1, |_| 1);
        lanes(w, 2, |_| 2);
        w.set_exec(0b01);
    });
    assert_eq!((w.vgpr(1, 0), w.vgpr(2, 0), w.vgpr(1, 1), w.vgpr(2, 1)), (2, 1, 1, 2));
}

#[test]
fn unimplemented_instructions_fault() {
    let r = common::run_with("v_screen_partition_4se_b32_e32 v1, v2", &Ranges::default(), 0, |_| {});
    assert!(matches!(r.result, Err(Fault::Unimplemented { .. })), "{:?}", r.result);
}
