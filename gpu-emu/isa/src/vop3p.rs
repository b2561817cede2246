//! Packed math: VOP3P (v_pk_*, v_fma_mix*, v_dot*), with its own operand plumbing. Each source
//! is read as 32 bits; for each 16-bit half of the result, op_sel (low half) and op_sel_hi (high
//! half) pick which half of each source it reads, and neg_lo/neg_hi negate those f16 halves.
//! The v_fma_mix ops read op_sel_hi as "this source is f16" (op_sel then picks the half) and
//! neg_hi as abs. An inline constant reads as 32 bits with a 16-bit constant in the low half,
//! so op_sel_hi must select the low half to use it in both halves, as LLVM encodes it.

use half::f16 as H;

use crate::decode::Inst;
use crate::exec::{Ctx, Flow};
use crate::fault::Fault;
use crate::valu::float::{f16, f32 as s};
use crate::valu::Args;
use crate::wave::{Ty, Wave, LANES};

/// MODE's DX10_CLAMP bit: clamping a NaN gives 0.
const MODE_DX10_CLAMP: u32 = 1 << 8;

/// One lane's view of the instruction's fields and sources.
struct P {
    s: [u32; 3],
    opsel: u32,
    opsel_hi: u32,
    neg_lo: u32,
    neg_hi: u32,
    clamp: bool,
    mode: u32,
    old: u32,
}

impl P {
    /// Source `i`'s 16-bit half for result half `hi`.
    fn half(&self, i: usize, hi: bool) -> u16 {
        let sel = if hi { self.opsel_hi } else { self.opsel };
        (self.s[i] >> (16 * ((sel >> i) & 1))) as u16
    }
    /// As [`P::half`], with neg_lo/neg_hi applied (f16 sources).
    fn fhalf(&self, i: usize, hi: bool) -> u16 {
        let neg = if hi { self.neg_hi } else { self.neg_lo };
        self.half(i, hi) ^ (((neg >> i) & 1) as u16) << 15
    }
    fn args(&self, s: [u16; 3]) -> Args {
        Args { s: s.map(u64::from), mode: self.mode, clamp: self.clamp, ..Args::default() }
    }
}

/// Whether source `i` of opcode `op` is read as f32 (v_fma_mix with op_sel_hi clear, the f32
/// addend of v_dot2_f32_f16), f16, or as integer bits.
fn src_ty(op: u16, i: usize, opsel_hi: u32) -> Ty {
    match op {
        0x0E..=0x12 => Ty::F16,
        0x20..=0x22 if (opsel_hi >> i) & 1 == 0 => Ty::F32,
        0x20..=0x22 => Ty::F16,
        0x23 if i == 2 => Ty::F32,
        0x23 => Ty::F16,
        0x00..=0x0D => Ty::B16,
        _ => Ty::B32,
    }
}

fn srcs(op: u16) -> usize {
    match op {
        0x00 | 0x09 | 0x0E | 0x20..=0x2B => 3,
        _ => 2,
    }
}

fn known(op: u16) -> bool {
    matches!(op, 0x00..=0x12 | 0x20..=0x23 | 0x26..=0x2B)
}

pub fn exec(w: &mut Wave, i: &Inst, _ctx: &mut Ctx) -> Result<Flow, Fault> {
    if !known(i.op) {
        return Err(Fault::unimplemented(w.pc, i));
    }
    let codes = [i.src0(), i.src1(), i.src2()];
    let n = srcs(i.op);
    let opsel_hi = i.vop3p_opsel_hi();
    let tys = [0, 1, 2].map(|k| src_ty(i.op, k, opsel_hi));
    let exec = w.exec();
    let vdst = i.vdst();
    for lane in 0..LANES {
        if (exec >> lane) & 1 == 0 {
            continue;
        }
        let mut s = [0u32; 3];
        for k in 0..n {
            s[k] = w.src32(codes[k], lane, tys[k], None);
        }
        let p = P {
            s,
            opsel: i.vop3_opsel(),
            opsel_hi,
            neg_lo: i.vop3_neg(),
            neg_hi: i.vop3_abs(),
            clamp: i.vop3_clamp(),
            mode: w.mode,
            old: w.vgpr(vdst, lane),
        };
        let r = lane_op(i.op, &p);
        w.set_vgpr(vdst, lane, r);
    }
    Ok(Flow::Next)
}

fn lane_op(op: u16, p: &P) -> u32 {
    match op {
        0x00..=0x0D => packed_int(op, p),
        0x0E..=0x12 => packed_f16(op, p),
        0x20..=0x22 => mix(op, p),
        0x23 => dot2_f32_f16(p),
        _ => dot_int(op, p),
    }
}

fn pack(lo: u16, hi: u16) -> u32 {
    u32::from(lo) | u32::from(hi) << 16
}

/// The 16-bit integer ops; under clamp, add, sub and mad saturate.
fn packed_int(op: u16, p: &P) -> u32 {
    let half = |hi: bool| {
        let (x, y, z) = (p.half(0, hi), p.half(1, hi), p.half(2, hi));
        let (xi, yi, zi) = (i64::from(x as i16), i64::from(y as i16), i64::from(z as i16));
        let (xu, yu, zu) = (i64::from(x), i64::from(y), i64::from(z));
        let sat_i = |v: i64| if p.clamp { v.clamp(-32768, 32767) as u16 } else { v as u16 };
        let sat_u = |v: i64| if p.clamp { v.clamp(0, 65535) as u16 } else { v as u16 };
        match op {
            0x00 => sat_i(xi * yi + zi),
            0x01 => x.wrapping_mul(y),
            0x02 => sat_i(xi + yi),
            0x03 => sat_i(xi - yi),
            0x04 => y << (x & 15),
            0x05 => y >> (x & 15),
            0x06 => ((y as i16) >> (x & 15)) as u16,
            0x07 => (x as i16).max(y as i16) as u16,
            0x08 => (x as i16).min(y as i16) as u16,
            0x09 => sat_u(xu * yu + zu),
            0x0A => sat_u(xu + yu),
            0x0B => sat_u(xu - yu),
            0x0C => x.max(y),
            _ => x.min(y),
        }
    };
    pack(half(false), half(true))
}

