//! The trace's life: made on first use, a background thread that prepares
//! chunks and renders sealed ones, the rendering at the end of the process
//! (exit, SIGTERM, SIGINT, abort), and a fresh trace after `fork`. A process
//! that dies otherwise leaves its trace for `cltap run` or `cltap render`.

use super::buffers::{Policy, Settings};
use super::file::TraceFile;
use super::settings::{process_info, stem, TraceSettings};
use super::tsc;
use crate::render::{Renderer, Results};
use cltap_formats::cltrace::{Clock, Reader};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// One process's trace.
pub struct Trace {
    pub file: TraceFile,
    buffers: Settings,
    renderer: Mutex<Option<Renderer>>,
    pub finished: AtomicBool,
    /// Threads that recorded; discard mode allows about one chunk each
    /// awaiting rendering.
    pub threads: AtomicUsize,
    start: (u64, u64),
    /// The clock's rate, recorded once: complete only once it is in the
    /// header, so that no renderer opens between the decision and the
    /// write and measures a rate of its own (it differed from the trace's,
    /// and `cltap render` then wrote other durations).
    rate_set: std::sync::Once,
    render: bool,
    drop_trace: bool,
}

static CURRENT: AtomicPtr<Trace> = AtomicPtr::new(std::ptr::null_mut());
/// The trace while records may still go into it: `CURRENT` until it
/// finishes, null after (and after a fork, until the child's trace is
/// made). A thread's state made for this trace needs no other test per
/// call, of the fork or of the trace's end; any other value sends the call
/// down the slow path, which tells them apart (`local::with_local`).
static RECORDING: AtomicPtr<Trace> = AtomicPtr::new(std::ptr::null_mut());
/// Bumped in a forked child: thread state made before the fork is stale.
pub(crate) static GENERATION: AtomicU64 = AtomicU64::new(1);
/// Set once, at start-up: read without a lock (a lock held by a thread of
/// the parent at a `fork` would stay held in the child).
static SETTINGS: std::sync::OnceLock<TraceSettings> = std::sync::OnceLock::new();
/// The generation whose trace a thread is making (see [`current`]).
static MAKING: AtomicU64 = AtomicU64::new(0);
/// A trace that could not be made is not retried on every call.
static FAILED: AtomicU64 = AtomicU64::new(0);

/// Turns tracing on with `s`. Called once by the layer at start-up.
pub fn start(s: TraceSettings) {
    if SETTINGS.set(s).is_err() {
        return;
    }
    // SAFETY: a plain function pointer.
    unsafe {
        libc::pthread_atfork(None, None, Some(after_fork_in_child));
    }
    current();
}

extern "C" fn after_fork_in_child() {
    // Only atomic stores: the child gets a new trace on its first call.
    GENERATION.fetch_add(1, Ordering::AcqRel);
    RECORDING.store(std::ptr::null_mut(), Ordering::SeqCst);
    CURRENT.store(std::ptr::null_mut(), Ordering::Release);
}

#[inline]
pub(crate) fn current_ptr() -> *const Trace {
    CURRENT.load(Ordering::Relaxed)
}

/// [`RECORDING`]: the current trace if it has not finished, else null.
#[inline(always)]
pub(crate) fn recording_ptr() -> *const Trace {
    RECORDING.load(Ordering::Relaxed)
}

/// Records the measured HSA clock offset (ns, HSA timestamp minus
/// `CLOCK_MONOTONIC`) in the current trace's information, and keeps it for
/// traces begun later; false when the header page had no room.
pub fn record_hsa_clock_offset(offset: i64) -> bool {
    let (key, value) = super::hsa_clock::remember(offset);
    match current() {
        Some(t) => t.file.add_info(key, &value),
        None => true,
    }
}

