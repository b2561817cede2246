//! `cltap run`: chooses the activation mode for the application's loader,
//! maps options onto `CLTAP_*` variables, runs the application with its
//! stdin, stdout and stderr, passes signals on, exits with its status, and
//! lists the files cltap wrote.

use super::child::{signal_name, spawn, Outcome};
use clap::{Args, ValueEnum};
use cltap::naming::{self, Process};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Layer mode where the application's loader supports layers, else ICD mode.
    Auto,
    /// cltap poses as the driver and loads the real ones (`--driver`).
    Icd,
    /// cltap is an OPENCL_LAYERS layer.
    Layer,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Policy {
    Lossless,
    Discard,
}

/// Options shared by `run` and `check`: how cltap is put in place.
#[derive(Args, Debug, Clone)]
pub struct Activation {
    /// How cltap is put between the application and the driver.
    #[arg(long, value_enum, default_value = "auto", help_heading = "Activation")]
    pub mode: Mode,
    /// The ICD loader (libOpenCL.so.1) the application should use instead of
    /// the one the dynamic linker finds.
    #[arg(long, value_name = "PATH", help_heading = "Activation")]
    pub loader: Option<PathBuf>,
    /// A real OpenCL driver library (repeatable). In ICD mode cltap loads
    /// these; in layer mode the loader is pointed at them (several as a
    /// list, or for ocl-icd as a folder of vendor files cltap writes for the
    /// run). Default: the drivers the loaders' vendor files name.
    #[arg(long = "driver", value_name = "PATH", help_heading = "Activation")]
    pub drivers: Vec<PathBuf>,
    /// The cltap layer library. Default: $CLTAP_LAYER, or next to this executable.
    #[arg(long, value_name = "PATH", help_heading = "Activation")]
    pub layer: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    #[command(flatten)]
    pub activation: Activation,
    /// Write the API log (default). CLTAP_API_LOG.
    #[arg(long, overrides_with = "no_api_log", help_heading = "Outputs")]
    pub api_log: bool,
    /// Do not write the API log.
    #[arg(long, help_heading = "Outputs")]
    pub no_api_log: bool,
    /// Add decoded values to the API log. CLTAP_LOG_DECODE.
    #[arg(long, short = 'd', help_heading = "Outputs")]
    pub decode: bool,
    /// Record each command's device times. CLTAP_DEVICE_TIMING.
    #[arg(long, short = 'D', help_heading = "Device")]
    pub device_timing: bool,
    /// Write a Perfetto/Chrome trace of calls and commands. CLTAP_TIMELINE.
    #[arg(long, short = 't', help_heading = "Outputs")]
    pub timeline: bool,
    /// Write Perfetto's protobuf trace (.pftrace) of calls, commands and counters. CLTAP_PFTRACE.
    #[arg(long, short = 'p', help_heading = "Outputs")]
    pub pftrace: bool,
    /// Write rocpd's SQLite database (.db) of calls, dispatches, copies and counters. CLTAP_ROCPD.
    #[arg(long, short = 'r', help_heading = "Outputs")]
    pub rocpd: bool,
    /// Write the Radeon Compute Profiler application trace (.atp); turns on device timing. CLTAP_ATP.
    #[arg(long, short = 'a', help_heading = "Outputs")]
    pub atp: bool,
    /// Trace every allocation and release (.memory.csv), memory in use per device and its peak. CLTAP_MEMORY.
    #[arg(long, short = 'm', help_heading = "Outputs")]
    pub memory: bool,
    /// List in the summary what the application still holds at exit. CLTAP_LEAKS.
    #[arg(long, help_heading = "Outputs")]
    pub leaks: bool,
    /// Log only matching APIs: comma-separated globs, '-' to exclude. CLTAP_LOG_FILTER.
    #[arg(long, value_name = "GLOB", short = 'f', help_heading = "Outputs")]
    pub filter: Option<String>,
    /// Directory for output files (default: the working directory); may hold template fields
    /// (%hostname%, %pid%, %ppid%, %rank%, %app%, %env{NAME}%, %q{NAME}%). CLTAP_OUTPUT_DIR.
    #[arg(long, value_name = "DIR", short = 'o', help_heading = "Outputs")]
    pub output: Option<PathBuf>,
    /// Name of the application's files before their extension, a template as for --output
    /// (default %app%.%pid%, with .r%rank% under a launcher). CLTAP_OUTPUT_NAME.
    #[arg(long, value_name = "TEMPLATE", short = 'n', help_heading = "Outputs")]
    pub name: Option<String>,
    /// Trace only these ranks of a job (0,3-5); the others run at pass-through cost and write
    /// nothing. CLTAP_RANKS.
    #[arg(long, value_name = "LIST", help_heading = "Jobs")]
    pub ranks: Option<String>,
    #[command(flatten)]
    pub window: super::window_args::WindowArgs,
    /// Print the call summary at exit (default). CLTAP_SUMMARY.
    #[arg(long, overrides_with = "no_summary", help_heading = "Outputs")]
    pub summary: bool,
    /// Do not print the summary at exit.
    #[arg(long, help_heading = "Outputs")]
    pub no_summary: bool,
    /// Bytes per thread buffer (K, M, G suffixes). CLTAP_BUFFER_SIZE.
    #[arg(long, value_name = "BYTES", help_heading = "Buffers")]
    pub buffer_size: Option<String>,
    /// Bytes or percentage at which a buffer goes to the writer. CLTAP_BUFFER_WATERMARK.
    #[arg(long, value_name = "BYTES|N%", help_heading = "Buffers")]
    pub buffer_watermark: Option<String>,
    /// lossless (default) or discard. CLTAP_BUFFER_POLICY.
    #[arg(long, value_enum, help_heading = "Buffers")]
    pub buffer_policy: Option<Policy>,
    /// Load cltap as an HSA tool too: HSA_TOOLS_LIB (appended to an existing value).
    #[arg(long, help_heading = "HSA")]
    pub hsa: bool,
    /// HSA dispatch interception (with --hsa): 0 off, 1 intercept, 2 with timestamps. ROCP_HSA_INTERCEPT.
    #[arg(long, value_name = "0|1|2", requires = "hsa", value_parser = ["0", "1", "2"], help_heading = "HSA")]
    pub hsa_intercept: Option<String>,
    /// Collect these hardware counters and metrics around each kernel launch
    /// (comma-separated; `cltap metrics list` names them) and write the .csv,
    /// .occupancy and .results.csv files. A request that needs several
    /// passes runs the application once per pass. CLTAP_COUNTERS.
    #[arg(long, value_name = "NAMES", short = 'c', help_heading = "Counters")]
    pub counters: Option<String>,
    /// The metrics file (rocprofiler v1 syntax) instead of cltap's built-in one. ROCP_METRICS.
    #[arg(long, value_name = "FILE", help_heading = "Counters")]
    pub metrics: Option<PathBuf>,
    /// rocprofiler v1's input file: its metrics are collected too. ROCP_INPUT.
    #[arg(long, value_name = "FILE", help_heading = "Counters")]
    pub input: Option<PathBuf>,
    #[command(flatten)]
    pub debug: super::run_debug::DebugArgs,
    #[command(flatten)]
    pub controls: super::run_controls::ControlArgs,
    #[command(flatten)]
    pub limits: super::run_limits::LimitArgs,
    /// Do not say which mode and drivers are active before the application starts.
    #[arg(long, short = 'q', help_heading = "Outputs")]
    pub quiet: bool,
    /// The application and its arguments.
    #[arg(last = true, required = true, value_name = "APP")]
    pub app: Vec<String>,
}

