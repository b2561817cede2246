//! Every process-wide lock across `fork`, on a real driver:
//! `tests/c/special/fork_locks.c` forks again and again while a second
//! thread of the parent builds programs with a callback (the programs'
//! registry, the builds left pending), makes kernels and asks for unknown
//! extension functions (their list), with programs dumped. Each child
//! makes a program, asks for an unknown extension function, enqueues and
//! finishes on its own. A child stuck on a lock left held by the fork
//! fails the test at the deadline, with the stacks of the processes still
//! alive. Each process's API log is its own (named by its pid): a child's
//! holds its one kernel `child_k` and none of the parent thread's calls.
//!
//! The children need no lock of PoCL's that the parent's second thread may
//! hold (PoCL is not fork-safe): children forked during a build hung in
//! PoCL, cltap or not, so the program forks between builds, and its
//! children work in a context of their own (see the program).

mod common;
use cltap_formats::apilog::{self, Entry};
use common::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The API logs of `dir`, by the pid in their names (`<stem>.<pid>.apilog`).
fn logs_by_pid(dir: &Path) -> BTreeMap<u32, PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            let pid = name.strip_suffix(".apilog")?.rsplit('.').next()?.parse().ok()?;
            Some((pid, p))
        })
        .collect()
}

/// How many calls of each function an API log holds.
fn calls(log: &Path) -> BTreeMap<String, usize> {
    let mut n = BTreeMap::new();
    for e in apilog::read(&std::fs::read_to_string(log).unwrap()).unwrap() {
        if let Entry::Call(c) = e {
            *n.entry(c.name.to_string()).or_insert(0) += 1;
        }
    }
    n
}

fn fork_while_locking(mode: Mode, forks: usize) {
    let exe = special("fork_locks.c", "fork_locks");
    let what = format!("PoCL {mode:?}");
    let dir = scratch(&format!("fork-locks-{mode:?}"));
    let mut c = command(&exe, &[&forks.to_string()], &[Driver::Pocl], Loader::OclIcd, mode);
    c.env("CLTAP_DUMP_PROGRAMS", "1").env("CLTAP_OUTPUT_DIR", &dir);
    // PoCL's pthread device runs commands on worker threads, which a forked
    // child does not have; its basic device runs them on the caller's.
    c.env("POCL_DEVICES", "basic");
    let o = deadline::run_within(c, std::time::Duration::from_secs(180), &what);
    assert_eq!(o.code, Some(0), "{what}: {}{}", o.stdout, o.stderr);
    let mut children: Vec<u32> =
        o.stdout.lines().filter_map(|l| l.strip_prefix("child ")).map(|p| p.parse().unwrap()).collect();
    assert_eq!(children.len(), forks, "{what}: {}", o.stdout);
    let (parent, rounds): (u32, usize) = o
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("parent "))
        .map(|l| {
            let (p, r) = l.split_once(' ').unwrap();
            (p.parse().unwrap(), r.parse().unwrap())
        })
        .unwrap();
    let logs = logs_by_pid(&dir);
    let mut pids = children.clone();
    pids.push(parent);
    pids.sort();
    assert_eq!(logs.keys().copied().collect::<Vec<_>>(), pids, "{what}: one API log per process");
    let p = calls(&logs[&parent]);
    // The second thread was joined: each of its rounds ran whole.
    assert_eq!(p.get("clBuildProgram"), Some(&(rounds + 1)), "{what}: parent (and its first build)");
    assert_eq!(p.get("clGetExtensionFunctionAddressForPlatform"), Some(&rounds), "{what}: parent");
    assert_eq!(p.get("clEnqueueNDRangeKernel"), Some(&1), "{what}: the parent's one enqueue, before its thread began");
    children.sort();
    for pid in children {
        let c = calls(&logs[&pid]);
        assert_eq!(c.get("clEnqueueNDRangeKernel"), Some(&1), "{what}: child {pid}: {c:?}");
        assert_eq!(c.get("clCreateProgramWithSource"), Some(&1), "{what}: child {pid}: {c:?}");
        assert_eq!(c.get("clBuildProgram"), None, "{what}: child {pid}: {c:?}");
        assert_eq!(c.get("clGetExtensionFunctionAddressForPlatform"), Some(&1), "{what}: child {pid}: {c:?}");
    }
}

#[test]
fn forks_while_a_thread_builds_and_looks_up_extensions_leave_each_child_working_with_its_own_log() {
    for mode in [Mode::Layer, Mode::Icd] {
        fork_while_locking(mode, 12);
    }
}
