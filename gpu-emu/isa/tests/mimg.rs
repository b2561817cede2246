//! MIMG: image loads, stores, samples and image_get_resinfo on small linear images in host
//! memory, through T#s and S#s built here, against values worked out by hand.

mod common;

use common::{run_with, Run};
use gfx906::exec::Flow;
use gfx906::{Fault, Ranges, Wave};

/// Image memory: 256-byte aligned (the T# holds the address >> 8), 2 KiB.
struct Img {
    buf: Vec<u8>,
    at: usize,
}

impl Img {
    fn new() -> Img {
        let buf = vec![0u8; 2048 + 256];
        let at = (256 - buf.as_ptr() as usize % 256) % 256;
        Img { buf, at }
    }
    fn addr(&self) -> u64 {
        self.buf.as_ptr() as u64 + self.at as u64
    }
    fn bytes(&mut self) -> &mut [u8] {
        &mut self.buf[self.at..self.at + 2048]
    }
    fn ranges(&self) -> Ranges {
        Ranges::new(vec![(self.addr(), self.addr() + 2048)])
    }
}

/// dst_sel x, y, z, w in T# dword 3.
const RGBA: u32 = 4 | 5 << 3 | 6 << 6 | 7 << 9;
const BGRA: u32 = 6 | 5 << 3 | 4 << 6 | 7 << 9;
/// R: x, 0, 0, 1.
const R: u32 = 4 | 1 << 9;

// IMG_DATA_FORMAT and IMG_NUM_FORMAT.
const FMT_8: u32 = 1;
const FMT_16: u32 = 2;
const FMT_32: u32 = 4;
const FMT_8_8_8_8: u32 = 10;
const FMT_16_16_16_16: u32 = 12;
const FMT_32_32_32_32: u32 = 14;
const UNORM: u32 = 0;
const SNORM: u32 = 1;
const UINT: u32 = 4;
const SINT: u32 = 5;
const FLOAT: u32 = 7;

const T1D: u32 = 8;
const T2D: u32 = 9;
const T3D: u32 = 10;
const T1DA: u32 = 12;
const T2DA: u32 = 13;

/// A T# as ROCr builds one: (type, width, height, depth or slices, pitch in texels, data
/// format, number format, dst_sel, last mip level).
#[allow(clippy::too_many_arguments)]
fn tsharp(
    img: &Img,
    ty: u32,
    wd: u32,
    ht: u32,
    dp: u32,
    pitch: u32,
    dfmt: u32,
    nfmt: u32,
    sel: u32,
    last: u32,
) -> [u32; 8] {
    let a = img.addr() >> 8;
    [
        a as u32,
        (a >> 32) as u32 & 0xFF | dfmt << 20 | nfmt << 26,
        (wd - 1) | (ht - 1) << 14,
        sel | last << 16 | ty << 28,
        (dp - 1) | (pitch - 1) << 13,
        0,
        0,
        0,
    ]
}

/// An S#: clamp mode (all three), unnormalized, filter (0 point, 1 bilinear), border type.
fn ssharp(clamp: u32, unnorm: bool, filter: u32, border: u32) -> [u32; 4] {
    [clamp | clamp << 3 | clamp << 6 | u32::from(unnorm) << 15, 4095 << 12, filter << 20 | filter << 22, border << 30]
}

fn setup(w: &mut Wave, t: [u32; 8], s: [u32; 4]) {
    for (k, &d) in t.iter().enumerate() {
        w.set_sgpr(8 + k as u32, d);
    }
    for (k, &d) in s.iter().enumerate() {
        w.set_sgpr(16 + k as u32, d);
    }
}

fn go(src: &str, img: &Img, t: [u32; 8], s: [u32; 4], lanes: impl FnOnce(&mut Wave)) -> Run {
    let r = run_with(src, &img.ranges(), 0, |w| {
        setup(w, t, s);
        lanes(w);
    });
    assert_eq!(r.result, Ok(Flow::End), "{src}");
    r
}

fn f(x: f32) -> u32 {
    x.to_bits()
}

