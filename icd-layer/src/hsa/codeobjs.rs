//! `CLTAP_DUMP_PROGRAMS` for HSA: each code object the application hands
//! ROCr through a code object reader is written to `<output>/programs/`
//! as `<stem>.p<N>.<hash>.co`, the bytes ROCr read, and named in the API
//! log after the call. Only the two reader-making wrappers call in here.

use cltap::programs::{self as dumps, files, registry};

/// After `hsa_code_object_reader_create_from_memory` succeeded: its
/// `reader` numbered, its bytes written.
///
/// # Safety
/// `code_object` is readable for `size` bytes for the length of the call.
pub unsafe fn from_memory(reader: u64, code_object: *const u8, size: usize) {
    if !dumps::dumps() || code_object.is_null() {
        return;
    }
    // SAFETY: `code_object` holds that many initialised elements while the slice is used (# Safety).
    write(reader, unsafe { std::slice::from_raw_parts(code_object, size) });
}

/// After `hsa_code_object_reader_create_from_file` succeeded: the file
/// read from its start (as ROCr does) with `pread`, so that the
/// application's file offset stays where ROCr left it.
///
/// # Safety
/// `fd` is an open, readable file descriptor the caller keeps open during the call.
pub unsafe fn from_file(reader: u64, fd: i32) {
    if !dumps::dumps() {
        return;
    }
    // SAFETY: all-zero bytes are a valid value of this C struct (# Safety).
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fstat`'s # Safety follows from this fn's.
    if unsafe { libc::fstat(fd, &mut st) } != 0 || st.st_size <= 0 {
        return;
    }
    let mut v = vec![0u8; st.st_size as usize];
    let mut at = 0usize;
    while at < v.len() {
        // SAFETY: `pread`'s # Safety follows from this fn's.
        let n = unsafe { libc::pread(fd, v[at..].as_mut_ptr() as *mut libc::c_void, v.len() - at, at as libc::off_t) };
        if n <= 0 {
            return;
        }
        at += n as usize;
    }
    write(reader, &v);
}

fn write(reader: u64, bytes: &[u8]) {
    let Some(s) = dumps::settings() else { return };
    let p = registry::created(reader, bytes);
    let line = match files::write(&s.dir, &format!("{}.co", p.base), bytes) {
        Ok(path) => format!("code object {}: {path} ({} bytes)", p.n, bytes.len()),
        Err(e) => format!("code object {}: {e}", p.n),
    };
    dumps::note(&line);
}
