//! cltap's tracer API (`include/cltap.h`, docs/tracer.md): the committed
//! header is the generated one and compiles on its own; the C tests of
//! `tests/tools/` pass on PoCL (cltap as a layer and as the ICD) and on the
//! Debian's ROCr over the emulated gfx906; the docs' example builds and runs.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

fn header() -> PathBuf {
    root().join("include/cltap.h")
}

/// Compiles `source` (relative to the root) into `target/ctests/NAME` once
/// per test binary, with `include/` on the path and `libs` after it.
fn build(source: &str, name: &str, libs: &[String]) -> PathBuf {
    static BUILT: Mutex<Vec<(String, PathBuf)>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap();
    if let Some((_, p)) = built.iter().find(|(n, _)| n == name) {
        return p.clone();
    }
    let exe = root().join("target/ctests").join(name);
    std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
    let o = Command::new("gcc")
        .args(["-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-pthread"])
        .arg(format!("-I{}", root().join("include").display()))
        .arg(root().join(source))
        .arg("-o")
        .arg(&exe)
        .args(libs)
        .output()
        .expect("run gcc");
    assert!(o.status.success(), "building {source} failed:\n{}", String::from_utf8_lossy(&o.stderr));
    built.push((name.to_string(), exe.clone()));
    exe
}

fn opencl_program() -> PathBuf {
    build("tests/tools/tracer_opencl.c", "tracer_opencl", &["-lOpenCL".into()])
}

fn hsa_program() -> PathBuf {
    build("tests/tools/tracer_hsa.c", "tracer_hsa", &["-lhsa-runtime64".into()])
}

/// Runs `c`, requires exit 0, and returns its stdout.
fn passes(what: &str, c: Command) -> String {
    let o = run(c);
    assert_eq!(o.code, Some(0), "{what}:\n{}\n{}", o.stdout, o.stderr);
    o.stdout
}

// ---- the header ----

#[test]
fn the_committed_header_is_the_generated_one() {
    // The layer embeds the header its build generated (cltap_tracer_header).
    let committed = std::fs::read_to_string(header()).unwrap();
    // SAFETY: loading the layer runs no initialisation; the function returns a static string.
    let generated = unsafe {
        let lib = libloading::Library::new(layer()).unwrap();
        let f: libloading::Symbol<unsafe extern "C" fn() -> *const std::ffi::c_char> =
            lib.get(b"cltap_tracer_header").unwrap();
        std::ffi::CStr::from_ptr(f()).to_str().unwrap().to_string()
    };
    assert!(committed == generated, "include/cltap.h differs from the one the build generated: copy target/release/build/cltap-layer-*/out/cltap.h (the newest) over it");
    assert!(committed.contains("CLTAP_API_OPENCL_clEnqueueNDRangeKernel = "));
    assert!(committed.contains("CLTAP_API_HSA_hsa_queue_create = 0x1"));
}

#[test]
fn the_header_compiles_in_c_and_cpp_with_either_api_left_out() {
    let dir = scratch("tracer-header");
    let src = dir.join("h.c");
    std::fs::write(&src, "#include \"cltap.h\"\nint main(void) { return (int)sizeof(cltap_tracer_api_t) == 0; }\n")
        .unwrap();
    let inc = format!("-I{}", root().join("include").display());
    let variants: [(&str, &[&str]); 5] = [
        ("gcc", &["-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror"]),
        ("gcc", &["-std=c11", "-Wall", "-Werror", "-DCLTAP_NO_OPENCL"]),
        ("gcc", &["-std=c11", "-Wall", "-Werror", "-DCLTAP_NO_HSA", "-DCLTAP_NO_DLOPEN"]),
        ("g++", &["-x", "c++", "-std=c++11", "-Wall", "-Wextra", "-Werror"]),
        ("gcc", &["-std=c11", "-Werror", "-DCL_TARGET_OPENCL_VERSION=120"]),
    ];
    for (i, (cc, flags)) in variants.iter().enumerate() {
        let o = Command::new(cc)
            .args(*flags)
            .arg(&inc)
            .arg(&src)
            .arg("-o")
            .arg(dir.join(format!("h{i}")))
            .output()
            .unwrap();
        let want_ok = i != 4;
        assert_eq!(o.status.success(), want_ok, "{cc} {flags:?}:\n{}", String::from_utf8_lossy(&o.stderr));
        if !want_ok {
            assert!(String::from_utf8_lossy(&o.stderr).contains("CL_TARGET_OPENCL_VERSION 300"));
        }
    }
}

// ---- OpenCL on PoCL ----

fn opencl(mode: Mode, test: &str) -> Command {
    let mut c = command(&opencl_program(), &[test], &[Driver::Pocl], Loader::OclIcd, mode);
    // The tracer needs none of cltap's recording.
    if test != "basic" {
        c.env("CLTAP_API_LOG", "0").env("CLTAP_SUMMARY", "0");
    }
    c
}

const OPENCL_BASIC: &str = "basic ok: ndrange 1/1, buffer 1/1, finish 1, global size 64 -> 128\n";

