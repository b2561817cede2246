//! A rocprofiler v1 tool at the end of programs that exit right after their last dispatch
//! (issue #41): rocprof's own tool aborted at exit, now and then, with "ERROR:
//! rocprofiler_group_get_data(), 0x… is not an open profiling context", because cltap closed
//! every context in an exit handler that ran before the tools' `OnUnloadTool`
//! (docs/rocprofiler-v1.md, "At the end of the process").
//!
//! The tool (`tests/tools/rocp_exit_tool.c`) is written the way rocprof's is: one context per
//! dispatch, all sharing one features array, read under the tool's lock in the completion handler
//! and, for any whose handler has not run, in `OnUnloadTool`; any failed call aborts. Three
//! programs submit a few dispatches and return from `main` at once, with the emulated command
//! processor slowed (`GPU_EMU_PACKET_DELAY_US`) so that every counted dispatch is still running
//! when the process ends: an HSA program on Debian's ROCr, a HIP program, and an OpenCL program
//! on AMD's OpenCL runtime (cltap as the HSA tool under it). Each runs 50 times, two at a time;
//! every run must exit with the program's own status and print what it prints without cltap, and
//! the tool must have read every context it opened, each once, in its completion handler (cltap
//! waits at exit for counted dispatches before it unloads the tools).

mod common;

use common::amdocl::on_amd;
use common::rocp::{gcc, words};
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Runs per program.
const RUNS: usize = 50;
/// Dispatches (HSA), launches (HIP) or fills (OpenCL) each program makes before it returns.
const EACH: u32 = 4;
/// Microseconds the emulated command processor waits before each packet: a counted dispatch is
/// three packets (start, dispatch, stop), so the last completion comes tens of milliseconds after
/// `main` returned.
const DELAY_US: &str = "2000";
/// The programs' own exit status.
const OWN_CODE: i32 = 7;

fn tool() -> &'static Path {
    static T: OnceLock<PathBuf> = OnceLock::new();
    T.get_or_init(|| gcc("rocp_exit_tool.c", "rocp_exit_tool.so", &["-shared", "-fPIC"]))
}

/// `tests/hsa/exit_early.c`, linked against Debian's ROCr.
fn hsa_exit_early() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let exe = root().join("target/ctests/hsa_exit_early");
        std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
        let st = Command::new("gcc")
            .args(["-std=c11", "-O1", "-Wall", "-Werror", "-I/usr/include/hsa"])
            .arg(root().join("tests/hsa/exit_early.c"))
            .arg("-o")
            .arg(&exe)
            .arg("-lhsa-runtime64")
            .status()
            .expect("run gcc");
        assert!(st.success(), "building tests/hsa/exit_early.c failed");
        exe
    })
}

/// `tests/gpu_emu/hip_exit.hip`, built with Debian's hipcc for gfx906.
fn hip_exit() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let out = root().join("target/ctests");
        std::fs::create_dir_all(&out).unwrap();
        // Without ROCM_TARGET_LST hipcc probes /sys/class/kfd for the targets.
        let targets = out.join("hip_exit.targets.lst");
        std::fs::write(&targets, "gfx906\n").unwrap();
        let exe = out.join("hip_exit");
        let o = Command::new("hipcc")
            .arg("--offload-arch=gfx906")
            .arg(root().join("tests/gpu_emu/hip_exit.hip"))
            .arg("-o")
            .arg(&exe)
            .env("ROCM_TARGET_LST", &targets)
            .output()
            .expect("run hipcc (scripts/setup.sh installs it)");
        assert!(o.status.success(), "hipcc hip_exit.hip failed:\n{}", String::from_utf8_lossy(&o.stderr));
        exe
    })
}

/// One of the three programs, run from `dir`, without cltap.
type Program = fn(&Path) -> Command;

fn hsa(dir: &Path) -> Command {
    let mut c = on_hsa(hsa_exit_early(), dir);
    c.arg(hsa_kernels());
    c
}

fn hip(dir: &Path) -> Command {
    on_hsa(hip_exit(), dir)
}

fn opencl(dir: &Path) -> Command {
    on_amd(&special("exit_early.c", "exit_early-amd"), &[], Mode::Plain, dir)
}

