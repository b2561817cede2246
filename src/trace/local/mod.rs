//! The hot path: each application thread writes its calls' records in place
//! into its own chunk of the trace. Opening a record (before the call is
//! forwarded) and completing it (after it returns) are plain stores into
//! mapped memory: no lock, no allocation, no system call, no formatting,
//! and nothing that other threads write. Only changing chunks, once per
//! thousands of records, touches shared state.
//!
//! A call made inside another on the same thread (a callback the driver
//! runs synchronously) opens its own record after the outer one. The outer
//! call, completed later, then cannot grow in place: its completed copy is
//! written after the inner records and the opened one is marked moved.
//! Chunks filled while a call is open are sealed only once no call is open,
//! so the renderer never sees a call as unfinished that is still running.

use super::capture::{compact_state, complete_compact, open_compact};
use super::file::Chunk;
use super::record::{FLAG_MOVED, HEADER, KIND_HSA_CALL, KIND_OPENCL_CALL, MAX_RECORD};
use super::writer::{current, Trace, GENERATION};
use crate::meta::Described;
use cltap_formats::cltrace::compact::{Prev, STATE_WIDE};
use std::sync::atomic::Ordering;

pub(crate) struct Local {
    trace: *const Trace,
    generation: u64,
    tid: u32,
    seq: u32,
    chunk: Option<Chunk>,
    data: *mut u8,
    cap: usize,
    used: usize,
    /// Calls opened and not yet completed on this thread.
    depth: u32,
    /// Chunks filled while a call was open, sealed when none is.
    held: Vec<Chunk>,
    /// Set while a record is being written; a signal handler that calls
    /// OpenCL meanwhile is not recorded.
    busy: bool,
    /// HSA calls opened on this thread: each record's number (its `cmd_id`).
    hsa_calls: u64,
    /// The number of the innermost HSA call open on this thread (0: none):
    /// what a dispatch submitted from inside that call names as its cause.
    open_hsa: u64,
    /// What the chunk's next call record is written relative to (its
    /// start time and argument words as deltas from the last one's).
    prev: Prev,
}

/// A record opened before a call; `rec` is null when the call is not
/// recorded (tracing off, the record dropped, a re-entrant signal handler).
#[derive(Clone, Copy)]
pub struct Opened {
    rec: *mut u8,
    /// The thread's state and the trace it wrote to: completing the record
    /// needs no second thread-local lookup.
    local: *mut Local,
    trace: *const Trace,
    len: u32,
    /// The record's state byte as opened, and its function.
    state: u8,
    fn_id: u16,
    chunk: u64,
    /// For an HSA call: the HSA call open around it, restored when it ends.
    outer_hsa: u64,
    /// What the opened part says, for a copy completed at the end.
    t0: u64,
    cmd: u64,
}

impl Opened {
    pub const NONE: Opened = Opened {
        rec: std::ptr::null_mut(),
        local: std::ptr::null_mut(),
        trace: std::ptr::null(),
        len: 0,
        state: 0,
        fn_id: 0,
        chunk: 0,
        outer_hsa: 0,
        t0: 0,
        cmd: 0,
    };
}

