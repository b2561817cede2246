//! Every described OpenCL function, end to end, on a stub driver that sees
//! everything (issue #39).
//!
//! `tests/stubdriver/` is a TEST DOUBLE OF A DRIVER, not of cltap: an ICD
//! driver generated from `api/opencl.api` with one entry per described
//! function, which logs every argument word and every input buffer it is
//! handed and answers with values derived from them. A test program,
//! generated from the same description, calls every function three ways
//! (the loader's export, `clGetExtensionFunctionAddress`,
//! `clGetExtensionFunctionAddressForPlatform`) with distinctive arguments
//! and prints everything that came back. It runs without cltap, in layer
//! mode and in ICD mode, through ocl-icd and the Khronos loader.
//!
//! What it proves, for every function and way:
//! - every argument reached the driver unchanged: the driver's lines for
//!   the application's calls are the same with cltap as without, and in ICD
//!   mode the driver got its own handles back (cltap's would be logged as
//!   foreign), with only the tokens cltap must replace there (the addresses
//!   of arrays it translates, callbacks and user data it wraps) masked;
//! - every result, output and callback reached the application unchanged:
//!   the program prints the same with cltap as without (handles compared by
//!   the order the application first saw them), and the application's
//!   callbacks got its own user data and handles;
//! - each call is in the API log with its arguments decoded: its name, in
//!   order, and a distinctive argument's value;
//! - coverage: every function of `api/opencl.api` is called and reaches
//!   the driver in every mode, except the ones a loader or cltap answer by
//!   design, each named: `dispatch=none` (the loaders' own), `local`
//!   (cltap's, found only with cltap) and `windows` (hidden in ICD mode).
//!   Through ocl-icd in layer mode, a function beyond the 149 slots ocl-icd
//!   hands a layer reaches the driver too: cltap takes the driver's pointer
//!   that the lookup found. A new
//!   description gets its entry and its call from the generator; if it does
//!   not get through, this test fails.
//!
//! cltap's callbacks: in ICD mode it hands the driver trampolines (with
//! its own user data) for the callbacks that receive handles, so there the
//! driver's callback and user-data words are masked, and the application's
//! output shows its own function called with its own user data and handles.
//! Callbacks that receive no handle (`pfn_notify` of a context, a native
//! kernel) reach the driver unchanged in every mode, and are compared.

mod common;
#[path = "stubdriver/gen.rs"]
mod gen;

use cltap_apidesc::{CallbackKind, Dispatch, Function, Len, Role};
use cltap_formats::apilog::{self, Call, Entry};
use common::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

fn api() -> &'static cltap_apidesc::Api {
    static API: OnceLock<cltap_apidesc::Api> = OnceLock::new();
    API.get_or_init(|| {
        let text = std::fs::read_to_string(root().join("api/opencl.api")).unwrap();
        cltap_apidesc::parse(&text).unwrap()
    })
}

/// The stub driver and the test program, generated and built once per test binary.
fn built() -> &'static (PathBuf, PathBuf) {
    static B: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    B.get_or_init(|| {
        let dir = root().join("target/stubdriver");
        std::fs::create_dir_all(&dir).unwrap();
        let src = root().join("tests/stubdriver");
        std::fs::write(dir.join("stub.c"), gen::stub_source(api())).unwrap();
        std::fs::write(dir.join("caller.c"), gen::caller_source(api())).unwrap();
        let (lib, exe) = (dir.join("libstubdriver.so"), dir.join("stub_caller"));
        let inc = format!("-I{}", src.display());
        let common = ["-std=gnu11", "-O1", "-g", "-Wall", "-Werror", "-Wno-unused-function", &inc];
        let mut a: Vec<String> = common.iter().map(|s| s.to_string()).collect();
        a.extend(["-shared", "-fPIC", "-fvisibility=hidden", "-o"].map(String::from));
        a.push(lib.display().to_string());
        a.push(dir.join("stub.c").display().to_string());
        a.push("-lpthread".into());
        gcc("the stub driver", &a);
        // No PIE: the callbacks' addresses, which the driver logs, are the same in every run.
        let mut a: Vec<String> = common.iter().map(|s| s.to_string()).collect();
        a.extend(["-no-pie", "-o"].map(String::from));
        a.push(exe.display().to_string());
        a.push(dir.join("caller.c").display().to_string());
        a.push("-ldl".into());
        gcc("the stub driver's test program", &a);
        (lib, exe)
    })
}

