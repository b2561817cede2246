//! Deterministic mutation of seed inputs, for the bounded fuzz run in the
//! test suite: the same seed gives the same inputs on every machine, so a
//! failure there is reproducible from its iteration number alone.

/// xorshift64*: small, fast, and the same everywhere.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// Values that sit on the edges readers get wrong: zero, all ones, sign
/// bits, powers of two around 32-bit and page sizes.
const WORDS: [u64; 12] =
    [0, 1, u64::MAX, u64::MAX - 7, 1 << 63, 1 << 32, (1 << 32) - 1, 1 << 31, 4096, 65_535, 65_536, 0x7f];
/// Bytes that mean something in text formats.
const TEXT: &[u8] = b"\n\r\t ,=()[]{}\"\\#<>&;0x\xc3\xa9\xff";

/// One input made from `seed` (and maybe a piece of `other`) by one to four
/// mutations.
pub fn mutate(seed: &[u8], other: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len().max(1));
        match rng.below(8) {
            0 if !v.is_empty() => v[at] ^= 1 << rng.below(8),
            1 if !v.is_empty() => v[at] = TEXT[rng.below(TEXT.len())],
            2 => {
                let w = WORDS[rng.below(WORDS.len())].to_le_bytes();
                let n = [1, 2, 4, 8][rng.below(4)];
                for (k, b) in w[..n].iter().enumerate() {
                    if let Some(x) = v.get_mut(at + k) {
                        *x = *b;
                    }
                }
            }
            3 if !v.is_empty() => {
                let n = rng.below(64.min(v.len() - at)) + 1;
                v.drain(at..(at + n).min(v.len()));
            }
            4 => {
                // A piece repeated: long names, deep nesting, many lines.
                let n = rng.below(32.min(v.len().saturating_sub(at)).max(1)) + 1;
                let piece: Vec<u8> = v.get(at..(at + n).min(v.len())).unwrap_or(&[]).to_vec();
                let times = [2, 16, 256, 4096][rng.below(4)];
                let tail = v.split_off(at.min(v.len()));
                for _ in 0..times {
                    v.extend_from_slice(&piece);
                }
                v.extend_from_slice(&tail);
            }
            5 if !other.is_empty() => {
                let from = rng.below(other.len());
                let n = rng.below(256.min(other.len() - from)) + 1;
                let tail = v.split_off(at.min(v.len()));
                v.extend_from_slice(&other[from..from + n]);
                v.extend_from_slice(&tail);
            }
            6 => v.truncate(at),
            _ => v.insert(at.min(v.len()), TEXT[rng.below(TEXT.len())]),
        }
    }
    v
}
