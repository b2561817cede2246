//! Turning a call into a record. Runs on the application's thread, inside
//! every recorded call: it only copies bytes into the thread's chunk of the
//! trace. No lock, no allocation, no system call, no formatting.

use super::record::*;
use crate::meta::{Count, Described, FnMeta, Kind, ParamMeta, Props, Ret};
use cltap_formats::cltrace::compact;

/// Limits that keep a record small; what is cut off is counted in `total`.
const MAX_ELEMS: usize = 64;
const MAX_STR: usize = 256;
const MAX_BYTES: usize = 64;
const MAX_INFO: usize = 256;
const MAX_STRS: usize = 4;
const MAX_PROPS: usize = 64;

mod sink;
#[cfg(test)]
use sink::copy_short;
#[doc(hidden)]
pub use sink::Sink;
use sink::{Compact, Out, CAPTURE_HEAD};

/// The most bytes the compact captures of a call of `f` can take, as
/// [`captures`] writes them (each kind's limit above, and its head); a kind
/// it does not know counts as more than a record holds. For a function
/// known at compile time, a constant: the room checks of a function whose
/// captures always fit then vanish.
#[inline(always)]
fn captures_worst(f: &FnMeta) -> usize {
    let mut worst = 0;
    for &i in f.captured {
        worst += match f.params[i as usize].kind {
            Kind::Errcode | Kind::OutHandle | Kind::OutValue { .. } => 2 + compact::VARINT_MAX,
            Kind::InArray { elem, .. } | Kind::OutArray { elem, .. } => CAPTURE_HEAD + MAX_ELEMS * elem,
            Kind::InBytes { .. } => CAPTURE_HEAD + MAX_BYTES,
            Kind::InString => CAPTURE_HEAD + MAX_STR,
            Kind::InStrings { .. } => MAX_STRS * (CAPTURE_HEAD + MAX_STR / 2),
            Kind::Properties(_) => CAPTURE_HEAD + MAX_PROPS * 8,
            Kind::Info { .. } => CAPTURE_HEAD + MAX_INFO,
            _ => MAX_RECORD,
        };
    }
    worst
}

#[inline(always)]
fn count(c: Count, args: &[u64]) -> u64 {
    match c {
        Count::Param(i) => args[i] & 0xFFFF_FFFF_FFFF,
        Count::Const(n) => n,
    }
}

/// Length of a NUL-terminated string, looking at most `max` bytes, and whether
/// it ended within them.
///
/// # Safety
/// `p` must be readable up to its NUL or for `max` bytes, whichever comes first.
unsafe fn strnlen(p: *const u8, max: usize) -> (usize, bool) {
    for i in 0..max {
        // SAFETY: `p.add(i)` is valid for this access (# Safety).
        if unsafe { *p.add(i) } == 0 {
            return (i, true);
        }
    }
    (max, false)
}

/// # Safety
/// `p` must be a NUL-terminated string.
unsafe fn full_strlen(p: *const u8) -> usize {
    // SAFETY: `strlen`'s # Safety follows from this fn's.
    unsafe { libc::strlen(p as *const libc::c_char) }
}

/// The call's own view of success, which decides whether the contents behind
/// its pointers are meaningful (a failed call may have rejected them unread).
#[inline(always)]
pub fn succeeded(f: &FnMeta, ret: u64) -> bool {
    match f.ret {
        Ret::Status => ret as u32 == 0,
        Ret::HsaStatus => hsa_status_ok(ret),
        Ret::Handle | Ret::Pointer => ret != 0,
        Ret::Void | Ret::Scalar => true,
    }
}

/// [`succeeded`] for a record of kind `KIND`. An OpenCL function never
/// returns an `hsa_status_t`, so for OpenCL's records the test is the one
/// the hot path has always made (no arm of HSA's on it).
#[inline(always)]
fn succeeded_as<const KIND: u16>(f: &FnMeta, ret: u64) -> bool {
    if KIND == KIND_OPENCL_CALL {
        match f.ret {
            Ret::Status => ret as u32 == 0,
            Ret::Handle | Ret::Pointer => ret != 0,
            Ret::Void | Ret::Scalar | Ret::HsaStatus => true,
        }
    } else {
        succeeded(f, ret)
    }
}

