//! Scalar memory: loads and stores through an SGPR-pair base and through a buffer resource, the
//! offset forms, dword alignment, range checks, faults and the time counters.

mod common;

use common::run_with;
use gfx906::{Fault, Flow, Ranges};

/// A test buffer of `dwords` words, word k = 0x100 + k, and the ranges covering it.
fn buffer(dwords: usize) -> (Vec<u8>, Ranges) {
    let mut buf: Vec<u8> = (0..dwords as u32).flat_map(|k| (0x100 + k).to_le_bytes()).collect();
    let at = buf.as_mut_ptr() as u64;
    let ranges = Ranges::new(vec![(at, at + buf.len() as u64)]);
    (buf, ranges)
}

fn word(buf: &[u8], k: usize) -> u32 {
    u32::from_le_bytes(buf[k * 4..k * 4 + 4].try_into().unwrap())
}

#[test]
fn loads_read_dwords_at_the_base_plus_the_offset() {
    let (mut buf, mem) = buffer(32);
    let at = buf.as_mut_ptr() as u64;
    let src = "\
        s_load_dwordx16 s[20:35], s[2:3], 0x10
        s_load_dword s0, s[2:3], 0x7
        s_load_dwordx2 s[4:5], s[2:3], s10
        s_load_dword s6, s[2:3], s11 offset:0x4
        s_load_dword s7, s[12:13], -0x10
        s_load_dwordx4 s[16:19], s[2:3], m0
        s_load_dwordx8 s[40:47], s[2:3], 0x60";
    let r = run_with(src, &mem, 0, |w| {
        w.set_sgpr64(2, at);
        w.s[10] = 8;
        w.s[11] = 8;
        w.set_sgpr64(12, at + 64);
        w.s[124] = 0x14;
    });
    assert_eq!(r.result, Ok(Flow::End));
    let w = r.wave;
    let expect: Vec<u32> = (4..20).map(|k| 0x100 + k).collect();
    assert_eq!(&w.s[20..36], &expect[..]);
    // 0x7: the two low bits are ignored, word 1.
    assert_eq!(w.s[0], 0x101);
    assert_eq!((w.s[4], w.s[5]), (0x102, 0x103));
    // The SGPR offset plus the immediate: 8 + 4 = word 3.
    assert_eq!(w.s[6], 0x103);
    // A negative immediate: word 16 - 4.
    assert_eq!(w.s[7], 0x10C);
    assert_eq!(&w.s[16..20], &[0x105, 0x106, 0x107, 0x108]);
    let expect: Vec<u32> = (24..32).map(|k| 0x100 + k).collect();
    assert_eq!(&w.s[40..48], &expect[..]);
    assert_eq!(r.counts.smem, 7);
}

#[test]
fn stores_write_dwords() {
    let (mut buf, mem) = buffer(16);
    let at = buf.as_mut_ptr() as u64;
    let src = "\
        s_store_dwordx2 s[4:5], s[2:3], 0x20
        s_store_dword s6, s[2:3], 0x3
        s_store_dwordx4 s[8:11], s[2:3], 0x30
        s_dcache_wb";
    let r = run_with(src, &mem, 0, |w| {
        w.set_sgpr64(2, at);
        w.set_sgpr64(4, 0xBBBB_BBBB_AAAA_AAAA);
        w.s[6] = 0xCCCC_CCCC;
        for k in 0..4 {
            w.s[8 + k] = 0xD0 + k as u32;
        }
    });
    assert_eq!(r.result, Ok(Flow::End));
    assert_eq!((word(&buf, 8), word(&buf, 9)), (0xAAAA_AAAA, 0xBBBB_BBBB));
    assert_eq!((word(&buf, 0), word(&buf, 1)), (0xCCCC_CCCC, 0x101));
    assert_eq!([word(&buf, 12), word(&buf, 13), word(&buf, 14), word(&buf, 15)], [0xD0, 0xD1, 0xD2, 0xD3]);
    assert_eq!(word(&buf, 10), 0x10A);
}

/// A buffer resource over `at` with `bytes` records of stride 0; the top bits of dword 1
/// (swizzle) set, which must not reach the address.
fn resource(w: &mut gfx906::Wave, first: usize, at: u64, bytes: u32) {
    w.s[first] = at as u32;
    w.s[first + 1] = (at >> 32) as u32 | 0xC000_0000;
    w.s[first + 2] = bytes;
    w.s[first + 3] = 0x0002_7000;
}