/// The trace of this process, made on first use (and again after `fork`).
/// One thread makes it; a thread that asks meanwhile (the child of a fork
/// whose threads all make their first call at once) waits for it, and its
/// call is recorded.
pub fn current() -> Option<&'static Trace> {
    thread_local! {
        /// This thread is making the trace: a signal handler's call on it
        /// meanwhile cannot wait for it (as any call made while the thread
        /// writes a record, it is not recorded).
        static MAKER: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    let s = SETTINGS.get()?;
    let gen = loop {
        let p = CURRENT.load(Ordering::Acquire);
        if !p.is_null() {
            return Some(unsafe { &*p });
        }
        let gen = GENERATION.load(Ordering::Acquire);
        if FAILED.load(Ordering::Acquire) == gen {
            return None;
        }
        // Whoever moves MAKING to this generation makes the trace; a value
        // left from before a fork is another generation's.
        let m = MAKING.load(Ordering::Acquire);
        if m != gen && MAKING.compare_exchange(m, gen, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            break gen;
        }
        if MAKER.try_with(|b| b.get()).unwrap_or(true) {
            return None;
        }
        // Making a trace takes milliseconds, once per process.
        std::thread::yield_now();
    };
    let _ = MAKER.try_with(|b| b.set(true));
    let made = Trace::new(s);
    let _ = MAKER.try_with(|b| b.set(false));
    let t = match made {
        Ok(t) => Box::into_raw(Box::new(t)),
        Err(e) => {
            FAILED.store(gen, Ordering::Release);
            crate::warn!("cannot create the trace in {}: {e}; calls are passed through unrecorded", s.dir.display());
            return None;
        }
    };
    match CURRENT.compare_exchange(std::ptr::null_mut(), t, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => {
            let tr: &'static Trace = unsafe { &*t };
            // Both sides SeqCst: a `finish` racing with this either sees
            // the pointer and clears it, or is seen here.
            RECORDING.store(t, Ordering::SeqCst);
            if tr.finished.load(Ordering::SeqCst) {
                let _ = RECORDING.compare_exchange(t, std::ptr::null_mut(), Ordering::SeqCst, Ordering::SeqCst);
            }
            // A panic ends the thread only: the application's threads
            // then map their own chunks, and the end renders what is left
            // (docs/architecture.md#panics).
            let _ = std::thread::Builder::new()
                .name("cltap-prep".into())
                .spawn(move || crate::panics::thread_body("the cltap-prep thread", || tr.prepare_chunks()));
            if tr.render {
                let _ = std::thread::Builder::new()
                    .name("cltap-writer".into())
                    .spawn(move || crate::panics::thread_body("the cltap-writer thread", || tr.background()));
            }
            Some(tr)
        }
        Err(other) => {
            drop(unsafe { Box::from_raw(t) });
            Some(unsafe { &*other })
        }
    }
}

impl Trace {
    fn new(s: &TraceSettings) -> std::io::Result<Trace> {
        let pid = std::process::id();
        let source = tsc::init();
        let start = (tsc::now(), tsc::monotonic_ns());
        // With `mono0`, the two clocks' relation at the start, for the
        // renderings that name both (the `.pftrace`'s clock snapshot).
        let boot0 = tsc::boottime_ns();
        let clock = if source == tsc::Source::InvariantTsc { Clock::InvariantTsc } else { Clock::Monotonic };
        let mut info = process_info(pid);
        info.push(("boot0".to_string(), boot0.to_string()));
        info.extend(s.info());
        info.extend(super::hsa_clock::info());
        let pairs: Vec<(&str, &str)> = info.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let buffers = s.buffers.normalized();
        let path = s.dir.join(format!("{}.cltrace", stem(pid)));
        let file = TraceFile::create(&path, buffers.size, clock, start.0, start.1, &pairs, s.limits.trace)?;
        let outputs = s.outputs(stem(pid));
        let renderer = match Reader::open(&path) {
            Ok(r) => Some(Renderer::new(r, outputs)),
            Err(e) => {
                crate::warn!("{e}; nothing is rendered during the run (`cltap render` can do it afterwards)");
                None
            }
        };
        Ok(Trace {
            file,
            buffers,
            renderer: Mutex::new(renderer),
            finished: AtomicBool::new(false),
            threads: AtomicUsize::new(0),
            start,
            rate_set: std::sync::Once::new(),
            render: s.render,
            drop_trace: s.limits.drop_trace,
        })
    }

    pub fn discard(&self) -> bool {
        self.buffers.policy == Policy::Discard
    }

    pub fn watermark(&self) -> usize {
        self.buffers.watermark
    }

    fn is_stale(&self) -> bool {
        !std::ptr::eq(CURRENT.load(Ordering::Acquire), self)
    }

    /// Records the clock's rate once 20 ms have passed (waiting for them
    /// when `wait`).
    fn measure_rate(&self, wait: bool) {
        if self.rate_set.is_completed() {
            return;
        }
        let min = 20_000_000u64;
        let elapsed = tsc::monotonic_ns() - self.start.1;
        if elapsed < min {
            if !wait {
                return;
            }
            std::thread::sleep(Duration::from_nanos(min - elapsed));
        }
        self.rate_set.call_once(|| self.file.set_rate(tsc::now(), tsc::monotonic_ns()));
    }

