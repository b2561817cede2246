//! Writes a trace with ordinary file writes: for tools and tests. The layer
//! writes the same layout in place, through shared mappings. Records are
//! given in the wide form ([`record::encode`]) and stored compact where the
//! compact form says them exactly, else wide (version 2).

use super::*;
use std::io;

/// Writes version [`VERSION`], or version 1 where `header.version` says so
/// (for tests of reading old traces).
pub struct TraceWriter {
    file: File,
    pub header: FileHeader,
    next_index: u64,
    next_seal: u64,
}

/// One thread's place in the trace.
pub struct ThreadWriter {
    pub tid: u32,
    seq: u32,
    /// (chunk index, header)
    chunk: Option<(u64, ChunkHeader)>,
    /// What the chunk's next compact record is written relative to.
    prev: compact::Prev,
}

fn bytes<T>(v: &T) -> &[u8] {
    // SAFETY: only used on the plain repr(C) integer structs of this module.
    unsafe { std::slice::from_raw_parts(v as *const T as *const u8, std::mem::size_of::<T>()) }
}

impl TraceWriter {
    pub fn create(path: &Path, mut header: FileHeader, info: &[(&str, &str)]) -> io::Result<TraceWriter> {
        let file = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(true).open(path)?;
        let info = encode_info(info);
        header.info_len = info.len() as u32;
        let mut page = vec![0u8; HEADER_SIZE];
        page[..FILE_HEADER].copy_from_slice(bytes(&header));
        page[FILE_HEADER..FILE_HEADER + info.len()].copy_from_slice(&info);
        file.write_all_at(&page, 0)?;
        Ok(TraceWriter { file, header, next_index: 0, next_seal: 0 })
    }

    /// Appends one information key, as the layer does for the keys it
    /// learns during the run ([`INFO_HSA_CLOCK_OFFSET`]).
    pub fn add_info(&mut self, key: &str, value: &str) -> io::Result<()> {
        let mut page = vec![0u8; HEADER_SIZE];
        self.file.read_exact_at(&mut page, 0)?;
        let len = self.header.info_len as usize;
        let end = append_info(&mut page[FILE_HEADER..], len, key, value)
            .ok_or_else(|| io::Error::other("no room in the header page for the key"))?;
        self.header.info_len = end as u32;
        page[..FILE_HEADER].copy_from_slice(bytes(&self.header));
        self.file.write_all_at(&page, 0)
    }

    pub fn thread(&self, tid: u32) -> ThreadWriter {
        ThreadWriter { tid, seq: 0, chunk: None, prev: compact::Prev::default() }
    }

    fn chunk_offset(&self, index: u64) -> u64 {
        HEADER_SIZE as u64 + index * self.header.chunk_size
    }

    fn write_chunk_header(&self, index: u64, h: &ChunkHeader) -> io::Result<()> {
        self.file.write_all_at(bytes(h), self.chunk_offset(index))
    }

    /// Room for a record of `len` bytes in the thread's chunk, starting a
    /// new chunk (and sealing the old one) when it does not fit.
    fn room(&mut self, t: &mut ThreadWriter, len: usize) -> io::Result<(u64, ChunkHeader)> {
        let cap = self.header.chunk_size as usize - CHUNK_HEADER;
        if len > cap {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "record larger than a chunk"));
        }
        if let Some((i, h)) = t.chunk {
            if h.used as usize + len <= cap {
                return Ok((i, h));
            }
            self.seal(t)?;
        }
        t.prev = compact::Prev::default();
        let index = self.next_index;
        self.next_index += 1;
        let h = ChunkHeader {
            magic: CHUNK_MAGIC,
            version: self.header.version as u16,
            tid: t.tid,
            seq: t.seq,
            ..Default::default()
        };
        t.seq += 1;
        // The file grows to the whole chunk, as the layer's does.
        self.file.set_len(self.file.metadata()?.len().max(self.chunk_offset(index + 1)))?;
        self.write_chunk_header(index, &h)?;
        t.chunk = Some((index, h));
        Ok((index, h))
    }

    /// Appends a complete record, given in the wide form.
    pub fn push(&mut self, t: &mut ThreadWriter, rec: &[u8]) -> io::Result<()> {
        let (mut bytes, mut next) = self.stored(t.prev, rec);
        let seq = t.seq;
        let (i, mut h) = self.room(t, bytes.len())?;
        if t.seq != seq {
            // A new chunk: its first record counts from nothing.
            (bytes, next) = self.stored(t.prev, rec);
            if bytes.len() > self.header.chunk_size as usize - CHUNK_HEADER {
                return Err(io::Error::new(io::ErrorKind::InvalidInput, "record larger than a chunk"));
            }
        }
        self.file.write_all_at(&bytes, self.chunk_offset(i) + CHUNK_HEADER as u64 + h.used)?;
        t.prev = next;
        h.used += bytes.len() as u64;
        self.write_chunk_header(i, &h)?;
        t.chunk = Some((i, h));
        Ok(())
    }

    /// How `rec` is stored after the record `prev` describes: compact where
    /// that says it exactly, else wide; and what the next record follows.
    fn stored(&self, mut prev: compact::Prev, rec: &[u8]) -> (Vec<u8>, compact::Prev) {
        if self.header.version == VERSION_WIDE {
            // An old trace's layout, for tests of reading one.
            return (rec.to_vec(), prev);
        }
        match compact::narrow(rec, &mut prev) {
            Some(c) => (c, prev),
            None => {
                let mut w = vec![compact::STATE_WIDE];
                w.extend_from_slice(rec);
                (w, prev)
            }
        }
    }

    /// Appends a record opened and never completed (no [`record::FLAG_DONE`]):
    /// a call that had not returned when the process died.
    pub fn push_open(&mut self, t: &mut ThreadWriter, rec: &[u8]) -> io::Result<()> {
        self.push(t, rec)
    }

    /// Hands the thread's chunk to the renderer.
    pub fn seal(&mut self, t: &mut ThreadWriter) -> io::Result<()> {
        if let Some((i, mut h)) = t.chunk.take() {
            self.next_seal += 1;
            h.sealed = self.next_seal;
            self.write_chunk_header(i, &h)?;
        }
        Ok(())
    }

    /// Writes the header's variable fields (rate, drops, flags).
    pub fn update_header(&mut self) -> io::Result<()> {
        self.file.write_all_at(bytes(&self.header), 0)
    }
}
