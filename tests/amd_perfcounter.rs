//! AMD's perf-counter extension (`cl_amd_perfcounter`, `amdocl/cl_profile_amd.h` of
//! ROCm-OpenCL-Runtime rocm-5.2.3) on AMD's own OpenCL runtime over the emulated gfx906
//! (docs/amd-opencl.md): `tests/amdocl/perfcounter.c` finds its seven functions through
//! `clGetExtensionFunctionAddressForPlatform`, counts `SQ_WAVES` and `GRBM_COUNT` around one
//! NDRange and reads them back. cltap must forward every call in layer and ICD mode (the program
//! prints what the runtime answered) and log each with its arguments; and when cltap also counts
//! as ROCr's tool, the application's counters must still read what they read without cltap.

mod common;
use cltap_formats::apilog::{self, Call, Entry};
use common::amdocl::on_amd;
use common::*;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The program's NDRange: GLOBAL work-items in groups of LOCAL (its `#define`s).
const GLOBAL: u64 = 4096;
const LOCAL: u64 = 64;

fn program() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let exe = root().join("target/ctests/perfcounter");
        std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
        let st = Command::new("gcc")
            .args(["-std=c11", "-O1", "-Wall", "-Werror"])
            .arg(root().join("tests/amdocl/perfcounter.c"))
            .arg("-o")
            .arg(&exe)
            .arg("-lOpenCL")
            .status()
            .expect("run gcc");
        assert!(st.success(), "building tests/amdocl/perfcounter.c failed");
        exe
    })
}

/// The run without cltap: it must have counted the NDRange's waves (one 64-wide wave per
/// work-group, exact on the emulator) and computed its kernel.
fn baseline() -> Outcome {
    let dir = scratch("amd-perf-plain");
    let o = run(on_amd(program(), &[], Mode::Plain, &dir));
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let waves = GLOBAL / LOCAL;
    assert!(
        o.stdout.contains(&format!("SQ_WAVES: block 14 counter 0 event 4 refcount 1 data {waves}\n")),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains(&format!("kernel: {GLOBAL} elements OK\n")), "{}", o.stdout);
    o
}

fn arg<'a>(c: &'a Call, name: &str) -> &'a str {
    &c.args.iter().find(|a| a.name == name).unwrap_or_else(|| panic!("{}: no {name}: {c:?}", c.name)).value
}

fn out<'a>(c: &'a Call, name: &str) -> &'a str {
    &c.outs.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{}: no *{name}: {c:?}", c.name)).1
}

/// Every call of the extension in the log, each with its decoded arguments, tied together by
/// the counters' handles as `clCreatePerfCounterAMD` returned them.
fn check_log(dir: &Path, what: &str) {
    let log = std::fs::read_to_string(only_file(dir, ".apilog")).unwrap();
    let calls: Vec<Call> = apilog::read(&log)
        .unwrap()
        .into_iter()
        .filter_map(|e| match e {
            Entry::Call(c) if c.name.contains("PerfCounter") || c.name == "clSetDeviceClockModeAMD" => Some(c),
            _ => None,
        })
        .collect();
    let of = |n: &str| calls.iter().filter(|c| c.name == n).collect::<Vec<_>>();
    let created = of("clCreatePerfCounterAMD");
    assert_eq!(created.len(), 2, "{what}: {calls:#?}");
    let handles: HashSet<&str> = created.iter().map(|c| c.result.as_deref().unwrap()).collect();
    assert_eq!(handles.len(), 2, "{what}: two counters: {created:?}");
    for c in &created {
        assert_eq!(out(c, "errcode_ret"), "CL_SUCCESS", "{what}");
        assert!(!arg(c, "properties").chars().all(|c| c == '0'), "{what}: {c:?}");
    }
    for (name, n) in [("clRetainPerfCounterAMD", 1), ("clReleasePerfCounterAMD", 3), ("clGetPerfCounterInfoAMD", 11)] {
        let cs = of(name);
        assert_eq!(cs.len(), n, "{what}: {name}: {cs:#?}");
        for c in cs {
            assert!(handles.contains(arg(c, "perf_counter")), "{what}: a counter cltap logged as created: {c:?}");
        }
    }
    let infos = of("clGetPerfCounterInfoAMD");
    let names: HashSet<&str> = infos.iter().map(|c| arg(c, "param_name")).collect();
    assert_eq!(names, HashSet::from(["1", "2", "3", "4", "5", "119"]), "{what}");
    for c in &infos {
        let want = if arg(c, "param_name") == "119" { "CL_INVALID_VALUE" } else { "CL_SUCCESS" };
        assert_eq!(c.result.as_deref(), Some(want), "{what}: {c:?}");
    }
    for name in ["clEnqueueBeginPerfCounterAMD", "clEnqueueEndPerfCounterAMD"] {
        let cs = of(name);
        assert_eq!(cs.len(), 1, "{what}: {name}");
        assert_eq!(arg(cs[0], "num_perf_counters"), "2", "{what}");
        assert_eq!(cs[0].result.as_deref(), Some("CL_SUCCESS"), "{what}");
        assert!(cs[0].cmd_id.is_some(), "{what}: an enqueue gets a command id: {:?}", cs[0]);
    }
    let clock = of("clSetDeviceClockModeAMD");
    assert_eq!(clock.len(), 1, "{what}");
    assert_eq!(arg(clock[0], "clock_mode_input"), "1", "{what}: CL_DEVICE_CLOCK_MODE_QUERY_AMD");
    assert_eq!(clock[0].result.as_deref(), Some("CL_SUCCESS"), "{what}");
}

