//! The rest of rocprofiler 5.2.3's interface from libcltap_layer.so, on
//! Debian's real ROCr over the emulated gfx906 (`gpu-emu/`), with
//! `tests/tools/rocp_iface_tool.c`: context pools, the HSA callbacks,
//! `kernel_code` and the callback data of `opt_mode`, `get_time`, the
//! functions 5.2.3 only declares, and cltap's own `ROCP_INPUT` request
//! counted around the same dispatches as a tool's (results.csv's columns
//! by rocprof's rules).

mod common;

use common::rocp::{all, gcc, line};
use common::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn iface_tool() -> &'static Path {
    static T: OnceLock<PathBuf> = OnceLock::new();
    T.get_or_init(|| gcc("rocp_iface_tool.c", "rocp_iface_tool.so", &["-shared", "-fPIC"]))
}

/// `programs WHAT` under cltap with `tests/tools/rocp_iface_tool.c`; the
/// tool's lines and cltap's results.csv (when counters were asked for).
fn with_iface_tool(dir: &Path, what: &str, env: &[(&str, &str)]) -> (Outcome, Vec<String>) {
    let out = dir.join("tool.txt");
    let mut c = on_hsa(hsa_programs(), dir);
    c.arg(what).arg(hsa_kernels());
    c.env("HSA_TOOLS_LIB", layer()).env("ROCP_TOOL_LIB", iface_tool()).env("ROCP_TOOL_OUT", &out);
    c.env("CLTAP_OUTPUT_DIR", dir);
    for (k, v) in env {
        c.env(k, v);
    }
    let o = run(c);
    let lines = std::fs::read_to_string(&out).unwrap_or_default().lines().map(str::to_string).collect();
    (o, lines)
}

