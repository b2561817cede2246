//! The HSA sections: API trace, timestamps (with async-copy times) and kernel
//! timestamps.

use super::sample::{sample, sample_with_hsa};
use super::*;
use crate::atp::api::{parse_api_call, parse_hsa_api_call};
use crate::atp::kernels::parse_kernel_dispatch;

#[test]
fn round_trip_hsa_sample_in_section_order() {
    let text = assert_round_trip(&sample_with_hsa());
    let at = |section: &str| text.find(&format!("{section}\n")).expect(section);
    let order =
        [API_SECTION, TIMESTAMP_SECTION, HSA_API_SECTION, HSA_TIMESTAMP_SECTION, HSA_KERNEL_SECTION, MARKER_SECTION]
            .map(at);
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    // The kernel section has a count line and no thread id.
    assert!(text.contains(&format!("{HSA_KERNEL_SECTION}\n3\nvadd ")), "{text}");
}

#[test]
fn hsa_only_file_and_empty_sections_are_left_out() {
    let hsa = sample_with_hsa();
    let atp = Atp {
        header: hsa.header.clone(),
        hsa_timestamps: hsa.hsa_timestamps.clone(),
        kernel_dispatches: hsa.kernel_dispatches.clone(),
        ..Atp::default()
    };
    let text = write(&atp);
    assert_eq!(text.matches("=====").count(), 4, "{text}");
    assert_eq!(read(&text).unwrap(), atp);
    // No HSA data: no HSA section, and the OpenCL file is what it was.
    assert!(!write(&sample()).contains("hsa"));
}

/// Each expected string is what RCP's writer prints for the same values
/// (`golden.txt`, printed by `golden.cpp` with RCP's iostream operations).
#[test]
fn hsa_golden_lines_match_rcp() {
    // HSAFdnTrace/HSAAPIBase.cpp, HSAAPIBase::WriteAPIEntry.
    let c = call(
        "HSA_STATUS_SUCCESS",
        "hsa_amd_memory_pool_allocate",
        &["memory_pool={94215731020000}", "size=4096", "flags=0", "ptr=[0x7f3a10000000]"],
    );
    assert_eq!(one_line(|s| write_api_call(s, &c)), super::golden::golden("hsa_api_call"));
    // HSAAPIBase::WriteTimestampEntry.
    let t = hsa_ts("hsa_init", 1717000000100, 1717000002300, None);
    assert_eq!(one_line(|s| write_hsa_timestamp(s, &t)), super::golden::golden("hsa_timestamp"));
    // HSAAtpFile.cpp, HSAAtpFilePart::UpdateAsyncCopyTimestamps.
    let copy = AsyncCopy { start: 1717000006000, end: 1717000090000 };
    let copy = hsa_ts("hsa_amd_memory_async_copy", 1717000005000, 1717000005400, Some(copy));
    assert_eq!(one_line(|s| write_hsa_timestamp(s, &copy)), super::golden::golden("hsa_timestamp_copy"));
    // HSAAqlPacketInfo.cpp, HSAAqlKernelDispatchPacket::WritePacketEntry.
    let k = dispatch("vadd", 1717000010900, 0, 3);
    assert_eq!(one_line(|s| write_kernel_dispatch(s, &k)), super::golden::golden("hsa_dispatch"));
    // HSAKernelDemangler.cpp, DemangleKernelName: spaces and commas escaped.
    let name = "void matmul<float, 16>(float const*, float*, unsigned long)";
    let m = dispatch(name, 1717000070000, 1, 17);
    let line = one_line(|s| write_kernel_dispatch(s, &m));
    assert_eq!(line, super::golden::golden("hsa_dispatch_demangled"));
    assert_eq!(parse_kernel_dispatch(&line).unwrap(), m);
    // Common/ProfilerOutputFileDefs.h: "hsa" + " Kernel Timestamp Output" etc.
    assert_eq!(HSA_API_SECTION, "=====hsa API Trace Output=====");
    assert_eq!(HSA_TIMESTAMP_SECTION, "=====hsa Timestamp Output=====");
    assert_eq!(HSA_KERNEL_SECTION, "=====hsa Kernel Timestamp Output=====");
}

#[test]
fn hsa_api_lines_without_a_return_value() {
    // RCP's HSA tracer writes no ` = ` for functions without a result.
    let rcp = "hsa_signal_store_screlease ( signal={139887310213120};value=1 )";
    let c = parse_hsa_api_call(rcp).unwrap();
    assert_eq!(c.ret, "");
    assert_eq!(c.args, ["signal={139887310213120}", "value=1"]);
    // cltap writes the OpenCL form, which reads back the same.
    let ours = one_line(|s| write_api_call(s, &c));
    assert_eq!(ours, format!(" = {rcp}\n"));
    assert_eq!(parse_hsa_api_call(&ours).unwrap(), c);
    // The OpenCL section keeps requiring the ` = `.
    assert!(parse_api_call(rcp).is_err());
    let text = format!("{HSA_API_SECTION}\n7\n2\n{rcp}\n{ours}");
    assert_eq!(read(&text).unwrap().hsa_api[0].items, [c.clone(), c]);
}

