//! The rendering rows of the throughput part: the API log rendered from one
//! trace on 1, 2, 4 … every core, into the trace's folder and into memory
//! (tmpfs). A rate that stops growing with the threads in the folder but
//! not in memory is the disk's, and the bytes per second beside it say so
//! (compare the host part's sequential write).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The thread counts rendered with: powers of two up to the cores, and the
/// cores themselves.
pub fn thread_counts(cores: usize) -> Vec<usize> {
    let mut v: Vec<usize> =
        std::iter::successors(Some(1usize), |n| n.checked_mul(2)).take_while(|&n| n < cores).collect();
    v.push(cores.max(1));
    v
}

/// What one render gave: records in the log's trailer, the log's bytes and
/// the wall time.
struct Rendered {
    records: u64,
    bytes: u64,
    secs: f64,
}

impl Rendered {
    fn text(&self) -> (String, String) {
        (
            format!("{:.2} M/s", self.records as f64 / self.secs / 1e6),
            format!("{:.0} MB/s", self.bytes as f64 / self.secs / 1e6),
        )
    }
}

fn render(exe: &Path, trace: &Path, dir: &Path, threads: usize) -> Option<Rendered> {
    let t0 = Instant::now();
    let o =
        Command::new(exe).args(["render", "--threads", &threads.to_string(), "--output"]).arg(dir).arg(trace).output();
    let secs = t0.elapsed().as_secs_f64();
    let log = super::only(dir, "apilog");
    let r = match (o, &log) {
        (Ok(o), Some(log)) if o.status.success() => Some(Rendered {
            records: super::trailer(dir).map_or(0, |(k, _)| k),
            bytes: std::fs::metadata(log).map_or(0, |m| m.len()),
            secs,
        }),
        _ => None,
    };
    let _ = super::clean(dir);
    r
}

/// A scratch folder on tmpfs with room for `bytes` twice over, removed on drop.
struct Memory(PathBuf);

impl Memory {
    fn make(bytes: u64) -> Option<Memory> {
        let shm = Path::new("/dev/shm");
        if super::host::filesystem(shm).as_deref() != Some("tmpfs") || free_bytes(shm)? < bytes.saturating_mul(2) {
            return None;
        }
        let d = shm.join(format!("cltap-bench-{}", std::process::id()));
        std::fs::create_dir_all(&d).ok()?;
        Some(Memory(d))
    }
}

impl Drop for Memory {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn free_bytes(dir: &Path) -> Option<u64> {
    let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).ok()?;
    let mut s = std::mem::MaybeUninit::<libc::statvfs>::zeroed();
    // SAFETY: a NUL-terminated path and a buffer of the right type.
    if unsafe { libc::statvfs(c.as_ptr(), s.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: statvfs succeeded and filled it.
    let s = unsafe { s.assume_init() };
    Some(s.f_bavail.saturating_mul(s.f_frsize))
}

/// Prints the rows: for each thread count, records and bytes per second
/// into `out` (the trace's folder) and into tmpfs where it has room.
pub fn table(exe: &Path, trace: &Path, out: &Path) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let fs = super::host::filesystem(out).unwrap_or_else(|| "?".into());
    println!();
    println!("rendering the API log from the 8-thread clGetPlatformInfo trace (cltap render): records per second and the log's bytes per second, into the trace's folder ({fs}) and into memory (tmpfs)");
    println!("{:<12}{:>14}{:>12}{:>14}{:>12}", "threads", "folder", "", "memory", "");
    let mut memory: Option<Option<Memory>> = None;
    for threads in thread_counts(cores) {
        let disk = render(exe, trace, out, threads);
        let mem = memory.get_or_insert_with(|| Memory::make(disk.as_ref().map_or(0, |r| r.bytes)));
        let in_memory = mem.as_ref().and_then(|m| render(exe, trace, &m.0, threads));
        let cells = |r: Option<Rendered>| r.map_or(("failed".into(), String::new()), |r| r.text());
        let (d, db) = cells(disk);
        let (m, mb) = match mem {
            Some(_) => cells(in_memory),
            None => ("-".into(), "(no room)".into()),
        };
        println!("{threads:<12}{d:>14}{db:>12}{m:>14}{mb:>12}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_double_up_to_the_cores() {
        assert_eq!(thread_counts(1), vec![1]);
        assert_eq!(thread_counts(2), vec![1, 2]);
        assert_eq!(thread_counts(16), vec![1, 2, 4, 8, 16]);
        assert_eq!(thread_counts(12), vec![1, 2, 4, 8, 12]);
    }
}
