//! FLAT, GLOBAL and SCRATCH: loads, stores, d16 halves, atomics, apertures and faults, against
//! values worked out by hand.

mod common;

use common::{run_stride, Mem, Run};
use gfx906::exec::Flow;
use gfx906::wave::{aperture, reg};
use gfx906::Fault;

fn ok(r: &Run) {
    assert_eq!(r.result, Ok(Flow::End));
}

#[test]
fn global_loads_with_saddr_and_negative_offset() {
    let mut m = Mem::new(64 * 4 + 8);
    for k in 0..64 * 4 {
        m.set(k, 0x1000 + k as u32);
    }
    let base = m.addr() + 16;
    let r = common::run_with(
        "global_load_dwordx4 v[4:7], v0, s[4:5] offset:-16\nglobal_load_dword v8, v0, s[4:5] offset:-12",
        &m.ranges(),
        0,
        |w| {
            w.set_sgpr64(4, base);
            w.set_exec(!(1u64 << 3));
            for l in 0..64 {
                w.set_vgpr(0, l, 16 * l as u32);
                w.set_vgpr(4, l, 0xDEAD);
            }
        },
    );
    ok(&r);
    for l in [0usize, 1, 2, 62, 63] {
        for k in 0..4 {
            assert_eq!(r.wave.vgpr(4 + k, l), 0x1000 + 4 * l as u32 + k, "lane {l} dword {k}");
        }
        assert_eq!(r.wave.vgpr(8, l), 0x1000 + 4 * l as u32 + 1);
    }
    // Lane 3 is off: its registers keep their values.
    assert_eq!(r.wave.vgpr(4, 3), 0xDEAD);
    assert_eq!(r.wave.vgpr(8, 3), 0);
}

#[test]
fn global_stores_through_a_vgpr_pair_and_saddr() {
    let mut m = Mem::new(130);
    m.set(129, 0x5555);
    let base = m.addr();
    let r = common::run_with(
        "global_store_dword v[2:3], v4, off offset:4\nglobal_store_dwordx2 v0, v[6:7], s[8:9] offset:-8",
        &m.ranges(),
        0,
        |w| {
            w.set_sgpr64(8, base + 8 + 64 * 4);
            w.set_exec(0b11);
            for l in 0..2 {
                w.set_vgpr64(2, l, base + 4 * l as u64);
                w.set_vgpr(4, l, 100 + l as u32);
                w.set_vgpr(0, l, 8 * l as u32);
                w.set_vgpr(6, l, 7 + l as u32);
                w.set_vgpr(7, l, 0x70 + l as u32);
            }
        },
    );
    ok(&r);
    assert_eq!((m.get(0), m.get(1), m.get(2), m.get(3)), (0, 100, 101, 0));
    assert_eq!((m.get(64), m.get(65), m.get(66), m.get(67)), (7, 0x70, 8, 0x71));
    assert_eq!(m.get(129), 0x5555);
}

#[test]
fn sub_dword_loads_extend_and_d16_keeps_the_other_half() {
    let mut m = Mem::new(2);
    m.set(0, 0xBEEF_8081);
    let a = m.addr();
    let r = common::run_with(
        "global_load_ubyte v1, v[2:3], off\n\
         global_load_sbyte v4, v[2:3], off\n\
         global_load_sshort v5, v[2:3], off offset:2\n\
         global_load_short_d16_hi v6, v[2:3], off offset:2\n\
         global_load_sbyte_d16 v7, v[2:3], off offset:1\n\
         global_load_ubyte_d16_hi v8, v[2:3], off offset:1\n\
         global_load_short_d16 v9, v[2:3], off",
        &m.ranges(),
        0,
        |w| {
            w.set_exec(1);
            w.set_vgpr64(2, 0, a);
            for r in 6..=9 {
                w.set_vgpr(r, 0, 0x1234_5678);
            }
        },
    );
    ok(&r);
    let v = |reg| r.wave.vgpr(reg, 0);
    assert_eq!(v(1), 0x81);
    assert_eq!(v(4), 0xFFFF_FF81);
    assert_eq!(v(5), 0xFFFF_BEEF);
    assert_eq!(v(6), 0xBEEF_5678);
    assert_eq!(v(7), 0x1234_FF80);
    assert_eq!(v(8), 0x0080_5678);
    assert_eq!(v(9), 0x1234_8081);
}

