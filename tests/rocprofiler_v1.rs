//! rocprofiler v1's library API from libcltap_layer.so, on Debian's real
//! ROCr over the emulated gfx906 (`gpu-emu/`).
//!
//! - The layout of `include/rocprofiler/rocprofiler.h` (ROCm 5.x's v1 ABI)
//!   as gcc compiles it equals cltap's Rust copy, field by field.
//! - A v1 tool (`tests/tools/rocp_tool.c`, built against that header and
//!   loaded with `ROCP_TOOL_LIB`) registers a dispatch callback, opens a
//!   context for `SQ_WAVES` and `GPUBusy` per dispatch of
//!   `tests/hsa/programs.c sizes`, and writes each dispatch's values from
//!   its completion handler: they must equal the values computed here by
//!   hand from gpu-emu's counter model (docs/gpu-emu.md#aqlprofile).
//! - The error paths the tool walks: a call before the runtime loaded
//!   cltap, an unknown metric (info and open), a trace feature, standalone
//!   mode and standalone sampling (`HSA_STATUS_ERROR`, `rocprofiler_errno`
//!   and the message), a closed context.

mod common;

use common::rocp::{gcc, line, words};

use cltap::metrics::{Block, Catalog, StaticBlocks};
use common::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn tool() -> &'static Path {
    static T: OnceLock<PathBuf> = OnceLock::new();
    T.get_or_init(|| gcc("rocp_tool.c", "rocp_tool.so", &["-shared", "-fPIC"]))
}

#[test]
fn the_headers_layout_in_gcc_is_cltaps_rust_layout() {
    let exe = gcc("rocp_layout.c", "rocp_layout", &[]);
    let out = run(Command::new(exe));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let mut c: Vec<(String, usize)> = out
        .stdout
        .lines()
        .map(|l| {
            let (n, v) = l.rsplit_once(' ').unwrap();
            (n.to_string(), v.parse().unwrap())
        })
        .collect();
    let mut rust = cltap::tools::rocprofiler::abi::layout();
    c.sort();
    rust.sort();
    assert_eq!(c, rust);
    // The sizes of ROCm 5.2.3's inc/rocprofiler.h on x86-64.
    let size = |n: &str| c.iter().find(|(x, _)| x == n).unwrap().1;
    let sizes = [
        ("rocprofiler_feature_t", 72),
        ("rocprofiler_data_t", 32),
        ("rocprofiler_callback_data_t", 96),
        ("rocprofiler_properties_t", 32),
        ("rocprofiler_info_data_t", 56),
        ("rocprofiler_queue_callbacks_t", 24),
        ("rocprofiler_group_t", 32),
        ("rocprofiler_settings_t", 56),
    ];
    for (n, s) in sizes {
        assert_eq!(size(n), s, "sizeof({n})");
    }
    assert_eq!(size("rocprofiler_feature_t.data"), 40);
    assert_eq!(size("rocprofiler_callback_data_t.record"), 88);
}

/// The lines of one kind (`dispatch=`, `callback=`, `closed=`), by their number.
fn numbered(lines: &[String], key: &str) -> Vec<HashMap<String, String>> {
    let mut v: Vec<HashMap<String, String>> =
        lines.iter().filter(|l| l.starts_with(&format!("{key}="))).map(|l| words(l)).collect();
    v.sort_by_key(|w| w[key].parse::<u32>().unwrap());
    v
}

/// A failure line's status, errno and message.
fn failure(lines: &[String], key: &str) -> (String, String, String) {
    let w = line(lines, key);
    (w["status"].clone(), w["errno"].clone(), w["msg"].clone())
}

/// The emulated gfx906's blocks (docs/gpu-emu.md#aqlprofile).
fn emulated_blocks() -> StaticBlocks {
    use Block::*;
    StaticBlocks::new(&[
        (CPC, 1, 2),
        (CPF, 1, 2),
        (GRBM, 1, 2),
        (SPI, 1, 4),
        (SQ, 1, 8),
        (TA, 16, 2),
        (TCA, 2, 4),
        (TCC, 16, 4),
        (TCP, 16, 4),
        (TD, 16, 2),
    ])
}

