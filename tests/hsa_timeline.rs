//! HSA in the timeline and the summary (`CLTAP_TIMELINE=1 CLTAP_SUMMARY=1
//! ROCP_HSA_INTERCEPT=2`) on Debian's real ROCr over the emulated gfx906
//! (`gpu-emu/`), with the HSA client (`tests/gpu_emu/hsa_client.c`): every HSA call is
//! a slice on its thread, every timed dispatch a slice on its HSA queue's
//! track (from its begin to its end, with an arrow from the doorbell store
//! that submitted it), and the summary has the per-kernel device table.

mod common;
use cltap_formats::apilog::{self, Entry};
use common::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const DISPATCHES: u64 = 5;

fn client(dir: &Path) -> Command {
    hsa_client(dir, DISPATCHES)
}

fn only(dir: &Path, ext: &str) -> PathBuf {
    only_file(dir, ext)
}

fn after(line: &str, key: &str) -> u64 {
    let at = line.find(key).unwrap_or_else(|| panic!("{key} not in {line}")) + key.len();
    line[at..].split([' ', ',', ':']).next().unwrap().parse().unwrap()
}

#[test]
fn hsa_calls_and_dispatches_in_the_timeline_and_the_summary() {
    let out = scratch("hsa-timeline");
    let mut c = client(&out);
    c.env("HSA_TOOLS_LIB", layer());
    c.env("CLTAP_OUTPUT_DIR", &*out);
    c.env("ROCP_HSA_INTERCEPT", "2");
    c.env("CLTAP_TIMELINE", "1");
    c.env("CLTAP_SUMMARY", "1");
    let o = run(c);
    assert_eq!(o.code, Some(0), "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("client: all checks passed"), "{}", o.stdout);

    // The API log: its calls and its dispatch lines (seq → end − begin).
    let text = std::fs::read_to_string(only(&out, ".apilog")).unwrap();
    let entries = apilog::read(&text).unwrap();
    let calls = entries.iter().filter(|e| matches!(e, Entry::Call(_))).count();
    assert!(calls > 0);
    let dispatches: BTreeMap<u64, u64> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# dispatch "))
        .map(|l| (l.split(':').next().unwrap().parse().unwrap(), after(l, " end ") - after(l, " begin ")))
        .collect();
    assert_eq!(dispatches.len() as u64, DISPATCHES, "{text}");

    // The timeline: the .json that is not the summary.
    let path = std::fs::read_dir(&*out).unwrap().map(|e| e.unwrap().path()).find(|p| {
        let n = p.to_string_lossy();
        n.ends_with(".json") && !n.ends_with(".summary.json")
    });
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path.expect("a timeline")).unwrap())
        .expect("the timeline parses");
    let events = json["traceEvents"].as_array().expect("traceEvents");
    for e in events {
        if let Some(d) = e.get("dur") {
            assert!(d.as_f64().unwrap() >= 0.0, "negative duration: {e}");
        }
    }
    let api: Vec<&Value> = events.iter().filter(|e| e["ph"] == "X" && e["cat"] == "api").collect();
    assert_eq!(api.len(), calls, "one slice per HSA call");
    assert!(api.iter().all(|e| e["name"].as_str().unwrap().starts_with("hsa_")), "HSA calls only");
    let slices: Vec<&Value> = events.iter().filter(|e| e["ph"] == "X" && e["cat"] == "hsa_dispatch").collect();
    assert!(slices.iter().all(|e| e["name"] == "add_one.kd"), "dispatches named by their kernel: {slices:?}");
    assert_eq!(slices.len() as u64, DISPATCHES, "one slice per dispatch");
    let host_pid = api[0]["pid"].as_u64().unwrap();
    let tracks: Vec<&Value> = events
        .iter()
        .filter(|e| e["name"] == "thread_name" && e["args"]["name"].as_str().unwrap().starts_with("HSA queue "))
        .collect();
    assert!(!tracks.is_empty(), "an HSA queue track");
    assert!(tracks.iter().all(|t| t["args"]["name"].as_str().unwrap().contains("(agent 0x")), "{tracks:?}");
    for s in &slices {
        assert_ne!(s["pid"].as_u64().unwrap(), host_pid, "dispatches are on the device row: {s}");
        assert!(tracks.iter().any(|t| t["pid"] == s["pid"] && t["tid"] == s["tid"]), "on a named queue track: {s}");
        let seq = s["args"]["dispatch"].as_u64().unwrap();
        let ns = (s["dur"].as_f64().unwrap() * 1000.0).round() as u64;
        assert_eq!(Some(&ns), dispatches.get(&seq), "dispatch {seq}: its slice lasts end − begin");
    }
    // Each dispatch names the doorbell store it was submitted in (its
    // thread and the call's number there), and one arrow goes from that
    // store's slice to the dispatch's: by identity, never by time.
    let starts: Vec<&Value> = events.iter().filter(|e| e["cat"] == "flow" && e["ph"] == "s").collect();
    let ends: Vec<&Value> = events.iter().filter(|e| e["cat"] == "flow" && e["ph"] == "f").collect();
    assert_eq!(starts.len(), ends.len());
    assert_eq!(starts.len() as u64, DISPATCHES, "an arrow to each dispatch from its doorbell store");
    let stores: Vec<&&Value> =
        api.iter().filter(|a| a["name"].as_str().unwrap().starts_with("hsa_signal_store_")).collect();
    for s in &slices {
        let by = &s["args"]["submitted_in"];
        assert!(by["hsa_call"].as_u64().is_some_and(|n| n > 0), "the dispatch names its call: {s}");
        let id = (1u64 << 62) | s["args"]["dispatch"].as_u64().unwrap();
        let start = starts.iter().find(|f| f["id"].as_u64() == Some(id)).unwrap_or_else(|| panic!("arrow {id}: {s}"));
        let end = ends.iter().find(|f| f["id"].as_u64() == Some(id)).unwrap_or_else(|| panic!("arrow {id}: {s}"));
        assert_eq!((&end["pid"], &end["tid"]), (&s["pid"], &s["tid"]), "the arrow ends on the dispatch's track");
        assert_eq!(start["tid"], by["thread"], "the arrow starts on the submitting thread: {start} {s}");
        assert!(
            stores.iter().any(|a| a["tid"] == start["tid"] && a["ts"] == start["ts"]),
            "the arrow starts on a signal store's slice: {start}"
        );
    }

    // The summary: the per-kernel device table, launches = dispatches.
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(only(&out, ".summary.json")).unwrap()).unwrap();
    let times = summary["hsa_kernel_times"].as_array().unwrap_or_else(|| panic!("hsa_kernel_times in {summary}"));
    assert_eq!(times.len(), 1, "{summary}");
    assert_eq!(times[0]["kernel"], "add_one.kd", "{summary}");
    assert_eq!(times[0]["launches"].as_u64(), Some(DISPATCHES));
    let total: u64 = dispatches.values().sum();
    assert_eq!(times[0]["total_ns"].as_u64(), Some(total));
    assert_eq!(times[0]["min_ns"].as_u64(), dispatches.values().min().copied());
    assert_eq!(times[0]["max_ns"].as_u64(), dispatches.values().max().copied());
    assert!(
        o.stderr.contains(&format!("cltap: HSA device time per kernel ({DISPATCHES} dispatches timed)\n")),
        "{}",
        o.stderr
    );
    let line = o
        .stderr
        .lines()
        .find(|l| l.contains("add_one.kd") && !l.contains("HSA packets"))
        .unwrap_or_else(|| panic!("{}", o.stderr));
    let launches: u64 = line.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert_eq!(launches, DISPATCHES, "{line}");
}
