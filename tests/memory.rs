//! The memory trace (`--memory`) and the leak check (`--leaks`) on real
//! drivers: `tests/c/special/leaky.c` on PoCL (buffers, an image, SVM) and
//! on Intel's CPU runtime (USM as well), `tests/hsa/programs.c leaky` on
//! Debian's ROCr over gpu-emu (pool allocations, an executable, a queue, a
//! signal). Each row and each leak is checked against the call the API log
//! shows at its record index (its place among the log's calls); the peak,
//! the timeline's and the .pftrace's counter values (through Perfetto's
//! schema), rocpd's memory allocation table (through rocpd's own views) and
//! the file of a run killed by SIGKILL, rendered again by `cltap render`,
//! all agree with the memory file.

mod common;
use cltap_formats::memory::{read, Op, Row};
use common::checks::{perfetto_check, views};
use common::*;
use serde_json::Value;
use std::path::Path;

/// `cltap run OPTIONS --driver LIB -- leaky ARGS` from `dir`.
fn leaky(dir: &Path, driver: Driver, options: &[&str], args: &[&str]) -> std::process::Output {
    let lib = driver.library();
    let mut c = cltap_on_driver(dir, &lib);
    c.arg("run").args(options).arg("--driver").arg(&lib).arg("--");
    c.arg(special("leaky.c", "leaky")).args(args);
    c.env("LD_LIBRARY_PATH", intel_lib());
    c.env("POCL_CACHE_DIR", pocl_cache());
    c.output().unwrap()
}

/// The API log's calls, in order: the line of each record index.
fn calls(dir: &Path) -> Vec<String> {
    let log = std::fs::read_to_string(only_file(dir, ".apilog")).unwrap();
    log.lines().filter(|l| l.starts_with("TID")).map(str::to_string).collect()
}

fn rows_of(dir: &Path) -> Vec<Row> {
    read(&std::fs::read_to_string(only_file(dir, ".memory.csv")).unwrap()).unwrap()
}

/// A handle or pointer as the API log prints it.
fn logged(x: u64) -> String {
    format!("{x:016X}")
}

/// Each row's call is the API log's call at its record, with its size and
/// its result (or freed pointer); each free names its allocation's row.
fn rows_match_the_log(rows: &[Row], calls: &[String]) {
    for r in rows {
        let line = &calls[r.record as usize];
        assert!(line.contains(&format!(" {}(", r.call)), "record {}: {line}", r.record);
        assert!(line.contains(&logged(r.address)), "record {} does not name {:#x}: {line}", r.record, r.address);
        match r.op {
            Op::Alloc => assert_eq!(r.alloc_record, r.record),
            Op::Free => {
                let a = rows.iter().find(|a| a.op == Op::Alloc && a.record == r.alloc_record).unwrap();
                assert_eq!((a.address, a.bytes, &a.kind), (r.address, r.bytes, &r.kind));
            }
        }
    }
}

/// `(op, kind, bytes)` of each row.
fn shape(rows: &[Row]) -> Vec<(Op, &str, u64)> {
    rows.iter().map(|r| (r.op, r.kind.as_str(), r.bytes)).collect()
}

/// The running sum of `rows` (one device): the counter tracks' values.
fn in_use(rows: &[Row]) -> Vec<u64> {
    let mut n = 0i64;
    rows.iter()
        .map(|r| {
            n += if r.op == Op::Alloc { r.bytes as i64 } else { -(r.bytes as i64) };
            n as u64
        })
        .collect()
}

/// `(type, record)` of each leak in the summary, and each leak's record is
/// the API log's call that made it.
fn leaks(s: &Value, calls: &[String]) -> Vec<(String, u64)> {
    let list = s["leaks"].as_array().unwrap_or_else(|| panic!("no leaks in {s}"));
    list.iter()
        .map(|l| {
            let (ty, record) = (l["type"].as_str().unwrap().to_string(), l["record"].as_u64().unwrap());
            let line = &calls[record as usize];
            assert!(line.contains(&format!(" {}(", l["call"].as_str().unwrap())), "{l}: {line}");
            let handle = u64::from_str_radix(l["handle"].as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
            assert!(line.contains(&logged(handle)), "{l}: {line}");
            (ty, record)
        })
        .collect()
}

/// The record of the first call whose line holds `needle`.
fn record_of(calls: &[String], needle: &str) -> u64 {
    calls.iter().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("no call with {needle}")) as u64
}

/// The sizes leaky.c allocates, in order, then releases.
const ALLOCATED: [(Op, &str, u64); 6] = [
    (Op::Alloc, "buffer", 4096),
    (Op::Alloc, "buffer", 1000),
    (Op::Alloc, "buffer", 2048),
    (Op::Alloc, "image", 16 * 8 * 4),
    (Op::Alloc, "svm", 256),
    (Op::Alloc, "svm", 128),
];
const RELEASED: [(Op, &str, u64); 4] =
    [(Op::Free, "buffer", 2048), (Op::Free, "buffer", 4096), (Op::Free, "image", 512), (Op::Free, "svm", 256)];

