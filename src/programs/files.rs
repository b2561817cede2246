//! Names and writes the files of `<output>/programs/`:
//! `<stem>.p<N>.<hash>.cl` (a program's source), `.spv` (its IL), `.co`
//! (an HSA code object), and per build `B` of it
//! `<stem>.p<N>.<hash>.b<B>.options`, `….b<B>.d<D>.log` and
//! `….b<B>.d<D>.bin` (`D`: the device's index in the program's device
//! list). `hash` is FNV-1a (64 bits) of the source, IL or code object
//! bytes: the same program in two runs has the same name after its number.

use std::path::PathBuf;

/// FNV-1a, 64 bits: stable across runs and versions (no random seed).
pub fn hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The part of every file name of program `n`: `<stem>.p<n>.<hash>`.
pub fn base(stem: &str, n: u64, hash: u64) -> String {
    format!("{stem}.p{n}.{hash:016x}")
}

/// Writes `bytes` to `<dir>/<name>`, making the folder; returns the path
/// relative to the output folder (`programs/<name>`) for the API log, or
/// the error's one line.
pub fn write(dir: &std::path::Path, name: &str, bytes: &[u8]) -> Result<String, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    let p: PathBuf = dir.join(name);
    std::fs::write(&p, bytes).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
    Ok(format!("programs/{name}"))
}

/// The source the driver was given: each string of `strings` with its
/// length from `lengths` (0 or no `lengths`: up to its NUL), one after the
/// other, as `clCreateProgramWithSource` defines it.
///
/// # Safety
/// The arguments of a `clCreateProgramWithSource` call the driver accepted.
pub unsafe fn source(count: u32, strings: *const *const u8, lengths: *const usize) -> Vec<u8> {
    let mut v = Vec::new();
    if strings.is_null() {
        return v;
    }
    for i in 0..count as usize {
        // SAFETY: `strings.add(i)` is valid for this access: The arguments of a `clCreateProgramWithSource` call the
        // driver accepted (# Safety).
        let s = unsafe { *strings.add(i) };
        if s.is_null() {
            continue;
        }
        // SAFETY: `lengths.add(i)` is valid for this access, as the caller promises (# Safety).
        let given = if lengths.is_null() { 0 } else { unsafe { *lengths.add(i) } };
        // SAFETY: `s as *const std::ffi::c_char` is a NUL-terminated string, live while read, as the caller promises
        // (# Safety).
        let n = if given > 0 {
            given
        } else {
            (unsafe { std::ffi::CStr::from_ptr(s as *const std::ffi::c_char) }).to_bytes().len()
        };
        // SAFETY: `s` holds that many initialised elements while the slice is used, as the caller promises (#
        // Safety).
        v.extend_from_slice(unsafe { std::slice::from_raw_parts(s, n) });
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_1a_known_values() {
        assert_eq!(hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn strings_with_and_without_lengths() {
        let a = b"__kernel void k() {}XXXX";
        let b = b"// tail\0";
        let strs = [a.as_ptr(), b.as_ptr()];
        let lens = [20usize, 0];
        let v = unsafe { source(2, strs.as_ptr(), lens.as_ptr()) };
        assert_eq!(v, b"__kernel void k() {}// tail");
        assert_eq!(base("app.7", 3, 0xab), "app.7.p3.00000000000000ab");
    }
}
