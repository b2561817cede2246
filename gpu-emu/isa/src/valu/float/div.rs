//! The division helpers the compiler's correctly rounded division is built from:
//! v_div_scale (scales numerator or denominator so the Newton-Raphson steps between stay clear
//! of denormals and overflow, and sets a flag), v_div_fmas (the last fused step, undoing the
//! scale when the flag is set) and v_div_fixup (the special cases: zeros, infinities, NaN,
//! overflow and underflow). Their rules are those of AMD's ISA references' pseudo-code.

use half::f16 as H;

use super::{f16, f32 as s, f64 as d, res};
use crate::valu::{Args, Res};

/// Type parameters of v_div_scale: the exponent gap that means "near overflow", the scale and the
/// exponent under which a numerator is tiny; the smallest normal.
struct Scale {
    gap: i32,
    by: i32,
    tiny: i32,
    min_normal: f64,
}

/// v_div_scale on values widened to f64 (exact), `exp` being the biased exponent field. Returns
/// the result (as f64, exact for the type) and the flag.
fn scale(
    q: f64,
    den: f64,
    num: f64,
    exp: impl Fn(f64) -> i32,
    ldexp: impl Fn(f64, i32) -> f64,
    p: Scale,
) -> (f64, bool) {
    let denorm = |x: f64| x == 0.0 || x.abs() < p.min_normal;
    if num == 0.0 || den == 0.0 {
        return (f64::NAN, false);
    }
    if exp(num) - exp(den) >= p.gap {
        // The quotient is near the largest float: scale the denominator up, post-scale the
        // quotient up.
        return (if q == den { ldexp(q, p.by) } else { q }, true);
    }
    if den.abs() < p.min_normal {
        return (ldexp(q, p.by), false);
    }
    let rcp_tiny = (1.0 / den).abs() < p.min_normal;
    let quot_tiny = denorm(num / den);
    if rcp_tiny && quot_tiny {
        return (if q == den { ldexp(q, p.by) } else { q }, true);
    }
    if rcp_tiny {
        return (ldexp(q, -p.by), false);
    }
    if quot_tiny {
        return (if q == num { ldexp(q, p.by) } else { q }, true);
    }
    if exp(num) <= p.tiny {
        return (ldexp(q, p.by), false);
    }
    (q, false)
}

fn exp32(x: f64) -> i32 {
    (((x as f32).to_bits() >> 23) & 0xFF) as i32
}
fn exp64(x: f64) -> i32 {
    ((x.to_bits() >> 52) & 0x7FF) as i32
}

pub(crate) fn scale32(a: &Args) -> Res {
    let v = |i| f64::from(s::arg(a, i));
    let p = Scale { gap: 96, by: 64, tiny: 23, min_normal: f64::from(f32::MIN_POSITIVE) };
    let (r, bit) = scale(v(0), v(1), v(2), exp32, |x, n| f64::from(s::ldexp32(x as f32, n)), p);
    Res { v: s::out(a, r as f32).v, bit }
}

pub(crate) fn scale64(a: &Args) -> Res {
    let p = Scale { gap: 768, by: 128, tiny: 53, min_normal: f64::MIN_POSITIVE };
    let (r, bit) = scale(d::arg(a, 0), d::arg(a, 1), d::arg(a, 2), exp64, d::ldexp64, p);
    Res { v: d::out(a, r).v, bit }
}

/// fma(S0, S1, S2), and with the flag set scaled by 2^64 when S2 ≥ 2.0 in magnitude (the
/// denominator had been scaled up) or by 2^-64 otherwise (the numerator had been). The scaled
/// case rounds in f64 first, then to f32.
pub(crate) fn fmas32(a: &Args) -> Res {
    let (x, y, z) = (s::arg(a, 0), s::arg(a, 1), s::arg(a, 2));
    if !a.bit {
        return s::out(a, x.mul_add(y, z));
    }
    let by = if exp32(f64::from(z)) >= 128 { 64 } else { -64 };
    let r = f64::from(x).mul_add(f64::from(y), f64::from(z));
    s::out(a, d::ldexp64(r, by) as f32)
}

/// As [`fmas32`] for f64: 2^128 when S2's exponent field is at least 1024, else 2^-128.
pub(crate) fn fmas64(a: &Args) -> Res {
    let (x, y, z) = (d::arg(a, 0), d::arg(a, 1), d::arg(a, 2));
    let r = x.mul_add(y, z);
    if !a.bit {
        return d::out(a, r);
    }
    let by = if exp64(z) >= 1024 { 128 } else { -128 };
    d::out(a, d::ldexp64(r, by))
}

/// What v_div_fixup gives for quotient `q`, denominator `den` and numerator `num` (widened to
/// f64): the special cases of division, else `q` with the quotient's sign. `under` is the
/// exponent gap below which the quotient rounds to zero in the type.
fn fixup(q: f64, den: f64, num: f64, under: i32, quiet: impl Fn(f64) -> f64) -> f64 {
    let neg = den.is_sign_negative() != num.is_sign_negative();
    let signed = |x: f64| if neg { -x } else { x };
    if num.is_nan() {
        return quiet(num);
    }
    if den.is_nan() {
        return quiet(den);
    }
    if (den == 0.0 && num == 0.0) || (den.is_infinite() && num.is_infinite()) {
        return f64::from_bits(0xFFF8_0000_0000_0000);
    }
    if den == 0.0 || num.is_infinite() {
        return signed(f64::INFINITY);
    }
    if den.is_infinite() || num == 0.0 {
        return signed(0.0);
    }
    if d::frexp64(num).1 - d::frexp64(den).1 < under {
        return signed(0.0);
    }
    if q.is_nan() {
        // The refinement steps overflowed: the quotient is beyond the largest float.
        return signed(f64::INFINITY);
    }
    signed(q.abs())
}

pub(crate) fn fixup32(a: &Args) -> Res {
    let v = |i| f64::from(s::arg(a, i));
    let r = fixup(v(0), v(1), v(2), -150, |x| f64::from(s::quiet(x as f32)));
    s::out(a, r as f32)
}

pub(crate) fn fixup64(a: &Args) -> Res {
    d::out(a, fixup(d::arg(a, 0), d::arg(a, 1), d::arg(a, 2), -1075, d::quiet))
}

pub(crate) fn fixup16(a: &Args) -> Res {
    let v = |i| f64::from(f16::arg(a, i));
    let quiet = |x: f64| H::from_bits(H::from_f64(x).to_bits() | 0x0200).to_f64();
    let r = fixup(v(0), v(1), v(2), -25, quiet);
    res(u64::from(f16::to_bits(a.mode, r as f32)))
}