/// What one run under cltap and the tool came to: None if it was right, else why not.
fn check(o: &Outcome, plain: &Outcome, tool_lines: &str) -> Option<String> {
    let why = if o.code != Some(OWN_CODE) {
        format!("exit status {:?} (signal {:?}), the program's own is {OWN_CODE}", o.code, o.signal)
    } else if o.stdout != plain.stdout {
        format!("stdout {:?}, without cltap {:?}", o.stdout, plain.stdout)
    } else {
        let lines: Vec<&str> = tool_lines.lines().collect();
        let unload = lines.iter().find(|l| l.starts_with("unload ")).map(|l| words(l));
        let mut read: Vec<u32> = lines
            .iter()
            .filter(|l| l.starts_with("collected="))
            .map(|l| words(l)["collected"].parse().unwrap())
            .collect();
        read.sort();
        match unload {
            None => "the tool's OnUnloadTool did not run".to_string(),
            Some(u) => {
                let n: u32 = u["dispatches"].parse().unwrap();
                let expected: Vec<u32> = (0..n).collect();
                if n < EACH {
                    format!("the tool saw {n} dispatches, the program made at least {EACH}")
                } else if read != expected || u["collected"] != n.to_string() {
                    format!("{n} contexts opened, read: {read:?}")
                } else if u["at_unload"] != "0" {
                    format!("{} context(s) were read in OnUnloadTool: their handlers had not run", u["at_unload"])
                } else {
                    return None;
                }
            }
        }
    };
    Some(format!("{why}\nstderr:\n{}\ntool:\n{tool_lines}", o.stderr))
}

/// `program` once without cltap (its own status and output), then [`RUNS`] times under cltap
/// and the tool, two at a time; every failed run, described.
fn fifty_runs(name: &str, program: Program) {
    // The three tests take turns: two runs at a time in all, whatever the harness's threads.
    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let setup = std::time::Instant::now();
    let dir = scratch(&format!("tool-exit-{name}"));
    let plain = run(program(&dir));
    assert_eq!(plain.code, Some(OWN_CODE), "{name} without cltap:\n{}{}", plain.stdout, plain.stderr);
    tool();
    let setup = setup.elapsed().as_secs_f64();
    let started = std::time::Instant::now();
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for lane in 0..2 {
            let (dir, plain, failures) = (&dir, &plain, &failures);
            s.spawn(move || {
                for i in (lane..RUNS).step_by(2) {
                    let out = dir.join(format!("tool.{i}.txt"));
                    let mut c = program(dir);
                    c.env("HSA_TOOLS_LIB", layer())
                        .env("ROCP_TOOL_LIB", tool())
                        .env("ROCP_TOOL_OUT", &out)
                        .env("CLTAP_OUTPUT_DIR", dir.join(format!("cltap.{i}")))
                        .env("GPU_EMU_PACKET_DELAY_US", DELAY_US)
                        .env("EXIT_EARLY_DISPATCHES", EACH.to_string())
                        .env("EXIT_EARLY_FILLS", EACH.to_string())
                        .env("HIP_EXIT_LAUNCHES", EACH.to_string());
                    std::fs::create_dir_all(dir.join(format!("cltap.{i}"))).unwrap();
                    let o = run(c);
                    let lines = std::fs::read_to_string(&out).unwrap_or_default();
                    if let Some(why) = check(&o, plain, &lines) {
                        failures.lock().unwrap().push(format!("== {name}, run {i}: {why}"));
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    eprintln!(
        "{name}: built and run once without cltap in {setup:.1} s, {RUNS} runs in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} of {RUNS} runs of {name} failed; the first:\n{}",
        failures.len(),
        failures.iter().take(2).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn an_hsa_program_that_exits_with_dispatches_in_flight() {
    fifty_runs("hsa", hsa);
}

#[test]
fn a_hip_program_that_exits_with_launches_in_flight() {
    fifty_runs("hip", hip);
}

#[test]
fn an_opencl_program_on_amds_runtime_that_exits_with_fills_in_flight() {
    fifty_runs("opencl", opencl);
}
