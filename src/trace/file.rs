//! The process's binary trace on disk (`<app>.<pid>.cltrace`, layout in
//! `cltap_formats::cltrace`). Threads get chunks of it as shared, writable
//! mappings: what they store is the kernel's page cache, so it is in the
//! file whatever ends the process. A full chunk is sealed (numbered for the
//! renderer, queued, unmapped), so a thread holds one chunk at a time and
//! memory stays flat however long the trace grows.

use cltap_formats::cltrace::{
    self, ChunkHeader, Clock, FileHeader, CHUNK_HEADER, CHUNK_MAGIC, FILE_HEADER, HEADER_SIZE,
};
use crossbeam_queue::{ArrayQueue, SegQueue};
use memmap2::{MmapMut, MmapOptions};
use parking_lot::Mutex;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// The file grows by doubling, up to this much at a time (reserved with
/// fallocate where the filesystem can, so a full disk shows here and not as
/// a fault when a page is written).
const GROW_BYTES: u64 = 64 << 20;
/// Chunks mapped and touched ahead of need by the background thread, so
/// that application threads rarely take a page fault or a system call.
const READY: usize = 8;
/// `madvise` advice that faults a range in, writable, in one call (Linux
/// 5.14); older kernels refuse it and the pages are touched one by one.
const MADV_POPULATE_WRITE: i32 = 23;

/// One chunk, mapped for writing. Dropping it unmaps it.
pub struct Chunk {
    pub index: u64,
    map: MmapMut,
}

impl Chunk {
    pub fn header(&self) -> *mut ChunkHeader {
        self.map.as_ptr() as *mut ChunkHeader
    }

    /// The records area.
    pub fn data(&mut self) -> *mut u8 {
        // SAFETY: the mapping is a whole chunk, larger than its header.
        unsafe { self.map.as_mut_ptr().add(CHUNK_HEADER) }
    }

    /// `used`, the end of the records, as another thread may read it.
    pub fn used_cell(&self) -> &AtomicU64 {
        // SAFETY: the field is 8-byte aligned in a page-aligned mapping.
        unsafe { &*(std::ptr::addr_of_mut!((*self.header()).used) as *const AtomicU64) }
    }

    pub fn drops_cell(&self) -> &AtomicU64 {
        // SAFETY: as above.
        unsafe { &*(std::ptr::addr_of_mut!((*self.header()).drops) as *const AtomicU64) }
    }
}

// A chunk belongs to one thread at a time; the mapping is plain memory.
unsafe impl Send for Chunk {}

pub struct TraceFile {
    pub path: PathBuf,
    file: File,
    pub chunk_size: usize,
    /// The header page, for the fields that change during the run.
    header: Mutex<MmapMut>,
    next_index: AtomicU64,
    /// Chunks the file has room for, and whether it can grow no more.
    capacity: Mutex<u64>,
    limit: Option<u64>,
    /// `CLTAP_TRACE_LIMIT` as given, when it (not the file-size limit) is
    /// what stops the trace: named in the message.
    own_limit: Option<u64>,
    full: AtomicBool,
    /// Trimmed at the end: no more chunks.
    closed: AtomicBool,
    /// Threads in `take`, and 1 + the highest chunk index handed out.
    taking: AtomicUsize,
    max_taken: AtomicU64,
    next_seal: AtomicU64,
    /// (seal number, chunk index), for the renderer.
    pub sealed: SegQueue<(u64, u64)>,
    /// Sealed and not yet rendered.
    pub pending: AtomicUsize,
    ready: ArrayQueue<Chunk>,
    allocating: Mutex<()>,
    /// Sealed chunks, to be unmapped.
    retired: SegQueue<Chunk>,
    /// The background thread, woken when a prepared chunk is taken.
    pub preparer: std::sync::OnceLock<std::thread::Thread>,
}