fn sizes_with_tool(dir: &Path, intercept: &str) -> (Outcome, Vec<String>) {
    sizes_with_tool_env(dir, intercept, &[])
}

fn sizes_with_tool_env(dir: &Path, intercept: &str, env: &[(&str, &str)]) -> (Outcome, Vec<String>) {
    let out = dir.join("tool.txt");
    let mut c = on_hsa(hsa_programs(), dir);
    c.arg("sizes").arg(hsa_kernels());
    c.env("HSA_TOOLS_LIB", layer())
        .env("ROCP_TOOL_LIB", tool())
        .env("ROCP_HSA_INTERCEPT", intercept)
        .env("ROCP_TOOL_OUT", &out)
        .env("CLTAP_OUTPUT_DIR", dir);
    for (k, v) in env {
        c.env(k, v);
    }
    let o = run(c);
    let lines = std::fs::read_to_string(&out).unwrap_or_default().lines().map(str::to_string).collect();
    (o, lines)
}

/// Each dispatch of `programs sizes` gets, in the tool's handler, SQ_WAVES
/// (INT64) and GPUBusy (DOUBLE) at the model's values; with
/// `ROCP_HSA_INTERCEPT=2` also a dispatch record.
#[test]
fn a_v1_tool_gets_each_dispatchs_values_computed_by_hand() {
    let plain_dir = scratch("rocp-plain");
    let mut p = on_hsa(hsa_programs(), &plain_dir);
    p.arg("sizes").arg(hsa_kernels());
    let plain = run(p);
    assert_eq!(plain.code, Some(0), "{}\n{}", plain.stdout, plain.stderr);

    // "": no ROCP_HSA_INTERCEPT at all: registering a dispatch callback
    // from OnLoadTool turns interception on by itself.
    for intercept in ["", "1", "2"] {
        let dir = scratch("rocp-tool");
        let (o, lines) = sizes_with_tool(&dir, intercept);
        let all = lines.join("\n");
        assert_eq!(o.code, Some(0), "{}\n{}\n{all}", o.stdout, o.stderr);
        assert_eq!(o.stdout, plain.stdout, "the program printed something else under cltap and the tool");
        assert_eq!(o.stderr, "", "nothing on stderr");

        assert_eq!(line(&lines, "load")["version"], "8.0");
        assert_eq!(line(&lines, "load")["header"], "8.0");
        assert_eq!(line(&lines, "registered")["status"], "0");

        let callbacks = numbered(&lines, "callback");
        let handled = numbered(&lines, "dispatch");
        let closed = numbered(&lines, "closed");
        assert_eq!((callbacks.len(), handled.len(), closed.len()), (SHAPES.len(), SHAPES.len(), SHAPES.len()), "{all}");
        for (i, ((cb, h), (grid, wg, _))) in callbacks.iter().zip(&handled).zip(SHAPES).enumerate() {
            assert_eq!((cb["groups"].as_str(), cb["packet_kernel_object_matches"].as_str()), ("1", "1"), "{cb:?}");
            let m = Model::of(grid, wg);
            let gui = m.grbm_count.saturating_sub(100);
            let busy = 100.0 * gui as f64 / m.grbm_count as f64;
            assert_eq!(h["dispatch"], i.to_string());
            assert!(h["kernel"].starts_with("add_one"), "{h:?}");
            assert_eq!(h["queue_index"], i.to_string(), "one slot per dispatch");
            assert_eq!((h["waves_kind"].as_str(), h["busy_kind"].as_str()), ("2", "4"), "INT64 and DOUBLE: {h:?}");
            assert_eq!(
                h["waves"].parse::<u64>().unwrap(),
                m.w,
                "dispatch {i} ({grid:?}/{wg:?}): SQ_WAVES, by hand {}",
                m.w
            );
            let got: f64 = h["busy"].parse().unwrap();
            assert!((got - busy).abs() <= 1e-9, "dispatch {i} ({grid:?}/{wg:?}): GPUBusy {got}, by hand {busy}");
            assert_eq!(h["group_features"], "1", "the group lists the tool's two features");
            let timed = if intercept == "2" { "1" } else { "0" };
            assert_eq!(
                (h["record"].as_str(), h["times"].as_str()),
                (timed, timed),
                "a dispatch record with timestamps only: {h:?}"
            );
        }
        for c in &closed {
            assert_eq!(
                (c["close"].as_str(), c["after"].as_str()),
                ("0", "0x1001"),
                "a closed handle is refused: {c:?}"
            );
        }
        let u = line(&lines, "unload");
        assert_eq!((u["dispatches"].as_str(), u["handled"].as_str()), ("8", "8"));
    }
}