/// The option of `cltap run` that sets each variable, read from the options' help, where each
/// option names its variable: one description, used by `--help` and here.
pub fn option_of(var: &str) -> Option<String> {
    let cmd = RunArgs::augment_args(clap::Command::new("run"));
    let found = cmd.get_arguments().find_map(|a| {
        let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
        let long = a.get_long()?;
        help.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).any(|w| w == var).then(|| format!("--{long}"))
    });
    found
}

/// `HSA_TOOLS_LIB` with the layer added: ROCr reads it as a list of
/// libraries separated by spaces (quotes honoured).
/// A value that already names the layer (the same file, by any path) is
/// kept as it is: cltap loaded twice would record every call twice.
pub fn hsa_tools_lib(layer: &Path, existing: Option<&str>) -> String {
    let l = layer.display().to_string();
    let l = if l.contains(' ') { format!("\"{l}\"") } else { l };
    match existing.map(str::trim).filter(|e| !e.is_empty()) {
        Some(e) if tool_names(e).iter().any(|n| same_file(Path::new(n), layer)) => e.to_string(),
        Some(e) => format!("{e} {l}"),
        None => l,
    }
}

/// The library names in an `HSA_TOOLS_LIB` value: separated by spaces, a
/// name with spaces in double quotes.
fn tool_names(value: &str) -> Vec<String> {
    let (mut names, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    for c in value.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' | '\t' if !quoted => {
                if !cur.is_empty() {
                    names.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        names.push(cur);
    }
    names
}

/// Whether two paths are one file (device and inode), as the dynamic
/// linker tells libraries apart.
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// Where the layer library is: `--layer`, `$CLTAP_LAYER`, or beside `cltap`.
pub fn find_layer(explicit: Option<&Path>) -> Result<PathBuf, String> {
    let mut tried = Vec::new();
    let mut cands: Vec<PathBuf> = Vec::new();
    if let Some(p) = explicit {
        cands.push(p.to_path_buf());
    } else {
        if let Some(p) = std::env::var_os("CLTAP_LAYER") {
            cands.push(PathBuf::from(p));
        }
        if let Ok(exe) = std::env::current_exe() {
            if let Some(dir) = exe.parent() {
                cands.push(dir.join("libcltap_layer.so"));
                cands.push(dir.join("../lib/libcltap_layer.so"));
            }
        }
    }
    for c in cands {
        if c.is_file() {
            return std::fs::canonicalize(&c).map_err(|e| format!("{}: {e}", c.display()));
        }
        tried.push(c.display().to_string());
    }
    Err(format!("cannot find libcltap_layer.so (looked for: {}); build it with `cargo build --release --workspace` or pass --layer", tried.join(", ")))
}

/// The libOpenCL the application will load: `--loader`, else what `ldd`
/// resolves for it.
pub fn find_loader(app: &Path, explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = explicit {
        return Some(p.to_path_buf());
    }
    let out = Command::new("ldd").arg(app).output().ok()?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find(|l| l.trim_start().starts_with("libOpenCL.so"))
        .and_then(|l| l.split("=>").nth(1))
        .and_then(|r| r.split_whitespace().next())
        .map(PathBuf::from)
}

/// Whether a loader reads `OPENCL_LAYERS` (ocl-icd ≥ 2.3 and the Khronos
/// loader do; CUDA's copy of the Khronos loader does not).
pub fn loader_supports_layers(loader: &Path) -> bool {
    names(loader, b"OPENCL_LAYERS")
}

/// Whether the loader reads a list of drivers (the Khronos loader does,
/// ocl-icd 2.3 does not).
pub fn loader_reads_a_list(loader: &Path) -> bool {
    names(loader, b"OCL_ICD_FILENAMES")
}

/// Whether the library's bytes hold `variable`'s name.
fn names(loader: &Path, variable: &[u8]) -> bool {
    std::fs::read(loader).is_ok_and(|b| b.windows(variable.len()).any(|w| w == variable))
}

/// The environment that puts cltap in place.
/// `vendors`: a folder of vendor files naming `drivers`, for layer mode
/// with more than one and a loader that reads no list of them (ocl-icd
/// takes one path in `OCL_ICD_VENDORS`).
pub fn activation(
    mode: Mode,
    layer: &Path,
    drivers: &[PathBuf],
    vendors: Option<&Path>,
    loader: Option<&Path>,
) -> Vec<(String, String)> {
    let l = layer.display().to_string();
    let mut env = Vec::new();
    let list = |d: &[PathBuf]| d.iter().map(|x| x.display().to_string()).collect::<Vec<_>>().join(":");
    match mode {
        Mode::Auto | Mode::Layer => {
            env.push(("OPENCL_LAYERS".into(), l));
            match (drivers.len(), vendors) {
                (0, _) => {}
                // Several, for a loader that reads no list (ocl-icd): a
                // folder of vendor files naming them.
                (_, Some(dir)) => env.push(("OCL_ICD_VENDORS".into(), dir.display().to_string())),
                // ocl-icd loads the library `OCL_ICD_VENDORS` names; the
                // Khronos loader finds no folder there and loads the list, in
                // its order.
                (_, None) => {
                    env.push(("OCL_ICD_VENDORS".into(), drivers[0].display().to_string()));
                    env.push(("OCL_ICD_FILENAMES".into(), list(drivers)));
                }
            }
        }
        Mode::Icd => {
            // ocl-icd reads OCL_ICD_VENDORS (a library path selects just it);
            // the Khronos loader reads OCL_ICD_FILENAMES and takes
            // OCL_ICD_VENDORS as a directory, where a file path finds nothing.
            env.push(("OCL_ICD_VENDORS".into(), l.clone()));
            env.push(("OCL_ICD_FILENAMES".into(), l));
            if !drivers.is_empty() {
                env.push(("CLTAP_ICD_FILENAMES".into(), list(drivers)));
            }
        }
    }
    if let Some(dir) = loader.and_then(Path::parent) {
        let old = std::env::var("LD_LIBRARY_PATH").unwrap_or_default();
        env.push((
            "LD_LIBRARY_PATH".into(),
            if old.is_empty() { dir.display().to_string() } else { format!("{}:{old}", dir.display()) },
        ));
    }
    env
}

/// cltap's files in `dir` written since `since`.
pub fn files_written(dir: &Path, since: SystemTime) -> Vec<(PathBuf, u64)> {
    let mut v: Vec<(PathBuf, u64)> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| {
                let p = e.ok()?.path();
                let m = p.metadata().ok()?;
                let ours = p.extension().is_some_and(|x| {
                    ["apilog", "atp", "json", "pftrace", "db", "csv", "occupancy", "cltrace"]
                        .contains(&x.to_str().unwrap_or(""))
                });
                (ours && m.modified().ok()? >= since).then_some((p, m.len()))
            })
            .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The application's trace, when cltap recorded it: found by the pid in
/// its header, whatever `--name` called it.
fn trace_of(dir: &Path, pid: u32) -> Option<PathBuf> {
    std::fs::read_dir(dir).ok()?.filter_map(|e| e.ok().map(|e| e.path())).find(|p| {
        p.extension().is_some_and(|x| x == "cltrace")
            && cltap_formats::cltrace::Reader::open(p).is_ok_and(|r| r.header.pid == pid)
    })
}

/// The folder a templated `--output` named in the application: its fields
/// as the application's layer saw them (the application is cltap's child).
fn out_dir_of(template: &str, app: &[String], env: &[(String, String)], pid: u32) -> PathBuf {
    let lookup =
        |k: &str| env.iter().rev().find(|(n, _)| n == k).map(|(_, v)| v.clone()).or_else(|| std::env::var(k).ok());
    let exe = which(&app[0]).and_then(|p| p.canonicalize().ok());
    let p = Process {
        hostname: Process::current().hostname,
        pid,
        ppid: std::process::id(),
        rank: naming::rank_from(lookup),
        app: exe.and_then(|e| e.file_name().map(|n| n.to_string_lossy().into_owned())).unwrap_or_else(|| "app".into()),
    };
    naming::expand(template, &p, &lookup).map(PathBuf::from).unwrap_or_else(|_| PathBuf::from("."))
}

/// When the application died before rendering its trace, renders it, and
/// says how it died and which call was in flight.
fn after_death(dir: &Path, o: &Outcome) {
    let Some(trace) = trace_of(dir, o.pid) else { return };
    let how = match o.signal {
        Some(s) => format!("killed by {}", signal_name(s)),
        None => format!("ended (exit code {}) without running its exit handlers", o.code),
    };
    if super::render::finished(&trace) {
        // It rendered its files itself (an exit, or a signal it could
        // handle); the summary names any call still in flight.
        if o.signal.is_some() {
            let in_flight = summary_in_flight(&trace);
            eprintln!("cltap: {}", cltap::summary::death_line(&how, &in_flight));
        }
        return;
    }
    match super::render::render_trace(&trace, None, None, None) {
        Ok(r) => eprintln!("cltap: {}; its trace was rendered", cltap::summary::death_line(&how, &r.in_flight)),
        Err(e) => eprintln!("cltap: application {how}; its trace could not be rendered: {e}"),
    }
}

fn summary_in_flight(trace: &Path) -> Vec<cltap::render::InFlight> {
    let p = trace.with_extension("summary.json");
    let Ok(v) = std::fs::read_to_string(&p).map(|t| serde_json::from_str::<serde_json::Value>(&t).unwrap_or_default())
    else {
        return Vec::new();
    };
    v["did_not_return"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|c| cltap::render::InFlight {
                    api: c["api"].as_str().unwrap_or("?").to_string(),
                    tid: c["tid"].as_u64().unwrap_or(0) as u32,
                    cmd_id: c["cmd_id"].as_u64(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// An activation resolved: the environment that puts cltap in place, why
/// the mode was chosen (`auto`'s choice), and the vendor folder the
/// environment may name, kept while the application runs.
pub struct Prepared {
    pub env: Vec<(String, String)>,
    pub why: String,
    pub vendors: Option<Vendors>,
}

/// A folder of vendor files (`.icd`), one per driver given, in the system's
/// temporary folder; removed when dropped.
pub struct Vendors(PathBuf);

impl Vendors {
    fn write(drivers: &[PathBuf]) -> Result<Vendors, String> {
        let dir = std::env::temp_dir().join(format!("cltap-vendors.{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let made = std::fs::create_dir_all(&dir).and_then(|_| {
            drivers.iter().enumerate().try_for_each(|(i, d)| {
                // Absolute: a loader opens the path as written, from the
                // application's folder.
                let d = std::path::absolute(d)?;
                std::fs::write(dir.join(format!("{i:02}.icd")), format!("{}\n", d.display()))
            })
        });
        let v = Vendors(dir);
        made.map(|_| v).map_err(|e| format!("writing the drivers' vendor files: {e}"))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Vendors {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Checks the app and resolves the environment for an activation.
pub fn prepare(a: &Activation, app: &[String]) -> Result<Prepared, String> {
    let layer = find_layer(a.layer.as_deref())?;
    let exe = which(&app[0]).ok_or_else(|| format!("{}: no such program", app[0]))?;
    let loader = find_loader(&exe, a.loader.as_deref());
    if let Some(l) = &a.loader {
        if !l.is_file() {
            return Err(format!("--loader {}: no such file", l.display()));
        }
    }
    for d in &a.drivers {
        if !d.is_file() {
            return Err(format!("--driver {}: no such file", d.display()));
        }
    }
    let (mode, why) = match (a.mode, &loader) {
        (Mode::Auto, Some(l)) if !loader_supports_layers(l) => {
            (Mode::Icd, format!("auto: {} does not load layers", l.display()))
        }
        (Mode::Auto, Some(l)) => (Mode::Layer, format!("auto: {} loads layers", l.display())),
        (Mode::Auto, None) => (
            Mode::Layer,
            format!(
                "auto: {} does not link libOpenCL (looked with ldd), a loader that loads layers assumed",
                exe.display()
            ),
        ),
        (m, _) => (m, "--mode".to_string()),
    };
    let listed = loader.as_deref().is_some_and(loader_reads_a_list);
    let vendors = match mode {
        Mode::Auto | Mode::Layer if a.drivers.len() > 1 && !listed => Some(Vendors::write(&a.drivers)?),
        _ => None,
    };
    let env = activation(mode, &layer, &a.drivers, vendors.as_ref().map(Vendors::path), a.loader.as_deref());
    Ok(Prepared { env, why, vendors })
}

/// The line that says what is active: the mode, why, and the drivers the
/// application's loader (or cltap, in ICD mode) is pointed at.
pub fn active_line(env: &[(String, String)], why: &str) -> String {
    let get =
        |k: &str| env.iter().rev().find(|(n, _)| n == k).map(|(_, v)| v.clone()).or_else(|| std::env::var(k).ok());
    let drivers = cltap::icd::active::drivers(&get);
    format!(
        "cltap: {} mode ({why}); OpenCL drivers: {}",
        cltap::icd::active::activation(&get),
        if drivers.is_empty() { "none found".to_string() } else { drivers.join(", ") }
    )
}

/// The program as the shell would find it.
pub fn which(p: &str) -> Option<PathBuf> {
    if p.contains('/') {
        return Path::new(p).is_file().then(|| PathBuf::from(p));
    }
    std::env::var_os("PATH")?.to_str()?.split(':').map(|d| Path::new(d).join(p)).find(|c| c.is_file())
}

pub fn run(a: RunArgs) -> i32 {
    // `_vendors`: the folder the environment may name, kept to the end.
    let Prepared { mut env, why, vendors: _vendors } = match prepare(&a.activation, &a.app) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("cltap: {e}");
            return 127;
        }
    };
    let mut set = |k: &str, v: String| env.push((k.to_string(), v));
    set("CLTAP_SUMMARY", if a.no_summary { "0" } else { "1" }.into());
    if a.no_api_log {
        set("CLTAP_API_LOG", "0".into());
    }
    if a.decode {
        set("CLTAP_LOG_DECODE", "1".into());
    }
    if a.device_timing {
        set("CLTAP_DEVICE_TIMING", "1".into());
    }
    if a.timeline {
        set("CLTAP_TIMELINE", "1".into());
    }
    if a.pftrace {
        set("CLTAP_PFTRACE", "1".into());
    }
    if a.rocpd {
        set("CLTAP_ROCPD", "1".into());
    }
    if a.atp {
        set("CLTAP_ATP", "1".into());
    }
    if a.memory {
        set("CLTAP_MEMORY", "1".into());
    }
    if a.leaks {
        set("CLTAP_LEAKS", "1".into());
    }
    if let Some(f) = &a.filter {
        set("CLTAP_LOG_FILTER", f.clone());
    }
    env.extend(a.debug.env());
    env.extend(a.controls.env());
    env.extend(a.limits.env());
    let mut set = |k: &str, v: String| env.push((k.to_string(), v));
    // A folder with template fields is made by the application's layer,
    // which knows their values; cltap finds it afterwards (`out_dir_of`).
    let templated = a.output.as_ref().is_some_and(|o| o.to_string_lossy().contains('%'));
    if let Some(o) = &a.output {
        if !templated {
            if let Err(e) = std::fs::create_dir_all(o) {
                eprintln!("cltap: --output {}: {e}", o.display());
                return 127;
            }
        }
        set("CLTAP_OUTPUT_DIR", o.display().to_string());
    }
    if let Some(n) = &a.name {
        set("CLTAP_OUTPUT_NAME", n.clone());
    }
    if let Some(r) = &a.ranks {
        set("CLTAP_RANKS", r.clone());
    }
    for (k, v) in a.window.vars() {
        set(k, v);
    }
    if let Some(s) = &a.buffer_size {
        set("CLTAP_BUFFER_SIZE", s.clone());
    }
    if let Some(s) = &a.buffer_watermark {
        set("CLTAP_BUFFER_WATERMARK", s.clone());
    }
    if let Some(p) = a.buffer_policy {
        set("CLTAP_BUFFER_POLICY", if p == Policy::Lossless { "lossless" } else { "discard" }.into());
    }
    if let Some(c) = &a.counters {
        set("CLTAP_COUNTERS", c.clone());
    }
    if let Some(m) = &a.metrics {
        set("ROCP_METRICS", m.display().to_string());
    }
    if let Some(i) = &a.input {
        set("ROCP_INPUT", i.display().to_string());
    }
    if a.hsa {
        let layer = match find_layer(a.activation.layer.as_deref()) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("cltap: {e}");
                return 127;
            }
        };
        set("HSA_TOOLS_LIB", hsa_tools_lib(&layer, std::env::var("HSA_TOOLS_LIB").ok().as_deref()));
        if let Some(m) = &a.hsa_intercept {
            set("ROCP_HSA_INTERCEPT", m.clone());
        }
    }
    if super::validate::refuse(&env, &option_of) {
        return super::validate::REFUSED;
    }
    if !a.quiet {
        eprintln!("{}", active_line(&env, &why));
    }
    let o = match spawn(&a.app, &env) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("cltap: {e}");
            return 127;
        }
    };
    let out_dir = match &a.output {
        None => PathBuf::from("."),
        Some(t) if templated => out_dir_of(&t.to_string_lossy(), &a.app, &env, o.pid),
        Some(d) => d.clone(),
    };
    after_death(&out_dir, &o);
    if a.counters.is_some() || a.input.is_some() {
        super::passes::run_remaining(&a.app, &env, &out_dir, &o);
    }
    let files = files_written(&out_dir, o.started);
    if !files.is_empty() {
        eprintln!("cltap: files written:");
        for (p, n) in files {
            eprintln!("cltap:   {} ({n} bytes)", p.display());
        }
    }
    o.code
}

#[cfg(test)]
mod tests;
