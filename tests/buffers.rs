//! Buffered delivery of trace records to tools (after ROCprofiler-SDK's buffered services), through the C
//! API of `include/cltap_buffer.h`: the watermark example of ROCprofiler-SDK's buffered services, lossless
//! with a slow callback losing nothing, discard counting its drops, a flush
//! in the middle of a run, the records identical to the binary trace's and
//! matching the API log, dispatch records on Debian's ROCr over the
//! emulated gfx906, and the example
//! tool of docs/tools.md built and run.

mod common;
#[path = "tools/toollib_harness.rs"]
mod harness;

use common::*;
use harness::*;
use std::path::{Path, PathBuf};

fn buffer_tool() -> PathBuf {
    tool("buffer_tool.c", "buffer_tool.so", &[])
}

/// One batch as the tool wrote it down.
#[derive(Debug)]
struct Batch {
    count: usize,
    bytes: usize,
    drops: u64,
    thread: String,
}

/// What the buffer tool wrote: its batches, its records, its other lines.
struct Seen {
    batches: Vec<Batch>,
    records: Vec<Rec>,
    lines: Vec<String>,
}

impl Seen {
    fn read(prefix: &Path) -> Seen {
        let text = std::fs::read_to_string(prefix.with_extension("batches")).unwrap();
        let mut batches = Vec::new();
        let mut lines = Vec::new();
        for l in text.lines() {
            let w: Vec<&str> = l.split_whitespace().collect();
            if w[0] == "batch" {
                batches.push(Batch {
                    count: w[1].parse().unwrap(),
                    bytes: w[2].parse().unwrap(),
                    drops: w[3].parse().unwrap(),
                    thread: w[4].to_string(),
                });
            } else {
                lines.push(l.to_string());
            }
        }
        let records = dumped_records(&prefix.with_extension("records"));
        assert_eq!(records.len(), batches.iter().map(|b| b.count).sum::<usize>());
        Seen { batches, records, lines }
    }

    fn line(&self, start: &str) -> &str {
        self.lines
            .iter()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no {start} line in {:?}", self.lines))
    }

    fn dropped(&self) -> u64 {
        self.batches.iter().map(|b| b.drops).sum()
    }
}

