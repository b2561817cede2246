//! f16 arithmetic, rounding and transcendentals. Values are widened exactly to f32 (or f64 for
//! fused operations) and each result is rounded once to f16: f32 has more than twice f16's
//! precision, so add, sub, mul and sqrt round as a native f16 unit would. The fused
//! multiply-add is computed in f64 and then rounded to f16, which can differ from a single
//! rounding in rare halfway cases.

use half::f16 as H;

use super::{ieee, med3_pick, minmax, res, Dn, MinMax};
use crate::valu::{Args, Res};

const QUIET: u16 = 0x0200;

fn bits(a: &Args, i: usize) -> u16 {
    a.s[i] as u16
}

pub(crate) fn flush_bits(b: u16) -> u16 {
    if b & 0x7C00 == 0 {
        b & 0x8000
    } else {
        b
    }
}

pub(crate) fn is_snan(b: u16) -> bool {
    b & 0x7C00 == 0x7C00 && b & 0x03FF != 0 && b & QUIET == 0
}

/// The f16 bits of source `i`, its denormal flushed when MODE says so.
pub(crate) fn arg_bits(a: &Args, i: usize) -> u16 {
    let b = bits(a, i);
    if Dn::F64F16.flush_in(a.mode) {
        flush_bits(b)
    } else {
        b
    }
}

pub(crate) fn arg(a: &Args, i: usize) -> f32 {
    H::from_bits(arg_bits(a, i)).to_f32()
}

/// Rounds to f16 (nearest even) and flushes a denormal result when MODE says so.
pub(crate) fn to_bits(mode: u32, x: f32) -> u16 {
    let b = H::from_f32(x).to_bits();
    if Dn::F64F16.flush_out(mode) {
        flush_bits(b)
    } else {
        b
    }
}

pub(crate) fn out(a: &Args, x: f32) -> Res {
    res(u64::from(to_bits(a.mode, x)))
}

fn out64(a: &Args, x: f64) -> Res {
    let b = H::from_f64(x).to_bits();
    let b = if Dn::F64F16.flush_out(a.mode) { flush_bits(b) } else { b };
    res(u64::from(b))
}

pub(crate) fn add(a: &Args) -> Res {
    out(a, arg(a, 0) + arg(a, 1))
}
pub(crate) fn sub(a: &Args) -> Res {
    out(a, arg(a, 0) - arg(a, 1))
}
pub(crate) fn subrev(a: &Args) -> Res {
    out(a, arg(a, 1) - arg(a, 0))
}
pub(crate) fn mul(a: &Args) -> Res {
    out(a, arg(a, 0) * arg(a, 1))
}

fn ftz(b: u16) -> f32 {
    H::from_bits(flush_bits(b)).to_f32()
}
fn out_ftz(x: f32) -> Res {
    res(u64::from(flush_bits(H::from_f32(x).to_bits())))
}

/// v_mad_f16 (and v_madmk/v_madak_f16): unfused, denormals flushed as for v_mad_f32.
pub(crate) fn mad(a: &Args) -> Res {
    let p = ftz(H::from_f32(ftz(bits(a, 0)) * ftz(bits(a, 1))).to_bits());
    out_ftz(p + ftz(bits(a, 2)))
}
pub(crate) fn mac(a: &Args) -> Res {
    let p = ftz(H::from_f32(ftz(bits(a, 0)) * ftz(bits(a, 1))).to_bits());
    out_ftz(p + ftz(a.old as u16))
}
pub(crate) fn fma(a: &Args) -> Res {
    let w = |i| f64::from(arg(a, i));
    out64(a, w(0).mul_add(w(1), w(2)))
}

pub(crate) fn min2(a: &Args, x: u16, y: u16, max: bool) -> u16 {
    let w = |b: u16| H::from_bits(b).to_f64();
    match minmax(w(x), w(y), is_snan(x), is_snan(y), ieee(a), max) {
        MinMax::X => x,
        MinMax::Y => y,
        MinMax::QuietX => x | QUIET,
        MinMax::QuietY => y | QUIET,
    }
}

fn out_bits(a: &Args, b: u16) -> Res {
    let b = if Dn::F64F16.flush_out(a.mode) { flush_bits(b) } else { b };
    res(u64::from(b))
}

pub(crate) fn min(a: &Args) -> Res {
    out_bits(a, min2(a, arg_bits(a, 0), arg_bits(a, 1), false))
}
pub(crate) fn max(a: &Args) -> Res {
    out_bits(a, min2(a, arg_bits(a, 0), arg_bits(a, 1), true))
}
pub(crate) fn min3(a: &Args) -> Res {
    let m = min2(a, arg_bits(a, 0), arg_bits(a, 1), false);
    out_bits(a, min2(a, m, arg_bits(a, 2), false))
}
pub(crate) fn max3(a: &Args) -> Res {
    let m = min2(a, arg_bits(a, 0), arg_bits(a, 1), true);
    out_bits(a, min2(a, m, arg_bits(a, 2), true))
}
pub(crate) fn med3(a: &Args) -> Res {
    let v = [arg_bits(a, 0), arg_bits(a, 1), arg_bits(a, 2)];
    let f = v.map(|b| H::from_bits(b).to_f64());
    if f.iter().any(|x| x.is_nan()) {
        return min3(a);
    }
    out_bits(a, v[med3_pick(f)])
}

/// S0 · 2^S1, S1 a signed 16-bit integer.
pub(crate) fn ldexp(a: &Args) -> Res {
    let x = arg(a, 0);
    let n = i32::from(a.s[1] as u16 as i16);
    if !x.is_finite() || x == 0.0 {
        return out(a, x);
    }
    out64(a, f64::from(x) * 2f64.powi(n.clamp(-100, 100)))
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
        return out(a, if x.is_nan() { x } else { f32::NAN });
    }
    // The largest f16 below 1.0 bounds the result, as for f32.
    out(a, (x - x.floor()).min(H::from_bits(0x3BFF).to_f32()))
}
pub(crate) fn frexp_mant(a: &Args) -> Res {
    out(a, super::f32::frexp32(arg(a, 0)).0)
}
pub(crate) fn frexp_exp(a: &Args) -> Res {
    res(u64::from(super::f32::frexp32(arg(a, 0)).1 as i16 as u16))
}

pub(crate) fn rcp(a: &Args) -> Res {
    out64(a, 1.0 / f64::from(arg(a, 0)))
}
pub(crate) fn sqrt(a: &Args) -> Res {
    out(a, arg(a, 0).sqrt())
}
pub(crate) fn rsq(a: &Args) -> Res {
    out64(a, 1.0 / f64::from(arg(a, 0)).sqrt())
}
pub(crate) fn log(a: &Args) -> Res {
    out64(a, f64::from(arg(a, 0)).log2())
}
pub(crate) fn exp(a: &Args) -> Res {
    out64(a, f64::from(arg(a, 0)).exp2())
}
pub(crate) fn sin(a: &Args) -> Res {
    out64(a, super::f32::sin_rev(f64::from(arg(a, 0))).sin())
}
pub(crate) fn cos(a: &Args) -> Res {
    out64(a, super::f32::sin_rev(f64::from(arg(a, 0))).cos())
}
