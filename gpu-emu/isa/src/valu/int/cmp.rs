//! The integer compares, VOPC 0xA0..0xFF: eight conditions (f, lt, eq, le, gt, ne, ge, t) on
//! i16, u16, i32, u32, i64 and u64, each as v_cmp and v_cmpx.

use std::cmp::Ordering;

use super::{Args, Res};
use crate::valu::{Op, Out};
use crate::wave::Ty::{self, B16, B32, B64};

/// `T` is the type (0 i16, 1 u16, 2 i32, 3 u32, 4 i64, 5 u64), `C` the condition.
fn cmp<const T: u8, const C: u8>(a: &Args) -> Res {
    let (x, y) = (a.s[0], a.s[1]);
    let o = match T {
        0 => (x as u16 as i16).cmp(&(y as u16 as i16)),
        1 => (x as u16).cmp(&(y as u16)),
        2 => (x as u32 as i32).cmp(&(y as u32 as i32)),
        3 => (x as u32).cmp(&(y as u32)),
        4 => (x as i64).cmp(&(y as i64)),
        _ => x.cmp(&y),
    };
    let bit = match C {
        0 => false,
        1 => o == Ordering::Less,
        2 => o == Ordering::Equal,
        3 => o != Ordering::Greater,
        4 => o == Ordering::Greater,
        5 => o != Ordering::Equal,
        6 => o != Ordering::Less,
        _ => true,
    };
    Res { v: 0, bit }
}

type F = fn(&Args) -> Res;

macro_rules! conds {
    ($t:literal) => {
        [cmp::<$t, 0>, cmp::<$t, 1>, cmp::<$t, 2>, cmp::<$t, 3>, cmp::<$t, 4>, cmp::<$t, 5>, cmp::<$t, 6>, cmp::<$t, 7>]
    };
}

const TABLE: [[F; 8]; 6] = [conds!(0), conds!(1), conds!(2), conds!(3), conds!(4), conds!(5)];

/// `n` in 0xA0..=0xFF: eight groups of eight, i16, u16, their cmpx forms, then i32, u32, ...
pub(super) fn op(n: u16) -> Op {
    let g = usize::from((n - 0xA0) >> 3);
    let t = (g >> 2) * 2 + (g & 1);
    let ty: Ty = [B16, B32, B64][g >> 2];
    Op { srcs: 2, ty: [ty; 3], out: Out::Mask, bit_in: false, cmpx: g & 2 != 0, f: TABLE[t][usize::from(n & 7)] }
}
