//! `cltap render TRACE`: the files a binary trace's run asked for (API log,
//! timeline, `.pftrace`, `.db`, `.atp`, counter and memory files, summary),
//! from what the trace holds. `cltap run` does the same when the
//! application died before it could.

use clap::Args;
use cltap::render::{self, InFlight, Renderer};
use cltap::summary::Summary;
use cltap::trace::settings::outputs_of;
use cltap_formats::cltrace::{Reader, FLAG_FINISHED};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct RenderArgs {
    /// A binary trace (`<app>.<pid>.cltrace`); it is rendered into the outputs its run asked for
    /// (.apilog, .atp, .json, .pftrace, .db, .memory.csv, .csv, .occupancy, .results.csv,
    /// .summary.json).
    pub trace: PathBuf,
    /// Where the rendered files go (default: beside the trace, for a trace
    /// its process did not render: one run with `CLTAP_RENDER=0`, or that
    /// died).
    #[arg(short, long, value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Threads that format the API log (default: every core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// The most bytes the API log and the timeline may hold each (K, M, G, T; 0: no limit);
    /// default: the run's CLTAP_OUTPUT_LIMIT, which the trace keeps.
    #[arg(long, value_name = "BYTES")]
    pub output_limit: Option<String>,
}

pub struct Rendered {
    pub in_flight: Vec<InFlight>,
    pub files: Vec<PathBuf>,
}

/// Whether the process rendered its trace itself.
pub fn finished(trace: &Path) -> bool {
    Reader::open(trace).is_ok_and(|r| r.header.flags & FLAG_FINISHED != 0)
}

/// Renders everything the trace's settings ask for into `out` (default:
/// the trace's folder); prints the summary table when it was asked for.
/// `limit`: the text outputs' limit instead of the run's (`Some(None)`: none).
pub fn render_trace(
    trace: &Path,
    out: Option<&Path>,
    threads: Option<usize>,
    limit: Option<Option<u64>>,
) -> Result<Rendered, String> {
    let reader = Reader::open(trace).map_err(|e| e.to_string())?;
    // The process's own files are never overwritten: a trace of an older
    // cltap lacks what they show (device times), and a rendering elsewhere
    // can be compared with them.
    if out.is_none() && reader.header.flags & FLAG_FINISHED != 0 && reader.info("render") != Some("0") {
        return Err(format!(
            "{}: its process rendered it already, and its files are beside it; give --output DIR to render it again",
            trace.display()
        ));
    }
    let dir = out.map(Path::to_path_buf).unwrap_or_else(|| trace.parent().map(Path::to_path_buf).unwrap_or_default());
    if let Some(o) = out {
        std::fs::create_dir_all(o).map_err(|e| format!("{}: {e}", o.display()))?;
    }
    let stem = match reader.info("stem") {
        Some(s) if render::plain_stem(s).is_none() => {
            return Err(format!(
                "{}: the trace names its output files {s:?}, which is not a plain file name",
                trace.display()
            ))
        }
        Some(s) => s.to_string(),
        None => render::stem_of(trace),
    };
    let mut outputs = outputs_of(&reader, &dir, stem.clone());
    if let Some(l) = limit {
        outputs.limit = l;
    }
    let summary = reader.info("summary") == Some("1");
    let device_timing = reader.info("device_timing") == Some("1");
    let pid = reader.header.pid;
    let mut r = Renderer::new(reader, outputs);
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let drops = r.finish(threads.max(1));
    if drops > 0 {
        eprintln!("cltap: {drops} call records were dropped during the run");
    }
    // The files the sinks wrote, by name.
    let mut files: Vec<PathBuf> = r.results().files.iter().filter(|p| p.is_file()).cloned().collect();
    files.sort();
    if summary {
        let s = Summary::of_trace(pid, device_timing, r.results());
        let p = dir.join(format!("{stem}.summary.json"));
        s.write_json_with(&p, s.hsa()).map_err(|e| format!("{}: {e}", p.display()))?;
        files.push(p);
        eprint!("{}", s.table_with(s.hsa()));
    }
    Ok(Rendered { in_flight: r.in_flight().to_vec(), files })
}

pub fn run(a: RenderArgs) -> i32 {
    let limit = match a.output_limit.as_deref().map(|v| cltap::config::limits::limit("CLTAP_OUTPUT_LIMIT", v)) {
        None => None,
        Some(Ok(l)) => Some(l),
        Some(Err(e)) => {
            let e = e.to_string();
            let e = e.split("; cltap continues").next().unwrap_or(&e);
            eprintln!("cltap: --output-limit: {e}");
            return 2;
        }
    };
    match render_trace(&a.trace, a.output.as_deref(), a.threads, limit) {
        Ok(r) => {
            for c in &r.in_flight {
                eprintln!(
                    "cltap: {} did not return (thread {}{})",
                    c.api,
                    c.tid,
                    c.cmd_id.map(|c| format!(", CMD ID {c}")).unwrap_or_default()
                );
            }
            eprintln!("cltap: files written:");
            for p in &r.files {
                let n = p.metadata().map(|m| m.len()).unwrap_or(0);
                eprintln!("cltap:   {} ({n} bytes)", p.display());
            }
            0
        }
        Err(e) => {
            eprintln!("cltap: {e}");
            1
        }
    }
}
