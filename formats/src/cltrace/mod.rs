//! The binary trace, `<app>.<pid>.cltrace`: the primary record of a run.
//! The API log, the `.atp`, the timeline and the summary are rendered from
//! it. docs/trace-format.md describes the layout; in short:
//!
//! ```text
//! offset 0           file header (HEADER_SIZE bytes): fixed fields, then
//!                    key=value information (application, arguments, …)
//! HEADER_SIZE + i·C  chunk i (C = chunk_size): a chunk header, then records
//! ```
//!
//! Each chunk belongs to one thread. The process writes it through a shared
//! file mapping, so whatever it stored is in the file however it dies. A
//! chunk is *sealed* when it is handed to the renderer; seal numbers give
//! the order in which chunks are rendered, and chunks never sealed (the ones
//! in use when the process ended) follow in index order.

pub mod compact;
pub mod record;
mod writer;

pub use writer::{ThreadWriter, TraceWriter};

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

pub const MAGIC: [u8; 8] = *b"CLTRACE\0";
/// The version written: 2, compact records ([`compact`]). Version 1 (wide
/// records only) is still read.
pub const VERSION: u32 = 2;
/// The oldest version read.
pub const VERSION_WIDE: u32 = 1;
pub const HEADER_SIZE: usize = 4096;
/// The largest chunk a reader accepts; the layer accepts no larger buffer.
pub const MAX_CHUNK_SIZE: u64 = 1 << 32;
pub const CHUNK_MAGIC: u32 = u32::from_le_bytes(*b"CLCK");
/// Set in [`FileHeader::flags`] once the process rendered everything itself.
pub const FLAG_FINISHED: u32 = 1;

/// How record times are counted.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// The processor's invariant time-stamp counter.
    InvariantTsc = 0,
    /// CLOCK_MONOTONIC, in nanoseconds.
    Monotonic = 1,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileHeader {
    pub magic: [u8; 8],
    pub version: u32,
    pub header_size: u32,
    pub chunk_size: u64,
    pub pid: u32,
    /// [`FLAG_FINISHED`].
    pub flags: u32,
    /// A [`Clock`].
    pub clock: u32,
    pub info_len: u32,
    /// Clock reading and CLOCK_MONOTONIC (ns) when the trace began.
    pub tsc0: u64,
    pub mono0: u64,
    /// A later pair, for the clock's rate; 0 until measured.
    pub tsc1: u64,
    pub mono1: u64,
    /// Records dropped: discard policy, or a file that could not grow.
    pub drops: u64,
}

pub const FILE_HEADER: usize = std::mem::size_of::<FileHeader>();

impl FileHeader {
    pub fn new(chunk_size: u64, pid: u32, clock: Clock, tsc0: u64, mono0: u64) -> Self {
        FileHeader {
            magic: MAGIC,
            version: VERSION,
            header_size: HEADER_SIZE as u32,
            chunk_size,
            pid,
            flags: 0,
            clock: clock as u32,
            info_len: 0,
            tsc0,
            mono0,
            tsc1: 0,
            mono1: 0,
            drops: 0,
        }
    }

    /// Clock ticks per microsecond, if a second reading was taken.
    pub fn ticks_per_us(&self) -> Option<f64> {
        if self.clock == Clock::Monotonic as u32 {
            return Some(1000.0);
        }
        (self.mono1 > self.mono0 && self.tsc1 > self.tsc0)
            .then(|| (self.tsc1 - self.tsc0) as f64 * 1000.0 / (self.mono1 - self.mono0) as f64)
    }
}

#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChunkHeader {
    pub magic: u32,
    pub version: u16,
    pub _pad: u16,
    pub tid: u32,
    /// This thread's chunk number: 0, 1, 2, …
    pub seq: u32,
    /// 1 + the order in which the chunk was handed to the renderer; 0 while
    /// its thread still writes in it.
    pub sealed: u64,
    /// Bytes of records after the chunk header, open ones included.
    pub used: u64,
    /// Records this thread dropped while the chunk was its current one.
    pub drops: u64,
    pub _reserved: [u64; 3],
}

pub const CHUNK_HEADER: usize = std::mem::size_of::<ChunkHeader>();

/// Encodes the key=value information that follows the file header.
pub fn encode_info(pairs: &[(&str, &str)]) -> Vec<u8> {
    let mut v = Vec::new();
    for (k, val) in pairs {
        v.extend_from_slice(k.as_bytes());
        v.push(0);
        v.extend_from_slice(val.as_bytes());
        v.push(0);
    }
    v.truncate(HEADER_SIZE - FILE_HEADER);
    v
}

