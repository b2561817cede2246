//! Tool buffer delivery as a sink: each rendered chunk's records, as they
//! are, go to the tools' buffers (`tools::buffer_registry`), and the end of
//! the records ends the tools, before the API log's trailer is written.

use super::sink::{ChunkRecords, End, Kinds, Results, Sink};
use crate::tools::buffer_registry::GLOBAL;
use crate::trace::record::View;
use cltap_formats::cltrace::{ChunkInfo, Reader};

pub struct ToolBuffers;

impl Sink for ToolBuffers {
    fn kinds(&self) -> Kinds {
        Kinds::NONE
    }

    fn record(&mut self, _v: &View<'_>) {}

    fn chunk(&mut self, c: &ChunkInfo, records: &ChunkRecords<'_>) {
        // Widened only for a tool that takes records.
        if GLOBAL.wanted() {
            GLOBAL.rendered(c.index, c.header.tid, records.wide());
        }
    }

    fn finish(self: Box<Self>, _end: &End<'_>, _results: &mut Results) {
        // Every record is given: the tools get the rest of their buffers
        // and their OnUnloadTool while the API log (flushed, so they can
        // read it) still has no trailer.
        crate::tools::toollib_end::end_of_records();
    }
}

/// For a tool's flush: the complete records of every chunk not rendered
/// yet (sealed from `next_seal` on, or still held by its thread) go to the
/// tools' buffers now; the rest of each follows when it is rendered. `me`:
/// the calling thread's trace id (its own chunk is written to the end).
pub fn feed_live(reader: &Reader, next_seal: u64, me: u32, buf: &mut Vec<u8>) {
    if !GLOBAL.wanted() {
        return;
    }
    let Ok(chunks) = reader.chunks() else { return };
    for c in chunks.iter().filter(|c| c.header.sealed == 0 || c.header.sealed >= next_seal) {
        if reader.chunk_records(c, buf).is_ok() {
            // A sealed chunk is written to the end; so is the caller's own.
            GLOBAL.live(c.index, c.header.tid, c.header.sealed != 0 || c.header.tid == me, buf);
        }
    }
}
