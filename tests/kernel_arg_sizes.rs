//! `clSetKernelArg` with a buffer's handle at every size, right and wrong
//! (`tests/c/special/arg_sizes.c`): the driver answers the same with cltap in
//! between, in layer mode and in ICD mode, through both loaders, as without
//! it. In ICD mode the driver must find its own handle in the value whatever
//! the size; PoCL checks the size first, so its answers hold even without
//! that, and AMD's runtime, which reads the handle first, is the witness
//! (`tests/amd_opencl.rs`). This test keeps every size forwarded with its
//! bytes and its error on the CPU drivers.

mod common;
use common::*;

fn check(driver: Driver, loader: Loader) {
    let exe = special("arg_sizes.c", "arg_sizes-cpu");
    let plain = run(command(&exe, &[], &[driver], loader, Mode::Plain));
    assert_eq!(plain.code, Some(0), "{}{}", plain.stdout, plain.stderr);
    assert!(plain.stdout.contains("arg 0 buffer size 8: CL_SUCCESS\n"), "{}", plain.stdout);
    assert!(plain.stdout.contains("arg 0 buffer size 16: CL_INVALID_ARG_SIZE\n"), "{}", plain.stdout);
    for mode in [Mode::Layer, Mode::Icd] {
        let with = run(command(&exe, &[], &[driver], loader, mode));
        let what = format!("arg_sizes on {} via {loader:?}, {mode:?} mode", driver.name());
        assert_eq!(difference(&what, &plain, &with), None);
    }
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
fn intel_through_ocl_icd() {
    check(Driver::Intel, Loader::OclIcd);
}
