//! cltap on Debian's real ROCr 5.2.3 and HIP 5.2.3, over cltap's emulated gfx906 (`gpu-emu/`, a GPU
//! emulator for tests, never a driver; see docs/gpu-emu.md). The applications see exactly what they
//! see without cltap, under every setting; cltap's files hold what they did.

mod common;
use common::emu::{built, cltap_on_emu, on_emu};
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn emu_client(args: &[&str]) -> (PathBuf, Vec<String>) {
    let co = built().join("kernels.co").display().to_string();
    let mut all = vec![co];
    all.extend(args.iter().map(|a| a.to_string()));
    (built().join("emu_client"), all)
}

/// What an application's run shows, less what moves from run to run: the emulator's packet log,
/// cltap's own `cltap:` lines (cltap run's report), the libraries the client lists (in the order the
/// dynamic linker keeps) and the profiling times it prints. Also left out: Debian's ROCr (built
/// with assertions as warnings) prints "Use of non-host signal in host signal wait API" when HIP
/// waits on the host for one of its GPU-only copy signals whose copy is still running; whether it
/// still runs is the emulator's timing, and the line comes without cltap too (once in 16 parallel
/// runs of the HIP client here).
fn seen(o: &Outcome) -> (Option<i32>, String, String) {
    let stdout: Vec<String> = o
        .stdout
        .lines()
        .filter(|l| !l.contains(": loaded "))
        .map(|l| l.split(", times within").next().unwrap().to_string())
        .collect();
    let stderr: Vec<&str> = o
        .stderr
        .lines()
        .filter(|l| !l.starts_with("gpu-emu: ") && !l.starts_with("cltap: "))
        .filter(|l| !l.contains("\"Use of non-host signal in host signal wait API.\""))
        .collect();
    (o.code, stdout.join("\n"), stderr.join("\n"))
}

