//! The project's own driver-CI check: the normalized API log of every C test
//! program, on PoCL and on Intel's CPU runtime, against the snapshots in
//! `snapshots/`. A change in what cltap records (or in what the driver is
//! asked and answers) shows up here as an insta review.

mod common;
use cltap::normalize::{self, Durations};
use common::*;

/// Programs whose call order is not the same from run to run on a driver,
/// so a snapshot would fail for no reason: both runtimes return
/// clCreateKernelsInProgram's kernels in varying order, and `kernels`
/// queries each in that order.
const UNORDERED: &[(&str, &str)] = &[("intel", "kernels"), ("pocl", "kernels")];

fn snapshot(driver: Driver) {
    let dir = scratch(driver.name());
    let mut failures = Vec::new();
    for name in program_names() {
        if UNORDERED.contains(&(driver.name(), name.as_str())) {
            continue;
        }
        let run_dir = dir.join(&name);
        std::fs::create_dir_all(&run_dir).unwrap();
        let mut c = command(&programs().join(&name), &args_for(&name, driver), &[driver], Loader::OclIcd, Mode::Layer);
        c.env("CLTAP_OUTPUT_DIR", &run_dir);
        let o = run(c);
        assert_eq!(o.code, Some(0), "{name}: {}", o.stderr);
        let log = std::fs::read_dir(&run_dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|x| x == "apilog"))
            .unwrap();
        let entries = cltap_formats::apilog::read(&std::fs::read_to_string(&log).unwrap()).unwrap();
        // Portable: the suite must pass on any CPU (docs/driver-ci.md).
        let opt = normalize::Options { durations: Durations::Drop, collapse_repeats: true, portable: true };
        let text = normalize::render(&normalize::normalize(&entries, opt));
        let r = std::panic::catch_unwind(|| {
            insta::with_settings!({ snapshot_path => root().join("snapshots").join(driver.name()), prepend_module_to_snapshot => false, omit_expression => true }, {
                insta::assert_snapshot!(name.clone(), text);
            });
        });
        if r.is_err() {
            failures.push(name);
        }
    }
    assert!(failures.is_empty(), "snapshots differ for {failures:?}; review with `cargo insta review`");
}

#[test]
fn pocl_snapshots() {
    snapshot(Driver::Pocl);
}

#[test]
fn intel_snapshots() {
    snapshot(Driver::Intel);
}
