//! `CLTAP_*` settings. Every value is checked once at start-up; a bad one
//! yields one message naming the variable, the value and what is accepted, and
//! the layer then records nothing (it still forwards every call).

use crate::naming::Process;
use std::path::PathBuf;

/// Every variable cltap reads, with what it accepts, for messages and docs.
pub const VARIABLES: &[(&str, &str)] = &[
    ("CLTAP_ICD_FILENAMES", "colon-separated paths of the real OpenCL drivers (ICD mode)"),
    ("CLTAP_SUMMARY", "0 or 1: print the call summary at exit"),
    ("CLTAP_OUTPUT_DIR", "a directory for output files, created if missing; may hold template fields (%hostname%, %pid%, %rank%, %env{NAME}%…)"),
    ("CLTAP_OUTPUT_NAME", "a template for the name of this process's files, before their extension (default %app%.%pid%, and .r%rank% under a launcher)"),
    ("CLTAP_RANKS", "comma-separated ranks and ranges (0,3-5): only those ranks of a job are traced; the others run at pass-through cost"),
    ("CLTAP_API_LOG", "0 or 1: write the API log (default 1)"),
    ("CLTAP_LOG", "file, stderr or stdout: where the API log goes"),
    ("CLTAP_LOG_DECODE", "0 or 1: add decoded values to the API log"),
    ("CLTAP_LOG_FILTER", "comma-separated API globs; a leading '-' excludes"),
    ("CLTAP_BUFFER_SIZE", "bytes per thread buffer, with optional K, M or G"),
    ("CLTAP_BUFFER_WATERMARK", "bytes, or a percentage of the size, at which a buffer is handed to the writer"),
    ("CLTAP_BUFFER_POLICY", "lossless or discard"),
    ("CLTAP_DEVICE_TIMING", "0 or 1: force event profiling and record each command's device times"),
    ("CLTAP_TIMELINE", "0 or 1: write a Chrome/Perfetto trace of host calls and device commands"),
    ("CLTAP_LAYER", "the layer library path, for the cltap launcher (the layer itself ignores it)"),
    ("CLTAP_RENDER", "0 or 1: render the text files during the run and at exit (0: only the binary trace; `cltap render` makes them later)"),
    ("CLTAP_COUNTERS", "comma-separated counter and metric names (see `cltap metrics list`): per-dispatch counters and the .csv, .occupancy and results.csv files"),
    ("CLTAP_COUNTER_PASS", "which pass of a multi-pass counter request this run collects (from 0; the launcher sets it)"),
    ("CLTAP_PFTRACE", "0 or 1: write Perfetto's protobuf trace (.pftrace) of host calls, device commands and counters"),
    ("CLTAP_ROCPD", "0 or 1: write rocpd's SQLite database (.db) of calls, dispatches, copies and counters"),
    ("CLTAP_ATP", "0 or 1: write the Radeon Compute Profiler application trace (.atp); implies CLTAP_DEVICE_TIMING=1"),
    ("ROCP_TOOL_LIB", "colon-separated tool libraries to load at start-up (OnLoadToolProp or OnLoadTool, then OnUnloadTool at the end); one that cannot be loaded is reported and skipped"),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogDest {
    File,
    Stderr,
    Stdout,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Print the per-API call tally on stderr at exit.
    pub summary: bool,
    /// Real drivers for ICD mode; `None` means: read the loaders' vendor files.
    pub icd_filenames: Option<Vec<PathBuf>>,
    pub output_dir: PathBuf,
    pub api_log: bool,
    pub log_dest: LogDest,
    pub decode: bool,
    /// Include/exclude globs; empty means every API.
    pub filter: Vec<(bool, String)>,
    pub buffer_size: usize,
    /// Absolute bytes, or a percentage of `buffer_size`.
    pub watermark: Watermark,
    pub lossless: bool,
    pub device_timing: bool,
    pub timeline: bool,
    /// Perfetto's protobuf trace (`CLTAP_PFTRACE`).
    pub pftrace: bool,
    /// rocpd's SQLite database (`CLTAP_ROCPD`).
    pub rocpd: bool,
    pub atp: bool,
    /// Render the text files in the process (else only the binary trace).
    pub render: bool,
    /// `ROCP_HSA_INTERCEPT`: 0 no HSA queue interception, 1 intercept
    /// (dispatch records), 2 intercept with timestamps.
    pub hsa_intercept: u8,
    /// `CLTAP_COUNTERS` (or `ROCP_INPUT`'s metrics): names of counters and
    /// metrics to collect around each dispatch.
    pub counters: Vec<String>,
    /// `ROCP_METRICS`: the metrics file (default: cltap's built-in one).
    pub metrics_file: Option<PathBuf>,
    /// `ROCP_INPUT`: rocprofiler v1's input file, whose metrics are added
    /// to `counters`.
    pub rocp_input: Option<PathBuf>,
    /// The names of `counters` that came from `ROCP_INPUT` alone (a
    /// message about one names that variable).
    pub input_counters: Vec<String>,
    /// `CLTAP_COUNTER_PASS`: the pass this run collects.
    pub counter_pass: u32,
    /// `ROCP_TOOL_LIB`: tool libraries to load at start-up, in order.
    /// Never an error here: a library that cannot be loaded gets its own
    /// line when it is tried, and the others still load.
    pub tool_libs: Vec<PathBuf>,
    /// `CLTAP_OUTPUT_NAME`: the files' name template (checked).
    pub output_name: Option<String>,
    /// `CLTAP_RANKS`: the ranks traced; `None`, every process.
    pub ranks: Option<crate::naming::Ranks>,
    /// `CLTAP_MEMORY`, `CLTAP_LEAKS`.
    pub memory: memory::Memory,
    /// The collection window (`CLTAP_WINDOW*`, `CLTAP_START_PAUSED`).
    pub window: crate::window::Settings,
    /// The kernel filter (`CLTAP_KERNEL_*`).
    pub kernels: crate::kfilter::Spec,
    /// `CLTAP_ERRORS_ONLY`: only failed calls are recorded.
    pub errors_only: bool,
    /// Program dumps and the build-options override.
    pub programs: programs::Programs,
    /// Argument dumps, injection and capture around kernel enqueues.
    pub dumps: dumps::Dumps,
    /// `CLTAP_TEST_PANIC`: a wrapper made to panic, for tests.
    pub test_panic: Option<test_panic::TestPanic>,
    /// Event checks, execution controls, device-time histograms.
    pub controls: controls::Controls,
    /// Bounded output (`CLTAP_TRACE_LIMIT`, `CLTAP_OUTPUT_LIMIT`,
    /// `CLTAP_DROP_TRACE`).
    pub limits: limits::Limits,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Watermark {
    Bytes(usize),
    Percent(u32),
}

impl Default for Config {
    fn default() -> Self {
        Self {
            summary: false,
            icd_filenames: None,
            output_dir: PathBuf::from("."),
            api_log: true,
            log_dest: LogDest::File,
            decode: false,
            filter: Vec::new(),
            buffer_size: 1 << 20,
            watermark: Watermark::Percent(100),
            lossless: true,
            device_timing: false,
            timeline: false,
            pftrace: false,
            rocpd: false,
            atp: false,
            render: true,
            hsa_intercept: 0,
            counters: Vec::new(),
            metrics_file: None,
            rocp_input: None,
            input_counters: Vec::new(),
            counter_pass: 0,
            tool_libs: Vec::new(),
            output_name: None,
            ranks: None,
            memory: memory::Memory::default(),
            window: crate::window::Settings::default(),
            kernels: crate::kfilter::Spec::default(),
            errors_only: false,
            programs: programs::Programs::default(),
            dumps: dumps::Dumps::default(),
            test_panic: None,
            controls: controls::Controls::default(),
            limits: limits::Limits::default(),
        }
    }
}

/// Settings kept in their own files (one per control): each names its
/// variables and parses them. A group's `parse` answers `None` for a
/// variable that is not its own.
pub(crate) struct Group {
    pub vars: &'static [(&'static str, &'static str)],
    pub parse: fn(&str, &str, &mut Config) -> Option<Result<(), ConfigError>>,
}

/// Every group, in the order their variables are listed.
pub(crate) const GROUPS: &[Group] = &[
    Group { vars: memory::VARS, parse: memory::parse },
    Group { vars: window::VARS, parse: window::parse },
    Group { vars: errors::VARS, parse: errors::parse },
    Group { vars: programs::VARS, parse: programs::parse },
    Group { vars: dumps::VARS, parse: dumps::parse },
    Group { vars: test_panic::VARS, parse: test_panic::parse },
    Group { vars: controls::VARS, parse: controls::parse },
    Group { vars: limits::VARS, parse: limits::parse },
];

/// Every variable cltap reads: the core list, then each group's.
pub fn all_variables() -> impl Iterator<Item = &'static (&'static str, &'static str)> {
    VARIABLES.iter().chain(GROUPS.iter().flat_map(|g| g.vars.iter()))
}

/// Whether cltap reads a variable: any `CLTAP_` one (an unknown one is
/// reported), and the `ROCP_` ones it knows.
fn is_ours(k: &str) -> bool {
    k.starts_with("CLTAP_") || ["ROCP_HSA_INTERCEPT", "ROCP_TOOL_LIB", "ROCP_METRICS", "ROCP_INPUT"].contains(&k)
}

impl Config {
    /// The variable a requested counter name came from, as `VAR=value`:
    /// `ROCP_INPUT=<file>` for a name only that file asked for, else
    /// `CLTAP_COUNTERS=<names>`.
    pub fn counters_source(&self, name: &str) -> String {
        match &self.rocp_input {
            Some(p) if self.input_counters.iter().any(|n| n == name) => format!("ROCP_INPUT={}", p.display()),
            _ => {
                let own: Vec<&str> =
                    self.counters.iter().filter(|n| !self.input_counters.contains(n)).map(String::as_str).collect();
                format!("CLTAP_COUNTERS={}", own.join(","))
            }
        }
    }

    /// [`Config::from_vars`] over the environment as the OS gives it: a value
    /// of one of cltap's variables that is not UTF-8 is a problem like any
    /// bad value (never silently skipped); other variables are not looked at.
    pub fn from_vars_os<I>(vars: I) -> (Config, Vec<ConfigError>)
    where
        I: IntoIterator<Item = (std::ffi::OsString, std::ffi::OsString)>,
    {
        let mut bad = Vec::new();
        let text: Vec<(String, String)> = vars
            .into_iter()
            .filter_map(|(k, v)| {
                let k = k.into_string().ok().filter(|k| is_ours(k))?;
                match v.into_string() {
                    Ok(v) => Some((k, v)),
                    Err(v) => {
                        bad.push(ConfigError::NotText { var: k, value: v.to_string_lossy().into_owned() });
                        None
                    }
                }
            })
            .collect();
        let (cfg, mut errors) = Config::from_vars(text);
        errors.extend(bad);
        (cfg, errors)
    }

    pub fn watermark_bytes(&self) -> usize {
        match self.watermark {
            Watermark::Bytes(b) => b,
            Watermark::Percent(p) => self.buffer_size * p as usize / 100,
        }
    }

    /// The `.atp` needs each enqueue's device times, and a timeline shows
    /// the device (its queues' tracks) beside the calls.
    pub fn times_devices(&self) -> bool {
        self.device_timing || self.atp || self.timeline || self.pftrace || self.counting() || self.controls.histogram
    }

    /// Whether calls are recorded at all: some output needs their records.
    pub fn records_calls(&self) -> bool {
        // Tools' buffers are fed from the trace.
        self.api_log
            || self.timeline
            || self.pftrace
            || self.rocpd
            || self.atp
            || self.counting()
            || !self.tool_libs.is_empty()
            || self.memory.on()
    }

    /// Whether the summary is written at exit: asked for, or holding the
    /// leak list.
    pub fn summarizes(&self) -> bool {
        self.summary || self.memory.leaks
    }

    /// Whether `CLTAP_RANKS` selects this process (a process no launcher
    /// started counts as rank 0).
    pub fn selects(&self, p: &Process) -> bool {
        self.ranks.as_ref().is_none_or(|r| r.selects(p.rank))
    }

    /// Whether counters were asked for.
    pub fn counting(&self) -> bool {
        !self.counters.is_empty()
    }

    /// The HSA interception mode in effect: counters need intercept queues.
    pub fn hsa_mode(&self) -> u8 {
        if self.counting() {
            self.hsa_intercept.max(1)
        } else {
            self.hsa_intercept
        }
    }

    /// Whether the API named `name` passes `CLTAP_LOG_FILTER`.
    pub fn logs(&self, name: &str) -> bool {
        let includes = self.filter.iter().any(|(inc, _)| *inc);
        let mut on = !includes || self.filter.iter().any(|(inc, g)| *inc && glob(g, name));
        if self.filter.iter().any(|(inc, g)| !*inc && glob(g, name)) {
            on = false;
        }
        on
    }
}

/// `*` and `?` wildcards.
pub fn glob(pat: &str, s: &str) -> bool {
    let (p, s): (Vec<char>, Vec<char>) = (pat.chars().collect(), s.chars().collect());
    let (mut pi, mut si, mut star, mut mark) = (0, 0, None, 0);
    while si < s.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == s[si]) {
            pi += 1;
            si += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = si;
            pi += 1;
        } else if let Some(st) = star {
            pi = st + 1;
            mark += 1;
            si = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

fn size(var: &'static str, v: &str) -> Result<usize, ConfigError> {
    let bad = || ConfigError::Invalid {
        var,
        value: v.to_string(),
        accepted: "a byte count from 4096 to 4G, optionally with K, M or G (e.g. 65536, 64K, 1M)",
    };
    let t = v.trim();
    let (num, mul) = match t.chars().last() {
        Some('K' | 'k') => (&t[..t.len() - 1], 1usize << 10),
        Some('M' | 'm') => (&t[..t.len() - 1], 1 << 20),
        Some('G' | 'g') => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    let n: usize = num.parse().map_err(|_| bad())?;
    let n = n.checked_mul(mul).ok_or_else(bad)?;
    // A chunk is one buffer: no larger than the trace reader accepts.
    if n < 4096 || n as u64 > cltap_formats::cltrace::MAX_CHUNK_SIZE {
        return Err(bad());
    }
    Ok(n)
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("{var}={value:?} is not valid (accepted: {accepted}); cltap continues as a pure pass-through")]
    Invalid { var: &'static str, value: String, accepted: &'static str },
    #[error("{var}: {why}; cltap continues as a pure pass-through")]
    Input { var: &'static str, why: String },
    #[error("{var}={value:?} is not valid: {why}; cltap continues as a pure pass-through")]
    Template { var: &'static str, value: String, why: crate::naming::TemplateError },
    #[error("{var}={value:?} is not valid (accepted: UTF-8 text); cltap continues as a pure pass-through")]
    NotText { var: String, value: String },
    #[error("{var}={value:?}: {var} is not a cltap variable{hint}; cltap continues as a pure pass-through", hint = nearest_hint(known))]
    Unknown { var: String, value: String, known: Option<&'static str> },
}

/// ", did you mean X?" for the nearest known name, if there is one close enough.
fn nearest_hint(known: &Option<&'static str>) -> String {
    known.map(|k| format!(" (did you mean {k}?)")).unwrap_or_default()
}

/// The known variable nearest to `name` by edit distance, when a typo could explain the
/// difference (at most a third of the name's length after the prefix).
pub fn nearest_variable(name: &str) -> Option<&'static str> {
    let stem = |s: &str| s.trim_start_matches("CLTAP_").to_string();
    let want = stem(name);
    all_variables()
        .map(|(n, _)| (strsim::damerau_levenshtein(&want, &stem(n)), *n))
        .min()
        .filter(|&(d, _)| d > 0 && d <= want.len().div_ceil(3).max(1))
        .map(|(_, n)| n)
}

impl ConfigError {
    /// The variable the problem is about.
    pub fn var(&self) -> &str {
        match self {
            ConfigError::Invalid { var, .. } | ConfigError::Input { var, .. } | ConfigError::Template { var, .. } => {
                var
            }
            ConfigError::NotText { var, .. } | ConfigError::Unknown { var, .. } => var,
        }
    }

    /// The problem without what the layer then does: for `cltap run`, which refuses instead.
    pub fn problem(&self) -> String {
        let s = self.to_string();
        s.strip_suffix("; cltap continues as a pure pass-through").unwrap_or(&s).to_string()
    }
}

fn flag(var: &'static str, v: &str) -> Result<bool, ConfigError> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" | "" => Ok(false),
        _ => Err(ConfigError::Invalid {
            var,
            value: v.to_string(),
            accepted: "0 or 1 (also true/false, yes/no, on/off)",
        }),
    }
}

pub mod controls;
pub mod dumps;
mod errors;
pub mod limits;
pub mod memory;
mod parse;
pub mod programs;
pub mod test_panic;
#[cfg(test)]
mod tests;
mod window;