/// An `hsa_status_t` that is not an error: `HSA_STATUS_SUCCESS`,
/// `HSA_STATUS_INFO_BREAK` (an iteration the callback ended) and
/// `HSA_STATUS_CU_MASK_REDUCED` (the mask was set). The AMD extension's
/// errors are 40–43, so "below 0x1000" would not do.
#[inline(always)]
pub fn hsa_status_ok(ret: u64) -> bool {
    matches!(ret as u32, 0 | 1 | 44)
}

/// Opens the record of a call about to be forwarded: the header (without
/// [`FLAG_DONE`]) and the argument words. Returns its length so far.
/// `buf` must hold at least `HEADER + 8 * args.len()` bytes. `kind` says
/// which table `fn_id` indexes (`KIND_OPENCL_CALL`, `KIND_HSA_CALL`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn open_record(
    buf: &mut [u8],
    kind: u16,
    fn_id: usize,
    f: &'static FnMeta,
    tid: u32,
    cmd_id: Option<u64>,
    t0: u64,
    args: &[u64],
) -> usize {
    let nargs = args.len().min(f.params.len());
    let len = HEADER + 8 * nargs;
    let h = Header {
        len: len as u32,
        fn_id: fn_id as u16,
        nargs: nargs as u8,
        flags: if cmd_id.is_some() { FLAG_CMD } else { 0 },
        tid,
        kind,
        _pad: 0,
        cmd_id: cmd_id.unwrap_or(0),
        t0,
        t1: 0,
        ret: 0,
    };
    // SAFETY: the buffer holds the header; write_unaligned copes with any address.
    unsafe { std::ptr::write_unaligned(buf.as_mut_ptr() as *mut Header, h) };
    for (i, &a) in args[..nargs].iter().enumerate() {
        buf[HEADER + 8 * i..HEADER + 8 * i + 8].copy_from_slice(&a.to_ne_bytes());
    }
    len
}

/// Completes a record opened by [`open_record`] at the start of `buf`: the
/// contents behind the call's pointers follow the arguments, and the header
/// gets the end time, the result and [`FLAG_DONE`]. The header is written
/// last, so a record cut short by the process's death still reads as open.
/// Returns the record's whole length. `KIND` is the record's kind (whose
/// `f` is).
///
/// # Safety
/// `args` must be the call's arguments as the application passed them, and
/// every pointer among them must be valid as the call's contract requires.
/// An info query's may be followed by the address of the `size_t` its
/// driver wrote the answer's size to, where the application passed no
/// `*_size_ret` (0 if none).
pub unsafe fn complete_record<const KIND: u16>(
    buf: &mut [u8],
    f: &'static FnMeta,
    t1: u64,
    ret: u64,
    args: &[u64],
    local_size: Option<&[usize]>,
) -> usize {
    // SAFETY: `buf.as_ptr() as *const Header` is readable (# Safety).
    let mut h: Header = unsafe { std::ptr::read_unaligned(buf.as_ptr() as *const Header) };
    let ok = succeeded_as::<KIND>(f, ret);
    let nargs = h.nargs as usize;
    let mut o = Out { buf, len: HEADER + 8 * nargs };
    // SAFETY: `captures`'s # Safety follows from this fn's.
    unsafe { captures(&mut o, f, ok, nargs, args, local_size) };
    let len = o.len;
    h.len = len as u32;
    h.t1 = t1;
    h.ret = ret;
    h.flags |= FLAG_DONE | if ok { FLAG_OK } else { 0 };
    // SAFETY: `o.buf.as_mut_ptr() as *mut Header` is writable, as the caller promises (# Safety).
    unsafe { std::ptr::write_unaligned(o.buf.as_mut_ptr() as *mut Header, h) };
    len
}

/// Appends the contents behind the call's pointers (its outputs only when
/// `ok`) to `o`: each captured parameter as `d` visits them, then the local
/// size.
///
/// # Safety
/// As for [`complete_record`].
#[inline(always)]
unsafe fn captures<S: Sink, D: Captured>(
    o: &mut S,
    d: D,
    ok: bool,
    nargs: usize,
    args: &[u64],
    local_size: Option<&[usize]>,
) {
    // SAFETY: `capture`'s # Safety follows from this fn's: As for [`complete_record`] (# Safety).
    unsafe { d.capture(o, ok, nargs, args) };
    if let Some(ls) = local_size {
        o.unbounded();
        // SAFETY: `bytes`: the source is readable for the bytes given (# Safety).
        unsafe { o.bytes(255, Tag::LocalSize, ls.as_ptr() as *const u8, std::mem::size_of_val(ls), ls.len() as u64) };
    }
}

