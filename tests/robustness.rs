//! The layer never breaks the host: no driver, bad settings, empty driver
//! slots, several drivers behind one ICD, and the call tally proving that
//! calls really pass through cltap in each mode.

mod common;
use common::*;
use std::process::Command;

fn clinfo(drivers: &[Driver], loader: Loader, mode: Mode) -> Command {
    command(std::path::Path::new("clinfo"), &[], drivers, loader, mode)
}

#[test]
fn icd_mode_without_a_real_driver_reports_zero_platforms_and_says_why() {
    for loader in [Loader::OclIcd, Loader::Khronos] {
        let mut c = clinfo(&[Driver::Pocl], loader, Mode::Icd);
        c.env("CLTAP_ICD_FILENAMES", "/nonexistent/libnothere.so");
        let o = run(c);
        let lines: Vec<&str> = o.stderr.lines().filter(|l| l.starts_with("cltap:")).collect();
        assert_eq!(lines.len(), 1, "{loader:?}: one message expected, got:\n{}", o.stderr);
        assert!(lines[0].contains("/nonexistent/libnothere.so") && lines[0].contains("zero platforms"), "{}", lines[0]);
        assert!(o.stdout.contains("Number of platforms                               0"), "{loader:?}:\n{}", o.stdout);
        assert_eq!(o.code, Some(0), "clinfo must not crash");
    }
}

#[test]
fn bad_settings_get_one_message_and_the_application_runs_unchanged() {
    let prog = programs().join("queues");
    let plain = run(command(&prog, &[], &[Driver::Pocl], Loader::OclIcd, Mode::Plain));
    for (var, value) in [
        ("CLTAP_SUMMARY", "maybe"),
        // A folder that cannot be created (one that is missing is).
        ("CLTAP_OUTPUT_DIR", "/dev/null/cltap"),
        ("CLTAP_SUMARY", "1"),
        ("CLTAP_API_LOG", "sometimes"),
        ("CLTAP_LOG", "syslog"),
        ("CLTAP_LOG_DECODE", "2"),
        ("CLTAP_LOG_FILTER", "cl Get"),
        ("CLTAP_BUFFER_SIZE", "12"),
        ("CLTAP_BUFFER_WATERMARK", "150%"),
        ("CLTAP_BUFFER_POLICY", "drop"),
    ] {
        for mode in [Mode::Layer, Mode::Icd] {
            let mut c = command(&prog, &[], &[Driver::Pocl], Loader::OclIcd, mode);
            c.env(var, value);
            let o = run(c);
            assert_eq!(o.stdout, plain.stdout, "{var}={value} {mode:?}: output changed");
            assert_eq!(o.code, plain.code);
            let msgs: Vec<&str> = o.stderr.lines().filter(|l| l.starts_with("cltap:")).collect();
            assert_eq!(msgs.len(), 1, "{var}={value} {mode:?}: {:?}", msgs);
            assert!(
                msgs[0].contains(var) && msgs[0].contains(value) && msgs[0].contains("pass-through"),
                "{}",
                msgs[0]
            );
            assert!(!o.stderr.contains("calls passed through"), "recording must be off");
            assert!(!o.stderr.contains("TID "), "no API log either");
        }
    }
}

#[test]
fn a_missing_output_folder_is_created() {
    let d = scratch("outdir");
    let want = d.join("not/yet");
    let mut c = command(&programs().join("queues"), &[], &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
    c.env("CLTAP_OUTPUT_DIR", &want);
    let o = run(c);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    assert!(!o.stderr.contains("cltap:"), "no message: {}", o.stderr);
    let logs: Vec<_> = std::fs::read_dir(&want)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "apilog"))
        .collect();
    assert_eq!(logs.len(), 1);
}

/// Parses the tally cltap prints at exit into (API, calls).
fn tally(stderr: &str) -> Vec<(String, u64)> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("cltap:   "))
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let name = it.next()?;
            let calls = it.next()?.parse().ok()?;
            name.starts_with("cl").then(|| (name.to_string(), calls))
        })
        .collect()
}

#[test]
fn both_modes_see_the_same_calls() {
    let prog = programs().join("enqueue");
    let mut seen = Vec::new();
    for mode in [Mode::Layer, Mode::Icd] {
        let mut c = command(&prog, &[], &[Driver::Pocl], Loader::OclIcd, mode);
        c.env("CLTAP_SUMMARY", "1");
        let o = run(c);
        assert_eq!(o.code, Some(0), "{}", o.stderr);
        let mut t: Vec<(String, u64)> = tally(&o.stderr)
            .into_iter()
            // In ICD mode the loader itself also queries cltap's platforms
            // while it discovers drivers; those calls are not the program's.
            .filter(|(n, _)| !matches!(n.as_str(), "clIcdGetPlatformIDsKHR" | "clGetPlatformIDs" | "clGetPlatformInfo"))
            .collect();
        t.sort();
        assert!(t.iter().any(|(n, c)| n == "clEnqueueNDRangeKernel" && *c > 0), "{mode:?}: {t:?}");
        seen.push(t);
    }
    assert_eq!(seen[0], seen[1], "layer mode and ICD mode must record the same calls");
}

#[test]
fn three_drivers_behind_one_icd() {
    // ocl-icd lists a vendor directory in its own order; cltap is given the
    // same order so that the two platform lists can be compared whole.
    let plain = run(clinfo(&Driver::ALL, Loader::OclIcd, Mode::Plain));
    assert_eq!(plain.code, Some(0));
    let order: Vec<Driver> = plain
        .stdout
        .lines()
        .filter(|l| l.trim_start().starts_with("Platform Name"))
        .take(3)
        .map(|l| {
            if l.contains("Portable Computing Language") {
                Driver::Pocl
            } else if l.contains("Oclgrind") {
                Driver::Oclgrind
            } else {
                Driver::Intel
            }
        })
        .collect();
    assert_eq!(order.len(), 3, "{}", plain.stdout);
    let icd = run(clinfo(&order, Loader::OclIcd, Mode::Icd));
    if let Some(d) = difference("clinfo with three drivers behind cltap", &plain, &icd) {
        panic!("{d}");
    }
}

#[test]
fn empty_driver_slot_answers_invalid_operation() {
    // PoCL leaves clSetCommandQueueProperty empty; ocl-icd would jump to
    // address 0. Through cltap the call returns CL_INVALID_OPERATION.
    let exe = special("null_slot.c", "null_slot");
    for mode in [Mode::Layer, Mode::Icd] {
        let o = run(command(&exe, &[], &[Driver::Pocl], Loader::OclIcd, mode));
        assert_eq!(o.code, Some(0), "{mode:?}: {}{}", o.stdout, o.stderr);
        assert!(o.stdout.contains("clSetCommandQueueProperty: -59"), "{mode:?}: {}", o.stdout);
        assert!(o.stderr.contains("clSetCommandQueueProperty: the driver has no entry"), "{mode:?}: {}", o.stderr);
    }
}
