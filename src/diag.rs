//! The layer's own messages. They go to stderr, one line each, prefixed with
//! `cltap:`; the application's stdout is never touched.

use std::io::Write;

pub fn warn(msg: std::fmt::Arguments<'_>) {
    // A failed write to stderr must not disturb the application either.
    let _ = writeln!(std::io::stderr().lock(), "cltap: {msg}");
}

#[macro_export]
macro_rules! warn {
    ($($t:tt)*) => { $crate::diag::warn(format_args!($($t)*)) };
}