/// The rest of rocprofiler 5.2.3's interface, on Debian's ROCr over the
/// emulated gfx906: the settings offered are 5.2.3's; a context pool's entries
/// come back in fetch order with their values (SQ_WAVES, the waves the shader core ran) and
/// 64-byte aligned payloads; the HSA callbacks (code object, kernel
/// symbols at freeze and destroy, submit, allocate, device) and the queue
/// create and destroy callbacks are called as 5.2.3 calls them; `kernel_code` points at the kernel descriptor (its
/// `compute_pgm_rsrc1` gives results.csv's `vgpr` and `sgpr` by rocprof's
/// rules); `sig` and `queue-id` are the callback's; cltap's own
/// `ROCP_INPUT` request (GRBM_COUNT) is counted around the same dispatches
/// as the tool's; get_time and the functions 5.2.3 only declares answer as
/// documented.
#[test]
fn the_rest_of_the_5_2_3_interface_pools_hsa_callbacks_and_both_requests() {
    let plain_dir = scratch("rocp-iface-plain");
    let mut p = on_hsa(hsa_programs(), &plain_dir);
    p.arg("sizes").arg(hsa_kernels());
    let plain = run(p);
    let dir = scratch("rocp-iface");
    let input = dir.join("input.xml");
    std::fs::write(&input, "<metric name=GRBM_COUNT ></metric>\n").unwrap();
    let (o, lines) =
        with_iface_tool(&dir, "sizes", &[("ROCP_HSA_INTERCEPT", "2"), ("ROCP_INPUT", input.to_str().unwrap())]);
    let text = lines.join("\n");
    assert_eq!((o.code, &o.stdout, o.stderr.as_str()), (Some(0), &plain.stdout, ""), "{text}");

    let offered = line(&lines, "offered");
    for (k, v) in [
        ("intercept_mode", "1"),
        ("code_obj_tracking", "1"),
        ("memcopy_tracking", "0"),
        ("trace_size", "33554432"),
        ("trace_local", "1"),
        ("timeout", "18446744073709551615"),
        ("timestamp_on", "1"),
        ("hsa_intercepting", "0"),
        ("opt_mode", "0"),
    ] {
        assert_eq!(offered[k], v, "{k}: {offered:?}");
    }

    // The pool: every entry delivered once, in fetch order, with its values.
    let delivered = all(&lines, "delivered");
    assert_eq!(delivered.len(), SHAPES.len(), "{text}");
    for (i, (d, (grid, wg, _))) in delivered.iter().zip(SHAPES).enumerate() {
        assert_eq!(d["delivered"], i.to_string(), "in fetch order: {text}");
        assert_eq!((d["waves_kind"].as_str(), d["aligned"].as_str()), ("2", "1"));
        assert_eq!(d["waves"].parse::<u64>().unwrap(), Model::of(grid, wg).w, "dispatch {i}");
    }
    assert_eq!((line(&lines, "flush")["status"].as_str(), line(&lines, "close")["status"].as_str()), ("0", "0"));
    assert_eq!(line(&lines, "closed_pool")["status"], "0x1001");

    // The HSA callbacks.
    let callbacks = all(&lines, "callback");
    assert_eq!(callbacks.len(), SHAPES.len());
    let object = callbacks[0]["object"].clone();
    let symbols = all(&lines, "ksymbol");
    let add_one = symbols.iter().find(|s| s["name"] == "add_one.kd").unwrap_or_else(|| panic!("{text}"));
    assert_eq!((add_one["object"].as_str(), add_one["length"].as_str()), (object.as_str(), "10"));
    let unloads = all(&lines, "ksymbol_unload");
    assert_eq!(unloads.len(), symbols.len(), "each symbol unloaded at destroy: {text}");
    assert!(unloads.iter().all(|u| u["null_name"] == "1"));
    let codeobj = all(&lines, "codeobj");
    assert_eq!(codeobj.iter().map(|c| c["unload"].as_str()).collect::<Vec<_>>(), ["0", "1"], "{text}");
    let submits = all(&lines, "submit");
    assert_eq!(submits.len(), SHAPES.len());
    assert!(submits.iter().all(|s| s["kernel"] == "add_one.kd" && s["device_id"] == "0"), "{text}");
    // The queue callbacks: the one intercept queue, made and destroyed, with
    // the tool's data.
    let queue = submits[0]["queue"].clone();
    let (made, gone) = (all(&lines, "queue_create"), all(&lines, "queue_destroy"));
    assert_eq!((made.len(), gone.len()), (1, 1), "{text}");
    for q in [&made[0], &gone[0]] {
        assert_eq!((q["queue"].as_str(), q["data"].as_str()), (queue.as_str(), "0x7"), "{q:?}");
    }
    let counts = line(&lines, "counts");
    // allocate: the kernarg area, the buffer, the code object loaded and
    // unloaded, the buffer freed; device: the buffer's allow_access.
    assert_eq!(
        [&counts["allocate"], &counts["device"], &counts["code_alloc"], &counts["freed"], &counts["named"]],
        ["5", "1", "2", "2", "2"],
        "{text}"
    );

    // The functions 5.2.3 declares without defining, and get_time.
    for key in ["add_feature", "pool_release"] {
        let w = line(&lines, key);
        assert_eq!(w["status"], "0x1000");
        assert!(w["msg"].contains("declares this function in its header but does not define it"), "{w:?}");
    }
    let t = line(&lines, "get_time");
    let (value, error, after): (u64, u64, u64) =
        (t["value"].parse().unwrap(), t["error"].parse().unwrap(), t["after"].parse().unwrap());
    assert_eq!(t["status"], "0");
    assert!(value <= after + error && after - value < 60_000_000_000, "{t:?}: the dispatch's time on CLOCK_MONOTONIC");
    assert_eq!(line(&lines, "get_time_bad")["status"], "0x1000");

    // results.csv: cltap's own request was counted with the tool's, and
    // the columns follow the callback's data by rocprof's rules.
    let res =
        cltap_formats::perf::read_results(&std::fs::read_to_string(only_file(&dir, ".results.csv")).unwrap()).unwrap();
    assert_eq!(res.counters, ["GRBM_COUNT"]);
    assert_eq!(res.rows.len(), SHAPES.len());
    for ((row, cb), (grid, wg, _)) in res.rows.iter().zip(&callbacks).zip(SHAPES) {
        assert_eq!(row.values, [Some(Model::of(grid, wg).grbm_count as f64)], "counted with the tool's request");
        let rsrc1: u64 = cb["rsrc1"].parse().unwrap();
        assert_eq!(cb["code_null"], "0");
        assert_eq!(row.vgpr, Some(((rsrc1 & 0x3f) + 1) * 4), "rocprof's vgpr");
        assert_eq!(row.sgpr, Some((((rsrc1 >> 6) & 0xf) + 2) * 8), "rocprof's sgpr (gfx9)");
        assert_eq!(format!("{:#x}", row.sig.unwrap()), cb["signal"], "the dispatch's own completion signal");
        assert_eq!(row.queue_id.unwrap().to_string(), cb["queue_id"]);
        assert_eq!(row.tid.to_string(), cb["tid"]);
        assert_eq!(format!("{:#x}", row.obj.unwrap()), cb["object"]);
    }
}

