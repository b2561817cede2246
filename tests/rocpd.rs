//! rocpd's SQLite database (`--rocpd`), checked with rocpd's own view
//! definitions (`tests/rocpd/views.sql`, taken from ROCm's rocprofiler-sdk)
//! run by Python's sqlite3 (`tests/rocpd/check.py`): every view runs, and
//! what the views answer equals cltap's summary (calls per API, kernel
//! launches and device time, transfers) and the API log (counter values),
//! for an OpenCL run on PoCL, an HSA run on Debian's ROCr over gpu-emu, hardware counters
//! on the emulated gfx906, and a run killed by SIGKILL. `cltap report`
//! over two databases gives each process and the total.

mod common;
use common::checks::views;
use common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Per API: (calls, total ns), from the views' regions (the API calls',
/// not the markers') and the summary.
fn regions(v: &Value) -> BTreeMap<String, (u64, u64)> {
    v["regions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r[0] != MARKERS)
        .map(|r| (r[1].as_str().unwrap().to_string(), (r[2].as_u64().unwrap(), r[3].as_u64().unwrap())))
        .collect()
}

/// rocprofiler-sdk's category of marker ranges, which cltap's perf markers join.
const MARKERS: &str = "MARKER_CORE_API";

fn host(s: &Value) -> BTreeMap<String, (u64, u64)> {
    s["host"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (r["api"].as_str().unwrap().to_string(), (r["calls"].as_u64().unwrap(), r["total_ns"].as_u64().unwrap()))
        })
        .collect()
}

/// The calls of both agree; the times within a nanosecond a call (each
/// side converts the clock's ticks to ns, one per call, one per end).
fn same_calls(v: &Value, s: &Value) {
    let (r, h) = (regions(v), host(s));
    assert_eq!(r.keys().collect::<Vec<_>>(), h.keys().collect::<Vec<_>>());
    for (api, (n, ns)) in &h {
        let (rn, rns) = r[api];
        assert_eq!(rn, *n, "{api}");
        assert!(rns.abs_diff(*ns) <= 2 * n, "{api}: {rns} ns in the database, {ns} in the summary");
    }
}

fn vecadd(dir: &Path) {
    let pocl = Driver::Pocl.library();
    let mut c = cltap_on_driver(dir, &pocl);
    c.args(["run", "--rocpd", "--device-timing", "--driver"]).arg(&pocl).arg("--");
    c.arg(programs().join("vecadd")).arg("65536");
    let o = c.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn an_opencl_run_answers_rocpds_views_as_the_summary_does() {
    let d = scratch("rocpd-opencl");
    vecadd(&d);
    let v = views(&only_file(&d, ".db"));
    let s = summary_json(&d);
    same_calls(&v, &s);
    // vecadd's perf markers, each a range from its begin to its end, named
    // as the program named it; their calls are API regions as well.
    let markers: BTreeMap<&str, u64> = v["regions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r[0] == MARKERS)
        .map(|r| (r[1].as_str().unwrap(), r[2].as_u64().unwrap()))
        .collect();
    assert_eq!(markers, BTreeMap::from([("add", 1), ("compute", 1), ("reduce", 1), ("setup", 1)]), "{v}");
    // Nested on one thread: "compute" holds "add" then "reduce".
    let ns = |name: &str| {
        v["regions"].as_array().unwrap().iter().find(|r| r[0] == MARKERS && r[1] == name).unwrap()[3].as_u64().unwrap()
    };
    assert!(ns("compute") >= ns("add") + ns("reduce"), "{v}");
    let begun = host(&s)["clBeginPerfMarkerCLTAP"].0;
    assert_eq!((begun, host(&s)["clEndPerfMarkerCLTAP"].0), (4, 4));
    assert!(v["regions"].as_array().unwrap().iter().all(|r| r[0] == "OPENCL_API" || r[0] == MARKERS));
    let kernels: BTreeMap<String, (u64, u64)> = s["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["kernel"].as_str().unwrap().to_string(),
                (k["launches"].as_u64().unwrap(), k["total_ns"].as_u64().unwrap()),
            )
        })
        .collect();
    assert!(!kernels.is_empty());
    let top: BTreeMap<String, (u64, u64)> = v["top_kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k[0].as_str().unwrap().to_string(),
                (k[1].as_u64().unwrap(), (k[2].as_f64().unwrap() * 1000.0).round() as u64),
            )
        })
        .collect();
    assert_eq!(top, kernels);
    // Each kernel command shares its enqueue's correlation id.
    let launches: u64 = kernels.values().map(|k| k.0).sum();
    assert_eq!(v["kernels_joined"].as_u64(), Some(launches), "{v}");
    let (count, bytes) = s["transfers"]
        .as_array()
        .unwrap()
        .iter()
        .fold((0, 0), |a, t| (a.0 + t["count"].as_u64().unwrap(), a.1 + t["bytes"].as_u64().unwrap()));
    assert_eq!(v["memory_copies"], serde_json::json!([count, bytes]));
    assert_eq!(v["processes"], serde_json::json!([s["pid"]]));
    // PoCL's device runs on the host's cores: a CPU agent, as the host is.
    let agents = v["agents"].as_array().unwrap();
    assert!(agents.len() >= 2 && agents.iter().all(|a| a[2] == "CPU"), "{agents:?}");
    // The two views rocpd's file leaves out run here: the device was busy
    // for the kernels' and copies' time, within the run's wall time.
    let busy = v["busy"].as_array().unwrap();
    let device_ns: u64 = kernels.values().map(|k| k.1).sum();
    let device = agents.iter().find(|a| a[1] != "host").unwrap_or_else(|| panic!("{agents:?}"));
    let pocl = busy.iter().find(|b| b[0] == device[0]).unwrap_or_else(|| panic!("{busy:?}"));
    assert!(pocl[2].as_u64().unwrap() >= device_ns, "{busy:?}");
    assert!(pocl[4].as_f64().unwrap() > 0.0 && pocl[4].as_f64().unwrap() <= 1.0, "{busy:?}");
    assert_eq!(v["kernel_pmc_events"], serde_json::json!([0, 0]), "no counters were asked");
}

