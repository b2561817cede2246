//! The layer given a hostile environment (`tests/hostile/README.md`): a full
//! disk, a buffer size the reader would refuse, values that are not UTF-8,
//! request files that include devices, an argument with a line break. In
//! each the application runs as it does without cltap (same exit status and
//! output), cltap says what is wrong in one line, and what it wrote reads
//! back.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn vecadd() -> PathBuf {
    programs().join("vecadd")
}

fn cltap_lines(o: &Outcome) -> Vec<&str> {
    o.stderr.lines().filter(|l| l.starts_with("cltap:")).collect()
}

/// The application in layer mode with `env`, and its outcome without cltap.
fn with_and_without(env: &[(&str, &std::ffi::OsStr)]) -> (Outcome, Outcome) {
    let plain = run(command(&vecadd(), &["1024"], &[Driver::Pocl], Loader::OclIcd, Mode::Plain));
    let mut c = command(&vecadd(), &["1024"], &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
    for (k, v) in env {
        c.env(k, v);
    }
    (run(c), plain)
}

#[test]
fn a_buffer_size_the_reader_would_refuse_is_one_line_and_pass_through() {
    let (o, plain) = with_and_without(&[("CLTAP_BUFFER_SIZE", "16G".as_ref())]);
    assert_eq!((o.code, &o.stdout), (plain.code, &plain.stdout));
    let lines = cltap_lines(&o);
    assert_eq!(lines.len(), 1, "{}", o.stderr);
    assert!(
        lines[0].contains("CLTAP_BUFFER_SIZE=\"16G\" is not valid (accepted: a byte count from 4096 to 4G"),
        "{}",
        lines[0]
    );
}

#[test]
fn a_value_that_is_not_utf8_is_one_line_and_pass_through() {
    use std::os::unix::ffi::OsStrExt;
    let d = scratch("hostile-utf8");
    let dir = d.join("out").into_os_string();
    let mut bad = dir.as_bytes().to_vec();
    bad.push(0xff);
    let (o, plain) = with_and_without(&[("CLTAP_OUTPUT_DIR", std::ffi::OsStr::from_bytes(&bad))]);
    assert_eq!((o.code, &o.stdout), (plain.code, &plain.stdout));
    let lines = cltap_lines(&o);
    assert_eq!(lines.len(), 1, "{}", o.stderr);
    assert!(lines[0].contains("(accepted: UTF-8 text); cltap continues as a pure pass-through"), "{}", lines[0]);
    assert!(std::fs::read_dir(&*d).unwrap().next().is_none(), "nothing recorded");
}

#[test]
fn request_files_that_include_devices_do_not_read_them() {
    let d = scratch("hostile-rocp");
    // ROCP_METRICS goes through the same reader when a GPU's counters are
    // planned (tests/hostile.rs reads such a file with `cltap metrics`).
    for (var, dev) in [("ROCP_INPUT", "/dev/zero"), ("ROCP_INPUT", "/dev/stdin")] {
        let f = d.join("input.xml");
        std::fs::write(&f, format!("#include \"{dev}\"\n<metric name=\"SQ_WAVES\"></metric>\n")).unwrap();
        let mut c = command(&vecadd(), &["1024"], &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
        c.env(var, &f).env("CLTAP_OUTPUT_DIR", &*d);
        // A stdin that never ends: reading it would hang the application.
        c.stdin(std::process::Stdio::piped());
        let mut child = c.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
        let _keep_open = child.stdin.take();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{var} {dev}: {stderr}");
        assert!(
            // A pipe has no path to resolve; a device is not a regular file.
            stderr.contains(&format!("cannot read included file '{dev}': ")),
            "{var} {dev}: {stderr}"
        );
    }
}

#[test]
fn an_argument_with_a_line_break_leaves_a_log_cltap_reads() {
    let d = scratch("hostile-arg");
    let o = Command::new(root().join("target/release/cltap"))
        .current_dir(&*d)
        .args(["run", "--no-summary", "--driver"])
        .arg(Driver::Pocl.library())
        .arg("--")
        .arg(vecadd())
        .args(["1024", "x\nTID oops"])
        .env_remove("OPENCL_LAYERS")
        .output()
        .unwrap();
    let plain = Command::new(vecadd())
        .args(["1024", "x\nTID oops"])
        .env("OCL_ICD_VENDORS", Driver::Pocl.library())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), plain.status.code(), "{}", String::from_utf8_lossy(&o.stderr));
    let log = only_file(&d, "apilog");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.lines().any(|l| l.starts_with("# application:") && l.contains("x\\nTID oops")), "{text}");
    let n = Command::new(root().join("target/release/cltap")).arg("normalize").arg(&log).output().unwrap();
    assert!(n.status.success(), "{}", String::from_utf8_lossy(&n.stderr));
}

