//! `ROCP_HSA_INTERCEPT` on Debian's real ROCr over the emulated gfx906
//! (`gpu-emu/`), with the HSA client (`tests/gpu_emu/hsa_client.c`): cltap makes the
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

fn client(dir: &Path) -> Command {
    hsa_client(dir, DISPATCHES)
}

/// The packets the emulated GPU ran on the client's queue (the queue of its add_one
/// dispatches), by kind: gpu-emu's log, a witness independent of cltap.
fn client_queue(stderr: &str) -> Vec<emu::EmuPacket> {
    emu::queue_of(&emu::emu_packets(stderr), "add_one")
}

fn with_cltap(c: &mut Command, out: &Path, intercept: &str) {
    c.env("HSA_TOOLS_LIB", layer());
    c.env("CLTAP_OUTPUT_DIR", out);
    c.env("ROCP_HSA_INTERCEPT", intercept);
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
    assert_eq!(o.stdout, plain.stdout, "the client saw something else under cltap");
    assert!(o.stdout.contains("client: all checks passed"), "{}", o.stdout);
    // The emulator's own log: what reached the GPU on the client's queue is what reaches it
    // without cltap, packet for packet.
    let seen = client_queue(&o.stderr);
    assert_eq!(seen, client_queue(&plain.stderr), "{}", o.stderr);
    let of = |kind: &str| seen.iter().filter(|p| p.kind == kind).count() as u64;
    let dispatched = of("dispatch");
    assert_eq!(dispatched, DISPATCHES);
    assert!(seen.iter().filter(|p| p.kind == "dispatch").all(|p| p.kernel == "add_one"), "{seen:?}");
    let d = dispatches(&only(&out, ".apilog"));
    assert_eq!(d.len() as u64, dispatched, "one dispatch line per kernel dispatch");
    assert_eq!(summary_dispatches(&out), dispatched);
    // Every packet counted by type, as the emulated GPU ran them: the
    // client's dispatches and its one barrier-AND, nothing else.
    let summary = summary(&out);
    let barriers = of("BarrierAnd");
    assert_eq!(barriers, 1);
    let want = serde_json::json!({"kernel_dispatch": dispatched, "barrier_and": barriers, "barrier_or": 0, "vendor_specific": 0, "agent_dispatch": 0, "other": 0});
    assert_eq!(summary["hsa_packets"], want, "{summary}");
    assert_eq!(dispatched + barriers, seen.len() as u64, "{seen:?}");
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
    assert_eq!(o.stdout, plain.stdout);
    assert_eq!(client_queue(&o.stderr), client_queue(&plain.stderr));
    let stderr = emu::without_emu_log(&o.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
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
    let mut c = on_hsa(&cltap, &out);
    c.args(["run", "--hsa", "--hsa-intercept", "2", "--output"]).arg(&*out).arg("--");
    c.arg(emu::c_clients().join("hsa_client")).arg(hsa_kernels());
    c.env("CLIENT_DISPATCHES", DISPATCHES.to_string()).env("GPU_EMU_LOG", "1");
    let o = run(c);
    assert_eq!(o.code, plain.code, "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    assert_eq!(o.stdout, plain.stdout);
    assert_eq!(client_queue(&o.stderr), client_queue(&plain.stderr));
    let d = dispatches(&only(&out, ".apilog"));
    assert_eq!(d.len() as u64, DISPATCHES, "{d:?}");
    assert!(
        d.iter().all(|x| x.dispatch <= x.begin && x.begin <= x.end && x.end <= x.complete && x.begin != 0),
        "{d:?}"
    );
}
