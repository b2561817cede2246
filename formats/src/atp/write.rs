//! The whole file, and the streaming pieces that open sections and blocks
//! (`Common/APIInfoManagerBase.cpp`, `WriteAPITraceDataToStream`).

use std::fmt::Write as _;

use super::{
    write_api_call, write_header, write_hsa_timestamp, write_kernel_dispatch, write_marker, write_timestamp, Atp,
    Block, API_SECTION, HSA_API_SECTION, HSA_KERNEL_SECTION, HSA_TIMESTAMP_SECTION, MARKER_SECTION, TIMESTAMP_SECTION,
};

/// The whole file: header, then each non-empty section in this order: OpenCL
/// API trace and timestamps, HSA API trace, timestamps and kernel timestamps,
/// perf markers.
pub fn write(atp: &Atp) -> String {
    let mut out = String::new();
    write_header(&mut out, &atp.header);
    write_section(&mut out, API_SECTION, &atp.api, write_api_call);
    write_section(&mut out, TIMESTAMP_SECTION, &atp.timestamps, write_timestamp);
    write_section(&mut out, HSA_API_SECTION, &atp.hsa_api, write_api_call);
    write_section(&mut out, HSA_TIMESTAMP_SECTION, &atp.hsa_timestamps, write_hsa_timestamp);
    if !atp.kernel_dispatches.is_empty() {
        write_section_start(&mut out, HSA_KERNEL_SECTION);
        write_dispatch_count(&mut out, atp.kernel_dispatches.len());
        for k in &atp.kernel_dispatches {
            write_kernel_dispatch(&mut out, k);
        }
    }
    write_section(&mut out, MARKER_SECTION, &atp.markers, write_marker);
    out
}

fn write_section<T>(out: &mut String, marker: &str, blocks: &[Block<T>], item: fn(&mut String, &T)) {
    if blocks.is_empty() {
        return;
    }
    write_section_start(out, marker);
    for b in blocks {
        write_block_start(out, b.tid, b.items.len());
        for i in &b.items {
            item(out, i);
        }
    }
}

/// A section marker line: one of [`API_SECTION`], [`TIMESTAMP_SECTION`],
/// [`HSA_API_SECTION`], [`HSA_TIMESTAMP_SECTION`], [`HSA_KERNEL_SECTION`],
/// [`MARKER_SECTION`].
pub fn write_section_start(out: &mut String, section: &str) {
    out.push_str(section);
    out.push('\n');
}

/// The thread-id line and the count line that open a block.
pub fn write_block_start(out: &mut String, tid: u64, count: usize) {
    let _ = writeln!(out, "{tid}\n{count}");
}

/// The count line that follows [`HSA_KERNEL_SECTION`]: the number of dispatch
/// lines after it (the section has no thread blocks).
pub fn write_dispatch_count(out: &mut String, count: usize) {
    let _ = writeln!(out, "{count}");
}
