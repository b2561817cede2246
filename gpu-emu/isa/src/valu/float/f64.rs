//! f64 arithmetic, rounding and the operations of the f64 transcendental sequences.

use super::{ieee, minmax, res, Dn, MinMax};
use crate::valu::{Args, Res};

const QUIET: u64 = 1 << 51;

pub(crate) fn flush(x: f64) -> f64 {
    if x.is_subnormal() {
        f64::from_bits(x.to_bits() & (1 << 63))
    } else {
        x
    }
}

pub(crate) fn is_snan(x: f64) -> bool {
    x.is_nan() && x.to_bits() & QUIET == 0
}

pub(crate) fn quiet(x: f64) -> f64 {
    if x.is_nan() {
        f64::from_bits(x.to_bits() | QUIET)
    } else {
        x
    }
}

pub(crate) fn arg(a: &Args, i: usize) -> f64 {
    let x = f64::from_bits(a.s[i]);
    if Dn::F64F16.flush_in(a.mode) {
        flush(x)
    } else {
        x
    }
}

pub(crate) fn out(a: &Args, x: f64) -> Res {
    let x = if Dn::F64F16.flush_out(a.mode) { flush(x) } else { x };
    res(x.to_bits())
}

pub(crate) fn add(a: &Args) -> Res {
    out(a, arg(a, 0) + arg(a, 1))
}
pub(crate) fn mul(a: &Args) -> Res {
    out(a, arg(a, 0) * arg(a, 1))
}
pub(crate) fn fma(a: &Args) -> Res {
    out(a, arg(a, 0).mul_add(arg(a, 1), arg(a, 2)))
}

fn min2(a: &Args, x: f64, y: f64, max: bool) -> f64 {
    match minmax(x, y, is_snan(x), is_snan(y), ieee(a), max) {
        MinMax::X => x,
        MinMax::Y => y,
        MinMax::QuietX => quiet(x),
        MinMax::QuietY => quiet(y),
    }
}
pub(crate) fn min(a: &Args) -> Res {
    out(a, min2(a, arg(a, 0), arg(a, 1), false))
}
pub(crate) fn max(a: &Args) -> Res {
    out(a, min2(a, arg(a, 0), arg(a, 1), true))
}

/// x · 2^n with one rounding: large scalings are split so that only the last multiply can
/// round (into the denormal range), as a careful scalbn does.
pub(crate) fn ldexp64(x: f64, n: i32) -> f64 {
    if x.is_nan() || x.is_infinite() || x == 0.0 {
        return x;
    }
    let p = |e: i32| f64::from_bits(((e + 1023) as u64) << 52);
    let mut y = x;
    let mut n = n.clamp(-2200, 2200);
    if n > 1023 {
        y *= p(1023);
        n -= 1023;
        if n > 1023 {
            y *= p(1023);
            n = (n - 1023).min(1023);
        }
    } else if n < -1022 {
        // Down to just above the denormal range first (exact), then one rounding step.
        y *= p(-1022 + 53);
        n += 1022 - 53;
        if n < -1022 {
            y *= p(-1022 + 53);
            n = (n + 1022 - 53).max(-1022);
        }
    }
    y * p(n)
}

pub(crate) fn ldexp(a: &Args) -> Res {
    out(a, ldexp64(arg(a, 0), a.s[1] as u32 as i32))
}

pub(crate) fn trunc(a: &Args) -> Res {
    out(a, arg(a, 0).trunc())
}
pub(crate) fn ceil(a: &Args) -> Res {
    out(a, arg(a, 0).ceil())
}
pub(crate) fn floor(a: &Args) -> Res {
    out(a, arg(a, 0).floor())
}
pub(crate) fn rndne(a: &Args) -> Res {
    out(a, arg(a, 0).round_ties_even())
}
pub(crate) fn fract(a: &Args) -> Res {
    let x = arg(a, 0);
    if !x.is_finite() {
        return out(a, if x.is_nan() { quiet(x) } else { f64::NAN });
    }
    out(a, (x - x.floor()).min(f64::from_bits(0x3FEF_FFFF_FFFF_FFFF)))
}

pub(crate) fn frexp64(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let (y, bias) = if x.is_subnormal() { (x * 2f64.powi(64), 64) } else { (x, 0) };
    let e = ((y.to_bits() >> 52) & 0x7FF) as i32 - 1022;
    let m = f64::from_bits((y.to_bits() & 0x800F_FFFF_FFFF_FFFF) | (1022 << 52));
    (m, e - bias)
}
pub(crate) fn frexp_mant(a: &Args) -> Res {
    out(a, frexp64(arg(a, 0)).0)
}
pub(crate) fn frexp_exp(a: &Args) -> Res {
    res(u64::from(frexp64(arg(a, 0)).1 as u32))
}

pub(crate) fn rcp(a: &Args) -> Res {
    out(a, 1.0 / arg(a, 0))
}
pub(crate) fn sqrt(a: &Args) -> Res {
    out(a, arg(a, 0).sqrt())
}
pub(crate) fn rsq(a: &Args) -> Res {
    out(a, 1.0 / arg(a, 0).sqrt())
}

/// The fraction bits of 2/π, most significant first (1201 bits, then zeros).
const TWO_OVER_PI: [u64; 19] = [
    0xA2F9_836E_4E44_1529,
    0xFC27_57D1_F534_DDC0,
    0xDB62_9599_3C43_9041,
    0xFE51_63AB_DEBB_C561,
    0xB724_6E3A_424D_D2E0,
    0x0649_2EEA_09D1_921C,
    0xFE1D_EB1C_B129_A73E,
    0xE882_35F5_2EBB_4484,
    0xE99C_7026_B45F_7E41,
    0x3991_D639_8353_39F4,
    0x9C84_5F8B_BDF9_283B,
    0x1FF8_97FF_DE05_980F,
    0xEF2F_118B_5A0A_6D1F,
    0x6D36_7ECF_27CB_09B7,
    0x4F46_3F66_9E5F_EA2D,
    0x7527_BAC7_EBE5_F17B,
    0x3D07_39F7_8A52_92EA,
    0x6BFB_5FB1_1F8D_5D08,
    0x5603_3046_FC7B_0000,
];

/// 53 bits of 2/π starting `shift` bits below its point, as an integer.
fn two_over_pi_bits(shift: u32) -> u64 {
    let word = |i: usize| TWO_OVER_PI.get(i).copied().unwrap_or(0);
    let i = (shift / 64) as usize;
    let window = u128::from(word(i)) << 64 | u128::from(word(i + 1));
    let window = window << (shift % 64);
    (window >> (128 - 53)) as u64
}

/// v_trig_preop_f64: the 53-bit slice S1[4:0] of 2/π (moved further along for large S0, so that
/// S0 times it keeps the bits that matter for argument reduction), scaled to its place.
pub(crate) fn trig_preop(a: &Args) -> Res {
    let x = arg(a, 0);
    let exp = ((x.to_bits() >> 52) & 0x7FF) as i32;
    let mut shift = (a.s[1] as u32 & 31) as i32 * 53;
    if exp > 1077 {
        shift += exp - 1077;
    }
    let bits = two_over_pi_bits(shift as u32);
    let mut scale = -53 - shift;
    if exp >= 1968 {
        scale += 128;
    }
    out(a, ldexp64(bits as f64, scale))
}
