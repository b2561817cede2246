//! The rendering rows of the throughput part: the API log rendered from one
//! trace on 1, 2, 4 … every core, into the trace's folder and into memory
//! (tmpfs). A rate that stops growing with the threads in the folder but
//! not in memory is the disk's, and the bytes per second beside it say so
//! (compare the host part's sequential write). Each render's CPU time per
//! record, cltap's (user) and the kernel's, and the kernel's own rate for
//! the same bytes written by one thread, say how much of a core's rate is
//! the host's page cache rather than cltap's work.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The thread counts rendered with: powers of two up to the cores, and the
/// cores themselves.
pub fn thread_counts(cores: usize) -> Vec<usize> {
    let mut v: Vec<usize> =
        std::iter::successors(Some(1usize), |n| n.checked_mul(2)).take_while(|&n| n < cores).collect();
    v.push(cores.max(1));
    v
}

/// What one render (or the kernel's write alone) gave: records in the
/// log's trailer, the log's bytes, the wall time, and the CPU time of all
/// its threads, in user mode and in the kernel.
struct Rendered {
    records: u64,
    bytes: u64,
    secs: f64,
    user: Duration,
    kernel: Duration,
}

impl Rendered {
    /// Records per second, bytes per second, and CPU ns per record: user +
    /// kernel.
    fn text(&self) -> [String; 3] {
        let per = |d: Duration| d.as_nanos() as f64 / self.records.max(1) as f64;
        [
            format!("{:.2} M/s", self.records as f64 / self.secs / 1e6),
            format!("{:.0} MB/s", self.bytes as f64 / self.secs / 1e6),
            format!("{:.0} + {:.0} ns", per(self.user), per(self.kernel)),
        ]
    }
}

fn render(exe: &Path, trace: &Path, dir: &Path, threads: usize) -> Option<Rendered> {
    let t0 = Instant::now();
    let child = Command::new(exe)
        .args(["render", "--threads", &threads.to_string(), "--output"])
        .arg(dir)
        .arg(trace)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    // The child's own CPU time comes with its exit status (wait4), so the
    // child is reaped here, not by `Child::wait`.
    let (status, ru) = super::reap(child);
    let secs = t0.elapsed().as_secs_f64();
    let log = super::only(dir, "apilog");
    let r = match (status, &log) {
        (Some(0), Some(log)) => Some(Rendered {
            records: super::trailer(dir).map_or(0, |(k, _)| k),
            bytes: std::fs::metadata(log).map_or(0, |m| m.len()),
            secs,
            user: super::duration(ru.ru_utime),
            kernel: super::duration(ru.ru_stime),
        }),
        _ => None,
    };
    let _ = super::clean(dir);
    r
}

/// The kernel alone: `bytes` (a rendered log's size) written into a fresh
/// file in `dir` in 1 MiB pieces, as `cltap render` writes its log, no
/// sync, by a bench child ([`write_file`]), whose CPU time comes exact
/// with its exit (a running thread's own count lags by up to a tick).
/// Given as `records` records, so that its rate reads beside the renders'.
fn write_alone(exe: &Path, driver: &Path, dir: &Path, bytes: u64, records: u64) -> Option<Rendered> {
    let path = dir.join(".cltap-bench-write");
    let m = super::measure(exe, &format!("write:{bytes}:{}", path.display()), driver, None, &[], dir);
    let _ = std::fs::remove_file(&path);
    let m = m.ok()?;
    Some(Rendered { records, bytes, secs: m.calling_ns as f64 / 1e9, user: m.user, kernel: m.kernel })
}

/// The bench's child `write:BYTES:PATH`: `bytes` written into a new file
/// at `path` in 1 MiB pieces; prints the time they took (`calling_ns`).
pub fn write_file(path: &Path, bytes: u64) -> Result<(), String> {
    let piece: Vec<u8> = (0..1usize << 20).map(|i| b' ' + (i % 90) as u8).collect();
    let mut f = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let t0 = Instant::now();
    let mut left = bytes;
    while left > 0 {
        let n = left.min(piece.len() as u64) as usize;
        f.write_all(&piece[..n]).map_err(|e| format!("{}: {e}", path.display()))?;
        left -= n as u64;
    }
    println!("calling_ns {}", t0.elapsed().as_nanos());
    Ok(())
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
/// and CPU time per record into `out` (the trace's folder) and into tmpfs
/// where it has room; last, the kernel's write of the same bytes alone.
pub fn table(exe: &Path, driver: &Path, trace: &Path, out: &Path) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let fs = super::host::filesystem(out).unwrap_or_else(|| "?".into());
    println!();
    println!("rendering the API log from the 8-thread clGetPlatformInfo trace (cltap render): records per second, the log's bytes per second and the render's CPU time per record (all its threads: user + kernel), into the trace's folder ({fs}) and into memory (tmpfs); last, the kernel alone: the log's bytes written by one thread in 1 MiB pieces, as the renderer writes them, at the same records per byte");
    let row = |label: &str, d: [String; 3], m: [String; 3]| {
        println!("{label:<12}{:>14}{:>12}{:>16}{:>14}{:>12}{:>16}", d[0], d[1], d[2], m[0], m[1], m[2]);
    };
    row(
        "threads",
        ["folder".into(), String::new(), "cpu/record".into()],
        ["memory".into(), String::new(), "cpu/record".into()],
    );
    let cells = |r: Option<Rendered>| r.map_or(["failed".into(), String::new(), String::new()], |r| r.text());
    let no_room = || ["-".to_string(), "(no room)".to_string(), String::new()];
    let mut memory: Option<Option<Memory>> = None;
    let mut first: Option<(u64, u64)> = None;
    for threads in thread_counts(cores) {
        let disk = render(exe, trace, out, threads);
        if first.is_none() {
            first = disk.as_ref().map(|r| (r.bytes, r.records));
        }
        let mem = memory.get_or_insert_with(|| Memory::make(disk.as_ref().map_or(0, |r| r.bytes)));
        let in_memory = mem.as_ref().and_then(|m| render(exe, trace, &m.0, threads));
        let m = if mem.is_some() { cells(in_memory) } else { no_room() };
        row(&threads.to_string(), cells(disk), m);
    }
    if let Some((bytes, records)) = first {
        let mem = memory.flatten();
        let m = match &mem {
            Some(m) => cells(write_alone(exe, driver, &m.0, bytes, records)),
            None => no_room(),
        };
        row("write(2)", cells(write_alone(exe, driver, out, bytes, records)), m);
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