/// `calls ARGS` on PoCL under cltap with the buffer tool set up by `env`.
fn run_with_buffer(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (Outcome, Seen) {
    let prefix = dir.join("seen");
    let mut c = under_cltap(&calls(), args, &dir.join("files"));
    c.env("ROCP_TOOL_LIB", buffer_tool()).env("BUFFER_OUT", &prefix);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = run(c);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    (out, Seen::read(&prefix))
}

/// The records a thread made must be the trace's, byte for byte (as the
/// record layout reads them), in the same order.
fn assert_same_per_thread(got: &[Rec], trace: &[Rec]) {
    let (g, t) = (by_thread(got), by_thread(trace));
    assert_eq!(g.keys().collect::<Vec<_>>(), t.keys().collect::<Vec<_>>());
    for (tid, recs) in &t {
        assert!(
            g[tid] == *recs,
            "thread {tid}: {} records received, {} in the trace, or different",
            g[tid].len(),
            recs.len()
        );
    }
}

/// ROCprofiler-SDK's buffered-services example, exactly: a 4096-byte buffer with a 48-byte watermark
/// takes six 8-byte records before the callback. Trace records are 48
/// bytes or more, so this runs the registry behind the C API directly with
/// 8-byte records; the same buffer with real records follows.
#[test]
fn the_seeds_example_six_eight_byte_records_before_the_callback() {
    use cltap::tools::buffer::Policy;
    use cltap::tools::buffer_registry::{Callback, Registry};
    use std::sync::{Arc, Mutex};
    let r: &'static Registry = Box::leak(Box::new(Registry::new(None)));
    let got: Arc<Mutex<Vec<usize>>> = Arc::default();
    let g = got.clone();
    let cb: Callback = Arc::new(move |_, recs, _| g.lock().unwrap().push(recs.len()));
    let id = r.create(4096, 48, Policy::Lossless, cb).unwrap();
    for i in 1..=5u64 {
        r.push_to(id, &i.to_le_bytes()).unwrap();
        assert_eq!(r.stats(id).unwrap().queued, 0, "handed over after {i} records");
    }
    r.push_to(id, &6u64.to_le_bytes()).unwrap();
    assert_eq!(r.stats(id).unwrap().queued, 1, "the sixth 8-byte record reaches the watermark");
    // A 64-byte record reaches it alone.
    r.push_to(id, &[0u8; 64]).unwrap();
    r.flush(id).unwrap();
    assert_eq!(*got.lock().unwrap(), vec![6, 1]);
}

#[test]
fn with_real_records_a_48_byte_watermark_delivers_each_record_alone() {
    let dir = scratch("buffers-48");
    let (_, seen) = run_with_buffer(&dir, &["golden"], &[("BUFFER_SIZE", "4096"), ("BUFFER_WATERMARK", "48")]);
    assert!(seen.records.iter().all(|r| r.header.len >= 48));
    assert!(seen.batches.len() > 10 && seen.batches.iter().all(|b| b.count == 1), "{:?}", seen.batches);
    assert_eq!(seen.records.len(), log_calls(&dir.join("files")).len());
}

/// Lossless, 1024-byte watermark: each batch is handed over by the record
/// that brings it to 1024 bytes or more, never earlier or later (the last
/// one excepted, delivered at the end).
#[test]
fn a_batch_is_handed_over_by_the_record_that_reaches_the_watermark() {
    let dir = scratch("buffers-1024");
    let (_, seen) =
        run_with_buffer(&dir, &["stress", "2", "300"], &[("BUFFER_SIZE", "100"), ("BUFFER_WATERMARK", "1024")]);
    assert!(seen.line("create").starts_with("create CLTAP_BUFFER_SUCCESS"), "100 bytes round up to a page");
    let mut at = 0;
    let (last, full) = seen.batches.split_last().unwrap();
    for b in full {
        let recs = &seen.records[at..at + b.count];
        let last_len = recs.last().unwrap().header.len as usize;
        assert!(
            b.bytes >= 1024 && b.bytes - last_len < 1024,
            "a batch of {} bytes, its last record {last_len}",
            b.bytes
        );
        at += b.count;
    }
    assert!(last.bytes > 0);
    // A watermark past the rounded size is refused.
    let dir = scratch("buffers-bad");
    let (_, seen) = run_with_buffer(&dir, &["exit", "0"], &[("BUFFER_SIZE", "4096"), ("BUFFER_WATERMARK", "4097")]);
    assert!(seen.line("create").starts_with("create CLTAP_BUFFER_ERROR_INVALID_ARGUMENT"), "{:?}", seen.lines);
}

/// 4 threads x 1500 calls into a 4 KiB buffer whose callback takes 300 µs:
/// every record arrives, none dropped, on cltap's thread, and each thread's
/// records are the trace's and the API log's.
#[test]
fn lossless_with_a_slow_callback_loses_nothing_and_matches_the_trace_and_the_log() {
    let dir = scratch("buffers-lossless");
    let (out, seen) = run_with_buffer(
        &dir,
        &["stress", "4", "1500"],
        &[("BUFFER_SIZE", "4096"), ("BUFFER_WATERMARK", "4096"), ("BUFFER_SLOW_US", "300")],
    );
    assert_eq!(out.stderr, "");
    let files = dir.join("files");
    let trace = trace_records(&files);
    let api: Vec<Rec> = trace.iter().filter(|r| r.is_api()).cloned().collect();
    assert!(api.len() >= 6000, "{}", api.len());
    assert_eq!(seen.dropped(), 0);
    assert_same_per_thread(&seen.records, &api);
    assert!(seen.batches.iter().all(|b| b.thread == "cltap-tools"), "a callback on another thread");
    // The API log's calls, thread by thread, are the records' functions.
    let mut log: std::collections::BTreeMap<u64, Vec<String>> = Default::default();
    for c in log_calls(&files) {
        log.entry(c.tid).or_default().push(c.name.into_owned());
    }
    let mine: std::collections::BTreeMap<u64, Vec<String>> =
        by_thread(&seen.records).into_iter().map(|(t, r)| (t as u64, r.iter().map(Rec::name).collect())).collect();
    assert_eq!(mine, log);
    // All was delivered before OnUnloadTool; flush and destroy then work,
    // and a flush from inside a callback is refused.
    let unload = seen.line("unload");
    assert_eq!(
        unload,
        format!("unload received={n} flush=CLTAP_BUFFER_SUCCESS after_flush={n} flush_in_callback=3", n = api.len())
    );
    assert_eq!(seen.line("destroy"), "destroy CLTAP_BUFFER_SUCCESS again=CLTAP_BUFFER_ERROR_NOT_FOUND");
}

/// Discard, with the watermark at the size: once a record does not fit,
/// records are dropped until the flush at the end; kept plus dropped is
/// every record made, and the kept ones are the trace's.
#[test]
fn discard_counts_its_drops() {
    let dir = scratch("buffers-discard");
    let (_, seen) = run_with_buffer(
        &dir,
        &["stress", "2", "2000"],
        &[("BUFFER_SIZE", "4096"), ("BUFFER_WATERMARK", "4096"), ("BUFFER_POLICY", "discard")],
    );
    let api: Vec<Rec> = trace_records(&dir.join("files")).into_iter().filter(Rec::is_api).collect();
    let (kept, dropped) = (seen.records.len() as u64, seen.dropped());
    assert!(dropped > 0, "nothing dropped");
    assert_eq!(kept + dropped, api.len() as u64);
    for (tid, recs) in by_thread(&seen.records) {
        let all = &by_thread(&api)[&tid];
        let mut it = all.iter();
        assert!(
            recs.iter().all(|r| it.any(|a| a == r)),
            "thread {tid}: a kept record that is not the trace's, or out of order"
        );
    }
}

/// A flush in the middle of a run delivers every call made before it (on
/// the caller's thread) and none made after.
#[test]
fn a_flush_delivers_every_call_made_before_it() {
    let n = 400u64;
    let dir = scratch("buffers-flush");
    let prefix = dir.join("seen");
    let tool = buffer_tool();
    let app = build_c("buffer_app.c", "buffer_app", false, &["-lOpenCL", "-ldl"]);
    let mut c = under_cltap(&app, &[tool.to_str().unwrap(), &n.to_string()], &dir.join("files"));
    c.env("ROCP_TOOL_LIB", &tool).env("BUFFER_OUT", &prefix);
    let out = run(c);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let at_flush: usize = out.stdout.trim().strip_prefix("flushed ").unwrap().parse().unwrap();
    let seen = Seen::read(&prefix);
    let marked = |r: &Rec| (r.name() == "clGetPlatformInfo" && r.args[1] == 0x0902).then_some(r.args[2]);
    let before: Vec<u64> = seen.records[..at_flush].iter().filter_map(marked).collect();
    let after: Vec<u64> = seen.records[at_flush..].iter().filter_map(marked).collect();
    assert_eq!(before, (1..=n).collect::<Vec<_>>());
    assert_eq!(after, (n + 1..=2 * n).collect::<Vec<_>>());
}

/// Without the API log the trace is still written for the tools, and the
/// buffers get every record; without rendering (`CLTAP_RENDER=0`) they get
/// none, cltap says so once, and the tool is still unloaded.
#[test]
fn buffers_need_the_trace_rendered_not_the_api_log() {
    let dir = scratch("buffers-nolog");
    let (out, seen) = run_with_buffer(&dir, &["golden"], &[("CLTAP_API_LOG", "0")]);
    assert_eq!(out.stderr, "");
    let files = dir.join("files");
    assert!(!std::fs::read_dir(&files).unwrap().any(|e| e.unwrap().path().extension().is_some_and(|x| x == "apilog")));
    let api: Vec<Rec> = trace_records(&files).into_iter().filter(Rec::is_api).collect();
    assert!(!api.is_empty());
    assert_same_per_thread(&seen.records, &api);

    let dir = scratch("buffers-norender");
    let (out, seen) = run_with_buffer(&dir, &["golden"], &[("CLTAP_RENDER", "0")]);
    assert_eq!(out.stderr.lines().collect::<Vec<_>>(), ["cltap: cltap_create_buffer: CLTAP_RENDER=0: records reach buffers as they are rendered, and nothing is rendered; buffers will receive no records"]);
    assert!(seen.records.is_empty());
    assert!(seen.line("unload").starts_with("unload received=0 flush=CLTAP_BUFFER_SUCCESS"));
}

/// After `fork`, the parent's buffer gets exactly the parent's records, and
/// the child (whose copy of the buffers has no delivery thread until it
/// makes one) ends without hanging.
#[test]
fn after_fork_the_parents_buffer_gets_the_parents_records() {
    let dir = scratch("buffers-fork");
    let (out, seen) = run_with_buffer(&dir, &["fork"], &[]);
    let child = number_after(&out.stdout, "child ");
    let files = dir.join("files");
    let parent = std::fs::read_dir(&files)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "cltrace") && !p.to_string_lossy().contains(&format!(".{child}.")))
        .unwrap();
    let api: Vec<Rec> = trace_file_records(&parent).into_iter().filter(Rec::is_api).collect();
    assert_same_per_thread(&seen.records, &api);
    let sizes: Vec<u64> = seen.records.iter().filter(|r| r.name() == "clGetPlatformInfo").map(|r| r.args[2]).collect();
    assert_eq!(sizes, (1000..1010).chain(3000..3030).collect::<Vec<_>>());
}

