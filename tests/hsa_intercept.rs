//! `ROCP_HSA_INTERCEPT` on the HSA runtime test double: cltap makes the
//! application's queues intercept queues and records each kernel dispatch
//! (`# dispatch …` lines in the API log, `"hsa_dispatches"` in the summary),
//! the application seeing exactly what it sees without cltap; with `=2` the
//! dispatch, begin, end and complete times; a bad value is one line and a
//! pass-through; `cltap run --hsa --hsa-intercept 2`.

mod common;
use cltap_formats::apilog::{self, Entry};
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Dispatches the client makes.
const DISPATCHES: u64 = 5;

/// The double: its client (`hsa-double/tests/client.c`) counts packets and
/// runs kernels through the double's own hooks, which ROCr has not.
const RT: Runtime = Runtime::Double;

fn on_double(program: &Path, dir: &Path) -> Command {
    on_hsa(RT, program, dir)
}

fn client_args(c: &mut Command) {
    c.arg(hsa_double().join("kernels.co"));
    c.env("CLIENT_DISPATCHES", DISPATCHES.to_string());
}

fn client(dir: &Path) -> Command {
    let mut c = on_double(&hsa_double().join("client"), dir);
    client_args(&mut c);
    c
}

fn with_cltap(c: &mut Command, out: &Path, intercept: &str) {
    c.env("HSA_TOOLS_LIB", layer());
    c.env("CLTAP_OUTPUT_DIR", out);
    c.env("ROCP_HSA_INTERCEPT", intercept);
}

fn masked(s: &str) -> String {
    mask_kernel_objects(s)
}

fn field(out: &str, key: &str) -> u64 {
    number_after(out, key)
}

fn only(dir: &Path, ext: &str) -> PathBuf {
    only_file(dir, ext)
}

/// One dispatch line's numbers.
#[derive(Debug)]
struct Dispatch {
    seq: u64,
    index: u64,
    grid: String,
    dispatch: u64,
    begin: u64,
    end: u64,
    complete: u64,
}

fn after(line: &str, key: &str) -> String {
    let at = line.find(key).unwrap_or_else(|| panic!("{key} not in {line}")) + key.len();
    line[at..].split([' ', ',', ':']).next().unwrap().to_string()
}

/// The dispatch comment lines of an API log, which must still read as one.
fn dispatches(path: &Path) -> Vec<Dispatch> {
    let text = std::fs::read_to_string(path).unwrap();
    let entries = apilog::read(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        entries.iter().any(|e| matches!(e, Entry::Call(c) if c.name == "hsa_queue_create")),
        "the application's hsa_queue_create is logged"
    );
    text.lines()
        .filter_map(|l| l.strip_prefix("# dispatch "))
        .map(|l| Dispatch {
            seq: l.split(':').next().unwrap().parse().unwrap(),
            index: after(l, " index ").parse().unwrap(),
            grid: l[l.find(" grid ").unwrap() + 6..].split(' ').next().unwrap().to_string(),
            dispatch: after(l, ", dispatch ").parse().unwrap(),
            begin: after(l, " begin ").parse().unwrap(),
            end: after(l, " end ").parse().unwrap(),
            complete: after(l, " complete ").parse().unwrap(),
        })
        .collect()
}

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(only(dir, ".summary.json")).unwrap()).unwrap()
}

fn summary_dispatches(dir: &Path) -> u64 {
    let v = summary(dir);
    v["hsa_dispatches"].as_u64().expect("hsa_dispatches in the summary")
}

fn plain() -> Outcome {
    let dir = scratch("hsa-intercept-plain");
    let o = run(client(&dir));
    assert_eq!(o.code, Some(0), "client failed without cltap:\n{}\n{}", o.stdout, o.stderr);
    o
}

