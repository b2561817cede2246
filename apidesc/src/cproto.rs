//! Proves the descriptions' prototypes equal to the official C declarations
//! (issue #39): a C file includes the official headers (Khronos' for
//! `api/opencl.api`, ROCr's for `api/hsa.api`), then redeclares every
//! described function with the description's prototype. C refuses two
//! declarations of one function whose types differ (result, parameter count,
//! order, width, pointer constness, callback types), so the system's C
//! compiler (`-fsyntax-only`) fails on any mismatch; each error's line in
//! the generated file names the function. A redeclaration of a function the
//! headers do not declare would pass vacuously, so each line first takes
//! `__typeof__` of the header's declaration.
//!
//! `api/unchecked.txt` lists the described functions the headers cannot
//! vouch for, with where their prototypes come from instead; for those it
//! calls `absent`, the generated file proves the headers really lack them
//! (a variable of the same name would clash with a declaration).

use crate::cheader::cl_callback;
use crate::types::{callback_kind, hsa_callback};
use crate::{Api, Function};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// Which description, and so which headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    OpenCl,
    Hsa,
}

impl Lang {
    fn file(self) -> &'static str {
        match self {
            Lang::OpenCl => "api/opencl.api",
            Lang::Hsa => "api/hsa.api",
        }
    }

    /// The headers, with every optional part switched on so that each
    /// function they know is declared.
    fn prelude(self) -> &'static str {
        match self {
            Lang::OpenCl => OPENCL_PRELUDE,
            Lang::Hsa => HSA_PRELUDE,
        }
    }
}

/// Khronos' headers (Debian's `opencl-c-headers`), deprecated and beta
/// entry points included.
const OPENCL_PRELUDE: &str = "#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#define CL_USE_DEPRECATED_OPENCL_2_1_APIS
#define CL_USE_DEPRECATED_OPENCL_2_2_APIS
#define CL_ENABLE_BETA_EXTENSIONS
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_gl.h>
#include <CL/cl_egl.h>
#include <CL/cl_icd.h>
";

/// ROCr's headers (Debian's `libhsa-runtime-dev`).
const HSA_PRELUDE: &str = "#include <stdbool.h>
#include <stdint.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ext_finalize.h>
#include <hsa/hsa_ext_image.h>
#include <hsa/hsa_ven_amd_loader.h>
#define CL_API_ENTRY
#define CL_API_CALL
";

/// Why a function's prototype is not compared with the headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// No included header declares it; the check proves that.
    Absent,
    /// The headers declare an older revision; the description follows a newer one.
    Newer,
    /// Its header needs Windows' own headers.
    Windows,
}

/// One line of `api/unchecked.txt`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unchecked {
    pub name: String,
    pub why: Why,
    /// Where the description's prototype comes from.
    pub source: String,
    pub line: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("api/unchecked.txt:{line}: {msg}")]
    List { line: usize, msg: String },
    #[error("{file}: the prototype of {} differs from the official headers' declaration (or they lack it: list it in api/unchecked.txt with its source); the C compiler says:\n{stderr}", .functions.join(", "))]
    Mismatch { file: &'static str, functions: Vec<String>, stderr: String },
    #[error("{file}: the prototype check's C file does not compile ({cc}), for no described function; the C compiler says:\n{stderr}")]
    Compiler { file: &'static str, cc: String, stderr: String },
    #[error("run the C compiler `{cc}` ({err}); it and the headers come with scripts/setup.sh")]
    Spawn { cc: String, err: std::io::Error },
    #[error("write {}: {err}", .path.display())]
    Write { path: PathBuf, err: std::io::Error },
}

/// Parses `api/unchecked.txt`: `NAME WHY SOURCE…` a line, `#` comments.
pub fn parse_unchecked(text: &str) -> Result<Vec<Unchecked>, CheckError> {
    let mut v: Vec<Unchecked> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.split('#').next().unwrap().trim();
        if l.is_empty() {
            continue;
        }
        // Fields are separated by any run of blanks; the source is the rest.
        let word = |t: &str| -> (String, String) {
            let t = t.trim_start();
            let end = t.find(char::is_whitespace).unwrap_or(t.len());
            (t[..end].to_string(), t[end..].trim().to_string())
        };
        let (name, rest) = word(l);
        let (why, source) = word(&rest);
        let name = name.as_str();
        let why = match why.as_str() {
            "absent" => Why::Absent,
            "newer" => Why::Newer,
            "windows" => Why::Windows,
            o => return Err(CheckError::List { line, msg: format!("`{o}`: not absent, newer or windows") }),
        };
        if source.is_empty() {
            return Err(CheckError::List { line, msg: format!("{name}: no source named") });
        }
        if v.iter().any(|u| u.name == name) {
            return Err(CheckError::List { line, msg: format!("{name} listed twice") });
        }
        v.push(Unchecked { name: name.to_string(), why, source, line });
    }
    Ok(v)
}

