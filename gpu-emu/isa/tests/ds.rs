//! DS: LDS reads and writes (read2/write2 offsets, d16 halves, out of range), LDS atomics with and
//! without return, and the lane exchanges (swizzle, permute, bpermute), against values worked out
//! by hand.

mod common;

use common::{run_with, Run};
use gfx906::exec::Flow;
use gfx906::{Fault, Ranges, Wave};

fn lds(source: &str, bytes: usize, setup: impl FnOnce(&mut Wave)) -> Run {
    let r = run_with(source, &Ranges::default(), bytes, setup);
    assert_eq!(r.result, Ok(Flow::End), "{source}");
    r
}

fn word(r: &Run, at: usize) -> u32 {
    u32::from_le_bytes(r.lds[at..at + 4].try_into().unwrap())
}

fn dword64(r: &Run, at: usize) -> u64 {
    u64::from_le_bytes(r.lds[at..at + 8].try_into().unwrap())
}

#[test]
fn read2_offsets_count_elements_and_st64_strides_of_64() {
    let r = lds(
        "ds_write_b32 v0, v1\nds_write_b32 v0, v6 offset:256\n\
         ds_read2_b32 v[2:3], v0 offset0:1 offset1:3\nds_read2st64_b32 v[4:5], v0 offset1:1",
        512,
        |w| {
            for l in 0..64 {
                w.set_vgpr(0, l, 4 * l as u32);
                w.set_vgpr(1, l, 10 * l as u32 + 1);
                w.set_vgpr(6, l, 1000 + l as u32);
            }
        },
    );
    for l in [0usize, 1, 30, 60] {
        assert_eq!(r.wave.vgpr(2, l), 10 * (l as u32 + 1) + 1, "lane {l}");
        assert_eq!(r.wave.vgpr(3, l), 10 * (l as u32 + 3) + 1, "lane {l}");
        assert_eq!((r.wave.vgpr(4, l), r.wave.vgpr(5, l)), (10 * l as u32 + 1, 1000 + l as u32));
    }
    // Lane 63's second element is past the first 256 bytes: the offset:256 writes of lanes 0, 2.
    assert_eq!(r.wave.vgpr(2, 63), 1000);
    assert_eq!(r.wave.vgpr(3, 63), 1002);
}

#[test]
fn sixty_four_bit_pairs() {
    let r = lds(
        "ds_write2_b64 v0, v[2:3], v[4:5] offset0:1 offset1:2\n\
         ds_write2st64_b64 v0, v[4:5], v[2:3] offset1:1\n\
         ds_read_b64 v[6:7], v0 offset:8\n\
         ds_read2_b64 v[8:11], v0 offset0:2 offset1:64",
        1024,
        |w| {
            w.set_exec(1);
            w.set_vgpr64(2, 0, 0x1111_2222_3333_4444);
            w.set_vgpr64(4, 0, 0x5555_6666_7777_8888);
        },
    );
    assert_eq!(
        (dword64(&r, 0), dword64(&r, 8), dword64(&r, 16)),
        (0x5555_6666_7777_8888, 0x1111_2222_3333_4444, 0x5555_6666_7777_8888)
    );
    assert_eq!(dword64(&r, 512), 0x1111_2222_3333_4444);
    assert_eq!(r.wave.vgpr64(6, 0), 0x1111_2222_3333_4444);
    assert_eq!((r.wave.vgpr64(8, 0), r.wave.vgpr64(10, 0)), (0x5555_6666_7777_8888, 0x1111_2222_3333_4444));
}