    /// Keeps chunks mapped and faulted in ahead of the application's
    /// threads, woken as soon as one is taken.
    fn prepare_chunks(&'static self) {
        block_signals();
        let _ = self.file.preparer.set(std::thread::current());
        while !self.finished.load(Ordering::Acquire) && !self.is_stale() {
            self.file.prepare();
            self.measure_rate(false);
            std::thread::park_timeout(Duration::from_millis(10));
        }
    }

    /// Renders sealed chunks during the run.
    fn background(&'static self) {
        block_signals();
        let mut idle = Duration::from_millis(1);
        loop {
            if self.finished.load(Ordering::Acquire) || self.is_stale() {
                return;
            }
            let mut did = false;
            loop {
                // One chunk per turn of the lock, so the rendering at exit
                // never waits behind a whole backlog.
                let mut r = self.renderer.lock();
                if self.finished.load(Ordering::Acquire) || self.is_stale() {
                    return;
                }
                let Some((seal, index)) = self.file.sealed.pop() else {
                    if did {
                        if let Some(r) = r.as_mut() {
                            r.flush();
                        }
                    }
                    break;
                };
                self.measure_rate(true);
                if let Some(r) = r.as_mut() {
                    r.sealed(seal, index);
                }
                self.file.pending.fetch_sub(1, Ordering::AcqRel);
                did = true;
            }
            idle = if did { Duration::from_millis(1) } else { (idle * 2).min(Duration::from_millis(20)) };
            std::thread::sleep(idle);
        }
    }

    /// Renders every sealed chunk now and writes out what the sinks hold,
    /// the trace going on (the end's first part: the tools may read the
    /// API log during their `OnUnloadTool`).
    pub fn catch_up(&self) {
        if !self.render || self.finished.load(Ordering::Acquire) {
            return;
        }
        let _xfsz = HoldXfsz::new();
        let mut guard = self.renderer.lock();
        if self.finished.load(Ordering::Acquire) {
            return;
        }
        let Some(r) = guard.as_mut() else { return };
        self.render_sealed(r);
        r.flush();
    }

    /// Renders every chunk sealed so far, in seal order.
    fn render_sealed(&self, r: &mut Renderer) {
        // The renderer opens at its first chunk and takes the header's rate.
        self.measure_rate(true);
        while let Some((seal, index)) = self.file.sealed.pop() {
            r.sealed(seal, index);
            self.file.pending.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Renders everything recorded so far, then the trailer. Runs once.
    pub fn finish(&self) {
        if self.finished.swap(true, Ordering::SeqCst) {
            return;
        }
        let me = self as *const Trace as *mut Trace;
        let _ = RECORDING.compare_exchange(me, std::ptr::null_mut(), Ordering::SeqCst, Ordering::SeqCst);
        self.measure_rate(true);
        if !self.render {
            // Nothing is rendered, so no buffer gets records; the tools
            // still end before the trace is marked finished.
            crate::tools::toollib_end::end_of_records();
            self.file.mark_finished();
            self.file.trim();
            return;
        }
        // Writing past the file-size limit raises SIGXFSZ in the writing
        // thread; here it must only fail the write.
        let _xfsz = HoldXfsz::new();
        // Only the background thread (which blocks signals) and this
        // function take the lock, and this function runs once.
        let mut guard = self.renderer.lock();
        let Some(r) = guard.as_mut() else { return };
        self.render_sealed(r);
        // The application is done: all cores render what is left.
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let drops = r.finish(threads);
        self.file.mark_finished();
        self.file.trim();
        if drops > 0 {
            crate::warn!(
                "{drops} call records were dropped (CLTAP_BUFFER_POLICY=discard, CLTAP_TRACE_LIMIT, or a trace that could not grow); lossless without a limit keeps them"
            );
        }
        if self.drop_trace {
            self.drop_rendered(r.results());
        }
    }

    /// `CLTAP_DROP_TRACE`: the trace goes once every file holds all it
    /// shows; a file cut at its limit, or records the trace lost, keep it
    /// (the trace is then the only whole record), and say so.
    fn drop_rendered(&self, results: &Results) {
        let path = &self.file.path;
        if !results.limited.is_empty() || results.lost > 0 {
            crate::warn!(
                "{} is kept although CLTAP_DROP_TRACE=1: {}",
                path.display(),
                if results.lost > 0 {
                    "some of its records could not be rendered"
                } else {
                    "an output stopped at CLTAP_OUTPUT_LIMIT, and the trace holds the rest"
                }
            );
            return;
        }
        if let Err(e) = std::fs::remove_file(path) {
            crate::warn!("cannot delete {} (CLTAP_DROP_TRACE=1): {e}", path.display());
        }
    }
}

/// Blocks SIGXFSZ on this thread while it lives; one raised meanwhile (by
/// a write of cltap's past the file-size limit) is taken off before the
/// mask is restored, so the application never receives it.
struct HoldXfsz {
    old: libc::sigset_t,
}

impl HoldXfsz {
    fn new() -> HoldXfsz {
        // SAFETY: plain signal-mask calls on this thread.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGXFSZ);
            let mut old: libc::sigset_t = std::mem::zeroed();
            libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
            HoldXfsz { old }
        }
    }
}

impl Drop for HoldXfsz {
    fn drop(&mut self) {
        // SAFETY: as above; a zero timeout only polls.
        unsafe {
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, libc::SIGXFSZ);
            let zero = libc::timespec { tv_sec: 0, tv_nsec: 0 };
            if libc::sigismember(&self.old, libc::SIGXFSZ) == 0 {
                while libc::sigtimedwait(&set, std::ptr::null_mut(), &zero) == libc::SIGXFSZ {}
            }
            libc::pthread_sigmask(libc::SIG_SETMASK, &self.old, std::ptr::null_mut());
        }
    }
}

