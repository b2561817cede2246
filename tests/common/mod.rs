//! Shared harness for the integration tests: the real drivers and loaders on
//! this machine, the C test programs, and running a program with or without
//! cltap in between.
#![allow(dead_code)]

pub mod amdocl;
pub mod bounded;
pub mod checks;
pub mod deadline;
pub mod rocp;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub mod emu;
mod hsa;
#[allow(unused_imports)]
pub use hsa::*;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// PoCL's kernel cache for the calling test: one folder per test. Tests
/// run in parallel, and two processes compiling the same program into one
/// cache entry at once can read each other's half-written files (a cold
/// run's `clLinkProgram` failed that way once, in one of two tests running
/// the C programs in the same order). A test's own runs are in sequence.
pub fn pocl_cache() -> PathBuf {
    let t = std::thread::current();
    let name = t.name().unwrap_or("main").replace("::", "-");
    root().join("target/pocl-cache").join(name)
}

/// The layer library built by `cargo build --release --workspace`.
pub fn layer() -> PathBuf {
    let p = root().join("target/release/libcltap_layer.so");
    assert!(
        p.is_file(),
        "{} is missing: run `cargo build --release --workspace` first (scripts/test.sh does)",
        p.display()
    );
    p
}

pub fn intel_lib() -> PathBuf {
    root().join(".deps/intel/lib")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Driver {
    Pocl,
    Oclgrind,
    Intel,
}

impl Driver {
    pub const ALL: [Driver; 3] = [Driver::Pocl, Driver::Oclgrind, Driver::Intel];

    pub fn library(self) -> PathBuf {
        let p = match self {
            Driver::Pocl => PathBuf::from("/usr/lib/x86_64-linux-gnu/libpocl.so.2"),
            Driver::Oclgrind => PathBuf::from("/usr/lib/oclgrind/liboclgrind-rt-icd.so"),
            Driver::Intel => intel_lib().join("libintelocl.so"),
        };
        assert!(p.is_file(), "driver {self:?} is not installed at {} (run scripts/setup.sh)", p.display());
        p
    }

    pub fn name(self) -> &'static str {
        match self {
            Driver::Pocl => "pocl",
            Driver::Oclgrind => "oclgrind",
            Driver::Intel => "intel",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loader {
    /// Debian's ocl-icd 2.3.1.
    OclIcd,
    /// The Khronos loader from the intel-opencl-rt wheel.
    Khronos,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// No cltap: the baseline.
    Plain,
    /// `OPENCL_LAYERS`.
    Layer,
    /// cltap as the ICD, the real driver behind it.
    Icd,
}

/// A folder of the system's temporary space that is removed when dropped,
/// also when the test fails (the panic unwinds through it).
pub struct Scratch(tempfile::TempDir);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.path().as_os_str()
    }
}

pub fn scratch(name: &str) -> Scratch {
    Scratch(tempfile::Builder::new().prefix(&format!("cltap-test-{name}-")).tempdir().unwrap())
}

/// The folder shared by one test binary's tests (vendor lists, default
/// outputs); removed when the binary exits.
fn process_dir() -> &'static Path {
    static D: OnceLock<PathBuf> = OnceLock::new();
    D.get_or_init(|| {
        let d = tempfile::Builder::new().prefix("cltap-test-").tempdir().unwrap().keep();
        extern "C" fn remove() {
            if let Some(d) = D.get() {
                let _ = std::fs::remove_dir_all(d);
            }
        }
        // SAFETY: registering a plain function; the harness ends with exit().
        unsafe { libc::atexit(remove) };
        d
    })
}

fn empty_dir() -> &'static Path {
    static D: OnceLock<PathBuf> = OnceLock::new();
    D.get_or_init(|| {
        let d = process_dir().join("empty-vendors");
        std::fs::create_dir_all(&d).unwrap();
        d
    })
}

