//! `ROCP_TOOL_LIB`: tool libraries loaded at start-up, on PoCL (OpenCL's
//! initialisation) and on Debian's real ROCr over the emulated gfx906
//! (`OnLoad`). `OnLoadToolProp` gets
//! rocprofiler v1's `rocprofiler_settings_t` (its layout held to gcc's),
//! `OnLoadTool` is called when that is missing, several tools load in order
//! and unload in reverse, before cltap finishes its files; a library that
//! cannot be used gets one line and the application runs on unchanged.

mod common;
#[path = "tools/toollib_harness.rs"]
mod harness;

use common::*;
use harness::*;
use std::path::{Path, PathBuf};

fn prop_tool(name: &str) -> PathBuf {
    tool("toollib_tool.c", &format!("toollib_prop_{name}.so"), &["-DWITH_PROP", &format!("-DTOOL_NAME=\"{name}\"")])
}

fn plain_tool(name: &str) -> PathBuf {
    tool("toollib_tool.c", &format!("toollib_plain_{name}.so"), &[&format!("-DTOOL_NAME=\"{name}\"")])
}

/// The tools' lines (`TOOLLIB_OUT`).
fn tool_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap_or_default().lines().map(str::to_string).collect()
}

/// `key=value` of a tool's line.
fn value<'a>(line: &'a str, key: &str) -> &'a str {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
        .unwrap_or_else(|| panic!("no {key} in {line:?}"))
}

#[test]
fn the_settings_structure_has_rocprofilers_layout_in_gcc_and_in_rust() {
    let exe = build_c("toollib_layout.c", "toollib_layout", false, &[]);
    let out = run(std::process::Command::new(exe));
    assert_eq!(out.code, Some(0));
    let gcc: Vec<(String, usize)> = out
        .stdout
        .lines()
        .map(|l| {
            let (n, o) = l.split_once(' ').unwrap();
            (n.to_string(), o.parse().unwrap())
        })
        .collect();
    let rust: Vec<(String, usize)> = cltap::tools::toollib_settings::RocprofilerSettings::layout()
        .into_iter()
        .map(|(n, o)| (n.to_string(), o))
        .collect();
    assert_eq!(gcc, rust);
    // rocprofiler v1's header (ROCm 5.x): 5 x u32, u64 at 24, 5 x u32; 56 bytes.
    assert_eq!(gcc.iter().find(|(n, _)| n == "timeout").unwrap().1, 24);
    assert_eq!(gcc.last().unwrap(), &("sizeof".to_string(), 56));
}

/// A prop tool, a plain one and another prop tool: loaded once each, in
/// order, with the settings cltap offers; unloaded in reverse, while the
/// API log has no trailer and the trace is not marked finished; the
/// application's output unchanged.
#[test]
fn tools_load_in_order_and_unload_in_reverse_before_cltaps_files_are_finished() {
    let (a, b, c) = (prop_tool("a"), plain_tool("b"), prop_tool("c"));
    let prog = calls();
    let base = run(plain(&prog, &["golden"]));
    assert_eq!(base.code, Some(0), "{}", base.stderr);

    for mode in [Mode::Layer, Mode::Icd] {
        in_order_then_reverse(mode, &prog, &base, [&a, &b, &c]);
    }
}

fn in_order_then_reverse(mode: Mode, prog: &Path, base: &Outcome, [a, b, c]: [&Path; 3]) {
    let out = scratch("toollib-order");
    let lines_at = out.join("tools.txt");
    let files = out.join("files");
    let mut cmd = under_cltap_as(mode, prog, &["golden"], &files);
    cmd.env("ROCP_TOOL_LIB", tool_lib(&[a, b, c])).env("TOOLLIB_OUT", &lines_at);
    let with = run(cmd);
    assert_eq!((with.code, &with.stdout), (base.code, &base.stdout), "{mode:?}");
    assert_eq!(with.stderr, "", "cltap and the tools say nothing on stderr ({mode:?})");

    let lines = tool_lines(&lines_at);
    let events: Vec<String> =
        lines.iter().map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" ")).collect();
    assert_eq!(
        events,
        [
            "load a prop",
            "load b plain",
            "load c prop",
            "unload c trace_finished=0",
            "unload b trace_finished=0",
            "unload a trace_finished=0"
        ],
        "{mode:?}: {lines:#?}"
    );
    let calls = log_calls(&files).len();
    for l in lines.iter().filter(|l| l.starts_with("unload")) {
        assert_eq!(value(l, "log_trailer"), "0", "{l}: OnUnloadTool after the API log was finished");
        // Every call was rendered (and flushed to the file) before.
        assert_eq!(value(l, "log_calls"), calls.to_string(), "{l}");
    }
    // The files are finished afterwards: the checks above could fail.
    let trace = std::fs::read(only_file(&files, ".cltrace")).unwrap();
    assert_eq!(u32::from_le_bytes(trace[28..32].try_into().unwrap()) & 1, 1, "the trace is marked finished at the end");

    // What rocprofiler 5.2.3 offers (its LoadTool), here without
    // ROCP_HSA_INTERCEPT=2: no timestamps.
    let a_line = &lines[0];
    for (k, v) in [
        ("intercept_mode", "1"),
        ("code_obj_tracking", "1"),
        ("memcopy_tracking", "0"),
        ("trace_size", "33554432"),
        ("trace_local", "1"),
        ("timeout", "18446744073709551615"),
        ("timestamp_on", "0"),
        ("hsa_intercepting", "0"),
        ("k_concurrent", "0"),
        ("opt_mode", "0"),
        ("obj_dumping", "0"),
    ] {
        assert_eq!(value(a_line, k), v, "{k} in {a_line}");
    }
}