#[test]
fn out_of_range_reads_zero_and_writes_drop_without_faulting() {
    let r = lds(
        "ds_write_b32 v0, v1 offset:60\nds_write_b32 v0, v2 offset:62\nds_write_b32 v0, v2 offset:64\n\
         ds_read_b32 v3, v0 offset:60\nds_read_b32 v4, v0 offset:62\nds_read_b64 v[5:6], v0 offset:56\n\
         ds_write_b32 v7, v2 offset:8",
        64,
        |w| {
            w.set_exec(1);
            w.set_vgpr(0, 0, 0);
            w.set_vgpr(1, 0, 0xAB);
            w.set_vgpr(2, 0, 0xCD);
            w.set_vgpr(4, 0, 0xEE);
            // The address wraps at 32 bits: 0xFFFF_FFF8 + 8 is 0.
            w.set_vgpr(7, 0, 0xFFFF_FFF8);
        },
    );
    assert_eq!(word(&r, 60), 0xAB);
    assert_eq!(r.lds[56..60], [0; 4]);
    assert_eq!((r.wave.vgpr(3, 0), r.wave.vgpr(4, 0)), (0xAB, 0));
    assert_eq!(r.wave.vgpr64(5, 0), 0xAB << 32);
    assert_eq!(word(&r, 0), 0xCD);
}

#[test]
fn bpermute_fetches_and_inactive_sources_read_zero() {
    let r = lds("ds_bpermute_b32 v1, v2, v3 offset:4", 0, |w| {
        w.set_exec(!(1u64 << 5));
        for l in 0..64 {
            // (address + 4) / 4 = lane + 1, modulo 64 (lane 63's address wraps to 0).
            w.set_vgpr(2, l, (4 * ((l as u32 + 1) % 64)).wrapping_sub(4));
            w.set_vgpr(3, l, 100 + l as u32);
            w.set_vgpr(1, l, 0xEE);
        }
    });
    assert_eq!(r.wave.vgpr(1, 0), 101);
    assert_eq!(r.wave.vgpr(1, 62), 163);
    assert_eq!(r.wave.vgpr(1, 63), 100);
    assert_eq!(r.wave.vgpr(1, 4), 0, "lane 5 is off: it gives 0");
    assert_eq!(r.wave.vgpr(1, 5), 0xEE, "lane 5 is off: not written");
}

#[test]
fn permute_sends_and_unsent_lanes_read_zero() {
    let r = lds("ds_permute_b32 v1, v2, v1", 0, |w| {
        w.set_exec(!(1u64 << 5));
        for l in 0..64 {
            // High address bits are ignored: 256 is lane 0 again.
            w.set_vgpr(2, l, 4 * ((l as u32 + 1) % 64) + 256);
            w.set_vgpr(1, l, 100 + l as u32);
        }
    });
    assert_eq!(r.wave.vgpr(1, 1), 100);
    assert_eq!(r.wave.vgpr(1, 0), 163);
    assert_eq!(r.wave.vgpr(1, 6), 0, "lane 5 is off: nobody sends to lane 6");
    assert_eq!(r.wave.vgpr(1, 5), 105, "lane 5 is off: its register is kept");
}

#[test]
fn swizzle_quad_and_bit_mask_modes() {
    let r = lds(
        "ds_swizzle_b32 v1, v2 offset:swizzle(QUAD_PERM,3,2,1,0)\n\
         ds_swizzle_b32 v3, v2 offset:swizzle(SWAP,1)\n\
         ds_swizzle_b32 v4, v2 offset:swizzle(BITMASK_PERM,\"00p11\")",
        0,
        |w| {
            w.set_exec(!(1u64 << 39));
            for l in 0..64 {
                w.set_vgpr(2, l, 100 + l as u32);
            }
        },
    );
    let v = |reg, l| r.wave.vgpr(reg, l);
    assert_eq!([v(1, 4), v(1, 5), v(1, 6), v(1, 7)], [107, 106, 105, 104]);
    assert_eq!([v(3, 0), v(3, 1), v(3, 32), v(3, 63)], [101, 100, 133, 162]);
    // Bits 4:3 cleared, bit 2 kept, bits 1:0 set, within each half of 32 lanes.
    assert_eq!([v(4, 0), v(4, 5), v(4, 8), v(4, 12), v(4, 33)], [103, 107, 103, 107, 135]);
    assert_eq!(v(4, 37), 0, "lane 39 is off: it gives 0");
}