/// A command that runs `program` on exactly `drivers` through `loader`, with
/// cltap in `mode`. The environment is cleaned of anything that would select
/// other drivers or configure cltap.
pub fn command(program: &Path, args: &[&str], drivers: &[Driver], loader: Loader, mode: Mode) -> Command {
    let libs: Vec<String> = drivers.iter().map(|d| d.library().display().to_string()).collect();
    command_libs(program, args, &libs, loader, mode)
}

/// [`command`] for driver libraries by path (a test's own driver).
pub fn command_libs(program: &Path, args: &[&str], libs: &[String], loader: Loader, mode: Mode) -> Command {
    let mut c = Command::new("timeout");
    c.arg("600").arg(program).args(args);
    for (k, _) in std::env::vars() {
        if k.starts_with("OCL_ICD")
            || k.starts_with("OPENCL_LAYER")
            || k.starts_with("CLTAP_")
            || k == "LD_LIBRARY_PATH"
        {
            c.env_remove(k);
        }
    }
    let mut ld = vec![intel_lib().display().to_string()];
    if loader == Loader::Khronos {
        ld.insert(0, root().join(".deps/intel/khronos").display().to_string());
    }
    c.env("LD_LIBRARY_PATH", ld.join(":"));
    c.env("POCL_CACHE_DIR", pocl_cache());
    let l = layer().display().to_string();
    match (loader, mode) {
        (Loader::OclIcd, Mode::Plain | Mode::Layer) => {
            // ocl-icd takes one library, a .icd file or a directory.
            if libs.len() == 1 {
                c.env("OCL_ICD_VENDORS", &libs[0]);
            } else {
                c.env("OCL_ICD_VENDORS", vendor_dir(libs));
            }
        }
        (Loader::Khronos, Mode::Plain | Mode::Layer) => {
            c.env("OCL_ICD_VENDORS", empty_dir());
            c.env("OCL_ICD_FILENAMES", libs.join(":"));
        }
        (Loader::OclIcd, Mode::Icd) => {
            c.env("OCL_ICD_VENDORS", &l);
            c.env("CLTAP_ICD_FILENAMES", libs.join(":"));
        }
        (Loader::Khronos, Mode::Icd) => {
            c.env("OCL_ICD_VENDORS", empty_dir());
            c.env("OCL_ICD_FILENAMES", &l);
            c.env("CLTAP_ICD_FILENAMES", libs.join(":"));
        }
    }
    if mode == Mode::Layer {
        c.env("OPENCL_LAYERS", &l);
    }
    if mode != Mode::Plain {
        c.env("CLTAP_OUTPUT_DIR", log_dir());
    }
    c
}