#[test]
fn an_hsa_run_has_its_calls_and_timed_dispatches() {
    const DISPATCHES: u64 = 5;
    let out = scratch("rocpd-hsa");
    let mut c = hsa_client(&out, DISPATCHES);
    c.env("HSA_TOOLS_LIB", layer())
        .env("CLTAP_OUTPUT_DIR", &*out)
        .env("ROCP_HSA_INTERCEPT", "2")
        .env("CLTAP_ROCPD", "1")
        .env("CLTAP_SUMMARY", "1");
    let o = run(c);
    assert_eq!(o.code, Some(0), "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    let v = views(&only_file(&out, ".db"));
    let s = summary_json(&out);
    same_calls(&v, &s);
    let times = s["hsa_kernel_times"].as_array().unwrap();
    let total: u64 = times.iter().map(|k| k["total_ns"].as_u64().unwrap()).sum();
    assert_eq!(v["kernels"], serde_json::json!([DISPATCHES, total]));
    // Each dispatch shares the correlation id of the doorbell store that
    // submitted it.
    assert_eq!(v["kernels_joined"].as_u64(), Some(DISPATCHES), "{v}");
}

#[test]
fn hardware_counters_are_pmc_events_of_their_dispatch() {
    let out = scratch("rocpd-counters");
    let o = counted_sizes(&out, &[("CLTAP_ROCPD", "1")]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let v = views(&only_file(&out, ".db"));
    let log = std::fs::read_to_string(only_file(&out, ".apilog")).unwrap();
    // One value per requested metric per counted dispatch, by the metric's name (as rocprofv3
    // names them), not the hardware events it was counted from.
    let counted = log.lines().filter(|l| l.starts_with("# counters of dispatch ")).count();
    assert!(counted > 0);
    assert_eq!(v["pmc_events"].as_u64(), Some(2 * counted as u64));
    assert_eq!(v["pmc_names"], serde_json::json!(["GRBM_COUNT", "SQ_WAVES"]));
    // Each counter value beside its dispatch (rocpd's own text of this view lacks a comma).
    assert_eq!(v["kernel_pmc_events"][0].as_u64(), Some(2 * counted as u64), "{v}");
    // Each kernel symbol has the registers and segments the API log's
    // line for its descriptor gives: "kernel object 0x…: NAME, VGPRs V,
    // SGPRs S, LDS L, scratch P".
    let described: Vec<serde_json::Value> = log
        .lines()
        .filter_map(|l| l.strip_prefix("# kernel object 0x"))
        .map(|l| {
            let (object, rest) = l.split_once(": ").unwrap();
            let f: Vec<&str> = rest.split(", ").collect();
            let n = |i: usize, key: &str| f[i].strip_prefix(key).unwrap().parse::<u64>().unwrap();
            serde_json::json!([
                u64::from_str_radix(object, 16).unwrap(),
                f[0],
                n(1, "VGPRs "),
                n(2, "SGPRs "),
                n(3, "LDS "),
                n(4, "scratch ")
            ])
        })
        .collect();
    assert!(!described.is_empty(), "no kernel descriptor in the log");
    let symbols = v["kernel_symbols"].as_array().unwrap();
    for d in &described {
        assert!(symbols.contains(d), "{d} not among the kernel symbols {symbols:?}");
    }
    assert_eq!(v["kernels"][0], summary_json(&out)["hsa_dispatches"]);
}

#[test]
fn a_run_killed_by_sigkill_leaves_a_database_the_views_read() {
    let d = scratch("rocpd-kill");
    let pocl = Driver::Pocl.library();
    let mut c = cltap_on_driver(&d, &pocl);
    c.args(["run", "--rocpd", "--driver"]).arg(&pocl).arg("--");
    c.arg(special("calls.c", "calls-rocpd")).args(["die", "kill", "500"]);
    let o = c.output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("killed by SIGKILL") && err.contains("its trace was rendered"), "{err}");
    let s = summary_json(&d);
    same_calls(&views(&only_file(&d, ".db")), &s);
}

#[test]
fn report_over_two_databases_gives_each_process_and_the_total() {
    let (a, b) = (scratch("rocpd-report-a"), scratch("rocpd-report-b"));
    vecadd(&a);
    vecadd(&b);
    let dbs = [only_file(&a, ".db"), only_file(&b, ".db")];
    let o = Command::new(cltap_exe()).arg("report").args(&dbs).output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (sa, sb) = (summary_json(&a), summary_json(&b));
    for s in [&sa, &sb] {
        assert!(text.contains(&format!("process {} (", s["pid"])), "{text}");
    }
    // The total's clSetKernelArg line adds both processes' calls.
    let calls = |s: &Value| host(s)["clSetKernelArg"].0;
    let total = text.split("total (2 processes)").nth(1).unwrap();
    let line = total.lines().find(|l| l.contains(" clSetKernelArg ")).unwrap();
    let n: u64 = line.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert_eq!(n, calls(&sa) + calls(&sb), "{total}");
    let vec_line = total.lines().find(|l| l.trim_start().starts_with("vecadd ")).unwrap();
    assert_eq!(vec_line.split_whitespace().nth(1), Some("2"), "{total}");
}