#[test]
fn load_rgba8_unorm_with_dmask_bounds_and_exec() {
    let mut img = Img::new();
    // 3x2, pitch 4 texels (16 bytes): texel (1, 1) at byte (1 * 4 + 1) * 4 = 20.
    img.bytes()[20..24].copy_from_slice(&[0, 51, 255, 102]);
    img.bytes()[4..8].copy_from_slice(&[255, 255, 255, 255]);
    let t = tsharp(&img, T2D, 3, 2, 1, 4, FMT_8_8_8_8, UNORM, RGBA, 0);
    let r = go("image_load v[0:3], v[4:5], s[8:15] dmask:0xf unorm", &img, t, [0; 4], |w| {
        w.set_exec(0b0111);
        for lane in 0..4 {
            for k in 0..4 {
                w.set_vgpr(k, lane, 0xDEAD);
            }
        }
        // Lane 0 (1, 1); lane 1 (3, 0): x past the width; lane 2 (1, 2): y past; lane 3 off.
        for (lane, (x, y)) in [(1, 1), (3, 0), (1, 2), (1, 1)].into_iter().enumerate() {
            w.set_vgpr(4, lane, x);
            w.set_vgpr(5, lane, y);
        }
    });
    let w = &r.wave;
    // 51/255 = 0.2, 102/255 = 0.4.
    assert_eq!([0, 1, 2, 3].map(|k| w.vgpr(k, 0)), [0, 0x3E4C_CCCD, 0x3F80_0000, 0x3ECC_CCCD]);
    assert_eq!([0, 1, 2, 3].map(|k| w.vgpr(k, 1)), [0; 4]);
    assert_eq!([0, 1, 2, 3].map(|k| w.vgpr(k, 2)), [0; 4]);
    assert_eq!([0, 1, 2, 3].map(|k| w.vgpr(k, 3)), [0xDEAD; 4]);

    // dmask 0x5 (x and z) with BGRA's dst_sel: x reads texel channel z (255), z reads x (0).
    let t = tsharp(&img, T2D, 3, 2, 1, 4, FMT_8_8_8_8, UNORM, BGRA, 0);
    let r = go("image_load v[0:1], v[4:5], s[8:15] dmask:0x5 unorm", &img, t, [0; 4], |w| {
        w.set_vgpr(4, 0, 1);
        w.set_vgpr(5, 0, 1);
        w.set_vgpr(2, 0, 0xDEAD);
    });
    assert_eq!([0, 1, 2].map(|k| r.wave.vgpr(k, 0)), [0x3F80_0000, 0, 0xDEAD]);
}

#[test]
fn load_formats_convert_channels() {
    let mut img = Img::new();
    // R8 SNORM: 0x81 = -127 -> -1.0; 0x80 = -128 -> clamped to -1.0; 0x7F -> 1.0; with R's
    // dst_sel, y and z read 0 and w one.
    img.bytes()[0..3].copy_from_slice(&[0x81, 0x80, 0x7F]);
    let t = tsharp(&img, T1D, 3, 1, 1, 3, FMT_8, SNORM, R, 0);
    let r = go("image_load v[0:3], v4, s[8:15] dmask:0xf unorm", &img, t, [0; 4], |w| {
        for lane in 0..3 {
            w.set_vgpr(4, lane, lane as u32);
        }
    });
    for lane in 0..3 {
        let x = if lane == 2 { 0x3F80_0000 } else { 0xBF80_0000 };
        assert_eq!([0, 1, 2, 3].map(|k| r.wave.vgpr(k, lane)), [x, 0, 0, 0x3F80_0000], "lane {lane}");
    }
    // RGBA16 SINT sign-extends; a missing-alpha R format is covered above.
    img.bytes()[0..8].copy_from_slice(&[0xFF, 0xFF, 0x00, 0x80, 0xFF, 0x7F, 0x05, 0x00]);
    let t = tsharp(&img, T1D, 1, 1, 1, 1, FMT_16_16_16_16, SINT, RGBA, 0);
    let r = go("image_load v[0:3], v4, s[8:15] dmask:0xf unorm", &img, t, [0; 4], |_| {});
    assert_eq!([0, 1, 2, 3].map(|k| r.wave.vgpr(k, 0)), [0xFFFF_FFFF, 0xFFFF_8000, 0x7FFF, 5]);
    // R16 FLOAT widens: 0x3C00 = 1.0, 0xC100 = -2.5.
    img.bytes()[0..4].copy_from_slice(&[0x00, 0x3C, 0x00, 0xC1]);
    let t = tsharp(&img, T1D, 2, 1, 1, 2, FMT_16, FLOAT, R, 0);
    let r = go("image_load v0, v4, s[8:15] dmask:0x1 unorm", &img, t, [0; 4], |w| w.set_vgpr(4, 1, 1));
    assert_eq!([r.wave.vgpr(0, 0), r.wave.vgpr(0, 1)], [0x3F80_0000, 0xC020_0000]);
}