/// Makes the file system back `len` bytes at `from` before they are mapped,
/// so that writing them through the mapping cannot fault: `fallocate`, or
/// where the file system has none, zeros written (the same blocks taken, and
/// a full disk an error here). Fails, leaving the file as it was, when the
/// space is not there.
fn reserve(file: &File, from: u64, len: u64) -> io::Result<()> {
    // SAFETY: fallocate on our own descriptor.
    if unsafe { libc::fallocate(file.as_raw_fd(), 0, from as i64, len as i64) } == 0 {
        return Ok(());
    }
    let e = io::Error::last_os_error();
    if !matches!(e.raw_os_error(), Some(libc::EOPNOTSUPP) | Some(libc::EINVAL)) {
        return Err(e);
    }
    use std::os::unix::fs::FileExt;
    let zeros = vec![0u8; len.min(1 << 20) as usize];
    let mut at = from;
    let r = (|| {
        while at < from + len {
            let n = zeros.len().min((from + len - at) as usize);
            file.write_all_at(&zeros[..n], at)?;
            at += n as u64;
        }
        Ok(())
    })();
    if r.is_err() {
        let _ = file.set_len(from);
    }
    r
}

impl TraceFile {
    pub fn create(
        path: &Path,
        chunk_size: usize,
        clock: Clock,
        tsc0: u64,
        mono0: u64,
        info: &[(&str, &str)],
        trace_limit: Option<u64>,
    ) -> io::Result<TraceFile> {
        if file_size_limit().is_some_and(|l| l < (HEADER_SIZE + chunk_size) as u64) {
            return Err(io::Error::other("the file-size limit (ulimit -f) leaves no room for one chunk"));
        }
        let file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(path)?;
        // The header page is reserved before it is mapped, as every chunk is:
        // a page of a file mapping that the file system cannot back (a full
        // disk) faults with SIGBUS when written, in the application.
        if let Err(e) = reserve(&file, 0, HEADER_SIZE as u64) {
            // No trace rather than an empty file that reads as a damaged one.
            let _ = std::fs::remove_file(path);
            return Err(e);
        }
        let mut header = unsafe { MmapOptions::new().len(HEADER_SIZE).map_mut(&file)? };
        let info = cltrace::encode_info(info);
        let mut h = FileHeader::new(chunk_size as u64, std::process::id(), clock, tsc0, mono0);
        h.info_len = info.len() as u32;
        // SAFETY: the page holds the header; unaligned writes are allowed.
        unsafe { std::ptr::write_unaligned(header.as_mut_ptr() as *mut FileHeader, h) };
        header[FILE_HEADER..FILE_HEADER + info.len()].copy_from_slice(&info);
        Ok(TraceFile {
            path: path.to_path_buf(),
            file,
            chunk_size,
            header: Mutex::new(header),
            next_index: AtomicU64::new(0),
            capacity: Mutex::new(0),
            limit: match (chunks_under(file_size_limit(), chunk_size), chunks_under(trace_limit, chunk_size)) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
            own_limit: trace_limit.filter(|t| file_size_limit().is_none_or(|f| *t <= f)),
            full: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            taking: AtomicUsize::new(0),
            max_taken: AtomicU64::new(0),
            next_seal: AtomicU64::new(0),
            sealed: SegQueue::new(),
            pending: AtomicUsize::new(0),
            ready: ArrayQueue::new(READY),
            allocating: Mutex::new(()),
            retired: SegQueue::new(),
            preparer: std::sync::OnceLock::new(),
        })
    }

    fn offset(&self, index: u64) -> u64 {
        HEADER_SIZE as u64 + index * self.chunk_size as u64
    }

    /// Makes room for chunk `index`; false when the file cannot grow (the
    /// file-size limit, a full disk).
    fn grow(&self, index: u64) -> bool {
        let mut cap = self.capacity.lock();
        if index < *cap {
            return true;
        }
        let step = (*cap).clamp(4, (GROW_BYTES / self.chunk_size as u64).max(4));
        let mut want = (index + 1).max(*cap + step);
        if let Some(l) = self.limit {
            want = want.min(l);
        }
        if want <= index {
            return false;
        }
        let (from, to) = (self.offset(*cap), self.offset(want));
        if reserve(&self.file, from, to - from).is_err() {
            return false;
        }
        *cap = want;
        true
    }