/// One parameter (or the result's callback type) as C, without a name.
fn c_param(lang: Lang, t: &str) -> String {
    match lang {
        Lang::OpenCl => match callback_kind(t).and_then(cl_callback) {
            Some((ret, args)) => format!("{ret} (CL_CALLBACK*)({args})"),
            None => t.to_string(),
        },
        Lang::Hsa => match hsa_callback(t) {
            // "R (*)(A)" or a typedef of the headers'.
            Some(c) => c.to_string(),
            None => t.to_string(),
        },
    }
}

/// The description's prototype of `f` as a C declaration.
pub fn c_declaration(lang: Lang, f: &Function) -> String {
    let params: Vec<String> = f.params.iter().map(|p| c_param(lang, &p.c_type)).collect();
    let params = if params.is_empty() { "void".to_string() } else { params.join(", ") };
    format!("CL_API_ENTRY {} CL_API_CALL {}({params});", f.ret_type, f.name)
}

/// The C file for one description, and the function on each of its lines
/// (index: line - 1; `None` for the prelude).
pub fn c_source(lang: Lang, api: &Api, unchecked: &[Unchecked]) -> (String, Vec<Option<String>>) {
    let mut s = format!("/* @generated by apidesc/src/cproto.rs from {}. */\n", lang.file());
    s.push_str(lang.prelude());
    let mut lines: Vec<Option<String>> = vec![None; s.lines().count()];
    for f in &api.functions {
        match unchecked.iter().find(|u| u.name == f.name) {
            // A variable clashes with any declaration of the name.
            Some(u) if u.why == Why::Absent => {
                writeln!(s, "extern char {}; /* absent: api/unchecked.txt:{} */", f.name, u.line).unwrap()
            }
            Some(u) => writeln!(s, "/* {}: not checked, api/unchecked.txt:{} */", f.name, u.line).unwrap(),
            None => writeln!(
                s,
                "typedef __typeof__({0}) cltap_declared_{0}; {1} /* {2}:{3} */",
                f.name,
                c_declaration(lang, f),
                lang.file(),
                f.line
            )
            .unwrap(),
        }
        lines.push(Some(f.name.clone()));
    }
    (s, lines)
}

/// The C compiler: `$CC`, else `cc`.
pub fn compiler() -> String {
    std::env::var("CC").ok().filter(|c| !c.is_empty()).unwrap_or_else(|| "cc".to_string())
}

/// Checks one description: writes its C file into `dir` and compiles it.
pub fn check(lang: Lang, api: &Api, unchecked: &[Unchecked], dir: &Path, cc: &str) -> Result<(), CheckError> {
    let (text, lines) = c_source(lang, api, unchecked);
    let stem = match lang {
        Lang::OpenCl => "opencl",
        Lang::Hsa => "hsa",
    };
    let path = dir.join(format!("prototypes_{stem}.c"));
    std::fs::write(&path, &text).map_err(|err| CheckError::Write { path: path.clone(), err })?;
    let mut cmd = std::process::Command::new(cc);
    // `C` locale: plain quotes in the messages.
    cmd.env("LC_ALL", "C").args(["-fsyntax-only", "-std=gnu11", "-x", "c"]).arg(&path);
    let out = cmd.output().map_err(|err| CheckError::Spawn { cc: cc.to_string(), err })?;
    if out.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let functions = failing_functions(&stderr, &path, &lines);
    if functions.is_empty() {
        return Err(CheckError::Compiler { file: lang.file(), cc: cc.to_string(), stderr });
    }
    Err(CheckError::Mismatch { file: lang.file(), functions, stderr })
}

/// The functions on the lines of `path` the compiler reports errors on.
fn failing_functions(stderr: &str, path: &Path, lines: &[Option<String>]) -> Vec<String> {
    let prefix = format!("{}:", path.display());
    let mut v: Vec<String> = Vec::new();
    for l in stderr.lines() {
        let Some(rest) = l.strip_prefix(&prefix) else { continue };
        if !rest.contains("error") {
            continue;
        }
        let n: Option<usize> = rest.split(':').next().and_then(|n| n.parse().ok());
        if let Some(Some(name)) = n.and_then(|n| lines.get(n.wrapping_sub(1))) {
            if !v.contains(name) {
                v.push(name.clone());
            }
        }
    }
    v
}

/// Checks both descriptions, after holding `api/unchecked.txt` to them:
/// each entry names a described function.
pub fn check_all(ocl: &Api, hsa: &Api, unchecked: &[Unchecked], dir: &Path, cc: &str) -> Result<(), CheckError> {
    for u in unchecked {
        if !ocl.functions.iter().chain(&hsa.functions).any(|f| f.name == u.name) {
            return Err(CheckError::List { line: u.line, msg: format!("{}: described in neither API", u.name) });
        }
    }
    check(Lang::OpenCl, ocl, unchecked, dir, cc)?;
    check(Lang::Hsa, hsa, unchecked, dir, cc)
}