/// Each kind of failure: one line naming ROCP_TOOL_LIB, the library and
/// why; the application's output and exit status as without cltap.
#[test]
fn a_library_that_cannot_be_used_gets_one_line_and_the_application_runs_on() {
    let none = tool("toollib_none.c", "toollib_none.so", &[]);
    let out = scratch("toollib-fail");
    let not_elf = out.join("not-elf.so");
    std::fs::write(&not_elf, "this is text, not a shared object\n").unwrap();
    let missing = PathBuf::from("/nonexistent/cltap-tool.so");
    let prog = calls();
    let base = run(plain(&prog, &["exit", "7"]));
    assert_eq!(base.code, Some(7));

    for (lib, why) in [
        (&none, "exports neither OnLoadToolProp nor OnLoadTool"),
        (&not_elf, "cannot be loaded ("),
        (&missing, "no such file"),
    ] {
        let files = out.join(format!("files-{}", lib.file_name().unwrap().to_string_lossy()));
        let mut cmd = under_cltap(&prog, &["exit", "7"], &files);
        cmd.env("ROCP_TOOL_LIB", lib);
        let with = run(cmd);
        assert_eq!((with.code, &with.stdout), (base.code, &base.stdout), "{}", lib.display());
        let lines: Vec<&str> = with.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "one line for {}: {:?}", lib.display(), with.stderr);
        let want = format!("cltap: ROCP_TOOL_LIB: {}: {why}", lib.display());
        assert!(lines[0].starts_with(&want), "{:?} does not start with {want:?}", lines[0]);
        assert!(lines[0].ends_with("the application runs on without it"), "{}", lines[0]);
        // cltap itself goes on recording.
        assert!(!log_calls(&files).is_empty());
    }

    // Among good tools: the good ones still load and unload.
    let good = prop_tool("g");
    let lines_at = out.join("tools.txt");
    let files = out.join("files-mixed");
    let mut cmd = under_cltap(&prog, &["exit", "7"], &files);
    cmd.env("ROCP_TOOL_LIB", tool_lib(&[&missing, &good, &none, &not_elf])).env("TOOLLIB_OUT", &lines_at);
    let with = run(cmd);
    assert_eq!((with.code, &with.stdout), (base.code, &base.stdout));
    assert_eq!(with.stderr.lines().count(), 3, "{}", with.stderr);
    assert!(other_lines(&with.stderr).is_empty(), "{}", with.stderr);
    let events: Vec<String> =
        tool_lines(&lines_at).iter().map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" ")).collect();
    assert_eq!(events, ["load g", "unload g"]);
}

/// A bad cltap setting makes cltap a pure pass-through: no tool is loaded.
#[test]
fn a_pass_through_loads_no_tool() {
    let a = prop_tool("a");
    let out = scratch("toollib-passthrough");
    let lines_at = out.join("tools.txt");
    let mut cmd = under_cltap(&calls(), &["exit", "0"], &out.join("files"));
    cmd.env("ROCP_TOOL_LIB", &a).env("TOOLLIB_OUT", &lines_at).env("CLTAP_SUMMARY", "maybe");
    let with = run(cmd);
    assert_eq!(with.code, Some(0));
    assert_eq!(with.stderr.lines().count(), 1, "{}", with.stderr);
    assert!(with.stderr.contains("CLTAP_SUMMARY"), "{}", with.stderr);
    assert!(tool_lines(&lines_at).is_empty());
}

// ---- HSA: on Debian's real ROCr over the emulated gfx906 (gpu-emu) ----

const DISPATCHES: u64 = 4;

fn dispatch_lines(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(only_file(dir, ".apilog")).unwrap();
    text.lines().filter(|l| l.starts_with("# dispatch ")).map(str::to_string).collect()
}

