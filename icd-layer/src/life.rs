//! The layer's start-up and finish: the configuration is read on first
//! use, which starts the trace and registers the end-of-process handler;
//! the reports are written once at the end. An API's front end (OpenCL,
//! HSA) may join in with a [`Front`] before it first asks for the
//! configuration, and the parts that can start the layer name what starts
//! the tools ([`start_tools_with`]): the bottom names nothing above it.

use crate::bracket::{self, HSA_TALLY, TALLY};
use cltap::config::Config;
use cltap::fork::lock::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

static CONFIG: OnceLock<Config> = OnceLock::new();
static FINISHED: AtomicBool = AtomicBool::new(false);
/// The part of the end that needs the drivers and the tools has run.
static PREPARED: AtomicBool = AtomicBool::new(false);
/// Every setting was good: calls may be recorded (else a pure pass-through).
static RECORDING: AtomicBool = AtomicBool::new(false);
pub(crate) static FRONTS: Mutex<Vec<&'static Front>> = Mutex::new(Vec::new());

/// What an API's front end adds to the end of the process.
pub struct Front {
    /// Reads what it still holds of the drivers' (device timing's events)
    /// and lets go of it, before the trace is closed.
    pub drain: fn(),
    /// Lines for the summary's notes.
    pub notes: fn() -> Vec<String>,
    /// The HSA facts for the summary (packets by type, kernels), from the
    /// front that has them.
    pub hsa: Option<fn() -> cltap::summary::HsaExtra>,
}

/// What loads the `ROCP_TOOL_LIB` tools once the configuration is in place.
static START_TOOLS: OnceLock<fn(&Config, bool)> = OnceLock::new();

/// Names what loads the tools; every entry that can start the layer names
/// it before it asks for the configuration (the first one named is kept).
pub fn start_tools_with(f: fn(&Config, bool)) {
    let _ = START_TOOLS.set(f);
}

/// Adds `f` to the end of the process (once, however often it is called).
pub fn join(f: &'static Front) {
    let mut v = FRONTS.lock();
    if !v.iter().any(|g| std::ptr::eq(*g, f)) {
        v.push(f);
    }
}

fn fronts() -> Vec<&'static Front> {
    FRONTS.lock().clone()
}

/// The configuration, read on first use. A bad setting is reported once and
/// turns all recording off; calls are still forwarded.
pub fn config() -> &'static Config {
    let cfg = CONFIG.get_or_init(|| {
        cltap::panics::install();
        cltap::fastpath::listen(crate::bracket::refresh_fast);
        let (cfg, good) = crate::config::read();
        cltap::naming::set_name_template(cfg.output_name.clone());
        // A rank CLTAP_RANKS leaves out runs as a pass-through, silently.
        let record = good && cfg.selects(&cltap::naming::Process::current());
        RECORDING.store(record, Ordering::Release);
        TALLY.enable(record && cfg.summarizes());
        HSA_TALLY.enable(record && cfg.summarizes());
        cltap::devtime::enable(record && cfg.times_devices());
        if record && cfg.times_devices() {
            let name = format!("{}.commands", cltap::trace::settings::stem(std::process::id()));
            cltap::devtime::configure_spill(&cfg.output_dir, &format!(".{name}"));
        }
        if record {
            cltap::programs::configure(&cfg.programs, &cfg.output_dir);
            cltap::controls::configure(&cfg.controls);
            cltap::dumps::configure(&cfg.dumps, &cfg.output_dir);
            pin_and_register_exit();
            cltap::kfilter::install(&cfg.kernels);
            if cfg.records_calls() {
                start_trace(&cfg);
            } else {
                cltap::window::arm(&cfg.window);
            }
            if let Some(t) = &cfg.test_panic {
                crate::guard::arm_test_panic(t);
            }
        }
        // Only now may a wrapper take its fast path: everything it sums up
        // is in place.
        crate::bracket::refresh_fast();
        cfg
    });
    // ROCP_TOOL_LIB, once the configuration is in place: a tool may call
    // back into cltap (its buffers) while it loads.
    if let Some(start) = START_TOOLS.get() {
        start(cfg, RECORDING.load(Ordering::Acquire));
    }
    cfg
}

/// The application's `cltap_pause` / `cltap_resume` (nothing when cltap
/// only passes calls through).
pub fn set_paused(paused: bool) {
    if recording() {
        cltap::window::set_paused(paused);
    }
}

/// Whether the configuration (read first) was good: with a bad setting,
/// cltap only passes calls through.
pub fn recording() -> bool {
    config();
    RECORDING.load(Ordering::Acquire)
}

