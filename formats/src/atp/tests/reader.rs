use super::*;
use crate::atp::timestamps::parse_timestamp;

#[test]
fn reader_accepts_single_spaces_crlf_blank_lines_and_codexl_names() {
    let text = "TraceFileVersion=3.2\r\n\r\nDevice Tahiti Platform Vendor = Advanced Micro Devices, Inc.\r\n\
                =====CodeXL ocl API Trace Output=====\r\n7\r\n1\r\n\r\nCL_SUCCESS = clFinish ( 0x1 )\r\n\
                =====CodeXL ocl Timestamp Output=====\n7\n1\n51 clFinish 10 20\n\n\
                =====OpenCL Perfmarker Output=====\nProfilerVersion=3.0.0\n7\n3\nclBeginPerfMarker a&nbsp;b 5 my group\n\
                clEndPerfMarkerEx 6 a&nbsp;b my&nbsp;group\nclEndPerfMarker 7\n";
    let atp = read(text).unwrap();
    assert_eq!(
        atp.header[1],
        ("Device Tahiti Platform Vendor ".to_string(), " Advanced Micro Devices, Inc.".to_string())
    );
    assert_eq!(atp.api, [Block { tid: 7, items: vec![call("CL_SUCCESS", "clFinish", &["0x1"])] }]);
    assert_eq!(atp.timestamps, [Block { tid: 7, items: vec![ts("clFinish", 10, 20, None)] }]);
    assert_eq!(atp.markers[0].items, [begin("a b", 5, "my group"), Marker::End { time: 6 }, Marker::End { time: 7 }]);
    // Handles in any case and width (RCP's Windows builds pad to 16 upper-case digits).
    let l = "66 clEnqueueNDRangeKernel 1 2 4592 CL_COMMAND_NDRANGE_KERNEL 3 4 5 6 2 0x00000000022FA230 1 NULL Tahiti \
             0X7F00AB k {64} {NULL}";
    let e = parse_timestamp(l).unwrap().enqueue.unwrap();
    assert_eq!((e.queue, e.context), (0x22F_A230, 0));
    assert_eq!(e.detail, Detail::Kernel { handle: 0x7F_00AB, name: "k".into(), global: vec![64], local: None });
}

#[test]
fn reader_errors_name_the_line() {
    let head = "TraceFileVersion=3.2\n=====ocl Timestamp Output=====\n";
    // A count larger than the entries that follow: blame the count line.
    fails_at(&format!("{head}7\n3\n51 clFinish 10 20\n\n51 clFinish 30 40\n8\n0\n"), 4, "says 3 entries, but 2 follow");
    // A count smaller than the entries that follow: blame it too.
    fails_at(&format!("{head}7\n1\n51 clFinish 10 20\n51 clFinish 30 40\n"), 4, "more entries follow");
    // A count running into the end of the file.
    fails_at(&format!("{head}7\n2\n51 clFinish 10 20\n"), 4, "");
    // Unknown section (RCP's stack traces are not modelled).
    fails_at(&format!("{head}7\n0\n=====ocl Stack Trace Output=====\n"), 5, "unknown section");
    // Non-numeric time.
    fails_at(&format!("{head}7\n2\n51 clFinish 10 20\n51 clFinish 3O 40\n"), 6, "bad start time \"3O\"");
    // Header line without '=' (CRLF and a blank line do not shift numbers).
    fails_at("TraceFileVersion=3.2\r\n\r\nnonsense\r\n", 3, "");
    // Enqueue fields cut short.
    fails_at(&format!("{head}7\n1\n66 clEnqueueNDRangeKernel 1 2 4592 CL_COMMAND_NDRANGE_KERNEL 3 4\n"), 5, "");
    // Unterminated string in an API line.
    fails_at("=====ocl API Trace Output=====\n7\n1\nCL_SUCCESS = clFoo ( \"abc;d )\n", 4, "unclosed");
    // A section twice.
    fails_at(&format!("{head}7\n0\n=====ocl Timestamp Output=====\n"), 5, "");
    // A thread id that is not a number.
    fails_at(&format!("{head}seven\n0\n"), 3, "");
    // A broken section marker where a thread id should be.
    fails_at(&format!("{head}7\n0\n=====ocl API Trace\n"), 5, "malformed section line");
    // A bad perf-marker keyword.
    fails_at("=====Perfmarker Output=====\n7\n1\nclMiddlePerfMarker 5\n", 4, "");
}
