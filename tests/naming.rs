//! Output templates and rank selection on a real driver (PoCL): the
//! folder and the file names a job script asks for, the ranks it traces,
//! and a bad template's one line. The application's own output is the same
//! in every case.

mod common;
use common::*;
use std::path::{Path, PathBuf};

fn vecadd() -> PathBuf {
    programs().join("vecadd")
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap().trim().to_string()
}

/// The plain run's output, to compare with.
fn plain() -> Outcome {
    run(command(&vecadd(), &[], &[Driver::Pocl], Loader::OclIcd, Mode::Plain))
}

fn in_layer(env: &[(&str, &str)]) -> Outcome {
    let mut c = command(&vecadd(), &[], &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
    c.env("CLTAP_SUMMARY", "0");
    for (k, v) in env {
        c.env(k, v);
    }
    run(c)
}

#[test]
fn the_folder_and_the_names_follow_the_templates() {
    let d = scratch("templates");
    let want = plain();
    let folder = format!("{}/%hostname%-%env{{JOB_TAG}}%", d.display());
    let o = in_layer(&[
        ("CLTAP_OUTPUT_DIR", &folder),
        ("CLTAP_OUTPUT_NAME", "run.r%rank%.%pid%.%q{JOB_TAG}%"),
        ("OMPI_COMM_WORLD_RANK", "3"),
        ("JOB_TAG", "j42"),
    ]);
    assert_eq!((o.code, &o.stdout, o.stderr.as_str()), (want.code, &want.stdout, ""));
    let dir = d.join(format!("{}-j42", hostname()));
    let files = names(&dir);
    let trace = files.iter().find(|n| n.ends_with(".cltrace")).unwrap_or_else(|| panic!("{files:?}"));
    // The pid in the name is the one in the trace's own header.
    let pid = cltap_formats::cltrace::Reader::open(&dir.join(trace)).unwrap().header.pid;
    let stem = format!("run.r3.{pid}.j42");
    assert_eq!(trace, &format!("{stem}.cltrace"));
    assert!(files.contains(&format!("{stem}.apilog")), "{files:?}");
    assert!(files.iter().all(|n| n.starts_with(&stem)), "{files:?}");
}

#[test]
fn cltap_run_finds_a_templated_folder_and_renders_a_killed_run_with_any_name() {
    let d = scratch("run-templates");
    let pocl = Driver::Pocl.library();
    let calls = special("calls.c", "calls-deaths");
    let mut c = cltap_on_driver(&d, &pocl);
    c.args(["run", "--no-summary", "--driver"])
        .arg(&pocl)
        .arg("--output")
        .arg(format!("{}/out-%app%-r%rank%", d.display()))
        .args(["--name", "custom-%env{JOB_TAG}%", "--"])
        .arg(&calls)
        .args(["die", "kill", "50"]);
    c.env("JOB_TAG", "t7").env("PMI_RANK", "2");
    let o = run(c);
    assert_eq!(o.code, Some(128 + libc::SIGKILL), "{}", o.stderr);
    let dir = d.join("out-calls-deaths-r2");
    assert!(o.stderr.contains("killed by SIGKILL") && o.stderr.contains("its trace was rendered"), "{}", o.stderr);
    let log = dir.join("custom-t7.apilog");
    let text = std::fs::read_to_string(&log).unwrap_or_else(|e| panic!("{e}: {:?}", names(&dir)));
    assert!(text.lines().last().unwrap().starts_with("# end: "), "rendered to its end");
    assert!(o.stderr.contains(&log.display().to_string()), "the files it lists: {}", o.stderr);
}

#[test]
fn only_the_selected_ranks_write_and_every_rank_sees_the_same() {
    let d = scratch("ranks");
    let want = plain();
    for rank in 0..4 {
        let r = rank.to_string();
        let o = in_layer(&[("CLTAP_OUTPUT_DIR", d.to_str().unwrap()), ("CLTAP_RANKS", "0,2-3"), ("PMI_RANK", &r)]);
        assert_eq!((o.code, &o.stdout, o.stderr.as_str()), (want.code, &want.stdout, ""), "rank {rank}");
    }
    let logs: Vec<String> = names(&d).into_iter().filter(|n| n.ends_with(".apilog")).collect();
    let ranks: Vec<&str> = logs.iter().map(|n| n.trim_end_matches(".apilog").rsplit('.').next().unwrap()).collect();
    assert_eq!(ranks, ["r0", "r2", "r3"], "{logs:?}");
    // Without a launcher a process is rank 0.
    let solo = scratch("ranks-solo");
    in_layer(&[("CLTAP_OUTPUT_DIR", solo.to_str().unwrap()), ("CLTAP_RANKS", "1-3")]);
    assert_eq!(names(&solo), Vec::<String>::new());
}

#[test]
fn a_bad_template_or_rank_list_gets_one_line_and_a_pass_through() {
    let want = plain();
    for (var, value, says) in [
        ("CLTAP_OUTPUT_NAME", "%app%.%bogus%", "%bogus% is not a field"),
        ("CLTAP_OUTPUT_NAME", "%q{CLTAP_TEST_UNSET}%", "names a variable that is not set"),
        ("CLTAP_OUTPUT_NAME", "a/%pid%", "is not a plain file name"),
        ("CLTAP_OUTPUT_DIR", "x%pid", "starts no field"),
        ("CLTAP_RANKS", "3-1", "comma-separated ranks and ranges"),
    ] {
        let d = scratch("bad-template");
        let mut env = vec![(var, value)];
        if var != "CLTAP_OUTPUT_DIR" {
            env.push(("CLTAP_OUTPUT_DIR", d.to_str().unwrap()));
        }
        let o = in_layer(&env);
        assert_eq!((o.code, &o.stdout), (want.code, &want.stdout), "{var}={value}");
        let lines: Vec<&str> = o.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{var}={value}: {}", o.stderr);
        let l = lines[0];
        assert!(l.contains(var) && l.contains(value) && l.contains(says) && l.contains("pass-through"), "{l}");
        assert_eq!(names(&d), Vec::<String>::new(), "{var}={value}: nothing written");
    }
}

/// The same selection on Debian's real ROCr over the emulated GPU, with
/// cltap as the HSA tool library (`cltap run --hsa`).
#[test]
fn on_the_real_rocr_only_the_selected_rank_writes() {
    use common::emu::{built, cltap_on_emu};
    let app = built().join("emu_client");
    let co = built().join("kernels.co");
    for (rank, writes) in [("0", false), ("1", true)] {
        let d = scratch("ranks-hsa");
        let mut c = cltap_on_emu(&d, &["--ranks", "1-2", "--hsa-intercept", "1"], &app, &[co.to_str().unwrap()]);
        c.env("SLURM_PROCID", rank);
        let o = run(c);
        assert_eq!(o.code, Some(0), "rank {rank}: {}", o.stderr);
        assert!(o.stdout.contains("emu_client: all checks passed"), "rank {rank}: {}", o.stdout);
        let files = names(&d);
        if writes {
            assert!(files.iter().any(|n| n.starts_with("emu_client.") && n.ends_with(".r1.apilog")), "{files:?}");
            let log = std::fs::read_to_string(d.join(files.iter().find(|n| n.ends_with(".apilog")).unwrap())).unwrap();
            assert!(log.contains("hsa_queue_create"), "the HSA calls are recorded");
        } else {
            assert_eq!(files, Vec::<String>::new(), "rank 0 is not selected");
        }
    }
}
