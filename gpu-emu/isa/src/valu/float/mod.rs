//! Float operations of the VOP3 opcode space: f16, f32 and f64 arithmetic, transcendentals,
//! conversions, float compares and classes, with the MODE register's denormal handling.
//!
//! Each operation gets its sources already modified (abs/neg, SDWA selects) by the plumbing in
//! [`super`], which also applies clamp and omod to float results. Here: denormal flushing (MODE
//! bits [5:4] for f32, [7:6] for f64 and f16: bit 0 of each field keeps input denormals, bit 1
//! keeps output denormals, as FLOAT_DENORM_MODE in LLVM's AMDGPUUsage), IEEE-mode NaN rules of
//! min/max (MODE bit 9), and the instructions' own special cases.
//!
//! Rounding is always to nearest even: the round-mode fields of MODE are not modelled (the code
//! clang emits leaves them at their default).
//!
//! The hardware's transcendentals (exp, log, rcp, rsq, sqrt, sin, cos) are approximations
//! within about 1 ulp; the emulator uses the host's correctly rounded operations or its libm,
//! so a result may differ from a real GPU's in the last bit.

mod compare;
mod convert;
mod div;
pub(crate) mod f16;
pub(crate) mod f32;
mod f64;
#[cfg(test)]
mod tests;

use super::{Args, Op, Out, Res};
use crate::wave::Ty;

/// MODE's IEEE bit: signaling NaNs are quieted and min/max follow IEEE 754-2008.
const MODE_IEEE: u32 = 1 << 9;

/// The denormal field of MODE for f32 (bits [5:4]) and for f64 and f16 (bits [7:6]).
#[derive(Clone, Copy)]
pub(crate) enum Dn {
    F32,
    F64F16,
}

impl Dn {
    fn field(self, mode: u32) -> u32 {
        match self {
            Dn::F32 => (mode >> 4) & 3,
            Dn::F64F16 => (mode >> 6) & 3,
        }
    }
    /// Input denormals are flushed to zero (keeping the sign).
    pub(crate) fn flush_in(self, mode: u32) -> bool {
        self.field(mode) & 1 == 0
    }
    pub(crate) fn flush_out(self, mode: u32) -> bool {
        self.field(mode) & 2 == 0
    }
}

pub(crate) fn ieee(a: &Args) -> bool {
    a.mode & MODE_IEEE != 0
}

/// An operation reading `srcs` sources of types `ty`, writing to `out`.
fn mk(srcs: u8, ty: [Ty; 3], out: Out, f: fn(&Args) -> Res) -> Op {
    Op { srcs, ty, out, bit_in: false, cmpx: false, f }
}
fn v1(t: Ty, o: Ty, f: fn(&Args) -> Res) -> Op {
    mk(1, [t, t, t], Out::V(o), f)
}
fn v2(t0: Ty, t1: Ty, o: Ty, f: fn(&Args) -> Res) -> Op {
    mk(2, [t0, t1, t1], Out::V(o), f)
}
fn v3(t: [Ty; 3], o: Ty, f: fn(&Args) -> Res) -> Op {
    mk(3, t, Out::V(o), f)
}

