//! f32 arithmetic, rounding and transcendentals.

use super::{ieee, med3_pick, minmax, res, Dn, MinMax};
use crate::valu::{Args, Res};

const QUIET: u32 = 0x0040_0000;

pub(crate) fn flush(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

pub(crate) fn is_snan(x: f32) -> bool {
    x.is_nan() && x.to_bits() & QUIET == 0
}

pub(crate) fn quiet(x: f32) -> f32 {
    if x.is_nan() {
        f32::from_bits(x.to_bits() | QUIET)
    } else {
        x
    }
}

/// Source `i`, its denormal flushed when MODE says so.
pub(crate) fn arg(a: &Args, i: usize) -> f32 {
    let x = f32::from_bits(a.s[i] as u32);
    if Dn::F32.flush_in(a.mode) {
        flush(x)
    } else {
        x
    }
}

/// Source `i` with its denormal always flushed (v_mad_f32, v_mac_f32 and the transcendentals do
/// not handle denormals on gfx9, whatever MODE says).
fn arg_ftz(a: &Args, i: usize) -> f32 {
    flush(f32::from_bits(a.s[i] as u32))
}

pub(crate) fn out(a: &Args, x: f32) -> Res {
    let x = if Dn::F32.flush_out(a.mode) { flush(x) } else { x };
    res(u64::from(x.to_bits()))
}

fn out_ftz(x: f32) -> Res {
    res(u64::from(flush(x).to_bits()))
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

/// DX9 rules: zero times anything, infinity and NaN included, is +0.
fn legacy_product(x: f32, y: f32) -> f32 {
    if x == 0.0 || y == 0.0 {
        0.0
    } else {
        x * y
    }
}

pub(crate) fn mul_legacy(a: &Args) -> Res {
    out(a, legacy_product(arg(a, 0), arg(a, 1)))
}

/// v_mad_f32 (and v_madmk/v_madak): multiply, round, add, round; denormals always flushed.
pub(crate) fn mad(a: &Args) -> Res {
    let p = flush(arg_ftz(a, 0) * arg_ftz(a, 1));
    out_ftz(p + arg_ftz(a, 2))
}

/// v_mac_f32: v_mad_f32 into the destination.
pub(crate) fn mac(a: &Args) -> Res {
    let p = flush(arg_ftz(a, 0) * arg_ftz(a, 1));
    out_ftz(p + flush(f32::from_bits(a.old as u32)))
}

pub(crate) fn mad_legacy(a: &Args) -> Res {
    let p = flush(legacy_product(arg_ftz(a, 0), arg_ftz(a, 1)));
    out_ftz(p + arg_ftz(a, 2))
}

pub(crate) fn fma(a: &Args) -> Res {
    out(a, arg(a, 0).mul_add(arg(a, 1), arg(a, 2)))
}

/// v_fmac_f32: a fused multiply-add into the destination.
pub(crate) fn fmac(a: &Args) -> Res {
    let d = f32::from_bits(a.old as u32);
    let d = if Dn::F32.flush_in(a.mode) { flush(d) } else { d };
    out(a, arg(a, 0).mul_add(arg(a, 1), d))
}

pub(crate) fn min2(a: &Args, x: f32, y: f32, max: bool) -> f32 {
    match minmax(f64::from(x), f64::from(y), is_snan(x), is_snan(y), ieee(a), max) {
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
pub(crate) fn min3(a: &Args) -> Res {
    out(a, min2(a, min2(a, arg(a, 0), arg(a, 1), false), arg(a, 2), false))
}
pub(crate) fn max3(a: &Args) -> Res {
    out(a, min2(a, min2(a, arg(a, 0), arg(a, 1), true), arg(a, 2), true))
}
pub(crate) fn med3(a: &Args) -> Res {
    let v = [arg(a, 0), arg(a, 1), arg(a, 2)];
    if v.iter().any(|x| x.is_nan()) {
        return min3(a);
    }
    out(a, v[med3_pick(v.map(f64::from))])
}

/// x · 2^n, rounded once (the f64 product of an f32 and a power of two in range is exact).
pub(crate) fn ldexp32(x: f32, n: i32) -> f32 {
    if x.is_nan() || x.is_infinite() || x == 0.0 {
        return x;
    }
    let n = n.clamp(-400, 400);
    (f64::from(x) * 2f64.powi(n)) as f32
}

pub(crate) fn ldexp(a: &Args) -> Res {
    out(a, ldexp32(arg(a, 0), a.s[1] as u32 as i32))
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

/// x − floor(x), kept below 1.0 (fract of a tiny negative would round to 1.0); infinities and
/// NaN give NaN.
pub(crate) fn fract(a: &Args) -> Res {
    let x = arg(a, 0);
    if !x.is_finite() {
        return out(a, if x.is_nan() { quiet(x) } else { f32::NAN });
    }
    out(a, (x - x.floor()).min(f32::from_bits(0x3F7F_FFFF)))
}

/// The exponent frexp gives (x = m · 2^e, 0.5 ≤ |m| < 1); 0 for zero, infinity and NaN.
pub(crate) fn frexp32(x: f32) -> (f32, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let (y, bias) = if x.is_subnormal() { (x * 2f32.powi(32), 32) } else { (x, 0) };
    let e = ((y.to_bits() >> 23) & 0xFF) as i32 - 126;
    let m = f32::from_bits((y.to_bits() & 0x807F_FFFF) | (126 << 23));
    (m, e - bias)
}

pub(crate) fn frexp_mant(a: &Args) -> Res {
    out(a, frexp32(arg(a, 0)).0)
}
pub(crate) fn frexp_exp(a: &Args) -> Res {
    res(u64::from(frexp32(arg(a, 0)).1 as u32))
}

/// The transcendentals flush denormal inputs and results (see the module comment on accuracy).
fn unary_ftz(a: &Args, f: impl Fn(f32) -> f32) -> Res {
    out_ftz(f(arg_ftz(a, 0)))
}

pub(crate) fn exp(a: &Args) -> Res {
    unary_ftz(a, |x| (f64::from(x).exp2()) as f32)
}
pub(crate) fn log(a: &Args) -> Res {
    unary_ftz(a, |x| f64::from(x).log2() as f32)
}
pub(crate) fn rcp(a: &Args) -> Res {
    unary_ftz(a, |x| 1.0 / x)
}
pub(crate) fn rsq(a: &Args) -> Res {
    unary_ftz(a, |x| (1.0 / f64::from(x).sqrt()) as f32)
}
pub(crate) fn sqrt(a: &Args) -> Res {
    unary_ftz(a, f32::sqrt)
}

/// sin(x · 2π): the argument is in revolutions; its whole turns are dropped first (exactly) so
/// that large arguments keep their precision.
pub(crate) fn sin_rev(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    (x - x.round()) * std::f64::consts::TAU
}

pub(crate) fn sin(a: &Args) -> Res {
    unary_ftz(a, |x| sin_rev(f64::from(x)).sin() as f32)
}
pub(crate) fn cos(a: &Args) -> Res {
    unary_ftz(a, |x| sin_rev(f64::from(x)).cos() as f32)
}
