//! Errors-only logging (`CLTAP_ERRORS_ONLY`, `cltap run --errors-only`) on
//! real drivers: PoCL through both loaders and in ICD mode, and HSA calls on
//! Debian's ROCr. The log holds exactly the calls that failed, with their
//! arguments and codes (a creator's code also where the application passed
//! no `errcode_ret`); the application sees what it sees without cltap; the
//! summary still counts every call.

mod common;
use cltap_formats::apilog::{self, Call, Entry};
use common::*;
use std::path::{Path, PathBuf};

fn program() -> PathBuf {
    special("errors_only.c", "errors_only")
}

/// Rounds of succeeding calls between the failures.
const ROUNDS: &str = "50";

fn calls_in(dir: &Path) -> Vec<Call> {
    let log = only_file(dir, ".apilog");
    let entries = apilog::read(&std::fs::read_to_string(&log).unwrap()).unwrap();
    entries.into_iter().filter_map(|e| if let Entry::Call(c) = e { Some(c) } else { None }).collect()
}

fn arg<'a>(c: &'a Call, name: &str) -> &'a str {
    &c.args.iter().find(|a| a.name == name).unwrap_or_else(|| panic!("{}: no {name}", c.name)).value
}

fn out<'a>(c: &'a Call, name: &str) -> &'a str {
    c.outs.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str()).unwrap_or_else(|| panic!("{}: no *{name}", c.name))
}

/// The failing calls `tests/c/special/errors_only.c` makes, as the log must
/// show them: name, one argument that tells it apart, and its status.
fn check_failures(calls: &[Call]) {
    let shown: Vec<&str> = calls.iter().map(|c| &*c.name).collect();
    assert_eq!(
        shown,
        [
            "clGetDeviceInfo",
            "clCreateBuffer",
            "clCreateBuffer",
            "clCreateKernel",
            "clSetKernelArg",
            "clEnqueueReadBuffer"
        ],
        "{calls:#?}"
    );
    assert_eq!(arg(&calls[0], "param_name"), "32767");
    assert_eq!(calls[0].result.as_deref(), Some("CL_INVALID_VALUE"));
    // No errcode_ret from the application: its NULL is shown, and the code
    // the driver gave cltap's own slot beside it.
    assert_eq!(arg(&calls[1], "size"), "0");
    assert_eq!(arg(&calls[1], "errcode_ret"), "0000000000000000");
    assert_eq!(out(&calls[1], "errcode_ret"), "NULL (CL_INVALID_BUFFER_SIZE)");
    assert_eq!(calls[1].result.as_deref(), Some("0000000000000000"));
    assert_ne!(arg(&calls[2], "errcode_ret"), "0000000000000000");
    assert_eq!(out(&calls[2], "errcode_ret"), "CL_INVALID_BUFFER_SIZE");
    assert_eq!(out(&calls[3], "errcode_ret"), "NULL (CL_INVALID_KERNEL_NAME)");
    assert_eq!(arg(&calls[4], "arg_index"), "99");
    assert_eq!(calls[4].result.as_deref(), Some("CL_INVALID_ARG_INDEX"));
    assert_eq!(arg(&calls[5], "offset"), "4096");
    assert_eq!(calls[5].result.as_deref(), Some("CL_INVALID_VALUE"));
    // Nothing was read before the calls: a record takes one clock reading after it.
    assert!(calls.iter().all(|c| c.duration_us == 0), "{calls:#?}");
}

#[test]
fn only_the_failed_calls_through_both_loaders_and_in_icd_mode() {
    let plain = run(command(&program(), &[ROUNDS], &[Driver::Pocl], Loader::OclIcd, Mode::Plain));
    assert_eq!(plain.code, Some(0), "{plain:?}");
    // The program saw the failures it expects (so the comparison below means something).
    assert!(plain.stdout.contains("clSetKernelArg(99) -49\n"), "{}", plain.stdout);
    assert!(plain.stdout.contains("clCreateKernel(no_such_kernel) is NULL 1\n"), "{}", plain.stdout);
    for (loader, mode) in [(Loader::OclIcd, Mode::Layer), (Loader::Khronos, Mode::Layer), (Loader::OclIcd, Mode::Icd)] {
        let dir = scratch("errors-only");
        let mut c = command(&program(), &[ROUNDS], &[Driver::Pocl], loader, mode);
        c.env("CLTAP_OUTPUT_DIR", &*dir).env("CLTAP_ERRORS_ONLY", "1").env("CLTAP_SUMMARY", "1");
        let with = run(c);
        assert_eq!(with.stdout, plain.stdout, "{loader:?} {mode:?}: the application saw other results");
        assert_eq!(with.code, Some(0));
        check_failures(&calls_in(&dir));
        check_counts(&dir, &format!("{loader:?} {mode:?}"));
    }
}

