//! `cltap report` over a job's files groups them by rank: three processes
//! started as ranks 0, 1 and 2 by three launchers' variables (Open MPI,
//! MPICH's PMI, Slurm), run for real on PoCL, each making a different
//! number of calls; the report's table per rank counts each one's own.

mod common;
use common::*;
use std::path::PathBuf;
use std::process::Command;

const LAUNCHERS: [&str; 3] = ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"];

fn report(files: &[PathBuf]) -> String {
    let o = Command::new(root().join("target/release/cltap")).arg("report").args(files).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// The `calls` column of `api`'s row in each table of `text`, in order.
fn calls_of(text: &str, api: &str) -> Vec<u64> {
    text.lines()
        .filter(|l| l.split_whitespace().next() == Some(api))
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect()
}

#[test]
fn a_jobs_logs_and_databases_by_rank() {
    let dir = scratch("report-ranks");
    let program = special("errors_only.c", "errors_only_ranks");
    for (rank, var) in LAUNCHERS.iter().enumerate() {
        // Rank r makes 10·(r+1) successful clGetDeviceInfo calls and one that fails.
        let rounds = (10 * (rank + 1)).to_string();
        let mut c = command(&program, &[&rounds], &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
        for v in LAUNCHERS.iter().chain(["PMIX_RANK", "MV2_COMM_WORLD_RANK", "PALS_RANKID"].iter()) {
            c.env_remove(v);
        }
        c.env("CLTAP_OUTPUT_DIR", &*dir).env("CLTAP_ROCPD", "1").env(var, rank.to_string());
        let o = run(c);
        assert_eq!(o.code, Some(0), "{o:?}");
    }
    let files = |ext: &str| {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&*dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .collect();
        // Listed out of rank order: the report orders them.
        v.sort();
        v.reverse();
        v
    };
    let logs = files("apilog");
    assert_eq!(logs.len(), 3, "{logs:?}");
    let text = report(&logs);
    let titles: Vec<&str> = text.lines().filter(|l| l.starts_with("rank ") || l.starts_with("all ranks")).collect();
    assert_eq!(titles.len(), 4, "{text}");
    for (r, t) in titles[..3].iter().enumerate() {
        assert!(t.starts_with(&format!("rank {r} (1 file: ")) && t.contains(&format!(".r{r}.apilog")), "{t}");
    }
    assert_eq!(titles[3], "all ranks (3 files)");
    assert_eq!(calls_of(&text, "clGetDeviceInfo"), [11, 21, 31, 63], "{text}");
    assert_eq!(calls_of(&text, "clEnqueueNDRangeKernel"), [10, 20, 30, 60], "{text}");

    // rocpd's databases: one process per rank, in rank order, then the total.
    let dbs = files("db");
    let text = report(&dbs);
    let heads: Vec<&str> = text.lines().filter(|l| !l.starts_with(' ')).collect();
    assert_eq!(heads.len(), 4, "{text}");
    for (r, h) in heads[..3].iter().enumerate() {
        assert!(h.starts_with(&format!("rank {r}: process ")) && h.contains(&format!(".r{r}.db")), "{h}");
    }
    assert_eq!(heads[3], "total (3 processes)");
}