/// The information key of the HSA clock: `HSA_SYSTEM_INFO_TIMESTAMP` minus
/// `CLOCK_MONOTONIC`, signed ns, measured when the HSA runtime loaded cltap
/// (its `OnLoad`), so added after the keys written when the trace began.
/// Absent in a trace of no HSA runtime, or one older than the key.
pub const INFO_HSA_CLOCK_OFFSET: &str = "hsa_clock_offset";

/// `info_len` once `key`/`value` are appended to the `info_len` bytes of
/// information already in `info` (the header page's bytes after the fixed
/// fields), or None when the page has no room for them. The key's bytes
/// are written first; the caller then publishes the new length.
pub fn append_info(info: &mut [u8], info_len: usize, key: &str, value: &str) -> Option<usize> {
    let add = encode_info(&[(key, value)]);
    let end = info_len.checked_add(add.len())?;
    if end > info.len().min(HEADER_SIZE - FILE_HEADER) || add.len() != key.len() + value.len() + 2 {
        return None;
    }
    info[info_len..end].copy_from_slice(&add);
    Some(end)
}

fn decode_info(b: &[u8]) -> Vec<(String, String)> {
    let parts: Vec<&[u8]> = b.split(|&c| c == 0).collect();
    parts
        .chunks(2)
        .filter(|p| p.len() == 2)
        .map(|p| (String::from_utf8_lossy(p[0]).into_owned(), String::from_utf8_lossy(p[1]).into_owned()))
        .collect()
}

#[derive(Debug, thiserror::Error)]
#[error("{}: offset {offset}: {reason}", file.display())]
pub struct Error {
    pub file: PathBuf,
    pub offset: u64,
    pub reason: String,
}

/// One chunk as found in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkInfo {
    pub index: u64,
    pub offset: u64,
    pub header: ChunkHeader,
}

/// A trace opened for reading; it may still be growing, or be what a dead
/// process left.
pub struct Reader {
    path: PathBuf,
    file: File,
    pub header: FileHeader,
    pub info: Vec<(String, String)>,
}

fn read_struct<T: Copy>(b: &[u8]) -> T {
    assert!(b.len() >= std::mem::size_of::<T>());
    // SAFETY: T is a plain repr(C) struct of integers; any bytes are a value.
    unsafe { std::ptr::read_unaligned(b.as_ptr() as *const T) }
}