#[test]
fn store_converts_saturates_and_drops_out_of_range() {
    let mut img = Img::new();
    // R16 SINT: 70000 saturates to 0x7FFF, -5 is 0xFFFB, -40000 to 0x8000; lane 3 (x = 3) is
    // out of range and dropped (byte 6 stays 0xEE).
    img.bytes()[6..8].copy_from_slice(&[0xEE, 0xEE]);
    let t = tsharp(&img, T1D, 3, 1, 1, 3, FMT_16, SINT, R, 0);
    let _ = go("image_store v0, v4, s[8:15] dmask:0x1 unorm", &img, t, [0; 4], |w| {
        w.set_exec(0xF);
        for (lane, v) in [70000i32, -5, -40000, 1].into_iter().enumerate() {
            w.set_vgpr(0, lane, v as u32);
            w.set_vgpr(4, lane, lane as u32);
        }
    });
    assert_eq!(&img.bytes()[0..8], &[0xFF, 0x7F, 0xFB, 0xFF, 0x00, 0x80, 0xEE, 0xEE]);

    // RGBA8 UNORM through BGRA's dst_sel: red (0.5 -> 127.5 -> 128, ties to even) goes to byte
    // 2, green (2.0 clamps to 255) to byte 1, blue (-1 clamps to 0) to byte 0, alpha (NaN -> 0)
    // to byte 3. 0.25 * 255 = 63.75 -> 64 is checked through RGBA on the next texel.
    let t = tsharp(&img, T2D, 2, 2, 1, 2, FMT_8_8_8_8, UNORM, BGRA, 0);
    let _ = go("image_store v[0:3], v[4:5], s[8:15] dmask:0xf unorm", &img, t, [0; 4], |w| {
        w.set_exec(1);
        for (k, v) in [0.5f32, 2.0, -1.0, f32::NAN].into_iter().enumerate() {
            w.set_vgpr(k as u32, 0, f(v));
        }
        w.set_vgpr(5, 0, 1); // (0, 1): byte 8.
    });
    assert_eq!(&img.bytes()[8..12], &[0, 255, 128, 0]);
    let t = tsharp(&img, T2D, 2, 2, 1, 2, FMT_8_8_8_8, SNORM, RGBA, 0);
    // SNORM with dmask 0x3: x = -0.5 -> -63.5 -> -64 (0xC0), y = 0.25 -> 31.75 -> 32; z, w
    // (not in dmask) are written as 0.
    img.bytes()[12..16].copy_from_slice(&[9, 9, 9, 9]);
    let _ = go("image_store v[0:1], v[4:5], s[8:15] dmask:0x3 unorm", &img, t, [0; 4], |w| {
        w.set_exec(1);
        w.set_vgpr(0, 0, f(-0.5));
        w.set_vgpr(1, 0, f(0.25));
        w.set_vgpr(4, 0, 1);
        w.set_vgpr(5, 0, 1);
    });
    assert_eq!(&img.bytes()[12..16], &[0xC0, 32, 0, 0]);
}