// ---- HSA: on Debian's real ROCr over the emulated gfx906 (gpu-emu) ----

/// Dispatch records (`ROCP_HSA_INTERCEPT=1`) reach a buffer that takes
/// them, as the trace holds them, and API records do not.
#[test]
fn dispatch_records_on_the_real_rocr() {
    const DISPATCHES: u64 = 3;
    let dir = scratch("buffers-hsa");
    let prefix = dir.join("seen");
    let mut c = hsa_client(&dir, DISPATCHES);
    c.env("HSA_TOOLS_LIB", layer()).env("CLTAP_OUTPUT_DIR", dir.join("files")).env("ROCP_HSA_INTERCEPT", "1");
    c.env("ROCP_TOOL_LIB", buffer_tool()).env("BUFFER_OUT", &prefix).env("BUFFER_KINDS", "2");
    let out = run(c);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let seen = Seen::read(&prefix);
    let trace: Vec<Rec> = trace_records(&dir.join("files"))
        .into_iter()
        .filter(|r| !r.is_api() && cltap::tools::buffer_feed::class_of(r.header.kind) == 2)
        .collect();
    let dispatches =
        seen.records.iter().filter(|r| r.header.kind == cltap::trace::record::KIND_HSA_DISPATCH).count() as u64;
    assert_eq!(dispatches, DISPATCHES);
    // The emulated GPU's own log: as many add_one dispatches ran.
    let ran = emu::emu_packets(&out.stderr).iter().filter(|p| p.kernel == "add_one").count() as u64;
    assert_eq!(ran, DISPATCHES, "{}", out.stderr);
    assert!(seen.records.iter().all(|r| !r.is_api()));
    assert_same_per_thread(&seen.records, &trace);
}

