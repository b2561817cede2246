//! `cltap render` reproduces a run byte for byte: the trace holds every
//! record an output shows (device times, counters, HSA dispatches, the
//! summary's facts of the end), so the files `cltap render` makes from a
//! run's `.cltrace` are the very files the run made (docs/trace-format.md).
//! On PoCL with device timing and every output, and on Debian's real ROCr
//! over gpu-emu with counters and `ROCP_HSA_INTERCEPT=2`. Also: a trace left
//! unrendered (`CLTAP_RENDER=0`) renders with its device times, and a
//! trace its process rendered is not rendered over its files.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every file of `dir` but the trace, by name.
fn outputs(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_none_or(|x| x != "cltrace"))
        .collect();
    v.sort();
    v
}

/// `cltap render TRACE --output OUT`; returns its stderr.
fn render(trace: &Path, out: &Path) -> String {
    let o = Command::new(cltap_exe()).arg("render").arg(trace).arg("--output").arg(out).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "cltap render: {err}");
    err
}

/// The summary's table lines of a stderr (`cltap:` lines before the list
/// of files, without the emulator's).
fn table(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("cltap: ") || l.starts_with("cltap:   "))
        .take_while(|l| !l.starts_with("cltap: files written"))
        .collect()
}

/// Renders the one trace of `run` into `run/again` and holds every file
/// the run wrote to the rendered one, byte for byte; `want`: the
/// extensions the run must have written.
fn rendered_again(run: &Path, want: &[&str]) -> String {
    let trace = only_file(run, ".cltrace");
    let again = run.join("again");
    let err = render(&trace, &again);
    let mine = outputs(run);
    for ext in want {
        assert!(mine.iter().any(|p| p.to_string_lossy().ends_with(ext)), "the run wrote no {ext}: {mine:?}");
    }
    let names = |v: &[PathBuf]| v.iter().map(|p| p.file_name().unwrap().to_owned()).collect::<Vec<_>>();
    assert_eq!(names(&mine), names(&outputs(&again)), "the same files");
    for p in &mine {
        let a = std::fs::read(p).unwrap();
        let b = std::fs::read(again.join(p.file_name().unwrap())).unwrap();
        assert!(a == b, "{} differs from its rendering again ({} and {} bytes)", p.display(), a.len(), b.len());
    }
    err
}

fn pocl_run(dir: &Path, options: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let pocl = Driver::Pocl.library();
    let mut c = cltap_on_pocl(dir);
    // `-q`: the launcher's line naming the mode is not the process's, so a render does not repeat it.
    c.arg("run").arg("-q").args(options).arg("--output").arg(dir).arg("--driver").arg(&pocl).arg("--");
    c.arg(programs().join("vecadd")).arg("65536");
    c.envs(env.iter().copied());
    let o = c.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

#[test]
fn an_opencl_run_with_every_output_renders_again_to_the_same_bytes() {
    let d = scratch("render-again-opencl");
    let o = pocl_run(
        &d,
        &["--atp", "--timeline", "--pftrace", "--rocpd", "--device-timing", "--counters", "SQ_WAVES,GPUBusy"],
        &[("CLTAP_SUMMARY", "1")],
    );
    let run_err = String::from_utf8_lossy(&o.stderr).into_owned();
    let s = summary_json(&d);
    let timed = s["commands"].as_array().unwrap().len();
    assert!(timed >= 4, "vecadd's NDRanges and reads are timed: {s}");
    let again = rendered_again(
        &d,
        &[".apilog", ".atp", ".json", ".pftrace", ".db", ".csv", ".results.csv", ".occupancy", ".summary.json"],
    );
    assert_eq!(table(&run_err), table(&again), "the summary's table");
    assert!(again.contains(&format!("device time per kernel ({timed} commands timed)")), "{again}");
}

#[test]
fn a_trace_left_unrendered_renders_with_its_device_times() {
    let d = scratch("render-again-unrendered");
    let o = pocl_run(&d, &["--atp", "--device-timing"], &[("CLTAP_RENDER", "0"), ("CLTAP_SUMMARY", "1")]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("is not rendered (CLTAP_RENDER=0)"), "{err}");
    assert!(!err.contains("APIs"), "no summary of nothing: {err}");
    assert_eq!(outputs(&d), Vec::<PathBuf>::new(), "only the trace");
    // In place: nothing of the process's is there to overwrite.
    let trace = only_file(&d, ".cltrace");
    let o = Command::new(cltap_exe()).arg("render").arg(&trace).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let s = summary_json(&d);
    let commands = s["commands"].as_array().unwrap();
    assert!(commands.len() >= 4, "{s}");
    assert!(commands.iter().all(|c| c["end"].as_u64() > c["start"].as_u64()), "{s}");
    assert!(err.contains(&format!("({} commands timed)", commands.len())), "{err}");
    let atp = std::fs::read_to_string(only_file(&d, ".atp")).unwrap();
    assert!(atp.contains("CL_COMMAND_NDRANGE_KERNEL"), "the .atp has its device times:\n{atp}");
}

#[test]
fn a_trace_its_process_rendered_is_not_rendered_over_its_files() {
    let d = scratch("render-again-in-place");
    pocl_run(&d, &["--atp", "--device-timing"], &[("CLTAP_SUMMARY", "1")]);
    let before: Vec<Vec<u8>> = outputs(&d).iter().map(|p| std::fs::read(p).unwrap()).collect();
    let trace = only_file(&d, ".cltrace");
    let o = Command::new(cltap_exe()).arg("render").arg(&trace).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("its process rendered it already") && err.contains("--output"), "{err}");
    let after: Vec<Vec<u8>> = outputs(&d).iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert!(before == after, "the run's files are untouched");
}

#[test]
fn an_hsa_run_with_counters_and_dispatch_times_renders_again_to_the_same_bytes() {
    let d = scratch("render-again-hsa");
    let mut c = on_hsa(hsa_programs(), &d);
    c.arg("sizes").arg(hsa_kernels());
    c.env("HSA_TOOLS_LIB", layer())
        .env("ROCP_HSA_INTERCEPT", "2")
        .env("CLTAP_COUNTERS", "SQ_WAVES,SQ_INSTS_VALU,GPUBusy")
        .env("CLTAP_OUTPUT_DIR", &d)
        .env("CLTAP_SUMMARY", "1")
        .env("CLTAP_ATP", "1")
        .env("CLTAP_TIMELINE", "1")
        .env("CLTAP_PFTRACE", "1")
        .env("CLTAP_ROCPD", "1");
    let o = run(c);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let s = summary_json(&d);
    assert!(s["hsa_dispatches"].as_u64().unwrap() >= SHAPES.len() as u64, "{s}");
    assert!(s["hsa_packets"].is_object() && s["hsa_kernel_times"].is_array(), "the HSA facts: {s}");
    let again = rendered_again(
        &d,
        &[".apilog", ".atp", ".json", ".pftrace", ".db", ".csv", ".results.csv", ".occupancy", ".summary.json"],
    );
    assert_eq!(table(&o.stderr), table(&again), "the summary's table");
}