thread_local! {
    // No destructor: the C library runs thread-local destructors of the
    // main thread before the exit handlers, and an application's exit
    // handlers and static destructors still make calls that must be
    // recorded. A thread's end is seen through a pthread key instead
    // (`thread_exit`), which the main thread's `exit` never runs; the end
    // of the process retires the main thread's chunk.
    static LOCAL: std::cell::UnsafeCell<std::mem::ManuallyDrop<Option<Local>>> =
        const { std::cell::UnsafeCell::new(std::mem::ManuallyDrop::new(None)) };
    static TID: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// The key whose destructor runs when a thread that recorded ends.
fn exit_key() -> Option<libc::pthread_key_t> {
    static KEY: std::sync::OnceLock<Option<libc::pthread_key_t>> = std::sync::OnceLock::new();
    *KEY.get_or_init(|| {
        let mut k: libc::pthread_key_t = 0;
        // SAFETY: `thread_exit` is a plain function that never unwinds.
        (unsafe { libc::pthread_key_create(&mut k, Some(thread_exit)) } == 0).then_some(k)
    })
}

/// A thread that recorded ends (never the main thread's `exit`): its
/// state goes, handing its chunks to the renderer (`Local`'s `Drop`).
unsafe extern "C" fn thread_exit(_: *mut std::ffi::c_void) {
    let _ = std::panic::catch_unwind(|| {
        let _ = LOCAL.try_with(|cell| {
            // SAFETY: this thread's own state; no call of it is in progress
            // (the thread has left every wrapper).
            drop(unsafe { (**cell.get()).take() });
        });
    });
}

/// The kernel's id for this thread, asked once per thread.
#[inline]
pub fn thread_id() -> u32 {
    TID.try_with(|t| {
        let v = t.get();
        if v != 0 {
            return v;
        }
        let v = unsafe { libc::syscall(libc::SYS_gettid) } as u32;
        t.set(v);
        v
    })
    .unwrap_or(0)
}

impl Local {
    fn new(tr: &Trace, generation: u64) -> Local {
        tr.threads.fetch_add(1, Ordering::Relaxed);
        Local {
            trace: tr,
            generation,
            tid: thread_id(),
            seq: 0,
            chunk: None,
            data: std::ptr::null_mut(),
            cap: 0,
            used: 0,
            depth: 0,
            held: Vec::with_capacity(4),
            busy: false,
            hsa_calls: 0,
            open_hsa: 0,
            prev: Prev::default(),
        }
    }

    fn trace(&self) -> &'static Trace {
        // SAFETY: traces are never freed (a forked child makes a new one).
        unsafe { &*self.trace }
    }

    #[inline(always)]
    fn publish(&self) {
        if let Some(c) = &self.chunk {
            c.used_cell().store(self.used as u64, Ordering::Release);
        }
    }

    /// Moves to a new chunk. The old one is sealed, or held while a call is
    /// open. False when none can be had: discard mode with the renderer
    /// behind, or a trace that cannot grow.
    #[cold]
    fn rotate(&mut self) -> bool {
        let tr = self.trace();
        let behind =
            tr.discard() && tr.file.pending.load(Ordering::Acquire) >= tr.threads.load(Ordering::Relaxed).max(1);
        let next = if behind { None } else { tr.file.take(self.tid, self.seq) };
        let Some(mut next) = next else { return false };
        self.seq += 1;
        if let Some(old) = self.chunk.take() {
            if self.depth > 0 {
                self.held.push(old);
            } else {
                tr.file.seal(old);
            }
        }
        self.data = next.data();
        self.cap = tr.file.chunk_size - cltap_formats::cltrace::CHUNK_HEADER;
        self.used = 0;
        self.prev = Prev::default();
        self.chunk = Some(next);
        true
    }

    #[cold]
    fn drop_record(&mut self) {
        match &self.chunk {
            Some(c) => {
                c.drops_cell().fetch_add(1, Ordering::Relaxed);
            }
            None => self.trace().file.add_drops(1),
        }
    }

    /// Room for a whole record at the end of the chunk.
    #[inline(always)]
    fn room(&mut self) -> bool {
        self.cap - self.used >= MAX_RECORD || self.rotate()
    }

    fn seal_held(&mut self) {
        let tr = self.trace();
        for c in self.held.drain(..) {
            tr.file.seal(c);
        }
    }

    /// The thread ends, or the process: its chunks go to the renderer.
    fn retire(&mut self) {
        self.seal_held();
        if let Some(c) = self.chunk.take() {
            self.trace().file.seal(c);
        }
        // A call after this (at the end of the process, the exit handlers
        // that run after cltap's) starts a new chunk.
        self.data = std::ptr::null_mut();
        self.cap = 0;
        self.used = 0;
    }
}

impl Drop for Local {
    fn drop(&mut self) {
        // A thread that ends hands its records to the renderer, unless they
        // belong to a trace this process no longer owns (after fork).
        if self.generation == GENERATION.load(Ordering::Acquire)
            && std::ptr::eq(super::writer::current_ptr(), self.trace)
            && self.depth == 0
        {
            self.retire();
        }
    }
}

