//! The outside checkers of cltap's files, shared by the tests that read
//! them: Perfetto's own schema for `.pftrace` files (`tests/pftrace/check.py`)
//! and rocpd's own views for `.db` files (`tests/rocpd/check.py`).

use super::root;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn pydeps() -> PathBuf {
    std::env::var_os("PERFETTO_PYTHONPATH").map(PathBuf::from).unwrap_or_else(|| root().join(".deps/py"))
}

/// Perfetto's schema's verdict on each of `files`: their counts.
pub fn perfetto_check(files: &[PathBuf]) -> Vec<Value> {
    let o = Command::new("python3")
        .arg(root().join("tests/pftrace/check.py"))
        .args(files)
        .env("PYTHONPATH", pydeps())
        .output()
        .expect("run python3");
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "Perfetto's schema refused the trace:\n{err}{out}");
    out.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// Every slice of `file` in the order they begin (`tests/pftrace/slices.py`): track, name,
/// category, `ts`, `end` (ns) and flow ids.
pub fn perfetto_slices(file: &Path) -> Vec<Value> {
    let o = Command::new("python3")
        .arg(root().join("tests/pftrace/slices.py"))
        .arg(file)
        .env("PYTHONPATH", pydeps())
        .output()
        .expect("run python3");
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "the .pftrace's slices could not be read:\n{err}{out}");
    out.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// What rocpd's views answer for `db`.
pub fn views(db: &Path) -> Value {
    let o = Command::new("python3")
        .arg(root().join("tests/rocpd/check.py"))
        .arg(root().join("tests/rocpd/views.sql"))
        .arg(db)
        .output()
        .expect("run python3");
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "rocpd's views did not run:\n{err}{out}");
    serde_json::from_str(out.trim()).unwrap()
}
