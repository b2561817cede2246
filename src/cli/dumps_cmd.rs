//! `cltap dumps diff` and `cltap replay`: the argument dumps compared, and
//! a captured enqueue run again without the application
//! ([debugging.md](../../docs/debugging.md)).

use clap::{Args, Subcommand};
use cltap::dumps::diff;
use cltap::replay::{self, Driver};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct DumpsArgs {
    #[command(subcommand)]
    cmd: DumpsCmd,
}

#[derive(Subcommand, Debug)]
enum DumpsCmd {
    /// Compare two folders of argument dumps file by file (an enqueue's before/ and after/, or two
    /// runs' after/): which arguments changed and where each first differs. Exit 1 when any differs.
    Diff {
        /// The first folder (e.g. <name>.dumps/before).
        a: PathBuf,
        /// The second folder (e.g. <name>.dumps/after).
        b: PathBuf,
    },
}

pub fn dumps(a: DumpsArgs) -> i32 {
    match a.cmd {
        DumpsCmd::Diff { a, b } => match diff::folders(&a, &b) {
            Ok(files) => {
                let lines: Vec<String> = files.iter().filter_map(|(n, c)| diff::line(n, c)).collect();
                let same = files.len() - lines.len();
                for l in &lines {
                    println!("{l}");
                }
                println!("{} files differ, {same} are the same", lines.len());
                i32::from(!lines.is_empty())
            }
            Err(e) => {
                eprintln!("cltap dumps diff: {e}");
                2
            }
        },
    }
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A capture's folder (<name>.capture/e<N>-<kernel>), as CLTAP_CAPTURE wrote it.
    folder: PathBuf,
    /// The OpenCL driver (ICD library) to run it on; without it, the loader's first platform
    /// with a device.
    #[arg(long, value_name = "LIBRARY")]
    driver: Option<PathBuf>,
    /// Also write the replay's contents after the enqueue to DIR/after/a<I>.bin.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// Exit 0 when every buffer and image matches the captured contents after
/// the enqueue, 1 with the first difference, 2 when it cannot run.
pub fn replay(a: ReplayArgs) -> i32 {
    let driver = a.driver.map_or(Driver::Loader, Driver::Library);
    match replay::replay(&a.folder, &driver, a.out.as_deref()) {
        Ok(o) => {
            println!(
                "replay on {}: {} arguments compared with the capture's contents after the enqueue (captured -> replayed)",
                o.device,
                o.results.len()
            );
            for (i, c) in &o.results {
                match diff::line(&format!("argument {i}"), c) {
                    Some(l) => println!("{l}"),
                    None => println!("argument {i}: same"),
                }
            }
            if o.matches() {
                println!("replay: the results match the capture");
                0
            } else {
                let (i, c) = o.results.iter().find(|(_, c)| *c != diff::Change::Same).unwrap();
                println!(
                    "replay: the results differ; first: {}",
                    diff::line(&format!("argument {i}"), c).unwrap_or_default()
                );
                1
            }
        }
        Err(e) => {
            eprintln!("cltap replay: {e}");
            2
        }
    }
}
