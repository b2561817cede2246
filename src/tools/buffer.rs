//! One tool buffer as ROCprofiler-SDK's buffered services describe it, without threads: records go in
//! whole, a buffer at or past its watermark asks to be handed to the tool,
//! and the policy says what happens to a record that does not fit.
//!
//! - **Size** rounds up to the page size.
//! - **Watermark**: after a record is stored, a fill level at or above the
//!   watermark asks for delivery. With 4096 bytes and a watermark of 48, six
//!   8-byte records are stored before the sixth asks; every record of 48
//!   bytes or more asks at once.
//! - **Lossless**: a record that does not fit asks for the buffer to be
//!   swapped for an empty one (the full one is delivered), then goes in.
//! - **Discard**: a record that does not fit is dropped and counted. The
//!   buffer only empties when it is handed over (its watermark, or a
//!   flush), so below the watermark records are dropped until a flush.
//!
//! The registry (`buffer_registry`) owns the threads and the swapping; this
//! file is the arithmetic, unit-tested against the examples of ROCprofiler-SDK's
//! buffered-services documentation.

/// What a full buffer does with a record that does not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Swap the buffer for an empty one; never drop.
    Lossless,
    /// Drop the record and count it.
    Discard,
}

/// What became of a record offered to a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Push {
    /// Stored; the buffer is still below its watermark.
    Stored,
    /// Stored, and the buffer is at or past its watermark: hand it over.
    Watermark,
    /// Lossless, and the record does not fit: hand the buffer over, then
    /// offer the record again (an empty buffer takes any record).
    NoRoom,
    /// Discard, and the record does not fit: dropped and counted.
    Dropped,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BufferError {
    #[error("a buffer of 0 bytes cannot hold a record")]
    ZeroSize,
    #[error("a buffer of {0} bytes is more than the 1 GiB cltap allows")]
    TooLarge(usize),
    #[error("the watermark ({watermark} bytes) is past the buffer's size ({size} bytes, rounded up to the page)")]
    Watermark { watermark: usize, size: usize },
}

/// Largest buffer accepted.
pub const MAX_SIZE: usize = 1 << 30;

/// The system's page size (`sysconf(_SC_PAGESIZE)`).
pub fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

/// `size` rounded up to `page`, checked.
pub fn rounded_size(size: usize, page: usize) -> Result<usize, BufferError> {
    if size == 0 {
        return Err(BufferError::ZeroSize);
    }
    if size > MAX_SIZE {
        return Err(BufferError::TooLarge(size));
    }
    Ok(size.div_ceil(page) * page)
}

/// Records stored back to back, each 8-byte aligned (the storage is made of
/// words, so a tool may read a record header in place).
#[derive(Debug, Default)]
pub struct Storage {
    words: Vec<u64>,
    /// Bytes used.
    len: usize,
    /// Where each record starts, in bytes.
    starts: Vec<usize>,
}

impl Storage {
    pub fn with_capacity(bytes: usize) -> Storage {
        Storage { words: Vec::with_capacity(bytes / 8), len: 0, starts: Vec::new() }
    }

    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `len` bytes of the words are initialised; u8 has no alignment.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr() as *const u8, self.len) }
    }

    /// Bytes stored.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// The records, in the order stored.
    pub fn records(&self) -> Vec<&[u8]> {
        let b = self.bytes();
        let mut ends: Vec<usize> = self.starts.iter().skip(1).copied().collect();
        ends.push(self.len);
        self.starts.iter().zip(ends).map(|(&s, e)| &b[s..e]).collect()
    }

    fn push(&mut self, rec: &[u8]) {
        self.starts.push(self.len);
        let words = rec.len().div_ceil(8);
        let at = self.words.len();
        self.words.resize(at + words, 0);
        // SAFETY: the words just added hold at least rec.len() bytes.
        unsafe { std::ptr::copy_nonoverlapping(rec.as_ptr(), self.words.as_mut_ptr().add(at) as *mut u8, rec.len()) };
        self.len += words * 8;
    }

    pub fn clear(&mut self) {
        self.words.clear();
        self.starts.clear();
        self.len = 0;
    }
}

/// What is handed to the tool: the records and the drops counted since the
/// previous hand-over.
#[derive(Debug)]
pub struct Batch {
    pub storage: Storage,
    pub drops: u64,
}

#[derive(Debug)]
pub struct Buffer {
    size: usize,
    watermark: usize,
    policy: Policy,
    current: Storage,
    drops: u64,
}

impl Buffer {
    /// A buffer of `size` bytes rounded up to `page`, delivering at
    /// `watermark` bytes (0 to the rounded size).
    pub fn new(size: usize, watermark: usize, policy: Policy, page: usize) -> Result<Buffer, BufferError> {
        let size = rounded_size(size, page)?;
        if watermark > size {
            return Err(BufferError::Watermark { watermark, size });
        }
        Ok(Buffer { size, watermark, policy, current: Storage::with_capacity(size), drops: 0 })
    }

    pub fn size(&self) -> usize {
        self.size
    }

    pub fn watermark(&self) -> usize {
        self.watermark
    }

    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// Bytes held now.
    pub fn used(&self) -> usize {
        self.current.len()
    }

    /// Records dropped since the last hand-over.
    pub fn drops(&self) -> u64 {
        self.drops
    }

    /// Nothing to hand over: no record and no drop.
    pub fn is_idle(&self) -> bool {
        self.current.is_empty() && self.drops == 0
    }

    /// At or past the watermark, with something in it.
    pub fn at_watermark(&self) -> bool {
        !self.current.is_empty() && self.current.len() >= self.watermark
    }