/// The info API and the errors the tool met (in its first dispatch
/// callback, and before the runtime had loaded cltap).
#[test]
fn info_and_the_documented_errors() {
    let dir = scratch("rocp-errors");
    let (o, lines) = sizes_with_tool(&dir, "1");
    let all = lines.join("\n");
    assert_eq!(o.code, Some(0), "{}\n{all}", o.stderr);

    let (st, errno, msg) = failure(&lines, "early");
    assert_eq!((st.as_str(), errno.as_str()), ("0x100b", "0x100b"), "HSA_STATUS_ERROR_NOT_INITIALIZED");
    assert!(msg.starts_with("rocprofiler_get_info(), the HSA runtime has not loaded cltap yet"), "{msg}");

    let cat = Catalog::load(None, "gfx906", &emulated_blocks()).unwrap();
    let m = line(&lines, "metrics");
    assert_eq!(m["metrics"], cat.iter().count().to_string());
    assert_eq!((m["status"].as_str(), m["walk_status"].as_str(), m["traces"].as_str()), ("0", "0", "0"));
    assert_eq!(m["walked"], m["metrics"]);
    let info = |n: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(&format!("info={n} ")))
            .map(|l| words(l))
            .unwrap_or_else(|| panic!("no info for {n}:\n{all}"))
    };
    let w = info("SQ_WAVES");
    assert_eq!(
        [&w["agent_index"], &w["block"], &w["instances"], &w["counters"], &w["expr"]],
        ["0", "SQ", "1", "8", "NULL"]
    );
    let t = info("TCC_HIT");
    assert_eq!([&t["block"], &t["instances"], &t["counters"]], ["TCC", "16", "4"]);
    let b = info("GPUBusy");
    assert_eq!([&b["block"], &b["instances"], &b["expr"]], ["NULL", "1", "100*GRBM_GUI_ACTIVE/GRBM_COUNT"]);
    // As 5.2.3: get_info answers the counts only, a NULL agent is
    // HSA_STATUS_ERROR, and query_info is not implemented.
    for (key, function, why) in [
        ("metric_info", "rocprofiler_get_info", "unknown info kind (0)"),
        ("null_agent_info", "rocprofiler_get_info", "NULL agent"),
        ("query_info", "rocprofiler_query_info", "not implemented in rocprofiler 5.2.3"),
    ] {
        let (st, errno, msg) = failure(&lines, key);
        assert_eq!((st.as_str(), errno.as_str()), ("0x1000", "0x1000"), "{key}");
        assert!(msg.starts_with(&format!("{function}(), {why}")), "{key}: {msg}");
    }
    let (st, _, msg) = failure(&lines, "unknown_open");
    assert_eq!(st, "0x1000");
    assert!(msg.starts_with("rocprofiler_open(), unknown metric 'SQ_WAVEZ'"), "{msg}");
    let (st, _, msg) = failure(&lines, "trace_open");
    assert_eq!(st, "0x1000");
    assert!(msg.contains("feature 'SQ_INSTS_VALU' is a trace"), "{msg}");
    let (st, _, msg) = failure(&lines, "standalone_open");
    assert_eq!(st, "0x1000");
    assert!(msg.contains("standalone profiling (ROCPROFILER_MODE_STANDALONE, CREATEQUEUE) is not supported"), "{msg}");

    assert_eq!(line(&lines, "open")["status"], "0");
    for (key, function) in [("start", "rocprofiler_start"), ("group_read", "rocprofiler_group_read")] {
        let (st, errno, msg) = failure(&lines, key);
        assert_eq!((st.as_str(), errno.as_str()), ("0x1000", "0x1000"), "{key}");
        assert!(
            msg.starts_with(&format!("{function}(), standalone sampling (start, stop, read) is not supported")),
            "{msg}"
        );
    }
    let (st, _, msg) = failure(&lines, "get_data");
    assert_eq!(st, "0x1000");
    assert!(msg.starts_with("rocprofiler_get_data(), group 0 has no data"), "{msg}");
    let (st, errno, _) = failure(&lines, "bad_group");
    assert_eq!((st.as_str(), errno.as_str()), ("0x1000", "0x1000"), "HSA_STATUS_ERROR, as 5.2.3");
    let (st, _, msg) = failure(&lines, "singlegroup_open");
    assert_eq!(st, "0x1000");
    assert!(msg.starts_with("rocprofiler_open(), invalid mode (0x4)"), "{msg}");
    let (st, _, msg) = failure(&lines, "over_limit_open");
    assert_eq!(st, "0x1000");
    assert!(msg.starts_with("rocprofiler_open(), the features need 2 groups"), "{msg}");
    assert_eq!(line(&lines, "uninit")["kind"], "0", "no data was made up");
    assert_eq!(line(&lines, "close")["status"], "0");
    let (st, _, msg) = failure(&lines, "close_again");
    assert_eq!(st, "0x1001");
    assert!(msg.contains("is not an open profiling context"), "{msg}");
}

