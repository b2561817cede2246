//! Tests of the counter-file writers and readers: RCP's and rocprof's golden
//! lines, generated round trips, damaged files.

mod cells;
mod csv;
mod occupancy;
mod results;

use super::*;
use crate::test_rng::Rng;

/// Reading fails at `line` for a reason that contains `reason`.
fn fails_at<T: std::fmt::Debug>(r: Result<T, ReadError>, line: usize, reason: &str) {
    let e = r.expect_err("malformed input was accepted");
    assert_eq!(e.line, line, "{e}");
    assert!(e.reason.contains(reason), "{e}");
}

/// Names that need each kind of care: separators, quotes, padding, `NA`,
/// C++ templates, non-ASCII.
const NAMES: &[&str] = &[
    "add_one",
    "matrix_multiply_tiled",
    "void foo<int, float>(int*)",
    "say \"hi\"",
    "NA",
    "None",
    " padded ",
    "",
    "ünïcode_κ",
    "semi;colon",
    "a__k7_b",
];

fn pick_name(r: &mut Rng) -> String {
    r.pick(NAMES).to_string()
}

fn opt<T>(r: &mut Rng, f: impl FnOnce(&mut Rng) -> T) -> Option<T> {
    (r.below(4) != 0).then(|| f(r))
}

/// A value exactly representable at 2 decimals (what RCP's `%12.2f` keeps),
/// or a whole number.
fn rcp_value(r: &mut Rng) -> f64 {
    match r.below(3) {
        0 => r.below(1 << 40) as f64,
        1 => (r.below(2_000_000) as f64 - 1_000_000.0) / 100.0,
        _ => r.below(100) as f64 / 4.0,
    }
}