fn app_alone(app: &Path, args: &[String]) -> Outcome {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run(on_emu(app, &args));
    assert_eq!(o.code, Some(0), "without cltap\nstdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    o
}

fn under_cltap(dir: &Path, options: &[&str], app: &Path, args: &[String]) -> Outcome {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run(cltap_on_emu(dir, options, app, &args))
}

/// Settings every application is run under: the interception modes, with and without the `.atp`
/// (async-copy timing), the timeline and counters.
const SETTINGS: &[&[&str]] = &[
    &[],
    &["--atp"],
    &["--hsa-intercept", "1", "--atp", "--timeline"],
    &["--hsa-intercept", "2", "--atp", "--timeline"],
    &["--hsa-intercept", "2", "--atp", "--counters", "SQ_WAVES,GRBM_COUNT"],
];

/// The HSA client reads its own async-copy times after its copies: with cltap timing the copies
/// (`--atp`) it still gets them, and everything else it prints is the same; nothing on stderr but
/// what it prints without cltap (no finalizer line, no ROCr time-stamp warning).
#[test]
fn the_hsa_client_sees_the_same_under_every_setting() {
    let (app, args) = emu_client(&[]);
    let alone = seen(&app_alone(&app, &args));
    for (k, options) in SETTINGS.iter().enumerate() {
        let out = scratch(&format!("real-emu-client-{k}"));
        let o = under_cltap(&out, options, &app, &args);
        assert_eq!(seen(&o), alone, "{options:?}\nstdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
        assert!(!o.stderr.contains("finalizer"), "{options:?}: {}", o.stderr);
        if options.contains(&"--atp") {
            let text = std::fs::read_to_string(only_file(&out, ".atp")).unwrap();
            let atp = cltap_formats::atp::read(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            let copies: Vec<_> = atp
                .hsa_timestamps
                .iter()
                .flat_map(|b| b.items.iter())
                .filter(|t| t.name == "hsa_amd_memory_async_copy")
                .collect();
            assert_eq!(copies.len(), 4, "{options:?}: {copies:?}");
            for t in copies {
                let c = t.copy.unwrap_or_else(|| panic!("{options:?}: async-copy times: {t:?}"));
                // The copy's times are the GPU's converted by ROCr, the call's the host's: only
                // each pair is ordered.
                assert!(c.start != 0 && c.start <= c.end && t.start <= t.end, "{options:?}: {t:?}");
            }
        }
    }
}

/// `rocminfo` prints the same bytes with cltap as a tool library.
#[test]
fn rocminfo_is_byte_identical_under_cltap() {
    let _ = built();
    let alone = run(on_emu(Path::new("rocminfo"), &[]));
    assert_eq!(alone.code, Some(0), "{}", alone.stderr);
    for options in [&["--hsa-intercept", "2", "--atp"][..], &[]] {
        let out = scratch("real-rocminfo");
        let o = under_cltap(&out, options, Path::new("/usr/bin/rocminfo"), &[]);
        assert_eq!(o.code, Some(0), "{}", o.stderr);
        assert!(o.stdout == alone.stdout, "{options:?}: rocminfo's output differs:\n{}", o.stdout);
    }
}

/// The HIP client (a vector add, hipMemset, device-to-device copies, events, two streams and a
/// kernel launched 10,000 times) prints the same under every setting, and with interception every
/// dispatch the emulator ran on the application's queues is in the `.atp` with its kernel's name.
#[test]
fn the_hip_client_sees_the_same_under_every_setting_and_its_dispatches_are_named() {
    let app = built().join("hip_client");
    let plain = app_alone(&app, &[]);
    let alone = seen(&plain);
    // The emulator's log of what ran, by kernel name: HIP's kernels (ROCr's blits are not HIP's).
    let mut ran: std::collections::BTreeMap<String, usize> = Default::default();
    for l in plain.stderr.lines() {
        if let Some(rest) = l.split(": dispatch ").nth(1) {
            let name = rest.split(' ').next().unwrap();
            if !rest.starts_with("ROCr blit") {
                *ran.entry(format!("{name}.kd")).or_default() += 1;
            }
        }
    }
    assert_eq!(ran.get("inc_u32.kd"), Some(&10_000), "{ran:?}");
    // Counters too: each counted dispatch becomes three packets on ROCr's hidden queue, which
    // 10,000 launches fill; cltap waits for room there (docs/counters.md#a-full-queue).
    let settings = SETTINGS.iter();
    for (k, options) in settings.enumerate() {
        let out = scratch(&format!("real-hip-{k}"));
        let o = under_cltap(&out, options, &app, &[]);
        assert!(!o.stderr.contains("finalizer"), "{options:?}: {}", o.stderr);
        assert_eq!(
            seen(&o),
            alone,
            "{options:?}\nstderr:\n{}",
            o.stderr.lines().take(40).collect::<Vec<_>>().join("\n")
        );
        if options.contains(&"2") && options.contains(&"--atp") {
            let text = std::fs::read_to_string(only_file(&out, ".atp")).unwrap();
            let atp = cltap_formats::atp::read(&text).unwrap_or_else(|e| panic!("{e}"));
            let mut named: std::collections::BTreeMap<String, usize> = Default::default();
            for d in &atp.kernel_dispatches {
                *named.entry(d.kernel_name.clone()).or_default() += 1;
                assert!(d.start <= d.end, "{d:?}");
            }
            assert_eq!(named, ran, "{options:?}: dispatches in the .atp by name, against the emulator's log");
        }
        if options.contains(&"--counters") {
            let rows = std::fs::read_to_string(only_file(&out, ".results.csv")).unwrap();
            let counted = rows.lines().filter(|l| l.contains("inc_u32")).count();
            assert_eq!(counted, 10_000, "{options:?}: a counter row for every launch of inc_u32");
        }
    }
}

/// `HSA_TOOLS_LIB` naming cltap twice: two paths of one file (one image for the dynamic linker),
/// and the user's setting plus `cltap run --hsa`. cltap is loaded and records once.
#[test]
fn cltap_named_twice_records_once() {
    let (app, args) = emu_client(&[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let links = scratch("real-twice-links");
    let (a, b) = (links.join("a.so"), links.join("b.so"));
    std::os::unix::fs::symlink(layer(), &a).unwrap();
    std::os::unix::fs::symlink(layer(), &b).unwrap();
    let once = |o: &Outcome, dir: &Path, what: &str| {
        assert_eq!(o.code, Some(0), "{what}\nstdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
        let log = std::fs::read_to_string(only_file(dir, ".apilog")).unwrap();
        assert_eq!(log.lines().filter(|l| l.contains(" hsa_init() = ")).count(), 1, "{what}:\n{log}");
        assert_eq!(log.lines().filter(|l| l.starts_with("# HSA agent 1:")).count(), 1, "{what}:\n{log}");
    };
    // Set by hand: ROCr loads both names, one image.
    let out = scratch("real-twice-env");
    let mut c = on_emu(&app, &args);
    c.env("HSA_TOOLS_LIB", format!("{} {}", a.display(), b.display()))
        .env("CLTAP_OUTPUT_DIR", &*out)
        .env("CLTAP_API_LOG", "1");
    once(&run(c), &out, "two paths");
    // The user's setting plus `cltap run --hsa`: cltap adds nothing.
    let out = scratch("real-twice-run");
    let mut c = cltap_on_emu(&out, &[], &app, &args);
    c.env("HSA_TOOLS_LIB", &a);
    once(&run(c), &out, "cltap run");
}

/// A copy of the layer's file is a second image: the one loaded second stands aside, with one line.
#[test]
fn a_copy_of_cltap_named_with_it_stands_aside() {
    let (app, args) = emu_client(&[]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let dir = scratch("real-copy-lib");
    let copy = dir.join("libcltap_copy.so");
    std::fs::copy(layer(), &copy).unwrap();
    let out = scratch("real-copy-out");
    let mut c = on_emu(&app, &args);
    c.env("HSA_TOOLS_LIB", format!("{} {}", copy.display(), layer().display()))
        .env("CLTAP_OUTPUT_DIR", &*out)
        .env("CLTAP_API_LOG", "1");
    let o = run(c);
    assert_eq!(o.code, Some(0), "stdout:\n{}\nstderr:\n{}", o.stdout, o.stderr);
    let lines: Vec<&str> = o.stderr.lines().filter(|l| l.contains("already records")).collect();
    assert_eq!(lines.len(), 1, "{}", o.stderr);
    assert!(lines[0].contains("libcltap_copy.so") && lines[0].contains("libcltap_layer.so"), "{}", lines[0]);
    let log = std::fs::read_to_string(only_file(&out, ".apilog")).unwrap();
    assert_eq!(log.lines().filter(|l| l.contains(" hsa_init() = ")).count(), 1, "{log}");
}

/// The harness runs HSA programs on Debian's ROCr (`tests/hsa/programs.c`, linked by soname): the
/// dynamic loader says which `libhsa-runtime64.so.1` it initialised.
#[test]
fn the_harness_loads_debians_rocr() {
    let dir = scratch("real-harness-which");
    let mut c = on_hsa(hsa_programs(), &dir);
    c.arg("info").env("LD_DEBUG", "libs");
    let o = run(c);
    let tail = o.stderr.lines().rev().take(20).collect::<Vec<_>>().join("\n");
    assert_eq!(o.code, Some(0), "{}\n{tail}", o.stdout);
    let inits: Vec<&str> =
        o.stderr.lines().filter(|l| l.contains("calling init:") && l.contains("libhsa-runtime64")).collect();
    assert_eq!(inits.len(), 1, "{inits:?}");
    assert!(inits[0].trim_end().ends_with(&format!("{SYSTEM_LIBS}/libhsa-runtime64.so.1")), "{inits:?}");
}

/// `hsa-api/hsa_api_trace_c.h`, the C view of ROCr's API tables that the C tools of the tests use,
/// against Debian's C++ `hsa_api_trace.h`: `hsa-api/layout_check.cpp` static-asserts every table's
/// size and every member's offset, type and signature; it only has to compile.
#[test]
fn the_c_view_of_the_api_tables_matches_debians_header() {
    assert!(
        Path::new("/usr/include/hsa/hsa_api_trace.h").is_file(),
        "libhsa-runtime-dev is not installed (run scripts/setup.sh)"
    );
    let o = Command::new("g++")
        .args(["-std=c++17", "-fsyntax-only", "-Wall", "-DAMD_INTERNAL_BUILD", "-I/usr/include/hsa", "-I."])
        .arg("layout_check.cpp")
        .current_dir(root().join("hsa-api"))
        .output()
        .expect("run g++");
    assert!(o.status.success(), "layout_check.cpp does not compile:\n{}", String::from_utf8_lossy(&o.stderr));
}