/// `ROCP_METRICS` (read with cltap's configuration) is the catalog the v1
/// API plans and evaluates with: here GPUBusy is redefined.
#[test]
fn rocp_metrics_is_the_catalog_of_the_v1_api() {
    let dir = scratch("rocp-metrics");
    let file = dir.join("m.xml");
    std::fs::write(
        &file,
        "<gfx9>\n\
         <metric name=\"SQ_WAVES\" block=SQ event=4 descr=\"waves\"></metric>\n\
         <metric name=\"GRBM_COUNT\" block=GRBM event=0 descr=\"clocks\"></metric>\n\
         <metric name=\"GRBM_GUI_ACTIVE\" block=GRBM event=2 descr=\"busy clocks\"></metric>\n\
         </gfx9>\n\
         <global>\n\
         <metric name=\"GPUBusy\" expr=GRBM_GUI_ACTIVE*2/GRBM_COUNT descr=\"twice the busy share\"></metric>\n\
         </global>\n",
    )
    .unwrap();
    let (o, lines) = sizes_with_tool_env(&dir, "1", &[("ROCP_METRICS", file.to_str().unwrap())]);
    let all = lines.join("\n");
    assert_eq!((o.code, o.stderr.as_str()), (Some(0), ""), "{all}");
    assert_eq!(line(&lines, "metrics")["metrics"], "4");
    let handled = numbered(&lines, "dispatch");
    assert_eq!(handled.len(), SHAPES.len(), "{all}");
    for (h, (grid, wg, _)) in handled.iter().zip(SHAPES) {
        let m = Model::of(grid, wg);
        let want = (m.grbm_count.saturating_sub(100) * 2) as f64 / m.grbm_count as f64;
        let got: f64 = h["busy"].parse().unwrap();
        assert!((got - want).abs() <= 1e-12, "{grid:?}/{wg:?}: GPUBusy {got}, by hand {want}");
        assert_eq!(h["waves"].parse::<u64>().unwrap(), m.w);
    }
}

