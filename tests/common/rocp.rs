//! Shared by the rocprofiler v1 tests: building a tool of `tests/tools/`
//! against cltap's v1 header, and reading the `key=value` lines the tools
//! write.

use super::root;
use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

/// gcc on a file of `tests/tools/` with cltap's v1 header.
pub fn gcc(source: &str, out: &str, extra: &[&str]) -> PathBuf {
    let exe = root().join("target/ctests").join(out);
    std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
    let st = Command::new("gcc")
        .args(["-std=c11", "-O1", "-Wall", "-Werror", "-pthread"])
        .arg(format!("-I{}", root().join("include/rocprofiler").display()))
        .arg("-I/usr/include/hsa")
        .args(extra)
        .arg(root().join("tests/tools").join(source))
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("run gcc");
    assert!(st.success(), "building tests/tools/{source} failed");
    exe
}

/// A tool line's `key=value` words (the `msg=` value runs to the line's end).
pub fn words(line: &str) -> HashMap<String, String> {
    let (head, msg) = match line.split_once(" msg=") {
        Some((h, m)) => (h, Some(m)),
        None => (line, None),
    };
    let mut m: HashMap<String, String> = head
        .split_whitespace()
        .filter_map(|w| w.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    if let Some(msg) = msg {
        m.insert("msg".into(), msg.to_string());
    }
    m
}

/// The first line starting with `key=` (or `key ` for the words without a value).
pub fn line(lines: &[String], key: &str) -> HashMap<String, String> {
    let l = lines
        .iter()
        .find(|l| l.starts_with(&format!("{key}=")) || l.starts_with(&format!("{key} ")))
        .unwrap_or_else(|| panic!("no {key} line in:\n{}", lines.join("\n")));
    words(l)
}

/// The lines starting with `key ` or `key=`, as words.
pub fn all(lines: &[String], key: &str) -> Vec<HashMap<String, String>> {
    lines
        .iter()
        .filter(|l| l.starts_with(&format!("{key} ")) || l.starts_with(&format!("{key}=")))
        .map(|l| words(l))
        .collect()
}