#[test]
fn hsa_reader_accepts_any_order_codexl_names_and_an_empty_kernel_section() {
    let k = one_line(|s| write_kernel_dispatch(s, &sample_with_hsa().kernel_dispatches[0]));
    let text = format!(
        "TraceFileVersion=3.2\n=====hsa Kernel Timestamp Output=====\n1\n{k}\
         =====CodeXL hsa Timestamp Output=====\n7\n2\n1 hsa_init 10 20\n128 hsa_amd_memory_async_copy 30 40 50 60\n\
         =====Perfmarker Output=====\n7\n1\nclEndPerfMarker 70\n\
         =====hsa API Trace Output=====\n7\n0\n"
    );
    let atp = read(&text).unwrap();
    assert_eq!(atp.kernel_dispatches, sample_with_hsa().kernel_dispatches[..1]);
    let ts = &atp.hsa_timestamps[0].items;
    assert_eq!((ts[0].api_type, ts[0].copy), (1, None));
    assert_eq!(ts[1].copy, Some(AsyncCopy { start: 50, end: 60 }));
    assert_eq!(atp.hsa_api, [Block { tid: 7, items: vec![] }]);
    // RCP's parser allows a kernel section without even a count line.
    let empty = read(&format!("{HSA_KERNEL_SECTION}\n{MARKER_SECTION}\n")).unwrap();
    assert!(empty.kernel_dispatches.is_empty());
    // Padding runs, handles in any case, a bare agent handle.
    let d = parse_kernel_dispatch("k 0x7f3a 1 2 gfx900 12 0 0 HSA_PACKET_TYPE_KERNEL_DISPATCH 5   {a, b}  ").unwrap();
    assert_eq!((d.kernel_handle, d.agent_handle, d.packet.as_str()), (0x7f3a, 12, "{a, b}"));
}

#[test]
fn hsa_reader_errors_name_the_line() {
    let kernels = format!("TraceFileVersion=3.2\n{HSA_KERNEL_SECTION}\n");
    let good = one_line(|s| write_kernel_dispatch(s, &sample_with_hsa().kernel_dispatches[0]));
    // A count larger than the lines that follow: blame the count line.
    fails_at(&format!("{kernels}2\n{good}"), 3, "says 2 entries, but 1 follow");
    // Fewer: blame it too.
    fails_at(&format!("{kernels}1\n{good}{good}"), 3, "more entries follow");
    // A count that is not a number.
    fails_at(&format!("{kernels}many\n{good}"), 3, "dispatch count");
    // A bad field names the field.
    let bad_start = "k 0x1 1O 2 gfx900 {1} 0 0 T 5 {}";
    fails_at(&format!("{kernels}2\n{good}{bad_start}\n"), 5, "bad start time \"1O\"");
    let bad_agent = "k 0x1 1 2 gfx900 {x} 0 0 T 5 {}";
    fails_at(&format!("{kernels}1\n{bad_agent}\n"), 4, "bad agent handle");
    // The packet text is required.
    fails_at(&format!("{kernels}1\nk 0x1 1 2 gfx900 {{1}} 0 0 T 5\n"), 4, "packet");
    // Something that is neither a dispatch nor a section after the entries.
    fails_at(&format!("{kernels}1\n{good}7\n"), 5, "expected a section line");
    // HSA timestamps: 5 fields (RCP's temporary copy identifier), bad copy time.
    let ts = format!("{HSA_TIMESTAMP_SECTION}\n7\n2\n1 hsa_init 10 20\n");
    let five = "128 hsa_amd_memory_async_copy 30 40 99";
    fails_at(&format!("{ts}{five}\n"), 5, "needs 4 (6 for an async copy)");
    let bad_copy = "128 hsa_amd_memory_async_copy 30 40 5O 60";
    fails_at(&format!("{ts}{bad_copy}\n"), 5, "bad copy start time");
    // HSA API line without '('.
    fails_at(&format!("{HSA_API_SECTION}\n7\n1\nhsa_init\n"), 4, "'('");
    // A section twice.
    let twice = format!("{kernels}0\n{HSA_KERNEL_SECTION}\n");
    fails_at(&twice, 4, "second HSA kernel timestamp section");
}

#[test]
fn kernel_dispatch_text_fields() {
    let mut k = sample_with_hsa().kernel_dispatches[0].clone();
    k.kernel_name = String::new();
    k.agent_name = "AMD Instinct MI210".into();
    k.packet_type = String::new();
    k.packet = "  {1,\n2}\r ".into();
    k.kernel_handle = 0;
    let line = one_line(|s| write_kernel_dispatch(s, &k));
    let back = parse_kernel_dispatch(&line).unwrap();
    assert_eq!(back.kernel_name, "NA");
    assert_eq!(back.agent_name, "AMD_Instinct_MI210");
    assert_eq!(back.packet_type, "NA");
    assert_eq!(back.packet, "{1, 2}");
    assert_eq!(back.kernel_handle, 0);
    assert!(line.starts_with(&format!("{:<50}NULL ", "NA")), "{line}");
    // A name that fills its column still gets one space (RCP's setw(len + 1)).
    k.kernel_name = "n".repeat(50);
    let line = one_line(|s| write_kernel_dispatch(s, &k));
    assert!(line.starts_with(&format!("{} NULL ", k.kernel_name)), "{line}");
}
