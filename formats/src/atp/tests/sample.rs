//! A realistic two-thread OpenCL session.

use super::*;

/// One block for each of the sample's two threads.
fn two_threads<T>(a: Vec<T>, b: Vec<T>) -> Vec<Block<T>> {
    vec![Block { tid: 41_877, items: a }, Block { tid: 41_880, items: b }]
}

/// Two threads: one sets up and dispatches (1D/2D/3D, with and without a
/// local size), one transfers, fences and marks; nested markers on both.
pub(super) fn sample() -> Atp {
    let header = HeaderInfo {
        profiler_version: "0.1.0".into(),
        application: "/home/u/bin/nbody".into(),
        application_args: "--n=4096 --iters 10".into(),
        working_directory: "/home/u".into(),
        full_environment: false,
        env_vars: vec![("POCL_CACHE_DIR".into(), "/tmp/pc".into())],
        user_timer: false,
        os_version: "Linux 6.1.0-18-amd64".into(),
        display_name: "session1".into(),
    }
    .to_header();
    let api_a = vec![
        call("CL_SUCCESS", "clGetPlatformIDs", &["1", "[0x55d0c8a00010]", "[1]"]),
        call(
            "CL_SUCCESS",
            "clGetPlatformInfo",
            &["0x55d0c8a00010", "CL_PLATFORM_NAME", "64", "[\"NVIDIA CUDA; rev 13\"]", "[12]"],
        ),
        call(
            "0x55d0c8a1f010",
            "clCreateContext",
            &["[{CL_CONTEXT_PLATFORM,0x55d0c8a00010,NULL}]", "1", "[0x55d0c8a00200]", "NULL", "NULL", "[CL_SUCCESS]"],
        ),
        call("0x55d0c8b40a80", "clCreateKernel", &["0x55d0c8b00000", "\"vadd\"", "[CL_SUCCESS]"]),
        call("CL_SUCCESS", "clSetKernelArg", &["0x55d0c8b40a80", "0", "8", "[0x55d0c8d00000]"]),
        call(
            "CL_SUCCESS",
            "clEnqueueNDRangeKernel",
            &["0x55d0c8a3b2c0", "0x55d0c8b40a80", "1", "NULL", "[1048576]", "[256]", "0", "NULL", "NULL"],
        ),
        call(
            "CL_SUCCESS",
            "clEnqueueNDRangeKernel",
            &["0x55d0c8a3b2c0", "0x55d0c8b40a80", "2", "NULL", "[4096,64]", "NULL", "0", "NULL", "[0x55d0c8c01200]"],
        ),
        call(
            "CL_SUCCESS",
            "clEnqueueNDRangeKernel",
            &["0x55d0c8a3b2c0", "0x55d0c8b40a80", "3", "[0,0,0]", "[1024,768,4]", "[16,16,1]", "0", "NULL", "NULL"],
        ),
        call("CL_SUCCESS", "clFinish", &["0x55d0c8a3b2c0"]),
    ];
    let ts_a = vec![
        ts("clGetPlatformIDs", 1_000, 9_000, None),
        ts("clGetPlatformInfo", 10_000, 10_400, None),
        ts("clCreateContext", 11_000, 250_000, None),
        ts("clCreateKernel", 260_000, 261_000, None),
        ts("clSetKernelArg", 262_000, 262_100, None),
        ts(
            "clEnqueueNDRangeKernel",
            270_000,
            275_000,
            Some(enq(
                4592,
                "CL_COMMAND_NDRANGE_KERNEL",
                274_000,
                "NVIDIA_H200",
                kernel("vadd", &[1_048_576], Some(&[256])),
            )),
        ),
        ts(
            "clEnqueueNDRangeKernel",
            280_000,
            284_000,
            Some(enq(4592, "CL_COMMAND_NDRANGE_KERNEL", 283_000, "NVIDIA_H200", kernel("vadd", &[4096, 64], None))),
        ),
        ts(
            "clEnqueueNDRangeKernel",
            290_000,
            293_000,
            Some(enq(
                4592,
                "CL_COMMAND_NDRANGE_KERNEL",
                292_000,
                "NVIDIA_H200",
                kernel("vadd", &[1024, 768, 4], Some(&[16, 16, 1])),
            )),
        ),
        ts("clFinish", 300_000, 480_000, None),
    ];
    let api_b = vec![
        call(
            "CL_SUCCESS",
            "clEnqueueWriteBuffer",
            &["0x55d0c8a3b2c0", "0x55d0c8d00000", "CL_FALSE", "0", "4194304", "0x7f3a10000000", "0", "NULL", "NULL"],
        ),
        call(
            "CL_SUCCESS",
            "clEnqueueReadBuffer",
            &[
                "0x55d0c8a3b2c0",
                "0x55d0c8d00000",
                "CL_TRUE",
                "0",
                "4194304",
                "0x7f3a10400000",
                "1",
                "[0x55d0c8c01200]",
                "NULL",
            ],
        ),
        call("CL_SUCCESS", "clEnqueueMarkerWithWaitList", &["0x55d0c8a3b2c0", "0", "NULL", "[0x55d0c8c01300]"]),
        call(
            "CL_INVALID_VALUE",
            "clEnqueueReadBuffer",
            &["0x55d0c8a3b2c0", "NULL", "CL_TRUE", "0", "0", "NULL", "0", "NULL", "NULL"],
        ),
    ];
    let ts_b = vec![
        ts(
            "clEnqueueWriteBuffer",
            200_000,
            201_000,
            Some(enq(4596, "CL_COMMAND_WRITE_BUFFER", 200_500, "NVIDIA_H200", Detail::Transfer { bytes: 4_194_304 })),
        ),
        ts(
            "clEnqueueReadBuffer",
            500_000,
            640_000,
            Some(enq(4595, "CL_COMMAND_READ_BUFFER", 500_500, "NVIDIA_H200", Detail::Transfer { bytes: 4_194_304 })),
        ),
        ts(
            "clEnqueueMarkerWithWaitList",
            650_000,
            650_900,
            Some(enq(4606, "CL_COMMAND_MARKER", 650_500, "NVIDIA_H200", Detail::None)),
        ),
        ts("clEnqueueReadBuffer", 660_000, 660_200, None),
    ];
    Atp {
        header,
        api: two_threads(api_a, api_b),
        timestamps: two_threads(ts_a, ts_b),
        markers: vec![
            Block {
                tid: 41_877,
                items: vec![
                    begin("setup", 900, "Default"),
                    Marker::End { time: 255_000 },
                    begin("solver loop", 265_000, "Solver phases"),
                    begin("step 1", 266_000, "Solver phases"),
                    Marker::End { time: 296_000 },
                    Marker::End { time: 490_000 },
                ],
            },
            Block {
                tid: 41_880,
                items: vec![
                    begin("upload", 199_000, "io"),
                    begin("x".repeat(60).as_str(), 199_500, "io"),
                    Marker::End { time: 202_000 },
                    Marker::End { time: 641_000 },
                ],
            },
        ],
        ..Atp::default()
    }
}

