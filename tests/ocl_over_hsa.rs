//! The OpenCL-over-HSA test double (`hsa-double/ocl/`): a small OpenCL ICD
//! over the HSA runtime test double, shaped like AMD's runtime (a worker
//! thread per command queue writes one AQL kernel dispatch per NDRange
//! through the exported `hsa_*` functions) but not AMD's runtime. These tests
//! build the double and the ICD (`make -C hsa-double`), run
//! `tests/hsa/ocl_over_hsa.c` (OpenCL API only) through Debian's ocl-icd with
//! `OCL_ICD_VENDORS` naming the ICD, and check its output, that every NDRange
//! became exactly one dispatch of the HSA runtime test double, and that
//! cltap loaded as an HSA tool changes nothing the program sees. All of it
//! runs against the HSA runtime test double, not real ROCm.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the program prints: the same with and without cltap.
const EXPECTED: &str = "\
platform: cltap OpenCL-over-HSA test double
device: gfx906 compute_units=60 local_mem=65536 max_work_group=1024
device: unknown query -> CL_INVALID_VALUE
bad source: CL_BUILD_PROGRAM_FAILURE, log names the error: 1
build: CL_SUCCESS status=CL_BUILD_SUCCESS kernels=2 names=scale;tile_sum
kernel no_such_kernel: CL_INVALID_KERNEL_NAME
clSetKernelArg(scale, 1, wrong size): CL_INVALID_ARG_SIZE
kernel scale: args=2 work_group_size=256 preferred_multiple=64 local_mem=0 private_mem=0
kernel tile_sum: args=4 work_group_size=256 preferred_multiple=64 local_mem=1024 private_mem=0
scale global=1000 local=64: CL_INVALID_WORK_GROUP_SIZE
tile_sum local=32x32: CL_INVALID_WORK_GROUP_SIZE
scale without arguments: CL_INVALID_KERNEL_ARGS
read after ndrange 8: CL_COMPLETE, profiling ordered
write: CL_COMPLETE, profiling ordered
queue A ndrange  0: scale    dims=1 global=1024 local=64 offset=0 enqueue=CL_SUCCESS event=CL_COMPLETE type_ok=1 queue_ok=1 profiling=ordered
queue A ndrange  1: scale    dims=1 global=4096 local=NULL offset=0 enqueue=CL_SUCCESS event=CL_COMPLETE type_ok=1 queue_ok=1 profiling=ordered
queue A ndrange  2: tile_sum dims=2 global=64x64 local=16x16 offset=0 enqueue=CL_SUCCESS event=CL_COMPLETE type_ok=1 queue_ok=1 profiling=ordered
queue A ndrange  3: scale    dims=1 global=1000 local=NULL offset=0 enqueue=CL_SUCCESS event=CL_COMPLETE type_ok=1 queue_ok=1 profiling=ordered
queue A ndrange  4: tile_sum dims=2 global=128x32 local=8x8 offset=0 enqueue=CL_SUCCESS event=CL_COMPLETE type_ok=1 queue_ok=1 profiling=ordered
queue A ndrange  5: scale    dims=1 global=256 local=256 offset=0 enqueue=CL_SUCCESS event=CL_COMPLETE type_ok=1 queue_ok=1 profiling=ordered
queue A ndrange  6: tile_sum dims=2 global=32x32 local=NULL offset=0 enqueue=CL_SUCCESS event=CL_COMPLETE type_ok=1 queue_ok=1 profiling=ordered
queue A ndrange  7: scale    dims=2 global=64x16 local=16x4 offset=0 enqueue=CL_SUCCESS event=CL_COMPLETE type_ok=1 queue_ok=1 profiling=ordered
queue A ndrange  8: scale    dims=3 global=16x8x4 local=4x4x2 offset=0 enqueue=CL_SUCCESS event=CL_COMPLETE type_ok=1 queue_ok=1 profiling=ordered
queue A ndrange  9: tile_sum dims=2 global=256x4 local=64x4 offset=0 enqueue=CL_SUCCESS event=CL_COMPLETE type_ok=1 queue_ok=1 profiling=ordered
queue A ndrange 10: scale    dims=1 global=2048 local=128 offset=1024 enqueue=CL_SUCCESS event=CL_COMPLETE type_ok=1 queue_ok=1 profiling=ordered
queue A ndrange 11: scale    dims=3 global=8x8x8 local=NULL offset=0 enqueue=CL_SUCCESS event=CL_COMPLETE type_ok=1 queue_ok=1 profiling=ordered
queue B ndrange 0 (second thread): enqueue=CL_SUCCESS event=CL_COMPLETE profiling=CL_PROFILING_INFO_NOT_AVAILABLE
queue B ndrange 1 (second thread): enqueue=CL_SUCCESS event=CL_COMPLETE profiling=CL_PROFILING_INFO_NOT_AVAILABLE
queue B ndrange 2 (second thread): enqueue=CL_SUCCESS event=CL_COMPLETE profiling=CL_PROFILING_INFO_NOT_AVAILABLE
queue B ndrange 3 (second thread): enqueue=CL_SUCCESS event=CL_COMPLETE profiling=CL_PROFILING_INFO_NOT_AVAILABLE
queue B: buffer read back unchanged=1
x read back unchanged (the double runs no GPU code)=1
program from binary: status=CL_SUCCESS ndrange event=CL_COMPLETE
dispatches: ndranges=17 submitted_by_icd=17 seen_by_hsa_double=17
done
";

