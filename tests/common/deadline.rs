//! A program run under a deadline that reports where it was stuck: a test
//! whose program forks (and whose children could wait for ever on a lock
//! left held by the fork) fails at the deadline with the processes still
//! alive and each thread's state and stack, instead of stalling the suite.

use super::Outcome;
use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Runs `c` to its end, or fails the test after `limit`, naming `what` and
/// what every process of the program's tree was doing; those processes are
/// then killed (by pid: they are this test's).
pub fn run_within(mut c: Command, limit: Duration, what: &str) -> Outcome {
    let mut child = c.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    let root = child.id();
    // The pipes are read on threads of their own: a forked child still
    // alive at the deadline keeps them open.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            String::from_utf8_lossy(&v).into_owned()
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let status = match rx.recv_timeout(limit) {
        Ok(s) => s.expect("wait"),
        Err(_) => {
            let tree = descendants(root);
            let report: Vec<String> = tree.iter().map(|&p| where_stuck(p)).collect();
            for &p in tree.iter().rev() {
                // SAFETY: a plain signal to a process of this test's tree.
                unsafe { libc::kill(p as i32, libc::SIGKILL) };
            }
            panic!(
                "{what}: still running after {} s; processes alive (the program {root} and its descendants): {tree:?}\n{}",
                limit.as_secs(),
                report.join("\n")
            );
        }
    };
    Outcome { code: status.code(), signal: status.signal(), stdout: out.join().unwrap(), stderr: err.join().unwrap() }
}

/// `root` and every process below it, parents first.
fn descendants(root: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let pid: u32 = e.file_name().to_str()?.parse().ok()?;
            Some((pid, ppid(pid)?))
        })
        .collect();
    let mut tree = vec![root];
    let mut i = 0;
    while i < tree.len() {
        let p = tree[i];
        tree.extend(parents.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        i += 1;
    }
    tree
}

/// The parent in `/proc/PID/stat` (the field after the parenthesised name).
fn ppid(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()
}

/// Each thread's name, state and kernel wait channel, and, where gdb is
/// installed, every thread's stack.
fn where_stuck(pid: u32) -> String {
    let mut s = format!("process {pid}:");
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).into_iter().flatten().flatten();
    for t in tasks {
        let dir = t.path();
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_default().trim().to_string();
        let state = read("stat").rsplit_once(')').map(|(_, r)| r.split_whitespace().next().unwrap_or("").to_string());
        s += &format!(
            "\n  thread {} {:?}: state {} wchan {}",
            t.file_name().to_string_lossy(),
            read("comm"),
            state.unwrap_or_default(),
            read("wchan")
        );
    }
    let gdb = Command::new("gdb")
        .args(["-p", &pid.to_string(), "-batch", "-ex", "thread apply all bt 30"])
        .stdin(Stdio::null())
        .output();
    match gdb {
        Ok(o) => {
            let text = String::from_utf8_lossy(&o.stdout);
            for l in text.lines().filter(|l| l.starts_with('#') || l.starts_with("Thread ")) {
                s += "\n    ";
                s += &l.chars().take(200).collect::<String>();
            }
        }
        Err(e) => s += &format!("\n  (no stacks: gdb: {e})"),
    }
    s
}
