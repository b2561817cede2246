//! Program dumps and the build-options override on real drivers (PoCL,
//! both loaders and ICD mode; Intel's CPU runtime), and HSA code objects on
//! Debian's ROCr: the files hold exactly what the application passed and
//! what the driver answers it, the API log names them, and the override
//! changes what the driver compiles.

mod common;
use common::*;
use std::path::{Path, PathBuf};

fn program() -> PathBuf {
    special("programs_dump.c", "programs_dump")
}

/// Program A's source as `tests/c/special/programs_dump.c` hands it over:
/// the first string cut at its explicit length, the second up to its NUL.
const SOURCE_A: &str =
    "#ifndef VALUE\n#define VALUE 1\n#endif\n__kernel void k(__global int *a) { a[get_global_id(0)] = VALUE; }\n";

/// The one file in `dir/programs` whose name ends with `suffix` after the
/// program's number `p<n>.`.
fn dumped(dir: &Path, n: u32, suffix: &str) -> PathBuf {
    let found: Vec<PathBuf> = std::fs::read_dir(dir.join("programs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.contains(&format!(".p{n}.")) && name.ends_with(suffix)
        })
        .collect();
    assert_eq!(found.len(), 1, "program {n} {suffix}: {found:?}");
    found.into_iter().next().unwrap()
}

