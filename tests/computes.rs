//! The AMD side computes, and cltap in front of it changes nothing the programs compute. The
//! emulated gfx906 runs every kernel's machine code (gpu-emu/isa), so an HSA program whose results
//! depend on its kernel arguments, on barriers between queues and on ROCr's copies
//! (`tests/gpu_emu/emu_client.c`), and a HIP program with ROCclr's own copy and fill kernels
//! (`hip_client.hip`), check their own results. Here each runs without cltap and with cltap as the
//! HSA tool under every `ROCP_HSA_INTERCEPT` setting, with counters around each dispatch (counter
//! packets in the queue), with the `.atp` and with a rocprofiler v1 tool loaded: the program's own
//! output must be the same, byte for byte, and say that every check passed. A corrupted kernel
//! argument, a lost barrier or a rewritten packet that went wrong would show as a failed check.

mod common;
use common::amdocl;
use common::emu::{built, on_emu};
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn tool() -> &'static Path {
    static T: OnceLock<PathBuf> = OnceLock::new();
    T.get_or_init(|| rocp::gcc("rocp_tool.c", "rocp_tool_computes.so", &["-shared", "-fPIC"]))
}

/// The settings each program runs under: (what, variables).
fn settings(out: &Path) -> Vec<(&'static str, Vec<(&'static str, String)>)> {
    let d = out.display().to_string();
    let layer = layer().display().to_string();
    let with = |extra: &[(&'static str, &str)]| {
        let mut v = vec![("HSA_TOOLS_LIB", layer.clone()), ("CLTAP_OUTPUT_DIR", d.clone())];
        v.extend(extra.iter().map(|(k, x)| (*k, x.to_string())));
        v
    };
    vec![
        ("without cltap", vec![]),
        ("intercept 0", with(&[("ROCP_HSA_INTERCEPT", "0")])),
        ("intercept 1", with(&[("ROCP_HSA_INTERCEPT", "1")])),
        ("intercept 2", with(&[("ROCP_HSA_INTERCEPT", "2")])),
        ("counters", with(&[("ROCP_HSA_INTERCEPT", "1"), ("CLTAP_COUNTERS", "SQ_WAVES,SQ_INSTS_VALU,GRBM_COUNT")])),
        ("atp", with(&[("ROCP_HSA_INTERCEPT", "2"), ("CLTAP_ATP", "1")])),
        (
            "v1 tool",
            with(&[
                ("ROCP_HSA_INTERCEPT", "1"),
                ("ROCP_TOOL_LIB", tool().to_str().unwrap()),
                ("ROCP_TOOL_OUT", &out.join("tool.txt").display().to_string()),
            ]),
        ),
    ]
}

/// The program's own lines, less those that carry times or the libraries' paths.
fn own_lines(stdout: &str) -> String {
    stdout.lines().filter(|l| !l.contains(" times within ") && !l.contains(": loaded ")).collect::<Vec<_>>().join("\n")
}

/// The end of a run's stderr without the emulator's packet log, which runs to thousands of lines
/// and hid the runtime's own last words in CI.
fn tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.starts_with("gpu-emu: queue ")).collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

fn same_everywhere(name: &str, passed: &str, program: impl Fn(&Path, bool) -> Command) {
    let mut first: Option<String> = None;
    let dir = scratch(&format!("computes-{name}"));
    for (what, vars) in settings(&dir) {
        let mut c = program(&dir, !vars.is_empty());
        c.envs(vars.iter().map(|(k, v)| (*k, v.as_str())));
        let o = run(c);
        assert_eq!(o.code, Some(0), "{name}, {what}:\n{}\n{}", o.stdout, tail(&o.stderr));
        assert!(o.stdout.contains(passed), "{name}, {what}:\n{}", o.stdout);
        let own = own_lines(&o.stdout);
        match &first {
            None => first = Some(own),
            Some(f) => assert_eq!(&own, f, "{name}, {what}: the program's output differs from its run without cltap"),
        }
    }
}

#[test]
fn an_hsa_program_computes_the_same_with_cltap_in_every_setting() {
    same_everywhere("emu_client", "emu_client: all checks passed", |_, _| {
        on_emu(&built().join("emu_client"), &[built().join("kernels.co").to_str().unwrap()])
    });
}

#[test]
fn a_hip_program_computes_the_same_with_cltap_in_every_setting() {
    same_everywhere("hip_client", "hip_client: all checks passed", |_, _| on_emu(&built().join("hip_client"), &[]));
}

/// The sample on AMD's OpenCL runtime, cltap in front of it as an OpenCL layer and, in the same
/// process, behind it as the HSA tool: every NDRange joined to its dispatch, counted, traced.
#[test]
fn the_sample_computes_the_same_on_amds_opencl_runtime_with_cltap_in_front_and_behind() {
    for mode in [Mode::Layer, Mode::Icd] {
        same_everywhere(&format!("vecadd-{mode:?}"), "vecadd: 65536 elements OK", |dir, cltap| {
            amdocl::on_amd(&programs().join("vecadd"), &["65536"], if cltap { mode } else { Mode::Plain }, dir)
        });
    }
}
