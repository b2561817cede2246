//! The application as cltap's child process: started with cltap's
//! variables, the signals sent to cltap alone passed on to it, and how it
//! ended. `run` and the extra passes of a counter request both start it.

use std::process::Command;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::SystemTime;

static CHILD: AtomicI32 = AtomicI32::new(0);

extern "C" fn pass_on(sig: i32, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // A terminal's ^C already reaches the whole process group; only a signal
    // sent to cltap alone (kill) is passed on, so the application never gets
    // it twice.
    let from_user = unsafe { (*info).si_code } == libc::SI_USER || unsafe { (*info).si_code } == libc::SI_QUEUE;
    let pid = CHILD.load(Ordering::Relaxed);
    if from_user && pid > 0 {
        unsafe { libc::kill(pid, sig) };
    }
}

fn forward_signals() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT, libc::SIGUSR1, libc::SIGUSR2] {
        unsafe {
            let mut a: libc::sigaction = std::mem::zeroed();
            a.sa_sigaction = pass_on as *const () as usize;
            a.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
            libc::sigemptyset(&mut a.sa_mask);
            libc::sigaction(sig, &a, std::ptr::null_mut());
        }
    }
}

/// What a run left behind.
pub struct Outcome {
    pub code: i32,
    /// The signal that ended the application, if one did.
    pub signal: Option<i32>,
    pub pid: u32,
    pub started: SystemTime,
}

/// Runs `app` with `env` added, passing signals on; the exit code follows
/// the shell's convention (128 + signal).
pub fn spawn(app: &[String], env: &[(String, String)]) -> Result<Outcome, String> {
    let started = SystemTime::now();
    let mut cmd = Command::new(&app[0]);
    cmd.args(&app[1..]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().map_err(|e| format!("cannot run {}: {e}", app[0]))?;
    CHILD.store(child.id() as i32, Ordering::Relaxed);
    forward_signals();
    let st = child.wait().map_err(|e| e.to_string())?;
    use std::os::unix::process::ExitStatusExt;
    Ok(Outcome {
        code: st.code().unwrap_or_else(|| 128 + st.signal().unwrap_or(0)),
        signal: st.signal(),
        pid: child.id(),
        started,
    })
}

/// `SIGSEGV` for 11, and so on.
pub fn signal_name(sig: i32) -> String {
    let names = [
        (libc::SIGHUP, "SIGHUP"),
        (libc::SIGINT, "SIGINT"),
        (libc::SIGQUIT, "SIGQUIT"),
        (libc::SIGILL, "SIGILL"),
        (libc::SIGTRAP, "SIGTRAP"),
        (libc::SIGABRT, "SIGABRT"),
        (libc::SIGBUS, "SIGBUS"),
        (libc::SIGFPE, "SIGFPE"),
        (libc::SIGKILL, "SIGKILL"),
        (libc::SIGUSR1, "SIGUSR1"),
        (libc::SIGSEGV, "SIGSEGV"),
        (libc::SIGUSR2, "SIGUSR2"),
        (libc::SIGPIPE, "SIGPIPE"),
        (libc::SIGALRM, "SIGALRM"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGXCPU, "SIGXCPU"),
        (libc::SIGXFSZ, "SIGXFSZ"),
        (libc::SIGSYS, "SIGSYS"),
    ];
    names.iter().find(|(n, _)| *n == sig).map_or_else(|| format!("signal {sig}"), |(_, s)| s.to_string())
}