fn bytes(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn notes(dir: &Path) -> Vec<String> {
    let log = std::fs::read_to_string(only_file(dir, ".apilog")).unwrap();
    log.lines().filter_map(|l| l.strip_prefix("# cltap: ")).map(str::to_string).collect()
}

/// Runs the program without cltap, then with `env`, into fresh folders;
/// the application must see the same either way. Returns cltap's folder
/// and the application's output.
fn dump_run(driver: Driver, loader: Loader, mode: Mode, env: &[(&str, &str)]) -> (Scratch, String) {
    let plain_dir = scratch("programs-plain");
    let plain = run(command(&program(), &[plain_dir.to_str().unwrap()], &[driver], loader, Mode::Plain));
    assert_eq!(plain.code, Some(0), "{plain:?}");
    let dir = scratch("programs-dump");
    let mut c = command(&program(), &[dir.to_str().unwrap()], &[driver], loader, mode);
    c.env("CLTAP_OUTPUT_DIR", &*dir);
    for (k, v) in env {
        c.env(k, v);
    }
    let with = run(c);
    assert_eq!(with.code, Some(0), "{with:?}");
    assert_eq!(with.stdout, plain.stdout, "{driver:?} {loader:?} {mode:?}: the application saw other results");
    // What the application learnt of its programs is the same too (a
    // failed build's log names a temporary file, a binary may differ).
    for f in ["a.log", "d.log"] {
        assert_eq!(bytes(&dir.join(f)), bytes(&plain_dir.join(f)), "{f}");
    }
    (dir, with.stdout)
}

fn check_dumps(dir: &Path, binaries: bool) {
    // A: the source byte for byte, the options it passed, the log and
    // binary the application itself was given.
    assert_eq!(bytes(&dumped(dir, 1, ".cl")), SOURCE_A.as_bytes());
    assert_eq!(bytes(&dumped(dir, 1, ".b1.options")), b"-DVALUE=3");
    assert_eq!(bytes(&dumped(dir, 1, ".b1.d0.log")), bytes(&dir.join("a.log")));
    if binaries {
        let bin = bytes(&dumped(dir, 1, ".b1.d0.bin"));
        assert!(!bin.is_empty());
        assert_eq!(bin, bytes(&dir.join("a.d0.bin")));
    }
    // B: a failed build's log, as the application got it.
    let b_log = bytes(&dumped(dir, 2, ".b1.d0.log"));
    assert!(!b_log.is_empty());
    assert_eq!(b_log, bytes(&dir.join("b.log")));
    // C compiled (program 3), linked into program 4 (no source: named by no bytes).
    dumped(dir, 3, ".b1.options");
    dumped(dir, 4, ".b1.options");
    // D, built with a callback: its log all the same.
    assert_eq!(bytes(&dumped(dir, 5, ".b1.d0.log")), bytes(&dir.join("d.log")));
    // The API log names every file.
    let n = notes(dir);
    for (prog, suffix) in [(1, ".cl"), (1, ".b1.options"), (1, ".b1.d0.log"), (2, ".b1.d0.log"), (5, ".b1.d0.log")] {
        let f = dumped(dir, prog, suffix);
        let name = format!("programs/{}", f.file_name().unwrap().to_string_lossy());
        assert!(n.iter().any(|l| l.contains(&name)), "{name} not in the log's notes: {n:#?}");
    }
    assert!(n.iter().any(|l| l.starts_with("program 2 build 1 device 0 (") && l.contains("CL_BUILD_ERROR")), "{n:#?}");
}

#[test]
fn sources_logs_and_binaries_on_pocl_both_loaders_and_icd_mode() {
    for (loader, mode) in [(Loader::OclIcd, Mode::Layer), (Loader::Khronos, Mode::Layer), (Loader::OclIcd, Mode::Icd)] {
        let (dir, out) = dump_run(Driver::Pocl, loader, mode, &[("CLTAP_DUMP_BINARIES", "1")]);
        assert!(out.contains("A result 3\n"), "{out}");
        check_dumps(&dir, true);
    }
}

#[test]
fn sources_and_logs_on_intel_without_binaries() {
    let (dir, _) = dump_run(Driver::Intel, Loader::OclIcd, Mode::Layer, &[("CLTAP_DUMP_PROGRAMS", "1")]);
    check_dumps(&dir, false);
    let names: Vec<String> = std::fs::read_dir(dir.join("programs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".bin")), "{names:?}");
}

#[test]
fn replaced_build_options_reach_the_driver_and_are_logged() {
    for (env, result, seen) in [
        (("CLTAP_BUILD_OPTIONS", "-DVALUE=7"), "A result 7\n", "-DVALUE=7"),
        (("CLTAP_BUILD_OPTIONS_APPEND", "-DOTHER=1"), "A result 3\n", "-DVALUE=3 -DOTHER=1"),
    ] {
        let dir = scratch("programs-options");
        let mut c = command(&program(), &[dir.to_str().unwrap()], &[Driver::Pocl], Loader::OclIcd, Mode::Layer);
        c.env("CLTAP_OUTPUT_DIR", &*dir).env(env.0, env.1).env("CLTAP_DUMP_PROGRAMS", "1").env("CLTAP_LOG_DECODE", "1");
        let o = run(c);
        assert_eq!(o.code, Some(0), "{o:?}");
        assert!(o.stdout.contains(result), "{env:?}: {}", o.stdout);
        assert_eq!(bytes(&dumped(&dir, 1, ".b1.options")), seen.as_bytes());
        let want = format!(
            "program 1 build 1: build options replaced: the driver saw {seen:?}, the application passed \"-DVALUE=3\""
        );
        assert!(notes(&dir).contains(&want), "{want}\n{:#?}", notes(&dir));
        // The API log shows the application's own argument.
        let log = std::fs::read_to_string(only_file(&dir, ".apilog")).unwrap();
        let build = log.lines().find(|l| l.contains("clBuildProgram(")).unwrap();
        assert!(build.contains("const char* options = ") && build.contains("\"-DVALUE=3\""), "{build}");
        assert!(!build.contains(seen) || seen.starts_with("-DVALUE=3 "), "{build}");
    }
}

#[test]
fn hsa_code_objects_from_memory_and_from_file() {
    let dir = scratch("programs-hsa");
    let kernels = hsa_kernels();
    // `errors` loads the code object from memory, `many` from a file.
    for what in ["errors", "many"] {
        let mut app = vec![hsa_programs().as_os_str().to_owned(), what.into(), kernels.clone().into_os_string()];
        if what == "many" {
            app.push("1".into());
        }
        let o = run(cltap_run_hsa(&dir, &["--dump-programs"], app));
        assert_eq!(o.code, Some(0), "{o:?}");
    }
    let cos: Vec<PathBuf> = std::fs::read_dir(dir.join("programs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "co"))
        .collect();
    assert_eq!(cos.len(), 2, "{cos:?}");
    for co in &cos {
        assert_eq!(bytes(co), bytes(&kernels), "{}", co.display());
    }
}
