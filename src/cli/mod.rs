//! Subcommands of `cltap`.

mod bench;
mod child;
mod dumps_cmd;
mod logs;
mod merge;
mod metrics;
mod passes;
mod render;
mod run;
mod run_controls;
mod run_debug;
mod run_limits;
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
    /// Print the host-API tally of API logs (.apilog), binary traces (.cltrace), application traces (.atp, with their kernel and transfer tables) and rocpd databases (.db); the per-kernel counter totals of counter files (.csv, .results.csv, .occupancy).
    Report(logs::ReportArgs),
    /// Merge the Perfetto traces (.pftrace) of a job's processes into one timeline.
    Merge(merge::MergeArgs),
    /// Render a binary trace (.cltrace) into the files its run asked for: the API log (.apilog), .atp, timeline (.json), Perfetto trace (.pftrace), rocpd database (.db), memory trace (.memory.csv), counter files (.csv, .occupancy, .results.csv) and summary (.summary.json).
    Render(render::RenderArgs),
    /// Measure what cltap adds per call, records per second into the trace, memory, and the rendering rate.
    Bench(bench::BenchArgs),
    /// List hardware counters and derived metrics (rocprofiler metrics files) or explain how one is computed.
    Metrics(metrics::MetricsArgs),
    /// Work with argument dumps (CLTAP_DUMP_ARGS): `cltap dumps diff BEFORE AFTER`.
    Dumps(dumps_cmd::DumpsArgs),
    /// Run an enqueue captured by CLTAP_CAPTURE again, on any driver, and compare its results with the captured ones; exit 1 at the first difference.
    Replay(dumps_cmd::ReplayArgs),
}

pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let args: Vec<String> = std::env::args().collect();
            let hint = app_without_dashes(&e, &args).or_else(|| nearest_subcommand(&e));
            let code = e.exit_code();
            let _ = e.print();
            if let Some(h) = hint {
                eprintln!("{h}");
            }
            return code;
        }
    };
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
        Cmd::Dumps(a) => dumps_cmd::dumps(a),
        Cmd::Replay(a) => dumps_cmd::replay(a),
    }
}

/// For `cltap run app args` (the application without `--`): where it
/// goes, as the command to type.
fn app_without_dashes(e: &clap::Error, args: &[String]) -> Option<String> {
    if e.kind() != clap::error::ErrorKind::UnknownArgument {
        return None;
    }
    let sub = args.get(1).filter(|s| *s == "run" || *s == "check")?;
    let culprit = e.get(clap::error::ContextKind::InvalidArg)?.to_string();
    if culprit.starts_with('-') || args.iter().any(|a| a == "--") {
        return None;
    }
    let at = args.iter().position(|a| *a == culprit)?;
    Some(format!(
        "cltap: the application goes after `--`, behind cltap's options: cltap {sub} {}-- {}",
        args[2..at].iter().map(|a| format!("{a} ")).collect::<String>(),
        args[at..].join(" ")
    ))
}

/// For a misspelt subcommand clap finds nothing near (`rnu`): the nearest
/// by edits, a swap of two letters counting as one.
fn nearest_subcommand(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::InvalidSubcommand || e.get(ContextKind::SuggestedSubcommand).is_some() {
        return None;
    }
    let Some(ContextValue::String(typed)) = e.get(ContextKind::InvalidSubcommand) else { return None };
    let cmd = <Cli as clap::CommandFactory>::command();
    let (d, name) = cmd.get_subcommands().map(|c| (edits(typed, c.get_name()), c.get_name().to_string())).min()?;
    (d <= 2).then(|| format!("cltap: did you mean `cltap {name}`?"))
}

/// Edits from `a` to `b`: insertions, deletions, changes and swaps of
/// neighbours (clap's own suggestion misses a swap such as `rnu`).
fn edits(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

#[cfg(test)]
mod tests {
    #[test]
    fn edits_count_a_swap_as_one() {
        assert_eq!(super::edits("rnu", "run"), 1);
        assert_eq!(super::edits("rendr", "render"), 1);
        assert_eq!(super::edits("", "run"), 3);
    }
}
