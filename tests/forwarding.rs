//! Invisibility on real drivers: every C test program and `clinfo` must print
//! and return exactly the same with cltap in between as without it, for each
//! driver, through each loader, in loader-layer mode and in ICD mode, and
//! (through ocl-icd) with device timing on.

mod common;
use common::*;

fn check(driver: Driver, loader: Loader) {
    let mut failures = Vec::new();
    let mut runs = Vec::new();
    for name in program_names() {
        let prog = programs().join(&name);
        runs.push((name.clone(), prog, args_for(&name, driver)));
    }
    runs.push(("clinfo".into(), "clinfo".into(), vec![]));
    for (name, prog, args) in runs {
        let plain = run(command(&prog, &args, &[driver], loader, Mode::Plain));
        if plain.code != Some(0) {
            failures
                .push(format!("== {name} fails without cltap ({:?}):\n{}{}", plain.code, plain.stdout, plain.stderr));
            continue;
        }
        for mode in [Mode::Layer, Mode::Icd] {
            let with = run(command(&prog, &args, &[driver], loader, mode));
            if let Some(d) =
                difference(&format!("{name} on {} via {loader:?}, {mode:?} mode", driver.name()), &plain, &with)
            {
                failures.push(d);
            }
            // Device timing forces profiling and adds events: still unseen.
            if loader == Loader::OclIcd {
                let mut c = command(&prog, &args, &[driver], loader, mode);
                c.env("CLTAP_DEVICE_TIMING", "1");
                let with = run(c);
                if let Some(d) = difference(
                    &format!("{name} on {} via {loader:?}, {mode:?} mode, device timing", driver.name()),
                    &plain,
                    &with,
                ) {
                    failures.push(d);
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} difference(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn pocl_through_ocl_icd() {
    check(Driver::Pocl, Loader::OclIcd);
}

#[test]
fn pocl_through_khronos() {
    check(Driver::Pocl, Loader::Khronos);
}

#[test]
fn oclgrind_through_ocl_icd() {
    check(Driver::Oclgrind, Loader::OclIcd);
}

#[test]
fn oclgrind_through_khronos() {
    check(Driver::Oclgrind, Loader::Khronos);
}

#[test]
fn intel_through_ocl_icd() {
    check(Driver::Intel, Loader::OclIcd);
}

#[test]
fn intel_through_khronos() {
    check(Driver::Intel, Loader::Khronos);
}
