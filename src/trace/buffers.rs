//! ROCprofiler-SDK's buffer settings (its buffered services), as the binary trace applies them: the buffer
//! size is the size of a thread's chunk of the trace, the watermark is the
//! fill level at which a chunk is handed to the renderer, and the policy
//! says what happens when no chunk can be had. Lossless never drops: chunks
//! live in the file, not in memory, so the application only ever waits for
//! the disk. Discard allows each thread about one chunk awaiting rendering;
//! past that, whole records are dropped and counted.

use super::record::MAX_RECORD;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    Lossless,
    Discard,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    /// Bytes per chunk, rounded up to a page and to room for two records.
    pub size: usize,
    /// Fill level, bytes, at which a chunk is handed to the renderer.
    pub watermark: usize,
    pub policy: Policy,
}

impl Default for Settings {
    fn default() -> Self {
        Self { size: 1 << 20, watermark: 1 << 20, policy: Policy::Lossless }
    }
}

impl Settings {
    pub fn normalized(mut self) -> Self {
        let page = 4096;
        self.size = self.size.max(2 * MAX_RECORD + cltap_formats::cltrace::CHUNK_HEADER).div_ceil(page) * page;
        self.watermark = self.watermark.clamp(1, self.size);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_round_up_to_pages_with_room_for_records() {
        let s = Settings { size: 4096, watermark: 100_000, policy: Policy::Lossless }.normalized();
        assert_eq!(s.size % 4096, 0);
        assert!(s.size >= 2 * MAX_RECORD);
        assert_eq!(s.watermark, s.size);
        let s = Settings { size: 5000, watermark: 48, policy: Policy::Discard }.normalized();
        assert_eq!((s.size % 4096, s.watermark), (0, 48));
    }
}
