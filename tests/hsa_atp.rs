//! The `.atp` of an HSA application (`CLTAP_ATP=1`) on Debian's real ROCr over
//! the emulated gfx906 (`gpu-emu/`), with the HSA client
//! (`tests/gpu_emu/hsa_client.c`) and `ROCP_HSA_INTERCEPT=2`: one hsa API line and one hsa
//! timestamp line per HSA call of the API log, and one kernel-timestamp line
//! per `# dispatch` line, in dispatch order.

mod common;
use cltap_formats::apilog::{self, Entry};
use common::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const DISPATCHES: usize = 5;

fn client(dir: &Path) -> Command {
    hsa_client(dir, DISPATCHES as u64)
}

fn only(dir: &Path, ext: &str) -> PathBuf {
    only_file(dir, ext)
}

/// The trace's HSA clock offset (`HSA_SYSTEM_INFO_TIMESTAMP` − `CLOCK_MONOTONIC`, ns), as the
/// renderers apply it (wrapping: on a machine that never slept the measured offset can be a few
/// ns below 0).
fn hsa_offset(dir: &Path) -> u64 {
    let r = cltap_formats::cltrace::Reader::open(&only_file(dir, ".cltrace")).unwrap();
    let v = r.info(cltap_formats::cltrace::INFO_HSA_CLOCK_OFFSET).expect("the trace records the HSA clock's offset");
    v.parse::<i64>().expect("a signed number of ns") as u64
}

fn after(line: &str, key: &str) -> String {
    let at = line.find(key).unwrap_or_else(|| panic!("{key} not in {line}")) + key.len();
    line[at..].split([' ', ',', ':']).next().unwrap().to_string()
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap()
}

