//! A watchdog for tests: with `GPU_EMU_WATCHDOG_S=N`, a process still running N seconds after it
//! opened "KFD" writes to stderr what the emulator holds (every event: signalled, waiters, sets;
//! every queue: read and write index) and every thread's stack (`gdb -p`, or each thread's kernel
//! wait channel where gdb is missing). It only reports: the process goes on, and whatever killed it
//! before (the tests' `timeout 60`) still does. A hang seen once under load then names where each
//! thread was, instead of an exit status 124 alone.

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

/// `GPU_EMU_WATCHDOG_S=N`: report after N seconds (1 to 3600).
pub const VARIABLE: &str = "GPU_EMU_WATCHDOG_S";
const MAX_S: u64 = 3600;

fn setting() -> Option<Duration> {
    let v = std::env::var(VARIABLE).ok()?;
    match v.parse::<u64>() {
        Ok(s) if (1..=MAX_S).contains(&s) => Some(Duration::from_secs(s)),
        _ => {
            crate::note(format_args!("{VARIABLE}={v}: not a number of seconds from 1 to {MAX_S}; no watchdog report"));
            None
        }
    }
}

/// Starts the watchdog once per process, if the variable asks for one.
pub fn start() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        if let Some(after) = setting() {
            // A thread that cannot start only loses the report.
            let _ = std::thread::Builder::new().name("gpu-emu-watchdog".into()).spawn(move || {
                // Waiting out the time is this thread's whole job; nothing waits for it.
                std::thread::sleep(after);
                report(after);
            });
        }
    });
}

/// The emulator's state as lines, for the report (and its unit test).
pub fn state() -> Vec<String> {
    let mut lines = crate::events::describe();
    lines.extend(crate::queues::describe());
    lines
}

fn report(after: Duration) {
    crate::note(format_args!(
        "watchdog: still running {} s after opening KFD ({VARIABLE}); the emulator's state and every thread's stack follow",
        after.as_secs()
    ));
    for line in state() {
        crate::note(format_args!("watchdog: {line}"));
    }
    let pid = std::process::id().to_string();
    let gdb = Command::new("gdb")
        .args(["-nx", "-batch", "-p", &pid, "-ex", "thread apply all bt 30"])
        .stdin(Stdio::null())
        .stdout(Stdio::from(std::io::stderr()))
        .stderr(Stdio::from(std::io::stderr()))
        .status();
    if !gdb.is_ok_and(|s| s.success()) {
        crate::note(format_args!("watchdog: no gdb; each thread's kernel wait channel instead"));
        for line in wait_channels() {
            crate::note(format_args!("watchdog: {line}"));
        }
    }
    let _ = std::io::stderr().flush();
}

/// `TID NAME STATE WCHAN` for every thread of this process, from /proc.
fn wait_channels() -> Vec<String> {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else { return Vec::new() };
    let read = |p: std::path::PathBuf| std::fs::read_to_string(p).unwrap_or_default().trim().to_string();
    dir.flatten()
        .map(|t| {
            let p = t.path();
            let stat = read(p.join("stat"));
            // The state is the field after the parenthesised name.
            let state = stat.rsplit(')').next().and_then(|s| s.split_whitespace().next()).unwrap_or("?").to_string();
            format!(
                "thread {} {:?} state {state} wchan {}",
                t.file_name().to_string_lossy(),
                read(p.join("comm")),
                read(p.join("wchan"))
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_names_every_event_with_its_waiters() {
        let mut desc =
            crate::sys::HsaEventDescriptor { EventType: crate::sys::HSA_EVENTTYPE_SIGNAL, ..Default::default() };
        let mut ev = std::ptr::null_mut();
        assert_eq!(
            crate::events::hsaKmtCreateEvent(&mut desc, false, false, &mut ev),
            crate::sys::HSAKMT_STATUS_SUCCESS
        );
        // SAFETY: the event just created.
        let id = unsafe { (*ev).EventId };
        assert_eq!(crate::events::hsaKmtSetEvent(ev), crate::sys::HSAKMT_STATUS_SUCCESS);
        let want = format!("event {id}: signal, automatic reset, signalled, 0 waiters, set 1 times");
        assert!(state().contains(&want), "{want:?} not in {:?}", state());
        assert_eq!(crate::events::hsaKmtDestroyEvent(ev), crate::sys::HSAKMT_STATUS_SUCCESS);
        assert!(!state().iter().any(|l| l.starts_with(&format!("event {id}:"))));
    }

    #[test]
    fn every_thread_has_a_wait_channel_line() {
        let lines = wait_channels();
        assert!(lines.iter().any(|l| l.starts_with(&format!("thread {} ", std::process::id()))), "{lines:?}");
    }
}