#[test]
fn opencl_basic_as_a_layer() {
    assert_eq!(passes("layer basic", opencl(Mode::Layer, "basic")), OPENCL_BASIC);
}

#[test]
fn opencl_basic_as_the_icd() {
    assert_eq!(passes("icd basic", opencl(Mode::Icd, "basic")), OPENCL_BASIC);
}

#[test]
fn opencl_basic_with_recording_off() {
    let mut c = opencl(Mode::Layer, "basic");
    c.env("CLTAP_API_LOG", "0").env("CLTAP_SUMMARY", "0");
    assert_eq!(passes("basic, recording off", c), OPENCL_BASIC);
}

#[test]
fn opencl_pairing_under_stress() {
    for mode in [Mode::Layer, Mode::Icd] {
        let out = passes(&format!("{mode:?} stress"), opencl(mode, "stress"));
        assert_eq!(out, "stress ok: 8 threads, 10000 toggles, every prologue paired\n");
    }
}

#[test]
fn opencl_destroy_waits_for_a_blocked_callback() {
    let out = passes("destroy", opencl(Mode::Layer, "destroy"));
    assert_eq!(out, "destroy ok: waited for the blocked prologue and its epilogue\n");
}

#[test]
fn opencl_destroy_from_inside() {
    for mode in [Mode::Layer, Mode::Icd] {
        let out = passes(&format!("{mode:?} inside"), opencl(mode, "inside"));
        assert_eq!(out, "destroy in callback ok\ndestroy inside a traced call ok\n");
    }
}

#[test]
fn pass_through_refuses_tracers_and_still_forwards() {
    let mut c = opencl(Mode::Layer, "passthrough");
    c.env("CLTAP_API_LOG", "maybe");
    let o = run(c);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert_eq!(o.stdout, "create: 6 (cltap's configuration is invalid: it only forwards calls)\n");
    assert!(o.stderr.contains("pure pass-through"), "{}", o.stderr);
}

// ---- HSA, on Debian's real ROCr over the emulated gfx906 (gpu-emu) ----

fn hsa(test: &str, dir: &Path) -> Command {
    let mut c = on_hsa(&hsa_program(), dir);
    c.arg(test).env("HSA_TOOLS_LIB", layer()).env("CLTAP_OUTPUT_DIR", dir);
    if test != "basic" {
        c.env("CLTAP_API_LOG", "0").env("CLTAP_SUMMARY", "0");
    }
    c
}

#[test]
fn hsa_basic_on_rocr() {
    // Also with ROCP_HSA_INTERCEPT=1, where cltap's own hand-written
    // hsa_queue_create (the intercept queue's) takes the table's entry.
    for intercept in ["0", "1"] {
        let dir = scratch("tracer-hsa-basic");
        let mut c = hsa("basic", &dir);
        c.env("ROCP_HSA_INTERCEPT", intercept);
        let out = passes("hsa basic", c);
        assert_eq!(out, "basic ok: PiPgEgPgEgEiPqEq, queue size 128 -> 256\n", "ROCP_HSA_INTERCEPT={intercept}");
        // cltap's own record shows what was forwarded: the prologue's size.
        let log = std::fs::read_to_string(only_file(&dir, ".apilog")).unwrap();
        let sizes: Vec<&str> = log
            .lines()
            .filter(|l| l.contains(" hsa_queue_create("))
            .map(|l| if l.contains("uint32_t size = 256,") { "256" } else { "other" })
            .collect();
        assert_eq!(sizes, ["256", "other"], "ROCP_HSA_INTERCEPT={intercept}: {log}");
    }
}

#[test]
fn hsa_pairing_under_stress_on_rocr() {
    let dir = scratch("tracer-hsa-stress");
    assert_eq!(
        passes("hsa stress", hsa("stress", &dir)),
        "stress ok: 8 threads, 10000 toggles, every prologue paired\n"
    );
}

#[test]
fn hsa_destroy_on_rocr() {
    let dir = scratch("tracer-hsa-destroy");
    assert_eq!(
        passes("hsa destroy", hsa("destroy", &dir)),
        "destroy ok: waited for the blocked prologue and its epilogue\n"
    );
    let dir = scratch("tracer-hsa-inside");
    assert_eq!(passes("hsa inside", hsa("inside", &dir)), "destroy in callback ok\ndestroy inside a traced call ok\n");
}

// ---- docs/tracer.md's example ----

#[test]
fn the_documented_example_builds_and_runs() {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    let exe = EXE.get_or_init(|| build("docs/examples/tracer_example.c", "tracer_example", &["-lOpenCL".into()]));
    let out = passes("example", command(exe, &[], &[Driver::Pocl], Loader::OclIcd, Mode::Layer));
    assert_eq!(
        out,
        "clEnqueueNDRangeKernel #1: 1 dimension(s), global size 1024, CL_SUCCESS\n\
         clEnqueueNDRangeKernel #2: 1 dimension(s), global size 1024, CL_SUCCESS\n\
         traced 2 launches; c[1000] = 3000\n"
    );
}