/// A described function's captures. The default walks the description; a
/// generated function's type (`unrolled`, made by build.rs) visits its
/// captured parameters one by one instead, each description a constant, so
/// that a recorded call runs only its own parameters' code, with no walk.
pub trait Captured: Described {
    /// Appends the contents behind the call's captured parameters to `o`.
    ///
    /// # Safety
    /// As for [`complete_record`]; `nargs` ≤ `args.len()`.
    #[inline(always)]
    unsafe fn capture<S: Sink>(self, o: &mut S, ok: bool, nargs: usize, args: &[u64]) {
        // SAFETY: `captures_of`'s # Safety follows from this fn's: As for [`complete_record`]; `nargs` ≤ `args.len()`
        // (# Safety).
        unsafe { captures_of(o, self.meta(), ok, nargs, args) }
    }
}

impl Captured for &'static FnMeta {}

/// Each generated function type's [`Captured`].
pub(crate) mod unrolled {
    #[cfg(test)]
    use super::complete_compact;
    use super::{capture_one, Captured, Sink};
    use crate::meta::{FnMeta, ParamMeta};
    #[cfg(test)]
    use crate::trace::record::{KIND_HSA_CALL, KIND_OPENCL_CALL};
    include!(concat!(env!("OUT_DIR"), "/captured.rs"));
}

/// The captures of a function whose description is known only at run
/// time: a walk through its captured parameters ([`Captured::capture`]'s
/// default).
///
/// # Safety
/// As for [`complete_record`].
#[inline(always)]
unsafe fn captures_of<S: Sink>(o: &mut S, f: &FnMeta, ok: bool, nargs: usize, args: &[u64]) {
    for &i in f.captured {
        let i = i as usize;
        if i >= nargs {
            break;
        }
        // SAFETY: `capture_one`'s # Safety follows from this fn's: As for [`complete_record`] (# Safety).
        unsafe { capture_one(o, f, i, &f.params[i], ok, args) };
    }
}