fn start_trace(cfg: &Config) {
    use cltap::config::LogDest;
    use cltap::render::Dest;
    use cltap::trace::settings::TraceSettings;
    let settings = TraceSettings {
        buffers: cltap::trace::buffers::Settings {
            size: cfg.buffer_size,
            watermark: cfg.watermark_bytes(),
            policy: if cfg.lossless {
                cltap::trace::buffers::Policy::Lossless
            } else {
                cltap::trace::buffers::Policy::Discard
            },
        },
        dir: cfg.output_dir.clone(),
        api_log: cfg.api_log.then_some(match cfg.log_dest {
            LogDest::File => Dest::File,
            LogDest::Stderr => Dest::Stderr,
            LogDest::Stdout => Dest::Stdout,
        }),
        options: cltap::render::printer::Options { decode: cfg.decode, kernels: None },
        timeline: cfg.timeline,
        pftrace: cfg.pftrace,
        rocpd: cfg.rocpd,
        atp: cfg.atp,
        memory: cfg.memory,
        render: cfg.render,
        summary: cfg.summarizes(),
        device_timing: cfg.times_devices(),
        counters: cfg.counting().then(|| cltap::counters::collect::Request {
            names: cfg.counters.clone(),
            metrics_file: cfg.metrics_file.clone(),
            pass: cfg.counter_pass,
        }),
        controls: cfg.controls,
        limits: cfg.limits,
    };
    cltap::trace::process::start(settings);
    // Device timing's results go into the trace, so that every rendering
    // of it has them (the process's own included).
    cltap::devtime::deliver::to_trace(cltap::devtime::deliver::Deliver {
        timed: cltap::trace::delivered::command,
        completed: cltap::trace::delivered::command_ref,
        untimed: cltap::trace::delivered::untimed,
    });
    // Before any call is recorded: the window's first state and record.
    cltap::window::arm(&cfg.window);
    bracket::record_calls(|n| cfg.logs(n), cfg.errors_only);
}

/// Keeps the layer mapped until the process ends: its wrappers and exit
/// handler must outlive any `dlclose` by a loader or a runtime.
pub fn pin() {
    if let Some(path) = cltap::icd::vendors::self_path() {
        if let Ok(c) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) {
            // SAFETY: re-opening an already loaded library only bumps its count.
            unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD | libc::RTLD_NODELETE) };
        }
    }
}

/// Pins the layer (see [`pin`]) and registers the first part of the end.
///
/// The end comes in two parts, because exit handlers registered before
/// cltap's (and destructors of C++ objects built before the first call) run
/// after it and still make calls. cltap's exit handler does what needs the
/// drivers and the tools while they are all there ([`prepare_exit`]); the
/// trace is closed and rendered by the layer's finaliser, which the dynamic
/// linker runs after every exit handler ([`at_the_very_end`]).
fn pin_and_register_exit() {
    pin();
    extern "C" fn at_exit() {
        cltap::panics::catch("cltap's exit handler", "the rest of the end runs in the finaliser", (), prepare_exit);
    }
    // SAFETY: registering a plain function.
    unsafe { libc::atexit(at_exit) };
}

/// The layer's finaliser, after every exit handler of the process: the
/// trace ends (if `clDeinitLayer`, the HSA runtime or nothing ended it
/// before), then says how many calls came after it and could not be
/// recorded, so that none is lost silently.
///
/// Not the drivers': in ICD mode cltap loads them, so their finalisers ran
/// before this one, and nothing here calls them ([`finish`] after
/// [`prepare_exit`] does not).
extern "C" fn at_the_very_end() {
    cltap::panics::catch("cltap's finaliser", "the files may be incomplete", (), || {
        if PREPARED.load(Ordering::Acquire) {
            finish();
        }
        let n = cltap::trace::process::take_late_records();
        if n > 0 {
            cltap::warn!(
                "{n} call(s) came after cltap ended its trace (from finalisers of libraries that ran after cltap's, or after the HSA runtime unloaded it) and are not in its files"
            );
        }
    });
}

#[used]
#[link_section = ".fini_array"]
static AT_THE_VERY_END: extern "C" fn() = at_the_very_end;

/// The part of the end that needs the drivers and the tools, run by cltap's
/// exit handler (or first thing by [`finish`]): device timing reads what
/// completed; what is recorded so far is rendered; the tools get every
/// record so far and their `OnUnloadTool`. Calls made after it are still
/// recorded, but their commands are not timed and the tools do not see
/// them.
pub fn prepare_exit() {
    if PREPARED.swap(true, Ordering::AcqRel) || CONFIG.get().is_none() {
        return;
    }
    for f in fronts() {
        (f.drain)();
    }
    // The API log holds what was recorded so far before the tools end (they
    // may read it), and their buffers get the records of chunks other
    // threads still write.
    cltap::trace::process::catch_up();
    cltap::trace::process::feed_tools_now();
    cltap::tools::toollib_end::end_of_records();
}