#[test]
fn add_rtn_over_64_lanes_returns_every_old_value() {
    let r = lds("ds_add_rtn_u32 v1, v0, v2\nds_add_u32 v0, v2 offset:4", 8, |w| {
        for l in 0..64 {
            w.set_vgpr(2, l, 2);
        }
    });
    assert_eq!((word(&r, 0), word(&r, 4)), (128, 128));
    let mut olds: Vec<u32> = (0..64).map(|l| r.wave.vgpr(1, l)).collect();
    olds.sort_unstable();
    assert_eq!(olds, (0..64).map(|k| 2 * k).collect::<Vec<u32>>());
}

#[test]
fn cmpst_takes_compare_then_source() {
    let r = lds(
        "ds_write2_b32 v16, v5, v6 offset0:1 offset1:2\n\
         ds_cmpst_rtn_b32 v1, v0, v3, v4 offset:4\n\
         ds_write_b64 v7, v[10:11]\n\
         ds_cmpst_rtn_b64 v[8:9], v7, v[12:13], v[14:15]",
        32,
        |w| {
            w.set_exec(0b11);
            for l in 0..2 {
                w.set_vgpr(0, l, 4 * l as u32);
                w.set_vgpr(16, l, 0);
                w.set_vgpr(5, l, 5);
                w.set_vgpr(6, l, 6);
                w.set_vgpr(3, l, 5);
                w.set_vgpr(4, l, 9);
                w.set_vgpr(7, l, 16 + 8 * l as u32);
                w.set_vgpr64(10, l, 0x1_0000_0000 * (l as u64 + 1));
                w.set_vgpr64(12, l, 0x1_0000_0000);
                w.set_vgpr64(14, l, 0xFACE);
            }
        },
    );
    // Lane 0 compares 5 with 5 at byte 4 and stores 9; lane 1 compares 5 with 6 at byte 8.
    assert_eq!((word(&r, 4), word(&r, 8)), (9, 6));
    assert_eq!((r.wave.vgpr(1, 0), r.wave.vgpr(1, 1)), (5, 6));
    assert_eq!((dword64(&r, 16), dword64(&r, 24)), (0xFACE, 0x2_0000_0000));
    assert_eq!((r.wave.vgpr64(8, 0), r.wave.vgpr64(8, 1)), (0x1_0000_0000, 0x2_0000_0000));
}

#[test]
fn the_other_lds_atomics() {
    let r = lds(
        "ds_write_b32 v0, v20\nds_mskor_rtn_b32 v1, v0, v21, v22\n\
         ds_write_b32 v0, v23 offset:4\nds_max_rtn_i32 v2, v0, v24 offset:4\nds_max_i32 v0, v25 offset:4\n\
         ds_write_b32 v0, v26 offset:8\nds_rsub_u32 v0, v27 offset:8\n\
         ds_write_b32 v0, v26 offset:12\nds_wrap_rtn_b32 v3, v0, v28, v27 offset:12\n\
         ds_wrxchg2_rtn_b32 v[4:5], v0, v29, v30 offset0:1 offset1:2\n\
         ds_write_b64 v0, v[32:33] offset:16\nds_add_rtn_u64 v[6:7], v0, v[34:35] offset:16\n\
         ds_write_b32 v0, v26 offset:24\nds_inc_rtn_u32 v8, v0, v26 offset:24\nds_inc_u32 v0, v26 offset:24\n\
         ds_write_b32 v0, v36 offset:28\nds_add_f32 v0, v37 offset:28\nds_min_rtn_f32 v9, v0, v38 offset:28",
        32,
        |w| {
            w.set_exec(1);
            let set = |w: &mut Wave, reg, v| w.set_vgpr(reg, 0, v);
            set(w, 20, 0xFF);
            set(w, 21, 0x0F);
            set(w, 22, 0x100);
            set(w, 23, 5);
            set(w, 24, -3i32 as u32);
            set(w, 25, 7);
            set(w, 26, 3);
            set(w, 27, 10);
            set(w, 28, 5);
            set(w, 29, 0xA1);
            set(w, 30, 0xA2);
            w.set_vgpr64(32, 0, 0xFFFF_FFFF);
            w.set_vgpr64(34, 0, 1);
            set(w, 36, 1.5f32.to_bits());
            set(w, 37, 2.25f32.to_bits());
            set(w, 38, (-1.0f32).to_bits());
        },
    );
    let v = |reg| r.wave.vgpr(reg, 0);
    // mskor: (0xFF & !0x0F) | 0x100; the old 0xFF back.
    assert_eq!(v(1), 0xFF);
    // max_i32: 5 against -3 keeps 5 (returned 5), then 7 wins. rsub: 10 - 3.
    assert_eq!(v(2), 5);
    // wrap: 3 < 5, so 3 + 10 (wrxchg2 then overwrote bytes 4 and 8 with 0xA1, 0xA2).
    assert_eq!((v(3), word(&r, 12)), (3, 13));
    assert_eq!((v(4), v(5)), (7, 7), "wrxchg2 returns the old dwords at bytes 4 and 8");
    assert_eq!((word(&r, 0), word(&r, 4), word(&r, 8)), (0x1F0, 0xA1, 0xA2));
    assert_eq!((r.wave.vgpr64(6, 0), dword64(&r, 16)), (0xFFFF_FFFF, 0x1_0000_0000));
    // inc with limit 3 from 3 wraps to 0, then 0 -> 1.
    assert_eq!((v(8), word(&r, 24)), (3, 1));
    assert_eq!(v(9), 3.75f32.to_bits());
    assert_eq!(word(&r, 28), (-1.0f32).to_bits());
}