/// Where the layer's files go during the tests.
pub fn log_dir() -> PathBuf {
    let d = process_dir().join("logs");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A directory of `.icd` files naming `libs`, for ocl-icd.
pub fn vendor_dir(libs: &[String]) -> PathBuf {
    let d = process_dir().join(format!("vendors-{}", libs.len()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    for (i, l) in libs.iter().enumerate() {
        std::fs::write(d.join(format!("{i:02}.icd")), format!("{l}\n")).unwrap();
    }
    d
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub code: Option<i32>,
    /// The signal that ended the process, if one did.
    pub signal: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

pub fn run(mut c: Command) -> Outcome {
    let o = c.output().expect("spawn");
    use std::os::unix::process::ExitStatusExt;
    Outcome {
        code: o.status.code(),
        signal: o.status.signal(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// The C test programs (and the bundled sample), compiled once per test
/// binary with the machine's gcc through `tests/c/Makefile`.
pub fn programs() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = root().join("target/ctests");
        let st = Command::new("make")
            .arg("-s")
            .arg("-C")
            .arg(root().join("tests/c"))
            .arg(format!("OUT={}", out.display()))
            .args(program_names().iter().map(|n| out.join(n)))
            .status()
            .expect("run make");
        assert!(st.success(), "building tests/c failed");
        out
    })
}

/// Every program `tests/c/Makefile` builds.
pub fn program_names() -> Vec<String> {
    let o = Command::new("make")
        .arg("-s")
        .arg("-C")
        .arg(root().join("tests/c"))
        .arg("print-tests")
        .output()
        .expect("run make print-tests");
    String::from_utf8_lossy(&o.stdout)
        .split_whitespace()
        .filter(|n| {
            root().join("tests/c").join(format!("{n}.c")).exists()
                || root().join("samples").join(format!("{n}.c")).exists()
        })
        .map(str::to_string)
        .collect()
}

/// Arguments that keep a program quick on the given driver.
pub fn args_for(program: &str, driver: Driver) -> Vec<&'static str> {
    match (program, driver) {
        ("vecadd", Driver::Oclgrind) => vec!["4096"],
        _ => vec![],
    }
}

/// A readable account of how two outcomes differ, or None when identical.
pub fn difference(what: &str, a: &Outcome, b: &Outcome) -> Option<String> {
    if a == b {
        return None;
    }
    let mut s = format!("== {what}\n");
    if a.code != b.code {
        s += &format!("exit code {:?} without cltap, {:?} with\n", a.code, b.code);
    }
    for (name, x, y) in [("stdout", &a.stdout, &b.stdout), ("stderr", &a.stderr, &b.stderr)] {
        if x != y {
            let (xl, yl): (Vec<&str>, Vec<&str>) = (x.lines().collect(), y.lines().collect());
            let first = xl.iter().zip(&yl).position(|(p, q)| p != q).unwrap_or(xl.len().min(yl.len()));
            s += &format!(
                "{name} differs at line {}:\n  without: {:?}\n  with:    {:?}\n",
                first + 1,
                xl.get(first).unwrap_or(&"<end>"),
                yl.get(first).unwrap_or(&"<end>")
            );
        }
    }
    Some(s)
}

/// Builds a program of `tests/c/special/` once per test binary (tests run in
/// parallel and must not rewrite a binary another test is running).
/// Runs gcc with `args`; `what` names what it builds when it fails.
pub fn gcc<S: AsRef<std::ffi::OsStr>>(what: &str, args: impl IntoIterator<Item = S>) {
    let st = Command::new("gcc").args(args).status().expect("run gcc");
    assert!(st.success(), "building {what} failed");
}

pub fn special(source: &str, exe_name: &str) -> PathBuf {
    static BUILT: std::sync::Mutex<Vec<(String, PathBuf)>> = std::sync::Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap();
    if let Some((_, p)) = built.iter().find(|(n, _)| n == exe_name) {
        return p.clone();
    }
    let exe = root().join("target/ctests").join(exe_name);
    std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
    let src = root().join("tests/c/special").join(source);
    let args: [&std::ffi::OsStr; 9] = [
        "-std=c11".as_ref(),
        "-O1".as_ref(),
        "-Wall".as_ref(),
        "-Werror".as_ref(),
        src.as_ref(),
        "-o".as_ref(),
        exe.as_ref(),
        "-lOpenCL".as_ref(),
        "-lpthread".as_ref(),
    ];
    gcc(&format!("tests/c/special/{source}"), args);
    built.push((exe_name.to_string(), exe.clone()));
    exe
}

/// Peak resident memory of `c` run to its end, in KiB, with its wait
/// status. It runs under `tests/c/special/peak.c`: a child forked from this
/// test process starts as a copy of it, and would count the test's own
/// memory (other tests' data included) in its peak.
pub fn peak_kib(c: std::process::Command) -> (i32, i64) {
    let tmp = scratch("peak");
    let out = tmp.join("kib");
    let mut p = Command::new(special("peak.c", "peak"));
    p.arg(&out).arg(c.get_program()).args(c.get_args());
    for (k, v) in c.get_envs() {
        match v {
            Some(v) => p.env(k, v),
            None => p.env_remove(k),
        };
    }
    if let Some(d) = c.get_current_dir() {
        p.current_dir(d);
    }
    let st = p.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).status().unwrap();
    let kib =
        std::fs::read_to_string(&out).ok().and_then(|t| t.trim().parse().ok()).expect("peak wrote the child's peak");
    use std::os::unix::process::ExitStatusExt;
    (st.into_raw(), kib)
}

/// Starts `c` (a `calls forever` run), waits for its "ready" line, sends it
/// `sig`, and returns how it ended.
pub fn signal_when_ready(mut c: Command, sig: i32) -> std::process::ExitStatus {
    use std::io::BufRead;
    use std::os::unix::process::CommandExt;
    // A suite started in the background by a shell inherits SIGINT ignored;
    // the program must meet `sig` with its default action, as from a terminal.
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        c.pre_exec(move || {
            libc::signal(sig, libc::SIG_DFL);
            Ok(())
        });
    }
    c.stdout(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("ready") {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "program ended before ready");
    }
    // SAFETY: signals our own child (`timeout` passes it on to the program).
    unsafe { libc::kill(child.id() as i32, sig) };
    child.wait().unwrap()
}

/// Renders with `cltap render` the one binary trace `dir` holds (what a
/// process ended by a signal leaves: cltap renders nothing in a signal
/// handler), into `dir/rendered`; returns that directory.
pub fn render_left_trace(dir: &Path) -> PathBuf {
    let trace = only_file(dir, ".cltrace");
    let out = dir.join("rendered");
    let r = Command::new(root().join("target/release/cltap"))
        .arg("render")
        .arg(&trace)
        .arg("--output")
        .arg(&out)
        .output()
        .expect("run cltap render");
    assert!(r.status.success(), "cltap render: {}", String::from_utf8_lossy(&r.stderr));
    out
}

/// `cltap`, the release build the suite tests.
pub fn cltap_exe() -> PathBuf {
    root().join("target/release/cltap")
}

/// The `.summary.json` the run in `dir` wrote.
pub fn summary_json(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(only_file(dir, ".summary.json")).unwrap()).unwrap()
}