    /// Offers one record (its length a multiple of 8; see [`Push`]). An
    /// empty buffer takes a record larger than itself, which is then
    /// handed over alone, so that lossless never drops.
    pub fn push(&mut self, rec: &[u8]) -> Push {
        let len = rec.len().div_ceil(8) * 8;
        if len > self.size - self.current.len().min(self.size)
            && !(self.current.is_empty() && self.policy == Policy::Lossless)
        {
            return match self.policy {
                Policy::Lossless => Push::NoRoom,
                Policy::Discard => {
                    self.drops += 1;
                    Push::Dropped
                }
            };
        }
        self.current.push(rec);
        if self.current.len() >= self.watermark {
            Push::Watermark
        } else {
            Push::Stored
        }
    }

    /// Counts a record dropped elsewhere (one that could not wait).
    pub fn count_drop(&mut self) {
        self.drops += 1;
    }

    /// Hands the records and the drop count over, continuing in `spare`
    /// (emptied first).
    pub fn swap(&mut self, mut spare: Storage) -> Batch {
        spare.clear();
        let storage = std::mem::replace(&mut self.current, spare);
        Batch { storage, drops: std::mem::take(&mut self.drops) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(n: usize, tag: u8) -> Vec<u8> {
        vec![tag; n]
    }

    /// ROCprofiler-SDK's buffered-services example: 4096 bytes, watermark 48: six 8-byte records are placed
    /// before the callback; every 64-byte record triggers one.
    #[test]
    fn the_seeds_watermark_example() {
        let mut b = Buffer::new(4096, 48, Policy::Lossless, 4096).unwrap();
        for i in 0..5 {
            assert_eq!(b.push(&rec(8, i)), Push::Stored, "record {}", i + 1);
        }
        assert_eq!(b.push(&rec(8, 5)), Push::Watermark, "the sixth 8-byte record");
        let batch = b.swap(Storage::default());
        assert_eq!(batch.storage.records().len(), 6);
        assert_eq!(batch.storage.records()[5], &rec(8, 5)[..]);
        for i in 0..3 {
            assert_eq!(b.push(&rec(64, i)), Push::Watermark, "each 64-byte record");
            assert_eq!(b.swap(Storage::default()).storage.records().len(), 1);
        }
    }

    #[test]
    fn sizes_round_up_to_the_page() {
        assert_eq!(Buffer::new(1, 0, Policy::Discard, 4096).unwrap().size(), 4096);
        assert_eq!(Buffer::new(4097, 10, Policy::Discard, 4096).unwrap().size(), 8192);
        assert_eq!(Buffer::new(4000, 4096, Policy::Discard, 4096).unwrap().watermark(), 4096);
        assert_eq!(Buffer::new(0, 0, Policy::Discard, 4096).unwrap_err(), BufferError::ZeroSize);
        assert!(matches!(Buffer::new(4096, 4097, Policy::Discard, 4096), Err(BufferError::Watermark { .. })));
        assert!(matches!(Buffer::new(MAX_SIZE + 1, 0, Policy::Discard, 4096), Err(BufferError::TooLarge(_))));
    }

    /// ROCprofiler-SDK's buffered-services policy example, on a page-sized buffer: full to 4088 of
    /// 4096 bytes below the watermark, a 16-byte record does not fit.
    #[test]
    fn discard_drops_what_does_not_fit_until_the_buffer_is_handed_over() {
        let mut b = Buffer::new(4096, 4096, Policy::Discard, 4096).unwrap();
        for _ in 0..511 {
            assert_eq!(b.push(&rec(8, 1)), Push::Stored);
        }
        assert_eq!(b.used(), 4088);
        assert_eq!(b.push(&rec(16, 2)), Push::Dropped);
        assert_eq!(b.push(&rec(16, 2)), Push::Dropped);
        // A record that fits still goes in, and fills the buffer to its watermark.
        assert_eq!(b.push(&rec(8, 3)), Push::Watermark);
        assert_eq!(b.push(&rec(8, 4)), Push::Dropped);
        let batch = b.swap(Storage::default());
        assert_eq!((batch.storage.records().len(), batch.drops), (512, 3));
        assert_eq!((b.used(), b.drops()), (0, 0));
        assert_eq!(b.push(&rec(16, 5)), Push::Stored);
    }

    #[test]
    fn lossless_asks_for_a_swap_and_takes_oversized_records_alone() {
        let mut b = Buffer::new(4096, 4096, Policy::Lossless, 4096).unwrap();
        for _ in 0..511 {
            b.push(&rec(8, 1));
        }
        assert_eq!(b.push(&rec(16, 2)), Push::NoRoom);
        assert_eq!(b.drops(), 0);
        let batch = b.swap(Storage::with_capacity(4096));
        assert_eq!(batch.storage.len(), 4088);
        assert_eq!(b.push(&rec(16, 2)), Push::Stored);
        // Larger than the buffer: refused while others are in it, then alone.
        assert_eq!(b.push(&rec(8192, 3)), Push::NoRoom);
        b.swap(Storage::default());
        assert_eq!(b.push(&rec(8192, 3)), Push::Watermark);
        assert_eq!(b.swap(Storage::default()).storage.records(), vec![&rec(8192, 3)[..]]);
    }

    #[test]
    fn a_zero_watermark_hands_over_every_record() {
        let mut b = Buffer::new(4096, 0, Policy::Discard, 4096).unwrap();
        assert_eq!(b.push(&rec(8, 1)), Push::Watermark);
    }

    #[test]
    fn records_stay_word_aligned_and_in_order() {
        let mut s = Storage::with_capacity(64);
        s.push(&rec(48, 1));
        s.push(&rec(16, 2));
        let r = s.records();
        assert_eq!((r[0].len(), r[1].len()), (48, 16));
        assert!(r.iter().all(|x| x.as_ptr().align_offset(8) == 0));
        assert_eq!(r[1][0], 2);
    }
}
