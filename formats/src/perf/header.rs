//! The comment header of `.csv` (`#Key=Value`, `CLGPAProfiler::InitHeader`
//! and `HSAGPAProfiler::InitHeader`) and `.occupancy` (`# Key=Value`,
//! `CLOccupancyFile.cpp`, `WriteOccupancyHeader`), the list separator they
//! name, and the line reader the three readers share.

use super::cells::{err, ReadError};
pub(super) use crate::text::Lines;

/// The `ProfileFileVersion` of RCP's last release (5.6): the `.csv` layout
/// cltap writes is that release's.
pub const PROFILE_FILE_VERSION: &str = "5.6";

/// What RCP writes between cells when no `ListSeparator` is given.
pub const DEFAULT_SEPARATOR: char = ',';

/// Which API's dispatches a `.csv` holds (`API=` in its header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    OpenCl,
    Hsa,
}

impl Api {
    pub fn as_str(self) -> &'static str {
        match self {
            Api::OpenCl => "OpenCL",
            Api::Hsa => "HSA",
        }
    }

    /// The `API` line of a header, when it names one of the two.
    pub fn from_header(header: &[(String, String)]) -> Option<Api> {
        match lookup(header, "API")? {
            "OpenCL" => Some(Api::OpenCl),
            "HSA" => Some(Api::Hsa),
            _ => None,
        }
    }
}

/// One OpenCL device's `Device NAME …=` lines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DeviceHeader {
    pub name: String,
    pub platform_vendor: String,
    pub platform_name: String,
    pub platform_version: String,
    pub driver_version: String,
    pub runtime_version: String,
    pub address_bits: u32,
    /// Written only when known, as RCP does.
    pub board_name: Option<String>,
    pub pcie_device_id: Option<u32>,
}

/// The fields of a `.csv` header, in the order RCP writes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsvHeaderInfo {
    pub profiler_version: String,
    pub api: Api,
    pub application: String,
    pub application_args: String,
    pub working_directory: String,
    /// Written (`1`/`0`) only when `env_vars` is not empty.
    pub full_environment: bool,
    pub env_vars: Vec<(String, String)>,
    /// OpenCL only; RCP's HSA writer has no device lines.
    pub devices: Vec<DeviceHeader>,
    pub os_version: String,
    pub display_name: String,
    /// OpenCL only (`ForceSinglePass=True|False`).
    pub force_single_pass: Option<bool>,
    /// `KernelsProfiled=a,b`, when a kernel filter was given.
    pub kernels_profiled: Vec<String>,
    /// `MaxNumberOfKernelsToProfile=`, when a limit was given.
    pub max_kernels: Option<u64>,
}

impl CsvHeaderInfo {
    /// `ProfileFileVersion` first, `ListSeparator=,` after `DisplayName`.
    pub fn to_header(&self) -> Vec<(String, String)> {
        let kv = |k: &str, v: &str| (k.to_string(), v.to_string());
        let mut h = vec![
            kv("ProfileFileVersion", PROFILE_FILE_VERSION),
            kv("ProfilerVersion", &self.profiler_version),
            kv("API", self.api.as_str()),
            kv("Application", &self.application),
            kv("ApplicationArgs", &self.application_args),
            kv("WorkingDirectory", &self.working_directory),
        ];
        crate::text::push_environment(&mut h, self.full_environment, &self.env_vars);
        for d in &self.devices {
            let mut dev = |what: &str, v: &str| h.push((format!("Device {} {what}", d.name), v.into()));
            dev("Platform Vendor", &d.platform_vendor);
            dev("Platform Name", &d.platform_name);
            dev("Platform Version", &d.platform_version);
            dev("CLDriver Version", &d.driver_version);
            dev("CLRuntime Version", &d.runtime_version);
            dev("NumberAppAddressBits", &d.address_bits.to_string());
            if let Some(b) = &d.board_name {
                dev("Board Name", b);
            }
            if let Some(id) = d.pcie_device_id {
                dev("PCIE device id", &id.to_string());
            }
        }
        h.push(kv("OS Version", &self.os_version));
        h.push(kv("DisplayName", &self.display_name));
        h.push(kv("ListSeparator", &DEFAULT_SEPARATOR.to_string()));
        if let Some(single) = self.force_single_pass {
            h.push(kv("ForceSinglePass", if single { "True" } else { "False" }));
        }
        if !self.kernels_profiled.is_empty() {
            h.push(kv("KernelsProfiled", &self.kernels_profiled.join(",")));
        }
        if let Some(n) = self.max_kernels {
            h.push(kv("MaxNumberOfKernelsToProfile", &n.to_string()));
        }
        h
    }
}

/// The fields of a `.occupancy` header.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OccupancyHeaderInfo {
    /// RCP's occupancy reader (`OccupancyFileInfoDataHandler`) rejects the
    /// file unless this starts with `MAJOR.MINOR` digits, e.g. `5.6.0`.
    pub profiler_version: String,
    pub application: String,
    pub application_args: String,
}

impl OccupancyHeaderInfo {
    /// RCP's five lines; `KernelCount` is the number of rows that follow.
    pub fn to_header(&self, kernel_count: usize) -> Vec<(String, String)> {
        let kv = |k: &str, v: &str| (k.to_string(), v.to_string());
        vec![
            kv("ProfilerVersion", &self.profiler_version),
            kv("Application", &self.application),
            kv("ApplicationArgs", &self.application_args),
            kv("ListSeparator", &DEFAULT_SEPARATOR.to_string()),
            kv("KernelCount", &kernel_count.to_string()),
        ]
    }
}

/// The first value of `key`.
pub fn lookup<'h>(header: &'h [(String, String)], key: &str) -> Option<&'h str> {
    header.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

/// The separator a header's `ListSeparator` names: one character that can
/// separate cells (not a space, quote, `#` or line break); otherwise `,`.
pub fn list_separator(header: &[(String, String)]) -> char {
    let mut chars = lookup(header, "ListSeparator").unwrap_or("").chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if !matches!(c, ' ' | '"' | '#' | '\n' | '\r') => c,
        _ => DEFAULT_SEPARATOR,
    }
}

/// `PREFIXkey=value` lines. A key can hold no `=` (the reader splits at the
/// first one): it becomes `_`; line breaks become spaces.
pub(super) fn write_header(out: &mut String, header: &[(String, String)], prefix: &str) {
    for (key, value) in header {
        out.push_str(prefix);
        crate::text::push_key_value(out, key, value);
    }
}

/// The `#` lines at the top, without `prefix` (`#` or `# `), split at the
/// first `=`. A line of `#` and blanks is skipped.
pub(super) fn read_header(lines: &mut Lines, prefix: &str) -> Result<Vec<(String, String)>, ReadError> {
    let mut header = Vec::new();
    while let Some((no, l)) = lines.peek() {
        if !l.starts_with('#') {
            break;
        }
        lines.take();
        // Accept either prefix: a hand-edited file may mix them.
        let body = l.strip_prefix(prefix).unwrap_or(&l[1..]);
        if body.trim().is_empty() {
            continue;
        }
        let (k, v) = body.split_once('=').ok_or_else(|| err(no, "header line without '='"))?;
        header.push((k.to_string(), v.to_string()));
    }
    Ok(header)
}
