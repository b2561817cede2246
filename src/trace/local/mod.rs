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

use super::capture::Captured;
use super::capture::{compact_state, complete_compact, open_compact, reopen_compact};
use super::file::Chunk;
use super::record::{FLAG_MOVED, KIND_HSA_CALL, KIND_OPENCL_CALL, MAX_RECORD};
use super::writer::{current, recording_ptr, Trace, GENERATION};
use cltap_formats::cltrace::compact::Prev;
use std::sync::atomic::{AtomicU64, Ordering};

mod chunks;
mod late;
mod wide;
use late::late_record;
pub use late::take_late_records;
pub use wide::{record_kind, record_kind_flagged, record_wide, Wide, NAME_MAX};

pub(crate) struct Local {
    /// The trace this state was made for; null in [`Local::EMPTY`].
    trace: *const Trace,
    /// `trace` while no record is being written on this thread, [`BUSY`]
    /// while one is (a signal handler that calls OpenCL meanwhile is not
    /// recorded). Every call compares it with the trace that records: one
    /// comparison says that the state is this process's (not from before
    /// a fork), that the trace has not ended, and that no record is being
    /// written.
    key: *const Trace,
    generation: u64,
    tid: u32,
    seq: u32,
    chunk: Option<Chunk>,
    /// The chunk's records: where they start, where the next one goes, and
    /// the end of the chunk (all null without a chunk). Kept as pointers,
    /// not offsets, because a call needs the addresses: where to write, and
    /// whether a record ends where the next one goes.
    data: *mut u8,
    pos: *mut u8,
    end: *mut u8,
    /// Where `used` (`pos` less `data`) is published: the chunk header's
    /// field, or [`NO_CHUNK`] while there is no chunk (`used` is then 0).
    used_at: *const AtomicU64,
    /// The trace's watermark, asked once: a chunk used past it is sealed.
    watermark: usize,
    /// Where `pos` is held to when no call is open: the watermark, or the
    /// chunk's start while chunks are held ([`Local::settle`] then seals
    /// them). One comparison says whether either needs doing.
    mark: *mut u8,
    /// Calls opened and not yet completed on this thread.
    depth: u32,
    /// Chunks filled while a call was open, sealed when none is.
    held: Vec<Chunk>,
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
///
/// Every wrapper returns it by value, so it carries only what completing
/// needs and the record cannot say: what the opened part says (its state,
/// function and command id) is read back from it in the rare case that the
/// record is completed as a copy, and its chunk is known by its end.
#[derive(Clone, Copy)]
pub struct Opened {
    rec: *mut u8,
    /// The thread's state and the trace it wrote to: completing the record
    /// needs no second thread-local lookup.
    local: *mut Local,
    trace: *const Trace,
    /// The start time: the record has it only as a delta.
    t0: u64,
    /// For an HSA call: the HSA call open around it, restored when it ends.
    outer_hsa: u64,
    /// The opened part's length (a whole word: no padding to store).
    len: usize,
}

impl Opened {
    pub const NONE: Opened = Opened {
        rec: std::ptr::null_mut(),
        local: std::ptr::null_mut(),
        trace: std::ptr::null(),
        t0: 0,
        outer_hsa: 0,
        len: 0,
    };
}

/// [`Local::key`] while a record is being written: never a trace's address,
/// nor null (what the trace that records is when none does).
const BUSY: *const Trace = std::ptr::NonNull::<Trace>::dangling().as_ptr();

/// Where `used` is published while a thread has no chunk. Only 0 is ever
/// stored there (`used` is 0 without a chunk), and nothing reads it.
static NO_CHUNK: AtomicU64 = AtomicU64::new(0);

thread_local! {
    // No destructor: the C library runs thread-local destructors of the
    // main thread before the exit handlers, and an application's exit
    // handlers and static destructors still make calls that must be
    // recorded. A thread's end is seen through a pthread key instead
    // (`thread_exit`), which the main thread's `exit` never runs; the end
    // of the process retires the main thread's chunk.
    static LOCAL: std::cell::UnsafeCell<std::mem::ManuallyDrop<Local>> =
        const { std::cell::UnsafeCell::new(std::mem::ManuallyDrop::new(Local::EMPTY)) };
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
///
/// # Safety
/// Called by libc as the thread-specific key's destructor, once per thread, at that thread's exit.
unsafe extern "C" fn thread_exit(_: *mut std::ffi::c_void) {
    let _ = std::panic::catch_unwind(|| {
        let _ = LOCAL.try_with(|cell| {
            // SAFETY: this thread's own state; no call of it is in progress
            // (the thread has left every wrapper).
            drop(unsafe { std::mem::replace(&mut **cell.get(), Local::EMPTY) });
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

/// This thread's state for the current trace, made on first use.
///
/// # Safety
/// Not reentrant on one thread: `f` must not record (it gets this thread's only `&mut Local`).
#[inline(always)]
unsafe fn with_local<R>(f: impl FnOnce(&mut Local, *const Trace) -> R) -> Option<R> {
    // SAFETY: `begin_local`'s # Safety follows from this fn's.
    let (l, trace) = unsafe { begin_local() }?;
    let r = f(l, trace);
    l.key = trace;
    Some(r)
}

/// The first half of [`with_local`]: this thread's state, marked as
/// writing a record (`Local::key`), and its trace; the caller puts the
/// trace back in `key` when done. The state lives as long as the thread,
/// hence `'static`; the caller keeps it on this thread. No closure: a
/// record's code held in one is kept out of line by the compiler where two
/// wrappers of the same function open its records, and the walk through
/// the record with it.
///
/// # Safety
/// The returned `&'static mut Local` is this thread's only one: the caller drops it before
/// anything on this thread can call `begin_local` again (no record opened inside another).
#[inline(always)]
unsafe fn begin_local() -> Option<(&'static mut Local, *const Trace)> {
    let cell = LOCAL.try_with(|cell| cell.get()).ok()?;
    // SAFETY: `cell` is valid for this access (# Safety).
    let slot: &'static mut Local = unsafe { &mut *cell };
    // State made for the trace that still records, with no record being
    // written (`Local::key`); anything else is the slow path.
    let recording = recording_ptr();
    let (l, trace) = if std::ptr::eq(slot.key, recording) {
        (slot, recording)
    } else {
        // SAFETY: `local_slow`'s # Safety follows from this fn's.
        let l = unsafe { local_slow(slot) }?;
        let t = l.trace;
        (l, t)
    };
    l.key = BUSY;
    Some((l, trace))
}

/// [`with_local`] when the thread's state is not that of a trace still
/// recording with no record being written: none yet, one made before a
/// fork, a record being written (a signal handler's call), or the trace has
/// ended.
///
/// # Safety
/// `l` is this thread's state as [`begin_local`] gave it (the only live reference to it).
#[cold]
#[inline(never)]
unsafe fn local_slow(l: &mut Local) -> Option<&mut Local> {
    // Traces are never freed, so a new one (after a fork) never has the
    // address of the old: comparing the pointer is enough here.
    let fresh = !l.trace.is_null() && std::ptr::eq(l.trace, super::writer::current_ptr());
    if !fresh {
        let gen = GENERATION.load(Ordering::Relaxed);
        let tr = current()?;
        // Chunks made before a fork are the parent's: never unmapped here.
        std::mem::forget(std::mem::replace(l, Local::new(tr, gen)));
        if let Some(k) = exit_key() {
            // Any non-null value makes the key's destructor run.
            // SAFETY: `pthread_setspecific`'s # Safety follows from this fn's.
            unsafe { libc::pthread_setspecific(k, std::ptr::dangling::<std::ffi::c_void>()) };
        }
    }
    if std::ptr::eq(l.key, BUSY) {
        return None;
    }
    if l.trace().finished.load(Ordering::Relaxed) {
        late_record();
        return None;
    }
    Some(l)
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
#[inline(always)]
pub unsafe fn open(f: impl Captured, cmd_id: Option<u64>, t0: u64, args: &[u64]) -> Opened {
    // SAFETY: `open_kind`'s # Safety follows from this fn's: `args` are the call's argument words (# Safety).
    unsafe { open_kind::<KIND_OPENCL_CALL, _>(f, cmd_id, t0, args) }
}

/// Opens the record of a call about to be forwarded; `KIND` says which
/// API's table `d` comes from (`KIND_HSA_CALL` for HSA's). A
/// constant, so that [`open`] is the code it was before records had kinds.
///
/// # Safety
/// `args` are the call's argument words.
#[inline(always)]
pub unsafe fn open_kind<const KIND: u16, D: Captured>(d: D, cmd_id: Option<u64>, t0: u64, args: &[u64]) -> Opened {
    // SAFETY: `begin_local`'s # Safety follows from this fn's: `args` are the call's argument words (# Safety).
    let Some((l, trace)) = (unsafe { begin_local() }) else { return Opened::NONE };
    // SAFETY: `open_in`'s # Safety follows from this fn's.
    let o = unsafe { open_in::<KIND, D>(l, trace, d, cmd_id, t0, args) };
    l.key = trace;
    o
}

/// [`open_kind`] in this thread's state `l`, marked busy, for `trace`.
///
/// # Safety
/// `l` is this thread's state as [`begin_local`] gave it and `trace` the trace it is for; `d`'s
/// pointers are valid as [`Captured::capture`] requires.
#[inline(always)]
unsafe fn open_in<const KIND: u16, D: Captured>(
    l: &mut Local,
    trace: *const Trace,
    d: D,
    cmd_id: Option<u64>,
    t0: u64,
    args: &[u64],
) -> Opened {
    let f = d.meta();
    if !l.room() {
        l.drop_record();
        return Opened::NONE;
    }
    let rec = l.pos;
    // SAFETY: `rec.add(PREFETCH_AHEAD)` stays inside the buffer it indexes (# Safety).
    prefetch_for_write(unsafe { rec.add(PREFETCH_AHEAD) });
    let (cmd, outer_hsa) = if KIND == KIND_HSA_CALL {
        // HSA calls take no command id: the record numbers them on their
        // thread, without CMD, so that a dispatch can name the call it
        // was submitted in.
        let outer = l.open_hsa;
        l.hsa_calls += 1;
        l.open_hsa = l.hsa_calls;
        (l.hsa_calls, outer)
    } else {
        (cmd_id.unwrap_or(0), 0)
    };
    let state = compact_state(KIND, cmd_id.is_some());
    // SAFETY: `open_compact`'s # Safety follows from this fn's.
    let n = unsafe { open_compact(rec, state, d.id(), f, t0, cmd, args, &mut l.prev) };
    // SAFETY: `rec.add(n)` stays inside the buffer it indexes, as the caller promises (# Safety).
    let pos = unsafe { rec.add(n) };
    l.pos = pos;
    l.depth += 1;
    l.publish(pos);
    Opened { rec, local: l as *mut Local, trace, t0, outer_hsa, len: n }
}

/// Completes the record of an OpenCL call that returned.
///
/// # Safety
/// As for [`complete_record`]; `o` came from [`open`] on this thread.
#[inline(always)]
pub unsafe fn complete(o: Opened, f: impl Captured, t1: u64, ret: u64, args: &[u64], local_size: Option<&[usize]>) {
    // SAFETY: `complete_kind`'s # Safety follows from this fn's: As for [`complete_record`]; `o` came from [`open`]
    // on this thread (# Safety).
    unsafe { complete_kind::<KIND_OPENCL_CALL, _>(o, f, t1, ret, args, local_size) }
}

/// Completes the record of a call of kind `KIND` that returned.
///
/// # Safety
/// As for [`complete_record`]; `o` came from [`open_kind`] on this thread.
#[inline(always)]
pub unsafe fn complete_kind<const KIND: u16, D: Captured>(
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
    // trace the record was opened in. That trace still records (not after
    // its end, nor in a fork's child, whose trace is another), and the
    // thread's state is still the one made for it (a fork's child makes
    // another in the same place).
    // SAFETY: `o.local` is valid for this access: As for [`complete_record`]; `o` came from [`open_kind`] on this
    // thread (# Safety).
    let l = unsafe { &mut *o.local };
    // `key` is the record's trace: the state is the one made for it and no
    // record is being written (else a signal handler's call, not recorded).
    if !std::ptr::eq(l.key, o.trace) || !std::ptr::eq(o.trace, recording_ptr()) {
        return;
    }
    l.key = BUSY;
    {
        // Nothing was written after the record: it is completed in place.
        // Its end at the chunk's end says that it is in the current chunk:
        // a chunk left while a call is open stays mapped (held) until none
        // is, mappings do not overlap, and each starts with its header, so
        // no record of another ends where the current chunk's records do.
        // SAFETY: `o.rec.add(o.len)` stays inside the buffer it indexes, as the caller promises (# Safety).
        let last = unsafe { o.rec.add(o.len) } == l.pos;
        let dur = t1.wrapping_sub(o.t0);
        if last {
            // SAFETY: `o.rec` holds that many initialised elements while the slice is used, as the caller promises (#
            // Safety).
            let rec = unsafe { std::slice::from_raw_parts_mut(o.rec, MAX_RECORD) };
            // SAFETY: `complete_compact`'s # Safety follows from this fn's.
            let n = unsafe { complete_compact::<KIND, D>(rec, o.len, d, dur, ret, args, local_size) };
            // SAFETY: `o.rec.add(n)` stays inside the buffer it indexes, as the caller promises (# Safety).
            l.pos = unsafe { o.rec.add(n) };
        } else {
            // SAFETY: `complete_moved`'s # Safety follows from this fn's.
            unsafe { complete_moved::<KIND>(l, o.rec, o.t0, f, dur, ret, args, local_size) };
        }
        let pos = l.pos;
        l.publish(pos);
        if KIND == KIND_HSA_CALL {
            l.open_hsa = o.outer_hsa;
        }
        l.depth -= 1;
        if l.depth == 0 && pos >= l.mark {
            l.settle();
        }
    }
    l.key = o.trace;
}

/// Completes a record (opened at `rec`, started at `t0`) that calls made
/// inside it follow: a copy at the end, its start time now counted from
/// the record before it (its state, function and command id read from the
/// opened one), and the opened one marked moved. It takes the two fields
/// of `Opened` it needs, not `Opened`: passed whole (by reference, in the
/// ABI), the struct was stored on the stack before every recorded call
/// for this rare path.
///
/// # Safety
/// As for [`complete_kind`], whose checks passed.
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn complete_moved<const KIND: u16>(
    l: &mut Local,
    rec: *mut u8,
    t0: u64,
    f: &'static crate::meta::FnMeta,
    dur: u64,
    ret: u64,
    args: &[u64],
    local_size: Option<&[usize]>,
) {
    if l.room() {
        let dst = l.pos;
        // SAFETY: `reopen_compact`'s # Safety follows from this fn's: As for [`complete_kind`], whose checks passed
        // (# Safety).
        let m = unsafe { reopen_compact(dst, rec, f, t0, args, &mut l.prev) };
        // SAFETY: `dst` holds that many initialised elements while the slice is used, as the caller promises (#
        // Safety).
        let copy = unsafe { std::slice::from_raw_parts_mut(dst, MAX_RECORD) };
        // SAFETY: the offset stays inside the buffer it indexes, as the caller promises (# Safety).
        l.pos = unsafe { dst.add(complete_compact::<KIND, _>(copy, m, f, dur, ret, args, local_size)) };
        // SAFETY: `mark_moved`'s # Safety follows from this fn's.
        unsafe { mark_moved(rec) };
    } else {
        // SAFETY: `mark_moved`'s # Safety follows from this fn's.
        unsafe { mark_moved(rec) };
        l.drop_record();
    }
}

/// Marks an opened compact record as completed elsewhere: its state byte,
/// the record's first.
///
/// # Safety
/// `rec` must point at the state byte of a compact record opened on this thread, not yet completed.
unsafe fn mark_moved(rec: *mut u8) {
    // SAFETY: `rec` is writable (# Safety).
    unsafe { std::ptr::write_volatile(rec, *rec | FLAG_MOVED) };
}

/// At the end of the process: this thread's chunks go to the renderer
/// (other threads' are found in the file).
pub fn retire_current_thread() {
    let _ = LOCAL.try_with(|cell| {
        // SAFETY: this thread's own state, not borrowed at this point.
        let l: &mut Local = unsafe { &mut *cell.get() };
        // Never `Local::EMPTY`: its generation is 0, never the process's.
        if !std::ptr::eq(l.key, BUSY)
            && l.depth == 0
            && l.generation == GENERATION.load(Ordering::Acquire)
            && std::ptr::eq(l.trace, super::writer::current_ptr())
        {
            l.retire();
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
            let l: &Local = unsafe { &*cell.get() };
            if !l.trace.is_null() && std::ptr::eq(l.trace, super::writer::current_ptr()) {
                l.open_hsa
            } else {
                0
            }
        })
        .unwrap_or(0)
}
