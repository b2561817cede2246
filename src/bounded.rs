//! Reading a file that someone else named (a metrics file, an include, a
//! request file): only a regular file, opened once, and read up to a cap.
//! A device (`/dev/zero`), a pipe (`/dev/stdin`) or a FIFO would otherwise
//! read without end or block the process that reads it, and that process may
//! be the application cltap is loaded into.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Opens `path` without blocking (a FIFO would wait for a writer), refuses
/// what is not a regular file, and reads at most `cap` bytes of UTF-8 text.
pub fn read_text(path: &Path, cap: u64) -> io::Result<String> {
    let f = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path)?;
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
    }
    if meta.len() > cap {
        return Err(too_large(cap));
    }
    read_capped(f, cap)
}

fn too_large(cap: u64) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("larger than {} KiB", cap >> 10))
}

/// The file may grow after `metadata`: the read itself stops at the cap.
fn read_capped(f: File, cap: u64) -> io::Result<String> {
    let mut text = String::new();
    f.take(cap + 1).read_to_string(&mut text)?;
    if text.len() as u64 > cap {
        return Err(too_large(cap));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_pipes_are_refused_at_once() {
        for p in ["/dev/zero", "/dev/null", "/proc/self"] {
            let e = read_text(Path::new(p), 1 << 20).unwrap_err();
            assert_eq!(e.to_string(), "not a regular file", "{p}");
        }
    }

    #[test]
    fn a_file_past_the_cap_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big");
        std::fs::write(&p, vec![b'x'; 5000]).unwrap();
        assert_eq!(read_text(&p, 4096).unwrap_err().to_string(), "larger than 4 KiB");
        assert_eq!(read_text(&p, 5000).unwrap().len(), 5000);
    }
}