/// Runs the client under cltap with `ROCP_HSA_INTERCEPT=mode`, checks that
/// it saw what it sees without cltap, and returns its dispatch lines.
fn intercepted(mode: &str) -> Vec<Dispatch> {
    let plain = plain();
    let out = scratch(&format!("hsa-intercept-{mode}"));
    let mut c = client(&out);
    with_cltap(&mut c, &out, mode);
    c.env("CLTAP_SUMMARY", "1");
    let o = run(c);
    assert_eq!(o.code, plain.code, "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    assert_eq!(masked(&o.stdout), masked(&plain.stdout), "the client saw something else under cltap");
    assert!(o.stdout.contains("client: all checks passed"), "{}", o.stdout);
    // The double's own counts: dispatches run and packets its processor saw.
    let dispatched = field(&o.stdout, "client: dispatches=");
    assert_eq!(dispatched, DISPATCHES);
    assert_eq!(field(&o.stdout, "packets_seen="), field(&plain.stdout, "packets_seen="));
    assert_eq!(field(&o.stdout, "after barrier packets_seen="), field(&plain.stdout, "after barrier packets_seen="));
    let d = dispatches(&only(&out, ".apilog"));
    assert_eq!(d.len() as u64, dispatched, "one dispatch line per kernel dispatch");
    assert_eq!(summary_dispatches(&out), dispatched);
    // Every packet counted by type, as the double's processor saw them: the
    // client's dispatches and its one barrier-AND, nothing else.
    let summary = summary(&out);
    let barriers = field(&o.stdout, "barriers_seen=");
    assert_eq!(barriers, 1);
    let want = serde_json::json!({"kernel_dispatch": dispatched, "barrier_and": barriers, "barrier_or": 0, "vendor_specific": 0, "agent_dispatch": 0, "other": 0});
    assert_eq!(summary["hsa_packets"], want, "{summary}");
    assert_eq!(dispatched + barriers, field(&o.stdout, "after barrier packets_seen="));
    assert!(
        o.stderr.contains(&format!("cltap: HSA packets: kernel_dispatch {dispatched}, barrier_and {barriers}\n")),
        "{}",
        o.stderr
    );
    // The client looks its kernel up by name: the dispatches are counted
    // under that name.
    let kernels = summary["hsa_kernels"].as_array().expect("hsa_kernels");
    assert_eq!(kernels.len(), 1, "{summary}");
    assert_eq!(kernels[0]["name"], "add_one.kd", "{summary}");
    assert_eq!(kernels[0]["dispatches"].as_u64(), Some(dispatched));
    assert!(kernels[0]["kernel_object"].as_str().is_some_and(|k| k.starts_with("0x")), "{summary}");
    let mut seqs: Vec<u64> = d.iter().map(|x| x.seq).collect();
    seqs.sort();
    assert_eq!(seqs, (1..=dispatched).collect::<Vec<_>>());
    let mut idx: Vec<u64> = d.iter().map(|x| x.index).collect();
    idx.sort();
    assert_eq!(idx, (0..dispatched).collect::<Vec<_>>(), "the packets' queue indices");
    assert!(d.iter().all(|x| x.grid == "(64,1,1)"), "{d:?}");
    d
}

#[test]
fn intercept_1_records_every_dispatch_and_changes_nothing() {
    let d = intercepted("1");
    assert!(
        d.iter().all(|x| x.dispatch == 0 && x.begin == 0 && x.end == 0 && x.complete == 0),
        "no times with =1: {d:?}"
    );
}

#[test]
fn intercept_2_times_every_dispatch_in_order() {
    let d = intercepted("2");
    for x in &d {
        assert!(
            x.dispatch != 0 && x.dispatch <= x.begin && x.begin <= x.end && x.end <= x.complete,
            "dispatch ≤ begin ≤ end ≤ complete: {x:?}"
        );
    }
}

#[test]
fn a_bad_value_is_one_line_and_a_pass_through() {
    let plain = plain();
    let out = scratch("hsa-intercept-bad");
    let mut c = client(&out);
    with_cltap(&mut c, &out, "7");
    let o = run(c);
    assert_eq!(o.code, plain.code, "{}\n{}", o.stdout, o.stderr);
    assert_eq!(masked(&o.stdout), masked(&plain.stdout));
    let lines: Vec<&str> = o.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line:\n{}", o.stderr);
    assert!(
        lines[0].starts_with("cltap: ") && lines[0].contains("ROCP_HSA_INTERCEPT") && lines[0].contains('7'),
        "{}",
        lines[0]
    );
    assert!(std::fs::read_dir(&*out).unwrap().next().is_none(), "a pass-through writes nothing");
}

#[test]
fn cltap_run_hsa_intercept_2() {
    let cltap = root().join("target/release/cltap");
    assert!(cltap.is_file(), "build with `cargo build --release --workspace` first");
    let plain = plain();
    let out = scratch("hsa-intercept-run");
    let mut c = on_double(&cltap, &out);
    c.args(["run", "--hsa", "--hsa-intercept", "2", "--output"]).arg(&*out).arg("--").arg(hsa_double().join("client"));
    client_args(&mut c);
    let o = run(c);
    assert_eq!(o.code, plain.code, "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    assert_eq!(masked(&o.stdout), masked(&plain.stdout));
    let d = dispatches(&only(&out, ".apilog"));
    assert_eq!(d.len() as u64, DISPATCHES, "{d:?}");
    assert!(
        d.iter().all(|x| x.dispatch <= x.begin && x.begin <= x.end && x.end <= x.complete && x.begin != 0),
        "{d:?}"
    );
}