/// Appends the contents behind parameter `i` (`p`, of `f`). A generated
/// function's type calls it once per captured parameter with `p` a
/// constant, so that only the code of `p`'s kind remains.
///
/// # Safety
/// As for [`complete_record`]; `i` < `args.len()`.
#[inline(always)]
unsafe fn capture_one<S: Sink>(o: &mut S, f: &FnMeta, i: usize, p: &ParamMeta, ok: bool, args: &[u64]) {
    let v = args[i];
    let ptr = v as *const u8;
    match p.kind {
        Kind::Errcode | Kind::OutHandle if !ptr.is_null() && (ok || p.kind == Kind::Errcode) => {
            // SAFETY: a non-NULL error-code or out-handle argument points at the `cl_int` or handle the driver wrote
            // (the call's contract, # Safety).
            let w = if p.kind == Kind::Errcode {
                (unsafe { *(ptr as *const i32) }) as i64 as u64
            } else {
                unsafe { *(ptr as *const u64) }
            };
            o.word(i, Tag::Out, w);
        }
        Kind::OutValue { elem } if ok && !ptr.is_null() && elem <= 8 => {
            let mut w = 0u64;
            // SAFETY: `ptr` holds the `elem` (≤ 8) bytes the call wrote; `w` is 8 local bytes.
            unsafe { std::ptr::copy_nonoverlapping(ptr, &mut w as *mut u64 as *mut u8, elem) };
            o.word(i, Tag::Out, w);
        }
        // A failed call's name or option string shows what was refused; the
        // call may have refused its pointer unread, so it is read checked.
        // SAFETY: `failed_string` reads `ptr` checked (process_vm_readv); only `o` must be a sink.
        Kind::InString if !ok && !ptr.is_null() => unsafe { failed_string(o, i, ptr) },
        _ if !ok || ptr.is_null() => {}
        Kind::InArray { len, elem } => {
            let n = count(len, args);
            let take = (n as usize).min(MAX_ELEMS);
            // SAFETY: a succeeded call's `ptr` is readable for what its description's kind takes (# Safety).
            unsafe { o.bytes(i, Tag::Array, ptr, take * elem, n) };
        }
        Kind::InBytes { len } => {
            let n = count(len, args);
            // SAFETY: a succeeded call's `ptr` is readable for what its description's kind takes (# Safety).
            unsafe { o.bytes(i, Tag::Bytes, ptr, (n as usize).min(MAX_BYTES), n) };
        }
        Kind::InString => {
            // SAFETY: a succeeded call's input string is NUL-terminated (the call's contract, # Safety).
            let (n, ended) = unsafe { strnlen(ptr, MAX_STR) };
            // SAFETY: as for `strnlen` above.
            let total = if ended { n } else { unsafe { full_strlen(ptr) } };
            // SAFETY: a succeeded call's `ptr` is readable for what its description's kind takes (# Safety).
            unsafe { o.bytes(i, Tag::Str, ptr, n, total as u64) };
        }
        Kind::InStrings { len } => {
            let n = count(len, args) as usize;
            // A `lengths` array may follow: `strs=count` then `arr=count`.
            let lengths = f.params.get(i + 1).filter(|q| q.name == "lengths").map(|_| args[i + 1] as *const usize);
            for k in 0..n.min(MAX_STRS) {
                // SAFETY: `(ptr as *const *const u8).add(k)` is valid for this access, as the caller promises (#
                // Safety).
                let s = unsafe { *(ptr as *const *const u8).add(k) };
                if s.is_null() {
                    continue;
                }
                // SAFETY: `l.add(k)` is valid for this access, as the caller promises (# Safety).
                let given = lengths.filter(|l| !l.is_null()).map(|l| unsafe { *l.add(k) }).filter(|&l| l > 0);
                // SAFETY: as for `strnlen` above.
                let total = given.unwrap_or_else(|| unsafe { full_strlen(s) });
                // SAFETY: a succeeded call's `ptr` is readable for what its description's kind takes (# Safety).
                unsafe { o.bytes(i, Tag::Str, s, total.min(MAX_STR / 2), total as u64) };
            }
        }
        Kind::Properties(kind) => {
            let w = ptr as *const u64;
            let mut n = 0;
            // SAFETY: `w.add(n)` is valid for this access, as the caller promises (# Safety).
            while n < MAX_PROPS && unsafe { *w.add(n) } != 0 {
                n += if kind == Props::Pairs { 2 } else { 1 };
            }
            // SAFETY: a succeeded call's `ptr` is readable for what its description's kind takes (# Safety).
            unsafe { o.bytes(i, Tag::Props, ptr, n.min(MAX_PROPS) * 8, n as u64) };
        }
        Kind::OutArray { cap, count: c, elem } => {
            let mut n = count(cap, args);
            if let Some(ci) = c {
                let cp = args[ci] as *const u32;
                if !cp.is_null() {
                    // SAFETY: the count parameter is non-NULL and points at the count the driver wrote, a `size_t` or
                    // a `cl_uint` as its C type says (the call's arguments, # Safety).
                    let written = unsafe {
                        if elem == 8 && f.params[ci].c_type == "size_t*" {
                            *(cp as *const usize) as u64
                        } else {
                            *cp as u64
                        }
                    };
                    n = n.min(written);
                }
            }
            let take = (n as usize).min(MAX_ELEMS);
            // SAFETY: a succeeded call's `ptr` is readable for what its description's kind takes (# Safety).
            unsafe { o.bytes(i, Tag::OutArray, ptr, take * elem, n) };
        }
        Kind::Info { size, size_ret, .. } => {
            let cap = args[size] as usize;
            // What the driver wrote: its answer's size, in the application's
            // `*_size_ret` or, where it passed NULL, in the layer's slot
            // whose address follows the arguments (`app_decl` in the layer's
            // build); without either, the whole buffer.
            let told = size_ret.map_or(0, |k| args[k]);
            let told = if told == 0 { args.get(f.params.len()).copied().unwrap_or(0) } else { told };
            // SAFETY: a non-zero `told` is the address of a `size_t` the driver wrote its answer's size to.
            let written = if told == 0 { cap } else { unsafe { *(told as *const usize) }.min(cap) };
            // SAFETY: a succeeded call's `ptr` is readable for what its description's kind takes (# Safety).
            unsafe { o.bytes(i, Tag::Bytes, ptr, written.min(MAX_INFO), written as u64) };
        }
        _ => {}
    }
}

