//! What to render and where, and what the trace says of the process for
//! the files' headers.

use crate::trace::tsc;
use cltap_formats::cltrace::{Clock, Reader};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dest {
    /// `<dir>/<stem>.apilog`
    File,
    Stderr,
    Stdout,
}

/// What to render, and where.
#[derive(Debug, Clone)]
pub struct Outputs {
    pub dir: PathBuf,
    /// `<app>.<pid>[.r<rank>]`: every file's name before its extension.
    pub stem: String,
    pub api_log: Option<Dest>,
    pub options: super::printer::Options,
    pub timeline: bool,
    /// Perfetto's protobuf trace (`.pftrace`).
    pub pftrace: bool,
    /// rocpd's SQLite database (`.db`).
    pub rocpd: bool,
    pub atp: bool,
    /// The memory trace (`.memory.csv`) and the leak check.
    pub memory: crate::config::memory::Memory,
    /// The counter files (`.csv`, `.occupancy`, `results.csv`).
    pub counters: Option<crate::counters::collect::Request>,
    /// `CLTAP_OUTPUT_LIMIT`: bytes each limited text output (the API log,
    /// the timeline) may hold; `None`, no limit.
    pub limit: Option<u64>,
}

impl Outputs {
    pub fn path(&self, ext: &str) -> PathBuf {
        self.dir.join(format!("{}.{ext}", self.stem))
    }
}

/// The trace's clock: which it is, and its rate.
pub fn clock_text(clock: u32) -> &'static str {
    if clock == Clock::Monotonic as u32 {
        tsc::Source::Monotonic.describe()
    } else {
        tsc::Source::InvariantTsc.describe()
    }
}

/// What the trace says of the process, for the files' headers.
pub fn process_of(r: &Reader) -> crate::counters::files::Process {
    let args: Vec<String> = r.info("args").and_then(|a| serde_json::from_str(a).ok()).unwrap_or_default();
    crate::counters::files::Process {
        application: r.info("exe").unwrap_or("").to_string(),
        args: args.iter().skip(1).cloned().collect::<Vec<_>>().join(" "),
        cwd: r.info("cwd").unwrap_or("").to_string(),
        os: r.info("os").unwrap_or("Linux").to_string(),
    }
}

/// The `.atp` header (docs/platform-facts.md#radeon-compute-profiler-files) from what the trace says of the process.
pub fn atp_header(r: &Reader) -> Vec<(String, String)> {
    let p = process_of(r);
    cltap_formats::atp::HeaderInfo {
        profiler_version: format!("cltap {}", env!("CARGO_PKG_VERSION")),
        application: p.application,
        application_args: p.args,
        working_directory: p.cwd,
        os_version: p.os,
        ..Default::default()
    }
    .to_header()
}

/// The stem a trace names for its output files, when it is a plain file
/// name: not empty, not `.` or `..`, without `/` or NUL. The trace may come
/// from anywhere; what it names must not lead outside the output folder.
pub fn plain_stem(stem: &str) -> Option<&str> {
    (!stem.is_empty() && stem != "." && stem != ".." && !stem.contains(['/', '\0'])).then_some(stem)
}

/// The stem of every output file for a trace at `path`: its name without
/// `.cltrace`.
pub fn stem_of(path: &Path) -> String {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    name.strip_suffix(".cltrace").unwrap_or(&name).to_string()
}
