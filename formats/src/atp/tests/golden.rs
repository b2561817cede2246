use super::sample::sample;
use super::*;
use crate::atp::timestamps::parse_timestamp;

/// The expected text of case `name` in `golden.txt`, which `golden.cpp`
/// (in this folder) prints by RCP's iostream operations (`left`, `setw`,
/// libstdc++'s pointer output); `tests/atp_golden.rs` runs it and checks
/// the committed file against its output.
pub(super) fn golden(name: &str) -> String {
    let mut found = None;
    for part in include_str!("golden.txt").split("@@ ").skip(1) {
        let (label, text) = part.split_once('\n').expect("a case's name line");
        if label == name {
            assert!(found.is_none(), "case {name} twice in golden.txt");
            found = Some(text.to_string());
        }
    }
    found.unwrap_or_else(|| panic!("no case {name} in golden.txt"))
}

/// Each expected string is what RCP's writer prints for the same values
/// ([`golden`]); the source of each layout is named beside it, and in
/// `golden.cpp`.
#[test]
fn golden_lines_match_rcp() {
    // sprofile/AtpFile.cpp, AtpFileWriter::SaveToAtpFile: header keys and order.
    let info = HeaderInfo {
        profiler_version: "5.6.7".into(),
        application: "/opt/app".into(),
        application_args: "-x".into(),
        working_directory: "/opt".into(),
        user_timer: false,
        os_version: "Linux".into(),
        display_name: "session1".into(),
        ..HeaderInfo::default()
    };
    assert_eq!(one_line(|s| write_header(s, &info.to_header())), golden("header"));
    // Common/APIInfoManagerBase.cpp, WriteAPITraceDataToStream: thread id, count.
    assert_eq!(one_line(|s| write_block_start(s, 41877, 3)), golden("block_start"));
    // APIInfoManagerBase.cpp, APIBase::WriteAPIEntry; the text is the example
    // in CLTraceAgent/CLAtpFile.cpp, CLAtpFilePart::Parse.
    assert_eq!(
        one_line(|s| write_api_call(
            s,
            &call("CL_SUCCESS", "clGetPlatformInfo", &["0x0B69F8C0", "CL_PLATFORM_ICD_SUFFIX_KHR", "0", "NULL", "[4]"])
        )),
        golden("api_call")
    );
    // CLTraceAgent/CLAPIDefBase.cpp, CLAPIBase::WriteTimestampEntry.
    assert_eq!(
        one_line(|s| write_timestamp(s, &ts("clSetKernelArg", 1717000000100, 1717000000350, None))),
        golden("timestamp_call")
    );
    // CLAPIDefBase.cpp, CLEnqueueAPIBase::WriteTimestampEntry, then
    // CLEnqueueAPIDefs.cpp, CLAPI_clEnqueueNDRangeKernel::WriteTimestampEntry.
    let t = 1717000001000;
    let nd3 = Timestamp {
        enqueue: Some(Enqueue {
            queued: 1717000003900,
            submit: 1717000005000,
            start: 1717000012000,
            end: 1717000095000,
            ..enq(
                4592,
                "CL_COMMAND_NDRANGE_KERNEL",
                0,
                "NVIDIA_H200",
                kernel("vadd", &[1024, 768, 4], Some(&[16, 16, 1])),
            )
        }),
        ..ts("clEnqueueNDRangeKernel", t, 1717000004500, None)
    };
    assert_eq!(one_line(|s| write_timestamp(s, &nd3)), golden("timestamp_ndrange_3d"));
    let nd2 = Timestamp {
        enqueue: Some(Enqueue {
            queued: 1717000101500,
            submit: 1717000103000,
            start: 1717000110000,
            end: 1717000150000,
            ..enq(4592, "CL_COMMAND_NDRANGE_KERNEL", 0, "NVIDIA_H200", kernel("vadd", &[4096, 64], None))
        }),
        ..ts("clEnqueueNDRangeKernel", 1717000100000, 1717000102000, None)
    };
    assert_eq!(one_line(|s| write_timestamp(s, &nd2)), golden("timestamp_ndrange_2d"));
    // CLAPIDefBase.cpp, CLEnqueueDataTransfer::WriteTimestampEntry.
    let read_buf = Timestamp {
        enqueue: Some(Enqueue {
            queued: 1717000200500,
            submit: 1717000201000,
            start: 1717000210000,
            end: 1717000250000,
            ..enq(4595, "CL_COMMAND_READ_BUFFER", 0, "NVIDIA_H200", Detail::Transfer { bytes: 4194304 })
        }),
        ..ts("clEnqueueReadBuffer", 1717000200000, 1717000260000, None)
    };
    assert_eq!(one_line(|s| write_timestamp(s, &read_buf)), golden("timestamp_read_buffer"));
    // CLAPIDefBase.cpp, CLEnqueueOther::WriteTimestampEntry (nothing after the device).
    let marker = Timestamp {
        enqueue: Some(Enqueue {
            queued: 1717000300500,
            submit: 1717000300600,
            start: 1717000301000,
            end: 1717000301000,
            ..enq(4606, "CL_COMMAND_MARKER", 0, "NVIDIA_H200", Detail::None)
        }),
        ..ts("clEnqueueMarkerWithWaitList", 1717000300000, 1717000300900, None)
    };
    assert_eq!(one_line(|s| write_timestamp(s, &marker)), golden("timestamp_marker"));
    // AMDTActivityLogger.cpp, amdtBeginMarker / amdtEndMarker.
    assert_eq!(
        one_line(|s| write_marker(s, &begin("outer loop", 1717000000050, "Solver phases"))),
        golden("marker_begin")
    );
    assert_eq!(one_line(|s| write_marker(s, &Marker::End { time: 1717000400000 })), golden("marker_end"));
    assert_eq!(one_line(|s| write_marker(s, &begin(&"x".repeat(60), 1717000000060, ""))), golden("marker_begin_long"));
    // AMDTActivityLogger.cpp, amdtFinalizeActivityLogger; ProfilerOutputFileDefs.h.
    assert_eq!(MARKER_SECTION, "=====Perfmarker Output=====");
    assert_eq!(API_SECTION, "=====ocl API Trace Output=====");
    assert_eq!(TIMESTAMP_SECTION, "=====ocl Timestamp Output=====");
}

