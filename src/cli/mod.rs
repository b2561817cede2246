//! Subcommands of `cltap`.

mod bench;
mod run;

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
    Run(run::RunArgs),
    /// Measure what cltap adds per call, and the API log's throughput.
    Bench(bench::BenchArgs),
}

pub fn main() -> i32 {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Run(a) => run::run(a),
        Cmd::Bench(a) => bench::run(a),
    }
}