/// docs/examples/buffer_example.c, the "Writing a tool" example: built as
/// the docs say, run on `calls golden`, its line counts every call of the
/// API log and the failed ones, and the program's output is unchanged.
#[test]
fn the_documented_example_tool_builds_and_runs() {
    let so = build_c("docs/examples/buffer_example.c", "buffer_example.so", true, &["-O2"]);
    let base = run(plain(&calls(), &["golden"]));
    let dir = scratch("buffers-example");
    let mut c = under_cltap(&calls(), &["golden"], &dir);
    c.env("ROCP_TOOL_LIB", &so);
    let out = run(c);
    assert_eq!((out.code, &out.stdout), (base.code, &base.stdout));
    let trace: Vec<Rec> = trace_records(&dir).into_iter().filter(Rec::is_api).collect();
    let failed = trace.iter().filter(|r| r.header.flags & cltap::trace::record::FLAG_OK == 0).count();
    assert!(failed >= 2, "calls golden makes failing calls");
    let calls = log_calls(&dir).len();
    let line =
        out.stderr.lines().find(|l| l.starts_with("buffer_example: ")).unwrap_or_else(|| panic!("{}", out.stderr));
    assert!(
        line.starts_with(&format!("buffer_example: {calls} calls, {failed} failed, 0 dropped; most frequent: ")),
        "{line}"
    );
    // docs/tools.md's "Writing a tool" shows the example as it is.
    let source = std::fs::read_to_string(root().join("docs/examples/buffer_example.c")).unwrap();
    let text = std::fs::read_to_string(root().join("docs/tools.md")).unwrap();
    assert!(
        text.contains(&format!("```c\n{source}```")),
        "docs/tools.md no longer shows docs/examples/buffer_example.c as it is"
    );
}