#[test]
fn d16_hi_stores_take_the_high_half() {
    let mut m = Mem::new(2);
    m.set(0, 0x1111_1111);
    m.set(1, 0x2222_2222);
    let a = m.addr();
    let r = common::run_with(
        "global_store_short_d16_hi v[2:3], v1, off\nglobal_store_byte_d16_hi v[2:3], v1, off offset:5\n\
         global_store_byte v[2:3], v1, off offset:7",
        &m.ranges(),
        0,
        |w| {
            w.set_exec(1);
            w.set_vgpr64(2, 0, a);
            w.set_vgpr(1, 0, 0xABCD_EF01);
        },
    );
    ok(&r);
    assert_eq!(m.get(0), 0x1111_ABCD);
    assert_eq!(m.get(1), 0x0122_CD22);
}

#[test]
fn an_unmapped_address_faults_naming_it() {
    let m = Mem::new(4);
    let r = common::run_with("global_load_dword v1, v[2:3], off offset:8", &m.ranges(), 0, |w| {
        w.set_exec(0b10);
        w.set_vgpr64(2, 0, m.addr());
        w.set_vgpr64(2, 1, 0x10);
    });
    match r.result {
        Err(Fault::Memory { pc, addr, len, .. }) => {
            assert_eq!((addr, len), (0x18, 4));
            assert_eq!(pc, r.wave.pc - 8, "the fault names the load's own address");
        }
        other => panic!("{other:?}"),
    }
    // Past the end of a mapped range faults too.
    let r = common::run_with("global_store_dword v[2:3], v1, off", &m.ranges(), 0, |w| {
        w.set_vgpr64(2, 0, m.addr() + 14);
    });
    assert!(matches!(r.result, Err(Fault::Memory { len: 4, .. })), "{:?}", r.result);
}

#[test]
fn atomic_add_over_64_lanes_returns_every_old_value_with_glc() {
    let mut m = Mem::new(4);
    m.set(0, 1000);
    m.set(2, 0xFFFF_FFFF);
    let a = m.addr();
    let r = common::run_with(
        "global_atomic_add v1, v0, v2, s[4:5] glc\nglobal_atomic_add_x2 v0, v[6:7], s[4:5] offset:8\n\
         global_atomic_sub v0, v2, s[4:5]",
        &m.ranges(),
        0,
        |w| {
            w.set_sgpr64(4, a);
            for l in 0..64 {
                w.set_vgpr(2, l, 1);
                w.set_vgpr64(6, l, 1);
                w.set_vgpr(1, l, 7);
            }
        },
    );
    ok(&r);
    // 1000 + 64 adds of 1, then 64 subtractions of 1 without return.
    assert_eq!(m.get(0), 1000);
    let mut olds: Vec<u32> = (0..64).map(|l| r.wave.vgpr(1, l)).collect();
    olds.sort_unstable();
    assert_eq!(olds, (1000..1064).collect::<Vec<u32>>());
    // The 64-bit form carries into the high dword.
    assert_eq!((m.get(2), m.get(3)), (0x3F, 1));
}

#[test]
fn atomic_add_without_glc_leaves_vdst() {
    let m = Mem::new(2);
    let a = m.addr();
    let r = common::run_with("global_atomic_add v[2:3], v1, off", &m.ranges(), 0, |w| {
        w.set_exec(0b101);
        for l in 0..3 {
            w.set_vgpr64(2, l, a);
            w.set_vgpr(1, l, 5);
            w.set_vgpr(0, l, 0x77);
        }
    });
    ok(&r);
    assert_eq!(m.get(0), 10);
    assert!((0..3).all(|l| r.wave.vgpr(0, l) == 0x77), "vdst (v0 in the encoding) is not written");
}