/// Clamp to [0, 1] of an f16 result; NaN gives 0 under DX10_CLAMP.
fn clamp16(b: u16, p: &P) -> u16 {
    if !p.clamp {
        return b;
    }
    let x = H::from_bits(b).to_f32();
    if x.is_nan() {
        return if p.mode & MODE_DX10_CLAMP != 0 { 0 } else { b };
    }
    H::from_f32(x.clamp(0.0, 1.0)).to_bits()
}

fn clamp32(x: f32, p: &P) -> f32 {
    if !p.clamp {
        return x;
    }
    if x.is_nan() {
        return if p.mode & MODE_DX10_CLAMP != 0 { 0.0 } else { x };
    }
    x.clamp(0.0, 1.0)
}

fn packed_f16(op: u16, p: &P) -> u32 {
    let f = match op {
        0x0E => f16::fma,
        0x0F => f16::add,
        0x10 => f16::mul,
        0x11 => f16::min,
        _ => f16::max,
    };
    let half = |hi: bool| {
        let a = p.args([p.fhalf(0, hi), p.fhalf(1, hi), p.fhalf(2, hi)]);
        clamp16(f(&a).v as u16, p)
    };
    pack(half(false), half(true))
}

/// A v_fma_mix source, widened exactly to f64: f32, or an f16 half when op_sel_hi says so;
/// neg_hi is abs and neg_lo negation here. Denormals are flushed by their own type's MODE field.
fn mix_src(p: &P, i: usize) -> f64 {
    let a = Args { s: [u64::from(p.s[i]), 0, 0], mode: p.mode, ..Args::default() };
    let x = if (p.opsel_hi >> i) & 1 == 1 {
        let h = (p.s[i] >> (16 * ((p.opsel >> i) & 1))) as u16;
        f64::from(f16::arg(&Args { s: [u64::from(h), 0, 0], ..a }, 0))
    } else {
        f64::from(s::arg(&a, 0))
    };
    let x = if (p.neg_hi >> i) & 1 == 1 { x.abs() } else { x };
    if (p.neg_lo >> i) & 1 == 1 {
        -x
    } else {
        x
    }
}

/// v_fma_mix_f32 and its f16 forms. The fused result is rounded to f64 and then to the
/// destination type; the two roundings can differ from one in rare halfway cases.
fn mix(op: u16, p: &P) -> u32 {
    let r = mix_src(p, 0).mul_add(mix_src(p, 1), mix_src(p, 2));
    let dummy = Args { mode: p.mode, ..Args::default() };
    match op {
        0x20 => s::out(&dummy, clamp32(r as f32, p)).v as u32,
        _ => {
            let h = H::from_f64(r).to_bits();
            let h = if crate::valu::float::Dn::F64F16.flush_out(p.mode) { f16::flush_bits(h) } else { h };
            let h = clamp16(h, p);
            if op == 0x21 {
                (p.old & 0xFFFF_0000) | u32::from(h)
            } else {
                (p.old & 0xFFFF) | u32::from(h) << 16
            }
        }
    }
}

/// S0.lo·S1.lo + S0.hi·S1.hi + S2, in f64 (the products are exact there), rounded to f32.
fn dot2_f32_f16(p: &P) -> u32 {
    let h = |i, hi| {
        let a = p.args([p.fhalf(i, hi), 0, 0]);
        f64::from(f16::arg(&a, 0))
    };
    let c = Args { s: [u64::from(p.s[2]), 0, 0], mode: p.mode, ..Args::default() };
    let c = f64::from(s::arg(&c, 0));
    let c = if (p.neg_lo >> 2) & 1 == 1 { -c } else { c };
    let r = h(0, false) * h(1, false) + h(0, true) * h(1, true) + c;
    s::out(&c_args(p), clamp32(r as f32, p)).v as u32
}

fn c_args(p: &P) -> Args {
    Args { mode: p.mode, ..Args::default() }
}

/// The integer dot products: 2 × 16-bit, 4 × 8-bit or 8 × 4-bit elements, signed or unsigned,
/// plus S2; under clamp the sum saturates to 32 bits.
fn dot_int(op: u16, p: &P) -> u32 {
    let signed = op & 1 == 0;
    let (a, b) = if op <= 0x27 {
        (pack(p.half(0, false), p.half(0, true)), pack(p.half(1, false), p.half(1, true)))
    } else {
        (p.s[0], p.s[1])
    };
    let width = match op {
        0x26 | 0x27 => 16,
        0x28 | 0x29 => 8,
        _ => 4,
    };
    let elem = |v: u32, k: u32| {
        let raw = (v >> (k * width)) & ((1u32 << width) - 1);
        if signed {
            let sh = 32 - width;
            i64::from(((raw << sh) as i32) >> sh)
        } else {
            i64::from(raw)
        }
    };
    let c = if signed { i64::from(p.s[2] as i32) } else { i64::from(p.s[2]) };
    let sum = (0..32 / width).fold(c, |acc, k| acc + elem(a, k) * elem(b, k));
    if !p.clamp {
        sum as u32
    } else if signed {
        sum.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 as u32
    } else {
        sum.clamp(0, i64::from(u32::MAX)) as u32
    }
}