struct Run {
    out: Outcome,
    driver_log: String,
    api_log: Option<PathBuf>,
    _dir: Scratch,
}

fn run_on_stub(loader: Loader, mode: Mode) -> Run {
    let (lib, exe) = built();
    let dir = scratch("stub-driver");
    let mut c = command_libs(exe, &[], &[lib.display().to_string()], loader, mode);
    let log = dir.join("driver.log");
    c.env("STUBDRIVER_LOG", &log).env("STUBDRIVER_LIB", lib);
    if mode != Mode::Plain {
        c.env("CLTAP_OUTPUT_DIR", &*dir).env("CLTAP_LOG_DECODE", "1");
    }
    let out = run(c);
    let driver_log = std::fs::read_to_string(&log).unwrap_or_default();
    let api_log = (mode != Mode::Plain).then(|| only_file(&dir, ".apilog"));
    Run { out, driver_log, api_log, _dir: dir }
}

/// What the test program printed.
struct App {
    /// Call lines by sequence number: (function index, the rest).
    calls: BTreeMap<u32, (usize, String)>,
    /// Their sequence numbers in the order they were made.
    order: Vec<u32>,
    /// Whether each way found a function: (name, way) -> found.
    found: BTreeMap<(String, u32), bool>,
}

fn app(r: &Run, what: &str) -> App {
    assert_eq!(r.out.code, Some(0), "{what}: the test program failed: {}", r.out.stderr);
    assert_eq!(r.out.stdout.lines().last(), Some("END"), "{what}: the test program did not finish");
    let mut a = App { calls: BTreeMap::new(), order: Vec::new(), found: BTreeMap::new() };
    for l in r.out.stdout.lines() {
        let w: Vec<&str> = l.splitn(5, ' ').collect();
        match w[0] {
            "R" => {
                let seq = w[1].parse().unwrap();
                let prev = a.calls.insert(seq, (w[2].parse().unwrap(), w[3..].join(" ")));
                assert!(prev.is_none(), "{what}: call {seq} printed twice");
                a.order.push(seq);
            }
            "L" => {
                a.found.insert((w[1].to_string(), w[2].parse().unwrap()), w[3] == "fn");
            }
            _ => {}
        }
    }
    a
}

/// The driver's lines for the application's calls, by sequence number.
fn driver_calls(r: &Run, mask: bool) -> BTreeMap<u32, String> {
    let mut m = BTreeMap::new();
    for l in r.driver_log.lines() {
        let Some(rest) = l.strip_prefix("A ") else { continue };
        let (seq, rest) = rest.split_once(' ').unwrap();
        // '~' tokens are those ICD mode must replace (stub_base.c).
        let line = if mask {
            // Keep a buffer's contents: only its address is cltap's to change.
            let keep = |t: &str| -> String {
                match t.strip_prefix('~') {
                    Some(t) => t.find(['[', '{', '"']).map_or(String::new(), |i| t[i..].to_string()),
                    None => t.to_string(),
                }
            };
            rest.split(' ').map(keep).filter(|t| !t.is_empty()).collect::<Vec<_>>().join(" ")
        } else {
            rest.to_string()
        };
        m.insert(seq.parse::<u32>().unwrap(), line);
    }
    m
}

/// The calls the driver made on its own, by function name.
fn own_calls(r: &Run) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for l in r.driver_log.lines().filter(|l| l.starts_with("X ")) {
        *m.entry(l.split(' ').nth(2).unwrap().to_string()).or_default() += 1;
    }
    m
}

/// The user data the test program passes beside the callback at `i`.
fn user_data(seq: u32, i: usize) -> String {
    format!("ud={:#x}", 0x7e22_0000_0000u64 + u64::from(seq) * 0x10 + i as u64 + 1)
}