#[test]
fn cmpswap_takes_source_then_compare() {
    let mut m = Mem::new(4);
    m.set(0, 5);
    m.set(1, 6);
    m.set(2, 0xAAAA_0000);
    m.set(3, 0x1);
    let a = m.addr();
    let r = common::run_with(
        "global_atomic_cmpswap v1, v[2:3], v[4:5], off glc\nglobal_atomic_cmpswap_x2 v[10:11], v[2:3], v[6:9], off offset:8 glc",
        &m.ranges(),
        0,
        |w| {
            w.set_exec(0b11);
            for l in 0..2 {
                w.set_vgpr64(2, l, a + 4 * l as u64);
                w.set_vgpr(4, l, 9);
                w.set_vgpr(5, l, 5);
            }
            // 64-bit: lane 0 only targets dwords 2..3 (lane 1's address is unaligned for 8 bytes
            // after the offset, so it is turned off).
            w.set_vgpr64(6, 0, 0x0000_0002_0000_0003);
            w.set_vgpr64(8, 0, 0x0000_0001_AAAA_0000);
        },
    );
    // Lane 1's 64-bit access at a + 12 is unaligned: a fault, after lane 0 ran.
    assert!(matches!(r.result, Err(Fault::Memory { len: 8, .. })), "{:?}", r.result);
    assert_eq!((m.get(0), r.wave.vgpr(1, 0)), (9, 5), "lane 0: equal, swapped, old returned");
    assert_eq!((m.get(1), r.wave.vgpr(1, 1)), (6, 6), "lane 1: not equal, kept, old returned");
    assert_eq!((m.get(2), m.get(3)), (3, 2));
    assert_eq!(r.wave.vgpr64(10, 0), 0x0000_0001_AAAA_0000);
}

#[test]
fn inc_dec_and_signed_min_wrap_as_the_isa_says() {
    let mut m = Mem::new(4);
    m.set(0, 3);
    m.set(1, 1);
    m.set(2, 5);
    m.set(3, 5);
    let a = m.addr();
    let r = common::run_with(
        "global_atomic_inc v1, v0, v2, s[4:5] glc\nglobal_atomic_dec v0, v2, s[4:5] offset:4\n\
         global_atomic_smin v0, v3, s[4:5] offset:8\nglobal_atomic_umin v0, v3, s[4:5] offset:12",
        &m.ranges(),
        0,
        |w| {
            w.set_sgpr64(4, a);
            w.set_exec(0b111);
            for l in 0..3 {
                w.set_vgpr(2, l, 4);
                w.set_vgpr(3, l, u32::MAX);
            }
        },
    );
    ok(&r);
    // inc with limit 4 from 3: 3 -> 4 -> 0 -> 1.
    assert_eq!(m.get(0), 1);
    assert_eq!([r.wave.vgpr(1, 0), r.wave.vgpr(1, 1), r.wave.vgpr(1, 2)], [3, 4, 0]);
    // dec with limit 4 from 1: 1 -> 0 -> 4 -> 3.
    assert_eq!(m.get(1), 3);
    assert_eq!(m.get(2), u32::MAX);
    assert_eq!(m.get(3), 5);
}

#[test]
fn flat_reaches_lds_through_the_shared_aperture() {
    let m = Mem::new(2);
    let r = common::run_with(
        "flat_store_dword v[2:3], v4\nflat_load_dword v5, v[6:7] offset:4\nflat_atomic_add v8, v[6:7], v9 glc",
        &m.ranges(),
        256,
        |w| {
            for l in 0..64 {
                w.set_vgpr64(2, l, aperture::SHARED_BASE + 4 * l as u64);
                w.set_vgpr(4, l, 10 * l as u32);
                w.set_vgpr64(6, l, aperture::SHARED_BASE + 4 * l as u64);
                w.set_vgpr(9, l, 1);
            }
        },
    );
    ok(&r);
    assert_eq!(u32::from_le_bytes(r.lds[12..16].try_into().unwrap()), 31, "30, plus lane 3's add");
    assert_eq!(r.wave.vgpr(5, 2), 30);
    assert_eq!(r.wave.vgpr(5, 63), 0, "past the end of LDS reads 0");
    assert_eq!(r.wave.vgpr(8, 5), 50);
}

