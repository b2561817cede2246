//! MUBUF and MTBUF: the private segment buffer's scratch form, raw and structured buffers with
//! their range checks, atomics and the 32-bit formats, against values worked out by hand.

mod common;

use common::{run_stride, Mem, Run};
use gfx906::exec::Flow;
use gfx906::wave::reg;
use gfx906::{Fault, Wave};

/// V# dword 3 fields.
const ADD_TID: u32 = 1 << 23;
const SWIZZLE_EN: u32 = 1 << 31;
/// dst_sel x, y, z, w = the element's x, y, z, w.
const SEL_XYZW: u32 = 4 | 5 << 3 | 6 << 6 | 7 << 9;
const fn fmt(dfmt: u32, nfmt: u32) -> u32 {
    nfmt << 12 | dfmt << 15
}

/// A buffer resource into four SGPRs from `first`.
fn vsharp(w: &mut Wave, first: u32, base: u64, stride: u32, num_records: u32, dword3: u32) {
    w.set_sgpr(first, base as u32);
    w.set_sgpr(first + 1, (base >> 32) as u32 & 0xFFFF | (stride & 0x3FFF) << 16);
    w.set_sgpr(first + 2, num_records);
    w.set_sgpr(first + 3, dword3);
}

fn ok(r: &Run) {
    assert_eq!(r.result, Ok(Flow::End));
}

#[test]
fn scratch_through_the_private_segment_buffer_matches_flat_scratch() {
    // Two dwords per lane, swizzled as the hardware lays scratch out: lane L's private byte o at
    // wave base + (o / 4) * 256 + 4 L + o % 4, the wave base 32 bytes in (s7, FLAT_SCRATCH).
    let m = Mem::new((32 + 2 * 256) / 4);
    let a = m.addr();
    let r = run_stride(
        "buffer_store_dword v1, off, s[0:3], s7 offset:4\n\
         buffer_load_dword v2, off, s[0:3], s7 offset:4\n\
         scratch_load_dword v3, off, s8 offset:4\n\
         scratch_store_dwordx2 v4, v[5:6], off\n\
         buffer_load_dwordx2 v[7:8], off, s[0:3], s7",
        &m.ranges(),
        0,
        8,
        |w| {
            // ELEMENT_SIZE 4 (1 << 19), INDEX_STRIDE 64 (3 << 21), as ROCr's scratch descriptor.
            vsharp(w, 0, a, 8, u32::MAX, ADD_TID | 1 << 19 | 3 << 21);
            w.set_sgpr(1, w.sgpr(1) | SWIZZLE_EN);
            w.set_sgpr(7, 32);
            w.set_sgpr(8, 0);
            w.set_sgpr64(reg::FLAT_SCRATCH_LO, a + 32);
            for l in 0..64 {
                w.set_vgpr(1, l, 1000 + l as u32);
                w.set_vgpr(4, l, 0);
                w.set_vgpr(5, l, 7000 + l as u32);
                w.set_vgpr(6, l, 9000 + l as u32);
            }
        },
    );
    ok(&r);
    for l in 0..64usize {
        assert_eq!(m.get((32 + 4 * l) / 4), 7000 + l as u32, "lane {l} dword 0");
        assert_eq!(m.get((32 + 256 + 4 * l) / 4), 9000 + l as u32, "lane {l} dword 1");
        assert_eq!(r.wave.vgpr(2, l), 1000 + l as u32);
        assert_eq!(r.wave.vgpr(3, l), 1000 + l as u32);
        assert_eq!((r.wave.vgpr(7, l), r.wave.vgpr(8, l)), (7000 + l as u32, 9000 + l as u32));
    }
    assert_eq!(m.get(0), 0, "nothing below the wave's base");
}

#[test]
fn a_scratch_stride_past_14_bits_takes_its_high_bits_from_data_format() {
    let stride = 0x4010u32;
    let m = Mem::new((2 * stride as usize + 16) / 4);
    let a = m.addr();
    let r = run_stride("buffer_store_dword v1, off, s[0:3], 0 offset:4", &m.ranges(), 0, stride, |w| {
        vsharp(w, 0, a, stride, u32::MAX, ADD_TID | fmt(stride >> 14, 0));
        w.set_exec(0b10);
        w.set_vgpr(1, 1, 0xFEED);
    });
    ok(&r);
    assert_eq!(m.get((stride as usize + 4) / 4), 0xFEED);
}

