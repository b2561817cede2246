//! TSC ticks to the microseconds the outputs print (a module of its own:
//! the API log's line writer and the other outputs use it).

/// How to turn TSC ticks into the log's microseconds.
#[derive(Debug, Clone, Copy)]
pub struct Timebase {
    pub ticks_per_us: f64,
}

impl Timebase {
    /// `(ticks as f64 / ticks_per_us).round() as u64`, inlined: `f64::round`
    /// is a call into the runtime on x86_64 without SSE4.1, and the
    /// unsigned conversions take a dozen instructions where the signed
    /// ones, exact for every real duration, take one.
    #[inline]
    pub fn us(&self, ticks: u64) -> u64 {
        let x = match i64::try_from(ticks) {
            Ok(t) => t as f64,
            Err(_) => ticks as f64,
        };
        round_to_u64(x / self.ticks_per_us)
    }
}

/// 2^52: every double from here up is a whole number.
const WHOLE: f64 = 4_503_599_627_370_496.0;

/// `x.round() as u64`: halves away from zero, NaN and below zero 0, too
/// large `u64::MAX`.
#[inline(always)]
fn round_to_u64(x: f64) -> u64 {
    if x > 0.0 && x < WHOLE {
        let t = x as i64;
        // Exact: `x` and its whole part share an exponent range.
        let frac = x - t as f64;
        return t as u64 + (frac >= 0.5) as u64;
    }
    // Whole already, or out of range (`as` saturates).
    x as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_as_f64_round_does() {
        let mut xs = vec![
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            0.49999999999999994,
            -0.4,
            -0.6,
            -3.0,
            4_503_599_627_370_495.5,
            4_503_599_627_370_496.0,
            9_007_199_254_740_993.0,
            1.8446744073709552e19,
            1e30,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
        ];
        let mut r = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200_000 {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            let ticks = r >> (r % 64);
            let tpu = [1.0, 2.5, 1000.0, 2601.089, 3.0e-3, 0.0][(r % 6) as usize];
            xs.push(ticks as f64 / tpu);
            xs.push((r % 100_000) as f64 + 0.5);
            xs.push(f64::from_bits(r));
        }
        for x in xs {
            assert_eq!(round_to_u64(x), x.round() as u64, "{x:e}");
        }
        for ticks in [0, 1, 1 << 53, (1 << 53) + 1, i64::MAX as u64, 1 << 63, u64::MAX - 1, u64::MAX] {
            for tpu in [1.0, 0.5, 3.0, 2601.089] {
                let tb = Timebase { ticks_per_us: tpu };
                assert_eq!(tb.us(ticks), (ticks as f64 / tpu).round() as u64, "{ticks} / {tpu}");
            }
        }
    }
}