/// The float operation numbered `op` in the VOP3 opcode space.
///
/// v_madmk and v_madak carry their literal K as a source, in the order the assembly names the
/// operands: v_madmk_f32 `D, S0, K, S1` reads [S0, K, S1], v_madak_f32 `D, S0, S1, K` reads
/// [S0, S1, K]; both then compute s[0] * s[1] + s[2].
pub fn op(op: u16) -> Option<Op> {
    use Ty::*;
    let f3 = [F32; 3];
    let d3 = [F64; 3];
    let h3 = [F16; 3];
    Some(match op {
        0x010..=0x015 | 0x020..=0x07f => return compare::op(op),
        // VOP2
        0x101 => v2(F32, F32, F32, f32::add),
        0x102 => v2(F32, F32, F32, f32::sub),
        0x103 => v2(F32, F32, F32, f32::subrev),
        0x104 => v2(F32, F32, F32, f32::mul_legacy),
        0x105 => v2(F32, F32, F32, f32::mul),
        0x10a => v2(F32, F32, F32, f32::min),
        0x10b => v2(F32, F32, F32, f32::max),
        0x116 => v2(F32, F32, F32, f32::mac),
        0x117 | 0x118 => v3(f3, F32, f32::mad),
        0x11f => v2(F16, F16, F16, f16::add),
        0x120 => v2(F16, F16, F16, f16::sub),
        0x121 => v2(F16, F16, F16, f16::subrev),
        0x122 => v2(F16, F16, F16, f16::mul),
        0x123 => v2(F16, F16, F16, f16::mac),
        0x124 | 0x125 => v3(h3, F16, f16::mad),
        0x12d => v2(F16, F16, F16, f16::max),
        0x12e => v2(F16, F16, F16, f16::min),
        0x133 => v2(F16, B16, F16, f16::ldexp),
        0x13b => v2(F32, F32, F32, f32::fmac),
        // VOP1
        0x143 => v1(F64, B32, convert::i32_f64),
        0x144 => v1(B32, F64, convert::f64_i32),
        0x145 => v1(B32, F32, convert::f32_i32),
        0x146 => v1(B32, F32, convert::f32_u32),
        0x147 => v1(F32, B32, convert::u32_f32),
        0x148 => v1(F32, B32, convert::i32_f32),
        0x14a => v1(F32, F16, convert::f16_f32),
        0x14b => v1(F16, F32, convert::f32_f16),
        0x14c => v1(F32, B32, convert::rpi_i32_f32),
        0x14d => v1(F32, B32, convert::flr_i32_f32),
        0x14e => v1(B32, F32, convert::off_f32_i4),
        0x14f => v1(F64, F32, convert::f32_f64),
        0x150 => v1(F32, F64, convert::f64_f32),
        0x151 => v1(B32, F32, convert::f32_ubyte::<0>),
        0x152 => v1(B32, F32, convert::f32_ubyte::<1>),
        0x153 => v1(B32, F32, convert::f32_ubyte::<2>),
        0x154 => v1(B32, F32, convert::f32_ubyte::<3>),
        0x155 => v1(F64, B32, convert::u32_f64),
        0x156 => v1(B32, F64, convert::f64_u32),
        0x157 => v1(F64, F64, f64::trunc),
        0x158 => v1(F64, F64, f64::ceil),
        0x159 => v1(F64, F64, f64::rndne),
        0x15a => v1(F64, F64, f64::floor),
        0x15b => v1(F32, F32, f32::fract),
        0x15c => v1(F32, F32, f32::trunc),
        0x15d => v1(F32, F32, f32::ceil),
        0x15e => v1(F32, F32, f32::rndne),
        0x15f => v1(F32, F32, f32::floor),
        0x160 | 0x18b => v1(F32, F32, f32::exp),
        0x161 | 0x18c => v1(F32, F32, f32::log),
        0x162 | 0x163 => v1(F32, F32, f32::rcp),
        0x164 => v1(F32, F32, f32::rsq),
        0x165 => v1(F64, F64, f64::rcp),
        0x166 => v1(F64, F64, f64::rsq),
        0x167 => v1(F32, F32, f32::sqrt),
        0x168 => v1(F64, F64, f64::sqrt),
        0x169 => v1(F32, F32, f32::sin),
        0x16a => v1(F32, F32, f32::cos),
        0x170 => v1(F64, B32, f64::frexp_exp),
        0x171 => v1(F64, F64, f64::frexp_mant),
        0x172 => v1(F64, F64, f64::fract),
        0x173 => v1(F32, B32, f32::frexp_exp),
        0x174 => v1(F32, F32, f32::frexp_mant),
        0x179 => v1(B16, F16, convert::f16_u16),
        0x17a => v1(B16, F16, convert::f16_i16),
        0x17b => v1(F16, B16, convert::u16_f16),
        0x17c => v1(F16, B16, convert::i16_f16),
        0x17d => v1(F16, F16, f16::rcp),
        0x17e => v1(F16, F16, f16::sqrt),
        0x17f => v1(F16, F16, f16::rsq),
        0x180 => v1(F16, F16, f16::log),
        0x181 => v1(F16, F16, f16::exp),
        0x182 => v1(F16, F16, f16::frexp_mant),
        0x183 => v1(F16, B16, f16::frexp_exp),
        0x184 => v1(F16, F16, f16::floor),
        0x185 => v1(F16, F16, f16::ceil),
        0x186 => v1(F16, F16, f16::trunc),
        0x187 => v1(F16, F16, f16::rndne),
        0x188 => v1(F16, F16, f16::fract),
        0x189 => v1(F16, F16, f16::sin),
        0x18a => v1(F16, F16, f16::cos),
        0x18d => v1(F16, B16, convert::norm_i16_f16),
        0x18e => v1(F16, B16, convert::norm_u16_f16),
        // VOP3 only
        0x1c0 => v3(f3, F32, f32::mad_legacy),
        0x1c1 => v3(f3, F32, f32::mad),
        0x1cb => v3(f3, F32, f32::fma),
        0x1cc => v3(d3, F64, f64::fma),
        0x1d0 => v3(f3, F32, f32::min3),
        0x1d3 => v3(f3, F32, f32::max3),
        0x1d6 => v3(f3, F32, f32::med3),
        0x1dd => v3([F32, B32, B32], B32, convert::pk_u8_f32),
        0x1de => v3(f3, F32, div::fixup32),
        0x1df => v3(d3, F64, div::fixup64),
        0x1e0 => mk(3, f3, Out::VBit(F32), div::scale32),
        0x1e1 => mk(3, d3, Out::VBit(F64), div::scale64),
        0x1e2 => Op { bit_in: true, ..v3(f3, F32, div::fmas32) },
        0x1e3 => Op { bit_in: true, ..v3(d3, F64, div::fmas64) },
        0x1ea | 0x203 => v3(h3, F16, f16::mad),
        0x1ee | 0x206 => v3(h3, F16, f16::fma),
        0x1ef | 0x207 => v3(h3, F16, div::fixup16),
        0x1f0 => v2(F32, B32, B32, convert::pkaccum_u8_f32),
        0x1f4 => v3(h3, F16, f16::min3),
        0x1f7 => v3(h3, F16, f16::max3),
        0x1fa => v3(h3, F16, f16::med3),
        0x280 => v2(F64, F64, F64, f64::add),
        0x281 => v2(F64, F64, F64, f64::mul),
        0x282 => v2(F64, F64, F64, f64::min),
        0x283 => v2(F64, F64, F64, f64::max),
        0x284 => v2(F64, B32, F64, f64::ldexp),
        0x288 => v2(F32, B32, F32, f32::ldexp),
        0x292 => v2(F64, B32, F64, f64::trig_preop),
        0x294 => v2(F32, F32, B32, convert::pknorm_i16_f32),
        0x295 => v2(F32, F32, B32, convert::pknorm_u16_f32),
        0x296 => v2(F32, F32, B32, convert::pkrtz_f16_f32),
        0x299 => v2(F16, F16, B32, convert::pknorm_i16_f16),
        0x29a => v2(F16, F16, B32, convert::pknorm_u16_f16),
        0x2a0 => v2(F16, F16, B32, convert::pack_b32_f16),
        // v_cubeid/sc/tc/ma_f32 (graphics only) and everything else: not implemented here.
        _ => return None,
    })
}