#[test]
fn arrays_3d_pitch_and_half_floats_round_trip() {
    let mut img = Img::new();
    // 2D array 2x2, 3 slices, pitch 3 texels of RGBA32 UINT (16 bytes): (1, 1, slice 2) at
    // ((2 * 2 + 1) * 3 + 1) * 16 = 256.
    let t = tsharp(&img, T2DA, 2, 2, 3, 3, FMT_32_32_32_32, UINT, RGBA, 0);
    let src = "image_store v[0:3], v[4:6], s[8:15] dmask:0xf unorm da\nimage_load v[8:11], v[4:6], s[8:15] dmask:0xf unorm da";
    let r = go(src, &img, t, [0; 4], |w| {
        w.set_exec(0b11);
        for k in 0..4 {
            w.set_vgpr(k, 0, 0x1111_1111 * (k + 1));
            w.set_vgpr(k, 1, 7);
        }
        w.set_vgpr(4, 0, 1);
        w.set_vgpr(5, 0, 1);
        w.set_vgpr(6, 0, 2);
        w.set_vgpr(6, 1, 3); // slice 3 of 3: out of range.
    });
    let le: Vec<u8> =
        [0x1111_1111u32, 0x2222_2222, 0x3333_3333, 0x4444_4444].iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(&img.bytes()[256..272], &le[..]);
    let b = img.bytes().to_vec();
    assert!(b[..256].iter().chain(&b[272..]).all(|&b| b == 0));
    assert_eq!([8, 9, 10, 11].map(|k| r.wave.vgpr(k, 0)), [0x1111_1111, 0x2222_2222, 0x3333_3333, 0x4444_4444]);
    assert_eq!([8, 9, 10, 11].map(|k| r.wave.vgpr(k, 1)), [0; 4]);

    // 3D R16 FLOAT 2x2x2, pitch 2: (1, 0, 1) at ((1 * 2 + 0) * 2 + 1) * 2 = 10. 1.5 is 0x3E00;
    // 65520 rounds (to nearest even) to infinity, 0x7C00.
    let mut img = Img::new();
    let t = tsharp(&img, T3D, 2, 2, 2, 2, FMT_16, FLOAT, R, 0);
    let _ = go("image_store v0, v[4:6], s[8:15] dmask:0x1 unorm", &img, t, [0; 4], |w| {
        w.set_exec(0b11);
        w.set_vgpr(0, 0, f(1.5));
        w.set_vgpr(0, 1, f(65520.0));
        w.set_vgpr(4, 0, 1);
        w.set_vgpr(6, 0, 1);
    });
    assert_eq!(&img.bytes()[0..2], &[0x00, 0x7C]);
    assert_eq!(&img.bytes()[10..12], &[0x00, 0x3E]);

    // 1D array of R32 UINT, 4 wide (pitch 4), 2 slices: (3, slice 1) at (1 * 4 + 3) * 4 = 28.
    let mut img = Img::new();
    img.bytes()[28..32].copy_from_slice(&0xCAFEu32.to_le_bytes());
    let t = tsharp(&img, T1DA, 4, 1, 2, 4, FMT_32, UINT, R, 0);
    let r = go("image_load v0, v[4:5], s[8:15] dmask:0x1 unorm da", &img, t, [0; 4], |w| {
        w.set_vgpr(4, 0, 3);
        w.set_vgpr(5, 0, 1);
    });
    assert_eq!(r.wave.vgpr(0, 0), 0xCAFE);
}

#[test]
fn load_mip_and_store_mip_at_level_zero_and_past_the_levels() {
    let mut img = Img::new();
    img.bytes()[4..8].copy_from_slice(&9u32.to_le_bytes());
    let t = tsharp(&img, T1D, 2, 1, 1, 2, FMT_32, UINT, R, 0);
    let src = "image_load_mip v0, v[4:5], s[8:15] dmask:0x1 unorm\nimage_store_mip v1, v[4:5], s[8:15] dmask:0x1 unorm";
    let r = go(src, &img, t, [0; 4], |w| {
        w.set_exec(0b11);
        for lane in 0..2 {
            w.set_vgpr(4, lane, 1);
            w.set_vgpr(5, lane, lane as u32); // lane 1: level 1 of a one-level image.
            w.set_vgpr(0, lane, 0xDEAD);
            w.set_vgpr(1, lane, 100 + lane as u32);
        }
    });
    assert_eq!([r.wave.vgpr(0, 0), r.wave.vgpr(0, 1)], [9, 0]);
    assert_eq!(&img.bytes()[4..8], &100u32.to_le_bytes());
    // A level within the view but not 0 faults rather than guess a mip layout.
    let t = tsharp(&img, T1D, 2, 1, 1, 2, FMT_32, UINT, R, 2);
    let r = run_with("image_load_mip v0, v[4:5], s[8:15] dmask:0x1 unorm", &img.ranges(), 0, |w| {
        setup(w, t, [0; 4]);
        w.set_vgpr(5, 0, 1);
    });
    assert!(matches!(r.result, Err(Fault::Unimplemented { name: "image_load_mip", .. })), "{:?}", r.result);
}