/// [`sample`] plus an HSA session on the same two threads: set-up, an async
/// copy with its copy times, a void call, a function from cltap's range, and
/// three kernel dispatches (one with a demangled name holding spaces and
/// commas, one longer than RCP's name column).
pub(super) fn sample_with_hsa() -> Atp {
    let agent = format!("{{{AGENT}}}");
    let signal = format!("{{{SIGNAL}}}");
    let copy_args = [
        "dst=0x7f3a10000000",
        &format!("dst_agent={agent}"),
        "src=0x7f3a10400000",
        "src_agent={94215730999808}",
        "size=4194304",
        "num_dep_signals=0",
        "dep_signals=NULL",
        &format!("completion_signal={signal}"),
    ];
    let api_a = vec![
        call("HSA_STATUS_SUCCESS", "hsa_init", &[]),
        call("HSA_STATUS_SUCCESS", "hsa_iterate_agents", &["callback=0x7f3a2000a1b0", "data=0x7ffd5a3c1e28"]),
        call(
            "HSA_STATUS_SUCCESS",
            "hsa_queue_create",
            &[
                &format!("agent={agent}"),
                "size=4096",
                "type=HSA_QUEUE_TYPE_MULTI",
                "callback=NULL",
                "data=NULL",
                "private_segment_size=4294967295",
                "group_segment_size=4294967295",
                "queue=[0x7f3a1c000000]",
            ],
        ),
        call("HSA_STATUS_SUCCESS", "hsa_amd_memory_async_copy", &copy_args),
        call("", "hsa_signal_store_screlease", &[&format!("signal={signal}"), "value=1"]),
    ];
    let ts_a = vec![
        hsa_ts("hsa_init", 1_000, 90_000, None),
        hsa_ts("hsa_iterate_agents", 91_000, 95_000, None),
        hsa_ts("hsa_queue_create", 96_000, 240_000, None),
        hsa_ts("hsa_amd_memory_async_copy", 250_000, 254_000, Some(AsyncCopy { start: 260_000, end: 344_000 })),
        hsa_ts("hsa_signal_store_screlease", 255_000, 255_100, None),
    ];
    let api_b = vec![
        call(
            "0",
            "hsa_signal_wait_scacquire",
            &[
                &format!("signal={signal}"),
                "condition=HSA_SIGNAL_CONDITION_LT",
                "compare_value=1",
                "timeout_hint=18446744073709551615",
                "wait_state_hint=HSA_WAIT_STATE_BLOCKED",
            ],
        ),
        call(
            "HSA_STATUS_SUCCESS",
            "hsa_amd_svm_prefetch_async",
            &["ptr=0x7f3a10000000", "size=4096", &format!("agent={agent}")],
        ),
    ];
    let ts_b = vec![
        hsa_ts("hsa_signal_wait_scacquire", 256_000, 345_000, None),
        hsa_ts("hsa_amd_svm_prefetch_async", 346_000, 347_000, None),
    ];
    Atp {
        hsa_api: two_threads(api_a, api_b),
        hsa_timestamps: two_threads(ts_a, ts_b),
        kernel_dispatches: vec![
            dispatch("vadd", 350_000, 0, 3),
            dispatch("void matmul<float, 16>(float const*, float*, unsigned long)", 410_000, 1, 17),
            dispatch(&format!("k_{}", "y".repeat(70)), 470_000, 0, 4),
        ],
        ..sample()
    }
}
