//! The gfx9 image resource (T#, eight SGPRs) and sampler (S#, four SGPRs), as AMD's Vega ISA
//! reference ("Image Resource", "Image Sampler") and ROCr's `resource_ai.h` lay them out, and
//! where a texel of an image lives in memory (see the module doc of [`super`] for the layout).

use crate::wave::Wave;

/// SQ_RSRC_IMG_* resource types (T# dword 3, bits 31:28).
pub const IMG_1D: u32 = 8;
pub const IMG_2D: u32 = 9;
pub const IMG_3D: u32 = 10;
pub const IMG_1D_ARRAY: u32 = 12;
pub const IMG_2D_ARRAY: u32 = 13;

/// The fields of a T# the emulator uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Image {
    /// The byte address of texel (0, 0, 0) of mip level 0 (the descriptor holds it >> 8).
    pub base: u64,
    pub dfmt: u32,
    pub nfmt: u32,
    pub width: u32,
    /// 1 for 1D images and 1D arrays, whatever the field says (ROCr leaves it at height - 1 of a
    /// zero height there).
    pub height: u32,
    /// Depth of a 3D image, slices of an array (counted from `base_array`), else 1.
    pub depth: u32,
    /// Texels between rows (the field holds pitch - 1).
    pub pitch: u32,
    /// Channel selects x, y, z, w (0: zero, 1: one, 4..7: the texel's x..w).
    pub dst_sel: [u32; 4],
    pub base_level: u32,
    pub last_level: u32,
    pub ty: u32,
    pub base_array: u32,
}

impl Image {
    /// The T# in the SGPRs from `first`.
    pub fn read(w: &Wave, first: u32) -> Image {
        let d: [u32; 8] = std::array::from_fn(|k| w.sgpr(first + k as u32));
        let ty = d[3] >> 28;
        let one_d = matches!(ty, IMG_1D | IMG_1D_ARRAY);
        let base_array = d[5] & 0x1FFF;
        let last = d[4] & 0x1FFF;
        let depth = match ty {
            IMG_3D => last + 1,
            IMG_1D_ARRAY | IMG_2D_ARRAY => (last + 1).saturating_sub(base_array),
            _ => 1,
        };
        Image {
            base: (u64::from(d[0]) | u64::from(d[1] & 0xFF) << 32) << 8,
            dfmt: d[1] >> 20 & 0x3F,
            nfmt: d[1] >> 26 & 0xF,
            width: (d[2] & 0x3FFF) + 1,
            height: if one_d { 1 } else { (d[2] >> 14 & 0x3FFF) + 1 },
            depth,
            pitch: (d[4] >> 13 & 0xFFFF) + 1,
            dst_sel: [d[3] & 7, d[3] >> 3 & 7, d[3] >> 6 & 7, d[3] >> 9 & 7],
            base_level: d[3] >> 12 & 0xF,
            last_level: d[3] >> 16 & 0xF,
            ty,
            base_array,
        }
    }

    /// Whether the resource is an image type the emulator addresses (buffers, cubes and MSAA
    /// surfaces are not).
    pub fn supported(&self) -> bool {
        matches!(self.ty, IMG_1D | IMG_2D | IMG_3D | IMG_1D_ARRAY | IMG_2D_ARRAY)
    }

    /// How many address VGPRs the coordinates take (x, then y, then z or the slice).
    pub fn coords(&self) -> usize {
        match self.ty {
            IMG_1D => 1,
            IMG_2D | IMG_1D_ARRAY => 2,
            _ => 3,
        }
    }

    /// The coordinates as (x, y, slice-or-z), from the address components in order.
    pub fn xyz(&self, c: [u32; 3]) -> [u32; 3] {
        match self.ty {
            IMG_1D => [c[0], 0, 0],
            IMG_1D_ARRAY => [c[0], 0, c[1]],
            IMG_2D => [c[0], c[1], 0],
            _ => c,
        }
    }