/// The string at `ptr` of a call that failed, copied through
/// `process_vm_readv` on this process: a pointer the call refused unread
/// may point nowhere, and a read that faults is then a short count, never a
/// signal. Rare (a failed call), so its system calls do not weigh on the
/// calls that succeed. Nothing is captured where the system refuses the
/// call or the first byte cannot be read.
///
/// # Safety
/// None beyond [`Sink::bytes`]'s on the local copy.
#[cold]
#[inline(never)]
unsafe fn failed_string<S: Sink>(o: &mut S, i: usize, ptr: *const u8) {
    let mut head = [0u8; MAX_STR];
    let got = read_checked(ptr, &mut head);
    if got == 0 {
        return;
    }
    if let Some(n) = head[..got].iter().position(|&b| b == 0) {
        // SAFETY: `bytes` needs the source to be readable for the bytes given, as this fn's own contract gives: None
        // beyond [`Sink::bytes`]'s on the local copy (# Safety).
        unsafe { o.bytes(i, Tag::Str, head.as_ptr(), n, n as u64) };
        return;
    }
    // Longer than kept: its length, as far as it can be read (bounded).
    let mut total = got;
    let mut page = [0u8; 4096];
    while got == MAX_STR && total < FAILED_SCAN {
        // SAFETY: `ptr.add(total)` stays inside the buffer it indexes, as the caller promises (# Safety).
        let n = read_checked(unsafe { ptr.add(total) }, &mut page);
        match page[..n].iter().position(|&b| b == 0) {
            Some(k) => {
                total += k;
                break;
            }
            None if n == 0 => break,
            None => total += n,
        }
    }
    // SAFETY: `bytes`: the source is readable for the bytes given (# Safety).
    unsafe { o.bytes(i, Tag::Str, head.as_ptr(), got, total as u64) };
}

/// How far the length of a failed call's string is looked for.
const FAILED_SCAN: usize = 1 << 20;

/// Copies from `src` into `dst` what can be read of `dst.len()` bytes,
/// stopping at the first page that cannot; returns the bytes copied.
fn read_checked(src: *const u8, dst: &mut [u8]) -> usize {
    const PAGE: usize = 4096;
    // One piece per page, so that an unreadable page ends the copy there.
    let mut remote = [libc::iovec { iov_base: std::ptr::null_mut(), iov_len: 0 }; 3];
    let (mut at, mut n) = (0usize, 0usize);
    while at < dst.len() && n < remote.len() {
        let addr = src as usize + at;
        let len = (PAGE - addr % PAGE).min(dst.len() - at);
        remote[n] = libc::iovec { iov_base: addr as *mut libc::c_void, iov_len: len };
        at += len;
        n += 1;
    }
    let local = libc::iovec { iov_base: dst.as_mut_ptr() as *mut libc::c_void, iov_len: at };
    // SAFETY: `local` is `dst`, writable for `at` ≤ its length; the remote
    // pieces are only read by the kernel, which reports a fault as a count.
    let r = unsafe { libc::process_vm_readv(libc::getpid(), &local, 1, remote.as_ptr(), n as libc::c_ulong, 0) };
    r.max(0) as usize
}

/// The state byte a compact record of kind `KIND` opens with (the wide
/// header's CMD flag, and whether it is an HSA call).
#[inline(always)]
pub fn compact_state(kind: u16, cmd: bool) -> u8 {
    let hsa = if kind == KIND_HSA_CALL { compact::STATE_HSA } else { 0 };
    hsa | if cmd { FLAG_CMD } else { 0 }
}

/// Opens a compact record at `p`, after the record `prev` describes (which
/// it then describes): the state byte, the function, the start time, `cmd`
/// (written when `state` says CMD or HSA) and the argument words the call
/// has. Returns its length.
///
/// # Safety
/// `p` must be writable for [`MAX_RECORD`] bytes.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn open_compact(
    p: *mut u8,
    state: u8,
    fn_id: usize,
    f: &FnMeta,
    t0: u64,
    cmd: u64,
    args: &[u64],
    prev: &mut compact::Prev,
) -> usize {
    let nargs = args.len().min(f.params.len()).min(255);
    // SAFETY: `put_opened`'s # Safety follows from this fn's: `p` must be writable for [`MAX_RECORD`] bytes (#
    // Safety).
    unsafe { compact::put_opened(p, state, fn_id as u16, t0, cmd, &args[..nargs], prev) }
}

