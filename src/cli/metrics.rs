//! `cltap metrics list|explain`: what a metrics file defines for a GPU and how
//! a metric is computed, without a GPU (block counts from the gfx9 defaults).

use clap::{Args, Subcommand};
use cltap::metrics::{self, Catalog, MetricKind, MetricsError};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct MetricsArgs {
    #[command(subcommand)]
    cmd: MetricsCmd,
}

#[derive(Subcommand, Debug)]
enum MetricsCmd {
    /// Print every hardware counter and derived metric of a GPU.
    List(Source),
    /// Print how metrics are computed, down to hardware counters, and the passes they need.
    Explain {
        /// Metric names, comma separated or several arguments (NAME, NAME[i], BLOCK:EVENT).
        #[arg(required = true)]
        names: Vec<String>,
        #[command(flatten)]
        source: Source,
    },
}

#[derive(Args, Debug)]
struct Source {
    /// GPU (agent name, e.g. gfx906 or gfx90a:sramecc+:xnack-).
    #[arg(long, default_value = "gfx906")]
    gpu: String,
    /// Metrics file in rocprofiler's ROCP_METRICS format: $ROCP_METRICS, else the built-in gfx9 file.
    #[arg(long, value_name = "FILE", env = "ROCP_METRICS")]
    file: Option<PathBuf>,
}

impl Source {
    fn load(&self) -> Result<Catalog, MetricsError> {
        let blocks = metrics::gfx9_defaults_for(&self.gpu);
        let cat = Catalog::load(self.file.as_deref(), &self.gpu, &blocks)?;
        for w in cat.warnings() {
            eprintln!("{w}");
        }
        Ok(cat)
    }
}

pub fn run(a: MetricsArgs) -> i32 {
    let r = match a.cmd {
        MetricsCmd::List(src) => list(&src),
        MetricsCmd::Explain { names, source } => explain(&names, &source),
    };
    match r {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("cltap metrics: {e}");
            1
        }
    }
}

fn list(src: &Source) -> Result<(), MetricsError> {
    let cat = src.load()?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {} for {} (section <{}>; block counts: built-in gfx9 defaults)",
        cat.file(),
        cat.gpu(),
        cat.section()
    );
    let counters: Vec<[String; 5]> = cat
        .iter()
        .filter_map(|m| {
            let c = m.counter()?;
            Some([m.name.clone(), c.block.to_string(), c.event.to_string(), c.instances.to_string(), m.descr.clone()])
        })
        .collect();
    let _ = writeln!(out, "\nHardware counters ({}):", counters.len());
    table(&mut out, &["NAME", "BLOCK", "EVENT", "INSTANCES", "DESCRIPTION"], &counters);
    let derived: Vec<[String; 3]> = cat
        .iter()
        .filter_map(|m| match &m.kind {
            MetricKind::Derived(d) => Some([m.name.clone(), d.text.clone(), m.descr.clone()]),
            MetricKind::Basic(_) => None,
        })
        .collect();
    let _ = writeln!(out, "\nDerived metrics ({}):", derived.len());
    table(&mut out, &["NAME", "EXPRESSION", "DESCRIPTION"], &derived);
    emit(&out);
    Ok(())
}

/// Columns wider than this do not push the others right: a longer cell
/// (a long expression) ends its line, and the row goes on below it.
const MAX_COLUMN: usize = 56;

/// Left-aligned columns; the last column is not padded.
fn table<const N: usize>(out: &mut String, head: &[&str; N], rows: &[[String; N]]) {
    let mut width = head.map(str::len);
    for r in rows {
        for (w, cell) in width.iter_mut().zip(r) {
            *w = (*w).max(cell.chars().count()).min(MAX_COLUMN);
        }
    }
    let mut line = |cells: Vec<&str>| {
        let mut s = String::from("  ");
        let mut col = 2;
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == N {
                s.push_str(c);
                break;
            }
            s.push_str(c);
            col += width[i] + 2;
            let used = s.rsplit('\n').next().map_or(0, |l| l.chars().count());
            if used + 2 > col {
                s.push('\n');
                s.push_str(&" ".repeat(col));
            } else {
                s.push_str(&" ".repeat(col - used));
            }
        }
        let _ = writeln!(out, "{}", s.trim_end());
    };
    line(head.to_vec());
    for r in rows {
        line(r.iter().map(String::as_str).collect());
    }
}

fn explain(names: &[String], src: &Source) -> Result<(), MetricsError> {
    let cat = src.load()?;
    let names: Vec<String> =
        names.iter().flat_map(|n| n.split(',')).map(str::trim).filter(|n| !n.is_empty()).map(String::from).collect();
    if names.is_empty() {
        return Err(MetricsError::BadRequest { name: String::new(), msg: "no metric names".into() });
    }
    // Look every name up first, so a typo fails before anything is printed.
    let plan = cat.plan(&names)?;
    let mut out = String::new();
    for n in &names {
        let _ = writeln!(out, "{}", metrics::explain(&cat, n)?);
    }
    out.push_str(&metrics::describe_plan(&plan));
    emit(&out);
    Ok(())
}

/// Writes to standard output; a closed pipe (`| head`) is not an error.
fn emit(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}