#[test]
fn hsa_atp_has_every_call_and_every_dispatch() {
    let out = scratch("hsa-atp");
    let mut c = client(&out);
    c.env("HSA_TOOLS_LIB", layer());
    c.env("CLTAP_OUTPUT_DIR", &*out);
    c.env("CLTAP_ATP", "1");
    c.env("ROCP_HSA_INTERCEPT", "2");
    let o = run(c);
    assert_eq!(o.code, Some(0), "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("client: all checks passed"), "{}", o.stdout);

    let log_path = only(&out, ".apilog");
    let log = std::fs::read_to_string(&log_path).unwrap();
    let entries = apilog::read(&log).unwrap_or_else(|e| panic!("{}: {e}", log_path.display()));
    let mut calls: BTreeMap<String, usize> = BTreeMap::new();
    for e in &entries {
        if let Entry::Call(c) = e {
            *calls.entry(c.name.to_string()).or_default() += 1;
        }
    }
    assert!(calls.contains_key("hsa_queue_create"), "{calls:?}");

    let atp_path = only(&out, ".atp");
    let text = std::fs::read_to_string(&atp_path).unwrap();
    let atp = cltap_formats::atp::read(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", atp_path.display()));
    assert!(atp.api.is_empty() && atp.timestamps.is_empty(), "no OpenCL sections for an HSA application");

    let count = |names: Vec<&str>| {
        let mut m: BTreeMap<String, usize> = BTreeMap::new();
        for n in names {
            *m.entry(n.to_string()).or_default() += 1;
        }
        m
    };
    let api = count(atp.hsa_api.iter().flat_map(|b| b.items.iter().map(|c| c.name.as_str())).collect());
    assert_eq!(api, calls, "hsa API lines per function, against the API log");
    let ts = count(atp.hsa_timestamps.iter().flat_map(|b| b.items.iter().map(|t| t.name.as_str())).collect());
    assert_eq!(ts, calls, "hsa timestamp lines per function, against the API log");
    let mut copies = 0;
    for b in &atp.hsa_timestamps {
        for t in &b.items {
            assert!(t.start <= t.end, "start ≤ end: {t:?}");
            if t.name == "hsa_amd_memory_async_copy" {
                let c = t.copy.unwrap_or_else(|| panic!("async-copy times: {t:?}"));
                // ROCr's copy times are in HSA_SYSTEM_INFO_TIMESTAMP's domain, as cltap's host times.
                assert!(c.start <= c.end && c.start >= t.start, "copy times: {t:?}");
                copies += 1;
            } else {
                assert!(t.copy.is_none(), "no async-copy times: {t:?}");
            }
            assert_eq!(t.api_type, cltap_formats::atp::hsa_api_type(&t.name), "{t:?}");
        }
    }
    assert_eq!(copies, calls.get("hsa_amd_memory_async_copy").copied().unwrap_or(0));
    assert!(copies > 0, "the client makes async copies");
    // Each thread's API and timestamp lines name the same calls in the same order.
    assert_eq!(atp.hsa_api.len(), atp.hsa_timestamps.len());
    for (a, t) in atp.hsa_api.iter().zip(&atp.hsa_timestamps) {
        assert_eq!(a.tid, t.tid);
        let an: Vec<&str> = a.items.iter().map(|c| c.name.as_str()).collect();
        let tn: Vec<&str> = t.items.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(an, tn);
    }

    // The API log's dispatch lines, in dispatch order.
    let mut lines: Vec<(u64, &str)> = log
        .lines()
        .filter_map(|l| l.strip_prefix("# dispatch "))
        .map(|l| (l.split(':').next().unwrap().parse().unwrap(), l))
        .collect();
    lines.sort_by_key(|(n, _)| *n);
    assert_eq!(lines.len(), DISPATCHES);
    let k = &atp.kernel_dispatches;
    assert_eq!(k.len(), lines.len(), "one kernel line per dispatch: {k:?}");
    for (d, (_, l)) in k.iter().zip(&lines) {
        assert_eq!(d.kernel_handle, hex(&after(l, "kernel_object ")), "{l}\n{d:?}");
        // Named through the runtime's loader extension, as rocprofiler does.
        assert_eq!(d.kernel_name, after(l, " kernel "), "{l}\n{d:?}");
        assert_eq!(d.kernel_name, "add_one.kd");
        assert_eq!(d.agent_handle, hex(&after(l, " on agent ")), "{l}\n{d:?}");
        assert_eq!(d.queue_index, after(l, ", queue ").parse::<u64>().unwrap(), "{l}\n{d:?}");
        assert_eq!(d.packet_id, after(l, " index ").parse::<u64>().unwrap(), "{l}\n{d:?}");
        // The API log keeps the runtime's times; the .atp puts them on the
        // host's clock, beside its API lines, by the offset the trace recorded.
        assert_eq!(d.start, after(l, " begin ").parse::<u64>().unwrap().wrapping_sub(hsa_offset(&out)), "{l}\n{d:?}");
        assert_eq!(d.end, after(l, " end ").parse::<u64>().unwrap().wrapping_sub(hsa_offset(&out)), "{l}\n{d:?}");
        assert!(d.start != 0 && d.start <= d.end, "begin ≤ end: {d:?}");
        assert_eq!(d.packet_type, "HSA_PACKET_TYPE_KERNEL_DISPATCH");
        // The agent's name and its index among the GPUs, from the agent
        // records cltap writes at OnLoad.
        assert_eq!((d.agent_name.as_str(), d.agent_index), ("gfx906", 0));
        assert!(d.packet.contains(",64,1,1,"), "grid in the packet text: {}", d.packet);
    }
}

/// With the `.atp` on, without interception too: every async copy's line
/// carries its copy times, and the client sees what it sees without cltap.
#[test]
fn hsa_atp_async_copies_carry_their_times() {
    let plain = run(client(&scratch("hsa-atp-plain")));
    assert_eq!(plain.code, Some(0), "{}", plain.stderr);
    for intercept in [None, Some("2")] {
        let out = scratch(if intercept.is_some() { "hsa-atp-copy-2" } else { "hsa-atp-copy-0" });
        let mut c = client(&out);
        c.env("HSA_TOOLS_LIB", layer());
        c.env("CLTAP_OUTPUT_DIR", &*out);
        c.env("CLTAP_ATP", "1");
        if let Some(m) = intercept {
            c.env("ROCP_HSA_INTERCEPT", m);
        }
        let o = run(c);
        assert_eq!(o.code, plain.code, "stderr:\n{}", o.stderr);
        // Addresses aside (they move from run to run).
        let masked = |s: &str| {
            s.split_whitespace()
                .map(|w| {
                    w.split('=').map(|x| if x.starts_with("0x") { "0x?" } else { x }).collect::<Vec<_>>().join("=")
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(masked(&o.stdout), masked(&plain.stdout), "the client's output is unchanged");
        let text = std::fs::read_to_string(only(&out, ".atp")).unwrap();
        let atp = cltap_formats::atp::read(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let mut copies = 0;
        for t in atp.hsa_timestamps.iter().flat_map(|b| b.items.iter()) {
            if t.name == "hsa_amd_memory_async_copy" {
                let c = t.copy.unwrap_or_else(|| panic!("async-copy times: {t:?}"));
                assert!(c.start <= c.end && c.start >= t.start, "copy times: {t:?}");
                copies += 1;
            } else {
                assert!(t.copy.is_none(), "{t:?}");
            }
        }
        assert!(copies > 0, "the client makes async copies");
    }
}

/// `programs copy rect` on gpu-emu's SDMA engine (`GPU_EMU_SDMA=1`; ROCr copies rectangles only
/// with an SDMA engine): both kinds of async copy, plain and rect, get their copy times on their own
/// `.atp` lines; the program reads the rectangle's times itself with the same result as without
/// cltap, and the `.atp` holds exactly the times it read.
#[test]
fn hsa_atp_rect_copies_carry_their_times_too() {
    let copy_rect = |dir: &Path| {
        let mut c = on_hsa(hsa_programs(), dir);
        c.args(["copy", "rect"]).env("GPU_EMU_SDMA", "1");
        c
    };
    let plain = run(copy_rect(&scratch("hsa-atp-rect-plain")));
    assert_eq!(plain.code, Some(0), "{}\n{}", plain.stdout, plain.stderr);
    let out = scratch("hsa-atp-rect");
    let mut c = copy_rect(&out);
    c.env("HSA_TOOLS_LIB", layer()).env("CLTAP_OUTPUT_DIR", &*out).env("CLTAP_ATP", "1");
    let o = run(c);
    assert_eq!((o.code, &o.stdout), (plain.code, &plain.stdout), "{}", o.stderr);
    assert!(o.stdout.contains("copy: rect 100x20x3 identical=1\ncopy: rect time status=0 ordered=1\n"), "{}", o.stdout);
    let text = std::fs::read_to_string(only(&out, ".atp")).unwrap();
    let atp = cltap_formats::atp::read(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let copies = |name: &str| {
        atp.hsa_timestamps.iter().flat_map(|b| b.items.iter()).filter(|t| t.name == name).cloned().collect::<Vec<_>>()
    };
    let timed = |name: &str| {
        copies(name).iter().map(|t| t.copy.is_some_and(|c| c.start <= c.end && c.start >= t.start)).collect::<Vec<_>>()
    };
    assert_eq!(timed("hsa_amd_memory_async_copy"), [true, true]);
    assert_eq!(timed("hsa_amd_memory_async_copy_rect"), [true]);
    // The times the application read, from its stderr: the .atp's, to the nanosecond.
    let read: Vec<u64> = o
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("copy: rect time "))
        .unwrap_or_else(|| panic!("{}", o.stderr))
        .split(' ')
        .map(|n| n.parse().unwrap())
        .collect();
    let c = copies("hsa_amd_memory_async_copy_rect")[0].copy.unwrap();
    let off = hsa_offset(&out);
    assert_eq!(
        [c.start, c.end],
        [read[0].wrapping_sub(off), read[1].wrapping_sub(off)],
        "the .atp's rect copy times are the ones ROCr gave the application, on the host's clock"
    );
    let log = std::fs::read_to_string(only(&out, ".apilog")).unwrap();
    assert_eq!(log.lines().filter(|l| l.starts_with("# async copy_rect 0 of thread ")).count(), 1, "{log}");
}
