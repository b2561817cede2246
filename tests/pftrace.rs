//! Perfetto's protobuf trace (`--pftrace`), checked with Perfetto's own
//! schema (`perfetto_trace_pb2` from the `perfetto` package, which
//! scripts/setup.sh installs) by `tests/pftrace/check.py`: every packet
//! decodes with no field the schema does not know, every track an event
//! names was described before it, every interned id was defined on its
//! sequence, every slice that begins ends. Its counts must equal cltap's
//! summary: an OpenCL run on PoCL, an HSA run on Debian's ROCr over gpu-emu, a
//! run killed by SIGKILL (rendered from its trace), and two processes
//! merged into one trace.

mod common;
use common::checks::perfetto_check;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Calls in the summary's host table.
fn host_calls(s: &Value) -> u64 {
    s["host"].as_array().unwrap().iter().map(|r| r["calls"].as_u64().unwrap()).sum()
}

fn category(c: &Value, name: &str) -> u64 {
    c["by_category"][name].as_u64().unwrap_or(0)
}

/// `cltap run --pftrace --timeline` of the bundled sample on PoCL: a
/// timeline turns device timing on by itself.
fn vecadd(dir: &Path) -> std::process::Output {
    let pocl = Driver::Pocl.library();
    let mut c = cltap_on_driver(dir, &pocl);
    c.args(["run", "--pftrace", "--timeline", "--driver"]).arg(&pocl).arg("--");
    c.arg(programs().join("vecadd")).arg("65536");
    let o = c.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

#[test]
fn an_opencl_run_is_a_valid_perfetto_trace_with_the_summarys_counts() {
    let d = scratch("pftrace-opencl");
    vecadd(&d);
    let c = &perfetto_check(&[only_file(&d, ".pftrace")])[0];
    let s = summary_json(&d);
    assert_eq!(category(c, "opencl"), host_calls(&s), "{c}");
    let commands = s["commands"].as_array().unwrap();
    let timed = commands.iter().filter(|x| x["start"].as_u64().unwrap_or(0) > 0).count() as u64;
    assert!(timed > 0, "{s}");
    assert_eq!(category(c, "device"), timed, "{c}");
    // Each timed command ends the flow its enqueue started.
    let enqueues = commands.len() as u64;
    assert_eq!((c["flow_ids"].as_u64(), c["terminating_flow_ids"].as_u64()), (Some(enqueues), Some(timed)));
    assert_eq!(c["flows_joined"].as_u64(), Some(timed), "{c}");
    assert_eq!(c["processes"], serde_json::json!([s["pid"]]));
    assert_eq!(c["clock_snapshots"], 1);
    // vecadd's four perf markers are ranges, as in the JSON timeline.
    assert_eq!(category(c, "marker"), 4, "{c}");
    let timeline = std::fs::read_dir(&*d)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(".json") && !p.to_string_lossy().ends_with(".summary.json"))
        .expect("the timeline");
    let json = std::fs::read_to_string(timeline).unwrap();
    let count = |cat: &str| json.matches(&format!("\"cat\":\"{cat}\"")).count() as u64;
    assert_eq!(count("device"), timed, "the JSON timeline shows the device too");
    assert_eq!(count("marker"), 8, "a begin and an end per marker");
}

#[test]
fn hsa_calls_and_timed_dispatches_are_slices_joined_to_their_doorbell_stores() {
    const DISPATCHES: u64 = 5;
    let out = scratch("pftrace-hsa");
    let mut c = hsa_client(&out, DISPATCHES);
    c.env("HSA_TOOLS_LIB", layer());
    c.env("CLTAP_OUTPUT_DIR", &*out);
    c.env("ROCP_HSA_INTERCEPT", "2");
    c.env("CLTAP_PFTRACE", "1");
    c.env("CLTAP_SUMMARY", "1");
    let o = run(c);
    assert_eq!(o.code, Some(0), "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    let c = &perfetto_check(&[only_file(&out, ".pftrace")])[0];
    let s = summary_json(&out);
    assert_eq!(category(c, "hsa") + category(c, "opencl"), host_calls(&s), "{c}");
    assert_eq!(category(c, "hsa_dispatch"), DISPATCHES, "{c}");
    // Each dispatch is joined to the doorbell store its record names.
    assert_eq!(c["flows_joined"].as_u64(), Some(DISPATCHES), "{c}");
    assert_eq!(s["hsa_dispatches"].as_u64(), Some(DISPATCHES));
}

#[test]
fn a_run_killed_by_sigkill_renders_a_valid_trace() {
    let d = scratch("pftrace-kill");
    let pocl = Driver::Pocl.library();
    let mut c = cltap_on_driver(&d, &pocl);
    c.args(["run", "--pftrace", "--driver"]).arg(&pocl).arg("--");
    c.arg(special("calls.c", "calls-pftrace")).args(["die", "kill", "500"]);
    let o = c.output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("killed by SIGKILL") && err.contains("its trace was rendered"), "{err}");
    let c = &perfetto_check(&[only_file(&d, ".pftrace")])[0];
    let s = summary_json(&d);
    assert_eq!(category(c, "opencl"), host_calls(&s), "{c}");
    assert!(host_calls(&s) >= 500, "{s}");
}

