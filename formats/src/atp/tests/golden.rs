use super::sample::sample;
use super::*;
use crate::atp::timestamps::parse_timestamp;

/// Each expected string is what RCP's writer prints for the same values;
/// they were produced by replaying RCP's iostream calls (`left`, `setw`,
/// libstdc++'s pointer output) in a C++ program, and the source of each
/// is named beside it.
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
    assert_eq!(
        one_line(|s| write_header(s, &info.to_header())),
        "TraceFileVersion=3.2\nProfilerVersion=5.6.7\nApplication=/opt/app\nApplicationArgs=-x\n\
         WorkingDirectory=/opt\nUserTimer=False\nOS Version=Linux\nDisplayName=session1\n"
    );
    // Common/APIInfoManagerBase.cpp, WriteAPITraceDataToStream: thread id, count.
    assert_eq!(one_line(|s| write_block_start(s, 41877, 3)), "41877\n3\n");
    // APIInfoManagerBase.cpp, APIBase::WriteAPIEntry; the text is the example
    // in CLTraceAgent/CLAtpFile.cpp, CLAtpFilePart::Parse.
    assert_eq!(
        one_line(|s| write_api_call(
            s,
            &call("CL_SUCCESS", "clGetPlatformInfo", &["0x0B69F8C0", "CL_PLATFORM_ICD_SUFFIX_KHR", "0", "NULL", "[4]"])
        )),
        "CL_SUCCESS = clGetPlatformInfo ( 0x0B69F8C0;CL_PLATFORM_ICD_SUFFIX_KHR;0;NULL;[4] )\n"
    );
    // CLTraceAgent/CLAPIDefBase.cpp, CLAPIBase::WriteTimestampEntry.
    assert_eq!(
        one_line(|s| write_timestamp(s, &ts("clSetKernelArg", 1717000000100, 1717000000350, None))),
        "39   clSetKernelArg                               1717000000100        1717000000350        \n"
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
    assert_eq!(
        one_line(|s| write_timestamp(s, &nd3)),
        "66   clEnqueueNDRangeKernel                       1717000001000        1717000004500        4592    CL_COMMAND_NDRANGE_KERNEL               1717000003900        1717000005000        1717000012000        1717000095000        1         0x55d0c8a3b2c0           1         0x55d0c8a1f010           NVIDIA_H200                   0x55d0c8b40a80           vadd      {1024,768,4}     {16,16,1}        \n"
    );
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
    assert_eq!(
        one_line(|s| write_timestamp(s, &nd2)),
        "66   clEnqueueNDRangeKernel                       1717000100000        1717000102000        4592    CL_COMMAND_NDRANGE_KERNEL               1717000101500        1717000103000        1717000110000        1717000150000        1         0x55d0c8a3b2c0           1         0x55d0c8a1f010           NVIDIA_H200                   0x55d0c8b40a80           vadd      {4096,64}     {NULL}        \n"
    );
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
    assert_eq!(
        one_line(|s| write_timestamp(s, &read_buf)),
        "52   clEnqueueReadBuffer                          1717000200000        1717000260000        4595    CL_COMMAND_READ_BUFFER                  1717000200500        1717000201000        1717000210000        1717000250000        1         0x55d0c8a3b2c0           1         0x55d0c8a1f010           NVIDIA_H200                   4194304             \n"
    );
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
    assert_eq!(
        one_line(|s| write_timestamp(s, &marker)),
        "104  clEnqueueMarkerWithWaitList                  1717000300000        1717000300900        4606    CL_COMMAND_MARKER                       1717000300500        1717000300600        1717000301000        1717000301000        1         0x55d0c8a3b2c0           1         0x55d0c8a1f010           NVIDIA_H200                   \n"
    );
    // AMDTActivityLogger.cpp, amdtBeginMarker / amdtEndMarker.
    assert_eq!(
        one_line(|s| write_marker(s, &begin("outer loop", 1717000000050, "Solver phases"))),
        "clBeginPerfMarker   outer&nbsp;loop                                   1717000000050          Solver&nbsp;phases\n"
    );
    assert_eq!(
        one_line(|s| write_marker(s, &Marker::End { time: 1717000400000 })),
        "clEndPerfMarker     1717000400000       \n"
    );
    assert_eq!(
        one_line(|s| write_marker(s, &begin(&"x".repeat(60), 1717000000060, ""))),
        format!("clBeginPerfMarker   {}   1717000000060   Default\n", "x".repeat(60))
    );
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
