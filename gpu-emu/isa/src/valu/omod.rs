//! Output modifiers of float results: omod (×2, ×4, ÷2) then clamp to [0, 1], NaN to 0 under
//! clamp when MODE's DX10_CLAMP bit is set.

use crate::wave::Ty;

/// MODE bit 8: DX10_CLAMP.
const DX10_CLAMP: u32 = 1 << 8;

/// Applies omod and clamp to a result of type `ty` (non-float types pass through).
pub fn apply(ty: Ty, v: u64, omod: u32, clamp: bool, mode: u32) -> u64 {
    if omod == 0 && !clamp {
        return v;
    }
    let scale = [1.0, 2.0, 4.0, 0.5][omod as usize & 3];
    let dx10 = mode & DX10_CLAMP != 0;
    match ty {
        Ty::F32 => {
            let x = f32::from_bits(v as u32) * scale as f32;
            u64::from(clamp01(x as f64, clamp, dx10).map_or(x, |c| c as f32).to_bits())
        }
        Ty::F64 => {
            let x = f64::from_bits(v) * scale;
            clamp01(x, clamp, dx10).unwrap_or(x).to_bits()
        }
        Ty::F16 => {
            let x = f16_to_f32(v as u16) * scale as f32;
            let x = f16_to_f32(f32_to_f16(x));
            u64::from(f32_to_f16(clamp01(x as f64, clamp, dx10).map_or(x, |c| c as f32)))
        }
        _ => v,
    }
}

/// The clamped value, when clamping changes it.
fn clamp01(x: f64, clamp: bool, dx10: bool) -> Option<f64> {
    if !clamp {
        return None;
    }
    if x.is_nan() {
        return dx10.then_some(0.0);
    }
    Some(x.clamp(0.0, 1.0))
}

pub fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1F);
    let man = u32::from(h & 0x3FF);
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, _) => {
            // A denormal: normalise it.
            let shift = man.leading_zeros() - 21;
            sign | (113 - shift) << 23 | ((man << shift) & 0x3FF) << 13
        }
        (31, 0) => sign | 0x7F80_0000,
        (31, _) => sign | 0x7FC0_0000 | man << 13,
        _ => sign | (exp + 112) << 23 | man << 13,
    };
    f32::from_bits(bits)
}

/// f32 to f16, rounding to nearest even.
pub fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xFF) as i32;
    let man = b & 0x7F_FFFF;
    if exp == 255 {
        return sign | 0x7C00 | if man != 0 { 0x200 | (man >> 13) as u16 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 31 {
        return sign | 0x7C00;
    }
    let (m, shift) = if e <= 0 {
        if e < -10 {
            return sign;
        }
        (man | 0x80_0000, (14 - e) as u32)
    } else {
        (man, 13)
    };
    let mut r = m >> shift;
    let rem = m & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    if rem > half || (rem == half && r & 1 == 1) {
        r += 1;
    }
    let base = if e <= 0 { 0 } else { (e as u32) << 10 };
    sign | (base + r) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_round_trip() {
        for h in [0x3C00u16, 0xC000, 0x0001, 0x03FF, 0x7BFF, 0x7C00, 0x8000] {
            assert_eq!(f32_to_f16(f16_to_f32(h)), h, "{h:#x}");
        }
        assert_eq!(f32_to_f16(65520.0), 0x7C00);
    }

    #[test]
    fn omod_then_clamp() {
        assert_eq!(apply(Ty::F32, 0.75f32.to_bits().into(), 1, true, 0), 1.0f32.to_bits().into());
        assert_eq!(apply(Ty::F32, 0.75f32.to_bits().into(), 3, false, 0), 0.375f32.to_bits().into());
        let nan = u64::from(f32::NAN.to_bits());
        assert_eq!(apply(Ty::F32, nan, 0, true, DX10_CLAMP), 0);
        assert_eq!(apply(Ty::F64, (-3.0f64).to_bits(), 2, true, 0), 0);
        assert_eq!(apply(Ty::F16, 0x3800, 2, false, 0), 0x4000);
    }
}
