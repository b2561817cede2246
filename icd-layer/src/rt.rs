//! What every wrapper calls around the forwarded call, and the layer's
//! start-up and shutdown.

use crate::gen;
use cltap::calls::Tally;
use cltap::config::Config;
use cltap::trace::local::{self, Opened};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;

pub static TALLY: Tally = Tally::new();
static CONFIG: OnceLock<Config> = OnceLock::new();
static FINISHED: AtomicBool = AtomicBool::new(false);
static MISSING_SEEN: [AtomicBool; gen::FUNCTIONS] = [const { AtomicBool::new(false) }; gen::FUNCTIONS];

/// Whether each function is recorded (the API log is on and
/// `CLTAP_LOG_FILTER` lets it through).
static LOGGED: [AtomicBool; gen::FUNCTIONS] = [const { AtomicBool::new(false) }; gen::FUNCTIONS];
/// Calls that take a command id while the trace is on, logged or not.
static NUMBERED: [AtomicBool; gen::FUNCTIONS] = [const { AtomicBool::new(false) }; gen::FUNCTIONS];
/// Command ids: one process-wide sequence for calls that return an event.
static NEXT_CMD: AtomicU64 = AtomicU64::new(1);

#[derive(Clone, Copy)]
pub struct Enter {
    pub on: bool,
    pub cmd: u64,
    rec: Opened,
}

/// Before each forwarded call: one relaxed load when the call is not
/// logged; otherwise its record is opened in this thread's chunk of the
/// trace, so that a call that never returns is still there.
#[inline(always)]
pub fn enter(id: usize, args: &[u64]) -> Enter {
    if !LOGGED[id].load(Ordering::Relaxed) {
        // Command ids stay the same whatever CLTAP_LOG_FILTER leaves out.
        if NUMBERED[id].load(Ordering::Relaxed) {
            NEXT_CMD.fetch_add(1, Ordering::Relaxed);
        }
        return Enter { on: false, cmd: 0, rec: Opened::NONE };
    }
    let f = &cltap::meta::FUNCTIONS[id];
    let cmd = if f.event_out { NEXT_CMD.fetch_add(1, Ordering::Relaxed) } else { 0 };
    let t0 = cltap::trace::tsc::now();
    // SAFETY: the application's argument words.
    let rec = unsafe { local::open(id, f, f.event_out.then_some(cmd), t0, args) };
    Enter { on: true, cmd, rec }
}

/// After a logged call: its record is completed. The host tally is taken
/// from the trace, so nothing here is written by other threads.
#[inline(always)]
pub fn exit(id: usize, e: Enter, ret: u64, args: &[u64], _failed: bool) {
    let t1 = cltap::trace::tsc::now();
    // SAFETY: the arguments are the application's, after a call that used them.
    unsafe {
        let lws = if id == gen::id::clEnqueueNDRangeKernel && args[5] == 0 && ret == 0 { crate::lws::suggested(args) } else { None };
        local::complete(e.rec, &cltap::meta::FUNCTIONS[id], t1, ret, args, lws.as_ref().map(|(v, n)| &v[..*n]))
    };
}


/// After a call cltap answers in hand-written code: logged if on, else counted.
pub fn finish_call(id: usize, e: Enter, ret: u64, args: &[u64], failed: bool) {
    if e.on {
        exit(id, e, ret, args, failed)
    } else {
        done(id, failed)
    }
}

/// After each forwarded call that is not logged.
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
        crate::devtime::enable(record && cfg.times_devices());
        if record && cfg.times_devices() {
            let name = cltap::trace::writer::log_file_name(std::process::id()).replace(".apilog", ".commands");
            cltap::devtime::configure_spill(&cfg.output_dir, &format!(".{name}"));
        }
        if record {
            pin_and_register_exit();
            if cfg.records_calls() {
                start_trace(&cfg);
            }
        }
        cfg
    })
}

fn start_trace(cfg: &Config) {
    use cltap::config::LogDest;
    use cltap::trace::render::Dest;
    use cltap::trace::writer::TraceSettings;
    // The core's metadata and the layer's wrappers come from one description.
    debug_assert!(gen::NAMES.iter().zip(cltap::meta::FUNCTIONS.iter()).all(|(a, b)| *a == b.name));
    let settings = TraceSettings {
        buffers: cltap::trace::buffers::Settings {
            size: cfg.buffer_size,
            watermark: cfg.watermark_bytes(),
            policy: if cfg.lossless { cltap::trace::buffers::Policy::Lossless } else { cltap::trace::buffers::Policy::Discard },
        },
        dir: cfg.output_dir.clone(),
        api_log: cfg.api_log.then(|| match cfg.log_dest {
            LogDest::File => Dest::File,
            LogDest::Stderr => Dest::Stderr,
            LogDest::Stdout => Dest::Stdout,
        }),
        options: cltap::trace::printer::Options { decode: cfg.decode },
        timeline: cfg.timeline,
        atp: cfg.atp,
        render: cfg.render,
        summary: cfg.summary,
        device_timing: cfg.times_devices(),
    };
    cltap::trace::writer::start(settings);
    for (i, n) in gen::NAMES.iter().enumerate() {
        LOGGED[i].store(cfg.logs(n), Ordering::Release);
        NUMBERED[i].store(cltap::meta::FUNCTIONS[i].event_out, Ordering::Release);
    }
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
    crate::devtime::settle(std::time::Duration::from_millis(250));
    crate::devtime::release_pending_events();
    cltap::trace::writer::finish();
    if cfg.summary {
        use cltap::summary::{Host, Summary};
        // With the trace, every call's time is known; without it only the
        // counts are kept.
        let host = match cltap::trace::writer::host_table().filter(|r| !r.is_empty()) {
            Some(rows) => Host::Timed(rows),
            None => Host::Counted(TALLY.snapshot().into_iter().map(|(i, c, e)| (gen::NAMES[i].to_string(), c, e)).collect()),
        };
        let unknown = crate::icd_mode::unknown_extensions();
        let mut notes = Vec::new();
        if !unknown.is_empty() {
            notes.push(format!("extension functions unknown to cltap, passed through unrecorded: {}", unknown.join(", ")));
        }
        let in_flight = cltap::trace::writer::in_flight();
        let s = Summary { pid: std::process::id(), host, device_timing: cfg.times_devices(), pending_at_exit: crate::devtime::pending(), in_flight: &in_flight, notes };
        let path = cfg.output_dir.join(format!("{}.summary.json", cltap::trace::writer::stem(std::process::id())));
        if let Err(e) = s.write_json(&path) {
            cltap::warn!("cannot write {}: {e}", path.display());
        }
        use std::io::Write;
        let _ = std::io::stderr().lock().write_all(s.table().as_bytes());
    }
    cltap::devtime::remove_spill();
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