#[test]
fn two_processes_merge_into_one_trace() {
    let (a, b) = (scratch("pftrace-merge-a"), scratch("pftrace-merge-b"));
    vecadd(&a);
    vecadd(&b);
    let files = [only_file(&a, ".pftrace"), only_file(&b, ".pftrace")];
    let job = a.join("job.pftrace");
    let o = Command::new(cltap_exe()).arg("merge").args(&files).arg("-o").arg(&job).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let each = perfetto_check(&files);
    let all = &perfetto_check(std::slice::from_ref(&job))[0];
    let sum = |k: &str| each.iter().map(|c| c[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(all["sequences"], 2);
    assert_eq!(all["slices"].as_u64().unwrap(), sum("slices"));
    assert_eq!(all["packets"].as_u64().unwrap(), sum("packets"));
    let mut pids: Vec<Value> = each.iter().map(|c| c["processes"][0].clone()).collect();
    pids.sort_by_key(|p| p.as_u64());
    assert_eq!(all["processes"], Value::Array(pids));

    // A damaged input is named, and nothing is written.
    let cut = b.join("cut.pftrace");
    let bytes = std::fs::read(&files[1]).unwrap();
    std::fs::write(&cut, &bytes[..bytes.len() - 3]).unwrap();
    let bad = b.join("bad.pftrace");
    let o = Command::new(cltap_exe()).arg("merge").arg(&files[0]).arg(&cut).arg("-o").arg(&bad).output().unwrap();
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("cut.pftrace"));
    assert!(!bad.exists());
}

#[test]
fn hardware_counters_are_counter_tracks_with_one_value_per_dispatch() {
    // Debian's ROCr over the emulated gfx906 and its emulated AQLprofile.
    let out = scratch("pftrace-counters");
    let o = counted_sizes(&out, &[("CLTAP_PFTRACE", "1")]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let c = &perfetto_check(&[only_file(&out, ".pftrace")])[0];
    // The API log's counter lines: `counters of dispatch N (pass P): A = 1, B = 2`.
    let log = std::fs::read_to_string(only_file(&out, ".apilog")).unwrap();
    let mut labels = std::collections::BTreeSet::new();
    let mut values = 0u64;
    for l in log.lines().filter_map(|l| l.strip_prefix("# counters of dispatch ")) {
        for pair in l.split_once("):").unwrap().1.split(',') {
            labels.insert(pair.split(" = ").next().unwrap().trim().to_string());
            values += 1;
        }
    }
    let dispatches = summary_json(&out)["hsa_dispatches"].as_u64().unwrap();
    assert!(dispatches > 0 && values >= dispatches, "{values} values for {dispatches} dispatches");
    assert_eq!(category(c, "hsa_dispatch"), dispatches, "{c}");
    assert_eq!(c["counter_values"].as_u64(), Some(values), "{c}");
    assert_eq!(c["counter_tracks"].as_u64(), Some(labels.len() as u64), "{c}");
}

/// `tests/c/special/workers.c`: four worker processes forked by one that
/// makes no OpenCL call, under `cltap run --pftrace --rocpd`.
#[test]
fn a_job_of_four_forked_workers_merges_and_reports_as_one() {
    let d = scratch("pftrace-workers");
    let pocl = Driver::Pocl.library();
    let mut c = cltap_on_driver(&d, &pocl);
    c.args(["run", "--pftrace", "--rocpd", "--device-timing", "--driver"]).arg(&pocl).arg("--");
    c.arg(special("workers.c", "workers")).arg("4");
    let o = c.output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}\n{}", String::from_utf8_lossy(&o.stderr));
    let mut pids: Vec<u64> = out.lines().filter_map(|l| l.split_whitespace().nth(2)?.parse().ok()).collect();
    pids.sort();
    assert_eq!(pids.len(), 4, "{out}");
    let with = |ext: &str| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&*d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(ext))
            .collect();
        v.sort();
        v
    };
    let (traces, dbs) = (with(".pftrace"), with(".db"));
    assert_eq!((traces.len(), dbs.len()), (4, 4), "{traces:?} {dbs:?}");

    // One timeline: four sequences, four processes, every slice of each.
    let job = d.join("job.pftrace");
    let m = Command::new(cltap_exe()).arg("merge").args(&traces).arg("-o").arg(&job).output().unwrap();
    assert!(m.status.success(), "{}", String::from_utf8_lossy(&m.stderr));
    let each = perfetto_check(&traces);
    let all = &perfetto_check(std::slice::from_ref(&job))[0];
    assert_eq!(all["sequences"], 4);
    assert_eq!(all["processes"], serde_json::json!(pids));
    let sum = |k: &str| each.iter().map(|c| c[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(all["slices"].as_u64().unwrap(), sum("slices"));
    // Each worker's calls, from its own summary: worker i made i + 1
    // clGetPlatformInfo calls.
    let mut info_calls = Vec::new();
    let mut total_calls = 0;
    for s in with(".summary.json") {
        let s: Value = serde_json::from_str(&std::fs::read_to_string(s).unwrap()).unwrap();
        total_calls += host_calls(&s);
        let info = s["host"].as_array().unwrap().iter().find(|r| r["api"] == "clGetPlatformInfo").unwrap();
        info_calls.push(info["calls"].as_u64().unwrap());
    }
    info_calls.sort();
    assert_eq!(info_calls, vec![1, 2, 3, 4]);
    assert_eq!(category(all, "opencl"), total_calls);
    assert_eq!(category(all, "device"), 8, "a write and a read per worker");

    // One report over the four databases: each process, and the total.
    let r = Command::new(cltap_exe()).arg("report").args(&dbs).output().unwrap();
    let text = String::from_utf8_lossy(&r.stdout);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    for p in &pids {
        assert!(text.contains(&format!("process {p} (")), "{text}");
    }
    let total = text.split("total (4 processes)").nth(1).unwrap();
    let line = total.lines().find(|l| l.contains(" clGetPlatformInfo ")).unwrap();
    assert_eq!(line.split_whitespace().nth(2), Some("10"), "{total}");
    assert!(total.contains("memory copies: 8 (32768 bytes)"), "{total}");
}
