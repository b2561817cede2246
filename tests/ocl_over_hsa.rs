//! The OpenCL-over-HSA test double (`ocl-over-hsa/`): a small OpenCL ICD
//! over Debian's real ROCr, shaped like AMD's runtime (a worker thread per
//! command queue writes one AQL kernel dispatch per NDRange through the
//! exported `hsa_*` functions) but not AMD's runtime. These tests build the
//! ICD (`make -C ocl-over-hsa`), run `tests/hsa/ocl_over_hsa.c` (OpenCL API
//! only) through Debian's ocl-icd with `OCL_ICD_VENDORS` naming the ICD, on
//! the emulated gfx906 (`gpu-emu/`), and check its output, that every NDRange
//! became exactly one dispatch that the emulated GPU ran (its own log), and
//! that cltap loaded as an HSA tool changes nothing the program sees.

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
x read back changed by the kernels (the emulated GPU runs their code)=1
program from binary: status=CL_SUCCESS ndrange event=CL_COMPLETE
dispatches: ndranges=17 submitted_by_icd=17
done
";

/// NDRanges the program runs: 12 on queue A, 4 on queue B, 1 from the
/// program made from a binary.
const NDRANGES: usize = 17;

fn icd() -> &'static Path {
    ocl_over_hsa_icd()
}

fn program() -> &'static Path {
    ocl_over_hsa_program()
}

/// `exe` run from `dir` through Debian's ocl-icd with only the ICD, on
/// Debian's ROCr over gpu-emu, in an environment cleaned of loader, HSA,
/// cltap, emulator and ICD settings.
fn through_ocl_icd(exe: &Path, dir: &Path) -> Command {
    let mut c = on_hsa(exe, dir);
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
fn runs_through_ocl_icd_on_the_real_rocr() {
    let o = plain();
    assert_eq!(o.stdout, EXPECTED);
    assert_eq!(o.stderr, "", "nothing on stderr without verbose settings");
}

/// The dispatches of the program's kernels in the emulator's log (`GPU_EMU_LOG=1`), as
/// "KERNEL [X, Y, Z]", with the emulator's queue of each.
fn emu_dispatches(stderr: &str) -> Vec<(u64, String)> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("gpu-emu: queue "))
        .filter_map(|l| {
            let (queue, rest) = l.split_once(" packet ")?;
            let what = rest.split_once(": dispatch ")?.1;
            (what.starts_with("scale ") || what.starts_with("tile_sum "))
                .then(|| (queue.parse().unwrap(), what.replace(" grid=", " ")))
        })
        .collect()
}

/// The program with the emulator's log and the ICD's own (`HSADBL_OCL_VERBOSE`) on stderr.
fn logged(dir: &Path) -> Command {
    let mut c = through_ocl_icd(program(), dir);
    c.env("GPU_EMU_LOG", "1").env("HSADBL_OCL_VERBOSE", "1");
    c
}

/// The emulated GPU's own log shows one dispatch per NDRange, with the
/// NDRange's grid, on the two HSA queues the two command queues made; the
/// ICD's log shows HSA opened and shut down once.
#[test]
fn every_ndrange_is_one_hsa_dispatch() {
    let dir = scratch("ocl-hsa-verbose");
    let o = run(logged(&dir));
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert_eq!(o.stdout, EXPECTED, "the logs go to stderr only");
    let dispatches = emu_dispatches(&o.stderr);
    let texts: Vec<&str> = dispatches.iter().map(|(_, d)| d.as_str()).collect();
    assert_eq!(dispatches.len(), NDRANGES, "dispatches:\n{}", texts.join("\n"));
    assert_eq!(texts.iter().filter(|d| d.starts_with("scale ")).count(), 13);
    // tile_sum runs on queue A only, so its dispatches keep the program's order.
    let tiles: Vec<&str> = texts.iter().filter(|d| d.starts_with("tile_sum ")).copied().collect();
    assert_eq!(
        tiles,
        ["tile_sum [64, 64, 1]", "tile_sum [128, 32, 1]", "tile_sum [32, 32, 1]", "tile_sum [256, 4, 1]"]
    );
    for grid in ["[1000, 1, 1]", "[16, 8, 4]", "[8, 8, 8]", "[2048, 1, 1]", "[128, 1, 1]"] {
        assert!(texts.iter().any(|d| d.ends_with(grid)), "no dispatch {grid}:\n{}", texts.join("\n"));
    }
    let mut queues: Vec<u64> = dispatches.iter().map(|(q, _)| *q).collect();
    queues.sort();
    queues.dedup();
    assert_eq!(queues.len(), 2, "one HSA queue per command queue:\n{}", o.stderr);
    assert_eq!(o.stderr.matches("] HSA open: GPU agent gfx906").count(), 1, "HSA is opened once:\n{}", o.stderr);
    assert_eq!(o.stderr.matches("] HSA shut down").count(), 1, "and shut down once:\n{}", o.stderr);
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
    let mut c = logged(&dir);
    c.arg("leak");
    let o = run(c);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert_eq!(o.stdout, "leak: 3 ndranges enqueued, nothing released\n");
    let ran: Vec<String> = emu_dispatches(&o.stderr).into_iter().map(|(_, d)| d).collect();
    assert_eq!(ran, ["scale [4096, 1, 1]"; 3], "{}", o.stderr);
    assert!(o.stderr.contains("a command queue was never released: its worker is stopped at exit"), "{}", o.stderr);
    assert_eq!(o.stderr.matches("] HSA shut down").count(), 1, "{}", o.stderr);

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
    let ld = [root().join(".deps/intel/khronos"), intel_lib(), PathBuf::from(SYSTEM_LIBS)];
    assert!(ld[0].join("libOpenCL.so.1").is_file(), "the Khronos loader is missing (run scripts/setup.sh)");
    c.env("LD_LIBRARY_PATH", std::env::join_paths(ld).unwrap());
    c.env("OCL_ICD_VENDORS", &*vendors);
    c.env("OCL_ICD_FILENAMES", icd());
    let o = run(c);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert_eq!(o.stdout, base.stdout);
}
