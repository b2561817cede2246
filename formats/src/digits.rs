//! Numbers as text without `std::fmt`: the API log writes several per
//! record, millions of records a second, and `fmt`'s machinery costs more
//! than the digits themselves.

/// `v` as 16 hex digits, most significant first (`upper`: `A`–`F`).
#[inline(always)]
pub fn hex16(v: u64, upper: bool) -> [u8; 16] {
    #[cfg(target_arch = "x86_64")]
    {
        hex16_sse2(v, upper)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        hex16_swar(v, upper)
    }
}

/// [`hex16`] in one 16-byte register: each byte's two nibbles side by
/// side (high first), then every nibble to its digit at once; a dozen
/// instructions where the portable form takes forty.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn hex16_sse2(v: u64, upper: bool) -> [u8; 16] {
    use std::arch::x86_64::*;
    let letters = if upper { 7 } else { 39 };
    // SAFETY: SSE2 is part of every x86_64 target; the vector and the
    // array are both 16 plain bytes.
    unsafe {
        let x = _mm_cvtsi64_si128(v.swap_bytes() as i64);
        let low = _mm_set1_epi8(0x0F);
        let hi = _mm_and_si128(_mm_srli_epi16(x, 4), low);
        let n = _mm_unpacklo_epi8(hi, _mm_and_si128(x, low));
        let over9 = _mm_and_si128(_mm_cmpgt_epi8(n, _mm_set1_epi8(9)), _mm_set1_epi8(letters));
        let d = _mm_add_epi8(_mm_add_epi8(n, _mm_set1_epi8(b'0' as i8)), over9);
        std::mem::transmute::<__m128i, [u8; 16]>(d)
    }
}

/// [`hex16`] without SIMD intrinsics (and the reference the tests hold the
/// SSE2 form to).
#[inline(always)]
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn hex16_swar(v: u64, upper: bool) -> [u8; 16] {
    // Each nibble to a byte of its own (two 32-bit halves), then every byte
    // to its digit at once: `+ 6` carries into bit 4 exactly for 10..=15.
    let spread = |x: u32| -> u64 {
        let mut x = x as u64;
        x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF;
        x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF;
        (x | (x << 4)) & 0x0F0F_0F0F_0F0F_0F0F
    };
    let letters: u64 = if upper { 7 } else { 39 };
    let ascii = |n: u64| -> u64 {
        let over9 = ((n + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
        n + 0x3030_3030_3030_3030 + over9 * letters
    };
    // `spread` puts nibble k in byte k counted from the least significant:
    // big-endian bytes give the highest nibble first.
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&ascii(spread((v >> 32) as u32)).to_be_bytes());
    b[8..].copy_from_slice(&ascii(spread(v as u32)).to_be_bytes());
    b
}

const POW10: [u64; 20] = {
    let mut p = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        p[i] = p[i - 1] * 10;
        i += 1;
    }
    p
};

/// The number of decimal digits of `v` (1 for 0).
#[inline(always)]
pub fn decimal_len(v: u64) -> usize {
    // log10 from log2 (1233/4096 ≈ log10 2), corrected by one comparison.
    let approx = ((64 - (v | 1).leading_zeros()) * 1233) >> 12;
    (approx as usize + (v >= POW10[approx as usize]) as usize).max(1)
}

const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Every number below 100 as its two digits, the first in the low byte.
const PAIRS16: [u16; 100] = {
    let mut t = [0u16; 100];
    let mut i = 0;
    while i < 100 {
        t[i] = (b'0' as u16 + (i / 10) as u16) | ((b'0' as u16 + (i % 10) as u16) << 8);
        i += 1;
    }
    t
};

/// `v`'s digits when it has at most 4 (sizes, indices, enum values), the
/// first in the lowest byte, and their number: two table reads, where
/// [`short_decimal`] takes four multiplications.
#[inline(always)]
pub fn small_decimal(v: u64) -> Option<(u32, usize)> {
    if v >= 10_000 {
        return None;
    }
    let v = v as usize;
    let w = PAIRS16[v / 100] as u32 | (PAIRS16[v % 100] as u32) << 16;
    let n = 1 + (v >= 10) as usize + (v >= 100) as usize + (v >= 1000) as usize;
    Some((w >> (8 * (4 - n)), n))
}