/// Every callback the driver called back reached the application's own
/// function with the application's own user data.
fn check_callbacks(a: &App, what: &str) -> usize {
    let mut n = 0;
    for (seq, (fi, line)) in &a.calls {
        let f = &api().functions[*fi];
        for (i, p) in f.params.iter().enumerate() {
            let Role::Callback(k) = &p.role else { continue };
            let name = match k {
                CallbackKind::ContextNotify => "context_notify",
                CallbackKind::ProgramNotify => "program_notify",
                CallbackKind::EventNotify => "event_notify",
                CallbackKind::MemNotify => "mem_notify",
                CallbackKind::ContextDestructor => "context_destructor",
                CallbackKind::SvmFree => "svm_free",
                CallbackKind::NativeKernel => "native_kernel",
                CallbackKind::Hsa => unreachable!(),
            };
            let got =
                line.find(&format!(" cb:{name}[")).map(|at| &line[at + 1..at + line[at..].find(']').unwrap() + 1]);
            let got = got.unwrap_or_else(|| {
                panic!("{what}: {} (call {seq}) never called the application's {name}: {line}", f.name)
            });
            if *k != CallbackKind::NativeKernel {
                assert!(got.ends_with(&format!("{}]", user_data(*seq, i))), "{what}: {} (call {seq}): {got}", f.name);
            }
            n += 1;
        }
    }
    n
}

/// A value that tells the call apart, as the API log decodes it: the first
/// scalar that counts nothing, else the first pointer cltap never reads.
fn telling_arg(f: &Function, seq: u32) -> Option<(String, String)> {
    let counted: Vec<&str> = f
        .params
        .iter()
        .filter_map(|p| match &p.role {
            Role::InArray { len: Len::Param(n) }
            | Role::InStrings { len: Len::Param(n) }
            | Role::InBytes { len: Len::Param(n) } => Some(n.as_str()),
            Role::OutArray { cap: Len::Param(n), .. } => Some(n.as_str()),
            Role::InfoResult { size } => Some(size.as_str()),
            _ => None,
        })
        .collect();
    let tag = |i: usize| u64::from(seq) * 0x10 + i as u64;
    for (i, p) in f.params.iter().enumerate() {
        if p.role == Role::Scalar && !counted.contains(&p.name.as_str()) {
            // Scalars print in decimal; the opaque pointer types among them
            // (cl_GLsync, CLegl*) as pointers.
            if gen::carrier(&p.c_type) == "void*" {
                return Some((p.name.clone(), format!("{:016X}", 0x51_0000_0000u64 + tag(i))));
            }
            return Some((p.name.clone(), (0x5100_0000 + tag(i)).to_string()));
        }
    }
    let i = f.params.iter().position(|p| p.role == Role::HostPtr)?;
    Some((f.params[i].name.clone(), format!("{:016X}", 0x7e11_0000_0000u64 + tag(i))))
}

/// Each of the application's calls that cltap saw is in the API log, in
/// order, with a telling argument decoded. Returns how many had one.
fn check_api_log(a: &App, r: &Run, what: &str) -> usize {
    let text = std::fs::read_to_string(r.api_log.as_ref().unwrap()).unwrap();
    let calls: Vec<Call> = apilog::read(&text)
        .unwrap()
        .into_iter()
        .filter_map(|e| if let Entry::Call(c) = e { Some(c) } else { None })
        .collect();
    let (mut at, mut decoded) = (0, 0);
    for seq in &a.order {
        let f = &api().functions[a.calls[seq].0];
        // The loader may answer these before any layer; Windows' slots are
        // passed through untouched, unrecorded (api/FORMAT.md).
        if f.dispatch == Dispatch::None && !f.local || f.windows_only {
            continue;
        }
        let want = telling_arg(f, *seq);
        let found = calls[at..].iter().position(|c| {
            *c.name == *f.name
                && want.as_ref().is_none_or(|(n, v)| {
                    c.args.iter().any(|x| *x.name == **n && (x.value == *v || x.value.starts_with(&format!("{v} "))))
                })
        });
        let k = found.unwrap_or_else(|| {
            panic!("{what}: call {seq} ({}, {want:?}) is not in the API log after line {at}", f.name)
        });
        at += k + 1;
        decoded += usize::from(want.is_some());
    }
    decoded
}

