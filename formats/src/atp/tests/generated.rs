use super::sample::sample_with_hsa;
use super::*;
use crate::test_rng::Rng;

fn random_sizes(r: &mut Rng) -> Vec<u64> {
    (0..1 + r.below(3)).map(|_| 1 + r.below(1 << 20)).collect()
}

fn random_timestamp(r: &mut Rng) -> Timestamp {
    let name = r.pick(&[
        "clFinish",
        "clEnqueueNDRangeKernel",
        "clEnqueueReadBuffer",
        "clCommandNDRangeKernelKHR",
        "clNewThingEXT",
    ]);
    let enqueue = (r.below(3) != 0).then(|| {
        let detail = match r.below(4) {
            0 => Detail::None,
            1 => Detail::Transfer { bytes: r.next() },
            2 => Detail::Kernel { handle: r.next(), name: String::new(), global: vec![], local: None },
            _ => Detail::Kernel {
                handle: r.next() >> r.below(64),
                name: r.pick(&["k", "matrix_multiply_tiled_with_a_rather_long_name", "NA"]).into(),
                global: random_sizes(r),
                local: (r.below(2) == 0).then(|| random_sizes(r)),
            },
        };
        Enqueue {
            cmd_type: 4592 + r.below(30) as u32,
            cmd_name: r.pick(&["CL_COMMAND_NDRANGE_KERNEL", "CL_COMMAND_ACQUIRE_DX9_MEDIA_SURFACES_KHR"]).into(),
            queued: r.next(),
            submit: r.next(),
            start: r.next(),
            end: r.next(),
            queue_id: r.next() as u32,
            queue: r.next() >> r.below(64),
            context_id: r.below(4) as u32,
            context: r.next(),
            device: r
                .pick(&["NVIDIA_H200", "CPU_Device", "pthread-cpu-haswell-AMD_EPYC_9654_96-Core_Processor"])
                .into(),
            detail,
        }
    });
    Timestamp { api_type: api_type(name), name: name.into(), start: r.next(), end: r.next(), enqueue }
}

fn random_arg(r: &mut Rng) -> String {
    match r.below(6) {
        0 => format!("0x{:x}", r.next()),
        1 => "NULL".into(),
        2 => format!("[{},{}]", r.below(99), r.below(99)),
        3 => format!("[\"{}\"]", r.pick(&["a;b", "semi; colon", "br]ack{et", "esc \\\" q"])),
        4 => r.pick(&["{CL_CONTEXT_PLATFORM;1}", "f(x;y)", "", " spaced "]).into(),
        _ => r.below(100_000).to_string(),
    }
}

fn random_atp(r: &mut Rng) -> Atp {
    let threads: Vec<u64> = (0..1 + r.below(4)).map(|_| r.next() >> 40).collect();
    let mut atp = Atp { header: HeaderInfo::default().to_header(), ..Atp::default() };
    for &tid in &threads {
        let n = r.below(40) as usize;
        let api = (0..n)
            .map(|_| ApiCall {
                ret: r.pick(&["CL_SUCCESS", "0x7f00", "NULL", "[CL_SUCCESS]"]).into(),
                name: r.pick(&["clFoo", "clSetKernelArg"]).into(),
                args: match (0..r.below(6)).map(|_| random_arg(r)).collect::<Vec<_>>() {
                    // A lone empty argument is written quoted (see unsafe_text_is_quoted).
                    a if a == [""] => vec!["0".to_string()],
                    a => a,
                },
            })
            .collect();
        atp.api.push(Block { tid, items: api });
        atp.timestamps.push(Block { tid, items: (0..n).map(|_| random_timestamp(r)).collect() });
        let markers = (0..r.below(6))
            .map(|_| match r.below(2) {
                0 => begin(r.pick(&["a", "two words", &"y".repeat(55)]), r.next(), r.pick(&["Default", "my group"])),
                _ => Marker::End { time: r.next() },
            })
            .collect();
        atp.markers.push(Block { tid, items: markers });
        if r.below(2) == 0 {
            let n = r.below(20) as usize;
            let api = (0..n).map(|_| random_hsa_call(r)).collect();
            atp.hsa_api.push(Block { tid, items: api });
            atp.hsa_timestamps.push(Block { tid, items: (0..n).map(|_| random_hsa_timestamp(r)).collect() });
        }
    }
    atp.kernel_dispatches = (0..r.below(4) * r.below(6)).map(|_| random_dispatch(r)).collect();
    atp
}