#[test]
fn buffer_loads_read_zero_past_num_records() {
    let (mut buf, mem) = buffer(16);
    let at = buf.as_mut_ptr() as u64;
    let src = "\
        s_buffer_load_dwordx8 s[20:27], s[4:7], 0x8
        s_buffer_load_dword s8, s[4:7], 0x4
        s_buffer_load_dwordx2 s[10:11], s[4:7], s9
        s_buffer_load_dwordx4 s[12:15], s[4:7], 0xfff00";
    let r = run_with(src, &mem, 0, |w| {
        // 24 bytes: words 0..5 are in range.
        resource(w, 4, at, 24);
        w.s[9] = 20;
        for k in 10..28 {
            w.s[k] = 0xEEEE;
        }
    });
    assert_eq!(r.result, Ok(Flow::End));
    let w = r.wave;
    assert_eq!(&w.s[20..28], &[0x102, 0x103, 0x104, 0x105, 0, 0, 0, 0]);
    assert_eq!(w.s[8], 0x101);
    assert_eq!((w.s[10], w.s[11]), (0x105, 0));
    // Far past the buffer (and past mapped memory): zeros, no fault.
    assert_eq!(&w.s[12..16], &[0, 0, 0, 0]);
}

#[test]
fn a_dword_only_partly_within_num_records_is_out_of_range() {
    let (mut buf, mem) = buffer(16);
    let at = buf.as_mut_ptr() as u64;
    let r = run_with("s_buffer_load_dwordx2 s[10:11], s[4:7], 0x10", &mem, 0, |w| resource(w, 4, at, 22));
    assert_eq!(r.result, Ok(Flow::End));
    // Word 4 ends at byte 20, inside; word 5 runs to 24, past 22.
    assert_eq!((r.wave.s[10], r.wave.s[11]), (0x104, 0));
}

#[test]
fn buffer_stores_drop_dwords_past_num_records() {
    let (mut buf, mem) = buffer(16);
    let at = buf.as_mut_ptr() as u64;
    let src = "s_buffer_store_dwordx4 s[8:11], s[4:7], 0x10";
    let r = run_with(src, &mem, 0, |w| {
        resource(w, 4, at, 24);
        for k in 0..4 {
            w.s[8 + k] = 0xD0 + k as u32;
        }
    });
    assert_eq!(r.result, Ok(Flow::End));
    let words: Vec<u32> = (3..9).map(|k| word(&buf, k)).collect();
    assert_eq!(words, [0x103, 0xD0, 0xD1, 0x106, 0x107, 0x108]);
}

#[test]
fn an_unmapped_address_faults_at_the_instruction() {
    let (mut buf, mem) = buffer(8);
    let at = buf.as_mut_ptr() as u64;
    let r = run_with("s_nop 0\ns_load_dword s0, s[2:3], 0x0", &mem, 0, |w| w.set_sgpr64(2, 0x1000));
    let pc = r.wave.pc - 8;
    assert!(matches!(r.result, Err(Fault::Memory { addr: 0x1000, len: 4, pc: p, .. }) if p == pc), "{:?}", r.result);

    // Four dwords of which the last two lie past the end of the mapping.
    let r = run_with("s_load_dwordx4 s[0:3], s[2:3], 0x18", &mem, 0, |w| w.set_sgpr64(2, at));
    assert!(matches!(r.result, Err(Fault::Memory { len: 16, .. })), "{:?}", r.result);
    assert_eq!(r.wave.s[0], 0);

    let r = run_with("s_store_dword s0, s[2:3], 0x20", &mem, 0, |w| w.set_sgpr64(2, at));
    assert!(matches!(r.result, Err(Fault::Memory { .. })), "{:?}", r.result);
}

#[test]
fn time_counters_never_go_backwards() {
    let src = "\
        s_memtime s[0:1]
        s_memrealtime s[2:3]
        s_dcache_inv
        s_dcache_inv_vol
        s_dcache_wb_vol
        s_sleep 1
        s_memtime s[4:5]
        s_memrealtime s[6:7]";
    let r = run_with(src, &Ranges::default(), 0, |_| {});
    assert_eq!(r.result, Ok(Flow::End));
    let w = r.wave;
    assert!(w.sgpr64(0) > 0 && w.sgpr64(4) >= w.sgpr64(0), "{:#x} {:#x}", w.sgpr64(0), w.sgpr64(4));
    assert!(w.sgpr64(2) > 0 && w.sgpr64(6) >= w.sgpr64(2), "{:#x} {:#x}", w.sgpr64(2), w.sgpr64(6));
}

#[test]
fn scalar_atomics_and_scratch_are_not_implemented() {
    let (mut buf, mem) = buffer(4);
    let at = buf.as_mut_ptr() as u64;
    for src in ["s_atomic_add s0, s[2:3], 0x0", "s_scratch_load_dword s0, s[2:3], 0x0"] {
        let r = run_with(src, &mem, 0, |w| w.set_sgpr64(2, at));
        assert!(matches!(r.result, Err(Fault::Unimplemented { .. })), "{src}: {:?}", r.result);
    }
    assert_eq!(word(&buf, 0), 0x100);
}
