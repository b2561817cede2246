//! What every wrapper calls around the forwarded call, and the layer's
//! start-up and shutdown.

use crate::gen;
use cltap::calls::Tally;
use cltap::config::Config;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

pub static TALLY: Tally = Tally::new();
static CONFIG: OnceLock<Config> = OnceLock::new();
static FINISHED: AtomicBool = AtomicBool::new(false);
static MISSING_SEEN: [AtomicBool; gen::FUNCTIONS] = [const { AtomicBool::new(false) }; gen::FUNCTIONS];

/// After each forwarded call.
#[inline(always)]
pub fn done(id: usize, failed: bool) {
    TALLY.record(id, failed);
}

/// The driver has no entry for a call: the wrapper returns
/// `CL_INVALID_OPERATION` instead of jumping to NULL (FACTS.md §8).
#[cold]
pub fn missing(id: usize) {
    if !MISSING_SEEN[id].swap(true, Ordering::Relaxed) {
        cltap::warn!("{}: the driver has no entry for this function; returned CL_INVALID_OPERATION", gen::NAMES[id]);
    }
    TALLY.record(id, true);
}

/// The configuration, read on first use. A bad setting is reported once and
/// turns all recording off; calls are still forwarded.
pub fn config() -> &'static Config {
    CONFIG.get_or_init(|| {
        let (cfg, errors) = Config::from_vars(std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))));
        for e in &errors {
            cltap::warn!("{e}");
        }
        let record = errors.is_empty();
        TALLY.enable(record && cfg.summary);
        if record {
            pin_and_register_exit();
        }
        cfg
    })
}

/// Keeps the layer mapped until the process ends (its exit handler and its
/// wrappers must outlive any `dlclose` by a loader) and flushes at exit.
fn pin_and_register_exit() {
    if let Some(path) = cltap::icd::vendors::self_path() {
        if let Ok(c) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) {
            // SAFETY: re-opening an already loaded library only bumps its count.
            unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD | libc::RTLD_NODELETE) };
        }
    }
    extern "C" fn at_exit() {
        let _ = std::panic::catch_unwind(finish);
    }
    // SAFETY: registering a plain function.
    unsafe { libc::atexit(at_exit) };
}

/// End of process (or `clDeinitLayer`): writes the reports once.
pub fn finish() {
    if FINISHED.swap(true, Ordering::AcqRel) {
        return;
    }
    let Some(cfg) = CONFIG.get() else { return };
    if cfg.summary {
        let rows = TALLY.snapshot();
        let table = cltap::calls::render(&rows, |i| gen::NAMES[i]);
        let mut msg = String::from("cltap: calls passed through\n");
        for l in table.lines() {
            msg += "cltap:   ";
            msg += l;
            msg += "\n";
        }
        let unknown = crate::icd_mode::unknown_extensions();
        if !unknown.is_empty() {
            msg += &format!("cltap: extension functions unknown to cltap, passed through unrecorded: {}\n", unknown.join(", "));
        }
        use std::io::Write;
        let _ = std::io::stderr().lock().write_all(msg.as_bytes());
    }
}

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