/// Records asked for after the trace ended (calls from finalisers of
/// libraries that run after cltap's, or after the HSA runtime unloaded
/// cltap): they cannot reach the files, so they are counted, and the count
/// is reported at the very end of the process ([`take_late_records`]).
static LATE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
/// The count was reported: a late record after that says so itself, once.
static LATE_REPORTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static LATE_SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// How many records were asked for after the trace ended, for the report
/// at the very end; any that come after it say so themselves.
pub fn take_late_records() -> u64 {
    LATE_REPORTED.store(true, Ordering::SeqCst);
    LATE.load(Ordering::SeqCst)
}

#[cold]
fn late_record() {
    LATE.fetch_add(1, Ordering::SeqCst);
    if LATE_REPORTED.load(Ordering::SeqCst) && !LATE_SAID.swap(true, Ordering::Relaxed) {
        crate::warn!(
            "calls came after cltap ended its trace and made its last report (from finalisers of libraries that ran after cltap's); they are not in its files"
        );
    }
}

/// This thread's state for the current trace, made on first use.
#[inline(always)]
unsafe fn with_local<R>(f: impl FnOnce(&mut Local) -> R) -> Option<R> {
    LOCAL
        .try_with(|cell| {
            let slot: &mut Option<Local> = &mut *cell.get();
            // Traces are never freed, so a new one (after a fork) never has
            // the address of the old: comparing the pointer is enough here.
            let fresh = matches!(slot, Some(l) if std::ptr::eq(l.trace, super::writer::current_ptr()));
            if !fresh {
                let gen = GENERATION.load(Ordering::Relaxed);
                let tr = current()?;
                if let Some(old) = slot.take() {
                    // Chunks made before a fork are the parent's.
                    std::mem::forget(old);
                }
                *slot = Some(Local::new(tr, gen));
                if let Some(k) = exit_key() {
                    // Any non-null value makes the key's destructor run.
                    libc::pthread_setspecific(k, std::ptr::dangling::<std::ffi::c_void>());
                }
            }
            let l = slot.as_mut()?;
            if l.busy {
                return None;
            }
            if l.trace().finished.load(Ordering::Relaxed) {
                late_record();
                return None;
            }
            l.busy = true;
            let r = f(l);
            l.busy = false;
            Some(r)
        })
        .ok()
        .flatten()
}

/// How far ahead of the record being written its chunk's memory is asked
/// for: the chunk's pages were faulted in by the preparer on another core,
/// so their lines are not in this core's cache, and a store to a line not
/// held waits for it (a cache miss per two records, the larger part of a
/// cheap call's cost). A few lines ahead, the line is here by the time a
/// record reaches it.
const PREFETCH_AHEAD: usize = 512;

