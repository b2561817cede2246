//! What a trace says of itself: the settings it was made with, the
//! process it records, and the outputs a later rendering makes from them.

use super::buffers::Settings;
use crate::render::printer::Options;
use crate::render::{Dest, Outputs};
use cltap_formats::cltrace::Reader;

#[derive(Debug, Clone)]
pub struct TraceSettings {
    pub buffers: Settings,
    /// Where the trace and the files rendered from it go.
    pub dir: std::path::PathBuf,
    /// Where the API log goes; `None` when only other outputs need records.
    pub api_log: Option<Dest>,
    pub options: Options,
    pub timeline: bool,
    pub pftrace: bool,
    pub rocpd: bool,
    pub atp: bool,
    /// The memory trace and the leak check.
    pub memory: crate::config::memory::Memory,
    /// Render during the run and at exit; off, only the binary trace is
    /// written (`cltap render` makes the files later).
    pub render: bool,
    /// Recorded in the trace, for a rendering after the process died.
    pub summary: bool,
    pub device_timing: bool,
    /// Counters and kernel statistics asked for (`CLTAP_COUNTERS`).
    pub counters: Option<crate::counters::collect::Request>,
    /// Event checks, execution controls, histograms (`docs/controls.md`).
    pub controls: crate::config::controls::Controls,
    /// The trace's and the text outputs' limits, and dropping the trace.
    pub limits: crate::config::limits::Limits,
}

impl TraceSettings {
    /// The outputs rendered from a trace made with these settings.
    pub(crate) fn outputs(&self, stem: String) -> Outputs {
        Outputs {
            dir: self.dir.clone(),
            stem,
            api_log: self.api_log.clone(),
            options: self.options.clone(),
            timeline: self.timeline,
            pftrace: self.pftrace,
            rocpd: self.rocpd,
            atp: self.atp,
            memory: self.memory,
            counters: self.counters.clone(),
            limit: self.limits.output,
        }
    }

    /// The settings as the trace's information keeps them.
    pub(crate) fn info(&self) -> Vec<(String, String)> {
        let flag = |b: bool| if b { "1" } else { "0" }.to_string();
        let log = match &self.api_log {
            None => "none",
            Some(Dest::File) => "file",
            Some(Dest::Stderr) => "stderr",
            Some(Dest::Stdout) => "stdout",
        };
        let mut v: Vec<(String, String)> = vec![
            ("api_log".into(), log.into()),
            ("decode".into(), flag(self.options.decode)),
            ("timeline".into(), flag(self.timeline)),
            ("pftrace".into(), flag(self.pftrace)),
            ("rocpd".into(), flag(self.rocpd)),
            ("atp".into(), flag(self.atp)),
            ("memory".into(), flag(self.memory.trace)),
            ("leaks".into(), flag(self.memory.leaks)),
            ("summary".into(), flag(self.summary)),
            ("device_timing".into(), flag(self.device_timing)),
            ("render".into(), flag(self.render)),
            ("counters".into(), self.counters.as_ref().map(|c| c.names.join(",")).unwrap_or_default()),
            (
                "metrics_file".into(),
                self.counters
                    .as_ref()
                    .and_then(|c| c.metrics_file.as_ref())
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
            ),
            ("counter_pass".into(), self.counters.as_ref().map_or(0, |c| c.pass).to_string()),
            ("output_limit".into(), self.limits.output.unwrap_or(0).to_string()),
        ];
        // Only with a control on, so that a run without any has the same
        // header as before (the API log names the controls on).
        let names = self.controls.names();
        if !names.is_empty() {
            v.push(("controls".into(), names.join(", ")));
            v.push(("histogram".into(), flag(self.controls.histogram)));
        }
        v
    }
}

/// Outputs as a trace's information describes them, into `dir`.
pub fn outputs_of(r: &Reader, dir: &std::path::Path, stem: String) -> Outputs {
    let on = |k: &str| r.info(k) == Some("1");
    let api_log = match r.info("api_log") {
        Some("none") => None,
        Some("stdout") => Some(Dest::Stdout),
        Some("stderr") => Some(Dest::Stderr),
        _ => Some(Dest::File),
    };
    let counters = r.info("counters").filter(|c| !c.is_empty()).map(|c| crate::counters::collect::Request {
        names: c.split(',').map(str::to_string).collect(),
        metrics_file: r.info("metrics_file").filter(|m| !m.is_empty()).map(std::path::PathBuf::from),
        pass: r.info("counter_pass").and_then(|p| p.parse().ok()).unwrap_or(0),
    });
    Outputs {
        dir: dir.to_path_buf(),
        stem,
        api_log,
        options: Options { decode: on("decode"), kernels: None },
        timeline: on("timeline"),
        pftrace: on("pftrace"),
        rocpd: on("rocpd"),
        atp: on("atp"),
        memory: crate::config::memory::Memory { trace: on("memory"), leaks: on("leaks") },
        counters,
        // A trace written before the limit existed has none.
        limit: r.info("output_limit").and_then(|l| l.parse().ok()).filter(|l| *l > 0),
    }
}

/// What the trace records about the process, for the rendered headers.
pub(crate) fn process_info(pid: u32) -> Vec<(String, String)> {
    let args = command_args();
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| args.first().cloned().unwrap_or_default());
    let os = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| format!("Linux {}", s.trim()))
        .unwrap_or_else(|_| "Linux".into());
    let cwd = std::env::current_dir().map(|p| p.display().to_string()).unwrap_or_default();
    let mut v = vec![
        ("stem".to_string(), stem(pid)),
        ("cmdline".to_string(), args.join(" ")),
        ("exe".to_string(), exe),
        ("args".to_string(), serde_json::to_string(&args).unwrap_or_default()),
        ("cwd".to_string(), cwd),
        ("os".to_string(), os),
    ];
    if let Some(r) = crate::naming::Process::current().rank {
        v.push(("rank".into(), r.to_string()));
    }
    // What is active, for the API log's header.
    let get = |k: &str| std::env::var(k).ok();
    v.push(("activation".into(), crate::icd::active::activation(&get)));
    v.push(("drivers".into(), crate::icd::active::drivers(&get).join(" ")));
    v.push(("settings".into(), crate::icd::active::settings(std::env::vars()).join(" ")));
    v
}

/// The name of every file of this process, before its extension
/// (`crate::naming`: `<app>.<pid>[.r<rank>]` or `CLTAP_OUTPUT_NAME`). `pid`
/// is this process's, after a `fork` the child's.
pub fn stem(pid: u32) -> String {
    debug_assert_eq!(pid, std::process::id());
    crate::naming::stem()
}

/// The process's command line, program first.
fn command_args() -> Vec<String> {
    std::fs::read("/proc/self/cmdline")
        .map(|b| {
            b.split(|&c| c == 0).filter(|s| !s.is_empty()).map(|s| String::from_utf8_lossy(s).into_owned()).collect()
        })
        .unwrap_or_default()
}
