//! Float compares (v_cmp_*/v_cmpx_* for f16, f32 and f64) and v_cmp_class.

use half::f16 as H;

use super::{class_bit, f16, f32 as s, f64 as d};
use crate::valu::{Args, Op, Out, Res};
use crate::wave::Ty;

/// The source as f64 (exact for every type), its denormal flushed when MODE says so.
fn val<const T: u8>(a: &Args, i: usize) -> f64 {
    match T {
        0 => f64::from(f16::arg(a, i)),
        1 => f64::from(s::arg(a, i)),
        _ => d::arg(a, i),
    }
}

/// The sixteen conditions in opcode order: f, lt, eq, le, gt, lg, ge, o, u, nge, nlg, ngt, nle,
/// neq, nlt, tru. The "n" forms are the negations, so they hold for unordered operands.
fn cond(c: u8, x: f64, y: f64) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    // None when either is NaN.
    let o = x.partial_cmp(&y);
    match c {
        0 => false,
        1 => o == Some(Less),
        2 => o == Some(Equal),
        3 => matches!(o, Some(Less | Equal)),
        4 => o == Some(Greater),
        5 => matches!(o, Some(Less | Greater)),
        6 => matches!(o, Some(Greater | Equal)),
        7 => o.is_some(),
        8 => o.is_none(),
        9 => !matches!(o, Some(Greater | Equal)),
        10 => !matches!(o, Some(Less | Greater)),
        11 => o != Some(Greater),
        12 => !matches!(o, Some(Less | Equal)),
        13 => o != Some(Equal),
        14 => o != Some(Less),
        _ => true,
    }
}

fn cmp<const T: u8, const C: u8>(a: &Args) -> Res {
    Res { v: 0, bit: cond(C, val::<T>(a, 0), val::<T>(a, 1)) }
}

type F = fn(&Args) -> Res;

macro_rules! row {
    ($t:literal) => {
        [
            cmp::<$t, 0>,
            cmp::<$t, 1>,
            cmp::<$t, 2>,
            cmp::<$t, 3>,
            cmp::<$t, 4>,
            cmp::<$t, 5>,
            cmp::<$t, 6>,
            cmp::<$t, 7>,
            cmp::<$t, 8>,
            cmp::<$t, 9>,
            cmp::<$t, 10>,
            cmp::<$t, 11>,
            cmp::<$t, 12>,
            cmp::<$t, 13>,
            cmp::<$t, 14>,
            cmp::<$t, 15>,
        ]
    };
}

const CMP: [[F; 16]; 3] = [row!(0), row!(1), row!(2)];

/// v_cmp_class: whether S1's mask has the bit of S0's class (see [`class_bit`]). The value is
/// classified as it is: a denormal is a denormal whatever MODE says.
fn class<const T: u8>(a: &Args) -> Res {
    let b = match T {
        0 => {
            let x = a.s[0] as u16;
            let h = H::from_bits(x);
            let snan = h.is_nan() && x & 0x0200 == 0;
            class_bit(x & 0x8000 != 0, h.is_nan(), snan, h.is_infinite(), x & 0x7FFF == 0, x & 0x7C00 == 0)
        }
        1 => {
            let x = f32::from_bits(a.s[0] as u32);
            class_bit(x.is_sign_negative(), x.is_nan(), s::is_snan(x), x.is_infinite(), x == 0.0, x.is_subnormal())
        }
        _ => {
            let x = f64::from_bits(a.s[0]);
            class_bit(x.is_sign_negative(), x.is_nan(), d::is_snan(x), x.is_infinite(), x == 0.0, x.is_subnormal())
        }
    };
    Res { v: 0, bit: (a.s[1] as u32 >> b) & 1 != 0 }
}

/// The compare numbered `op` (0x10..=0x15 classes, 0x20..=0x7F compares).
pub(crate) fn op(op: u16) -> Option<Op> {
    let tys = [Ty::F16, Ty::F32, Ty::F64];
    let (t, f, cmpx, second): (usize, F, bool, Ty) = match op {
        0x10..=0x15 => {
            let t = [1, 2, 0][usize::from((op - 0x10) / 2)];
            let f: F = [class::<0>, class::<1>, class::<2>][t];
            (t, f, op & 1 == 1, Ty::B32)
        }
        0x20..=0x7F => {
            let t = usize::from((op - 0x20) / 0x20);
            (t, CMP[t][usize::from(op & 15)], op & 0x10 != 0, tys[t])
        }
        _ => return None,
    };
    Some(Op { srcs: 2, ty: [tys[t], second, second], out: Out::Mask, bit_in: false, cmpx, f })
}