    /// Maps chunk `index` and touches each page, so that writing it later
    /// takes no fault.
    fn map(&self, index: u64) -> Option<Chunk> {
        if !self.grow(index) {
            return None;
        }
        // SAFETY: a shared mapping of a range the file now has.
        let mut map =
            unsafe { MmapOptions::new().offset(self.offset(index)).len(self.chunk_size).map_mut(&self.file).ok()? };
        // A refusal (EINVAL) means an older kernel: touch the pages instead.
        // Any other failure is retried: ext4 can fail a fault transiently
        // while it writes back a lot.
        let mut populated = false;
        let mut refused = false;
        for _ in 0..4 {
            // SAFETY: advice on our own mapping.
            if unsafe { libc::madvise(map.as_mut_ptr() as *mut libc::c_void, self.chunk_size, MADV_POPULATE_WRITE) }
                == 0
            {
                populated = true;
                break;
            }
            if io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL) {
                refused = true;
                break;
            }
        }
        if !populated && !refused {
            return None;
        }
        if refused {
            for p in (0..self.chunk_size).step_by(4096) {
                // SAFETY: inside the mapping; a volatile write is not elided.
                unsafe { std::ptr::write_volatile(map.as_mut_ptr().add(p), 0) };
            }
        }
        Some(Chunk { index, map })
    }

    fn allocate(&self) -> Option<Chunk> {
        if self.full.load(Ordering::Relaxed) || self.closed.load(Ordering::Acquire) {
            return None;
        }
        let index = self.next_index.fetch_add(1, Ordering::Relaxed);
        let c = self.map(index);
        // After the trace was closed a chunk may fall past its end: that is
        // not a full disk.
        if c.is_none() && !self.closed.load(Ordering::Acquire) && !self.full.swap(true, Ordering::Relaxed) {
            let at_limit = self.limit.is_some_and(|l| index >= l);
            match &self.own_limit {
                Some(v) if at_limit => crate::warn!(
                    "{}: the trace reached its limit of {v} bytes (CLTAP_TRACE_LIMIT: {} chunks of {} bytes after the header); later calls are not recorded and are counted as dropped",
                    self.path.display(),
                    self.limit.unwrap_or(0),
                    self.chunk_size
                ),
                _ => crate::warn!(
                    "{}: the trace cannot grow (file-size limit or full disk); later calls are not recorded and are counted as dropped",
                    self.path.display()
                ),
            }
        }
        c
    }

    /// A chunk for thread `tid`, its `seq`-th: a prepared one if any.
    pub fn take(&self, tid: u32, seq: u32) -> Option<Chunk> {
        // `taking` and `closed` pair up (both SeqCst) so that `trim` never
        // cuts a chunk being handed out.
        self.taking.fetch_add(1, Ordering::SeqCst);
        let c = if self.closed.load(Ordering::SeqCst) { None } else { self.take_open() };
        if let Some(c) = &c {
            self.max_taken.fetch_max(c.index + 1, Ordering::SeqCst);
        }
        self.taking.fetch_sub(1, Ordering::SeqCst);
        let c = c?;
        let h = ChunkHeader { magic: CHUNK_MAGIC, version: cltrace::VERSION as u16, tid, seq, ..Default::default() };
        // SAFETY: the chunk is ours and mapped; its header is at its start.
        unsafe { std::ptr::write_volatile(c.header(), h) };
        Some(c)
    }

    fn take_open(&self) -> Option<Chunk> {
        if let Some(c) = self.ready.pop() {
            if let Some(t) = self.preparer.get() {
                t.unpark();
            }
            return Some(c);
        }
        // Allocations are made one at a time, in index order, so that a
        // chunk the preparer is still faulting in is never passed over: a
        // later one failing at the file's limit would otherwise leave a gap
        // in the thread's records.
        let _one = self.allocating.lock();
        self.ready.pop().or_else(|| self.allocate())
    }

    /// Keeps a few chunks prepared (the background thread calls this).
    pub fn prepare(&self) {
        while let Some(c) = self.retired.pop() {
            drop(c);
        }
        while !self.ready.is_full() {
            let _one = self.allocating.lock();
            match self.allocate() {
                Some(c) => {
                    if let Err(c) = self.ready.push(c) {
                        // Someone filled the queue meanwhile; it stays
                        // unused (all zero), which readers skip.
                        drop(c);
                        break;
                    }
                }
                None => break,
            }
        }
    }

    /// Hands a chunk to the renderer; the preparer unmaps it.
    pub fn seal(&self, c: Chunk) {
        let n = self.next_seal.fetch_add(1, Ordering::AcqRel) + 1;
        // SAFETY: the header is in the mapping; the renderer reads it from the file.
        unsafe { std::ptr::write_volatile(std::ptr::addr_of_mut!((*c.header()).sealed), n) };
        self.pending.fetch_add(1, Ordering::AcqRel);
        self.sealed.push((n, c.index));
        // Unmapping waits for the address-space lock, which the preparer's
        // faulting holds: the preparer unmaps, not the application's thread.
        // Memory stays bounded when the preparer falls behind.
        if self.retired.len() >= READY {
            drop(c);
        } else {
            self.retired.push(c);
        }
        if let Some(t) = self.preparer.get() {
            t.unpark();
        }
    }

    /// Cuts the chunks nobody took off the end of the file. Every chunk
    /// handed out stays inside it (a thread still writing after the end
    /// never touches a page past the file).
    pub fn trim(&self) {
        self.closed.store(true, Ordering::SeqCst);
        // A signal handler may run this on a thread stopped inside `take`:
        // wait a little, then keep every chunk allocated.
        let mut settled = false;
        for _ in 0..1000 {
            if self.taking.load(Ordering::SeqCst) == 0 {
                settled = true;
                break;
            }
            std::thread::yield_now();
        }
        let cap = self.capacity.lock();
        let n = if settled {
            // Prepared chunks nobody took are not part of the trace.
            while let Some(c) = self.ready.pop() {
                drop(c);
            }
            self.max_taken.load(Ordering::SeqCst)
        } else {
            self.next_index.load(Ordering::SeqCst).min(*cap)
        };
        let _ = self.file.set_len(self.offset(n));
    }

    /// Records the clock's rate (a second reading) in the header.
    pub fn set_rate(&self, tsc1: u64, mono1: u64) {
        self.update(|h| {
            h.tsc1 = tsc1;
            h.mono1 = mono1;
        });
    }

    /// Appends one key to the header's information, for what is learnt
    /// after the trace began (the HSA clock's offset, at the HSA tool's
    /// start); false when the header page has no room for it. The bytes go
    /// in before the length that makes them part of the information, so a
    /// reader of the page never sees a length past what is written.
    pub fn add_info(&self, key: &str, value: &str) -> bool {
        let mut m = self.header.lock();
        // SAFETY: the page holds the header.
        let mut h: FileHeader = unsafe { std::ptr::read_unaligned(m.as_ptr() as *const FileHeader) };
        let Some(end) = cltrace::append_info(&mut m[FILE_HEADER..], h.info_len as usize, key, value) else {
            return false;
        };
        h.info_len = end as u32;
        // SAFETY: as above.
        unsafe { std::ptr::write_unaligned(m.as_mut_ptr() as *mut FileHeader, h) };
        true
    }

    pub fn add_drops(&self, n: u64) {
        self.update(|h| h.drops += n);
    }

    /// Marks the trace rendered by the process itself.
    pub fn mark_finished(&self) {
        self.update(|h| h.flags |= cltrace::FLAG_FINISHED);
    }

    fn update(&self, f: impl FnOnce(&mut FileHeader)) {
        let mut m = self.header.lock();
        // SAFETY: the page holds the header.
        unsafe {
            let p = m.as_mut_ptr() as *mut FileHeader;
            let mut h = std::ptr::read_unaligned(p);
            f(&mut h);
            std::ptr::write_unaligned(p, h);
        }
    }
}

/// The whole chunks a file of at most `bytes` holds after its header
/// (`None`: no limit).
fn chunks_under(bytes: Option<u64>, chunk_size: usize) -> Option<u64> {
    bytes.map(|l| l.saturating_sub(HEADER_SIZE as u64) / chunk_size as u64)
}

/// RLIMIT_FSIZE in bytes, if set. Writing past it would raise SIGXFSZ in the
/// application, so the trace stops short of it.
fn file_size_limit() -> Option<u64> {
    let mut r = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit fills the struct.
    if unsafe { libc::getrlimit(libc::RLIMIT_FSIZE, &mut r) } != 0 || r.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    Some(r.rlim_cur)
}
