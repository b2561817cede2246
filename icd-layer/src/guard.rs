//! The API boundary: no panic of cltap's crosses `extern "C"`.

/// Runs layer code that is not a forwarded call: a panic in it is caught and
/// reported, and `fallback` is returned, so no panic crosses `extern "C"`.
pub fn guard<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(_) => {
            cltap::warn!("internal error caught at the API boundary; the call was answered with a default");
            fallback
        }
    }
}
