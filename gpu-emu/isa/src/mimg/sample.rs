//! image_sample*: a texel (or four or eight, filtered) through a sampler, at mip level 0.
//!
//! Coordinates are f32: normalized (times the size) unless the S#'s FORCE_UNNORMALIZED or the
//! instruction's `unorm` says otherwise; an array's slice is never normalized, and rounds to the
//! nearest slice (ties to even) clamped to the array. Point sampling takes the texel
//! `floor(u)`; bilinear (or trilinear, for 3D images) takes `floor(u - 0.5)` and the next,
//! weighted by the fraction in exact f32 (the hardware's weights have 8 fractional bits; OpenCL's
//! tolerance covers the difference). Filtering needs float texels: linear filtering of UINT or
//! SINT images faults as unimplemented, as does anisotropic filtering. Outside the image, the
//! S#'s clamp mode applies per dimension ([`super::rsrc::wrap`]); a border texel has the
//! border colour in every channel (transparent black 0, opaque black 0 with alpha one, opaque
//! white one), which then goes through the T#'s dst_sel like a texel (so an R image's border
//! reads alpha one, as OpenCL wants).

use super::format::Fmt;
use super::rsrc::{wrap, Image, Sampler, IMG_1D, IMG_1D_ARRAY, IMG_2D_ARRAY, IMG_3D};
use crate::fault::Fault;
use crate::memory::{self, Memory, Site};

/// Why a sample cannot be taken (the caller faults as unimplemented).
pub struct Unsupported;

/// A texel's register values after dst_sel.
pub fn swizzle(sel: [u32; 4], ch: [u32; 4], one: u32) -> [u32; 4] {
    sel.map(|s| match s {
        1 => one,
        4..=7 => ch[s as usize - 4],
        _ => 0,
    })
}

/// Reads texel (x, y, z) (in range) after dst_sel.
pub fn fetch(mem: &dyn Memory, img: &Image, fmt: &Fmt, at: [u32; 3], site: Site) -> Result<[u32; 4], Fault> {
    let mut bytes = [0u8; 16];
    if let Some(addr) = img.texel(at, fmt.bytes()) {
        memory::read(mem, addr, &mut bytes[..fmt.bytes() as usize], site)?;
        Ok(swizzle(img.dst_sel, fmt.unpack(&bytes), fmt.one()))
    } else {
        Ok([0; 4])
    }
}

/// The sample at coordinates `c` (x, then y, then z or the slice, as f32 bits).
pub fn sample(
    mem: &dyn Memory,
    img: &Image,
    fmt: &Fmt,
    s: &Sampler,
    unorm: bool,
    c: [u32; 3],
    site: Site,
) -> Result<Result<[u32; 4], Unsupported>, Fault> {
    let c = c.map(f32::from_bits);
    let array = matches!(img.ty, IMG_1D_ARRAY | IMG_2D_ARRAY);
    // Filtered dimensions: x always, y but for 1D images, z for 3D images.
    let dims = match img.ty {
        IMG_3D => 3,
        IMG_1D | IMG_1D_ARRAY => 1,
        _ => 2,
    };
    let (xyz, slice_at) = match img.ty {
        IMG_1D_ARRAY => ([c[0], 0.0, 0.0], 1),
        IMG_2D_ARRAY => ([c[0], c[1], 0.0], 2),
        _ => (c, 0),
    };
    let slice = if array {
        let r = c[slice_at].round_ties_even();
        if r.is_nan() {
            0
        } else {
            r.clamp(0.0, (img.depth.max(1) - 1) as f32) as u32
        }
    } else {
        0
    };
    let sizes = [img.width, img.height, img.depth];
    let unnorm = unorm || s.unnormalized;
    let border = {
        let (c, a) = match s.border {
            0 => (0, 0),
            1 => (0, fmt.one()),
            2 => (fmt.one(), fmt.one()),
            _ => return Ok(Err(Unsupported)),
        };
        swizzle(img.dst_sel, [c, c, c, a], fmt.one())
    };
    let texel = |idx: [i64; 3]| -> Result<[u32; 4], Fault> {
        let mut at = [0, 0, slice];
        for d in 0..dims {
            match wrap(s.clamp[d], idx[d], sizes[d]) {
                Some(i) => at[d] = i,
                None => return Ok(border),
            }
        }
        fetch(mem, img, fmt, at, site)
    };
    let scaled = |d: usize| if unnorm { xyz[d] } else { xyz[d] * sizes[d] as f32 };
    let filter = s.mag;
    if filter >= 2 {
        return Ok(Err(Unsupported));
    }
    if filter == 0 {
        let idx: [i64; 3] = std::array::from_fn(|d| if d < dims { floor(scaled(d)) } else { 0 });
        return Ok(Ok(texel(idx)?));
    }
    if !fmt.is_float() {
        return Ok(Err(Unsupported));
    }
    let mut lo = [0i64; 3];
    let mut frac = [0f32; 3];
    for d in 0..dims {
        let t = scaled(d) - 0.5;
        let f = t.floor();
        lo[d] = floor(t);
        frac[d] = if f.is_finite() { t - f } else { 0.0 };
    }
    let mut acc = [0f32; 4];
    for corner in 0..(1usize << dims) {
        let mut idx = [0i64; 3];
        let mut weight = 1f32;
        for d in 0..dims {
            let hi = corner >> d & 1 == 1;
            idx[d] = lo[d] + i64::from(hi);
            weight *= if hi { frac[d] } else { 1.0 - frac[d] };
        }
        let t = texel(idx)?;
        for k in 0..4 {
            acc[k] += weight * f32::from_bits(t[k]);
        }
    }
    Ok(Ok(acc.map(f32::to_bits)))
}

/// floor(f) as an integer, saturating (NaN as 0).
fn floor(f: f32) -> i64 {
    let f = f.floor();
    if f.is_nan() {
        0
    } else {
        f.clamp(-1e12, 1e12) as i64
    }
}