/// Runs `script` (bash) in a private mount namespace, where it may mount a
/// tmpfs. As root that is `unshare -m`; otherwise a user namespace maps the
/// user to root in it (`unshare -r -m`), which unprivileged users may enter
/// where the kernel allows it. A machine that allows neither cannot run the
/// test, and the test fails saying so rather than pass without running.
fn in_mount_namespace(script: &str, env: &[(String, String)]) -> std::process::Output {
    let flags: &[&str] = if unsafe { libc::geteuid() } == 0 {
        &["-m", "--propagation", "private"]
    } else {
        &["-r", "-m", "--propagation", "private"]
    };
    let probe = Command::new("unshare").args(flags).arg("true").output();
    match &probe {
        Ok(o) if o.status.success() => {}
        Ok(o) => panic!(
            "this test mounts a 2 MiB tmpfs in a private mount namespace, and `unshare {}` failed: {} (run it as root, or allow unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1)",
            flags.join(" "),
            String::from_utf8_lossy(&o.stderr).trim()
        ),
        Err(e) => panic!("this test needs unshare(1) (util-linux) to mount a tmpfs in a private mount namespace: {e}"),
    }
    let mut c = Command::new("unshare");
    c.args(flags).args(["bash", "-euc", script]);
    c.envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    c.output().unwrap()
}

