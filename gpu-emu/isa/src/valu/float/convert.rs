//! Conversions between f16, f32, f64 and integers, and the packing conversions.

use half::f16 as H;

use super::{f16, f32 as s, f64 as d, res};
use crate::valu::{Args, Res};

/// A float to an integer in [lo, hi]: toward zero after `round`, NaN to 0, out-of-range values
/// (infinities included) clamped.
fn to_int(x: f64, lo: f64, hi: f64) -> i64 {
    if x.is_nan() {
        0
    } else {
        x.trunc().clamp(lo, hi) as i64
    }
}

const I32: (f64, f64) = (i32::MIN as f64, i32::MAX as f64);
const U32: (f64, f64) = (0.0, u32::MAX as f64);

fn r32(v: i64) -> Res {
    res(u64::from(v as u32))
}
fn r16(v: i64) -> Res {
    res(u64::from(v as u16))
}

pub(crate) fn i32_f32(a: &Args) -> Res {
    r32(to_int(f64::from(s::arg(a, 0)), I32.0, I32.1))
}
pub(crate) fn u32_f32(a: &Args) -> Res {
    r32(to_int(f64::from(s::arg(a, 0)), U32.0, U32.1))
}
/// Round half up: floor(x + 0.5), exact in f64.
pub(crate) fn rpi_i32_f32(a: &Args) -> Res {
    r32(to_int((f64::from(s::arg(a, 0)) + 0.5).floor(), I32.0, I32.1))
}
pub(crate) fn flr_i32_f32(a: &Args) -> Res {
    r32(to_int(f64::from(s::arg(a, 0)).floor(), I32.0, I32.1))
}
pub(crate) fn i32_f64(a: &Args) -> Res {
    r32(to_int(d::arg(a, 0), I32.0, I32.1))
}
pub(crate) fn u32_f64(a: &Args) -> Res {
    r32(to_int(d::arg(a, 0), U32.0, U32.1))
}

pub(crate) fn f32_i32(a: &Args) -> Res {
    s::out(a, a.s[0] as u32 as i32 as f32)
}
pub(crate) fn f32_u32(a: &Args) -> Res {
    s::out(a, a.s[0] as u32 as f32)
}
pub(crate) fn f64_i32(a: &Args) -> Res {
    d::out(a, f64::from(a.s[0] as u32 as i32))
}
pub(crate) fn f64_u32(a: &Args) -> Res {
    d::out(a, f64::from(a.s[0] as u32))
}
pub(crate) fn f32_ubyte<const N: u32>(a: &Args) -> Res {
    s::out(a, f32::from((a.s[0] >> (8 * N)) as u8))
}
/// S0[3:0] as a signed 4-bit integer, divided by 16.
pub(crate) fn off_f32_i4(a: &Args) -> Res {
    let n = ((a.s[0] as u8) << 4) as i8 >> 4;
    s::out(a, f32::from(n) / 16.0)
}

pub(crate) fn f16_f32(a: &Args) -> Res {
    f16::out(a, s::arg(a, 0))
}
pub(crate) fn f32_f16(a: &Args) -> Res {
    s::out(a, f16::arg(a, 0))
}
pub(crate) fn f32_f64(a: &Args) -> Res {
    s::out(a, d::arg(a, 0) as f32)
}
pub(crate) fn f64_f32(a: &Args) -> Res {
    d::out(a, f64::from(s::arg(a, 0)))
}

pub(crate) fn f16_u16(a: &Args) -> Res {
    f16::out(a, f32::from(a.s[0] as u16))
}
pub(crate) fn f16_i16(a: &Args) -> Res {
    f16::out(a, f32::from(a.s[0] as u16 as i16))
}
pub(crate) fn u16_f16(a: &Args) -> Res {
    r16(to_int(f64::from(f16::arg(a, 0)), 0.0, 65535.0))
}
pub(crate) fn i16_f16(a: &Args) -> Res {
    r16(to_int(f64::from(f16::arg(a, 0)), -32768.0, 32767.0))
}

/// A float in [-1, 1] (or [0, 1]) to a normalized integer, rounded to nearest even.
fn norm(x: f64, signed: bool) -> u16 {
    if x.is_nan() {
        return 0;
    }
    if signed {
        (x.clamp(-1.0, 1.0) * 32767.0).round_ties_even() as i16 as u16
    } else {
        (x.clamp(0.0, 1.0) * 65535.0).round_ties_even() as u16
    }
}

pub(crate) fn norm_i16_f16(a: &Args) -> Res {
    res(u64::from(norm(f64::from(f16::arg(a, 0)), true)))
}
pub(crate) fn norm_u16_f16(a: &Args) -> Res {
    res(u64::from(norm(f64::from(f16::arg(a, 0)), false)))
}

fn pack(lo: u16, hi: u16) -> Res {
    res(u64::from(lo) | u64::from(hi) << 16)
}

pub(crate) fn pknorm_i16_f32(a: &Args) -> Res {
    pack(norm(f64::from(s::arg(a, 0)), true), norm(f64::from(s::arg(a, 1)), true))
}
pub(crate) fn pknorm_u16_f32(a: &Args) -> Res {
    pack(norm(f64::from(s::arg(a, 0)), false), norm(f64::from(s::arg(a, 1)), false))
}
pub(crate) fn pknorm_i16_f16(a: &Args) -> Res {
    pack(norm(f64::from(f16::arg(a, 0)), true), norm(f64::from(f16::arg(a, 1)), true))
}
pub(crate) fn pknorm_u16_f16(a: &Args) -> Res {
    pack(norm(f64::from(f16::arg(a, 0)), false), norm(f64::from(f16::arg(a, 1)), false))
}

/// f32 to f16 rounded toward zero: a finite value too large for f16 gives ±65504, not ±inf.
pub(crate) fn rtz_f16(mode: u32, x: f32) -> u16 {
    let b = H::from_f32(x).to_bits();
    let r = H::from_bits(b).to_f32();
    let b = if x.is_finite() && r.abs() > x.abs() { b - 1 } else { b };
    if super::Dn::F64F16.flush_out(mode) {
        f16::flush_bits(b)
    } else {
        b
    }
}

pub(crate) fn pkrtz_f16_f32(a: &Args) -> Res {
    pack(rtz_f16(a.mode, s::arg(a, 0)), rtz_f16(a.mode, s::arg(a, 1)))
}

pub(crate) fn pack_b32_f16(a: &Args) -> Res {
    pack(a.s[0] as u16, a.s[1] as u16)
}

/// A float to an unsigned byte: rounded to nearest even, clamped, NaN to 0.
fn u8_of(x: f32) -> u64 {
    if x.is_nan() {
        0
    } else {
        u64::from(x.clamp(0.0, 255.0).round_ties_even() as u8)
    }
}

fn put_byte(into: u64, byte_sel: u64, v: u64) -> Res {
    let sh = 8 * (byte_sel & 3);
    res((into & !(0xFF << sh) | v << sh) & 0xFFFF_FFFF)
}

/// v_cvt_pk_u8_f32: S2 with byte S1[1:0] replaced by S0 as an unsigned byte.
pub(crate) fn pk_u8_f32(a: &Args) -> Res {
    put_byte(a.s[2], a.s[1], u8_of(s::arg(a, 0)))
}
/// v_cvt_pkaccum_u8_f32: the destination with byte S1[1:0] replaced.
pub(crate) fn pkaccum_u8_f32(a: &Args) -> Res {
    put_byte(a.old, a.s[1], u8_of(s::arg(a, 0)))
}