/// Opens at `dst` a copy of the compact record opened at `src`, with its
/// state, function and command id, at `t0`, after the record `prev`
/// describes (which it then describes). Returns its length.
///
/// # Safety
/// `src` must be an opened part [`open_compact`] wrote; `dst` writable for
/// [`MAX_RECORD`] bytes.
pub unsafe fn reopen_compact(
    dst: *mut u8,
    src: *const u8,
    f: &FnMeta,
    t0: u64,
    args: &[u64],
    prev: &mut compact::Prev,
) -> usize {
    // SAFETY: `src` is valid for this access: `src` must be an opened part [`open_compact`] wrote; `dst` writable for
    // [`MAX_RECORD`] bytes (# Safety).
    let state = unsafe { *src };
    // SAFETY: `get_raw`'s # Safety follows from this fn's.
    let (fn_id, n) = unsafe { compact::get_raw(src.add(1)) };
    // The function, the argument count, then the start time's delta.
    let at = 1 + n + 1;
    // SAFETY: `get_raw`'s # Safety follows from this fn's.
    let at = at + unsafe { compact::get_raw(src.add(at)) }.1;
    // SAFETY: `get_raw`'s # Safety follows from this fn's.
    let cmd =
        if state & (FLAG_CMD | compact::STATE_HSA) != 0 { (unsafe { compact::get_raw(src.add(at)) }).0 } else { 0 };
    // SAFETY: `open_compact`'s # Safety follows from this fn's.
    unsafe { open_compact(dst, state, fn_id as usize, f, t0, cmd, args, prev) }
}

/// Completes a compact record opened by [`open_compact`] or
/// [`reopen_compact`] at the start of `buf` (`opened` bytes, what it
/// returned): its tail (duration, result, the contents behind
/// its pointers, the end mark) after the opened part, then DONE in its state
/// byte, last, so that a record cut short by the process's death still reads
/// as open. Returns the record's whole length.
///
/// # Safety
/// As for [`complete_record`]; `opened` is what [`open_compact`] or
/// [`reopen_compact`] returned (at most [`compact::OPENED_MAX`]).
#[inline(always)]
pub unsafe fn complete_compact<const KIND: u16, D: Captured>(
    buf: &mut [u8],
    opened: usize,
    d: D,
    dur: u64,
    ret: u64,
    args: &[u64],
    local_size: Option<&[usize]>,
) -> usize {
    let f = d.meta();
    let ok = succeeded_as::<KIND>(f, ret);
    let p = buf.as_mut_ptr();
    let mut n = opened;
    // SAFETY: `put_raw` needs room for a varint at the pointer, inside the bytes `p` has (# Safety).
    n += unsafe { compact::put_raw(p.add(n), dur) };
    // SAFETY: `put_raw` needs room for a varint at the pointer, inside the bytes `p` has (# Safety).
    n += unsafe { compact::put_raw(p.add(n), ret) };
    // Whatever the varints took, the captures fit when the longest opened
    // part, tail and end mark leave them room.
    let longest = compact::OPENED_MAX + 2 * compact::VARINT_MAX + captures_worst(f) + 1;
    let mut o = Compact { checked: longest > buf.len(), buf, len: n };
    // SAFETY: `captures`'s # Safety follows from this fn's.
    unsafe { captures(&mut o, d, ok, args.len().min(f.params.len()).min(255), args, local_size) };
    let n = o.len;
    // SAFETY: `p.add(n)` is valid for this access, as the caller promises (# Safety).
    unsafe { *p.add(n) = compact::END };
    // The tail is stored before the state byte says it is there.
    std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::Release);
    // SAFETY: `p` is writable, as the caller promises (# Safety).
    unsafe { std::ptr::write_volatile(p, *p | FLAG_DONE | if ok { FLAG_OK } else { 0 }) };
    n + 1
}

/// Both phases at once, into `buf`; returns the record's length.
///
/// # Safety
/// As for [`complete_record`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn write_record(
    buf: &mut [u8],
    fn_id: usize,
    f: &'static FnMeta,
    tid: u32,
    cmd_id: Option<u64>,
    t0: u64,
    t1: u64,
    ret: u64,
    args: &[u64],
    local_size: Option<&[usize]>,
) -> usize {
    open_record(buf, KIND_OPENCL_CALL, fn_id, f, tid, cmd_id, t0, args);
    // SAFETY: `complete_record`'s # Safety follows from this fn's: As for [`complete_record`] (# Safety).
    unsafe { complete_record::<KIND_OPENCL_CALL>(buf, f, t1, ret, args, local_size) }
}

#[cfg(test)]
mod tests;
