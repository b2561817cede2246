//! Calls an application makes while it exits are recorded like any other:
//! from an exit handler that runs after the C library has run the main
//! thread's thread-local destructors (it runs them before the exit
//! handlers), whether it runs before cltap's own exit handler or after it
//! (cltap closes its trace in its finaliser, after every exit handler).
//! Calls from finalisers of libraries that run after cltap's are counted
//! and reported, never lost silently.

mod common;
use common::*;

/// `calls WHEN N` under cltap in both modes: its output and status are
/// those without cltap, nothing is said on stderr, and the log has the N
/// numbered calls in order and a trailer with nothing dropped.
fn exit_calls_reach_the_api_log(when: &str, n: u64) {
    let calls = special("calls.c", "calls-exit");
    for (mode, loader) in [(Mode::Layer, Loader::OclIcd), (Mode::Icd, Loader::Khronos)] {
        let args = [when, &n.to_string()];
        let plain = run(command(&calls, &args, &[Driver::Pocl], loader, Mode::Plain));
        let d = scratch("exit-calls");
        let mut c = command(&calls, &args, &[Driver::Pocl], loader, mode);
        c.env("CLTAP_OUTPUT_DIR", &*d);
        let o = run(c);
        assert_eq!((o.code, &o.stdout, o.stderr.as_str()), (plain.code, &plain.stdout, ""), "{mode:?}");
        let log = only_file(&d, ".apilog");
        assert_eq!(numbered_calls(&log), (1..=n).collect::<Vec<_>>(), "{mode:?}");
        let last = std::fs::read_to_string(&log).unwrap().lines().last().unwrap_or("").to_string();
        assert!(last.starts_with("# end: ") && last.ends_with(" 0 dropped"), "{mode:?}: {last}");
    }
}

/// Calls from an exit handler registered after the first OpenCL call,
/// which runs before cltap's own.
#[test]
fn calls_from_exit_handlers_reach_the_api_log() {
    exit_calls_reach_the_api_log("at-exit", 200);
}

/// The same on Debian's real ROCr over the emulated GPU: HSA calls from an
/// exit handler, the last an `hsa_shut_down` inside which ROCr unloads
/// cltap, are all recorded, in order.
#[test]
fn hsa_calls_from_an_exit_handler_reach_the_api_log() {
    let exe = root().join("target/ctests/hsa_at_exit");
    std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
    let src = root().join("tests/hsa/at_exit.c");
    gcc(
        "tests/hsa/at_exit.c",
        [
            "-std=c11".as_ref(),
            "-O1".as_ref(),
            "-Wall".as_ref(),
            "-Werror".as_ref(),
            src.as_os_str(),
            "-o".as_ref(),
            exe.as_os_str(),
            "-lhsa-runtime64".as_ref(),
        ],
    );
    let d = scratch("hsa-exit-calls");
    let mut c = on_hsa(&exe, &d);
    c.arg("7").env("HSA_TOOLS_LIB", layer()).env("CLTAP_OUTPUT_DIR", &*d);
    let o = run(c);
    assert_eq!((o.code, o.stdout.as_str()), (Some(0), "at_exit: 7 signals at exit\n"), "{}", o.stderr);
    let text = std::fs::read_to_string(only_file(&d, ".apilog")).unwrap();
    let initial: Vec<u64> = text
        .lines()
        .filter(|l| l.contains(" hsa_signal_create("))
        .filter_map(|l| l.split("hsa_signal_value_t initial_value = ").nth(1)?.split(',').next()?.trim().parse().ok())
        .collect();
    assert_eq!(initial, (1..=7).collect::<Vec<u64>>(), "{text}");
    assert_eq!(text.lines().filter(|l| l.contains(" hsa_shut_down(")).count(), 1, "{text}");
    assert!(text.lines().last().unwrap().ends_with(" 0 dropped"), "{text}");
}

/// Calls from an exit handler registered before the first OpenCL call,
/// which runs after cltap's own.
#[test]
fn calls_from_exit_handlers_after_cltaps_own_reach_the_api_log() {
    exit_calls_reach_the_api_log("at-exit-early", 37);
}

/// Calls from the finaliser of a library the application links, which the
/// dynamic linker runs after every exit handler: glibc 2.36 runs cltap's
/// finaliser (a library pinned, loaded later) after it, so they are all in
/// the log, in order. (Calls that come after cltap's finaliser, on a C
/// library that orders them otherwise, are counted and reported by one
/// stderr line: docs/limits.md.)
#[test]
fn calls_from_a_librarys_finaliser_reach_the_api_log() {
    let dir = root().join("target/ctests");
    std::fs::create_dir_all(&dir).unwrap();
    let lib = dir.join("liblate_lib.so");
    let src = root().join("tests/c/special/late_lib.c");
    gcc(
        "tests/c/special/late_lib.c",
        [
            "-std=c11".as_ref(),
            "-O1".as_ref(),
            "-Wall".as_ref(),
            "-Werror".as_ref(),
            "-shared".as_ref(),
            "-fPIC".as_ref(),
            src.as_os_str(),
            "-o".as_ref(),
            lib.as_os_str(),
            "-lOpenCL".as_ref(),
        ],
    );
    let exe = dir.join("late-lib-app");
    let main = dir.join("late_lib_main.c");
    std::fs::write(&main, "int late_lib_linked(void);\nint main(void) { return late_lib_linked(); }\n").unwrap();
    let (libdir, rpath) = (format!("-L{}", dir.display()), format!("-Wl,-rpath,{}", dir.display()));
    gcc(
        "the late-lib application",
        [
            main.as_os_str(),
            "-o".as_ref(),
            exe.as_os_str(),
            libdir.as_ref(),
            rpath.as_ref(),
            "-llate_lib".as_ref(),
            "-lOpenCL".as_ref(),
        ],
    );
    let plain = run({
        let mut c = command(&exe, &[], &[Driver::Pocl], Loader::OclIcd, Mode::Plain);
        c.env("LATE_LIB_CALLS", "5");
        c
    });
    assert_eq!((plain.code, plain.stderr.as_str()), (Some(0), ""));
    let d = scratch("late-lib");
    let mut c = command(&exe, &[], &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
    c.env("CLTAP_OUTPUT_DIR", &*d).env("LATE_LIB_CALLS", "5");
    let o = run(c);
    assert_eq!((o.code, &o.stdout, o.stderr.as_str()), (plain.code, &plain.stdout, ""));
    let log = only_file(&d, ".apilog");
    assert_eq!(numbered_calls(&log), (1..=5).collect::<Vec<_>>());
    let last = std::fs::read_to_string(&log).unwrap().lines().last().unwrap_or("").to_string();
    assert!(last.starts_with("# end: ") && last.ends_with(" 0 dropped"), "{last}");
}
