//! The host's own floor, measured by `cltap bench` before anything of
//! cltap's: what one clock read costs (every record pays two), and how fast
//! the trace's folder takes sequential writes (a trace rate near it is
//! bound by the disk, not by cltap).

use std::io::Write;
use std::path::Path;
use std::time::Instant;

/// Nanoseconds per `rdtsc`, the clock every record reads twice: the
/// minimum over repetitions of back-to-back reads. `None` off x86-64.
pub fn rdtsc_ns() -> Option<f64> {
    #[cfg(target_arch = "x86_64")]
    {
        const N: u64 = 2_000_000;
        let best = (0..7)
            .map(|_| {
                let mut acc = 0u64;
                let t = Instant::now();
                for _ in 0..N {
                    // SAFETY: rdtsc has no preconditions on x86-64.
                    acc = acc.wrapping_add(unsafe { core::arch::x86_64::_rdtsc() });
                }
                let ns = t.elapsed().as_nanos() as f64 / N as f64;
                std::hint::black_box(acc);
                ns
            })
            .fold(f64::INFINITY, f64::min);
        Some(best)
    }
    #[cfg(not(target_arch = "x86_64"))]
    None
}

/// The folder's sequential write rate in MB/s (10^6 bytes): `mib` MiB
/// written in 4 MiB blocks, then `fdatasync`, timed together; the file is
/// removed after.
pub fn disk_mb_per_s(dir: &Path, mib: u64) -> std::io::Result<f64> {
    let path = dir.join(".cltap-bench-disk");
    struct Remove<'a>(&'a Path);
    impl Drop for Remove<'_> {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(self.0);
        }
    }
    let _rm = Remove(&path);
    let block: Vec<u8> = (0..4usize << 20).map(|i| (i * 31 + 7) as u8).collect();
    let mut f = std::fs::File::create(&path)?;
    let blocks = mib.div_ceil(4).max(1);
    let t = Instant::now();
    for _ in 0..blocks {
        f.write_all(&block)?;
    }
    f.sync_data()?;
    let secs = t.elapsed().as_secs_f64();
    Ok((blocks * block.len() as u64) as f64 / secs / 1e6)
}

/// The filesystem type of `dir` as the kernel names it (ext4, tmpfs, …),
/// from the longest mount point in /proc/self/mounts that holds it.
pub fn filesystem(dir: &Path) -> Option<String> {
    let dir = dir.canonicalize().ok()?;
    let mounts = std::fs::read_to_string("/proc/self/mounts").ok()?;
    mounts
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let (_, at, fs) = (w.next()?, w.next()?, w.next()?);
            dir.starts_with(at).then(|| (at.len(), fs.to_string()))
        })
        .max_by_key(|(n, _)| *n)
        .map(|(_, fs)| fs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_disk_probe_writes_and_removes_its_file() {
        let dir = std::env::temp_dir().join(format!("cltap-disk-probe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rate = disk_mb_per_s(&dir, 4).unwrap();
        assert!(rate > 0.0 && rate.is_finite(), "{rate}");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "probe file removed");
        std::fs::remove_dir(&dir).unwrap();
    }

    #[test]
    fn the_root_folder_has_a_filesystem() {
        assert!(filesystem(Path::new("/")).is_some_and(|f| !f.is_empty()));
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn a_clock_read_costs_something_finite() {
        let ns = rdtsc_ns().unwrap();
        assert!(ns > 0.0 && ns.is_finite(), "{ns}");
    }
}
