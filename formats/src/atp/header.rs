//! The `Key=Value` header (`sprofile/AtpFile.cpp`,
//! `AtpFileWriter::SaveToAtpFile`).

use super::syntax::{err, starts_section, ReadError};
use super::{EMPTY_FIELD, TRACE_FILE_VERSION};
use crate::text::Lines;

/// The fields RCP's profiler puts in the header, in the order it writes them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HeaderInfo {
    pub profiler_version: String,
    pub application: String,
    pub application_args: String,
    pub working_directory: String,
    /// Written (as RCP does, `1`/`0`) only when `env_vars` is not empty.
    pub full_environment: bool,
    pub env_vars: Vec<(String, String)>,
    pub user_timer: bool,
    pub os_version: String,
    pub display_name: String,
}

impl HeaderInfo {
    /// Header lines as `AtpFileWriter::SaveToAtpFile` orders them,
    /// `TraceFileVersion=3.2` first.
    pub fn to_header(&self) -> Vec<(String, String)> {
        let kv = |k: &str, v: &str| (k.to_string(), v.to_string());
        let mut h = vec![
            kv("TraceFileVersion", TRACE_FILE_VERSION),
            kv("ProfilerVersion", &self.profiler_version),
            kv("Application", &self.application),
            kv("ApplicationArgs", &self.application_args),
            kv("WorkingDirectory", &self.working_directory),
        ];
        crate::text::push_environment(&mut h, self.full_environment, &self.env_vars);
        h.push(kv("UserTimer", if self.user_timer { "True" } else { "False" }));
        h.push(kv("OS Version", &self.os_version));
        h.push(kv("DisplayName", &self.display_name));
        h
    }
}

/// `Key=Value` lines. A key can hold neither `=` (the reader splits at the
/// first one) nor be blank (the line would read as a section marker); such
/// characters become `_` and a blank key [`EMPTY_FIELD`]. Line breaks in keys
/// and values become spaces.
pub fn write_header(out: &mut String, header: &[(String, String)]) {
    for (key, value) in header {
        let key = if key.trim().is_empty() { EMPTY_FIELD } else { key };
        crate::text::push_key_value(out, key, value);
    }
}

/// The lines before the first section, split at the first `=`.
pub(super) fn read_header(lines: &mut Lines) -> Result<Vec<(String, String)>, ReadError> {
    let mut header = Vec::new();
    while let Some((no, l)) = lines.peek() {
        if starts_section(l) {
            break;
        }
        lines.take();
        let (k, v) = l.split_once('=').ok_or_else(|| err(no, "header line without '='"))?;
        header.push((k.to_string(), v.to_string()));
    }
    Ok(header)
}
