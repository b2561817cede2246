//! `cltap normalize`, `diff`, `report` and `check`: the driver-CI workflow
//! over captured API logs.

use super::child::spawn;
use super::run::{prepare, Activation};
use clap::{Args, ValueEnum};
use cltap::diff;
use cltap::normalize::{self, Durations, NCall};
use cltap_formats::apilog::{self, Entry};
use std::io::{BufRead, IsTerminal, Read};
use std::path::{Path, PathBuf};

/// Inputs larger than this show a progress bar on a terminal.
const PROGRESS_OVER: u64 = 50 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum KeepDurations {
    /// Keep durations as order-of-magnitude buckets (~1us, ~10us, …).
    Bucket,
}

#[derive(Args, Debug, Clone)]
pub struct NormOpts {
    /// Keep durations, bucketed; by default all times are removed.
    #[arg(long, value_enum, value_name = "HOW")]
    pub keep_durations: Option<KeepDurations>,
    /// Fold runs of identical consecutive calls on a thread (polling loops)
    /// into one line marked [repeated].
    #[arg(long)]
    pub collapse_repeats: bool,
    /// Hide facts about the host, so one snapshot holds on any machine: the
    /// sizes (and decoded text) of the driver's strings and build logs,
    /// decoded device answers, local sizes the driver chose, and
    /// allocation sizes of 1 GiB or more. By default every value is kept.
    #[arg(long)]
    pub portable: bool,
}

/// The first line of a snapshot: how it was normalized, so that a check with other options says so
/// instead of showing every line as changed.
const SNAPSHOT_HEADER: &str = "# cltap snapshot, normalized with:";

impl NormOpts {
    /// These options as `cltap check` takes them (empty for the defaults).
    fn args(&self) -> String {
        let mut v = Vec::new();
        if let Some(k) = self.keep_durations {
            v.push(format!(
                "--keep-durations {}",
                k.to_possible_value().map_or("bucket".into(), |p| p.get_name().to_string())
            ));
        }
        if self.collapse_repeats {
            v.push("--collapse-repeats".into());
        }
        if self.portable {
            v.push("--portable".into());
        }
        v.join(" ")
    }

    /// The snapshot's first line for these options.
    fn header(&self) -> String {
        let a = self.args();
        format!("{SNAPSHOT_HEADER} {}", if a.is_empty() { "(defaults)" } else { &a })
    }

    fn options(&self) -> normalize::Options {
        normalize::Options {
            durations: if self.keep_durations.is_some() { Durations::Bucket } else { Durations::Drop },
            collapse_repeats: self.collapse_repeats,
            portable: self.portable,
        }
    }
}

#[derive(Args, Debug)]
pub struct NormalizeArgs {
    /// An API log (.apilog) or an RCP application trace (.atp).
    pub file: PathBuf,
    /// Write here instead of standard output.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub norm: NormOpts,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// The first run: an API log (.apilog) or an application trace (.atp).
    pub a: PathBuf,
    /// The second run, of the same kind, compared with the first.
    pub b: PathBuf,
    /// How the differences are printed: text, or json for a program to read.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    #[command(flatten)]
    pub norm: NormOpts,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Files to tally, each by its kind: API logs (.apilog), binary traces (.cltrace), application
    /// traces (.atp), counter files (.csv, .results.csv, .occupancy) and rocpd databases (.db).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Directory holding `<name>.snap` files.
    #[arg(long, value_name = "DIR")]
    pub snapshot: PathBuf,
    /// Write the new snapshot instead of comparing.
    #[arg(long)]
    pub update: bool,
    /// Snapshot name (default: the application's file name).
    #[arg(long)]
    pub name: Option<String>,
    #[command(flatten)]
    pub activation: Activation,
    #[command(flatten)]
    pub norm: NormOpts,
    /// The application and its arguments.
    #[arg(last = true, required = true, value_name = "APP")]
    pub app: Vec<String>,
}

fn progress(len: u64, what: &Path) -> Option<indicatif::ProgressBar> {
    (len > PROGRESS_OVER && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new(len);
        b.set_style(indicatif::ProgressStyle::with_template("{msg} [{bar:40}] {bytes}/{total_bytes} {eta}").unwrap());
        b.set_message(what.display().to_string());
        b
    })
}

