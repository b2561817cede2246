//! Errors of the metrics library. Everything that comes from a file carries
//! the place in the file the user wrote (not in the preprocessed text), as
//! `FILE:LINE:COLUMN`, lines and columns counted from 1, columns in characters.

use std::fmt;
use std::sync::Arc;

/// A place in a source file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    pub file: Arc<str>,
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    /// The top file itself cannot be read.
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{at}: cannot read included file '{path}': {source}")]
    Include { at: Origin, path: String, source: std::io::Error },
    /// Too deep, too many or too large: the limits that keep a file that
    /// includes itself many ways from costing without end.
    #[error("{at}: {msg}")]
    IncludeLimit { at: Origin, msg: String },
    #[error("{at}: include cycle: {chain}")]
    IncludeCycle { at: Origin, chain: String },
    /// Anything that is not a well-formed tag, attribute or entry.
    #[error("{at}: {msg}")]
    Malformed { at: Origin, msg: String },
    #[error("{at}: unknown block name '{block}' (AQLprofile blocks: {known})")]
    UnknownBlock { at: Origin, block: String, known: String },
    #[error("{at}: block {block} has no counters on {gpu}")]
    BlockUnavailable { at: Origin, block: String, gpu: String },
    #[error("{at}: duplicate metric '{name}' (first defined at {first})")]
    Duplicate { at: Origin, name: String, first: Origin },
    #[error("{at}: '{name}' is a constant name and cannot be defined as a metric")]
    ReservedName { at: Origin, name: String },
    #[error("{at}: section <{section}> names unknown base '{base}'")]
    UnknownBase { at: Origin, section: String, base: String },
    #[error("{at}: base cycle between sections: {chain}")]
    BaseCycle { at: Origin, chain: String },
    #[error("{at}: reference cycle between derived metrics: {chain}")]
    Cycle { at: Origin, chain: String },
    #[error("{at}: unknown metric '{name}' in expression{hint}")]
    UnknownName { at: Origin, name: String, hint: String },
    #[error("{at}: unknown function '{name}' (known: sum, avr, min, max)")]
    UnknownFunction { at: Origin, name: String },
    #[error("{at}: expression syntax error: {msg}")]
    ExprSyntax { at: Origin, msg: String },
    /// `NAME[i]` or `sum(NAME,N)` that does not fit the block.
    #[error("{at}: {msg}")]
    Instance { at: Origin, msg: String },
    #[error("{file}: no section for GPU '{gpu}' (sections: {known})")]
    UnknownGpu { file: String, gpu: String, known: String },
    /// A requested name (command line, ROCP_INPUT) the catalog does not know.
    #[error("unknown metric '{name}'{hint}")]
    UnknownRequest { name: String, hint: String },
    #[error("bad metric request '{name}': {msg}")]
    BadRequest { name: String, msg: String },
}

/// " (did you mean 'A', 'B'?)" or "" — the close matches of `name` among
/// `known`, by edit distance, case-insensitively.
pub(crate) fn did_you_mean<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> String {
    let close = close_matches(name, known, 3);
    if close.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = close.iter().map(|c| format!("'{c}'")).collect();
        format!(" (did you mean {}?)", list.join(", "))
    }
}

pub(crate) fn close_matches<'a>(name: &str, known: impl Iterator<Item = &'a str>, max: usize) -> Vec<&'a str> {
    let want = name.to_ascii_lowercase();
    let limit = (want.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &str)> = known
        .filter_map(|k| {
            let low = k.to_ascii_lowercase();
            let d = distance(&want, &low);
            // A name that contains what was typed (or the reverse) is close too:
            // `TCC_HIT` for `TCC_HIT_sum`.
            let (short, long) = if want.len() <= low.len() { (&want, &low) } else { (&low, &want) };
            let contains = short.len() >= 4 && long.contains(short.as_str());
            (d <= limit || contains).then_some((if contains { d.min(limit) } else { d }, k))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(max).map(|(_, k)| k).collect()
}

/// Levenshtein distance over characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb { prev } else { 1 + prev.min(cur).min(row[j]) };
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names() {
        assert_eq!(distance("kitten", "sitting"), 3);
        let known = ["GPUBusy", "VALUBusy", "SALUBusy", "SQ_WAVES", "TCC_HIT_sum"];
        assert_eq!(close_matches("GPUBusi", known.iter().copied(), 3), vec!["GPUBusy"]);
        assert_eq!(close_matches("gpubusy", known.iter().copied(), 3)[0], "GPUBusy");
        assert!(close_matches("TCC_HIT", known.iter().copied(), 3).contains(&"TCC_HIT_sum"));
        assert_eq!(did_you_mean("XYZZY_PLUGH", known.iter().copied()), "");
    }
}