impl Reader {
    pub fn open(path: &Path) -> Result<Reader, Error> {
        let err = |offset, reason: String| Error { file: path.to_path_buf(), offset, reason };
        let file = File::open(path).map_err(|e| err(0, e.to_string()))?;
        let mut page = vec![0u8; HEADER_SIZE];
        let n = read_full(&file, &mut page, 0).map_err(|e| err(0, e.to_string()))?;
        if n < HEADER_SIZE {
            return Err(err(n as u64, format!("the file ends inside the header ({n} of {HEADER_SIZE} bytes)")));
        }
        let header: FileHeader = read_struct(&page);
        if header.magic != MAGIC {
            return Err(err(0, "not a cltap trace (bad magic)".into()));
        }
        if !(VERSION_WIDE..=VERSION).contains(&header.version) {
            return Err(err(
                8,
                format!("trace format version {} (this cltap reads {VERSION_WIDE} to {VERSION})", header.version),
            ));
        }
        if header.header_size as usize != HEADER_SIZE {
            return Err(err(12, format!("header size {} (expected {HEADER_SIZE})", header.header_size)));
        }
        if header.chunk_size < 4096 || !header.chunk_size.is_multiple_of(4096) || header.chunk_size > MAX_CHUNK_SIZE {
            return Err(err(16, format!("chunk size {} is not a multiple of 4096 up to 4 GiB", header.chunk_size)));
        }
        let info_end = (FILE_HEADER + header.info_len as usize).min(n);
        let info = decode_info(&page[FILE_HEADER..info_end]);
        Ok(Reader { path: path.to_path_buf(), file, header, info })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn info(&self, key: &str) -> Option<&str> {
        self.info.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    fn error(&self, offset: u64, reason: impl Into<String>) -> Error {
        Error { file: self.path.clone(), offset, reason: reason.into() }
    }

    /// The file header as it is now (the process may still be writing).
    pub fn current_header(&self) -> Result<FileHeader, Error> {
        let mut b = vec![0u8; FILE_HEADER];
        read_full(&self.file, &mut b, 0).map_err(|e| self.error(0, e.to_string()))?;
        Ok(read_struct(&b))
    }

    /// The information as it is now: the keys added during the run (such as
    /// [`INFO_HSA_CLOCK_OFFSET`]) included, which [`Reader::info`] lacks when
    /// the trace was opened before they were written.
    pub fn current_info(&self) -> Result<Vec<(String, String)>, Error> {
        let mut page = vec![0u8; HEADER_SIZE];
        let n = read_full(&self.file, &mut page, 0).map_err(|e| self.error(0, e.to_string()))?;
        let h: FileHeader = read_struct(&page);
        let end = (FILE_HEADER + h.info_len as usize).min(n);
        Ok(decode_info(&page[FILE_HEADER..end.max(FILE_HEADER)]))
    }

    /// Where chunk `index` starts, when that is a place a file can have.
    fn chunk_offset(&self, index: u64) -> Option<u64> {
        index.checked_mul(self.header.chunk_size)?.checked_add(HEADER_SIZE as u64)
    }

    /// Whether a chunk header fits its chunk. `used` is read from the file:
    /// compared by subtraction (chunk sizes are at least 4096), it cannot wrap.
    fn fits(&self, h: &ChunkHeader) -> bool {
        h.used <= self.header.chunk_size - CHUNK_HEADER as u64
    }

    /// Every chunk in use, in render order: sealed ones by seal number, then
    /// the others by index. Chunks never started (all zero) are skipped; a
    /// chunk whose header is damaged is an error.
    ///
    /// A chunk never started is a hole in a sparse file: the walk asks the
    /// file system for the next data (`SEEK_DATA`) rather than reading the
    /// zeros of every chunk header, so a sparse terabyte costs what its data
    /// costs.
    pub fn chunks(&self) -> Result<Vec<ChunkInfo>, Error> {
        let len = self.file.metadata().map_err(|e| self.error(0, e.to_string()))?.len();
        let size = self.header.chunk_size;
        let mut out = Vec::new();
        let mut index = 0u64;
        let mut b = [0u8; CHUNK_HEADER];
        while let Some(offset) = self.chunk_offset(index).filter(|o| o.saturating_add(CHUNK_HEADER as u64) <= len) {
            read_full(&self.file, &mut b, offset).map_err(|e| self.error(offset, e.to_string()))?;
            let h: ChunkHeader = read_struct(&b);
            if h.magic == CHUNK_MAGIC {
                if !self.fits(&h) {
                    return Err(self.error(
                        offset,
                        format!("chunk {index}: {} bytes of records do not fit a {size}-byte chunk", h.used),
                    ));
                }
                out.push(ChunkInfo { index, offset, header: h });
            } else if h.magic != 0 {
                return Err(self.error(offset, format!("chunk {index}: bad chunk magic {:#x}", h.magic)));
            }
            index += 1;
            if h.magic == 0 {
                match next_data(&self.file, offset + CHUNK_HEADER as u64) {
                    // The chunk holding the next data may start before it.
                    Some(d) => index = index.max((d - HEADER_SIZE as u64) / size),
                    None => break,
                }
            }
        }
        out.sort_by_key(|c| (c.header.sealed == 0, c.header.sealed, c.index));
        Ok(out)
    }

    /// The header of chunk `index`, as it is now.
    pub fn chunk(&self, index: u64) -> Result<ChunkInfo, Error> {
        let offset = self.chunk_offset(index).ok_or_else(|| self.error(0, format!("chunk {index} is out of range")))?;
        let mut b = [0u8; CHUNK_HEADER];
        let n = read_full(&self.file, &mut b, offset).map_err(|e| self.error(offset, e.to_string()))?;
        if n < CHUNK_HEADER {
            return Err(self.error(offset, format!("chunk {index} is past the end of the file")));
        }
        let header: ChunkHeader = read_struct(&b);
        if header.magic != CHUNK_MAGIC || !self.fits(&header) {
            return Err(self.error(offset, format!("chunk {index}: bad chunk header")));
        }
        Ok(ChunkInfo { index, offset, header })
    }

    /// The record bytes of a chunk, as stored (the file's version's
    /// layout), read into `buf`: what [`Self::walk`] reads. The buffer grows
    /// with what is read, never ahead of it: a chunk header that claims more
    /// than the file holds costs no more memory than the file. On an error,
    /// `buf` holds what could be read.
    pub fn chunk_bytes(&self, c: &ChunkInfo, buf: &mut Vec<u8>) -> Result<(), Error> {
        self.read_chunk(c, buf)
    }

    /// A chunk's records in the wide form ([`record`]) whatever the version,
    /// for those who keep records (the tools' buffers): a version 2 chunk
    /// is widened ([`compact::widen`]) up to any damage, which
    /// [`Self::walk`] reports.
    pub fn chunk_records(&self, c: &ChunkInfo, buf: &mut Vec<u8>) -> Result<(), Error> {
        if self.header.version == VERSION_WIDE {
            return self.read_chunk(c, buf);
        }
        let mut raw = Vec::new();
        self.read_chunk(c, &mut raw)?;
        self.widen(c, &raw, buf);
        Ok(())
    }

    /// [`Self::chunk_records`] of bytes [`Self::chunk_bytes`] read, into `out`.
    pub fn widen(&self, c: &ChunkInfo, bytes: &[u8], out: &mut Vec<u8>) {
        out.clear();
        if self.header.version == VERSION_WIDE {
            out.extend_from_slice(bytes);
        } else {
            let _ = compact::widen(bytes, c.header.tid, out);
        }
    }

    fn read_chunk(&self, c: &ChunkInfo, buf: &mut Vec<u8>) -> Result<(), Error> {
        const STEP: usize = 1 << 20;
        let n = usize::try_from(c.header.used).map_err(|_| self.error(c.offset, "chunk too large".to_string()))?;
        let start = c.offset + CHUNK_HEADER as u64;
        buf.clear();
        let mut got = 0;
        while got < n {
            let want = (n - got).min(STEP);
            buf.resize(got + want, 0);
            let k = match read_full(&self.file, &mut buf[got..], start + got as u64) {
                Ok(k) => k,
                Err(e) => {
                    // What was read, not the zeros past it.
                    buf.truncate(got);
                    return Err(self.error(start + got as u64, e.to_string()));
                }
            };
            got += k;
            if k < want {
                buf.truncate(got);
                return Err(
                    self.error(start + got as u64, format!("chunk {} is cut short: {got} of {n} bytes", c.index))
                );
            }
        }
        Ok(())
    }

    /// Walks a chunk's records, its bytes as [`Self::chunk_bytes`] read
    /// them, in the order they were opened. A call that never returned
    /// comes with its header and arguments only (that is all a call has
    /// before it returns) and `returned()` false. Records moved on
    /// completion are skipped here and met again where they were completed.
    /// A damaged record ends the walk with an error naming its offset in the
    /// file, after the records before it.
    ///
    /// Bytes shorter than the chunk's `used` (a file cut short, which
    /// [`Self::chunk_bytes`] reported) are walked up to the first record
    /// that runs past them; [`Walked::lost`] counts the bytes from there.
    ///
    /// Each record is read into the same view, lent to `f`.
    pub fn walk<'a>(
        &self,
        c: &ChunkInfo,
        buf: &'a [u8],
        mut f: impl FnMut(&record::View<'a>),
    ) -> Result<Walked, Error> {
        let cut = (buf.len() as u64) < c.header.used;
        let kept = if self.header.version == VERSION_WIDE {
            self.walk_wide(c, buf, cut, f)?
        } else {
            let mut d =
                if cut { compact::Decoder::cut(buf, c.header.tid) } else { compact::Decoder::new(buf, c.header.tid) };
            let mut v = record::View::default();
            while let Some(r) = d.next(&mut v) {
                if let Err(d) = r {
                    let at = c.offset + (CHUNK_HEADER + d.at) as u64;
                    return Err(self.error(at, format!("chunk {}: {}", c.index, d.reason)));
                }
                if v.header.flags & record::FLAG_MOVED == 0 {
                    f(&v);
                }
            }
            d.at()
        };
        Ok(Walked { lost: if cut { c.header.used.saturating_sub(kept as u64) } else { 0 } })
    }

    /// [`Self::walk`] of version 1 records: where the records kept end.
    fn walk_wide<'a>(
        &self,
        c: &ChunkInfo,
        buf: &'a [u8],
        cut: bool,
        f: impl FnMut(&record::View<'a>),
    ) -> Result<usize, Error> {
        walk_wide(c.header.tid, buf, cut, f)
            .map_err(|(off, r)| self.error(c.offset + (CHUNK_HEADER + off) as u64, format!("chunk {}: {r}", c.index)))
    }
}

/// What [`Reader::walk`] could not give of a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Walked {
    /// Bytes of records lost: 0 for a chunk read whole; for one cut short,
    /// its `used` less the bytes of the whole records before the cut.
    pub lost: u64,
}

/// [`Reader::walk`] of version 1 records, thread `tid`'s: where the
/// records kept end, or damage as its offset in `buf` and the reason. With
/// `cut` (bytes cut short), a record that runs past them is lost, as
/// [`compact::Decoder::cut`] has it.
fn walk_wide<'a>(
    tid: u32,
    buf: &'a [u8],
    cut: bool,
    mut f: impl FnMut(&record::View<'a>),
) -> Result<usize, (usize, String)> {
    let mut off = 0usize;
    let mut v = record::View::default();
    while off < buf.len() {
        let rest = &buf[off..];
        if cut && runs_past(rest) {
            return Ok(off);
        }
        match next_wide(tid, rest, &mut v) {
            Ok(Some(len)) => off += len,
            Ok(None) => {
                // Completed while the process died: only the opened part
                // counts, and it is the last.
                f(&v);
                return Ok(buf.len());
            }
            Err(r) => return Err((off, r)),
        }
        if v.header.flags & record::FLAG_MOVED == 0 {
            f(&v);
        }
    }
    Ok(off)
}

/// Whether the version 1 record at the start of `rest` runs past it: its
/// header, its opened part, or (complete) its length.
fn runs_past(rest: &[u8]) -> bool {
    if rest.len() < record::HEADER {
        return true;
    }
    // SAFETY: a plain integer struct, read from at least its size.
    let h: record::Header = unsafe { std::ptr::read_unaligned(rest.as_ptr() as *const record::Header) };
    let opened = record::HEADER + 8 * h.nargs as usize;
    opened > rest.len() || (h.flags & record::FLAG_DONE != 0 && h.len as usize > rest.len())
}

/// Reads the version 1 record at the start of `rest`, thread `tid`'s, into
/// `v`: its length, or `None` for a record completed as the process died
/// (read as its opened part), or why it is damaged.
fn next_wide<'a>(tid: u32, rest: &'a [u8], v: &mut record::View<'a>) -> Result<Option<usize>, String> {
    if rest.len() < record::HEADER {
        return Err(format!("{} bytes left, a record header needs {}", rest.len(), record::HEADER));
    }
    // SAFETY: a plain integer struct, read from at least its size.
    let h: record::Header = unsafe { std::ptr::read_unaligned(rest.as_ptr() as *const record::Header) };
    if h.tid != tid {
        return Err(format!("a record of thread {} in thread {tid}'s chunk", h.tid));
    }
    let opened = record::HEADER + 8 * h.nargs as usize;
    if h.flags & record::FLAG_DONE == 0 {
        if opened > rest.len() {
            return Err(format!("an open record of {} arguments runs past the end", h.nargs));
        }
        record::view::read_last(&rest[..opened], v);
        return Ok(Some(opened));
    }
    let len = h.len as usize;
    if len > rest.len() {
        if !record::view::read_last(&rest[..opened.min(rest.len())], v) {
            return Err("the last record is cut short".into());
        }
        return Ok(None);
    }
    let h = record::check(rest)?;
    record::view::read_wide(&rest[..len], h, v);
    Ok(Some(len))
}

/// The offset of the first data at or after `from`, or `None` when only holes
/// follow. A file system without `SEEK_DATA` answers `from` itself.
fn next_data(f: &File, from: u64) -> Option<u64> {
    use std::os::fd::AsRawFd;
    let from = i64::try_from(from).ok()?;
    // SAFETY: lseek on a descriptor this reader owns; it changes only the
    // file position, which the positioned reads here do not use.
    let at = unsafe { libc::lseek(f.as_raw_fd(), from, libc::SEEK_DATA) };
    if at >= 0 {
        return Some(at as u64);
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::ENXIO) => None,
        _ => Some(from as u64),
    }
}

fn read_full(f: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match f.read_at(&mut buf[got..], offset + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod decode_tests;
#[cfg(test)]
mod oracle;
#[cfg(test)]
mod tests;