/// The numbers a test program gave its own `clGetPlatformInfo(CL_PLATFORM_NAME)`
/// calls with no buffer (their `param_value_size`), in the log's order; the
/// loader's own queries (size 0) are not among them.
pub fn numbered_calls(log: &Path) -> Vec<u64> {
    use std::io::BufRead;
    let f = std::io::BufReader::new(std::fs::File::open(log).unwrap());
    f.lines()
        .map_while(Result::ok)
        .filter_map(|l| {
            let rest = l.split("cl_platform_info param_name = 2306, size_t param_value_size = ").nth(1)?;
            let (n, tail) = rest.split_once(',')?;
            tail.starts_with(" void* param_value = 0000000000000000").then(|| n.parse().ok())?
        })
        .filter(|&n| n > 0)
        .collect()
}

/// The bundled sample (`samples/vecadd.c`), built once per test binary as `target/ctests/NAME`.
#[allow(dead_code)]
pub fn sample_built_as(name: &str) -> PathBuf {
    let exe = root().join("target/ctests").join(name);
    std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
    let src = root().join("samples/vecadd.c");
    gcc("samples/vecadd.c", [src.as_os_str(), "-O2".as_ref(), "-o".as_ref(), exe.as_os_str(), "-lOpenCL".as_ref()]);
    exe
}

/// `cltap ARGS…` from `dir` with PoCL as the only driver, no loader, layer or cltap setting of
/// the test's own environment leaking in.
#[allow(dead_code)]
pub fn cltap_on_pocl(dir: &Path) -> Command {
    cltap_on_driver(dir, &Driver::Pocl.library())
}

/// `cltap ARGS…` from `dir` with `lib` as ocl-icd's only driver, no loader, layer or cltap
/// setting of the test's own environment leaking in.
#[allow(dead_code)]
pub fn cltap_on_driver(dir: &Path, lib: &Path) -> Command {
    let mut c = Command::new(cltap_exe());
    c.current_dir(dir);
    for (k, _) in std::env::vars() {
        if k.starts_with("OCL_ICD") || k.starts_with("OPENCL_LAYER") || k.starts_with("CLTAP_") {
            c.env_remove(k);
        }
    }
    c.env("OCL_ICD_VENDORS", lib);
    c
}
