//! AMD's OpenCL runtime (ROCm 5.2.3, `libamdocl64.so`, unmodified, built by `scripts/amdocl.sh`)
//! as the OpenCL driver, through Debian's ocl-icd, on Debian's ROCr over the emulated gfx906
//! (docs/amd-opencl.md). Every program must print and exit exactly the same with cltap in
//! between, in layer mode and in ICD mode, as without it: Debian's `clinfo`, AMD's own `clinfo`,
//! the C test programs and the sample. Some of them fail on this stack (no kernel code runs on the
//! emulator yet, and AMD's runtime answers some calls differently from what they expect): these
//! tests assert sameness, not correctness.

mod common;
use common::amdocl::{amd_clinfo, on_amd};
use common::*;
use std::path::{Path, PathBuf};

const PLATFORM: &str = "AMD Accelerated Parallel Processing";

/// `program args…` without cltap, then in layer mode and in ICD mode, each outcome passed through
/// `mask`; each difference from the run without cltap, described. Returns the run without cltap.
fn same_three_ways(
    name: &str,
    program: &Path,
    args: &[&str],
    mask: fn(Outcome) -> Outcome,
    failures: &mut Vec<String>,
) -> Outcome {
    let dir = scratch(&format!("amd-{name}"));
    let plain = mask(run(on_amd(program, args, Mode::Plain, &dir)));
    for mode in [Mode::Layer, Mode::Icd] {
        let with = mask(run(on_amd(program, args, mode, &dir)));
        if let Some(d) = difference(&format!("{name} on AMD's runtime, {mode:?} mode"), &plain, &with) {
            failures.push(d);
        }
    }
    plain
}

fn unmasked(o: Outcome) -> Outcome {
    o
}

/// AMD's clinfo prints the platform's handle (`Platform ID: 0x7f…`), an address: it differs from
/// run to run without cltap, and in ICD mode it is cltap's handle, as every handle the application
/// gets. That one value is masked, nothing else.
fn platform_id_masked(mut o: Outcome) -> Outcome {
    let masked: Vec<String> = o
        .stdout
        .lines()
        .map(|l| match l.split_once("Platform ID:") {
            Some((head, _)) => format!("{head}Platform ID: <address>"),
            None => l.to_string(),
        })
        .collect();
    let n = o.stdout.lines().filter(|l| l.contains("Platform ID:")).count();
    assert_eq!(n, 1, "AMD's clinfo prints one platform handle:\n{}", o.stdout);
    o.stdout = masked.join("\n") + "\n";
    o
}

/// Debian's clinfo lists AMD's platform and its one gfx906 device, the same with and without
/// cltap, every line of it.
#[test]
fn debians_clinfo_is_the_same() {
    let mut failures = Vec::new();
    let plain = same_three_ways("clinfo", Path::new("clinfo"), &[], unmasked, &mut failures);
    assert_eq!(plain.code, Some(0), "{}{}", plain.stdout, plain.stderr);
    assert!(plain.stdout.contains(PLATFORM), "{}", plain.stdout);
    assert!(plain.stdout.contains("gfx906:sramecc-:xnack-"), "{}", plain.stdout);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// AMD's own clinfo (`tools/clinfo` of the runtime's tree), the same with and without cltap.
#[test]
fn amds_clinfo_is_the_same() {
    let mut failures = Vec::new();
    let plain = same_three_ways("amd-clinfo", amd_clinfo(), &[], platform_id_masked, &mut failures);
    assert_eq!(plain.code, Some(0), "{}{}", plain.stdout, plain.stderr);
    assert!(plain.stdout.contains(PLATFORM), "{}", plain.stdout);
    assert!(plain.stdout.contains("gfx906"), "{}", plain.stdout);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every C test program of `tests/c/` and the sample. Each must have found AMD's platform and
/// device, or the comparison would be of three identical failures to start. The emulated GPU runs
/// their kernels' machine code (ROCclr's blit kernels, images included), so the programs whose
/// checks depend on what kernels compute must pass; the others may fail where AMD's runtime
/// answers differently from what they expect (docs/amd-opencl.md), the same way with and without
/// cltap.
/// The programs whose every check passes on AMD's runtime over the emulated gfx906: kernels
/// (arguments, local memory, images and samplers), buffers and images, and the sample.
const COMPUTE: [&str; 7] = ["kernels", "memory", "vecadd", "platform_device", "queues", "callbacks", "extensions"];

#[test]
fn c_programs_and_the_sample_are_the_same() {
    let mut failures = Vec::new();
    let mut codes = Vec::new();
    for name in program_names() {
        let prog: PathBuf = programs().join(&name);
        let plain = same_three_ways(&name, &prog, &[], unmasked, &mut failures);
        for missing in ["no OpenCL platform", "clGetPlatformIDs:", "clGetDeviceIDs:"] {
            assert!(!plain.stdout.contains(missing), "{name} found no AMD device:\n{}{}", plain.stdout, plain.stderr);
        }
        assert_eq!(plain.signal, None, "{name} died:\n{}{}", plain.stdout, plain.stderr);
        if name == "vecadd" {
            assert!(plain.stdout.starts_with(&format!("platform: {PLATFORM}\n")), "{}", plain.stdout);
            assert!(plain.stdout.contains("vecadd: 1048576 elements OK\n"), "{}", plain.stdout);
        }
        if COMPUTE.contains(&name.as_str()) {
            assert_eq!(
                plain.code,
                Some(0),
                "{name} computes on the emulated gfx906:\n{}{}",
                plain.stdout,
                plain.stderr
            );
        }
        codes.push(format!("{name}={:?}", plain.code));
    }
    assert!(failures.is_empty(), "{} difference(s):\n{}", failures.len(), failures.join("\n"));
    eprintln!("exit codes without cltap: {}", codes.join(" "));
}

/// `clSetKernelArg` with a buffer's handle at every size. AMD's runtime reads the handle before it
/// checks the size (the Khronos CTS's `negative_invalid_arg_mem_obj` passes `sizeof(cl_mem) * 2`
/// and expects CL_INVALID_ARG_SIZE): in ICD mode it must find its own handle there, or it answers
/// CL_INVALID_MEM_OBJECT.
#[test]
fn kernel_arguments_of_any_size_get_the_drivers_answer() {
    let mut failures = Vec::new();
    let exe = special("arg_sizes.c", "arg_sizes-amd");
    let plain = same_three_ways("arg_sizes", &exe, &[], unmasked, &mut failures);
    assert_eq!(plain.code, Some(0), "{}{}", plain.stdout, plain.stderr);
    assert!(plain.stdout.contains("arg 0 buffer size 16: CL_INVALID_ARG_SIZE\n"), "{}", plain.stdout);
    assert!(plain.stdout.contains("arg 0 buffer size 4: CL_INVALID_ARG_SIZE\n"), "{}", plain.stdout);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
