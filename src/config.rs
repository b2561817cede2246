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
        }
    }
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

    /// The `.atp` needs each enqueue's device times.
    pub fn times_devices(&self) -> bool {
        self.device_timing || self.atp || self.counting()
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
    #[error("{var}={value:?}: {var} is not a cltap variable (known: {known}); cltap continues as a pure pass-through")]
    Unknown { var: String, value: String, known: String },
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

impl Config {
    /// Reads the configuration from `vars` (name, value pairs, as
    /// `std::env::vars()` gives them). Returns the configuration and every
    /// problem found; with any problem the caller must not record.
    pub fn from_vars<I>(vars: I) -> (Config, Vec<ConfigError>)
    where
        I: IntoIterator<Item = (String, String)>,
    {
        let mut cfg = Config::default();
        let mut errors = Vec::new();
        for (k, v) in vars {
            if k == "ROCP_HSA_INTERCEPT" {
                match v.trim() {
                    "" | "0" => cfg.hsa_intercept = 0,
                    "1" => cfg.hsa_intercept = 1,
                    "2" => cfg.hsa_intercept = 2,
                    _ => errors.push(ConfigError::Invalid {
                        var: "ROCP_HSA_INTERCEPT",
                        value: v.clone(),
                        accepted: "0, 1 or 2",
                    }),
                }
                continue;
            }
            if k == "ROCP_TOOL_LIB" {
                cfg.tool_libs = crate::tools::toollib::paths(&v);
                continue;
            }
            if k == "ROCP_METRICS" || k == "ROCP_INPUT" {
                let path = PathBuf::from(v.trim());
                if v.trim().is_empty() {
                    continue;
                }
                if !path.is_file() {
                    errors.push(ConfigError::Invalid {
                        var: if k == "ROCP_METRICS" { "ROCP_METRICS" } else { "ROCP_INPUT" },
                        value: v.clone(),
                        accepted: "the path of a readable file",
                    });
                } else if k == "ROCP_METRICS" {
                    cfg.metrics_file = Some(path);
                } else {
                    cfg.rocp_input = Some(path);
                }
                continue;
            }
            if !k.starts_with("CLTAP_") {
                continue;
            }
            let r = match k.as_str() {
                "CLTAP_SUMMARY" => flag("CLTAP_SUMMARY", &v).map(|b| cfg.summary = b),
                "CLTAP_ICD_FILENAMES" => {
                    let paths: Vec<PathBuf> = v.split(':').filter(|s| !s.is_empty()).map(PathBuf::from).collect();
                    if paths.is_empty() {
                        Err(ConfigError::Invalid {
                            var: "CLTAP_ICD_FILENAMES",
                            value: v.clone(),
                            accepted: "one or more driver library paths separated by ':'",
                        })
                    } else {
                        cfg.icd_filenames = Some(paths);
                        Ok(())
                    }
                }
                "CLTAP_OUTPUT_NAME" => {
                    crate::naming::stem_with(Some(&v), &Process::current(), &|k| std::env::var(k).ok())
                        .map(|_| cfg.output_name = Some(v.clone()))
                        .map_err(|why| ConfigError::Template { var: "CLTAP_OUTPUT_NAME", value: v.clone(), why })
                }
                "CLTAP_RANKS" => match crate::naming::Ranks::parse(&v) {
                    Some(r) => {
                        cfg.ranks = Some(r);
                        Ok(())
                    }
                    None => Err(ConfigError::Invalid {
                        var: "CLTAP_RANKS",
                        value: v.clone(),
                        accepted: "comma-separated ranks and ranges, e.g. 0,3-5",
                    }),
                },
                "CLTAP_OUTPUT_DIR" => {
                    // Expanded once, here: a forked child writes beside its parent.
                    let dir = match crate::naming::expand(&v, &Process::current(), &|k| std::env::var(k).ok()) {
                        Ok(d) => d,
                        Err(why) => {
                            errors.push(ConfigError::Template { var: "CLTAP_OUTPUT_DIR", value: v.clone(), why });
                            continue;
                        }
                    };
                    // Created when missing, as `cltap run --output` does.
                    let p = std::path::Path::new(&dir);
                    match std::fs::create_dir_all(p) {
                        Ok(()) if p.is_dir() => {
                            cfg.output_dir = PathBuf::from(&dir);
                            Ok(())
                        }
                        Ok(()) => Err(ConfigError::Invalid {
                            var: "CLTAP_OUTPUT_DIR",
                            value: v.clone(),
                            accepted: "a directory",
                        }),
                        Err(e) => Err(ConfigError::Invalid {
                            var: "CLTAP_OUTPUT_DIR",
                            value: v.clone(),
                            accepted: if e.kind() == std::io::ErrorKind::PermissionDenied {
                                "a directory that exists or can be created (permission denied)"
                            } else {
                                "a directory that exists or can be created"
                            },
                        }),
                    }
                }
                "CLTAP_API_LOG" => flag("CLTAP_API_LOG", &v).map(|b| cfg.api_log = b),
                "CLTAP_DEVICE_TIMING" => flag("CLTAP_DEVICE_TIMING", &v).map(|b| cfg.device_timing = b),
                "CLTAP_TIMELINE" => flag("CLTAP_TIMELINE", &v).map(|b| cfg.timeline = b),
                "CLTAP_PFTRACE" => flag("CLTAP_PFTRACE", &v).map(|b| cfg.pftrace = b),
                "CLTAP_ROCPD" => flag("CLTAP_ROCPD", &v).map(|b| cfg.rocpd = b),
                "CLTAP_ATP" => flag("CLTAP_ATP", &v).map(|b| cfg.atp = b),
                "CLTAP_RENDER" => flag("CLTAP_RENDER", &v).map(|b| cfg.render = b),
                // The launcher's setting; it reaches the application's
                // environment and must not turn recording off.
                "CLTAP_LAYER" => Ok(()),
                "CLTAP_COUNTERS" => {
                    let names: Vec<String> =
                        v.split(',').map(|n| n.trim().to_string()).filter(|n| !n.is_empty()).collect();
                    let ok = |n: &str| {
                        n.chars().all(|c| c.is_ascii_alphanumeric() || "_[]".contains(c))
                            && n.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    };
                    if names.iter().all(|n| ok(n)) {
                        cfg.counters = names;
                        Ok(())
                    } else {
                        Err(ConfigError::Invalid { var: "CLTAP_COUNTERS", value: v.clone(), accepted: "comma-separated counter or metric names such as SQ_WAVES,GPUBusy,TCC_HIT[0] (see `cltap metrics list`)" })
                    }
                }
                "CLTAP_COUNTER_PASS" => match v.trim().parse::<u32>() {
                    Ok(n) => {
                        cfg.counter_pass = n;
                        Ok(())
                    }
                    Err(_) => Err(ConfigError::Invalid {
                        var: "CLTAP_COUNTER_PASS",
                        value: v.clone(),
                        accepted: "a pass number from 0",
                    }),
                },
                "CLTAP_LOG_DECODE" => flag("CLTAP_LOG_DECODE", &v).map(|b| cfg.decode = b),
                "CLTAP_LOG" => match v.trim() {
                    "file" | "" => {
                        let _: () = cfg.log_dest = LogDest::File;
                        Ok(())
                    }
                    "stderr" => {
                        let _: () = cfg.log_dest = LogDest::Stderr;
                        Ok(())
                    }
                    "stdout" => {
                        let _: () = cfg.log_dest = LogDest::Stdout;
                        Ok(())
                    }
                    _ => Err(ConfigError::Invalid {
                        var: "CLTAP_LOG",
                        value: v.clone(),
                        accepted: "file, stderr or stdout",
                    }),
                },
                "CLTAP_LOG_FILTER" => {
                    let items: Vec<(bool, String)> = v
                        .split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(|s| match s.strip_prefix('-') {
                            Some(x) => (false, x.to_string()),
                            None => (true, s.to_string()),
                        })
                        .collect();
                    if items.iter().all(|(_, g)| {
                        !g.is_empty()
                            && g.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '*' || c == '?')
                    }) {
                        cfg.filter = items;
                        Ok(())
                    } else {
                        Err(ConfigError::Invalid { var: "CLTAP_LOG_FILTER", value: v.clone(), accepted: "comma-separated API name globs (letters, digits, _, *, ?), each optionally prefixed by '-'" })
                    }
                }
                "CLTAP_BUFFER_SIZE" => size("CLTAP_BUFFER_SIZE", &v).map(|n| cfg.buffer_size = n),
                "CLTAP_BUFFER_WATERMARK" => {
                    let t = v.trim();
                    if let Some(p) = t.strip_suffix('%') {
                        match p.parse::<u32>() {
                            Ok(p) if (1..=100).contains(&p) => {
                                let _: () = cfg.watermark = Watermark::Percent(p);
                                Ok(())
                            }
                            _ => Err(ConfigError::Invalid {
                                var: "CLTAP_BUFFER_WATERMARK",
                                value: v.clone(),
                                accepted: "1% to 100%, or a byte count",
                            }),
                        }
                    } else {
                        size("CLTAP_BUFFER_WATERMARK", &v).map(|n| cfg.watermark = Watermark::Bytes(n))
                    }
                }
                "CLTAP_BUFFER_POLICY" => match v.trim() {
                    "lossless" => {
                        let _: () = cfg.lossless = true;
                        Ok(())
                    }
                    "discard" => {
                        let _: () = cfg.lossless = false;
                        Ok(())
                    }
                    _ => Err(ConfigError::Invalid {
                        var: "CLTAP_BUFFER_POLICY",
                        value: v.clone(),
                        accepted: "lossless or discard",
                    }),
                },
                _ => Err(ConfigError::Unknown {
                    var: k.clone(),
                    value: v.clone(),
                    known: VARIABLES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "),
                }),
            };
            if let Err(e) = r {
                errors.push(e);
            }
        }
        // rocprofiler v1's input file: its metrics join CLTAP_COUNTERS'.
        if let Some(p) = cfg.rocp_input.clone() {
            match crate::metrics::read_input(&p) {
                Ok(input) => {
                    for n in input.names() {
                        if !cfg.counters.contains(&n) {
                            cfg.input_counters.push(n.clone());
                            cfg.counters.push(n);
                        }
                    }
                }
                Err(e) => errors.push(ConfigError::Input { var: "ROCP_INPUT", why: e.to_string() }),
            }
        }
        (cfg, errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    #[test]
    fn a_value_that_is_not_utf8_is_reported_not_skipped() {
        use std::os::unix::ffi::OsStringExt;
        let os = |s: &str| std::ffi::OsString::from(s);
        let (_, e) = Config::from_vars_os([
            (os("CLTAP_OUTPUT_DIR"), std::ffi::OsString::from_vec(b"out\xff".to_vec())),
            (os("OTHER"), std::ffi::OsString::from_vec(b"\xff".to_vec())),
        ]);
        assert_eq!(e.len(), 1, "{e:?}");
        assert_eq!(
            e[0].to_string(),
            "CLTAP_OUTPUT_DIR=\"out\u{fffd}\" is not valid (accepted: UTF-8 text); cltap continues as a pure pass-through"
        );
    }

    #[test]
    fn a_buffer_the_reader_would_refuse_is_refused() {
        let (_, e) = Config::from_vars(vars(&[("CLTAP_BUFFER_SIZE", "16G")]));
        assert!(matches!(&e[..], [ConfigError::Invalid { var: "CLTAP_BUFFER_SIZE", .. }]), "{e:?}");
        let (c, e) = Config::from_vars(vars(&[("CLTAP_BUFFER_SIZE", "4G")]));
        assert!(e.is_empty() && c.buffer_size == 1 << 32, "{e:?}");
    }

    #[test]
    fn defaults_without_variables() {
        let (c, e) = Config::from_vars(vars(&[("PATH", "/bin")]));
        assert!(e.is_empty());
        assert_eq!(c, Config::default());
    }

    #[test]
    fn bad_flag_names_variable_value_and_accepted() {
        let (_, e) = Config::from_vars(vars(&[("CLTAP_SUMMARY", "maybe")]));
        let msg = e[0].to_string();
        assert!(msg.contains("CLTAP_SUMMARY=\"maybe\""), "{msg}");
        assert!(msg.contains("accepted: 0 or 1"), "{msg}");
        assert!(msg.contains("pure pass-through"), "{msg}");
    }

    #[test]
    fn the_launchers_variable_is_known() {
        let (c, e) = Config::from_vars(vars(&[("CLTAP_LAYER", "/opt/cltap/libcltap_layer.so")]));
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(c, Config::default());
    }

    #[test]
    fn unknown_variable_is_reported() {
        let (_, e) = Config::from_vars(vars(&[("CLTAP_SUMARY", "1")]));
        assert!(matches!(&e[0], ConfigError::Unknown { var, .. } if var == "CLTAP_SUMARY"));
    }

    #[test]
    fn icd_filenames_split_on_colons() {
        let (c, e) = Config::from_vars(vars(&[("CLTAP_ICD_FILENAMES", "/a.so::/b.so")]));
        assert!(e.is_empty());
        assert_eq!(c.icd_filenames.unwrap(), vec![PathBuf::from("/a.so"), PathBuf::from("/b.so")]);
    }

    #[test]
    fn buffer_settings() {
        let (c, e) = Config::from_vars(vars(&[
            ("CLTAP_BUFFER_SIZE", "64K"),
            ("CLTAP_BUFFER_WATERMARK", "50%"),
            ("CLTAP_BUFFER_POLICY", "discard"),
        ]));
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(c.buffer_size, 65536);
        assert_eq!(c.watermark_bytes(), 32768);
        assert!(!c.lossless);
        for (k, v) in [
            ("CLTAP_BUFFER_SIZE", "12"),
            ("CLTAP_BUFFER_SIZE", "lots"),
            ("CLTAP_BUFFER_WATERMARK", "0%"),
            ("CLTAP_BUFFER_POLICY", "maybe"),
            ("CLTAP_LOG", "syslog"),
            ("CLTAP_LOG_FILTER", "cl Get"),
        ] {
            let (_, e) = Config::from_vars(vars(&[(k, v)]));
            assert_eq!(e.len(), 1, "{k}={v}");
        }
    }

    #[test]
    fn tool_libraries_are_listed_in_order_and_need_the_trace() {
        let (c, e) =
            Config::from_vars(vars(&[("ROCP_TOOL_LIB", "/t/a.so::/nonexistent/b.so"), ("CLTAP_API_LOG", "0")]));
        assert!(e.is_empty(), "a bad tool path is reported when it is loaded, not here: {e:?}");
        assert_eq!(c.tool_libs, vec![PathBuf::from("/t/a.so"), PathBuf::from("/nonexistent/b.so")]);
        assert!(c.records_calls());
        let (c, _) = Config::from_vars(vars(&[("ROCP_TOOL_LIB", ""), ("CLTAP_API_LOG", "0")]));
        assert!(c.tool_libs.is_empty() && !c.records_calls());
    }

    #[test]
    fn filter_globs() {
        let (c, _) = Config::from_vars(vars(&[("CLTAP_LOG_FILTER", "clEnqueue*, clFinish, -clEnqueueRead*")]));
        assert!(c.logs("clEnqueueNDRangeKernel"));
        assert!(c.logs("clFinish"));
        assert!(!c.logs("clEnqueueReadBuffer"));
        assert!(!c.logs("clGetDeviceInfo"));
        let (c, _) = Config::from_vars(vars(&[("CLTAP_LOG_FILTER", "-clGetEventInfo")]));
        assert!(c.logs("clGetDeviceInfo") && !c.logs("clGetEventInfo"));
        assert!(glob("cl?et*Info", "clGetDeviceInfo"));
    }

    #[test]
    fn output_dir_is_created_or_refused_clearly() {
        let tmp = tempfile::tempdir().unwrap();
        let want = tmp.path().join("a/b");
        let (c, e) = Config::from_vars(vars(&[("CLTAP_OUTPUT_DIR", want.to_str().unwrap())]));
        assert!(e.is_empty(), "{e:?}");
        assert!(want.is_dir() && c.output_dir == want);
        let file = tmp.path().join("f");
        std::fs::write(&file, "").unwrap();
        let (_, e) = Config::from_vars(vars(&[("CLTAP_OUTPUT_DIR", file.join("x").to_str().unwrap())]));
        assert_eq!(e.len(), 1);
        assert!(
            e[0].to_string().contains("CLTAP_OUTPUT_DIR") && e[0].to_string().contains("can be created"),
            "{}",
            e[0]
        );
    }
}
