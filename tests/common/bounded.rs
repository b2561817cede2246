//! `cltap` on a hostile input, under a time and memory bound: every
//! command runs under `timeout` and a 1 GiB address-space limit, so a hang
//! or a blowup fails the test instead of stalling the suite.

use super::{root, run, Outcome};
use std::process::Command;

/// `cltap ARGS` under the bound; a panic, the time bound or a signal fails.
pub fn cltap(args: &[&dyn AsRef<std::ffi::OsStr>]) -> Outcome {
    use std::os::unix::process::CommandExt;
    let mut c = Command::new("timeout");
    c.arg("60").arg(root().join("target/release/cltap"));
    for a in args {
        c.arg(a);
    }
    // SAFETY: setrlimit between fork and exec touches only the child.
    unsafe {
        c.pre_exec(|| {
            let r = libc::rlimit { rlim_cur: 1 << 30, rlim_max: 1 << 30 };
            if libc::setrlimit(libc::RLIMIT_AS, &r) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let o = run(c);
    assert!(!o.stderr.contains("panicked"), "a panic: {}", o.stderr);
    assert_ne!(o.code, Some(124), "past the time bound: {}", o.stderr);
    assert!(o.code.is_some(), "killed by a signal (memory bound?): {}", o.stderr);
    o
}

/// The `cltap:` lines of stderr.
pub fn said(o: &Outcome) -> Vec<&str> {
    o.stderr.lines().filter(|l| l.starts_with("cltap")).collect()
}

/// What `cltap render --threads N` made of a trace, none of which may
/// depend on N.
#[derive(Debug, PartialEq, Eq)]
pub struct Rendered {
    pub apilog: String,
    /// The summary's JSON, when the trace asks for a summary.
    pub summary: Option<String>,
    /// Its `cltap:` lines and the summary's table, less the lines that name
    /// the output folder.
    pub stderr: String,
}

/// `cltap render TRACE --threads N` into `out`, under the bound.
pub fn rendered_on(trace: &std::path::Path, out: &std::path::Path, threads: usize) -> Rendered {
    let o = cltap(&[&"render", &trace, &"--output", &out, &"--threads", &threads.to_string()]);
    let only = |ext: &str| {
        std::fs::read_dir(out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.to_string_lossy().ends_with(ext))
            .map(|p| std::fs::read_to_string(p).unwrap())
    };
    let dir = out.to_string_lossy();
    Rendered {
        apilog: only(".apilog").unwrap_or_else(|| panic!("no API log: {}", o.stderr)),
        summary: only(".summary.json"),
        stderr: o.stderr.lines().filter(|l| !l.contains(&*dir)).map(|l| format!("{l}\n")).collect(),
    }
}
