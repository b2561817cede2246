//! `cltap merge A.pftrace B.pftrace … -o job.pftrace`: one timeline of a
//! multi-process job. Each process's file is its own packet sequence with
//! track and flow ids derived from its process id, so the job's trace is
//! their packets one file after the other; each file is checked to be whole
//! Perfetto packets first, so a damaged one is named and not merged.

use clap::Args;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// The processes' Perfetto traces (`<app>.<pid>.pftrace`).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The job's trace.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
}

fn merge(a: &MergeArgs) -> Result<u64, String> {
    let mut out =
        std::io::BufWriter::new(std::fs::File::create(&a.output).map_err(|e| format!("{}: {e}", a.output.display()))?);
    let mut packets = 0u64;
    for p in &a.inputs {
        let bytes = std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?;
        cltap_formats::pftrace::each_packet(&bytes, |_, _| {
            packets += 1;
            Ok(())
        })
        .map_err(|e| format!("{}: {e}; nothing merged", p.display()))?;
        out.write_all(&bytes).map_err(|e| format!("{}: {e}", a.output.display()))?;
    }
    out.flush().map_err(|e| format!("{}: {e}", a.output.display()))?;
    Ok(packets)
}

pub fn run(a: MergeArgs) -> i32 {
    match merge(&a) {
        Ok(n) => {
            eprintln!("cltap: {} ({n} packets from {} traces)", a.output.display(), a.inputs.len());
            0
        }
        Err(e) => {
            let _ = std::fs::remove_file(&a.output);
            eprintln!("cltap: {e}");
            1
        }
    }
}