/// Reads an API log; errors name the file, the line and the reason.
pub fn load(path: &Path) -> Result<Vec<Entry>, String> {
    let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let bar = progress(len, path);
    let mut r = std::io::BufReader::new(f);
    let mut out = Vec::new();
    let mut line = String::new();
    let mut n = 0;
    loop {
        line.clear();
        let k = r.read_line(&mut line).map_err(|e| format!("{}: {e}", path.display()))?;
        if k == 0 {
            break;
        }
        n += 1;
        if let Some(b) = &bar {
            b.inc(k as u64);
        }
        let l = line.trim_end_matches(['\n', '\r']);
        if l.is_empty() {
            continue;
        }
        out.push(apilog::parse_line(l).map_err(|reason| format!("{}:{n}: {reason}", path.display()))?);
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok(out)
}

/// Whether `path` is a binary trace: its magic, whatever its name.
fn is_trace(path: &Path) -> bool {
    let mut magic = [0u8; 8];
    std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut magic)).is_ok()
        && magic == cltap_formats::cltrace::MAGIC
}

/// The host-API tally of a binary trace (times in ns), rendered in memory:
/// no file is written.
fn trace_tally(path: &Path) -> Result<Vec<cltap::report::Row>, String> {
    use cltap::render::{Outputs, Renderer};
    let reader = cltap_formats::cltrace::Reader::open(path).map_err(|e| e.to_string())?;
    let outputs = Outputs {
        dir: PathBuf::new(),
        stem: String::new(),
        api_log: None,
        options: Default::default(),
        timeline: false,
        pftrace: false,
        rocpd: false,
        atp: false,
        memory: Default::default(),
        counters: None,
        limit: None,
    };
    let mut r = Renderer::new(reader, outputs);
    r.finish(1);
    Ok(r.host_table())
}

fn is_atp(path: &Path) -> bool {
    path.extension().is_some_and(|x| x == "atp")
}

/// Reads an `.atp`; errors name the file, the line and the reason.
pub fn load_atp(path: &Path) -> Result<cltap_formats::atp::Atp, String> {
    let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let bar = progress(len, path);
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    cltap_formats::atp::read(&text).map_err(|e| format!("{}:{}: {}", path.display(), e.line, e.reason))
}

fn normalized(path: &Path, o: &NormOpts) -> Result<Vec<NCall>, String> {
    if is_atp(path) {
        return Ok(normalize::normalize_atp(&load_atp(path)?, o.options()));
    }
    Ok(normalize::normalize(&load(path)?, o.options()))
}

pub fn normalize_cmd(a: NormalizeArgs) -> i32 {
    match normalized(&a.file, &a.norm) {
        Ok(calls) => {
            let text = normalize::render(&calls);
            match &a.output {
                Some(o) => std::fs::write(o, text).map(|_| 0).unwrap_or_else(|e| {
                    eprintln!("cltap: {}: {e}", o.display());
                    1
                }),
                None => {
                    print!("{text}");
                    0
                }
            }
        }
        Err(e) => {
            eprintln!("cltap: {e}");
            2
        }
    }
}

pub fn diff_cmd(a: DiffArgs) -> i32 {
    let (x, y) = match (normalized(&a.a, &a.norm), normalized(&a.b, &a.norm)) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("cltap: {e}");
            return 2;
        }
    };
    let diff::Diff { changes, notes } = diff::diff_with_notes(&x, &y);
    for n in notes {
        eprintln!("cltap: {n}");
    }
    match a.format {
        Format::Text => print!("{}", diff::render_text(&changes)),
        Format::Json => println!("{}", diff::render_json(&changes)),
    }
    i32::from(!changes.is_empty())
}