/// Layer mode and ICD mode: the same output and exit code as without cltap, no line about the
/// extension's names (ICD mode used to give NULL for them, with one warning line each), and every
/// call in the API log.
#[test]
fn the_extension_is_forwarded_and_logged_in_both_modes() {
    let plain = baseline();
    for (name, mode) in [("layer", Mode::Layer), ("icd", Mode::Icd)] {
        let dir = scratch(&format!("amd-perf-{name}"));
        let o = run(on_amd(program(), &[], mode, &dir));
        assert_eq!((o.code, o.stdout.as_str()), (plain.code, plain.stdout.as_str()), "{name}:\n{}", o.stderr);
        assert!(!o.stderr.contains("PerfCounterAMD"), "{name}: {}", o.stderr);
        check_log(&dir, name);
    }
}

/// The application counts with the extension while cltap counts as ROCr's tool
/// (`CLTAP_COUNTERS`) around the same dispatch: the GPU's counters count one profile at a time,
/// so the application's request wins (its values are those it reads without cltap), cltap's
/// own row for that dispatch has no values, and one stderr line says so.
#[test]
fn the_applications_counters_win_over_cltaps_own_with_one_line() {
    let plain = baseline();
    let dir = scratch("amd-perf-both");
    let mut c = on_amd(program(), &[], Mode::Layer, &dir);
    c.env("HSA_TOOLS_LIB", layer()).env("ROCP_HSA_INTERCEPT", "1").env("CLTAP_COUNTERS", "SQ_WAVES,GRBM_COUNT");
    let o = run(c);
    assert_eq!((o.code, o.stdout.as_str()), (plain.code, plain.stdout.as_str()), "{}", o.stderr);
    let said: Vec<&str> =
        o.stderr.lines().filter(|l| l.contains("the application collects hardware counters itself")).collect();
    assert_eq!(said.len(), 1, "{}", o.stderr);
    assert!(said[0].starts_with("cltap: counters: ") && said[0].contains("the application's request is served"));
    let results =
        cltap_formats::perf::read_results(&std::fs::read_to_string(only_file(&dir, ".results.csv")).unwrap()).unwrap();
    assert_eq!(results.counters, ["SQ_WAVES", "GRBM_COUNT"]);
    let scale: Vec<_> = results.rows.iter().filter(|r| r.kernel_name == "scale").collect();
    assert_eq!(scale.len(), 1, "{results:?}");
    assert_eq!(scale[0].grd, GLOBAL);
    assert_eq!(scale[0].values, [None, None], "cltap's own request has no values for the application's dispatch");
    check_log(&dir, "layer, counting");
}

/// The decoded API log (`CLTAP_LOG_DECODE=1`) names what AMD's header names: the query of
/// `clGetPerfCounterInfoAMD` and the property names in `clCreatePerfCounterAMD`'s list, each with
/// its value (block 14 event 4 is SQ_WAVES), in both modes.
#[test]
fn the_decoded_log_names_the_queries_and_the_counter_properties() {
    let plain = baseline();
    for (name, mode) in [("layer", Mode::Layer), ("icd", Mode::Icd)] {
        let dir = scratch(&format!("amd-perf-decoded-{name}"));
        let mut c = on_amd(program(), &[], mode, &dir);
        c.env("CLTAP_LOG_DECODE", "1");
        let o = run(c);
        assert_eq!((o.code, o.stdout.as_str()), (plain.code, plain.stdout.as_str()), "{name}:\n{}", o.stderr);
        let log = std::fs::read_to_string(only_file(&dir, ".apilog")).unwrap();
        let lines = |f: &str| log.lines().filter(|l| l.contains(&format!("{f}("))).collect::<Vec<_>>();
        let created = lines("clCreatePerfCounterAMD");
        let waves = "{0x3 (CL_PERFCOUNTER_GPU_BLOCK_INDEX), 0xe, 0x4 (CL_PERFCOUNTER_GPU_COUNTER_INDEX), 0x0, \
                     0x5 (CL_PERFCOUNTER_GPU_EVENT_INDEX), 0x4, 0}";
        assert_eq!(created.len(), 2, "{name}: {log}");
        assert!(created[0].contains(waves), "{name}: {}", created[0]);
        for (v, query) in [
            (1, "CL_PERFCOUNTER_REFERENCE_COUNT"),
            (2, "CL_PERFCOUNTER_DATA"),
            (3, "CL_PERFCOUNTER_GPU_BLOCK_INDEX"),
            (4, "CL_PERFCOUNTER_GPU_COUNTER_INDEX"),
            (5, "CL_PERFCOUNTER_GPU_EVENT_INDEX"),
        ] {
            let want = format!("param_name = {v} ({query})");
            assert!(lines("clGetPerfCounterInfoAMD").iter().any(|l| l.contains(&want)), "{name}: no {want}:\n{log}");
        }
        // 119 is no query of AMD's: its number alone.
        assert!(lines("clGetPerfCounterInfoAMD").iter().any(|l| l.contains("param_name = 119,")), "{name}:\n{log}");
    }
}