/// A 4x1 R32 FLOAT image holding 10, 20, 30, 40, sampled at x (f32 coordinates) per lane, y = 0.5.
fn sample_row(clamp: u32, unnorm: bool, filter: u32, border: u32, xs: &[f32]) -> Vec<u32> {
    let mut img = Img::new();
    for (k, v) in [10.0f32, 20.0, 30.0, 40.0].iter().enumerate() {
        img.bytes()[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
    }
    let t = tsharp(&img, T2D, 4, 1, 1, 4, FMT_32, FLOAT, R, 0);
    let s = ssharp(clamp, unnorm, filter, border);
    let xs = xs.to_vec();
    let r = go("image_sample_lz v[0:3], v[4:5], s[8:15], s[16:19] dmask:0xf", &img, t, s, |w| {
        for (lane, &x) in xs.iter().enumerate() {
            w.set_vgpr(4, lane, f(x));
            w.set_vgpr(5, lane, f(0.5));
        }
    });
    (0..xs.len()).map(|lane| r.wave.vgpr(0, lane)).collect()
}

#[test]
fn sample_nearest_clamp_modes() {
    // Normalized: x * 4, floor. -0.3 -> -1.2 -> -2; 1.1 -> 4.4 -> 4; 1.6 -> 6.4 -> 6;
    // 0.3 -> 1.2 -> 1; -1.1 -> -4.4 -> -5.
    let xs = [-0.3, 1.1, 1.6, 0.3, -1.1];
    // Clamp to edge: 0, 3, 3, 1, 0.
    assert_eq!(sample_row(2, false, 0, 0, &xs), [10.0, 40.0, 40.0, 20.0, 10.0].map(f));
    // Repeat: -2 -> 2, 4 -> 0, 6 -> 2, 1, -5 -> 3.
    assert_eq!(sample_row(0, false, 0, 0, &xs), [30.0, 10.0, 30.0, 20.0, 40.0].map(f));
    // Mirrored repeat (period 8: 0 1 2 3 3 2 1 0): -2 -> 6 -> 1, 4 -> 3, 6 -> 1, 1, -5 -> 3.
    assert_eq!(sample_row(1, false, 0, 0, &xs), [20.0, 40.0, 20.0, 20.0, 40.0].map(f));
    // Clamp to border, transparent black: out of range reads 0.0 in x...
    assert_eq!(sample_row(6, false, 0, 0, &xs), [0.0, 0.0, 0.0, 20.0, 0.0].map(f));
    // Unnormalized coordinates: 2.9 -> 2, 0.0 -> 0, 3.99 -> 3.
    assert_eq!(sample_row(2, true, 0, 0, &[2.9, 0.0, 3.99]), [30.0, 10.0, 40.0].map(f));
}

#[test]
fn sample_border_goes_through_dst_sel_and_linear_filters() {
    let mut img = Img::new();
    let t = tsharp(&img, T2D, 4, 1, 1, 4, FMT_32, FLOAT, R, 0);
    // An R image's border (transparent black) reads (0, 0, 0, 1): dst_sel w is SEL_1.
    img.bytes()[0..4].copy_from_slice(&5.0f32.to_le_bytes());
    let r = go("image_sample_lz v[0:3], v[4:5], s[8:15], s[16:19] dmask:0xf", &img, t, ssharp(6, false, 0, 0), |w| {
        w.set_vgpr(4, 0, f(2.0));
        w.set_vgpr(5, 0, f(0.5));
        w.set_vgpr(4, 1, f(0.1));
        w.set_vgpr(5, 1, f(0.5));
    });
    assert_eq!([0, 1, 2, 3].map(|k| r.wave.vgpr(k, 0)), [0, 0, 0, 0x3F80_0000]);
    assert_eq!([0, 1, 2, 3].map(|k| r.wave.vgpr(k, 1)), [f(5.0), 0, 0, 0x3F80_0000]);

    // Bilinear, clamp to edge, texel centres at 0.125, 0.375, ...: x = 0.25 -> 1.0 - 0.5 =
    // 0.5 -> halfway between 10 and 20 = 15; x = 0.0 -> -0.5 -> texels -1 (clamped to 0) and 0
    // -> 10; x = 0.4375 -> 1.25 -> 20 + 0.25 * 10 = 22.5. y = 0.5 on one row: both rows clamp
    // to row 0.
    assert_eq!(sample_row(2, false, 1, 0, &[0.25, 0.0, 0.4375]), [15.0, 10.0, 22.5].map(f));
    // Bilinear with border: x = 0.0 -> half texel 0 (10), half the border (0) = 5; y = 0.5 on
    // one row -> 0.0: all of row 0, none of row 1 (the border).
    assert_eq!(sample_row(6, false, 1, 0, &[0.0]), [f(5.0)]);
}

#[test]
fn sample_l_ignores_lod_on_a_one_level_image_and_arrays_round_the_slice() {
    let mut img = Img::new();
    // 1x1 2D array of R32 UINT, 3 slices (pitch 1): slice k at 4k holds k + 1.
    for k in 0..3u32 {
        img.bytes()[4 * k as usize..4 * k as usize + 4].copy_from_slice(&(k + 1).to_le_bytes());
    }
    let t = tsharp(&img, T2DA, 1, 1, 3, 1, FMT_32, UINT, R, 0);
    let r = go("image_sample_l v0, v[4:7], s[8:15], s[16:19] dmask:0x1 da", &img, t, ssharp(2, false, 0, 0), |w| {
        // Slices 0.5 -> 0 (ties to even), 1.5 -> 2, 7.0 -> clamped to 2, -3 -> 0; LOD 3.
        for (lane, sl) in [0.5f32, 1.5, 7.0, -3.0].into_iter().enumerate() {
            w.set_vgpr(4, lane, f(0.5));
            w.set_vgpr(5, lane, f(0.5));
            w.set_vgpr(6, lane, f(sl));
            w.set_vgpr(7, lane, f(3.0));
        }
    });
    assert_eq!((0..4).map(|l| r.wave.vgpr(0, l)).collect::<Vec<_>>(), [1, 3, 3, 1]);
}

#[test]
fn resinfo_reports_sizes_and_levels() {
    let img = Img::new();
    let t = tsharp(&img, T2DA, 40, 30, 6, 64, FMT_8, UNORM, R, 2);
    let r = go("image_get_resinfo v[0:3], v4, s[8:15] dmask:0xf", &img, t, [0; 4], |w| {
        w.set_vgpr(4, 1, 1);
        w.set_vgpr(4, 2, 3);
    });
    assert_eq!([0, 1, 2, 3].map(|k| r.wave.vgpr(k, 0)), [40, 30, 6, 3]);
    assert_eq!([0, 1, 2, 3].map(|k| r.wave.vgpr(k, 1)), [20, 15, 6, 3]);
    assert_eq!([0, 1, 2, 3].map(|k| r.wave.vgpr(k, 2)), [0, 0, 0, 3]);
    // 3D: depth halves with the level; dmask 0x9 picks width and levels.
    let t = tsharp(&img, T3D, 8, 4, 4, 8, FMT_8, UNORM, R, 1);
    let r = go("image_get_resinfo v[0:1], v4, s[8:15] dmask:0x9", &img, t, [0; 4], |w| w.set_vgpr(4, 0, 0));
    assert_eq!([r.wave.vgpr(0, 0), r.wave.vgpr(1, 0)], [8, 2]);
}

#[test]
fn what_is_not_implemented_faults_and_exec_off_does_nothing() {
    let img = Img::new();
    let bad = |src: &str, t: [u32; 8], name: &str| {
        let r = run_with(src, &img.ranges(), 0, |w| setup(w, t, ssharp(2, false, 0, 0)));
        match r.result {
            Err(Fault::Unimplemented { name: n, .. }) => assert_eq!(n, name),
            other => panic!("{src}: {other:?}"),
        }
    };
    let t = tsharp(&img, T1D, 4, 1, 1, 4, FMT_32, UINT, R, 0);
    bad("image_load v0, v4, s[8:15] dmask:0x1 unorm d16", t, "image_load");
    bad("image_atomic_add v0, v4, s[8:15] dmask:0x1 unorm glc", t, "image_atomic_add");
    // 5_6_5 (16) is not converted.
    bad("image_load v0, v4, s[8:15] dmask:0x1 unorm", tsharp(&img, T1D, 4, 1, 1, 4, 16, UNORM, R, 0), "image_load");
    // A buffer resource (type 0) through MIMG.
    bad("image_load v0, v4, s[8:15] dmask:0x1 unorm", tsharp(&img, 0, 4, 1, 1, 4, FMT_32, UINT, R, 0), "image_load");
    // Linear filtering of an integer image.
    let r = run_with("image_sample_lz v0, v[4:5], s[8:15], s[16:19] dmask:0x1", &img.ranges(), 0, |w| {
        setup(w, t, ssharp(2, false, 1, 0));
    });
    assert!(matches!(r.result, Err(Fault::Unimplemented { .. })), "{:?}", r.result);
    // No lane on: nothing is read, not even a bad descriptor.
    let r = run_with("image_load v0, v4, s[8:15] dmask:0x1 unorm", &Ranges::default(), 0, |w| {
        setup(w, [0; 8], [0; 4]);
        w.set_exec(0);
    });
    assert_eq!(r.result, Ok(Flow::End));
    // An image outside GPU memory faults as a memory access.
    let r = run_with("image_load v0, v4, s[8:15] dmask:0x1 unorm", &Ranges::default(), 0, |w| setup(w, t, [0; 4]));
    assert!(matches!(r.result, Err(Fault::Memory { .. })), "{:?}", r.result);
    let _ = (FMT_16_16_16_16, SINT, UINT);
}