/// `v` (below 10^8) as 8 ASCII digits, leading zeros included, the first
/// in the lowest byte: all eight at once in one register (lanes of 4, then
/// 2, then 1 digit, each split by a multiply-shift division), so that the
/// text is stored as one word rather than byte by byte.
#[inline(always)]
pub fn decimal8(v: u32) -> u64 {
    let (hi4, lo4) = ((v / 10_000) as u64, (v % 10_000) as u64);
    let y = hi4 | (lo4 << 32);
    // x / 100 = (x * 10486) >> 20 for x < 10^4; x / 10 = (x * 103) >> 10 for x < 100.
    let q = ((y * 10_486) >> 20) & 0x0000_007F_0000_007F;
    let y = q | ((y - q * 100) << 16);
    let q = ((y * 103) >> 10) & 0x000F_000F_000F_000F;
    let y = q | ((y - q * 10) << 8);
    y + 0x3030_3030_3030_3030
}

/// `v`'s digits when it has at most 8, as a little-endian word (the first
/// digit in the lowest byte, spaces after the last), and their number.
#[inline(always)]
pub fn short_decimal(v: u64) -> Option<(u64, usize)> {
    if v >= 100_000_000 {
        return None;
    }
    let n = decimal_len(v);
    let unused = 8 * (8 - n) as u32;
    let spaces = 0x2020_2020_2020_2020u64.checked_shl(64 - unused).unwrap_or(0);
    Some(((decimal8(v as u32) >> unused) | spaces, n))
}

/// `v` in decimal at the start of `out`; returns the number of digits.
#[inline]
pub fn decimal(v: u64, out: &mut [u8; 20]) -> usize {
    let n = decimal_len(v);
    decimal_ending(v, out, n);
    n
}

/// The digits of `v` ([`decimal_len`] of them) in `out`, the last at
/// `end - 1`: right-aligned text needs no copy.
#[inline]
pub fn decimal_ending(v: u64, out: &mut [u8], end: usize) {
    let mut i = end;
    let mut v = v;
    while v >= 100 {
        let p = (v % 100) as usize * 2;
        v /= 100;
        i -= 2;
        out[i..i + 2].copy_from_slice(&PAIRS[p..p + 2]);
    }
    if v >= 10 {
        let p = v as usize * 2;
        out[i - 2..i].copy_from_slice(&PAIRS[p..p + 2]);
    } else {
        out[i - 1] = b'0' + v as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::Rng;

    #[test]
    fn hex_and_decimal_agree_with_fmt() {
        let mut r = Rng(0x2545_F491_4F6C_DD1D);
        let mut values: Vec<u64> = vec![0, 1, 9, 10, 15, 16, 99, 100, u64::MAX, u64::MAX - 1, 1 << 63];
        values.extend(0..100_000);
        for k in 0..64 {
            values.extend([1u64 << k, (1u64 << k) - 1, (1u64 << k) + 1]);
        }
        for p in POW10 {
            values.extend([p - 1, p, p + 1]);
        }
        values.extend((0..20000).map(|_| r.next() >> (r.next() % 64)));
        for v in values {
            assert_eq!(hex16(v, true), *format!("{v:016X}").as_bytes(), "{v:#x}");
            assert_eq!(hex16(v, false), *format!("{v:016x}").as_bytes(), "{v:#x}");
            assert_eq!(hex16_swar(v, true), *format!("{v:016X}").as_bytes(), "{v:#x}");
            assert_eq!(hex16_swar(v, false), *format!("{v:016x}").as_bytes(), "{v:#x}");
            let mut b = [0u8; 20];
            let n = decimal(v, &mut b);
            assert_eq!(&b[..n], v.to_string().as_bytes());
            if let Some((w, n)) = small_decimal(v) {
                assert_eq!(&w.to_le_bytes()[..n], v.to_string().as_bytes(), "{v}");
            } else {
                assert!(v >= 10_000);
            }
            if let Some((w, n)) = short_decimal(v) {
                let want = format!("{v:<8}");
                assert_eq!(w.to_le_bytes(), want.as_bytes(), "{v}");
                assert_eq!(n, v.to_string().len());
            } else {
                assert!(v >= 100_000_000);
            }
            let mut c = [b'.'; 24];
            decimal_ending(v, &mut c, 22);
            assert_eq!(&c[22 - n..22], v.to_string().as_bytes());
            assert_eq!(&c[..22 - n], &[b'.'; 24][..22 - n]);
        }
    }
}