/// How one run covered the description.
#[derive(Debug, Default)]
struct Coverage {
    /// Functions the application called at least one way.
    called: usize,
    /// Functions that reached the driver.
    reached: usize,
    /// Functions a loader or cltap answered without the driver.
    answered: Vec<String>,
    /// Functions no way found (cltap's own without cltap, Windows' in ICD mode).
    absent: Vec<String>,
}

fn coverage(a: &App, r: &Run, loader: Loader, mode: Mode, what: &str) -> Coverage {
    let drv = driver_calls(r, false);
    let mut c = Coverage::default();
    for (fi, f) in api().functions.iter().enumerate() {
        let called = a.calls.values().any(|(i, _)| *i == fi);
        let reached = drv.keys().any(|s| a.calls.get(s).is_some_and(|(i, _)| *i == fi));
        // The loaders keep their own entry points (clIcdGetPlatformIDsKHR
        // through the Khronos loader, ocl-icd's query elsewhere) to themselves.
        let loaders_own = f.dispatch == Dispatch::None
            && (f.ext == "cl_icdl" || own_calls(r).contains_key(&f.name) && loader == Loader::Khronos);
        let expect_absent = (f.local && mode == Mode::Plain) || (f.windows_only && mode == Mode::Icd);
        assert!(called != expect_absent || !called && loaders_own, "{what}: {} called: {called}", f.name);
        if !called {
            for way in 0..3 {
                assert_eq!(a.found.get(&(f.name.clone(), way)), Some(&false), "{what}: {} way {way}", f.name);
            }
            c.absent.push(f.name.clone());
            continue;
        }
        c.called += 1;
        let may_skip = f.dispatch == Dispatch::None || f.local;
        assert!(reached || may_skip, "{what}: {} never reached the driver", f.name);
        if reached {
            c.reached += 1;
        } else {
            c.answered.push(f.name.clone());
        }
    }
    c
}

/// The application's handles of two runs, paired in the order they appear:
/// a call's output may only differ from the other run's by a consistent
/// renaming of handles (`H<n>` numbers the handles as the application first
/// saw them, and a call one run alone makes shifts the numbering).
#[derive(Default)]
struct Handles {
    pairs: BTreeMap<String, String>,
    back: BTreeMap<String, String>,
}

impl Handles {
    fn split(line: &str) -> (String, Vec<String>) {
        let (mut skeleton, mut hs) = (String::new(), Vec::new());
        let b = line.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let starts = b[i] == b'H'
                && i > 0
                && matches!(b[i - 1], b'=' | b'[')
                && b.get(i + 1).is_some_and(u8::is_ascii_digit);
            if starts {
                let end = (i + 1..b.len()).find(|&j| !b[j].is_ascii_digit()).unwrap_or(b.len());
                hs.push(line[i..end].to_string());
                skeleton.push('H');
                i = end;
            } else {
                skeleton.push(b[i] as char);
                i += 1;
            }
        }
        (skeleton, hs)
    }

    fn same(&mut self, a: &str, b: &str) -> bool {
        let ((sa, ha), (sb, hb)) = (Self::split(a), Self::split(b));
        if sa != sb {
            return false;
        }
        ha.into_iter().zip(hb).all(|(x, y)| {
            let ok = self.pairs.get(&x).is_none_or(|v| *v == y) && self.back.get(&y).is_none_or(|v| *v == x);
            self.pairs.insert(x.clone(), y.clone());
            self.back.insert(y, x);
            ok
        })
    }
}