#[test]
fn raw_buffer_reads_past_num_records_return_zero_and_stores_drop() {
    let mut m = Mem::new(8);
    for k in 0..8 {
        m.set(k, 0x1111_1111 * (k as u32 + 1));
    }
    let a = m.addr();
    let r = common::run_with(
        "buffer_load_ubyte v6, v0, s[8:11], 0 offen offset:2\n\
         buffer_load_dword v7, v0, s[8:11], 0 offen\n\
         buffer_load_dword v1, v0, s[4:7], 0 offen\n\
         buffer_load_dwordx2 v[2:3], v0, s[4:7], 0 offen offset:4\n\
         buffer_store_dword v4, v0, s[4:7], 0 offen\n\
         buffer_load_dword v5, off, s[4:7], s12",
        &m.ranges(),
        0,
        |w| {
            vsharp(w, 4, a, 0, 8, 0);
            vsharp(w, 8, a, 0, 7, 0);
            w.set_sgpr(12, 8);
            w.set_exec(0b1111);
            for l in 0..4 {
                w.set_vgpr(0, l, 4 * l as u32);
                w.set_vgpr(1, l, 0xAA);
                w.set_vgpr(4, l, 0x100 + l as u32);
            }
        },
    );
    ok(&r);
    let v = |reg, l| r.wave.vgpr(reg, l);
    // num_records 7: byte 6 is in range, byte 10 is not; the dword at 4..8 is not.
    assert_eq!([v(6, 0), v(6, 1), v(6, 2)], [0x11, 0x22, 0]);
    assert_eq!([v(7, 0), v(7, 1)], [0x1111_1111, 0]);
    assert_eq!([v(1, 0), v(1, 1), v(1, 2), v(1, 3)], [0x1111_1111, 0x2222_2222, 0, 0]);
    // Lane 0: bytes 4..8 in range, 8..12 not; lane 1: both out.
    assert_eq!([v(2, 0), v(3, 0), v(2, 1), v(3, 1)], [0x2222_2222, 0, 0, 0]);
    // Stores at 0 and 4 land; at 8 and 12 they are dropped.
    assert_eq!([m.get(0), m.get(1), m.get(2), m.get(3)], [0x100, 0x101, 0x3333_3333, 0x4444_4444]);
    // soffset is not part of the range check: offset 0 is in range, and reads a + 8.
    assert_eq!(v(5, 0), 0x3333_3333);
}

#[test]
fn structured_buffers_check_the_index() {
    let mut m = Mem::new(8);
    for k in 0..8 {
        m.set(k, 0xD0 + k as u32);
    }
    let a = m.addr();
    let r = common::run_with(
        "buffer_load_dword v1, v0, s[4:7], 0 idxen offset:4\n\
         buffer_load_dword v4, v[2:3], s[4:7], 4 idxen offen",
        &m.ranges(),
        0,
        |w| {
            vsharp(w, 4, a, 8, 2, 0);
            w.set_exec(0b111);
            for l in 0..3 {
                w.set_vgpr(0, l, l as u32);
                w.set_vgpr(2, l, 1);
                w.set_vgpr(3, l, 4 * l as u32);
            }
        },
    );
    ok(&r);
    let v = |reg, l| r.wave.vgpr(reg, l);
    assert_eq!([v(1, 0), v(1, 1), v(1, 2)], [0xD1, 0xD3, 0]);
    // Index 1 (byte 8), offset 4 L, soffset 4: dwords 3, 4, 5.
    assert_eq!([v(4, 0), v(4, 1), v(4, 2)], [0xD3, 0xD4, 0xD5]);
}

