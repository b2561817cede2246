//! What `tests/tool_lib.rs` and `tests/buffers.rs` share: building the C
//! tools of `tests/tools/`, running programs under cltap on PoCL, and
//! reading the binary trace back as records.
#![allow(dead_code)]

use crate::common::*;
use cltap_formats::cltrace::record::{self, Capture, Header, View};
use cltap_formats::cltrace::Reader;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// Builds `tests/tools/<source>` with gcc, once per test binary, into
/// `target/tooltests/<name>`: a shared library when `shared`. `extra` are
/// more gcc arguments (defines, libraries).
pub fn build_c(source: &str, name: &str, shared: bool, extra: &[&str]) -> PathBuf {
    static BUILT: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    let out = root().join("target/tooltests").join(name);
    let mut built = BUILT.lock().unwrap();
    if built.contains(&out) {
        return out;
    }
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let src = if source.contains('/') { root().join(source) } else { root().join("tests/tools").join(source) };
    let mut c = Command::new("gcc");
    c.args(["-std=c11", "-O1", "-Wall", "-Werror", "-pthread"]).arg("-I").arg(root().join("include"));
    if shared {
        c.args(["-shared", "-fPIC"]);
    }
    let st = c.arg(&src).arg("-o").arg(&out).args(extra).status().expect("run gcc");
    assert!(st.success(), "building {} failed", src.display());
    built.push(out.clone());
    out
}

/// A tool library of `tests/tools/`.
pub fn tool(source: &str, name: &str, defines: &[&str]) -> PathBuf {
    build_c(source, name, true, defines)
}

/// `tests/c/special/calls.c`: known call sequences.
pub fn calls() -> PathBuf {
    special("calls.c", "calls")
}

/// `program args` on PoCL through ocl-icd, without cltap.
pub fn plain(program: &Path, args: &[&str]) -> Command {
    let mut c = command(program, args, &[Driver::Pocl], Loader::OclIcd, Mode::Plain);
    clean_rocp(&mut c);
    c
}

/// `program args` on PoCL with cltap as a loader layer, its files in `out`.
pub fn under_cltap(program: &Path, args: &[&str], out: &Path) -> Command {
    under_cltap_as(Mode::Layer, program, args, out)
}

/// The same with cltap put in place as `mode` (layer or ICD).
pub fn under_cltap_as(mode: Mode, program: &Path, args: &[&str], out: &Path) -> Command {
    let mut c = command(program, args, &[Driver::Pocl], Loader::OclIcd, mode);
    clean_rocp(&mut c);
    c.env("CLTAP_OUTPUT_DIR", out);
    c
}

fn clean_rocp(c: &mut Command) {
    for (k, _) in std::env::vars() {
        if k.starts_with("ROCP_") || k.starts_with("HSA_") || k.starts_with("BUFFER_") || k.starts_with("TOOLLIB_") {
            c.env_remove(k);
        }
    }
}

/// `paths` as a `ROCP_TOOL_LIB` value.
pub fn tool_lib(paths: &[&Path]) -> String {
    paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(":")
}

/// A record, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rec {
    pub header: Header,
    pub args: Vec<u64>,
    pub captures: Vec<(Capture, Vec<u8>)>,
}

impl Rec {
    pub fn of(v: &View<'_>) -> Rec {
        Rec {
            header: v.header,
            args: v.args.to_vec(),
            captures: v.captures.iter().map(|(c, d)| (*c, d.to_vec())).collect(),
        }
    }

    /// The function's name (calls), or `kind N`.
    pub fn name(&self) -> String {
        cltap::meta::function(self.header.kind, self.header.fn_id)
            .map_or_else(|| format!("kind {}", self.header.kind), |f| f.name.to_string())
    }

    pub fn is_api(&self) -> bool {
        matches!(self.header.kind, record::KIND_OPENCL_CALL | record::KIND_HSA_CALL)
    }
}

/// Every complete record of the trace in `dir`, in render order.
pub fn trace_records(dir: &Path) -> Vec<Rec> {
    trace_file_records(&only_file(dir, ".cltrace"))
}

/// Every complete record of the trace at `path`, in render order.
pub fn trace_file_records(path: &Path) -> Vec<Rec> {
    let r = Reader::open(path).unwrap();
    let mut out = Vec::new();
    let mut buf = Vec::new();
    for c in r.chunks().unwrap() {
        r.chunk_bytes(&c, &mut buf).unwrap();
        r.walk(&c, &buf, |v| {
            if v.returned() {
                out.push(Rec::of(v));
            }
        })
        .unwrap();
    }
    out
}

/// Records as a tool wrote them: their bytes back to back. Every byte must
/// belong to a record.
pub fn dumped_records(path: &Path) -> Vec<Rec> {
    let bytes = std::fs::read(path).unwrap();
    let recs: Vec<Rec> = record::records(&bytes).map(|v| Rec::of(&v)).collect();
    let total: usize = recs.iter().map(|r| r.header.len as usize).sum();
    assert_eq!(total, bytes.len(), "{}: bytes that are not records", path.display());
    recs
}

/// Per thread, in order: what a thread's records must look like wherever
/// they are read.
pub fn by_thread(recs: &[Rec]) -> std::collections::BTreeMap<u32, Vec<Rec>> {
    let mut m: std::collections::BTreeMap<u32, Vec<Rec>> = Default::default();
    for r in recs {
        m.entry(r.header.tid).or_default().push(r.clone());
    }
    m
}

/// The calls of the API log in `dir` (its trailer checked).
pub fn log_calls(dir: &Path) -> Vec<cltap_formats::apilog::Call> {
    use cltap_formats::apilog::{self, Entry};
    let path = only_file(dir, ".apilog");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.lines().last().is_some_and(|l| l.starts_with("# end: ")), "no trailer in {}", path.display());
    apilog::read(&text)
        .unwrap()
        .into_iter()
        .filter_map(|e| if let Entry::Call(c) = e { Some(c) } else { None })
        .collect()
}

/// The stderr lines that are not cltap's ROCP_TOOL_LIB lines.
pub fn other_lines(stderr: &str) -> Vec<&str> {
    stderr.lines().filter(|l| !l.starts_with("cltap: ROCP_TOOL_LIB: ")).collect()
}
