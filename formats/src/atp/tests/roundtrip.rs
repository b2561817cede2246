use super::sample::{sample, sample_with_hsa};
use super::*;

#[test]
fn round_trip_realistic_multi_thread_sample() {
    assert_round_trip(&sample());
}

/// A section of thread blocks, from the streaming pieces.
fn stream<T>(s: &mut String, section: &str, blocks: &[Block<T>], item: fn(&mut String, &T)) {
    write_section_start(s, section);
    for b in blocks {
        write_block_start(s, b.tid, b.items.len());
        b.items.iter().for_each(|i| item(s, i));
    }
}

#[test]
fn write_is_the_concatenation_of_the_streaming_pieces() {
    let atp = sample_with_hsa();
    let mut s = String::new();
    write_header(&mut s, &atp.header);
    stream(&mut s, API_SECTION, &atp.api, write_api_call);
    stream(&mut s, TIMESTAMP_SECTION, &atp.timestamps, write_timestamp);
    stream(&mut s, HSA_API_SECTION, &atp.hsa_api, write_api_call);
    let hsa_blocks = &atp.hsa_timestamps;
    stream(&mut s, HSA_TIMESTAMP_SECTION, hsa_blocks, write_hsa_timestamp);
    write_section_start(&mut s, HSA_KERNEL_SECTION);
    write_dispatch_count(&mut s, atp.kernel_dispatches.len());
    for k in &atp.kernel_dispatches {
        write_kernel_dispatch(&mut s, k);
    }
    stream(&mut s, MARKER_SECTION, &atp.markers, write_marker);
    assert_eq!(write(&atp), s);
}

#[test]
fn empty_sections_are_left_out() {
    let atp = Atp { header: HeaderInfo::default().to_header(), ..Atp::default() };
    let text = write(&atp);
    assert!(!text.contains("====="), "{text}");
    assert_eq!(read(&text).unwrap(), atp);
}
