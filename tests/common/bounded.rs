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