/// NDRanges the program runs: 12 on queue A, 4 on queue B, 1 from the
/// program made from a binary.
const NDRANGES: usize = 17;

/// The ICD, built next to the double by `make -C hsa-double` (its `all`
/// includes `ocl`).
fn icd() -> PathBuf {
    let p = hsa_double().join("libcltap-ocl-over-hsa.so");
    assert!(p.is_file(), "{} is missing: hsa-double/ocl/ocl.mk did not build it", p.display());
    p
}

fn program() -> &'static Path {
    ocl_over_hsa_program()
}

/// `exe` run from `dir` through Debian's ocl-icd with only the ICD, on the
/// HSA test double, in an environment cleaned of loader, HSA, cltap and
/// ICD settings.
fn through_ocl_icd(exe: &Path, dir: &Path) -> Command {
    let mut c = on_hsa_double(exe, dir);
    for (k, _) in std::env::vars() {
        if k.starts_with("OCL_ICD") || k.starts_with("OPENCL_LAYER") || k.starts_with("HSADBL_") {
            c.env_remove(k);
        }
    }
    c.env("OCL_ICD_VENDORS", icd());
    c
}

fn plain() -> Outcome {
    let dir = scratch("ocl-hsa-plain");
    let o = run(through_ocl_icd(program(), &dir));
    assert_eq!(o.code, Some(0), "the program failed on the ICD:\n{}\n{}", o.stdout, o.stderr);
    o
}

#[test]
fn runs_through_ocl_icd_on_the_hsa_double() {
    let o = plain();
    assert_eq!(o.stdout, EXPECTED);
    assert_eq!(o.stderr, "", "nothing on stderr without verbose settings");
}

/// The dispatches in the HSA test double's log (`CLTAP_HSA_DOUBLE_VERBOSE`):
/// "KERNEL.kd (grid XxYxZ)" each. The double's threads log concurrently and
/// a line's prefix, text and newline are separate writes, so lines may
/// interleave: the texts are taken wherever they are.
fn double_dispatches(stderr: &str) -> Vec<&str> {
    stderr
        .match_indices("dispatch of ")
        .map(|(at, key)| {
            let text = &stderr[at + key.len()..];
            &text[..text.find(')').map_or(text.len(), |end| end + 1)]
        })
        .collect()
}

/// The double's own log (`CLTAP_HSA_DOUBLE_VERBOSE`) shows one dispatch per
/// NDRange, with the NDRange's grid, on the two HSA queues the two command
/// queues made.
#[test]
fn every_ndrange_is_one_hsa_dispatch() {
    let dir = scratch("ocl-hsa-verbose");
    let mut c = through_ocl_icd(program(), &dir);
    c.env("CLTAP_HSA_DOUBLE_VERBOSE", "1");
    let o = run(c);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert_eq!(o.stdout, EXPECTED, "the double's log goes to stderr only");
    let dispatches = double_dispatches(&o.stderr);
    assert_eq!(dispatches.len(), NDRANGES, "dispatches:\n{}", dispatches.join("\n"));
    assert_eq!(dispatches.iter().filter(|d| d.starts_with("scale.kd ")).count(), 13);
    // tile_sum runs on queue A only, so its dispatches keep the program's order.
    let tiles: Vec<&str> = dispatches.iter().filter(|d| d.starts_with("tile_sum.kd ")).copied().collect();
    assert_eq!(
        tiles,
        [
            "tile_sum.kd (grid 64x64x1)",
            "tile_sum.kd (grid 128x32x1)",
            "tile_sum.kd (grid 32x32x1)",
            "tile_sum.kd (grid 256x4x1)"
        ]
    );
    for grid in ["(grid 1000x1x1)", "(grid 16x8x4)", "(grid 8x8x8)", "(grid 2048x1x1)", "(grid 128x1x1)"] {
        assert!(dispatches.iter().any(|d| d.ends_with(grid)), "no dispatch {grid}:\n{}", dispatches.join("\n"));
    }
    let queues = o.stderr.matches(" created (size ").count();
    assert_eq!(queues, 2, "one HSA queue per command queue:\n{}", o.stderr);
    assert_eq!(o.stderr.matches("hsa_init: runtime loaded").count(), 1, "HSA is opened once:\n{}", o.stderr);
    assert_eq!(o.stderr.matches("hsa_shut_down: runtime unloaded").count(), 1, "and shut down once:\n{}", o.stderr);
}