/// A tool that leaves `opt_mode` on gets 5.2.3's optimised dispatch data:
/// no kernel name, object, code, thread or record (it names kernels from
/// its `ksymbol` callback).
#[test]
fn opt_mode_gets_the_optimised_callback_data() {
    let dir = scratch("rocp-iface-opt");
    let (o, lines) = with_iface_tool(&dir, "sizes", &[("ROCP_HSA_INTERCEPT", "2"), ("ROCP_IFACE_OPT", "1")]);
    let text = lines.join("\n");
    assert_eq!(o.code, Some(0), "{}\n{text}", o.stderr);
    let callbacks = all(&lines, "callback");
    assert_eq!(callbacks.len(), SHAPES.len(), "{text}");
    for c in &callbacks {
        assert_eq!(
            [&c["kernel"], &c["object"], &c["code_null"], &c["tid"], &c["record_null"]],
            ["NULL", "0", "1", "0", "1"],
            "{c:?}"
        );
    }
    assert_eq!(all(&lines, "delivered").len(), SHAPES.len(), "{text}");
}

/// An async copy calls the `memcopy` callback, as 5.2.3 does for
/// `hsa_amd_memory_async_copy` (the rect copy is not among 5.2.3's).
#[test]
fn an_async_copy_calls_the_memcopy_callback() {
    let dir = scratch("rocp-iface-copy");
    let (o, lines) = with_iface_tool(&dir, "copy", &[]);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stderr, lines.join("\n"));
    assert_eq!(line(&lines, "counts")["memcopy"], "2", "{}", lines.join("\n"));
}

/// When a tool's request and cltap's own cannot share the counters, the
/// tool's is served and one line says which lost and why; cltap's cells
/// read None. An unknown name in ROCP_INPUT is reported under ROCP_INPUT.
#[test]
fn requests_that_cannot_share_a_dispatch_are_named_once_and_rocp_input_names_its_errors() {
    let dir = scratch("rocp-iface-full");
    let input = dir.join("input.xml");
    let eight = "SQ_INSTS_VALU,SQ_INSTS_VMEM_WR,SQ_INSTS_VMEM_RD,SQ_INSTS_SALU,SQ_INSTS_SMEM,SQ_INSTS_FLAT,SQ_INSTS_LDS,SQ_INSTS_GDS";
    std::fs::write(&input, format!("<metric name={eight} ></metric>\n")).unwrap();
    let (o, lines) =
        with_iface_tool(&dir, "sizes", &[("ROCP_HSA_INTERCEPT", "1"), ("ROCP_INPUT", input.to_str().unwrap())]);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert_eq!(all(&lines, "delivered").len(), SHAPES.len(), "the tool's request is served");
    assert_eq!(o.stderr.lines().count(), 1, "one line: {}", o.stderr);
    assert!(
        o.stderr.contains("a rocprofiler tool (ROCP_TOOL_LIB) and cltap's own request")
            && o.stderr.contains("SQ[0] would need 9 counters and has 8")
            && o.stderr.contains("the tool's request is served"),
        "{}",
        o.stderr
    );
    let res =
        cltap_formats::perf::read_results(&std::fs::read_to_string(only_file(&dir, ".results.csv")).unwrap()).unwrap();
    assert!(res.rows.iter().all(|r| r.values.iter().all(Option::is_none)), "cltap's own cells read None");

    let dir = scratch("rocp-input-unknown");
    let input = dir.join("input.xml");
    std::fs::write(&input, "<metric name=SQ_WAVEZ ></metric>\n").unwrap();
    let mut c = on_hsa(hsa_programs(), &dir);
    c.arg("sizes").arg(hsa_kernels());
    c.env("HSA_TOOLS_LIB", layer())
        .env("ROCP_HSA_INTERCEPT", "1")
        .env("ROCP_INPUT", &input)
        .env("CLTAP_OUTPUT_DIR", &*dir);
    let o = run(c);
    assert_eq!(o.code, Some(0));
    assert_eq!(
        o.stderr.trim_end(),
        format!(
            "cltap: ROCP_INPUT={}: unknown metric 'SQ_WAVEZ' (did you mean 'SQ_WAVES'?); no counters are collected",
            input.display()
        )
    );
}