/// End of process (or `clDeinitLayer`): writes the reports once.
pub fn finish() {
    if FINISHED.swap(true, Ordering::AcqRel) {
        return;
    }
    let Some(cfg) = CONFIG.get() else { return };
    prepare_exit();
    // An open window closes with the trace.
    cltap::window::end();
    // What the summary shows of the end goes into the trace, and the
    // summary is made from the trace as `cltap render` makes it.
    let traced = cfg.summarizes() && cltap::trace::writer::running();
    if traced {
        cltap::trace::delivered::end(&end_facts(cfg));
    }
    cltap::trace::process::finish();
    // The trace's finish ended the tools before closing its files; without
    // a trace they end here.
    cltap::tools::toollib_end::end_of_records();
    let results = cltap::trace::writer::results().filter(|_| traced);
    if traced && !cfg.render {
        // Nothing was rendered: a summary would count nothing. The trace
        // holds what it would show.
        let trace = cfg.output_dir.join(format!("{}.cltrace", cltap::trace::settings::stem(std::process::id())));
        cltap::warn!(
            "{} is not rendered (CLTAP_RENDER=0); `cltap render {}` makes its files and summary",
            trace.display(),
            trace.display()
        );
    } else if let Some(results) = results {
        let s = cltap::summary::Summary::of_trace(std::process::id(), cfg.times_devices(), &results);
        write_summary(cfg, &s, s.hsa());
    } else if cfg.summarizes() {
        use cltap::summary::{Host, Summary};
        // With the trace, every call's time is known; without it only the
        // counts are kept. Under CLTAP_ERRORS_ONLY the trace holds only the
        // failed calls: the counts cover them all.
        let host = match cltap::trace::writer::host_table().filter(|r| !r.is_empty() && !cfg.errors_only) {
            Some(rows) => Host::Timed(rows),
            None => Host::Counted(tally()),
        };
        let notes = fronts().iter().flat_map(|f| (f.notes)()).collect();
        let results = cltap::trace::writer::results().unwrap_or_default();
        let pending_at_exit = cltap::devtime::pending::OUTSTANDING.get();
        let spill = format!(".{}.summary.commands", cltap::trace::settings::stem(std::process::id()));
        let device = cltap::devtime::Commands::from_store(Some(cfg.output_dir.join(spill)));
        let s = Summary {
            pid: std::process::id(),
            host,
            device_timing: cfg.times_devices(),
            pending_at_exit,
            results: &results,
            notes,
            device: &device,
            dumps: cltap::dumps::facts(),
        };
        // HSA: the intercept handler's counts, when cltap was loaded as an
        // HSA tool (zero without ROCP_HSA_INTERCEPT).
        let hsa = fronts().iter().find_map(|f| f.hsa).map(|f| f());
        write_summary(cfg, &s, hsa.as_ref());
    }
    cltap::devtime::remove_spill();
}

/// The call counts of the whole run, OpenCL's then HSA's.
fn tally() -> Vec<(String, u64, u64)> {
    TALLY
        .snapshot()
        .into_iter()
        .map(|(i, c, e)| (cltap::meta::FUNCTIONS[i].name.to_string(), c, e))
        .chain(HSA_TALLY.snapshot().into_iter().map(|(i, c, e)| (cltap::meta::HSA_FUNCTIONS[i].name.to_string(), c, e)))
        .collect()
}

/// What the summary shows of the end beyond the trace's calls.
fn end_facts(cfg: &Config) -> cltap::trace::delivered::EndFacts {
    cltap::trace::delivered::EndFacts {
        pending: cltap::devtime::pending::OUTSTANDING.get(),
        notes: fronts().iter().flat_map(|f| (f.notes)()).collect(),
        hsa: fronts().iter().find_map(|f| f.hsa).map(|f| f()),
        // Under CLTAP_ERRORS_ONLY the trace holds only the failed calls:
        // the counts cover them all.
        counted: cfg.errors_only,
        tally: tally(),
        dumps: cltap::dumps::facts(),
    }
}

/// The summary's file and its table on stderr.
fn write_summary(cfg: &Config, s: &cltap::summary::Summary<'_>, hsa: Option<&cltap::summary::HsaExtra>) {
    let path = cfg.output_dir.join(format!("{}.summary.json", cltap::trace::settings::stem(std::process::id())));
    if let Err(e) = s.write_json_with(&path, hsa) {
        cltap::warn!("cannot write {}: {e}", path.display());
    }
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(s.table_with(hsa).as_bytes());
}