/// The environment `command` gives a layer-mode run, as pairs.
fn layer_env(args: &[&str]) -> Vec<(String, String)> {
    let c = command(&calls(), args, &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
    c.get_envs().filter_map(|(k, v)| Some((k.to_str()?.to_string(), v?.to_str()?.to_string()))).collect()
}

fn calls() -> PathBuf {
    special("calls.c", "calls-hostile")
}

/// The trailer's record and drop counts.
fn trailer_counts(log: &Path) -> (u64, u64) {
    let text = std::fs::read_to_string(log).unwrap();
    let nums: Vec<u64> =
        text.lines().last().unwrap().split(|c: char| !c.is_ascii_digit()).filter_map(|s| s.parse().ok()).collect();
    (nums[0], nums[1])
}

#[test]
fn a_full_disk_leaves_the_application_running_and_the_trace_readable() {
    let d = scratch("hostile-full");
    let args = ["stress", "1", "20000"];
    let plain = run(command(&calls(), &args, &[Driver::Pocl], Loader::OclIcd, Mode::Plain));
    // Two cases on a 2 MiB tmpfs: no room at all, and room for the header
    // and a few 64 KiB chunks but not for every call.
    for (free_kib, name) in [(0u64, "none"), (384, "some")] {
        let out = d.join(name);
        std::fs::create_dir_all(&out).unwrap();
        let script = format!(
            r#"fs={out}/fs; mkdir -p "$fs"; mount -t tmpfs -o size=2M none "$fs"
               fallocate -l $((2048 - {free_kib}))K "$fs/filler" 2>/dev/null || dd if=/dev/zero of="$fs/filler" bs=4k 2>/dev/null || true
               set +e; CLTAP_OUTPUT_DIR="$fs" CLTAP_BUFFER_SIZE=64K {app} {args} >{out}/stdout 2>{out}/stderr; echo $? >{out}/code; set -e
               for t in "$fs"/*.cltrace; do [ -e "$t" ] && {cltap} render "$t" --output {out}/rendered 2>{out}/render.err; done; true"#,
            out = out.display(),
            app = calls().display(),
            args = args.join(" "),
            cltap = root().join("target/release/cltap").display(),
        );
        let r = in_mount_namespace(&script, &layer_env(&args));
        assert!(r.status.success(), "{name}: {}", String::from_utf8_lossy(&r.stderr));
        let read = |f: &str| std::fs::read_to_string(out.join(f)).unwrap();
        let stderr = read("stderr");
        assert_eq!(read("code").trim().parse::<i32>().ok(), plain.code, "{name}: {stderr}");
        assert_eq!(read("stdout"), plain.stdout, "{name}: the application's own output");
        let msgs: Vec<&str> = stderr.lines().filter(|l| l.starts_with("cltap:")).collect();
        assert!(!msgs.is_empty() && msgs.len() <= 3, "{name}: a few clear lines: {msgs:?}");
        if free_kib == 0 {
            assert!(msgs.iter().any(|m| m.contains("No space left on device")), "{msgs:?}");
            continue;
        }
        assert!(msgs.iter().any(|m| m.contains("cannot grow")), "{msgs:?}");
        let (kept, dropped) = trailer_counts(&only_file(&out.join("rendered"), "apilog"));
        assert!(kept > 0 && dropped > 0, "{kept} kept, {dropped} dropped");
        // The program's calls: 20,000 on its thread and one clGetPlatformIDs;
        // and each thread's name record, first in its first chunk.
        let log = std::fs::read_to_string(only_file(&out.join("rendered"), "apilog")).unwrap();
        let threads: std::collections::HashSet<&str> =
            log.lines().filter(|l| l.starts_with("TID")).filter_map(|l| l.split_whitespace().nth(1)).collect();
        assert_eq!(kept + dropped, 20_001 + threads.len() as u64);
    }
}

/// A trace of 2 threads x 100,000 `clGetPlatformInfo` calls, in `d`, with
/// a summary.
fn bench_trace(d: &Path) -> PathBuf {
    let traced = d.join("traced");
    let cltap_bin = Path::new(env!("CARGO_BIN_EXE_cltap"));
    let mut c = command(
        cltap_bin,
        &["bench", "--child", "threads:2:100000", "--iterations", "1"],
        &[Driver::Pocl],
        Loader::OclIcd,
        Mode::Layer,
    );
    c.env("CLTAP_OUTPUT_DIR", &traced).env("CLTAP_RENDER", "0").env("CLTAP_SUMMARY", "1");
    let o = run(c);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    std::fs::read_dir(&traced)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "cltrace"))
        .unwrap()
}

/// A chunk damaged in the middle of its records renders the records before
/// the damage whatever the number of rendering threads: the parallel
/// renderer once dropped the whole chunk's API-log text where one thread
/// kept them. The API log, the summary and the damage report are the same
/// on 1, 2 and 4 threads, for the trace whole and damaged (workers write
/// the log's texts at their places and tally their chunks apart).
#[test]
fn a_damaged_chunk_renders_the_same_on_one_thread_and_on_several() {
    let d = scratch("hostile-damaged-chunk");
    let trace = bench_trace(&d);
    let render = |name: &str| -> Vec<common::bounded::Rendered> {
        [1, 2, 4].iter().map(|&t| common::bounded::rendered_on(&trace, &d.join(format!("{name}-{t}")), t)).collect()
    };
    let lines = |s: &str| s.lines().filter(|l| l.starts_with("TID")).count();
    let whole = render("whole");
    assert_eq!(lines(&whole[0].apilog), 200_001, "every call, and clGetPlatformIDs");
    assert!(whole[0].summary.as_ref().is_some_and(|s| s.contains("clGetPlatformInfo")), "{:?}", whole[0].summary);
    assert!(whole[0].stderr.contains("clGetPlatformInfo"), "the summary's table: {}", whole[0].stderr);
    for r in &whole[1..] {
        assert!(r == &whole[0], "the whole trace on several threads:\n{}\n{:?}", r.stderr, r.summary);
    }
    // Bytes that are no record, a little way into a chunk that is neither
    // the first nor the last.
    let chunks = cltap_formats::cltrace::Reader::open(&trace).unwrap().chunks().unwrap();
    assert!(chunks.len() >= 4, "{} chunks", chunks.len());
    let at = chunks[chunks.len() / 2].offset as usize + cltap_formats::cltrace::CHUNK_HEADER + 200;
    let mut bytes = std::fs::read(&trace).unwrap();
    bytes[at..at + 64].fill(0xFF);
    std::fs::write(&trace, bytes).unwrap();
    let logs = render("damaged");
    assert!(logs[0].stderr.contains("record"), "the damage is reported: {}", logs[0].stderr);
    assert!(lines(&logs[0].apilog) > 1000, "the records around the damage are rendered");
    assert!(lines(&logs[0].apilog) < 200_001, "the records after the damage in its chunk are not");
    for r in &logs[1..] {
        assert_eq!(lines(&logs[0].apilog), lines(&r.apilog), "the same records on 1 and several threads");
        assert!(r == &logs[0], "the damaged trace on several threads:\n{}\n{:?}", r.stderr, r.summary);
    }
}

/// An API log that cannot be written to its end (here, past a file-size
/// limit) ends where its text was whole, once, however many threads wrote
/// it: a prefix of the whole log, with no part of a text and no hole.
#[test]
fn an_api_log_cut_short_is_a_prefix_of_the_whole_log_on_any_number_of_threads() {
    use std::os::unix::process::CommandExt;
    let d = scratch("hostile-log-cut");
    let trace = bench_trace(&d);
    let whole = common::bounded::rendered_on(&trace, &d.join("whole"), 1).apilog;
    let limit: u64 = 10 << 20;
    assert!(whole.len() as u64 > 3 * limit, "{} bytes", whole.len());
    for threads in ["1", "3"] {
        let out = d.join(format!("cut-{threads}"));
        let mut c = Command::new(env!("CARGO_BIN_EXE_cltap"));
        c.args(["render", "--threads", threads, "--output"]).arg(&out).arg(&trace);
        // SAFETY: setrlimit and signal between fork and exec touch only the child.
        unsafe {
            c.pre_exec(move || {
                let r = libc::rlimit { rlim_cur: limit, rlim_max: limit };
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                if libc::setrlimit(libc::RLIMIT_FSIZE, &r) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let o = c.output().unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{threads}: {stderr}");
        assert_eq!(stderr.matches("the API log ends here").count(), 1, "{threads}: said once: {stderr}");
        let cut = std::fs::read(only_file(&out, "apilog")).unwrap();
        assert!(cut.len() as u64 > limit / 2 && cut.len() as u64 <= limit, "{threads}: {} bytes", cut.len());
        assert!(cut.ends_with(b"\n"), "{threads}: ends with a whole line");
        assert!(whole.as_bytes().starts_with(&cut), "{threads}: a prefix of the whole log");
    }
}
