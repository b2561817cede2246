//! Subcommands of `cltap`.

mod bench;
mod child;
mod logs;
mod merge;
mod metrics;
mod passes;
mod render;
mod run;
mod run_debug;
mod validate;
mod window_args;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "cltap", version, about = "OpenCL API interposer: run an application under cltap and see every call")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run an application under the cltap layer.
    Run(Box<run::RunArgs>),
    /// Write the deterministic form of an API log or .atp (for snapshots and diffs).
    Normalize(logs::NormalizeArgs),
    /// Compare two API logs (or .atp files) call by call; exit 1 when they differ.
    Diff(logs::DiffArgs),
    /// Run an application under cltap and compare its normalized log with a snapshot.
    Check(logs::CheckArgs),
    /// Print the host-API tally of captured logs; for .atp files also the kernel and transfer tables; for counter .csv files the per-kernel counter totals and averages.
    Report(logs::ReportArgs),
    /// Merge the Perfetto traces (.pftrace) of a job's processes into one timeline.
    Merge(merge::MergeArgs),
    /// Render a binary trace (.cltrace) into the files its run asked for: API log, timeline, .pftrace, .db, .atp, counter and memory files, summary.
    Render(render::RenderArgs),
    /// Measure what cltap adds per call, records per second into the trace, memory, and the rendering rate.
    Bench(bench::BenchArgs),
    /// List hardware counters and derived metrics (rocprofiler metrics files) or explain how one is computed.
    Metrics(metrics::MetricsArgs),
}

pub fn main() -> i32 {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Run(a) => run::run(*a),
        Cmd::Normalize(a) => logs::normalize_cmd(a),
        Cmd::Diff(a) => logs::diff_cmd(a),
        Cmd::Check(a) => logs::check_cmd(a),
        Cmd::Report(a) => logs::report_cmd(a),
        Cmd::Merge(a) => merge::run(a),
        Cmd::Render(a) => render::run(a),
        Cmd::Bench(a) => bench::run(a),
        Cmd::Metrics(a) => metrics::run(a),
    }
}