fn random_hsa_call(r: &mut Rng) -> ApiCall {
    let mut args: Vec<String> = (0..r.below(6))
        .map(|_| match r.below(3) {
            0 => format!("agent={{{}}}", r.next()),
            1 => format!("size={}", r.below(1 << 30)),
            _ => random_arg(r),
        })
        .collect();
    if args == [""] {
        args = vec!["0".to_string()];
    }
    ApiCall {
        // RCP writes nothing before the name for functions without a result.
        ret: r.pick(&["HSA_STATUS_SUCCESS", "", "0", "HSA_STATUS_ERROR_INVALID_ARGUMENT"]).into(),
        name: r.pick(&["hsa_init", "hsa_amd_memory_async_copy", "hsa_signal_store_relaxed"]).into(),
        args,
    }
}

fn random_hsa_timestamp(r: &mut Rng) -> HsaTimestamp {
    let name = r.pick(&["hsa_init", "hsa_amd_memory_async_copy", "hsa_amd_svm_prefetch_async", "hsa_ven_future_thing"]);
    HsaTimestamp {
        api_type: hsa_api_type(name),
        name: name.into(),
        start: r.next(),
        end: r.next(),
        copy: (r.below(3) == 0).then(|| AsyncCopy { start: r.next(), end: r.next() }),
    }
}

fn random_dispatch(r: &mut Rng) -> KernelDispatch {
    KernelDispatch {
        kernel_name: r.pick(&["k", "void f<int, 2>(int*, float)", "a,b", &"z".repeat(60), "NA"]).into(),
        kernel_handle: r.next() >> r.below(64),
        start: r.next(),
        end: r.next(),
        agent_name: r.pick(&["gfx90a", "AMD_Instinct_MI210_with_a_very_long_agent_name_beyond_64_columns_"]).into(),
        agent_handle: r.next() >> r.below(64),
        queue_index: r.next() >> r.below(64),
        agent_index: r.next() as u32,
        packet_type: r.pick(&["HSA_PACKET_TYPE_KERNEL_DISPATCH", "HSA_PACKET_TYPE_BARRIER_AND", "7"]).into(),
        packet_id: r.next(),
        packet: r
            .pick(&[
                "{770,3,256,1,1,0,1048576,1,1,0,0,140234567,139887310000000,0,{0}}",
                "{1, 2}   spaced \t text",
                "x",
            ])
            .into(),
    }
}

#[test]
fn round_trip_over_generated_files() {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..200 {
        let atp = random_atp(&mut r);
        let text = write(&atp);
        assert_eq!(read(&text).unwrap(), atp, "{text}");
    }
}

#[test]
fn reader_never_panics_on_damaged_files() {
    let mut r = Rng(0x2545_F491_4F6C_DD1D);
    let text = write(&sample_with_hsa());
    let bytes = text.as_bytes();
    let junk: &[&str] = &[
        "",
        " ",
        "=",
        ";",
        "\"",
        "{",
        "}",
        "(",
        ")",
        "\n",
        "=====",
        "0x",
        "NULL",
        "18446744073709551616",
        "\r",
        ",",
        "&nbsp;",
        "&comma;",
    ];
    for _ in 0..3000 {
        let mut damaged = String::new();
        let mut at = 0;
        while at < bytes.len() {
            let cut = (at + 1 + r.below(400) as usize).min(bytes.len());
            damaged.push_str(&String::from_utf8_lossy(&bytes[at..cut]));
            damaged.push_str(r.pick(junk));
            at = cut + r.below(3) as usize;
        }
        let _ = read(&damaged);
    }
    // Counts far beyond memory must fail, not allocate.
    assert!(read("=====ocl API Trace Output=====\n1\n18446744073709551615\n").is_err());
    assert!(read("=====hsa Kernel Timestamp Output=====\n18446744073709551615\n").is_err());
}