/// A runtime without AQLprofile: every open fails with its reason, no
/// dispatch is counted or handled, and the application runs as without
/// cltap.
#[test]
fn without_aqlprofile_open_says_why_and_the_application_runs_on() {
    let plain_dir = scratch("rocp-noaql-plain");
    let mut p = on_hsa(hsa_programs(), &plain_dir);
    p.arg("sizes").arg(hsa_kernels());
    let plain = run(p);
    let dir = scratch("rocp-noaql");
    let (o, lines) = sizes_with_tool_env(&dir, "1", &[("GPU_EMU_AQLPROFILE", "0")]);
    let all = lines.join("\n");
    assert_eq!((o.code, &o.stdout), (Some(0), &plain.stdout), "{all}");
    let fails: Vec<&String> = lines.iter().filter(|l| l.starts_with("dispatch_open ")).collect();
    assert_eq!(fails.len(), SHAPES.len(), "{all}");
    for f in fails {
        let w = words(f);
        assert_eq!(w["status"], "0x1000");
        assert!(
            w["msg"].starts_with(
                "rocprofiler_open(), hardware counters are not available: the HSA runtime has no AQLprofile extension"
            ),
            "{f}"
        );
    }
    assert!(numbered(&lines, "dispatch").is_empty());
    let u = line(&lines, "unload");
    assert_eq!((u["dispatches"].as_str(), u["handled"].as_str()), ("8", "0"));
}

/// One context's group returned for every dispatch, and its handler reading
/// the data while later dispatches of that group still count: each handler
/// gets its values at once (no wait on the runtime's signal thread, which
/// would hang the application).
#[test]
fn a_group_reused_by_several_dispatches_does_not_hang_the_handler() {
    static T: OnceLock<PathBuf> = OnceLock::new();
    let so = T.get_or_init(|| gcc("rocp_reuse_tool.c", "rocp_reuse_tool.so", &["-shared", "-fPIC"]));
    let dir = scratch("rocp-reuse");
    let mut c = on_hsa(hsa_programs(), &dir);
    c.arg("shared").arg(hsa_kernels());
    c.env("HSA_TOOLS_LIB", layer()).env("ROCP_TOOL_LIB", so).env("CLTAP_OUTPUT_DIR", &*dir);
    let o = run(c);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let lines: Vec<&str> = o.stderr.lines().filter(|l| l.starts_with("reuse: handler ")).collect();
    assert_eq!(lines.len(), 10, "{}", o.stderr);
    assert!(lines.iter().all(|l| l.ends_with("get_data=0 waves=1")), "{}", o.stderr);
}

/// A tool whose dispatch callback takes a lock and aborts, and whose
/// `OnUnloadTool` takes the same lock: the application ends with SIGABRT
/// at once (cltap runs no tool code and renders nothing in a signal
/// handler), `OnUnloadTool` never runs, and `cltap render` renders the
/// trace the process left. The 60 s `timeout` of the harness is only a
/// bound: a hang reads as its exit status 124, not as SIGABRT.
#[test]
fn a_tool_that_aborts_holding_its_unload_lock_ends_the_application_with_sigabrt() {
    static T: OnceLock<PathBuf> = OnceLock::new();
    let so = T.get_or_init(|| gcc("rocp_abort_tool.c", "rocp_abort_tool.so", &["-shared", "-fPIC"]));
    for intercept in ["1", "2"] {
        let dir = scratch("rocp-abort");
        let notes = dir.join("notes.txt");
        let mut c = on_hsa(hsa_programs(), &dir);
        c.arg("sizes").arg(hsa_kernels());
        c.env("HSA_TOOLS_LIB", layer())
            .env("ROCP_TOOL_LIB", so)
            .env("ROCP_HSA_INTERCEPT", intercept)
            .env("ROCP_ABORT_TOOL_OUT", &notes)
            .env("CLTAP_OUTPUT_DIR", &*dir);
        let o = run(c);
        // `timeout` ends itself with the signal that ended its child (a
        // hang would read as its own status 124).
        assert_eq!(o.code, None, "killed by a signal, not exited: {}\n{}", o.stdout, o.stderr);
        assert_eq!(o.signal, Some(libc::SIGABRT), "{}\n{}", o.stdout, o.stderr);
        let text = std::fs::read_to_string(&notes).unwrap_or_default();
        assert_eq!(text, "callback\n", "OnUnloadTool must not run from a signal handler");
        let log = std::fs::read_to_string(only_file(&render_left_trace(&dir), ".apilog")).unwrap();
        assert!(log.contains("hsa_queue_create"), "the trace the process left renders: {log}");
    }
}