pub fn report_cmd(a: ReportArgs) -> i32 {
    let mut logs = Vec::new();
    let mut atps = Vec::new();
    let mut counters = Vec::new();
    let mut dbs = Vec::new();
    let mut traces = Vec::new();
    for f in &a.files {
        if f.extension().is_some_and(|e| e == "db") {
            match cltap_formats::rocpd::Totals::read(f) {
                Ok(t) => dbs.push((f.display().to_string(), t)),
                Err(e) => {
                    eprintln!("cltap: {}: {e}", f.display());
                    return 2;
                }
            }
            continue;
        }
        if let Some(kind) = counter_file(f) {
            match std::fs::read_to_string(f).map_err(|e| e.to_string()).and_then(|t| kind.render(&t)) {
                Ok(table) => counters.push(table),
                Err(e) => {
                    eprintln!("cltap: {}: {e}", f.display());
                    return 2;
                }
            }
            continue;
        }
        let r = if is_atp(f) {
            load_atp(f).map(|x| atps.push(x))
        } else if is_trace(f) {
            // The primary record: its calls tallied straight from its
            // records, as the summary of `cltap render` has them.
            trace_tally(f).map(|rows| traces.push(rows))
        } else {
            load(f).map(|e| logs.push((f.display().to_string(), cltap::report_ranks::rank_of_log(f, &e), e)))
        };
        if let Err(e) = r {
            eprintln!("cltap: {e}");
            return 2;
        }
    }
    if !dbs.is_empty() {
        print!("{}", cltap::rocpd_report::render(&dbs));
    }
    let printed_logs = !logs.is_empty();
    if logs.iter().any(|(_, rank, _)| rank.is_some()) {
        print!("{}", cltap::report_ranks::render_logs(&logs));
    } else if !logs.is_empty() {
        let all: Vec<_> = logs.into_iter().flat_map(|(_, _, e)| e).collect();
        print!("{}", cltap::report::render(&cltap::report::host_tally(&all)));
    }
    for c in &counters {
        print!("{c}");
    }
    for rows in &traces {
        print!("{}", cltap::report::render_report_ns(rows));
    }
    if atps.is_empty() {
        return 0;
    }
    let rows = cltap::atp_input::host_tally(&atps);
    let cmds = cltap::atp_input::commands(&atps);
    if printed_logs || !traces.is_empty() {
        println!();
    }
    print!("{}", cltap::report::render_report_ns(&rows));
    let ((begins, ends), ranges) = cltap::atp_input::markers(&atps);
    if begins + ends > 0 {
        // The marker section keeps when each marker call was made, not how
        // long it took: counts only, never a made-up time.
        println!("\nperf marker calls (the .atp keeps their count, not their duration)");
        println!("{:<44}  {:>9}", "API", "calls");
        println!("{:<44}  {begins:>9}", "clBeginPerfMarkerCLTAP");
        println!("{:<44}  {ends:>9}", "clEndPerfMarkerCLTAP");
    }
    if !ranges.is_empty() {
        println!("\nperf markers (from each begin to its end)");
        print!("{}", cltap::report::render_titled_ns(&ranges, "marker"));
    }
    println!("\ndevice time per kernel ({} commands)", cmds.len());
    print!("{}", cltap::devtime::render_kernels(&cltap::devtime::kernel_table(&cmds)));
    let t = cltap::devtime::transfer_table(&cmds);
    if !t.is_empty() {
        println!("\ntransfers");
        print!("{}", cltap::devtime::render_transfers(&t));
    }
    0
}

/// The counter files `cltap report` reads, told apart by name.
#[derive(Clone, Copy)]
enum CounterFile {
    /// RCP's `.csv` (a `Method` column).
    Rcp,
    /// cltap's rocprof-style `.results.csv`.
    Results,
    /// RCP's `.occupancy`.
    Occupancy,
}

impl CounterFile {
    fn render(self, text: &str) -> Result<String, String> {
        use cltap::counters::report;
        use cltap_formats::perf;
        let e = |e: perf::ReadError| e.to_string();
        Ok(match self {
            CounterFile::Rcp => report::render(&perf::read_csv(text).map_err(e)?),
            CounterFile::Results => report::render_results(&perf::read_results(text).map_err(e)?),
            CounterFile::Occupancy => report::render_occupancy(&perf::read_occupancy(text).map_err(e)?),
        })
    }
}

fn counter_file(path: &Path) -> Option<CounterFile> {
    let name = path.to_string_lossy();
    if name.ends_with(".results.csv") {
        Some(CounterFile::Results)
    } else if name.ends_with(".csv") {
        Some(CounterFile::Rcp)
    } else {
        name.ends_with(".occupancy").then_some(CounterFile::Occupancy)
    }
}

/// Parses a stored snapshot (the normalized text) back for the diff.
/// A snapshot's normalization line (None for a snapshot written before snapshots recorded it) and
/// its calls.
fn parse_snapshot(text: &str) -> (Option<&str>, Vec<&str>) {
    let mut lines = text.lines().peekable();
    let header = lines.next_if(|l| l.starts_with(SNAPSHOT_HEADER));
    (header, lines.collect())
}

/// The command that accepts this run as the snapshot: the same options, `--update`.
fn accept_command(a: &CheckArgs) -> String {
    let mut c = format!("cltap check --snapshot {}", a.snapshot.display());
    if let Some(n) = &a.name {
        c.push_str(&format!(" --name {n}"));
    }
    let norm = a.norm.args();
    if !norm.is_empty() {
        c.push(' ');
        c.push_str(&norm);
    }
    format!("{c} --update -- {}", a.app.join(" "))
}

