//! What every wrapper calls around the forwarded call, and the layer's
//! start-up and shutdown.

use crate::gen;
use cltap::calls::Tally;
use cltap::config::Config;
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
    pub t0: u64,
}

/// Before each forwarded call: one relaxed load when the call is not logged.
#[inline(always)]
pub fn enter(id: usize) -> Enter {
    if !LOGGED[id].load(Ordering::Relaxed) {
        // Command ids stay the same whatever CLTAP_LOG_FILTER leaves out.
        if NUMBERED[id].load(Ordering::Relaxed) {
            NEXT_CMD.fetch_add(1, Ordering::Relaxed);
        }
        return Enter { on: false, cmd: 0, t0: 0 };
    }
    let cmd = if cltap::meta::FUNCTIONS[id].event_out { NEXT_CMD.fetch_add(1, Ordering::Relaxed) } else { 0 };
    Enter { on: true, cmd, t0: cltap::trace::tsc::now() }
}

/// After a logged call: its record goes to this thread's buffer.
#[inline(always)]
pub fn exit(id: usize, e: Enter, ret: u64, args: &[u64], failed: bool) {
    let t1 = cltap::trace::tsc::now();
    TALLY.record(id, failed);
    let cmd = cltap::meta::FUNCTIONS[id].event_out.then_some(e.cmd);
    // SAFETY: the arguments are the application's, after a call that used them.
    unsafe {
        let lws = if id == gen::id::clEnqueueNDRangeKernel && args[5] == 0 && ret == 0 { crate::lws::suggested(args) } else { None };
        cltap::trace::writer::submit(id, cmd, e.t0, t1, ret, args, lws.as_ref().map(|(v, n)| &v[..*n]))
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
    use cltap::trace::writer::{Dest, TraceSettings};
    // The core's metadata and the layer's wrappers come from one description.
    debug_assert!(gen::NAMES.iter().zip(cltap::meta::FUNCTIONS.iter()).all(|(a, b)| *a == b.name));
    let settings = TraceSettings {
        buffers: cltap::trace::buffers::Settings {
            size: cfg.buffer_size,
            watermark: cfg.watermark_bytes(),
            policy: if cfg.lossless { cltap::trace::buffers::Policy::Lossless } else { cltap::trace::buffers::Policy::Discard },
        },
        dest: cfg.api_log.then(|| match cfg.log_dest {
            LogDest::File => Dest::Dir(cfg.output_dir.clone()),
            LogDest::Stderr => Dest::Stderr,
            LogDest::Stdout => Dest::Stdout,
        }),
        options: cltap::trace::printer::Options { decode: cfg.decode },
        timeline: cfg.timeline.then(|| cfg.output_dir.clone()),
        atp: cfg.atp.then(|| cfg.output_dir.clone()),
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
        write_summary_json(cfg);
        // With the API log, the writer knows every call's time; without it
        // only the counts are kept.
        let table = match cltap::trace::writer::host_table().filter(|r| !r.is_empty()) {
            Some(rows) => cltap::report::render_ns(&rows),
            None => cltap::calls::render(&TALLY.snapshot(), |i| gen::NAMES[i]),
        };
        let mut msg = String::from("cltap: calls passed through\n");
        for l in table.lines() {
            msg += "cltap:   ";
            msg += l;
            msg += "\n";
        }
        if cfg.times_devices() {
            msg += &device_tables();
        }
        let unknown = crate::icd_mode::unknown_extensions();
        if !unknown.is_empty() {
            msg += &format!("cltap: extension functions unknown to cltap, passed through unrecorded: {}\n", unknown.join(", "));
        }
        use std::io::Write;
        let _ = std::io::stderr().lock().write_all(msg.as_bytes());
    }
    cltap::devtime::remove_spill();
}

/// `<app>.<pid>.summary.json`: the same tallies, for machines. The list of
/// commands is streamed from the device records, so it is never built in
/// memory.
fn write_summary_json(cfg: &Config) {
    use serde_json::json;
    let host: Vec<_> = TALLY.snapshot().into_iter().map(|(i, c, e)| json!({"api": gen::NAMES[i], "calls": c, "errors": e})).collect();
    let t = cltap::devtime::tables();
    let kernels: Vec<_> = t
        .kernels()
        .into_iter()
        .map(|k| json!({"kernel": k.kernel, "launches": k.launches, "total_ns": k.total_ns, "min_ns": k.min_ns, "max_ns": k.max_ns,
            "by_size": k.by_size.iter().map(|(s, n, t)| json!({"sizes": s, "launches": n, "total_ns": t})).collect::<Vec<_>>()}))
        .collect();
    let transfers: Vec<_> = t
        .transfers()
        .into_iter()
        .map(|t| json!({"direction": t.direction, "count": t.count, "bytes": t.bytes, "total_ns": t.total_ns, "gb_per_s": t.gb_per_s()}))
        .collect();
    let head = json!({
        "cltap": env!("CARGO_PKG_VERSION"),
        "pid": std::process::id(),
        "host": host,
        "device_timing": cfg.times_devices(),
        "kernels": kernels,
        "transfers": transfers,
        "pending_at_exit": crate::devtime::pending(),
        "untimed": cltap::devtime::untimed_commands().len(),
    });
    let name = cltap::trace::writer::log_file_name(std::process::id()).replace(".apilog", ".summary.json");
    let path = cfg.output_dir.join(name);
    let write = || -> std::io::Result<()> {
        use std::io::Write;
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path)?);
        // The object without its closing brace, then the command list.
        let text = serde_json::to_string_pretty(&head).unwrap_or_default();
        out.write_all(text.trim_end().trim_end_matches('}').trim_end().as_bytes())?;
        out.write_all(b",\n  \"commands\": [")?;
        let mut first = true;
        let mut result = Ok(());
        cltap::devtime::for_each(|c| {
            let v = json!({"cmd_id": c.cmd_id, "api": c.api, "tid": c.tid, "queue": format!("{:016X}", c.queue), "kernel": c.kernel,
                "global": c.global, "local": c.local, "bytes": c.bytes, "queued": c.queued, "submit": c.submit, "start": c.start, "end": c.end, "status": c.status});
            let sep: &[u8] = if first { b"\n    " } else { b",\n    " };
            first = false;
            if result.is_ok() {
                result = out.write_all(sep).and_then(|_| out.write_all(v.to_string().as_bytes()));
            }
        });
        result?;
        out.write_all(b"\n  ]\n}\n")?;
        out.flush()
    };
    if let Err(e) = write() {
        cltap::warn!("cannot write {}: {e}", path.display());
    }
}