/// With `--decode`, a call that takes a kernel shows its name beside its
/// handle (learnt from the `clCreateKernel` that made it), and a failed
/// `clCreateKernel` the name it refused, in the whole log and in the log of
/// errors only.
#[test]
fn the_decoded_log_names_kernels_and_the_name_a_creation_refused() {
    let dir = scratch("decode-names");
    let mut c = command(&program(), &["2"], &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
    c.env("CLTAP_OUTPUT_DIR", &*dir).env("CLTAP_LOG_DECODE", "1");
    assert_eq!(run(c).code, Some(0));
    let calls = calls_in(&dir);
    let made = calls.iter().find(|c| c.name == "clCreateKernel" && c.result.as_deref() != Some("0000000000000000"));
    let handle = made.expect("clCreateKernel(k)").result.clone().unwrap();
    let named = format!("{handle} \"k\"");
    let ndranges: Vec<&Call> = calls.iter().filter(|c| c.name == "clEnqueueNDRangeKernel").collect();
    assert_eq!(ndranges.len(), 2);
    assert!(ndranges.iter().all(|c| arg(c, "kernel") == named), "{ndranges:#?}");
    let set = calls.iter().filter(|c| c.name == "clSetKernelArg");
    assert!(set.clone().count() > 0 && set.clone().all(|c| arg(c, "kernel") == named));
    let refused = |calls: &[Call]| {
        let c = calls.iter().find(|c| c.name == "clCreateKernel" && c.result.as_deref() == Some("0000000000000000"));
        arg(c.expect("the failed clCreateKernel"), "kernel_name").to_string()
    };
    assert!(refused(&calls).ends_with(" \"no_such_kernel\""), "{}", refused(&calls));

    let dir = scratch("decode-errors-only");
    let mut c = command(&program(), &["2"], &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
    c.env("CLTAP_OUTPUT_DIR", &*dir).env("CLTAP_LOG_DECODE", "1").env("CLTAP_ERRORS_ONLY", "1");
    assert_eq!(run(c).code, Some(0));
    let calls = calls_in(&dir);
    assert!(refused(&calls).ends_with(" \"no_such_kernel\""), "{}", refused(&calls));
}

/// The summary counts every call of the program, the failed ones as errors.
fn check_counts(dir: &Path, what: &str) {
    let s = summary_json(dir);
    let row = |api: &str| {
        let r = s["host"].as_array().unwrap().iter().find(|r| r["api"] == api).cloned();
        let r = r.unwrap_or_else(|| panic!("{what}: {api} not in {s}"));
        (r["calls"].as_u64().unwrap(), r["errors"].as_u64().unwrap())
    };
    assert_eq!(row("clGetDeviceInfo"), (51, 1), "{what}");
    assert_eq!(row("clEnqueueNDRangeKernel"), (50, 0), "{what}");
    assert_eq!(row("clCreateBuffer"), (3, 2), "{what}");
}

/// With nothing recorded, layer-mode wrappers forward on their fast path
/// (`bracket::fast`), which still counts every call and every failure.
#[test]
fn with_the_api_log_off_the_summary_still_counts_every_call_and_failure() {
    for (loader, mode) in [(Loader::OclIcd, Mode::Layer), (Loader::Khronos, Mode::Layer), (Loader::OclIcd, Mode::Icd)] {
        let dir = scratch("counted-only");
        let mut c = command(&program(), &[ROUNDS], &[Driver::Pocl], loader, mode);
        c.env("CLTAP_OUTPUT_DIR", &*dir).env("CLTAP_API_LOG", "0").env("CLTAP_SUMMARY", "1");
        let with = run(c);
        assert_eq!(with.code, Some(0), "{with:?}");
        assert!(with.stdout.contains("clSetKernelArg(99) -49\n"), "{}", with.stdout);
        check_counts(&dir, &format!("{loader:?} {mode:?}, API log off"));
    }
}

#[test]
fn cltap_run_errors_only_is_the_variable() {
    let dir = scratch("errors-only-run");
    let mut c = command(&root().join("target/release/cltap"), &[], &[Driver::Pocl], Loader::OclIcd, Mode::Plain);
    c.args(["run", "--no-summary", "--errors-only", "--output"]).arg(&*dir).arg("--").arg(program()).arg("3");
    let o = run(c);
    assert_eq!(o.code, Some(0), "{o:?}");
    check_failures(&calls_in(&dir));
}

#[test]
fn hsa_failures_are_logged_and_info_statuses_are_not() {
    let dir = scratch("errors-only-hsa");
    let app = [hsa_programs().as_os_str().to_owned(), "errors".into(), hsa_kernels().into_os_string()];
    let mut plain = on_hsa(hsa_programs(), &dir);
    plain.arg("errors").arg(hsa_kernels());
    let plain = run(plain);
    assert_eq!(plain.code, Some(0), "{plain:?}");
    assert!(plain.stdout.contains("iterate (break) 0x1\n"), "{}", plain.stdout);
    let with = run(cltap_run_hsa(&dir, &["--errors-only"], app));
    assert_eq!(with.code, Some(0), "{with:?}");
    assert_eq!(with.stdout, plain.stdout);
    let calls = calls_in(&dir);
    let shown: Vec<(&str, Option<&str>)> = calls.iter().map(|c| (&*c.name, c.result.as_deref())).collect();
    // hsa_iterate_agents answered HSA_STATUS_INFO_BREAK: not an error.
    assert_eq!(
        shown,
        [
            ("hsa_agent_get_info", Some("HSA_STATUS_ERROR_INVALID_ARGUMENT")),
            ("hsa_signal_create", Some("HSA_STATUS_ERROR_INVALID_ARGUMENT"))
        ]
    );
    assert_eq!(arg(&calls[0], "attribute"), "32767");
    assert_eq!(arg(&calls[1], "signal"), "0000000000000000");
}