#[test]
fn d16_reads_keep_the_other_half_and_d16_hi_writes_take_the_high_half() {
    let r = lds(
        "ds_write_b32 v0, v10\n\
         ds_read_u8_d16_hi v1, v0 offset:1\nds_read_i8_d16 v2, v0 offset:1\n\
         ds_read_u16_d16 v3, v0 offset:2\nds_read_u16_d16_hi v4, v0\n\
         ds_read_i16 v5, v0 offset:2\nds_read_u8 v6, v0 offset:1\nds_read_i8 v7, v0 offset:1\n\
         ds_write_b16_d16_hi v0, v10 offset:4\nds_write_b8_d16_hi v0, v10 offset:7\nds_write_b8 v0, v10 offset:6",
        8,
        |w| {
            w.set_exec(1);
            w.set_vgpr(10, 0, 0xBEEF_8001);
            for reg in 1..=4 {
                w.set_vgpr(reg, 0, 0x1234_5678);
            }
        },
    );
    let v = |reg| r.wave.vgpr(reg, 0);
    assert_eq!(v(1), 0x0080_5678);
    assert_eq!(v(2), 0x1234_FF80);
    assert_eq!(v(3), 0x1234_BEEF);
    assert_eq!(v(4), 0x8001_5678);
    assert_eq!(v(5), 0xFFFF_BEEF);
    assert_eq!((v(6), v(7)), (0x80, 0xFFFF_FF80));
    assert_eq!(word(&r, 4), 0xEF01_BEEF);
}

#[test]
fn b96_and_b128() {
    let r = lds("ds_write_b96 v0, v[1:3] offset:4\nds_read_b128 v[4:7], v0\nds_write_b128 v0, v[4:7] offset:16\nds_read_b96 v[8:10], v0 offset:20", 32, |w| {
        w.set_exec(1);
        for k in 0..3 {
            w.set_vgpr(1 + k, 0, 0x10 + k);
        }
        w.set_vgpr(10, 0, 0xEE);
    });
    let v = |reg| r.wave.vgpr(reg, 0);
    assert_eq!([v(4), v(5), v(6), v(7)], [0, 0x10, 0x11, 0x12]);
    assert_eq!([v(8), v(9), v(10)], [0x10, 0x11, 0x12]);
    assert_eq!(word(&r, 28), 0x12);
}

#[test]
fn gds_gws_append_and_src2_fault_as_unimplemented() {
    for src in [
        "ds_add_u32 v0, v1 gds",
        "ds_append v1",
        "ds_add_src2_u32 v1",
        "ds_gws_init v1 gds",
        "ds_condxchg32_rtn_b64 v[1:2], v3, v[4:5]",
    ] {
        let r = run_with(src, &Ranges::default(), 16, |_| {});
        assert!(matches!(r.result, Err(Fault::Unimplemented { .. })), "{src}: {:?}", r.result);
    }
    lds("ds_nop", 0, |_| {});
}