#[test]
fn device_spaces_become_underscores() {
    let mut atp = sample();
    let Some(Enqueue { device, .. }) = &mut atp.timestamps[0].items[5].enqueue else { panic!("sample changed") };
    *device = "AMD Radeon RX 7900 XTX".into();
    let back = read(&write(&atp)).unwrap();
    let e = back.timestamps[0].items[5].enqueue.as_ref().unwrap();
    assert_eq!(e.device, "AMD_Radeon_RX_7900_XTX");
    // Everything else survives unchanged.
    let mut expected = atp.clone();
    if let Some(Enqueue { device, .. }) = &mut expected.timestamps[0].items[5].enqueue {
        *device = "AMD_Radeon_RX_7900_XTX".into();
    }
    assert_eq!(back, expected);
}

#[test]
fn long_device_name_stays_a_separate_field() {
    // PoCL's CPU device name is longer than RCP's 30-column field.
    let dev = "cpu-haswell-Intel(R)_Xeon(R)_Platinum_8480+";
    let t = ts(
        "clEnqueueWriteBuffer",
        1,
        2,
        Some(enq(4596, "CL_COMMAND_WRITE_BUFFER", 3, dev, Detail::Transfer { bytes: 64 })),
    );
    let line = one_line(|s| write_timestamp(s, &t));
    assert!(line.contains(&format!("{dev} 64")), "{line}");
    assert_eq!(parse_timestamp(&line).unwrap(), t);
}

#[test]
fn native_kernel_uses_rcp_handle_only_form() {
    let d = Detail::Kernel { handle: 0x401a20, name: String::new(), global: vec![], local: None };
    let t = ts("clEnqueueNativeKernel", 1, 2, Some(enq(4594, "CL_COMMAND_NATIVE_KERNEL", 3, "CPU_Device", d)));
    let line = one_line(|s| write_timestamp(s, &t));
    assert!(line.trim_end().ends_with(&format!("{:<30}0x401a20", "CPU_Device")), "{line:?}");
    assert_eq!(parse_timestamp(&line).unwrap(), t);
}