/// The device-side tables of the summary.
fn device_tables() -> String {
    let t = cltap::devtime::tables();
    let mut s = String::new();
    let indent = |t: String| t.lines().map(|l| format!("cltap:   {l}\n")).collect::<String>();
    s += &format!("cltap: device time per kernel ({} commands timed)\n", cltap::devtime::count());
    s += &indent(cltap::devtime::render_kernels(&t.kernels()));
    let tr = t.transfers();
    if !tr.is_empty() {
        s += "cltap: transfers\n";
        s += &indent(cltap::devtime::render_transfers(&tr));
    }
    for (dev, timer) in cltap::devtime::device_clocks() {
        let how = if timer { "clGetDeviceAndHostTimer" } else { "an offset measured from the enqueue calls (no host timer)" };
        s += &format!("cltap: {dev}: device times put on the host clock with {how}\n");
    }
    let pending = crate::devtime::pending();
    if pending > 0 {
        s += &format!("cltap: {pending} command(s) had not completed when the process ended; they are not timed\n");
    }
    let untimed = cltap::devtime::untimed_commands();
    if !untimed.is_empty() {
        s += &format!("cltap: {} command(s) could not be timed (first: {} {}: {})\n", untimed.len(), untimed[0].1, untimed[0].0, untimed[0].2);
    }
    s
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