/// Asks for the cache line at `p` to be written soon. A hint: never faults,
/// even past the end of the mapping.
#[inline(always)]
fn prefetch_for_write(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch has no effect on memory and never faults.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_ET0 }>(p as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Opens the record of an OpenCL call about to be forwarded.
///
/// # Safety
/// `args` are the call's argument words.
#[inline]
pub unsafe fn open(fn_id: usize, f: impl Described, cmd_id: Option<u64>, t0: u64, args: &[u64]) -> Opened {
    open_kind::<KIND_OPENCL_CALL, _>(fn_id, f, cmd_id, t0, args)
}

/// Opens the record of a call about to be forwarded; `KIND` says which
/// API's table `fn_id` and `f` come from (`KIND_HSA_CALL` for HSA's). A
/// constant, so that [`open`] is the code it was before records had kinds.
///
/// # Safety
/// `args` are the call's argument words.
#[inline]
pub unsafe fn open_kind<const KIND: u16, D: Described>(
    fn_id: usize,
    d: D,
    cmd_id: Option<u64>,
    t0: u64,
    args: &[u64],
) -> Opened {
    let f = d.meta();
    with_local(|l| {
        if !l.room() {
            l.drop_record();
            return Opened::NONE;
        }
        let rec = l.data.add(l.used);
        prefetch_for_write(rec.add(PREFETCH_AHEAD));
        let outer_hsa = l.open_hsa;
        let cmd = if KIND == KIND_HSA_CALL {
            // HSA calls take no command id: the record numbers them on their
            // thread, without CMD, so that a dispatch can name the call it
            // was submitted in.
            l.hsa_calls += 1;
            l.open_hsa = l.hsa_calls;
            l.hsa_calls
        } else {
            cmd_id.unwrap_or(0)
        };
        let state = compact_state(KIND, cmd_id.is_some());
        let n = open_compact(rec, state, fn_id, f, t0, cmd, args, &mut l.prev);
        l.used += n;
        l.depth += 1;
        l.publish();
        Opened {
            rec,
            local: l as *mut Local,
            trace: l.trace,
            len: n as u32,
            state,
            fn_id: fn_id as u16,
            chunk: l.chunk.as_ref().map_or(0, |c| c.index),
            outer_hsa,
            t0,
            cmd,
        }
    })
    .unwrap_or(Opened::NONE)
}

/// Completes the record of an OpenCL call that returned.
///
/// # Safety
/// As for [`complete_record`]; `o` came from [`open`] on this thread.
#[inline]
pub unsafe fn complete(o: Opened, f: impl Described, t1: u64, ret: u64, args: &[u64], local_size: Option<&[usize]>) {
    complete_kind::<KIND_OPENCL_CALL, _>(o, f, t1, ret, args, local_size)
}

/// Completes the record of a call of kind `KIND` that returned.
///
/// # Safety
/// As for [`complete_record`]; `o` came from [`open_kind`] on this thread.
#[inline]
pub unsafe fn complete_kind<const KIND: u16, D: Described>(
    o: Opened,
    d: D,
    t1: u64,
    ret: u64,
    args: &[u64],
    local_size: Option<&[usize]>,
) {
    let f = d.meta();
    if o.rec.is_null() {
        return;
    }
    // SAFETY: `o` came from `open_kind` on this thread, whose state lives
    // as long as the thread; it is used only while it still writes the
    // trace the record was opened in (not after a fork or the trace's end).
    let l = &mut *o.local;
    if l.busy || !std::ptr::eq(l.trace, o.trace) || !std::ptr::eq(o.trace, super::writer::current_ptr()) {
        return;
    }
    if l.trace().finished.load(Ordering::Relaxed) {
        return;
    }
    l.busy = true;
    {
        let current = l.chunk.as_ref().map_or(u64::MAX, |c| c.index);
        let last = current == o.chunk && o.rec.add(o.len as usize) == l.data.add(l.used);
        let dur = t1.wrapping_sub(o.t0);
        if last {
            let rec = std::slice::from_raw_parts_mut(o.rec, MAX_RECORD);
            let n = complete_compact::<KIND>(rec, o.len as usize, f, dur, ret, args, local_size);
            l.used += n - o.len as usize;
        } else if l.room() {
            // Calls made inside this one follow it: complete a copy at the
            // end, its start time now counted from the record before it.
            let dst = l.data.add(l.used);
            let m = open_compact(dst, o.state, o.fn_id as usize, f, o.t0, o.cmd, args, &mut l.prev);
            let rec = std::slice::from_raw_parts_mut(dst, MAX_RECORD);
            l.used += complete_compact::<KIND>(rec, m, f, dur, ret, args, local_size);
            mark_moved(o.rec);
        } else {
            mark_moved(o.rec);
            l.drop_record();
        }
        l.publish();
        if KIND == KIND_HSA_CALL {
            l.open_hsa = o.outer_hsa;
        }
        l.depth -= 1;
        if l.depth == 0 {
            if !l.held.is_empty() {
                l.seal_held();
            }
            if l.used >= l.trace().watermark() {
                l.rotate();
            }
        }
    }
    l.busy = false;
}

/// Appends one complete record of kind `KIND` (not a call: nothing is
/// opened, so it never holds a chunk back): `fn_id` 0, `cmd_id`, `t0`/`t1`
/// and at most 255 argument words, on this thread's chunk. False when it
/// was not written (tracing off, the trace full, a re-entrant signal
/// handler). The OpenCL path does not use it.
pub fn record_kind<const KIND: u16>(cmd_id: u64, t0: u64, t1: u64, args: &[u64], name: Option<&str>) -> bool {
    record_kind_flagged::<KIND>(0, cmd_id, t0, t1, args, name)
}

/// [`record_kind`] with more header flags (`FLAG_FILTERED`).
pub fn record_kind_flagged<const KIND: u16>(
    flags: u8,
    cmd_id: u64,
    t0: u64,
    t1: u64,
    args: &[u64],
    name: Option<&str>,
) -> bool {
    use super::record::{Capture, Header, Tag, CAPTURE, FLAG_CMD, FLAG_DONE, FLAG_OK, NAME_PARAM};
    let nargs = args.len().min(255).min((MAX_RECORD - HEADER) / 8);
    let name = name.map(|n| &n.as_bytes()[..n.len().min(256)]);
    let len = HEADER + 8 * nargs + name.map_or(0, |n| CAPTURE + super::record::pad8(n.len()));
    // SAFETY: the record is written inside the room `room()` guarantees
    // (MAX_RECORD, more than a header, 255 words and a 256-byte name).
    unsafe {
        with_local(|l| {
            if !l.room() {
                l.drop_record();
                return false;
            }
            // A wide record: its state byte, then the version 1 layout.
            *l.data.add(l.used) = STATE_WIDE;
            let rec = l.data.add(l.used + 1);
            for (i, a) in args[..nargs].iter().enumerate() {
                std::ptr::write_unaligned(rec.add(HEADER + 8 * i) as *mut u64, *a);
            }
            if let Some(n) = name {
                let at = rec.add(HEADER + 8 * nargs);
                let c = Capture {
                    param: NAME_PARAM,
                    tag: Tag::Str as u8,
                    _pad: 0,
                    bytes: n.len() as u32,
                    total: n.len() as u64,
                };
                std::ptr::write_unaligned(at as *mut Capture, c);
                std::ptr::copy_nonoverlapping(n.as_ptr(), at.add(CAPTURE), n.len());
                std::ptr::write_bytes(at.add(CAPTURE + n.len()), 0, super::record::pad8(n.len()) - n.len());
            }
            let h = Header {
                len: len as u32,
                fn_id: 0,
                nargs: nargs as u8,
                flags: FLAG_CMD | FLAG_OK | FLAG_DONE | flags,
                tid: l.tid,
                kind: KIND,
                _pad: 0,
                cmd_id,
                t0,
                t1,
                ret: 0,
            };
            std::ptr::write_unaligned(rec as *mut Header, h);
            l.used += 1 + len;
            l.publish();
            if l.depth == 0 && l.used >= l.trace().watermark() {
                l.rotate();
            }
            true
        })
        .unwrap_or(false)
    }
}

/// Marks an opened compact record as completed elsewhere: its state byte,
/// the record's first.
unsafe fn mark_moved(rec: *mut u8) {
    std::ptr::write_volatile(rec, *rec | FLAG_MOVED);
}

/// At the end of the process: this thread's chunks go to the renderer
/// (other threads' are found in the file).
pub fn retire_current_thread() {
    let _ = LOCAL.try_with(|cell| {
        // SAFETY: this thread's own state, not borrowed at this point.
        let slot = unsafe { &mut *cell.get() };
        if let Some(l) = slot.as_mut() {
            if !l.busy
                && l.depth == 0
                && l.generation == GENERATION.load(Ordering::Acquire)
                && std::ptr::eq(l.trace, super::writer::current_ptr())
            {
                l.retire();
            }
        }
    });
}

/// The number of the innermost HSA call open on this thread (its record's
/// `cmd_id`), 0 when none is: read by code that runs inside a traced call
/// (the intercept handler, inside the doorbell store that submitted its
/// packets) to name that call as the cause of what it records.
pub fn open_hsa_call() -> u64 {
    LOCAL
        .try_with(|cell| {
            // SAFETY: this thread's own state; only read here.
            let slot: &Option<Local> = unsafe { &*cell.get() };
            match slot {
                Some(l) if std::ptr::eq(l.trace, super::writer::current_ptr()) => l.open_hsa,
                _ => 0,
            }
        })
        .unwrap_or(0)
}
