//! The kernel sources the suite builds, found where the suite keeps them: OpenCL C files
//! (`*.cl`), HIP files (`*.hip`), OpenCL C strings embedded in C programs (`*.c`), and ROCclr's
//! blit kernels (OpenCL C inside `device/blitcl.cpp` and `device/rocm/rocblitcl.cpp` of the
//! ROCclr archive in `shared/amd-opencl/`).

use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    OpenCl,
    Hip,
}

#[derive(Debug, Clone)]
pub struct Source {
    /// Where it came from (file, and line for an embedded string).
    pub origin: String,
    pub lang: Lang,
    pub text: String,
    /// Whether it must compile. Strings embedded in C programs may be deliberately broken (the
    /// error-path tests) or fragments of a multi-string program, so they may fail.
    pub must_compile: bool,
}

/// The workspace root: two levels above this crate.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The archive of ROCclr's source, next to the clone (`../shared/amd-opencl/`).
pub fn rocclr_archive() -> PathBuf {
    workspace_root().join("../shared/amd-opencl/ROCclr-rocm-5.2.3.tar.xz")
}

/// Every kernel source of the suite, each distinct text once.
pub fn suite_sources() -> Vec<Source> {
    let root = workspace_root();
    let mut files = Vec::new();
    for dir in ["tests", "samples", "gpu-emu"] {
        walk(&root.join(dir), &mut files);
    }
    files.sort();
    let mut out: Vec<Source> = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&root).unwrap_or(&f).display().to_string();
        let ext = f.extension().and_then(|e| e.to_str()).unwrap_or("");
        let Ok(text) = std::fs::read_to_string(&f) else { continue };
        match ext {
            "cl" => out.push(Source { origin: rel, lang: Lang::OpenCl, text, must_compile: true }),
            "hip" => out.push(Source { origin: rel, lang: Lang::Hip, text, must_compile: true }),
            "c" => {
                for (line, s) in c_string_groups(&text) {
                    if s.contains("__kernel") || s.contains("kernel void") {
                        let origin = format!("{rel}:{line}");
                        out.push(Source { origin, lang: Lang::OpenCl, text: s, must_compile: false });
                    }
                }
            }
            _ => {}
        }
    }
    out.extend(rocclr_blit_sources());
    let mut seen = std::collections::HashSet::new();
    out.retain(|s| seen.insert((s.lang, s.text.clone())));
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            // Hostile inputs are trace files, not sources; target holds build outputs.
            if name != "target" && name != "hostile" && !name.starts_with('.') {
                walk(&p, out);
            }
        } else if matches!(p.extension().and_then(|e| e.to_str()), Some("cl" | "hip" | "c")) {
            out.push(p);
        }
    }
}

/// ROCclr's blit programs as ROCclr builds them: for OpenCL the linear and image kernels of
/// `blitcl.cpp` in one program (a device with images), and the ROCm-specific kernels of
/// `rocblitcl.cpp` (stream operations, the scheduler, GWS init) in another.
pub fn rocclr_blit_sources() -> Vec<Source> {
    let archive = rocclr_archive();
    let read = |member: &str| -> String {
        let out = Command::new("tar")
            .arg("-xJOf")
            .arg(&archive)
            .arg(format!("ROCclr-rocm-5.2.3/{member}"))
            .output()
            .unwrap_or_else(|e| panic!("tar on {}: {e}", archive.display()));
        assert!(out.status.success(), "{member} from {}: {}", archive.display(), String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).expect("UTF-8 source")
    };
    let blit = read("device/blitcl.cpp");
    let roc = read("device/rocm/rocblitcl.cpp");
    let linear = macro_body(&blit, "BlitLinearSourceCode").expect("BlitLinearSourceCode in blitcl.cpp");
    let image = macro_body(&blit, "BlitImageSourceCode").expect("BlitImageSourceCode in blitcl.cpp");
    let mut roc_text = String::new();
    for name in ["rocBlitLinearSourceCode", "SchedulerSourceCode", "GwsInitSourceCode"] {
        roc_text += &macro_body(&roc, name).unwrap_or_else(|| panic!("{name} in rocblitcl.cpp"));
        roc_text.push('\n');
    }
    vec![
        Source {
            origin: "ROCclr device/blitcl.cpp (linear + image)".into(),
            lang: Lang::OpenCl,
            text: format!("{linear}\n{image}\n"),
            must_compile: true,
        },
        Source {
            origin: "ROCclr device/rocm/rocblitcl.cpp".into(),
            lang: Lang::OpenCl,
            text: roc_text,
            must_compile: true,
        },
    ]
}

/// The argument of `const char* NAME = MACRO( ... );`: what the stringizing macro turns into the
/// program's text (the comments it drops do not matter to the compiler).
pub fn macro_body(cpp: &str, name: &str) -> Option<String> {
    let at = cpp.find(&format!("{name} ="))?;
    let open = at + cpp[at..].find('(')?;
    let mut depth = 0usize;
    let bytes = cpp.as_bytes();
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i += cpp[i..].find('\n').unwrap_or(cpp.len() - i);
                continue;
            }
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(cpp[open + 1..i].to_string());
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The string literals of a C file, adjacent ones (separated by blanks and comments only)
/// joined as the compiler joins them, with the escapes resolved; each with its first line.
pub fn c_string_groups(c: &str) -> Vec<(usize, String)> {
    let b = c.as_bytes();
    let mut groups = Vec::new();
    let mut cur: Option<(usize, String)> = None;
    let mut line = 1;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b' ' | b'\t' | b'\r' => i += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    line += usize::from(b[i] == b'\n');
                    i += 1;
                }
                i += 2;
            }
            b'\'' => {
                if let Some(g) = cur.take() {
                    groups.push(g);
                }
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'"' => {
                let g = cur.get_or_insert_with(|| (line, String::new()));
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' && i + 1 < b.len() {
                        match b[i + 1] {
                            b'n' => g.1.push('\n'),
                            b't' => g.1.push('\t'),
                            b'\n' => line += 1,
                            other => g.1.push(other as char),
                        }
                        i += 2;
                    } else {
                        line += usize::from(b[i] == b'\n');
                        // Multi-byte UTF-8 is copied byte by byte into a String only through
                        // a char boundary-safe path.
                        let ch = c[i..].chars().next().unwrap_or('?');
                        g.1.push(ch);
                        i += ch.len_utf8();
                    }
                }
                i += 1;
            }
            _ => {
                if let Some(g) = cur.take() {
                    groups.push(g);
                }
                i += 1;
            }
        }
    }
    groups.extend(cur);
    groups
}

#[test]
fn c_strings_are_joined_and_unescaped() {
    let c = "x = \"a\\n\" /* c */ \"b\\\"c\"\n  \"d\";\ny = '\"'; z = \"e\";";
    assert_eq!(c_string_groups(c), vec![(1, "a\nb\"cd".to_string()), (3, "e".to_string())]);
    assert_eq!(macro_body("const char* A = M(\n f(x) // )\n);", "A").as_deref(), Some("\n f(x) // )\n"));
}