/// Signal handlers never run on cltap's threads, so a fatal signal's
/// rendering can wait for them to let go of the renderer.
fn block_signals() {
    // SAFETY: masks signals for the calling thread only.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_BLOCK, &all, std::ptr::null_mut());
    }
}

fn with_renderer<T>(f: impl FnOnce(&Renderer) -> T) -> Option<T> {
    let p = CURRENT.load(Ordering::Acquire);
    if p.is_null() {
        return None;
    }
    let g = unsafe { &*p }.renderer.try_lock_for(Duration::from_secs(1))?;
    g.as_ref().map(f)
}

/// The host-API tally of everything rendered, times in nanoseconds.
pub fn host_table() -> Option<Vec<crate::report::Row>> {
    with_renderer(|r| r.host_table())
}

/// What the renderer's sinks learnt (complete once the trace finished).
pub fn results() -> Option<Results> {
    with_renderer(|r| r.results().clone())
}

/// For a tool's flush (`cltap_flush_buffer`): gives the tools' buffers
/// every complete record the trace holds now, rendered or not. Nothing
/// when the trace is not rendered or has ended. `me`: the calling thread's
/// trace id.
pub fn feed_tools_now(me: u32) {
    let p = CURRENT.load(Ordering::Acquire);
    if p.is_null() {
        return;
    }
    let t = unsafe { &*p };
    if !t.render || t.finished.load(Ordering::Acquire) {
        return;
    }
    // Between two chunks of the background thread's rendering.
    let mut g = t.renderer.lock();
    if t.finished.load(Ordering::Acquire) {
        return;
    }
    if let Some(r) = g.as_mut() {
        r.feed_tools_live(me);
    }
}

/// Whether this process has a trace that has not finished.
pub fn running() -> bool {
    let p = CURRENT.load(Ordering::Acquire);
    !p.is_null() && !unsafe { &*p }.finished.load(Ordering::Acquire)
}

/// Ends the trace of this process (through `process::finish`, which first
/// retires the calling thread's chunk).
pub fn finish() {
    let p = CURRENT.load(Ordering::Acquire);
    if !p.is_null() {
        unsafe { &*p }.finish();
    }
}

/// See [`Trace::catch_up`].
pub fn catch_up() {
    let p = CURRENT.load(Ordering::Acquire);
    if !p.is_null() {
        unsafe { &*p }.catch_up();
    }
}

// No signal handler: a fatal signal (SIGINT, SIGTERM, SIGABRT, SIGSEGV...)
// ends the process at once, with the status it has without cltap. Nothing
// that can block may run in a handler (the interrupted thread may hold any
// lock: a tool's, the allocator's, the renderer's), and rendering is not
// async-signal-safe. The records are already in the trace file, which
// survives the process: `cltap run` renders it after the death, and
// `cltap render` renders a trace left without the launcher
// (docs/trace-format.md, "When the process ends").