#[test]
fn opencl_rows_peak_counter_tracks_rocpd_and_leaks_on_pocl() {
    let d = scratch("memory-pocl");
    let o = leaky(&d, Driver::Pocl, &["--memory", "--leaks", "--timeline", "--pftrace", "--rocpd"], &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && out.contains("svm yes\nusm no\n"), "{out}\n{}", String::from_utf8_lossy(&o.stderr));
    let (rows, calls) = (rows_of(&d), calls(&d));
    let want: Vec<_> = ALLOCATED.iter().chain(&RELEASED).copied().collect();
    assert_eq!(shape(&rows), want);
    rows_match_the_log(&rows, &calls);
    // One device: the context's, as clCreateContext named it.
    let device = rows[0].devices[0].clone();
    assert!(rows.iter().all(|r| r.devices == [device.clone()]), "{rows:?}");
    let dev = u64::from_str_radix(device.trim_start_matches("device 0x"), 16).unwrap();
    assert!(calls[record_of(&calls, " clCreateCommandQueue(") as usize].contains(&logged(dev)));
    let s = summary_json(&d);
    assert_eq!(
        s["memory_peaks"],
        serde_json::json!([{"device": device, "bytes": 4096 + 1000 + 2048 + 512 + 256 + 128}])
    );
    // The timeline's counter events and the .pftrace's counter track.
    let series = in_use(&rows);
    let timeline = std::fs::read_dir(&*d).unwrap().map(|e| e.unwrap().path()).find(|p| {
        let n = p.to_string_lossy();
        n.ends_with(".json") && !n.ends_with(".summary.json")
    });
    let timeline: Value = serde_json::from_str(&std::fs::read_to_string(timeline.unwrap()).unwrap()).unwrap();
    let track = format!("memory in use: {device}");
    let counted: Vec<u64> = timeline["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "C" && e["name"] == track.as_str())
        .map(|e| e["args"]["bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(counted, series);
    let p = &perfetto_check(&[only_file(&d, ".pftrace")])[0];
    assert_eq!(p["counter_series"][&track], serde_json::json!(series), "{p}");
    // rocpd's memory_allocations view: one row per row of the file.
    let v = views(&only_file(&d, ".db"));
    let want: Vec<Value> = rows
        .iter()
        .map(|r| {
            let op = if r.op == Op::Alloc { "ALLOC" } else { "FREE" };
            serde_json::json!([op, "REAL", r.call, r.thread, r.time_ns, r.address, r.bytes, "MEMORY_ALLOCATION"])
        })
        .collect();
    assert_eq!(v["memory_allocations"], serde_json::json!(want));
    // The leaks: what leaky.c leaves, by the call that made each.
    let want = vec![
        ("cl_command_queue".to_string(), record_of(&calls, " clCreateCommandQueue(")),
        ("cl_mem".to_string(), record_of(&calls, "size = 1000,")),
        ("svm".to_string(), record_of(&calls, "size = 128,")),
        ("cl_event".to_string(), record_of(&calls, " clEnqueueWriteBuffer(")),
    ];
    assert_eq!(leaks(&s, &calls), want);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("cltap: leaks: 4 left at exit"), "{err}");
}

#[test]
fn usm_allocations_on_intels_runtime() {
    let d = scratch("memory-intel");
    let o = leaky(&d, Driver::Intel, &["--memory", "--leaks"], &[]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && out.contains("usm yes\n"), "{out}\n{}", String::from_utf8_lossy(&o.stderr));
    let svm = out.contains("svm yes\n");
    let (rows, calls) = (rows_of(&d), calls(&d));
    let usm = [(Op::Alloc, "usm-host", 64), (Op::Alloc, "usm-device", 32), (Op::Alloc, "usm-shared", 16)];
    let freed = [(Op::Free, "usm-host", 64), (Op::Free, "usm-device", 32)];
    let keep = |v: &[(Op, &'static str, u64)]| -> Vec<(Op, &'static str, u64)> {
        v.iter().copied().filter(|x| svm || x.1 != "svm").collect()
    };
    let want: Vec<_> = [keep(&ALLOCATED), usm.to_vec(), keep(&RELEASED), freed.to_vec()].concat();
    assert_eq!(shape(&rows), want);
    rows_match_the_log(&rows, &calls);
    // A device allocation names its device; every row here has the one.
    let device = rows.iter().find(|r| r.kind == "usm-device").unwrap().devices.clone();
    assert!(rows.iter().all(|r| r.devices == device), "{rows:?}");
    let peak: u64 = want.iter().filter(|x| x.0 == Op::Alloc).map(|x| x.2).sum();
    let s = summary_json(&d);
    assert_eq!(s["memory_peaks"], serde_json::json!([{"device": device[0], "bytes": peak}]));
    let mut want = vec![
        ("cl_command_queue".to_string(), record_of(&calls, " clCreateCommandQueue(")),
        ("cl_mem".to_string(), record_of(&calls, "size = 1000,")),
        ("usm-shared".to_string(), record_of(&calls, " clSharedMemAllocINTEL(")),
        ("cl_event".to_string(), record_of(&calls, " clEnqueueWriteBuffer(")),
    ];
    if svm {
        want.insert(2, ("svm".to_string(), record_of(&calls, "size = 128,")));
    }
    assert_eq!(leaks(&s, &calls), want);
}

#[test]
fn a_killed_run_rendered_again_gives_the_same_memory_file() {
    let d = scratch("memory-kill");
    let o = leaky(&d, Driver::Pocl, &["--memory", "--leaks"], &["die"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("killed by SIGKILL") && err.contains("its trace was rendered"), "{err}");
    let first = std::fs::read_to_string(only_file(&d, ".memory.csv")).unwrap();
    let rows = read(&first).unwrap();
    assert_eq!(shape(&rows), ALLOCATED.to_vec());
    rows_match_the_log(&rows, &calls(&d));
    // Nothing was released: everything made is left.
    let s = summary_json(&d);
    assert_eq!(s["leaks"].as_array().unwrap().len(), 2 + ALLOCATED.len(), "{s}");
    // The same rows; their times too, but for the clock's rate: a trace cut
    // off before its rate was measured has it measured again by each
    // rendering (docs/memory.md).
    let again = rows_of(&render_left_trace(&d));
    let untimed = |v: &[Row]| v.iter().map(|r| Row { time_ns: 0, ..r.clone() }).collect::<Vec<_>>();
    assert_eq!(untimed(&again), untimed(&rows));
    for (a, b) in again.iter().zip(&rows) {
        assert!(a.time_ns.abs_diff(b.time_ns) < 1_000_000, "{a:?} {b:?}");
    }
}

#[test]
fn hsa_pool_allocations_and_objects_left_on_rocr() {
    let d = scratch("memory-hsa");
    let app = [hsa_programs().as_os_str().to_owned(), "leaky".into(), hsa_kernels().into()];
    // `--leaks` writes the summary, `--no-summary` (cltap_run_hsa's) or not.
    let o = run(cltap_run_hsa(&d, &["--memory", "--leaks"], app));
    assert!(o.code == Some(0) && o.stdout.contains("leaky done"), "{}\n{}", o.stdout, o.stderr);
    let (rows, calls) = (rows_of(&d), calls(&d));
    let want = [
        (Op::Alloc, "hsa-pool", 256),
        (Op::Alloc, "hsa-pool", 4096),
        (Op::Alloc, "hsa-pool", 65536),
        (Op::Alloc, "hsa-pool", 1000),
        (Op::Free, "hsa-pool", 4096),
    ];
    assert_eq!(shape(&rows), want.to_vec());
    rows_match_the_log(&rows, &calls);
    // Each row is counted against the pool it came from, as the call named it.
    for r in &rows {
        let pool = u64::from_str_radix(r.owner.trim_start_matches("pool 0x"), 16).unwrap();
        assert_eq!(r.devices, std::slice::from_ref(&r.owner));
        if r.op == Op::Alloc {
            assert!(calls[r.record as usize].contains(&format!("memory_pool = {}", logged(pool))));
        }
    }
    let (fine, coarse) = (rows[0].owner.clone(), rows[2].owner.clone());
    assert_ne!(fine, coarse);
    let s = summary_json(&d);
    let mut peaks = vec![
        serde_json::json!({"device": fine, "bytes": 256 + 4096 + 1000}),
        serde_json::json!({"device": coarse, "bytes": 65536}),
    ];
    peaks.sort_by_key(|p| p["device"].as_str().unwrap().to_string());
    assert_eq!(s["memory_peaks"], serde_json::json!(peaks));
    let want = vec![
        ("hsa_executable".to_string(), record_of(&calls, " hsa_executable_create_alt(")),
        ("hsa-pool".to_string(), rows[0].record),
        ("hsa-pool".to_string(), rows[2].record),
        ("hsa-pool".to_string(), rows[3].record),
        ("hsa_queue".to_string(), record_of(&calls, " hsa_queue_create(")),
        ("hsa_signal".to_string(), record_of(&calls, "hsa_signal_value_t initial_value = 0,")),
    ];
    assert_eq!(leaks(&s, &calls), want);
}