#[test]
fn flat_reaches_the_lanes_scratch_through_the_private_aperture() {
    // Scratch is swizzled in dwords: lane L's private byte o at FLAT_SCRATCH + (o/4)*256 + 4L + o%4.
    let m = Mem::new(8 + 4 * 64);
    let a = m.addr();
    let r = run_stride(
        "flat_store_dword v[2:3], v4 offset:4\nflat_load_dword v5, v[2:3] offset:4",
        &m.ranges(),
        0,
        16,
        |w| {
            w.set_sgpr64(reg::FLAT_SCRATCH_LO, a + 32);
            w.set_exec(0b110);
            for l in 0..3 {
                w.set_vgpr64(2, l, aperture::PRIVATE_BASE + 8);
                w.set_vgpr(4, l, 0x100 + l as u32);
            }
        },
    );
    ok(&r);
    // Private byte 12: dword 3 of each lane, 3 * 256 bytes in.
    assert_eq!(m.get((32 + 3 * 256 + 4) / 4), 0x101);
    assert_eq!(m.get((32 + 3 * 256 + 8) / 4), 0x102);
    assert_eq!(m.get((32 + 3 * 256) / 4), 0, "lane 0 is off");
    assert_eq!((r.wave.vgpr(5, 1), r.wave.vgpr(5, 2)), (0x101, 0x102));
}

#[test]
fn scratch_lanes_keep_distinct_private_values() {
    let m = Mem::new(4 + 4 * 64);
    let a = m.addr();
    let r = run_stride(
        "scratch_store_dword v0, v1, off offset:4\n\
         scratch_store_dword off, v2, s3 offset:-4\n\
         scratch_load_dword v5, v0, off offset:4\n\
         scratch_load_dword v6, off, s3 offset:-4\n\
         scratch_load_dword v7, v8, off offset:-8",
        &m.ranges(),
        0,
        32,
        |w| {
            w.set_sgpr64(reg::FLAT_SCRATCH_LO, a + 16);
            w.set_sgpr(3, 12);
            w.set_exec(0b11);
            for l in 0..2 {
                w.set_vgpr(0, l, 0);
                w.set_vgpr(1, l, 111 * (l as u32 + 1));
                w.set_vgpr(2, l, 7 + l as u32);
                w.set_vgpr(8, l, 12);
            }
        },
    );
    ok(&r);
    // Private bytes 4 (dword 1) and 8 (dword 2) of lanes 0 and 1.
    assert_eq!((m.get((16 + 256) / 4), m.get((16 + 256 + 4) / 4)), (111, 222));
    assert_eq!((m.get((16 + 512) / 4), m.get((16 + 512 + 4) / 4)), (7, 8));
    assert_eq!((r.wave.vgpr(5, 0), r.wave.vgpr(5, 1)), (111, 222));
    assert_eq!((r.wave.vgpr(6, 0), r.wave.vgpr(6, 1)), (7, 8));
    assert_eq!((r.wave.vgpr(7, 0), r.wave.vgpr(7, 1)), (111, 222));
}

#[test]
fn scratch_loads_of_several_dwords() {
    // Lane 1's private dwords 3, 4 and 5 (byte 12 on) lie a wave's width of dwords apart.
    let mut m = Mem::new(6 * 64);
    for k in 0..6 * 64 {
        m.set(k, k as u32);
    }
    let r = run_stride("scratch_load_dwordx3 v[1:3], v0, off offset:8", &m.ranges(), 0, 64, |w| {
        w.set_sgpr64(reg::FLAT_SCRATCH_LO, m.addr());
        w.set_exec(0b10);
        w.set_vgpr(0, 1, 4);
    });
    ok(&r);
    assert_eq!([r.wave.vgpr(1, 1), r.wave.vgpr(2, 1), r.wave.vgpr(3, 1)], [3 * 64 + 1, 4 * 64 + 1, 5 * 64 + 1]);
}

#[test]
fn global_atomics_are_host_atomics_across_threads() {
    let m = Mem::new(2);
    let (a, ranges) = (m.addr(), m.ranges());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let src = "global_atomic_add v0, v1, s[4:5]\n".repeat(50);
                let r = common::run_with(&src, &ranges, 0, |w| {
                    w.set_sgpr64(4, a);
                    for l in 0..64 {
                        w.set_vgpr(1, l, 1);
                    }
                });
                ok(&r);
            });
        }
    });
    // 4 waves, 50 instructions, 64 lanes: no increment lost.
    assert_eq!(m.get(0), 4 * 50 * 64);
}