/// The IEEE-mode rules of v_min/v_max: with IEEE set, a signaling NaN input gives that NaN
/// quieted; otherwise (and for quiet NaNs) a NaN loses to the other operand. -0 orders below +0.
/// `quiet` quiets a NaN's bits; the values are compared as f64 (exact for every type).
pub(crate) fn minmax(x: f64, y: f64, xs: bool, ys: bool, ieee: bool, max: bool) -> MinMax {
    if x.is_nan() || y.is_nan() {
        if ieee && xs {
            return MinMax::QuietX;
        }
        if ieee && ys {
            return MinMax::QuietY;
        }
        return if x.is_nan() && y.is_nan() {
            MinMax::QuietX
        } else if x.is_nan() {
            MinMax::Y
        } else {
            MinMax::X
        };
    }
    let x_first = if x == y { x.is_sign_negative() && !y.is_sign_negative() } else { x < y };
    if x_first != max {
        MinMax::X
    } else {
        MinMax::Y
    }
}

/// Which operand v_min/v_max returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MinMax {
    X,
    Y,
    QuietX,
    QuietY,
}

/// v_med3: the median, or min3 when any input is NaN.
pub(crate) fn med3_pick(v: [f64; 3]) -> usize {
    let (a, b, c) = (v[0], v[1], v[2]);
    if (a <= b && b <= c) || (c <= b && b <= a) {
        1
    } else if (b <= a && a <= c) || (c <= a && a <= b) {
        0
    } else {
        2
    }
}

/// The v_cmp_class mask of a value: bit 0 signaling NaN, 1 quiet NaN, 2 -inf, 3 -normal,
/// 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf.
pub(crate) fn class_bit(neg: bool, nan: bool, snan: bool, inf: bool, zero: bool, denorm: bool) -> u32 {
    if nan {
        return if snan { 0 } else { 1 };
    }
    let (n, p) = if inf {
        (2, 9)
    } else if zero {
        (5, 6)
    } else if denorm {
        (4, 7)
    } else {
        (3, 8)
    };
    if neg {
        n
    } else {
        p
    }
}

pub(crate) fn res(v: u64) -> Res {
    Res { v, bit: false }
}
