//! ROCP_INPUT files (rocprofiler's `input.xml`): which metrics to collect.
//!
//! ```text
//! # comments, also inside tags
//! <metric name=SQ_WAVES,GPUBusy,TCC_HIT[0],SQ:4 ></metric>
//! <metric range="3:9" gpu_index="0" kernel="Conv"></metric>
//! ```
//!
//! Every `<metric>` with a `name=` adds its comma-separated names; `range`,
//! `gpu_index` and `kernel` are kept as written (filters for the collector).
//! Other tags (`<trace>` and its `<parameters>`) are skipped with a note:
//! cltap collects counters only.

use super::error::{MetricsError, Origin};
use super::syntax::{self, Preprocessed};
use super::xml::{nodes, Element, Node};
use std::path::{Path, PathBuf};

/// One requested name and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Requested {
    pub name: String,
    pub origin: Origin,
}

/// What an input file asks for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InputFile {
    pub metrics: Vec<Requested>,
    /// Dispatch range, `"3:9"`.
    pub range: Option<String>,
    /// GPU indexes, `"0,1"`.
    pub gpu_index: Option<String>,
    /// Kernel name substrings, `"Simple1,Conv1"`.
    pub kernel: Option<String>,
    /// `FILE:LINE:COL: note: ...` for what was skipped.
    pub notes: Vec<String>,
}

impl InputFile {
    pub fn names(&self) -> Vec<String> {
        self.metrics.iter().map(|m| m.name.clone()).collect()
    }
}

pub fn read_input(path: &Path) -> Result<InputFile, MetricsError> {
    parse(syntax::preprocess_file(path)?)
}

/// Reads input text named `name` (`#include` relative to the current folder).
pub fn parse_input(name: &str, text: &str) -> Result<InputFile, MetricsError> {
    parse(syntax::preprocess(name, text, PathBuf::from("."), None)?)
}

fn parse(pre: Preprocessed) -> Result<InputFile, MetricsError> {
    let mut out = InputFile::default();
    let mut depth = 0usize;
    // While inside a skipped element: the depth it opened at.
    let mut skipping: Option<usize> = None;
    for node in nodes(&pre)? {
        match node {
            Node::Close => {
                depth -= 1;
                if skipping == Some(depth) {
                    skipping = None;
                }
            }
            Node::Open(el) => {
                depth += 1;
                if skipping.is_some() {
                    continue;
                }
                if el.tag == "metric" && depth == 1 {
                    metric(&pre, &el, &mut out)?;
                } else {
                    let what = if el.tag == "trace" {
                        "cltap collects counters only, not traces"
                    } else {
                        "cltap reads only <metric> entries"
                    };
                    out.notes.push(format!("{}: note: <{}> ignored: {what}", pre.origin(el.at), el.tag));
                    skipping = Some(depth - 1);
                }
            }
        }
    }
    Ok(out)
}

fn metric(pre: &Preprocessed, el: &Element, out: &mut InputFile) -> Result<(), MetricsError> {
    for a in &el.attrs {
        let keep = |v: &str| (!v.trim().is_empty()).then(|| v.trim().to_string());
        match a.key.as_str() {
            "name" => {
                let mut offset = 0;
                for piece in a.value.split(',') {
                    let lead = piece.len() - piece.trim_start().len();
                    let at = if a.exact { pre.origin(a.at + offset + lead) } else { pre.origin(a.at) };
                    let name = piece.trim();
                    if name.is_empty() {
                        return Err(MetricsError::Malformed { at, msg: "empty metric name in the list".into() });
                    }
                    out.metrics.push(Requested { name: name.to_string(), origin: at });
                    offset += piece.len() + 1;
                }
            }
            "range" => out.range = keep(&a.value).or(out.range.take()),
            "gpu_index" => out.gpu_index = keep(&a.value).or(out.gpu_index.take()),
            "kernel" => out.kernel = keep(&a.value).or(out.kernel.take()),
            other => out.notes.push(format!("{}: note: attribute '{other}' of <metric> ignored", pre.origin(a.at))),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "# Filters\n<metric\n  # dispatch range\n  range=\"1:4\"\n  gpu_index=\"\"\n  kernel=\"vadd,conv\"\n></metric>\n\n# What to count\n<metric\n  name=\"SQ:4,SQ_WAVES, GPUBusy,TCC_HIT[1]\"\n></metric>\n\n<trace name=\"SQTT\">\n  <parameters MASK=0x0f00 ></parameters>\n</trace>\n";

    #[test]
    fn reads_names_filters_and_skips_traces() {
        let f = parse_input("in.xml", SAMPLE).unwrap();
        assert_eq!(f.names(), ["SQ:4", "SQ_WAVES", "GPUBusy", "TCC_HIT[1]"]);
        assert_eq!(f.metrics[2].origin.to_string(), "in.xml:11:24");
        assert_eq!(f.range.as_deref(), Some("1:4"));
        assert_eq!(f.gpu_index, None);
        assert_eq!(f.kernel.as_deref(), Some("vadd,conv"));
        assert_eq!(f.notes, ["in.xml:14:1: note: <trace> ignored: cltap collects counters only, not traces"]);
    }

    #[test]
    fn errors_point_into_the_file() {
        let e = parse_input("in.xml", "<metric name=A,,B></metric>").unwrap_err();
        assert_eq!(e.to_string(), "in.xml:1:16: empty metric name in the list");
        let e = parse_input("in.xml", "\n<metric name=A>\n").unwrap_err();
        assert_eq!(e.to_string(), "in.xml:2:1: <metric> is never closed");
        let e = parse_input("in.xml", "<metric name=A></metric>\nSQ_WAVES\n").unwrap_err();
        assert_eq!(e.to_string(), "in.xml:2:1: unexpected text 'SQ_WAVES' outside a tag");
    }
}
