//! AMD's own OpenCL test suite, `ocltst` (`tests/ocltst` of ROCm-OpenCL-Runtime rocm-5.2.3,
//! built by `scripts/amdocl.sh` beside the runtime), on AMD's runtime over the emulated gfx906:
//! every test chosen gives the same result with cltap in layer mode and in ICD mode as without it,
//! test by test (docs/amd-opencl.md#amds-ocltst says which tests and why the others are left out).
//! A test fails where it needs what the emulator lacks, and must fail the same way with cltap.

mod common;
use common::amdocl::{ocltst_dir, on_amd};
use common::*;
use std::collections::BTreeMap;

/// The tests run, by module: those of `oclruntime` and `oclperf` that finish on the emulated
/// gfx906 within a few seconds each on two busy cores, measured one by one (docs/amd-opencl.md).
/// Among them are the ones that call AMD's extension functions through
/// `clGetExtensionFunctionAddress`: the perf counters, the signal and bus-address functions, the
/// buffer made from an image, and `clUnloadPlatformAMD` at the end of every run.
const RUNTIME: &[&str] = &[
    "OCLCreateContext",
    "OCLAtomicCounter",
    "OCLKernelBinary",
    "OCLMapCount",
    "OCLDeviceQueries",
    "OCLSDI",
    "OCLThreadTrace",
    "OCLStablePState",
    "OCLBufferFromImage",
    "OCLLiquidFlash",
    "OCLP2PBuffer",
    "OCLGenericAddressSpace",
];
/// A perf test runs many sizes and modes; its first subtest only.
const PERF: &[&str] = &[
    "OCLPerfCommandQueue[0]",
    "OCLPerfMemCreate[0]",
    "OCLPerfKernelArguments[0]",
    "OCLPerfDispatchSpeed[0]",
    "OCLPerfCPUMemSpeed[0]",
];

/// One subtest's result as ocltst reports it, by `TEST[index]`: `PASSED` or `FAILED` and, for a
/// runtime test, what it says after its time (its error message and checksum). The time, the only
/// part that changes from run to run, is left out; a perf test's numbers are all measurements, so
/// only its verdict counts. ocltst prints `TEST[  i]` before it runs the subtest and the verdict
/// after, so whatever the subtest prints itself may come between, on lines of their own: the
/// verdict belongs to the last test named at a line's start, its index is the one after `T[n]`.
fn results(out: &str, perf: bool) -> BTreeMap<String, String> {
    let mut r = BTreeMap::new();
    let mut test = "";
    for line in out.lines() {
        if let Some(open) = line.find('[').filter(|_| line.starts_with("OCL")) {
            test = &line[..open];
        }
        let Some((at, verdict)) = ["PASSED: ", "FAILED: "].iter().find_map(|v| line.find(v).map(|i| (i, *v))) else {
            continue;
        };
        // `GPU[0] T[0] [  i],      1.234 message (chksum 0x…)`
        let rest = &line[at + verdict.len()..];
        let Some((head, tail)) = rest.split_once("], ") else { continue };
        let index = head.rsplit('[').next().unwrap_or("").trim();
        let message = tail.trim_start().split_once(' ').map_or("", |(_, m)| m).trim();
        let what = if perf { verdict.trim().to_string() } else { format!("{} {message}", verdict.trim()) };
        r.insert(format!("{test}[{index}]"), what);
    }
    r
}

/// `module`'s `tests` in one ocltst process, without cltap and in both modes: each subtest's
/// result must be the same, and every chosen test must have reported.
fn same_results(module: &str, tests: &[&str], perf: bool, forwarded: &[&str]) {
    let dir = scratch(&format!("ocltst-{module}"));
    let lib = ocltst_dir().join(format!("lib{module}.so"));
    let mut args = vec!["-i".to_string(), "-m".to_string(), lib.display().to_string()];
    for t in tests {
        args.extend(["-t".to_string(), t.to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let prog = ocltst_dir().join("ocltst");
    let plain = run(on_amd(&prog, &args, Mode::Plain, &dir));
    let base = results(&plain.stdout, perf);
    for t in tests {
        assert!(
            base.keys().any(|k| k.starts_with(&format!("{}[", t.split('[').next().unwrap()))),
            "{t} reported no result without cltap:\n{}{}",
            plain.stdout,
            plain.stderr
        );
    }
    let mut failures = Vec::new();
    for mode in [Mode::Layer, Mode::Icd] {
        let mdir = scratch(&format!("ocltst-{module}-{mode:?}"));
        let with = run(on_amd(&prog, &args, mode, &mdir));
        let log = std::fs::read_to_string(only_file(&mdir, ".apilog")).unwrap();
        for f in forwarded {
            // Returned, with the runtime's answer (AMD's runtime refuses a buffer from this image:
            // CL_INVALID_OPERATION, and OCLBufferFromImage passes on that).
            if !log.lines().any(|l| l.contains(&format!(" {f}(")) && l.contains(" = CL_")) {
                failures.push(format!("{mode:?} mode: no {f} returned in the API log"));
            }
        }
        if with.code != plain.code || with.signal != plain.signal {
            failures.push(format!(
                "{mode:?} mode: exit {:?}/{:?} without cltap, {:?}/{:?} with\n{}",
                plain.code, plain.signal, with.code, with.signal, with.stderr
            ));
        }
        // ocltst looks up AMD's extension functions (clUnloadPlatformAMD, the signal and
        // bus-address ones) for every run: all are described, so none is hidden in ICD mode.
        for l in with.stderr.lines().filter(|l| l.contains("extension function unknown to cltap")) {
            failures.push(format!("{mode:?} mode: {l}"));
        }
        let got = results(&with.stdout, perf);
        for (name, want) in &base {
            match got.get(name) {
                Some(g) if g == want => {}
                g => failures.push(format!("{mode:?} mode, {name}: without cltap {want:?}, with {g:?}")),
            }
        }
        for name in got.keys().filter(|k| !base.contains_key(*k)) {
            failures.push(format!("{mode:?} mode: {name} reported only with cltap"));
        }
    }
    assert!(failures.is_empty(), "{}\nwithout cltap:\n{}", failures.join("\n"), plain.stdout);
    let passed = base.values().filter(|v| v.starts_with("PASSED")).count();
    eprintln!("{module}: {} subtests, {passed} passed, the same in every mode", base.len());
}

#[test]
fn ocltst_runtime_tests_give_the_same_results_with_cltap() {
    // AMD's extension functions these tests call on one device: each is forwarded and logged
    // with the runtime's answer. (OCLSDI, OCLP2PBuffer and OCLLiquidFlash look theirs up but need two devices or
    // an SSG board, and pass without calling them.)
    same_results(
        "oclruntime",
        RUNTIME,
        false,
        &["clCreateBufferFromImageAMD", "clSetDeviceClockModeAMD", "clUnloadPlatformAMD"],
    );
}

#[test]
fn ocltst_perf_tests_give_the_same_results_with_cltap() {
    same_results("oclperf", PERF, true, &["clUnloadPlatformAMD"]);
}