    /// Mip levels the view has.
    pub fn levels(&self) -> u32 {
        self.last_level.saturating_sub(self.base_level) + 1
    }

    /// The byte address of texel (x, y, z) of level 0 of an element of `bytes`, or None when out
    /// of the image (as the hardware's bounds check: loads read 0, stores are dropped).
    pub fn texel(&self, [x, y, z]: [u32; 3], bytes: u32) -> Option<u64> {
        if x >= self.width || y >= self.height || z >= self.depth {
            return None;
        }
        let slice = u64::from(z) + u64::from(if self.ty == IMG_3D { 0 } else { self.base_array });
        let row = slice * u64::from(self.height) + u64::from(y);
        let index = row * u64::from(self.pitch) + u64::from(x);
        Some(self.base.wrapping_add(index * u64::from(bytes)))
    }
}

/// SQ_TEX_* clamp modes (S# dword 0, bits 2:0, 5:3, 8:6).
pub const WRAP: u32 = 0;
pub const MIRROR: u32 = 1;
pub const CLAMP_LAST_TEXEL: u32 = 2;
pub const MIRROR_ONCE_LAST_TEXEL: u32 = 3;
pub const CLAMP_HALF_BORDER: u32 = 4;
pub const MIRROR_ONCE_HALF_BORDER: u32 = 5;
pub const CLAMP_BORDER: u32 = 6;
pub const MIRROR_ONCE_BORDER: u32 = 7;

/// The fields of an S# the emulator uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sampler {
    /// Clamp modes for x, y, z.
    pub clamp: [u32; 3],
    pub unnormalized: bool,
    /// XY_MAG_FILTER and XY_MIN_FILTER (0 point, 1 bilinear, 2 and 3 anisotropic).
    pub mag: u32,
    pub min: u32,
    /// MIP_FILTER (0 none, 1 point, 2 linear).
    pub mip: u32,
    /// BORDER_COLOR_TYPE (0 transparent black, 1 opaque black, 2 opaque white, 3 a table's).
    pub border: u32,
    /// DEPTH_COMPARE_FUNC.
    pub compare: u32,
}

impl Sampler {
    /// The S# in the four SGPRs from `first`.
    pub fn read(w: &Wave, first: u32) -> Sampler {
        let d: [u32; 4] = std::array::from_fn(|k| w.sgpr(first + k as u32));
        Sampler {
            clamp: [d[0] & 7, d[0] >> 3 & 7, d[0] >> 6 & 7],
            unnormalized: d[0] >> 15 & 1 == 1,
            compare: d[0] >> 12 & 7,
            mag: d[2] >> 20 & 3,
            min: d[2] >> 22 & 3,
            mip: d[2] >> 26 & 3,
            border: d[3] >> 30,
        }
    }
}

/// Texel `i` of a dimension of `n` texels under clamp mode `mode`: Some(index), or None for the
/// border colour.
pub fn wrap(mode: u32, i: i64, n: u32) -> Option<u32> {
    let n = i64::from(n.max(1));
    let mirror_once = |i: i64| if i < 0 { -i - 1 } else { i };
    let r = match mode {
        WRAP => i.rem_euclid(n),
        MIRROR => {
            let j = i.rem_euclid(2 * n);
            if j >= n {
                2 * n - 1 - j
            } else {
                j
            }
        }
        CLAMP_LAST_TEXEL => i.clamp(0, n - 1),
        MIRROR_ONCE_LAST_TEXEL => mirror_once(i).min(n - 1),
        CLAMP_HALF_BORDER | CLAMP_BORDER => {
            if (0..n).contains(&i) {
                i
            } else {
                return None;
            }
        }
        _ => {
            // MIRROR_ONCE_HALF_BORDER, MIRROR_ONCE_BORDER.
            let j = mirror_once(i);
            if j < n {
                j
            } else {
                return None;
            }
        }
    };
    Some(r as u32)
}