/// cltap as the HSA tool (`HSA_TOOLS_LIB`, intercept queues): the program's
/// output and exit status do not change, and cltap's API log has the two
/// queues and one dispatch record per NDRange.
#[test]
fn cltap_as_hsa_tool_changes_nothing() {
    let base = plain();
    let out = scratch("ocl-hsa-cltap");
    let mut c = through_ocl_icd(program(), &out);
    c.env("HSA_TOOLS_LIB", layer());
    c.env("ROCP_HSA_INTERCEPT", "1");
    c.env("CLTAP_OUTPUT_DIR", &*out);
    let o = run(c);
    assert_eq!(o.code, base.code, "exit status with cltap; stderr:\n{}", o.stderr);
    assert_eq!(o.stdout, base.stdout, "output with cltap");
    let log = std::fs::read_to_string(only_file(&out, ".apilog")).unwrap();
    assert_eq!(log.lines().filter(|l| l.contains(" hsa_queue_create(")).count(), 2, "{log}");
    assert_eq!(log.lines().filter(|l| l.starts_with("# dispatch ")).count(), NDRANGES, "{log}");
}

/// A program that returns from main with NDRanges in flight and nothing
/// released: at exit the ICD lets the queue's worker finish them, destroys
/// the HSA queue itself and shuts HSA down, also with cltap as the HSA tool.
#[test]
fn leaked_queue_is_finished_at_exit() {
    let dir = scratch("ocl-hsa-leak");
    let mut c = through_ocl_icd(program(), &dir);
    c.arg("leak").env("CLTAP_HSA_DOUBLE_VERBOSE", "1");
    let o = run(c);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert_eq!(o.stdout, "leak: 3 ndranges enqueued, nothing released\n");
    assert_eq!(double_dispatches(&o.stderr), ["scale.kd (grid 4096x1x1)"; 3], "{}", o.stderr);
    assert_eq!(o.stderr.matches("hsa_shut_down: runtime unloaded").count(), 1, "{}", o.stderr);
    assert!(!o.stderr.contains("still exists at hsa_shut_down"), "the ICD destroys its queue first:\n{}", o.stderr);

    let out = scratch("ocl-hsa-leak-cltap");
    let mut c = through_ocl_icd(program(), &out);
    c.arg("leak").env("HSA_TOOLS_LIB", layer()).env("ROCP_HSA_INTERCEPT", "1").env("CLTAP_OUTPUT_DIR", &*out);
    let with = run(c);
    assert_eq!((with.code, with.stdout.as_str()), (o.code, o.stdout.as_str()), "stderr:\n{}", with.stderr);
    let log = std::fs::read_to_string(only_file(&out, ".apilog")).unwrap();
    assert_eq!(log.lines().filter(|l| l.starts_with("# dispatch ")).count(), 3, "{log}");
}

/// A clinfo-like program: clinfo lists the platform and device, builds its
/// test kernel (it calls get_global_id: the ICD's work-item prelude) and
/// ends normally.
#[test]
fn clinfo_runs_on_the_icd() {
    let dir = scratch("ocl-hsa-clinfo");
    let o = run(through_ocl_icd(Path::new("/usr/bin/clinfo"), &dir));
    assert_eq!(o.code, Some(0), "clinfo failed:\n{}\n{}", o.stdout, o.stderr);
    for want in ["cltap OpenCL-over-HSA test double", "HSADBL", "gfx906"] {
        assert!(o.stdout.contains(want), "{want:?} not in:\n{}", o.stdout);
    }
    let line = |key: &str| o.stdout.lines().find(|l| l.contains(key)).unwrap_or_default().trim_end().to_string();
    assert!(line("Max compute units").ends_with(" 60"), "{}", o.stdout);
    let multiple = line("Preferred work group size multiple (kernel)");
    assert!(multiple.ends_with(" 64"), "clinfo's kernel did not build: {multiple:?}\n{}", o.stderr);
}

/// The Khronos loader (`OCL_ICD_FILENAMES`) loads the ICD too, and the
/// program prints the same.
#[test]
fn khronos_loader_loads_it_too() {
    let base = plain();
    let dir = scratch("ocl-hsa-khronos");
    let vendors = scratch("ocl-hsa-no-vendors");
    let mut c = through_ocl_icd(program(), &dir);
    let ld = [root().join(".deps/intel/khronos"), intel_lib(), hsa_double().to_path_buf()];
    assert!(ld[0].join("libOpenCL.so.1").is_file(), "the Khronos loader is missing (run scripts/setup.sh)");
    c.env("LD_LIBRARY_PATH", std::env::join_paths(ld).unwrap());
    c.env("OCL_ICD_VENDORS", &*vendors);
    c.env("OCL_ICD_FILENAMES", icd());
    let o = run(c);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert_eq!(o.stdout, base.stdout);
}
