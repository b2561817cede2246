//! Image texel formats: a T#'s data format (bits and channels) and number format, and the
//! conversion of a texel's channels to and from the 32-bit register values (d16 off).
//!
//! The formats are those OpenCL images take on gfx9 (ROCr's `image_lut_kv.cpp`): 8, 16 and 32
//! bits per channel in 1, 2, 3 or 4 channels, with UNORM and SNORM (8 and 16 bits), USCALED and
//! SSCALED (8 and 16 bits), UINT and SINT, and FLOAT (16 and 32 bits). Packed formats (5_6_5,
//! 10_10_10_2, ...), sRGB and the *_FLOAT data formats are not: they fault as unimplemented.
//!
//! Loads: UNORM is `raw / (2^b - 1)`, SNORM `max(raw / (2^(b-1) - 1), -1)`, as f32; the integer
//! formats zero- or sign-extend; 16-bit floats widen exactly. Stores: floats to UNORM and SNORM
//! clamp to [0, 1] or [-1, 1] (NaN as 0), scale and round to nearest even; integers saturate to
//! the channel's range (OpenCL's `write_imagei`/`write_imageui` on 8- and 16-bit channels);
//! f32 to f16 rounds to nearest even.

/// IMG_NUM_FORMAT_* (T# dword 1, bits 29:26).
pub const UNORM: u32 = 0;
pub const SNORM: u32 = 1;
pub const USCALED: u32 = 2;
pub const SSCALED: u32 = 3;
pub const UINT: u32 = 4;
pub const SINT: u32 = 5;
pub const FLOAT: u32 = 7;

/// A texel format the emulator converts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fmt {
    /// Bits per channel: 8, 16 or 32.
    pub bits: u32,
    /// Channels: 1 to 4.
    pub n: usize,
    pub nfmt: u32,
}

impl Fmt {
    /// The format of IMG_DATA_FORMAT `dfmt` with number format `nfmt`, if the emulator has it.
    pub fn new(dfmt: u32, nfmt: u32) -> Option<Fmt> {
        let (bits, n) = match dfmt {
            1 => (8, 1),
            2 => (16, 1),
            3 => (8, 2),
            4 => (32, 1),
            5 => (16, 2),
            10 => (8, 4),
            11 => (32, 2),
            12 => (16, 4),
            13 => (32, 3),
            14 => (32, 4),
            _ => return None,
        };
        let ok = match nfmt {
            UNORM | SNORM | USCALED | SSCALED => bits < 32,
            UINT | SINT => true,
            FLOAT => bits > 8,
            _ => false,
        };
        ok.then_some(Fmt { bits, n, nfmt })
    }

    /// Bytes per texel.
    pub fn bytes(&self) -> u32 {
        self.bits / 8 * self.n as u32
    }

    /// Whether the register values are floats (everything but UINT and SINT).
    pub fn is_float(&self) -> bool {
        !matches!(self.nfmt, UINT | SINT)
    }

    /// The register value of "one" (dst_sel SEL_1, a missing alpha channel).
    pub fn one(&self) -> u32 {
        if self.is_float() {
            1.0f32.to_bits()
        } else {
            1
        }
    }

    fn max(&self) -> u64 {
        (1u64 << self.bits) - 1
    }

    fn sext(&self, raw: u32) -> i32 {
        let sh = 32 - self.bits;
        ((raw << sh) as i32) >> sh
    }

    /// The texel's channels as register values, before the T#'s dst_sel; channels the format
    /// lacks read 0 (y, z) and one (w).
    pub fn unpack(&self, bytes: &[u8; 16]) -> [u32; 4] {
        let mut ch = [0, 0, 0, self.one()];
        for (k, c) in ch.iter_mut().enumerate().take(self.n) {
            let raw = match self.bits {
                8 => u32::from(bytes[k]),
                16 => u32::from(u16::from_le_bytes([bytes[2 * k], bytes[2 * k + 1]])),
                _ => u32::from_le_bytes([bytes[4 * k], bytes[4 * k + 1], bytes[4 * k + 2], bytes[4 * k + 3]]),
            };
            *c = self.load_channel(raw);
        }
        ch
    }

    /// The texel of register values `ch` (after the inverse dst_sel), in `bytes()` bytes.
    pub fn pack(&self, ch: [u32; 4]) -> [u8; 16] {
        let mut out = [0u8; 16];
        for (k, &c) in ch.iter().enumerate().take(self.n) {
            let raw = self.store_channel(c);
            match self.bits {
                8 => out[k] = raw as u8,
                16 => out[2 * k..2 * k + 2].copy_from_slice(&(raw as u16).to_le_bytes()),
                _ => out[4 * k..4 * k + 4].copy_from_slice(&raw.to_le_bytes()),
            }
        }
        out
    }

    fn load_channel(&self, raw: u32) -> u32 {
        match self.nfmt {
            UNORM => (raw as f32 / self.max() as f32).to_bits(),
            SNORM => {
                let m = (self.max() >> 1) as f32;
                (self.sext(raw) as f32 / m).max(-1.0).to_bits()
            }
            USCALED => (raw as f32).to_bits(),
            SSCALED => (self.sext(raw) as f32).to_bits(),
            SINT => self.sext(raw) as u32,
            FLOAT if self.bits == 16 => half::f16::from_bits(raw as u16).to_f32().to_bits(),
            _ => raw,
        }
    }

    fn store_channel(&self, v: u32) -> u32 {
        let f = f32::from_bits(v);
        let scaled = |lo: f32, hi: f32, scale: f32| -> u32 {
            let f = if f.is_nan() { 0.0 } else { f.clamp(lo, hi) };
            ((f * scale).round_ties_even() as i32) as u32 & self.max() as u32
        };
        match self.nfmt {
            UNORM => scaled(0.0, 1.0, self.max() as f32),
            SNORM => scaled(-1.0, 1.0, (self.max() >> 1) as f32),
            USCALED => scaled(0.0, self.max() as f32, 1.0),
            SSCALED => {
                let h = (self.max() >> 1) as f32;
                scaled(-h - 1.0, h, 1.0)
            }
            UINT => (u64::from(v).min(self.max())) as u32,
            SINT => {
                let h = (self.max() >> 1) as i64;
                (i64::from(v as i32).clamp(-h - 1, h) as u32) & self.max() as u32
            }
            FLOAT if self.bits == 16 => u32::from(half::f16::from_f32(f).to_bits()),
            _ => v,
        }
    }
}