/// `OnLoad` loads the tools; one that turns `timestamp_on` on in its
/// settings gets dispatch records with their times, as
/// `ROCP_HSA_INTERCEPT=2` would; one that leaves the settings as offered
/// (`intercept_mode` 1, as rocprofiler 5.2.3 offers it) asks for nothing;
/// the client's output is unchanged.
#[test]
fn on_the_real_rocr_onload_loads_the_tools_and_a_tool_can_ask_for_interception() {
    let a = prop_tool("a");
    let plain_dir = scratch("toollib-hsa-plain");
    let base = run(hsa_client(&plain_dir, DISPATCHES));
    assert_eq!(base.code, Some(0), "{}", base.stderr);

    for ask in [false, true] {
        let dir = scratch("toollib-hsa");
        let lines_at = dir.join("tools.txt");
        let mut c = hsa_client(&dir, DISPATCHES);
        c.env("HSA_TOOLS_LIB", layer())
            .env("CLTAP_OUTPUT_DIR", &*dir)
            .env("ROCP_TOOL_LIB", &a)
            .env("TOOLLIB_OUT", &lines_at);
        if ask {
            c.env("TOOLLIB_INTERCEPT", "1");
        }
        let with = run(c);
        assert_eq!(with.code, Some(0), "{}", with.stderr);
        assert_eq!(with.stdout, base.stdout);
        // The emulated GPU ran every dispatch, asked for or not (its own log).
        let ran = emu::emu_packets(&with.stderr).iter().filter(|p| p.kernel == "add_one").count() as u64;
        assert_eq!(ran, DISPATCHES, "{}", with.stderr);
        let lines = tool_lines(&lines_at);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].starts_with("load a prop intercept_mode=1 "), "{}", lines[0]);
        assert_eq!(value(&lines[1], "trace_finished"), "0");
        assert_eq!(value(&lines[1], "log_trailer"), "0");
        let d = dispatch_lines(&dir);
        if ask {
            assert_eq!(d.len() as u64, DISPATCHES, "{d:?}");
            assert!(
                d.iter()
                    .all(|l| number_after(l, " begin ") > 0 && number_after(l, " end ") >= number_after(l, " begin ")),
                "{d:?}"
            );
        } else {
            assert!(d.is_empty(), "{d:?}");
        }
    }

    // With ROCP_HSA_INTERCEPT=2, the offer says so.
    let dir = scratch("toollib-hsa-offer");
    let lines_at = dir.join("tools.txt");
    let mut c = hsa_client(&dir, DISPATCHES);
    c.env("HSA_TOOLS_LIB", layer())
        .env("CLTAP_OUTPUT_DIR", &*dir)
        .env("ROCP_TOOL_LIB", &a)
        .env("TOOLLIB_OUT", &lines_at)
        .env("ROCP_HSA_INTERCEPT", "2");
    assert_eq!(run(c).code, Some(0));
    let lines = tool_lines(&lines_at);
    assert_eq!((value(&lines[0], "intercept_mode"), value(&lines[0], "timestamp_on")), ("1", "1"));
}

/// OpenCL over HSA in one process (AMD's OpenCL runtime over Debian's real ROCr on gpu-emu), cltap
/// both the OpenCL layer and the HSA tool: the tools load once, at OpenCL's initialisation, which
/// comes first (the runtime initialises HSA inside the first OpenCL call), and what the tool asked
/// for there holds when ROCr loads cltap later: every dispatch of the program's queues is
/// recorded, its 17 NDRanges' and ROCclr's blits' alike.
#[test]
fn with_opencl_over_hsa_the_tools_load_once_whichever_api_starts_first() {
    let a = prop_tool("a");
    let dir = scratch("toollib-ocl-hsa");
    let lines_at = dir.join("tools.txt");
    let mut c = common::amdocl::on_amd(ndranges_program(), &[], Mode::Layer, &dir);
    c.env("HSA_TOOLS_LIB", layer()).env("GPU_EMU_LOG", "1");
    c.env("ROCP_TOOL_LIB", &a).env("TOOLLIB_OUT", &lines_at).env("TOOLLIB_INTERCEPT", "1");
    let out = run(c);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.ends_with("done\n"), "{}", out.stdout);
    let lines = tool_lines(&lines_at);
    let events: Vec<String> =
        lines.iter().map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" ")).collect();
    assert_eq!(events, ["load a", "unload a"], "{lines:#?}");
    let log = std::fs::read_to_string(only_file(&dir, ".apilog")).unwrap();
    assert!(
        log.lines().any(|l| l.contains(" clGetPlatformIDs(")) && log.lines().any(|l| l.contains(" hsa_queue_create(")),
        "both APIs in the log"
    );
    // The emulator's witness: the dispatches of the application's queues (ROCr's own blits run on
    // internal queues that no tool sees).
    let ran = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("gpu-emu: queue ") && l.contains(": dispatch ") && !l.contains("ROCr blit"))
        .count();
    assert_eq!(ran, 17 + 4, "17 NDRanges and ROCclr's 2 fills and 2 copies:\n{}", out.stderr);
    assert_eq!(dispatch_lines(&dir).len(), ran, "a dispatch record per dispatch");
}