pub fn check_cmd(a: CheckArgs) -> i32 {
    let name = a
        .name
        .clone()
        .unwrap_or_else(|| Path::new(&a.app[0]).file_name().map_or("app".into(), |n| n.to_string_lossy().into_owned()));
    let snap = a.snapshot.join(format!("{name}.snap"));
    if !a.update && !snap.is_file() {
        eprintln!("cltap: no snapshot {}; to create it, run:\n  {}", snap.display(), accept_command(&a));
        return 1;
    }
    // `_vendors`: the folder the environment may name, kept to the end.
    let super::run::Prepared { mut env, vendors: _vendors, .. } = match prepare(&a.activation, &a.app) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("cltap: {e}");
            return 127;
        }
    };
    let dir = std::env::temp_dir().join(format!("cltap-check-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("cltap: {}: {e}", dir.display());
        return 1;
    }
    env.push(("CLTAP_OUTPUT_DIR".into(), dir.display().to_string()));
    env.push(("CLTAP_API_LOG".into(), "1".into()));
    env.push(("CLTAP_LOG".into(), "file".into()));
    env.push(("CLTAP_SUMMARY".into(), "0".into()));
    // The log is found by its name, whatever the user's own template says.
    env.push(("CLTAP_OUTPUT_NAME".into(), "%app%.%pid%".into()));
    if super::validate::refuse(&env, &super::run::option_of) {
        let _ = std::fs::remove_dir_all(&dir);
        return super::validate::REFUSED;
    }
    let o = match spawn(&a.app, &env) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("cltap: {e}");
            return 127;
        }
    };
    let log = std::fs::read_dir(&dir).ok().and_then(|rd| {
        rd.filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.to_string_lossy().ends_with(&format!(".{}.apilog", o.pid)))
    });
    let result = (|| -> Result<i32, String> {
        let log = log.ok_or_else(|| {
            format!("the application wrote no API log (exit code {}); is it an OpenCL program?", o.code)
        })?;
        let text = format!("{}\n{}", a.norm.header(), normalize::render(&normalized(&log, &a.norm)?));
        if a.update {
            std::fs::create_dir_all(&a.snapshot).map_err(|e| e.to_string())?;
            std::fs::write(&snap, &text).map_err(|e| format!("{}: {e}", snap.display()))?;
            eprintln!("cltap: wrote {}", snap.display());
            return Ok(if o.code == 0 { 0 } else { o.code });
        }
        let mut old = String::new();
        std::fs::File::open(&snap)
            .and_then(|mut f| f.read_to_string(&mut old))
            .map_err(|e| format!("{}: {e}", snap.display()))?;
        let ((old_how, old_lines), (how, lines)) = (parse_snapshot(&old), parse_snapshot(&text));
        if let Some(made) = old_how.filter(|&h| Some(h) != how) {
            let with = |h: &str| h.trim_start_matches(SNAPSHOT_HEADER).trim().to_string();
            eprintln!(
                "cltap: {} was normalized with {}, this check with {}: run the check with the snapshot's options, or accept this run's with:\n  {}",
                snap.display(),
                with(made),
                with(how.unwrap_or_default()),
                accept_command(&a)
            );
            return Ok(1);
        }
        if old_lines == lines {
            eprintln!("cltap: {} matches", snap.display());
            return Ok(if o.code == 0 { 0 } else { o.code });
        }
        // Re-read both as logs of normalized calls for a semantic diff.
        let old_calls = reparse(&old_lines.join("\n"));
        let new_calls = reparse(&lines.join("\n"));
        let changes = diff::diff(&old_calls, &new_calls);
        eprintln!("cltap: {} differs from this run ({} change(s)):", snap.display(), changes.len().max(1));
        print!("{}", diff::render_text(&changes));
        eprintln!("cltap: if the change is intended, accept it with:\n  {}", accept_command(&a));
        Ok(1)
    })();
    let _ = std::fs::remove_dir_all(&dir);
    match result {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cltap: {e}");
            1
        }
    }
}

/// Normalized text back into calls, line by line, for the diff. Only the
/// fields the diff compares are recovered.
fn reparse(text: &str) -> Vec<NCall> {
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (thread, rest) = l.split_once(' ').unwrap_or((l, ""));
            let open = rest.find('(').unwrap_or(rest.len());
            let head = &rest[..open];
            let name = head.rsplit(' ').next().unwrap_or(head).to_string();
            let cmd = head
                .split_whitespace()
                .find_map(|w| w.strip_prefix("[cmd#").and_then(|x| x.strip_suffix(']')).and_then(|x| x.parse().ok()));
            let close = rest.rfind(')').unwrap_or(rest.len());
            let args = if open < close {
                apilog::split_top(&rest[open + 1..close])
                    .into_iter()
                    .map(|a| {
                        a.split_once(" = ").map_or((a.clone(), String::new()), |(k, v)| (k.to_string(), v.to_string()))
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let tail = if close < rest.len() { &rest[close + 1..] } else { "" };
            NCall {
                thread: thread.to_string(),
                name,
                cmd,
                args,
                result: Some(tail.trim().to_string()),
                outs: Vec::new(),
                duration: None,
                local_size: None,
                repeated: false,
            }
        })
        .collect()
}