/// Runs the program with cltap in `mode` and holds it to the run without.
fn compare(loader: Loader, mode: Mode, plain: &Run, base: &App) -> Coverage {
    let what = format!("{loader:?}, {mode:?}");
    let r = run_on_stub(loader, mode);
    let a = app(&r, &what);
    // Whoever called the driver (the application through cltap, or cltap
    // itself), it handed the driver the driver's own handles.
    assert!(!r.driver_log.contains(" ?"), "{what}: the driver got a handle not its own");
    let f_of = |seq: &u32| &api().functions[base.calls.get(seq).or(a.calls.get(seq)).unwrap().0];
    // The application saw what it sees without cltap.
    for (key, found) in &base.found {
        let f = api().functions.iter().find(|f| f.name == key.0).unwrap();
        let got = a.found[key];
        if f.local {
            // Found some way with cltap: coverage() requires a call.
            assert!(!found, "{what}: cltap's {} way {} found without cltap", f.name, key.1);
        } else if f.windows_only && mode == Mode::Icd {
            assert!(!got, "{what}: {} is Windows' and hidden in ICD mode, yet found", f.name);
        } else {
            assert_eq!(*found, got, "{what}: {} way {} found without cltap: {found}", f.name, key.1);
        }
    }
    let mut handles = Handles::default();
    for seq in &base.order {
        let (fi, line) = &base.calls[seq];
        let f = &api().functions[*fi];
        match a.calls.get(seq) {
            None => assert!(f.windows_only && mode == Mode::Icd, "{what}: call {seq} ({}) missing", f.name),
            Some((_, got)) => assert!(
                handles.same(line, got),
                "{what}: call {seq} ({}) saw something else:\nwithout cltap: {line}\nwith cltap:    {got}",
                f.name
            ),
        }
    }
    for seq in a.calls.keys().filter(|s| !base.calls.contains_key(s)) {
        assert!(f_of(seq).local, "{what}: call {seq} ({}) only with cltap", f_of(seq).name);
    }
    // The driver saw what it sees without cltap; in ICD mode, its own handles.
    let mask = mode == Mode::Icd;
    let (want, got) = (driver_calls(plain, mask), driver_calls(&r, mask));
    for (seq, line) in &want {
        let f = f_of(seq);
        match got.get(seq) {
            Some(g) => assert_eq!(g, line, "{what}: call {seq} ({}) reached the driver changed", f.name),
            None => assert!(
                f.dispatch == Dispatch::None || (f.windows_only && mode == Mode::Icd),
                "{what}: call {seq} ({}) did not reach the driver",
                f.name
            ),
        }
    }
    for seq in got.keys() {
        assert!(want.contains_key(seq), "{what}: call {seq} ({}) reached the driver only with cltap", f_of(seq).name);
    }
    let callbacks = check_callbacks(&a, &what);
    let decoded = check_api_log(&a, &r, &what);
    let c = coverage(&a, &r, loader, mode, &what);
    eprintln!(
        "{what}: {} of {} functions called, {} reached the driver, answered without it: {:?}, found by no way: {:?}; {} calls, {} callbacks, {decoded} calls' arguments decoded in the API log; the driver's own calls: {:?}",
        c.called,
        api().functions.len(),
        c.reached,
        c.answered,
        c.absent,
        a.calls.len(),
        callbacks,
        own_calls(&r)
    );
    c
}

fn every_mode(loader: Loader) {
    let plain = run_on_stub(loader, Mode::Plain);
    let what = format!("{loader:?}, no cltap");
    let base = app(&plain, &what);
    assert!(!plain.driver_log.contains(" ?"), "{what}: the driver got a handle not its own");
    let callbacks = check_callbacks(&base, &what);
    let c = coverage(&base, &plain, loader, Mode::Plain, &what);
    eprintln!(
        "{what}: {} of {} functions called, {} reached the driver, answered without it: {:?}, found by no way: {:?}; {} calls, {callbacks} callbacks",
        c.called,
        api().functions.len(),
        c.reached,
        c.answered,
        c.absent,
        base.calls.len()
    );
    for mode in [Mode::Layer, Mode::Icd] {
        compare(loader, mode, &plain, &base);
    }
}

#[test]
fn every_function_through_ocl_icd() {
    every_mode(Loader::OclIcd);
}

#[test]
fn every_function_through_the_khronos_loader() {
    every_mode(Loader::Khronos);
}