#[test]
fn buffer_atomics_return_into_vdata() {
    let mut m = Mem::new(4);
    m.set(0, 10);
    m.set(1, 7);
    let a = m.addr();
    let r = common::run_with(
        "buffer_atomic_add v1, off, s[4:7], 0 glc\n\
         buffer_atomic_cmpswap v[2:3], off, s[4:7], 0 offset:4 glc\n\
         buffer_atomic_swap v4, off, s[8:11], 0 offset:8 glc",
        &m.ranges(),
        0,
        |w| {
            vsharp(w, 4, a, 0, 16, 0);
            vsharp(w, 8, a, 0, 8, 0);
            for l in 0..64 {
                w.set_vgpr(1, l, 3);
                // Lane 0's compare matches the old 7; later lanes compare against 99.
                w.set_vgpr(2, l, 50 + l as u32);
                w.set_vgpr(3, l, if l == 0 { 7 } else { 99 });
                w.set_vgpr(4, l, 0x44);
            }
        },
    );
    ok(&r);
    assert_eq!(m.get(0), 10 + 64 * 3);
    let mut olds: Vec<u32> = (0..64).map(|l| r.wave.vgpr(1, l)).collect();
    olds.sort_unstable();
    assert_eq!(olds, (0..64).map(|k| 10 + 3 * k).collect::<Vec<u32>>());
    assert_eq!(m.get(1), 50);
    assert_eq!((r.wave.vgpr(2, 0), r.wave.vgpr(2, 1), r.wave.vgpr(3, 0)), (7, 50, 7));
    // Offset 8 is past num_records 8: nothing happens, and 0 comes back.
    assert_eq!((m.get(2), r.wave.vgpr(4, 0)), (0, 0));
}

#[test]
fn format_loads_fill_missing_channels_and_follow_dst_sel() {
    let mut m = Mem::new(8);
    for k in 0..8 {
        m.set(k, (k as f32 + 0.5).to_bits());
    }
    let a = m.addr();
    let r = common::run_with(
        "buffer_load_format_xy v[1:2], v0, s[4:7], 0 idxen\n\
         buffer_load_format_xyzw v[3:6], v0, s[4:7], 0 idxen\n\
         buffer_load_format_xy v[7:8], v0, s[8:11], 0 idxen",
        &m.ranges(),
        0,
        |w| {
            vsharp(w, 4, a, 8, 4, SEL_XYZW | fmt(11, 7));
            // x from y, y from x.
            vsharp(w, 8, a, 8, 4, 5 | 4 << 3 | fmt(11, 7));
            w.set_exec(0b10);
            w.set_vgpr(0, 1, 1);
        },
    );
    ok(&r);
    let v = |reg| r.wave.vgpr(reg, 1);
    assert_eq!((v(1), v(2)), (2.5f32.to_bits(), 3.5f32.to_bits()));
    assert_eq!((v(3), v(4), v(5), v(6)), (2.5f32.to_bits(), 3.5f32.to_bits(), 0, 1.0f32.to_bits()));
    assert_eq!((v(7), v(8)), (3.5f32.to_bits(), 2.5f32.to_bits()));
}

#[test]
fn tbuffer_takes_its_format_from_the_instruction() {
    let mut m = Mem::new(8);
    m.set(3, 0x33);
    let a = m.addr();
    let r = common::run_with(
        "tbuffer_store_format_x v1, v0, s[4:7], dfmt:11, nfmt:4, 0 idxen\n\
         tbuffer_load_format_xy v[2:3], v0, s[4:7], dfmt:11, nfmt:4, 0 idxen",
        &m.ranges(),
        0,
        |w| {
            vsharp(w, 4, a, 8, 4, SEL_XYZW);
            w.set_exec(0b10);
            w.set_vgpr(0, 1, 1);
            w.set_vgpr(1, 1, 0x22);
        },
    );
    ok(&r);
    assert_eq!((m.get(2), m.get(3)), (0x22, 0x33));
    assert_eq!((r.wave.vgpr(2, 1), r.wave.vgpr(3, 1)), (0x22, 0x33));
}

#[test]
fn what_the_emulator_does_not_convert_faults() {
    let m = Mem::new(8);
    let a = m.addr();
    let cases: [(&str, u32); 2] = [
        // An 8-bit data format.
        ("buffer_load_format_x v1, off, s[4:7], 0", fmt(1, 4) | SEL_XYZW),
        // Loads into LDS.
        ("buffer_load_dword off, s[4:7], 0 lds", 0),
    ];
    for (src, d3) in cases {
        let r = common::run_with(src, &m.ranges(), 0, |w| {
            vsharp(w, 4, a, 0, 32, 0);
            w.set_sgpr(7, d3);
        });
        assert!(matches!(r.result, Err(Fault::Unimplemented { .. })), "{src}: {:?}", r.result);
    }
    let r = common::run_with("buffer_wbinvl1\nbuffer_wbinvl1_vol", &m.ranges(), 0, |_| {});
    ok(&r);
}
